// staticformer: int8 residual add on Cortex-M (optimised; bit-identical to
// reference/add_int8.hpp): the two centred values as one int16 pair against the pair of
// multipliers (both below 2^15) is one SMUAD; the sum stays below 2^24, so the requantisation is
// math::rescale_unit and SSAT. Shifts past 31 (never made by the quantiser) take the reference's.
#pragma once

#include <cstdint>
#include <cstring>

#include "../../math/fixed_point.hpp"
#include "../../weights_int8.hpp"
#include "../isa/arm_dsp.hpp"
#include "../reference/add_int8.hpp"
#if defined(__ARM_FEATURE_MVE)
#include "add_int8_mve.hpp"
#endif

namespace staticformer {
namespace kernels {
namespace cortex_m_dsp {

STATICFORMER_ALWAYS_INLINE std::int32_t int16_pair(std::int32_t low, std::int32_t high) noexcept {
    return std::int32_t(std::uint32_t(std::uint16_t(low)) | std::uint32_t(high) << 16);
}

// The high halves of two words as one int16 pair (PKHTB).
STATICFORMER_ALWAYS_INLINE std::int32_t high_pair(std::int32_t low, std::int32_t high) noexcept {
    return std::int32_t(std::uint32_t(low) >> 16 | (std::uint32_t(high) & 0xffff0000u));
}

inline void add(std::int8_t* x, const std::int8_t* a, int n, const add_int8& p) noexcept {
    if (p.shift > 31) return reference::add(x, a, n, p);
#if defined(__ARM_FEATURE_MVE)
    return cortex_m_mve::add(x, a, n, p);  // four at a time with Helium (add_int8_mve.hpp)
#endif
    const std::int32_t multipliers = int16_pair(p.x_multiplier, p.a_multiplier);
    // Four at a time: the zero points, the rounding and the output's zero point folded into one
    // constant, (x mx + a ma + bias) >> shift = rescale_unit(centred . m, shift) + zp exactly
    // when the bias stays within 2^30 (|x mx + a ma| < 2^23): one SMLAD, ASR, SSAT per value.
    const std::int64_t bias = (std::int64_t(1) << (p.shift - 1)) - std::int64_t(p.x_zero_point) * p.x_multiplier -
                              std::int64_t(p.a_zero_point) * p.a_multiplier +
                              std::int64_t(p.output_zero_point) * (std::int64_t(1) << p.shift);
    int i = 0;
    if (bias > -(std::int64_t(1) << 30) && bias < (std::int64_t(1) << 30)) {
        const std::int32_t b = std::int32_t(bias), shift = p.shift;
#if defined(__OPTIMIZE__)
        // In inline assembly, 28 instructions per 4 values: the pairs by PKHBT / PKHTB and the
        // results into one word by BFI (GCC's own code masks and ORs: 36).
        if (n >= 4) {
            i = n / 4 * 4;
            std::int8_t* xp = x;
            const std::int8_t* ap = a;
            std::int32_t xw, aw, xe, ae, t;
            __asm__ volatile(  // volatile: the sums it stores are its only result
                "1:\n\t"
                "ldr %[xw], [%[x]]\n\t"
                "ldr %[aw], [%[a]], #4\n\t"
                "sxtb16 %[xe], %[xw]\n\t"
                "sxtb16 %[xw], %[xw], ror #8\n\t"
                "sxtb16 %[ae], %[aw]\n\t"
                "sxtb16 %[aw], %[aw], ror #8\n\t"
                "pkhbt %[t], %[xe], %[ae], lsl #16\n\t"
                "pkhtb %[ae], %[ae], %[xe], asr #16\n\t"
                "pkhbt %[xe], %[xw], %[aw], lsl #16\n\t"
                "pkhtb %[aw], %[aw], %[xw], asr #16\n\t"
                ".irp v, %[t], %[xe], %[ae], %[aw]\n\t"
                "smlad \\v, \\v, %[m], %[b]\n\t"
                "asr \\v, \\v, %[shift]\n\t"
                "ssat \\v, #8, \\v\n\t"
                ".endr\n\t"
                "bfi %[t], %[xe], #8, #8\n\t"
                "bfi %[t], %[ae], #16, #8\n\t"
                "bfi %[t], %[aw], #24, #8\n\t"
                "str %[t], [%[x]], #4\n\t"
                "cmp %[x], %[end]\n\t"
                "bne 1b"
                : [x] "+r"(xp), [a] "+r"(ap), [xw] "=&r"(xw), [aw] "=&r"(aw), [xe] "=&r"(xe), [ae] "=&r"(ae),
                  [t] "=&r"(t)
                : [end] "r"(x + i), [m] "r"(multipliers), [b] "r"(b), [shift] "r"(shift)
                : "cc", "memory");
        }
#endif
        for (; i + 4 <= n; i += 4) {
            const std::int32_t xw = arm_dsp::load32(x + i), aw = arm_dsp::load32(a + i);
            const std::int32_t xe = arm_dsp::even_pair(xw), xo = arm_dsp::odd_pair(xw);
            const std::int32_t ae = arm_dsp::even_pair(aw), ao = arm_dsp::odd_pair(aw);
            const auto out = [&](std::int32_t pair) { return __ssat(__smlad(pair, multipliers, b) >> shift, 8); };
            const std::int32_t y0 = out(int16_pair(xe, ae)), y2 = out(high_pair(xe, ae));
            const std::int32_t y1 = out(int16_pair(xo, ao)), y3 = out(high_pair(xo, ao));
            const std::uint32_t word = (std::uint32_t(y0) & 0xff) | (std::uint32_t(y1) & 0xff) << 8 |
                                       (std::uint32_t(y2) & 0xff) << 16 | std::uint32_t(y3) << 24;
            std::memcpy(x + i, &word, 4);
        }
    }
    for (; i < n; ++i) {
        const std::int32_t centred = int16_pair(x[i] - p.x_zero_point, a[i] - p.a_zero_point);
        const std::int32_t v = math::rescale_unit(__smuad(centred, multipliers), p.shift);
        x[i] = std::int8_t(__ssat(v + p.output_zero_point, 8));
    }
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
