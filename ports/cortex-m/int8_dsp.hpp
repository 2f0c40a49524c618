// staticformer Cortex-M port: int8 kernels with the Armv7E-M DSP instructions (Cortex-M4, M7,
// M33, M55; not M3). Optimised: every result equals reference/int8.hpp's, bit for bit.
//
//   sf::forward<sf::ports::cortex_m_dsp>(weights, workspace, x, y, valid_len)   // int8 weights
//
// The linear layer's weights are stored four inputs per output (w[i/4][o][i%4]): one 32-bit load
// brings an output's four weights, SXTB16 splits them into two pairs of int16, and SMLAD does
// two multiply-adds at once. Integer sums are exact, so this order gives the reference's
// accumulator; requantisation is the reference's math::requantize.
#pragma once

#if !defined(__ARM_FEATURE_DSP)
#error "int8_dsp.hpp needs the Arm DSP extension (Cortex-M4, M7, M33, M55): use the reference backend"
#endif

#include <arm_acle.h>

#include <cstdint>
#include <cstring>

#include <staticformer/staticformer.hpp>

namespace staticformer {
namespace ports {

struct cortex_m_dsp {};

namespace dsp {

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

// acc += the four products of input word xw (split into xe, xo) and weight word ww.
inline std::int32_t dot4(std::int32_t xe, std::int32_t xo, std::int32_t ww, std::int32_t acc) noexcept {
    return __smlad(xo, odd_pair(ww), __smlad(xe, even_pair(ww), acc));
}

// One row x Cols (1 or 4) outputs from o; the last In % 4 inputs one by one.
template <int In, int Out, int Cols>
inline void linear_tile(const std::int8_t* x, const linear_int8<In, Out>& p, int o, std::int8_t* y) noexcept {
    constexpr int whole = In / 4;
    std::int32_t a0 = p.bias[o], a1 = 0, a2 = 0, a3 = 0;
    if constexpr (Cols == 4) a1 = p.bias[o + 1], a2 = p.bias[o + 2], a3 = p.bias[o + 3];
    const std::int8_t* w = p.w[0][o];
    for (int g = 0; g < whole; ++g, w += 4 * Out) {
        const std::int32_t xw = load32(x + 4 * g), xe = even_pair(xw), xo = odd_pair(xw);
        a0 = dot4(xe, xo, load32(w), a0);
        if constexpr (Cols == 4) {
            a1 = dot4(xe, xo, load32(w + 4), a1);
            a2 = dot4(xe, xo, load32(w + 8), a2);
            a3 = dot4(xe, xo, load32(w + 12), a3);
        }
    }
    for (int i = 4 * whole; i < In; ++i) {
        a0 += x[i] * w[i % 4];
        if constexpr (Cols == 4) a1 += x[i] * w[4 + i % 4], a2 += x[i] * w[8 + i % 4], a3 += x[i] * w[12 + i % 4];
    }
    y[o] = math::requantize(a0, p.multiplier[o], p.shift, p.output_zero_point);
    if constexpr (Cols == 4) {
        y[o + 1] = math::requantize(a1, p.multiplier[o + 1], p.shift, p.output_zero_point);
        y[o + 2] = math::requantize(a2, p.multiplier[o + 2], p.shift, p.output_zero_point);
        y[o + 3] = math::requantize(a3, p.multiplier[o + 3], p.shift, p.output_zero_point);
    }
}

}  // namespace dsp
}  // namespace ports

template <>
struct int8_kernel_set<ports::cortex_m_dsp> : int8_kernel_set<reference> {
    // One row x four outputs per tile: 4 accumulators, the row's two input pairs and one
    // output's weight pairs fit the core's registers (two rows spill).
    template <int In, int Out>
    static void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
        constexpr int cols = 4, tiled = Out - Out % cols;
        for (int r = 0; r < rows; ++r) {
            if constexpr (tiled > 0)
                for (int o = 0; o < tiled; o += cols) ports::dsp::linear_tile<In, Out, cols>(x + r * In, p, o, y + r * Out);
            for (int o = tiled; o < Out; ++o) ports::dsp::linear_tile<In, Out, 1>(x + r * In, p, o, y + r * Out);
        }
    }
};

}  // namespace staticformer
