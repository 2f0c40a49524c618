// staticformer: int8 softmax on Cortex-M (optimised; bit-identical to
// reference/softmax_int8.hpp): the reference's three steps, each score's in fewer instructions:
// the scaled distance to the maximum in 32-bit halves, the exponential by math::exp2_neg_q16_pairs,
// the probability by one SMMULR. Every score takes the same instructions (firmware timing).
#pragma once

#include <cstdint>

#include "../../math/fixed_point.hpp"
#include "../isa/arm_dsp.hpp"
#include "../reference/softmax_int8.hpp"
#if defined(__ARM_FEATURE_MVE)
#include "softmax_int8_mve.hpp"
#endif

namespace staticformer {
namespace kernels {
namespace cortex_m_dsp {

// dmax = 2^max(0, 21 + shift - k), k = floor(log2 m) (below: why); see the C loop's comment.
inline std::uint32_t distance_clamp(std::uint32_t m, std::int32_t shift) noexcept {
    const int e = 21 + shift - (31 - __builtin_clz(m | 1));
    return e >= 31 ? 0x7fffffffu : std::uint32_t(1) << (e > 0 ? e : 0);
}

// The exponentials of a row (n >= 1) in inline assembly, 24 instructions a score. The rescale
// r = (d m + 2^(shift - 1)) >> shift of the distance d, for 2^23 <= m < 2^31:
//   2 <= shift <= 32: d clamped at dmax <= 2^(shift - 2) (k >= 23), so d 2^(32 - shift) < 2^31 and
//     SMMULR of it with m is r exactly;
//   shift >= 33: UMULL's high word plus 2^(shift - 33), shifted by shift - 32 (the low word cannot
//     carry into it past the rounding term: r exactly).
// An r of 2^20 or more becomes 17 * 2^16 (i = r = 0, whole 17: math::exp2_neg_q16_clamped's value
// is 0, as the reference's); then math::exp2_neg_q16_clamped's steps, SMLATB adding the 128.
#define STATICFORMER_DSP_EXPONENTIALS(rescale)                                                        \
    __asm__ volatile(/* volatile: the exponentials it stores are results too */                       \
                     "1:\n\t"                                                                         \
                     "ldr %[u], [%[s]]\n\t"                                                           \
                     "sub %[u], %[max], %[u]\n\t" rescale                                            \
                     "cmp %[u], #0x100000\n\t"                                                        \
                     "it hs\n\t"                                                                      \
                     "movhs %[u], #0x110000\n\t"                                                      \
                     "ubfx %[i], %[u], #8, #8\n\t"                                                    \
                     "ldr %[t], [%[table], %[i], lsl #2]\n\t"                                         \
                     "uxtb %[i], %[u]\n\t"                                                            \
                     "smlatb %[i], %[t], %[i], %[c128]\n\t"                                           \
                     "uxth %[t], %[t]\n\t"                                                            \
                     "sub %[t], %[t], %[i], asr #8\n\t"                                               \
                     "lsr %[u], %[u], #16\n\t"                                                        \
                     "lsl %[t], %[t], #1\n\t"                                                         \
                     "asr %[t], %[t], %[u]\n\t"                                                       \
                     "add %[t], %[t], #1\n\t"                                                         \
                     "asr %[t], %[t], #1\n\t"                                                         \
                     "str %[t], [%[s]], #4\n\t"                                                       \
                     "add %[sum], %[sum], %[t]\n\t"                                                   \
                     "cmp %[s], %[end]\n\t"                                                           \
                     "bne 1b"                                                                         \
                     : [s] "+r"(s), [sum] "+r"(sum), [u] "=&r"(u), [i] "=&r"(i), [t] "=&r"(t)         \
                     : [end] "r"(s + n), [max] "r"(max), [m] "r"(m), [table] "r"(math::exp2_pairs.value), \
                       [c128] "r"(128), [a] "r"(a), [b] "r"(b)                                        \
                     : "cc", "memory")
inline void exponentials_asm(std::int32_t* s, int n, std::int32_t max, std::uint32_t m, std::int32_t shift,
                             std::int32_t& sum) noexcept {
    std::uint32_t u, i, t;
    if (shift <= 32) {
        const std::uint32_t a = distance_clamp(m, shift), b = std::uint32_t(32 - shift);
        STATICFORMER_DSP_EXPONENTIALS("cmp %[u], %[a]\n\t"
                                      "it hs\n\t"
                                      "movhs %[u], %[a]\n\t"
                                      "lsl %[u], %[u], %[b]\n\t"
                                      "smmulr %[u], %[u], %[m]\n\t");
    } else {
        const std::uint32_t a = std::uint32_t(1) << (shift - 33), b = std::uint32_t(shift - 32);
        STATICFORMER_DSP_EXPONENTIALS("umull %[i], %[u], %[u], %[m]\n\t"
                                      "add %[u], %[u], %[a]\n\t"
                                      "lsr %[u], %[u], %[b]\n\t");
    }
}
#undef STATICFORMER_DSP_EXPONENTIALS

inline void softmax(std::int32_t* s, int n, math::fixed_multiplier logits, std::int16_t* p) noexcept {
#if defined(__ARM_FEATURE_MVE)
    return cortex_m_mve::softmax(s, n, logits, p);  // four scores at a time with Helium
#endif
    std::int32_t max = s[0];
#if defined(__OPTIMIZE__)
    if (n >= 2) {  // two scores a step in assembly (one LDRD); an odd n's first is compared with itself
        const std::int32_t* from = s + n % 2;
        std::int32_t a, b;
        __asm__("1:\n\t"
                "ldrd %[a], %[b], [%[from]], #8\n\t"
                "cmp %[a], %[max]\n\t"
                "it gt\n\t"
                "movgt %[max], %[a]\n\t"
                "cmp %[b], %[max]\n\t"
                "it gt\n\t"
                "movgt %[max], %[b]\n\t"
                "cmp %[from], %[end]\n\t"
                "bne 1b"
                : [max] "+r"(max), [from] "+r"(from), [a] "=&r"(a), [b] "=&r"(b)
                : [end] "r"(s + n)
                : "cc", "memory");
    }
#else
    for (int j = 1; j < n; ++j) max = s[j] > max ? s[j] : max;
#endif
    std::int32_t sum = 0;
    // The distance's rescale chosen by the shift once per row, not per score (-O2 does not take
    // loop-invariant branches out of a loop). Its result is opaque to GCC, which otherwise sees
    // where the exponential is 0 and branches around it: the count would depend on the scores.
    const auto exponentials = [&](auto rescaled) {
        for (int j = 0; j < n; ++j) {
            std::uint32_t u = math::exp2_pairs_clamp(rescaled(std::uint32_t(max - s[j])));
            __asm__("" : "+r"(u));
            s[j] = math::exp2_neg_q16_clamped(u);
            sum += s[j];
        }
    };
    const std::uint32_t m = std::uint32_t(logits.multiplier);
    const std::int32_t shift = logits.shift;
    if (const int k = 31 - __builtin_clz(m | 1); shift >= 2 && shift <= 62 && k >= 23 && k <= 30 && n > 0) {
        exponentials_asm(s, n, max, m, shift, sum);
    } else if (shift >= 32) {  // the product's high word, shifted (rescale_nonnegative's first case)
        const std::uint64_t round = std::uint64_t(1) << (shift - 1);
        const int high_shift = shift - 32;
        exponentials([=](std::uint32_t d) {
            return std::uint32_t((round + std::uint64_t(d) * m) >> 32) >> high_shift;
        });
    } else {
        // The distance clamped at dmax = 2^max(0, 21 + shift - k), k = floor(log2 m): from
        // there on the rescale is at least 2^21, where every exponential is 0, as it is for the
        // reference's larger (or clamped) values; below it the rescale stays under 2^23, so the
        // product's halves joined are exact and the reference's clamp to 2^30 never applies.
        const std::uint32_t dmax = distance_clamp(m, shift);
        const std::uint32_t round = std::uint32_t(1) << (shift - 1);
        exponentials([=](std::uint32_t d) {
            const std::uint64_t t = std::uint64_t(d < dmax ? d : dmax) * m + round;
            return (std::uint32_t(t) >> shift) | (std::uint32_t(t >> 32) << (32 - shift));
        });
    }
    // softmax_probability: (e r + 2^30) >> 31 = SMMULR(2 e, r) for 0 <= e <= 2^15. r <= 2^31;
    // r = 2^31 (sum = 2^15, one score) as 2^31 - 1 gives the same e for every e <= 2^15.
    const std::uint32_t reciprocal = std::uint32_t(reference::softmax_reciprocal(sum));
    const std::int32_t r = std::int32_t(reciprocal < 0x7fffffffu ? reciprocal : 0x7fffffffu);
    int j = 0;
#if defined(__OPTIMIZE__)
    if (n >= 2) {  // two a step in assembly: one LDRD, one word stored (PKHBT)
        j = n / 2 * 2;
        const std::int32_t* from = s;
        std::int16_t* to = p;
        std::int32_t a, b;
        __asm__ volatile(  // volatile: the probabilities it stores are its only result
            "1:\n\t"
            "ldrd %[a], %[b], [%[from]], #8\n\t"
            "lsl %[a], %[a], #1\n\t"
            "lsl %[b], %[b], #1\n\t"
            "smmulr %[a], %[a], %[r]\n\t"
            "smmulr %[b], %[b], %[r]\n\t"
            "usat %[a], #15, %[a]\n\t"
            "usat %[b], #15, %[b]\n\t"
            "pkhbt %[a], %[a], %[b], lsl #16\n\t"
            "str %[a], [%[to]], #4\n\t"
            "cmp %[from], %[end]\n\t"
            "bne 1b"
            : [from] "+r"(from), [to] "+r"(to), [a] "=&r"(a), [b] "=&r"(b)
            : [end] "r"(s + j), [r] "r"(r)
            : "cc", "memory");
    }
#endif
    for (; j < n; ++j) p[j] = std::int16_t(__usat(arm_dsp::multiply_high_rounded(2 * s[j], r), 15));
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
