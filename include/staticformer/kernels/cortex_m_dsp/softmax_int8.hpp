// staticformer: int8 softmax on Cortex-M (optimised; bit-identical to
// reference/softmax_int8.hpp): the reference's steps, with the scaled distance to the maximum
// by math::rescale_nonnegative (32-bit halves, no signed 64-bit shift) and the probabilities by
// an unsigned multiply-accumulate.
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
    // rescale_nonnegative's choice by the shift made once per row, not per score (-O2 does not
    // take loop-invariant branches out of a loop).
    const auto exponentials = [&](auto rescaled) {
        for (int j = 0; j < n; ++j) {
            s[j] = math::exp2_neg_q16(rescaled(max - s[j]));
            sum += s[j];
        }
    };
    const std::uint32_t m = std::uint32_t(logits.multiplier);
    const std::uint64_t round = std::uint64_t(1) << (logits.shift - 1);
    if (logits.shift >= 32) {
        const int high_shift = logits.shift - 32;
        exponentials([=](std::int32_t d) {
            const std::uint32_t high = std::uint32_t((round + std::uint64_t(std::uint32_t(d)) * m) >> 32);
            return std::int32_t(high >> high_shift);
        });
    } else {
        // Opaque to GCC, which otherwise sees that a clamped distance's exponential is 0 and
        // branches around it: the count would depend on the scores.
        exponentials([&](std::int32_t d) {
            std::int32_t u = math::rescale_nonnegative(d, logits.multiplier, logits.shift);
            __asm__("" : "+r"(u));
            return u;
        });
    }
    // softmax_probability for 0 <= e <= 2^15 and a reciprocal <= 2^31: one unsigned 32 x 32 -> 64
    // multiply-accumulate and USAT.
    const std::uint32_t reciprocal = std::uint32_t(reference::softmax_reciprocal(sum));
    for (int j = 0; j < n; ++j) {
        const std::uint64_t t = (std::uint64_t(1) << 30) + std::uint64_t(std::uint32_t(s[j])) * reciprocal;
        const std::uint32_t q = std::uint32_t(t >> 31);
        p[j] = std::int16_t(__usat(std::int32_t(q), 15));
    }
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
