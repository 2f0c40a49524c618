// staticformer: int8 y = x W + b with the Arm DSP extension (optimised; bit-identical to
// reference/linear_int8.hpp). The weights' layout w[i / 4][o][i % 4] puts an output's four
// weights of a group of four inputs in one word: one load, SXTB16 into two int16 pairs, two
// SMLAD. Integer sums are exact, so this order gives the reference's accumulator; the
// requantisation is the reference's math::requantize.
#pragma once

#include <cstdint>

#include "../../math/fixed_point.hpp"
#include "../../weights_int8.hpp"
#include "../isa/arm_dsp.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_dsp {

// One row x Cols (1 or 4) outputs from o; the last In % 4 inputs one by one.
template <int In, int Out, int Cols>
inline void linear_tile(const std::int8_t* x, const linear_int8<In, Out>& p, int o, std::int8_t* y) noexcept {
    using namespace arm_dsp;
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

// One row x four outputs per tile: 4 accumulators, the row's two input pairs and one output's
// weight pairs fit the core's registers (two rows spill).
template <int In, int Out>
inline void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
    constexpr int cols = 4, tiled = Out - Out % cols;
    for (int r = 0; r < rows; ++r) {
        if constexpr (tiled > 0)
            for (int o = 0; o < tiled; o += cols) linear_tile<In, Out, cols>(x + r * In, p, o, y + r * Out);
        for (int o = tiled; o < Out; ++o) linear_tile<In, Out, 1>(x + r * In, p, o, y + r * Out);
    }
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
