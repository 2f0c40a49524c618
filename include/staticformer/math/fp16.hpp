// staticformer: IEEE 754 binary16 <-> binary32 conversion (normative).
//
// f16 weights are stored as binary16 bit patterns (std::uint16_t) and widened to float, exactly,
// before they enter the same arithmetic as f32 weights. These integer-only routines are the
// definition; hardware conversions (F16C, AVX-512, AArch64 NEON, Cortex-M VCVTB) may replace
// them only where a test shows the same bits for every input (tests/fp16_test.cpp; on Cortex-M
// tests/firmware_bit_exact.cpp). ARMv7 NEON does not qualify:
// it always runs in default-NaN mode, so NaNs lose their sign and payload there.
//
//   binary16: 1 sign bit, 5 exponent bits (bias 15), 10 fraction bits.
//   binary32: 1 sign bit, 8 exponent bits (bias 127), 23 fraction bits.
//
// half -> float is exact (every binary16 value is a binary32 value); a NaN keeps its sign and
// payload and is made quiet, as the conversion instructions do.
// float -> half rounds to nearest, ties to even; beyond the largest half (65504) it overflows to
// infinity from 65520 on; tiny values become subnormal halves or zero; a NaN stays a quiet NaN
// with the top 10 bits of its payload (the hardware's choice too), never an infinity.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../config.hpp"

// Cortex-M with an FPU: every M-profile FPU (FPv4-SP, FPv5, Armv8.1-M's) has VCVTB, which widens
// in one instruction (GCC's __ARM_FP omits the half bit for them; the assembler takes VCVTB).
// Its half input never meets flush-to-zero (FZ acts on single and double operands only), and with
// default-NaN off (the reset value) a NaN keeps sign and payload and is made quiet: the software
// conversion's bits for all 65536 inputs, which the firmware suite checks.
// STATICFORMER_NO_ASM: the software conversion instead (the twin of these blocks).
#if defined(__ARM_FP) && (__ARM_FP & 4) && defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M' && \
    !defined(STATICFORMER_NO_ASM)
#define STATICFORMER_VCVT_HALF 1
#include "isa/arm_fp.hpp"
#else
#define STATICFORMER_VCVT_HALF 0
#endif

