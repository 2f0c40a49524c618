// staticformer: int8 softmax on Cortex-M (optimised; bit-identical to
// reference/softmax_int8.hpp): the reference's steps, with the scaled distance to the maximum
// by math::rescale_nonnegative (32-bit halves, no signed 64-bit shift).
#pragma once

#include <cstdint>

#include "../../math/fixed_point.hpp"
#include "../reference/softmax_int8.hpp"
#if defined(__ARM_FEATURE_MVE)
#include "softmax_int8_mve.hpp"
#endif

namespace staticformer {
namespace kernels {
namespace cortex_m_dsp {

inline void softmax(std::int32_t* s, int n, math::fixed_multiplier logits, std::int16_t* p) noexcept {
#if defined(__ARM_FEATURE_MVE)
    return cortex_m_mve::softmax(s, n, logits, p);  // four scores at a time with Helium
#endif
    std::int32_t max = s[0];
    for (int j = 1; j < n; ++j) max = s[j] > max ? s[j] : max;
    std::int32_t sum = 0;
    for (int j = 0; j < n; ++j) {
        s[j] = math::exp2_neg_q16(math::rescale_nonnegative(max - s[j], logits.multiplier, logits.shift));
        sum += s[j];
    }
    const std::int64_t reciprocal = reference::softmax_reciprocal(sum);
    for (int j = 0; j < n; ++j) p[j] = reference::softmax_probability(s[j], reciprocal);
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
