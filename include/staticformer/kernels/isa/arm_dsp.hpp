// staticformer: Arm DSP extension building blocks (Armv7E-M / Armv8-M Mainline with DSP:
// Cortex-M4, M7, M33, M55) for the int8 kernels (optimised). SXTB16 splits a word of four int8
// values into two pairs of int16; SMLAD adds both products of two int16 pairs at once.
#pragma once

#include <arm_acle.h>

#include <cstdint>
#include <cstring>

#include "../../config.hpp"

namespace staticformer {
namespace kernels {
namespace arm_dsp {

STATICFORMER_ALWAYS_INLINE std::int32_t load32(const std::int8_t* p) noexcept {
    std::int32_t word;
    std::memcpy(&word, p, 4);  // one LDR (unaligned access is allowed on these cores)
    return word;
}

// (v0, v2) and (v1, v3) of four int8 values in a word, as int16 pairs.
STATICFORMER_ALWAYS_INLINE std::int32_t even_pair(std::int32_t w) noexcept { return __sxtb16(w); }
// SXTB16 with its ROR #8 operand (GCC emits a separate ROR for __sxtb16 of a rotation).
STATICFORMER_ALWAYS_INLINE std::int32_t odd_pair(std::int32_t w) noexcept {
    std::int32_t pair;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(pair) : "r"(w));
    return pair;
}

// (a * b + 2^31) >> 32, signed: SMMULR (no ACLE intrinsic).
STATICFORMER_ALWAYS_INLINE std::int32_t multiply_high_rounded(std::int32_t a, std::int32_t b) noexcept {
    std::int32_t high;
    __asm__("smmulr %0, %1, %2" : "=r"(high) : "r"(a), "r"(b));
    return high;
}

}  // namespace arm_dsp
}  // namespace kernels
}  // namespace staticformer
