// staticformer: softmax with xsimd (optimised; bit-identical to reference/softmax.hpp).
#pragma once

#include "../math/approx.hpp"
#include "../reference/softmax.hpp"
#include "reduce.hpp"

namespace staticformer {
namespace kernels {
namespace simd {

inline void softmax(float* s, int n) noexcept {
    // The maximum does not depend on the order in which it is taken.
    const int whole = n / width * width;
    float m = s[0];
    if (whole > 0) {
        batch mv = load(s);
        for (int j = width; j < whole; j += width) mv = batch_ops::max(load(s + j), mv);
        alignas(64) float lane[width];
        store(lane, mv);
        m = reference::row_max(lane, 0, width, m);
    }
    m = reference::row_max(s, whole, n, m);

    const batch mb(m);
    for (int j = 0; j < whole; j += width) store(s + j, math::exp<batch_ops>(load(s + j) - mb));
    reference::exp_shifted(s, whole, n, m);

    const float sum = reference::fold(sum_lanes(s, n));
    const batch sb(sum);
    for (int j = 0; j < whole; j += width) store(s + j, div(load(s + j), sb));
    reference::divide(s, whole, n, sum);
}

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
