// staticformer: Arm DSP extension building blocks (Armv7E-M / Armv8-M Mainline with DSP:
// Cortex-M4, M7, M33, M55) for the int8 kernels (optimised). SXTB16 splits a word of four int8
// values into two pairs of int16; SMLAD adds both products of two int16 pairs at once.
#pragma once

#include <arm_acle.h>

#include <cstdint>
#include <cstring>

namespace staticformer {
namespace kernels {
namespace arm_dsp {

inline std::int32_t load32(const std::int8_t* p) noexcept {
    std::int32_t word;
    std::memcpy(&word, p, 4);  // one LDR (unaligned access is allowed on these cores)
    return word;
}

// (v0, v2) and (v1, v3) of four int8 values in a word, as int16 pairs.
inline std::int32_t even_pair(std::int32_t w) noexcept { return __sxtb16(w); }
inline std::int32_t odd_pair(std::int32_t w) noexcept {
    const std::uint32_t u = std::uint32_t(w);
    return __sxtb16(std::int32_t((u >> 8) | (u << 24)));  // ROR #8
}

// acc + the four products of an input word (split into xe, xo) and a weight word ww.
inline std::int32_t dot4(std::int32_t xe, std::int32_t xo, std::int32_t ww, std::int32_t acc) noexcept {
    return __smlad(xo, odd_pair(ww), __smlad(xe, even_pair(ww), acc));
}

}  // namespace arm_dsp
}  // namespace kernels
}  // namespace staticformer
