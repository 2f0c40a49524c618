// staticformer: int8 softmax, integer scores to Q15 probabilities (reference backend,
// normative): a table exponential in base 2 and one 64-bit reciprocal per row.
#pragma once

#include <cstdint>

#include "../../math/fixed_point.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

// The softmax's three element steps (optimised kernels call them for their tails).
inline std::int32_t softmax_exp(std::int32_t max, std::int32_t score, math::fixed_multiplier logits) noexcept {
    return math::exp2_neg_q16(math::rescale(max - score, logits.multiplier, logits.shift));
}
inline std::int64_t softmax_reciprocal(std::int32_t sum) noexcept {
    // sum >= 2^15 (the maximum's term): 2^46 / sum <= 2^31, a 32-bit quotient.
    return std::int64_t(math::power_of_two_over<46>(std::uint32_t(sum)));
}
inline std::int16_t softmax_probability(std::int32_t e, std::int64_t reciprocal) noexcept {
    const std::int64_t q = (e * reciprocal + (std::int64_t(1) << 30)) >> 31;
    return std::int16_t(q > 32767 ? 32767 : q);
}

// Scores s[0..n) (overwritten by the exponentials) -> Q15 probabilities p.
inline void softmax(std::int32_t* s, int n, math::fixed_multiplier logits, std::int16_t* p) noexcept {
    std::int32_t max = s[0];
    for (int j = 1; j < n; ++j) max = s[j] > max ? s[j] : max;
    std::int32_t sum = 0;
    for (int j = 0; j < n; ++j) {
        s[j] = softmax_exp(max, s[j], logits);
        sum += s[j];
    }
    const std::int64_t reciprocal = softmax_reciprocal(sum);
    for (int j = 0; j < n; ++j) p[j] = softmax_probability(s[j], reciprocal);
}

// Rows r < rows of scores s + r Stride into probabilities p + r Stride.
template <int Stride>
inline void softmax_rows(std::int32_t* s, int rows, int n, math::fixed_multiplier logits, std::int16_t* p) noexcept {
    for (int r = 0; r < rows; ++r) softmax(s + r * Stride, n, logits, p + r * Stride);
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