namespace staticformer {
namespace math {

namespace fp16 {
constexpr std::uint16_t sign_mask = 0x8000u;
constexpr std::uint16_t exponent_mask = 0x7c00u;  // all ones: infinity or NaN
constexpr std::uint16_t fraction_mask = 0x03ffu;
constexpr std::uint16_t quiet_bit = 0x0200u;      // top fraction bit: a quiet NaN
constexpr std::uint16_t infinity = 0x7c00u;
constexpr int exponent_bias = 15;
constexpr int float_exponent_bias = 127;
constexpr int fraction_shift = 13;                 // 23 - 10 fraction bits dropped
}  // namespace fp16

// The binary32 bits of a binary16 value whose exponent field is 0 (zero, subnormal) or 31
// (infinity, NaN).
constexpr std::uint32_t special_half_bits_to_float_bits(std::uint16_t h) noexcept {
    const std::uint32_t sign = std::uint32_t(h & fp16::sign_mask) << 16;
    std::uint32_t fraction = h & fp16::fraction_mask;
    if ((h & fp16::exponent_mask) == fp16::exponent_mask) {  // infinity, or NaN made quiet
        const std::uint32_t quiet = fraction != 0 ? 0x00400000u : 0u;
        return sign | 0x7f800000u | quiet | (fraction << fp16::fraction_shift);
    }
    if (fraction == 0) return sign;  // +-0
    // Subnormal: fraction * 2^-24. Shift the leading one up to the implicit bit's place (bit 10);
    // every shift halves the exponent.
    int e = 1 - fp16::exponent_bias;
    while ((fraction & 0x0400u) == 0) {
        fraction <<= 1;
        --e;
    }
    fraction &= fp16::fraction_mask;
    return sign | (std::uint32_t(e + fp16::float_exponent_bias) << 23) | (fraction << fp16::fraction_shift);
}

// The binary32 bits of binary16 value h.
constexpr std::uint32_t half_bits_to_float_bits(std::uint16_t h) noexcept {
    // Normal numbers (exponent field 1..30), the common case: the exponent and fraction fields
    // move up by the 13 extra fraction bits, and the exponent is rebiased from 15 to 127.
    constexpr std::uint32_t rebias = std::uint32_t(fp16::float_exponent_bias - fp16::exponent_bias) << 23;
    const std::uint32_t sign = std::uint32_t(h & fp16::sign_mask) << 16;
    const std::uint32_t magnitude = h & 0x7fffu;  // exponent and fraction fields
    const std::uint32_t exponent = magnitude >> 10;
    if (exponent == 0 || exponent == 0x1f) return special_half_bits_to_float_bits(h);
    return sign | ((magnitude << fp16::fraction_shift) + rebias);
}

// q + 1 if the dropped bits `rest` (out of `dropped` bits) are more than half a unit of q, or
// exactly half and q is odd: round to nearest, ties to even.
constexpr std::uint32_t round_to_nearest_even(std::uint32_t q, std::uint32_t rest, int dropped) noexcept {
    const std::uint32_t half = std::uint32_t(1) << (dropped - 1);
    return rest > half || (rest == half && (q & 1u) != 0) ? q + 1 : q;
}

// The binary16 bits nearest to the binary32 value with bits f.
constexpr std::uint16_t float_bits_to_half_bits(std::uint32_t f) noexcept {
    const std::uint32_t sign = (f >> 16) & fp16::sign_mask;
    const int exponent = int((f >> 23) & 0xffu);
    const std::uint32_t fraction = f & 0x007fffffu;

    if (exponent == 0xff) {
        if (fraction == 0) return std::uint16_t(sign | fp16::infinity);
        return std::uint16_t(sign | fp16::infinity | fp16::quiet_bit | (fraction >> fp16::fraction_shift));
    }
    if (exponent == 0) return std::uint16_t(sign);  // float subnormals are below 2^-126: +-0

    // |value| = significand * 2^(exponent - 150), significand with its implicit bit (24 bits).
    const std::uint32_t significand = fraction | 0x00800000u;
    const int e = exponent - fp16::float_exponent_bias + fp16::exponent_bias;  // half exponent field
    if (e >= 0x1f) return std::uint16_t(sign | fp16::infinity);               // >= 2^16: overflow

    if (e >= 1) {
        // Normal half: keep the exponent and the top 10 fraction bits, round on the 13 dropped.
        // A carry out of the fraction moves to the next exponent, and from the largest binade
        // (e == 30) to infinity: both fall out of the addition.
        const std::uint32_t q = (std::uint32_t(e) << 10) | (fraction >> fp16::fraction_shift);
        const std::uint32_t rest = fraction & ((1u << fp16::fraction_shift) - 1u);
        return std::uint16_t(sign | round_to_nearest_even(q, rest, fp16::fraction_shift));
    }

    // Subnormal half (or zero): count units of 2^-24, i.e. significand * 2^(exponent - 126).
    // Below half the smallest subnormal (2^-25) everything rounds to zero; 25 dropped bits say so
    // for any 24-bit significand, and keep the shift below the integer's width.
    const int dropped = 14 - e < 25 ? 14 - e : 25;
    const std::uint32_t q = significand >> dropped;
    const std::uint32_t rest = significand & ((std::uint32_t(1) << dropped) - 1u);
    // A carry out of the largest subnormal gives 0x0400, the smallest normal: correct as is.
    return std::uint16_t(sign | round_to_nearest_even(q, rest, dropped));
}

STATICFORMER_ALWAYS_INLINE float half_to_float(std::uint16_t h) noexcept {
#if STATICFORMER_VCVT_HALF
    const std::uint32_t bits = h;
    float in;
    std::memcpy(&in, &bits, sizeof in);
    return arm_fp::widen_bottom(in);
#else
    const std::uint32_t bits = half_bits_to_float_bits(h);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
#endif
}

inline std::uint16_t float_to_half(float f) noexcept {
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return float_bits_to_half_bits(bits);
}

// A weight as a float: f32 weights as they are, f16 weights (binary16 bits) widened exactly.
// Every kernel reads its weights through widen(), so both precisions share one arithmetic.
STATICFORMER_ALWAYS_INLINE float widen(float w) noexcept { return w; }
STATICFORMER_ALWAYS_INLINE float widen(std::uint16_t w) noexcept { return half_to_float(w); }

// N consecutive weights as floats, out[c] = widen(w[c]). With VCVTB a 32-bit load carries two
// halves, widened by VCVTB (bottom, w[c]: little-endian) and VCVTT (top, w[c + 1]).
template <int N, class W>
STATICFORMER_ALWAYS_INLINE void widen_n(const W* w, float (&out)[N]) noexcept {
#if STATICFORMER_VCVT_HALF
    if constexpr (std::is_same<W, std::uint16_t>::value) {
        int c = 0;
#pragma GCC unroll 16
        for (; c + 1 < N; c += 2) {
            float pair;
            std::memcpy(&pair, w + c, sizeof pair);
            out[c] = arm_fp::widen_bottom(pair), out[c + 1] = arm_fp::widen_top(pair);
        }
        if (c < N) out[c] = widen(w[c]);
        return;
    }
#endif
#pragma GCC unroll 16
    for (int c = 0; c < N; ++c) out[c] = widen(w[c]);
}

}  // namespace math
}  // namespace staticformer
