// staticformer: int8 softmax on Cortex-M (optimised; bit-identical to
// reference/softmax_int8.hpp): the reference's three steps, each score's in fewer instructions:
// the maximum two scores a step, the scaled distance to it in 32-bit halves, the exponential by
// math::exp2_neg_q16_pairs, the probability by one SMMULR (arm_dsp's blocks). Every score takes
// the same instructions (firmware timing).
#pragma once

#include <cstdint>

#include "../../../math/fixed_point.hpp"
#include "../../isa/arm_dsp.hpp"
#include "../../reference/softmax_int8.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_dsp {

// The exponentials of a row for the shifts and multipliers arm_dsp's blocks do not take, with
// the distance's rescale chosen once per row (-O2 does not take loop-invariant branches out of a
// loop). Each rescaled distance is opaque to GCC, which would otherwise branch around the
// exponentials it sees are 0: the count would depend on the scores.
inline std::int32_t exponentials_any(std::int32_t* s, int n, std::int32_t max, std::uint32_t m,
                                     std::int32_t shift) noexcept {
    std::int32_t sum = 0;
    const auto each = [&](auto rescaled) {
        for (int j = 0; j < n; ++j) {
            s[j] = math::exp2_neg_q16_clamped(arm_dsp::opaque(math::exp2_pairs_clamp(rescaled(std::uint32_t(max - s[j])))));
            sum += s[j];
        }
    };
    if (shift >= 32) {  // the product's high word, shifted (rescale_nonnegative's first case)
        const std::uint64_t round = std::uint64_t(1) << (shift - 1);
        const int high_shift = shift - 32;
        each([=](std::uint32_t d) { return std::uint32_t((round + std::uint64_t(d) * m) >> 32) >> high_shift; });
    } else {
        // The distance clamped at arm_dsp::distance_clamp: below it the rescale stays under 2^23, so
        // the product's halves joined are exact and the reference's clamp to 2^30 never applies.
        const std::uint32_t dmax = arm_dsp::distance_clamp(m, shift), round = std::uint32_t(1) << (shift - 1);
        each([=](std::uint32_t d) {
            const std::uint64_t t = std::uint64_t(d < dmax ? d : dmax) * m + round;
            return (std::uint32_t(t) >> shift) | (std::uint32_t(t >> 32) << (32 - shift));
        });
    }
    return sum;
}

inline void softmax(std::int32_t* s, int n, math::fixed_multiplier logits, std::int16_t* p) noexcept {
    const std::int32_t max = arm_dsp::row_max(s, n);
    const std::uint32_t m = std::uint32_t(logits.multiplier);
    const std::int32_t shift = logits.shift;
    const int k = 31 - __builtin_clz(m | 1);
    std::int32_t sum;
    if (shift >= 2 && shift <= 32 && k >= 23 && k <= 30 && n > 0)
        sum = arm_dsp::exponentials_short(s, n, max, m, shift);
    else if (shift >= 33 && shift <= 62 && k >= 23 && k <= 30 && n > 0)
        sum = arm_dsp::exponentials_long(s, n, max, m, shift);
    else
        sum = exponentials_any(s, n, max, m, shift);
    // softmax_probability: (e r + 2^30) >> 31 = SMMULR(2 e, r) for 0 <= e <= 2^15. r <= 2^31;
    // r = 2^31 (sum = 2^15, one score) as 2^31 - 1 gives the same e for every e <= 2^15.
    const std::uint32_t reciprocal = std::uint32_t(reference::softmax_reciprocal(sum));
    arm_dsp::probabilities(s, n, std::int32_t(reciprocal < 0x7fffffffu ? reciprocal : 0x7fffffffu), p);
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
