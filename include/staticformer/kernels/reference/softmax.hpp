// staticformer: softmax over the first n scores of a row, in place (normative).
//   p_j = e_j / sum(e),  e_j = exp(s_j - max(s)),  sum in the canonical lane order.
#pragma once

#include "../../math/approx.hpp"
#include "../../math/scalar_ops.hpp"
#include "reduce.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

using math::scalar_ops;

inline float row_max(const float* s, int begin, int end, float m) noexcept {
    for (int j = begin; j < end; ++j) m = scalar_ops::max(s[j], m);
    return m;
}

inline void exp_shifted(float* s, int begin, int end, float shift) noexcept {
    for (int j = begin; j < end; ++j) s[j] = math::exp<scalar_ops>(s[j] - shift);
}

inline void divide(float* s, int begin, int end, float denominator) noexcept {
    for (int j = begin; j < end; ++j) s[j] = s[j] / denominator;
}

inline void softmax(float* s, int n) noexcept {
    const float m = row_max(s, 1, n, s[0]);
    exp_shifted(s, 0, n, m);
    lane_sums sum;
    accumulate(sum, s, 0, n);
    divide(s, 0, n, fold(sum));
}

// Rows rows of scores, Stride floats apart, each over its first n.
template <int Stride>
inline void softmax_rows(float* s, int rows, int n) noexcept {
    for (int r = 0; r < rows; ++r) softmax(s + r * Stride, n);
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
