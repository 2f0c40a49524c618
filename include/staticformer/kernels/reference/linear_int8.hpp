// staticformer: int8 and a16w8 linear layers, y = requantize(x W + b) (reference backend, normative).
// Integer-only, as every int8 kernel: the formulas are documented beside their parameters in
// weights_int8.hpp. Integer sums are exact, so an optimised kernel may add them in any order;
// what it must reproduce is each rounding step, and those all live in math/fixed_point.hpp.
#pragma once

#include <cstdint>

#include "../../config.hpp"
#include "../../math/fixed_point.hpp"
#include "../params_a16w8.hpp"
#include "../params_int8.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

// acc = bias[o] + sum_i x[i] * w[i][o]; P is linear_int8<In, Out> (int8 x) or
// linear_a16w8<In, Out> (int16 x), whose weights share one layout.
template <class P, class X>
inline std::int32_t linear_accumulator(const X* x, const P& p, int o) noexcept {
    std::int32_t acc = p.bias[o];
    for (int i = 0; i < P::inputs; ++i) acc += std::int32_t(x[i]) * p.w[i / 4][o][i % 4];
    return acc;
}

// Output o from its accumulator: int8 requantised, or a16w8's int16 clamped to its limit.
template <int In, int Out>
inline std::int8_t linear_output(std::int32_t acc, const linear_int8<In, Out>& p, int o) noexcept {
    return math::requantize(acc, p.multiplier[o], p.shift, p.output_zero_point);
}
template <int In, int Out>
inline std::int16_t linear_output(std::int32_t acc, const linear_a16w8<In, Out>& p, int o) noexcept {
    return math::clamp_to(math::rescale(acc, p.multiplier[o], p.shift), p.output_limit);
}

// Rows rows x Cols consecutive outputs from o, each exactly linear_accumulator()'s sum: the
// tile only saves loads on a scalar core (each weight serves Rows rows, each input Cols
// outputs, the accumulators stay in registers).
template <int Rows, int Cols, class P, class X, class Y>
inline void linear_tile(const X* x, const P& p, int o, Y* y) noexcept {
    constexpr int In = P::inputs, Out = P::outputs;
    std::int32_t acc[Rows][Cols];
#pragma GCC unroll 16
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 16
        for (int c = 0; c < Cols; ++c) acc[r][c] = p.bias[o + c];
    for (int g = 0; g < p.in_groups; ++g) {
        const std::int8_t(*wg)[4] = &p.w[g][o];  // wg[c][k]: input 4g + k, output o + c
        const int inputs = In - 4 * g < 4 ? In - 4 * g : 4;
#pragma GCC unroll 4
        for (int k = 0; k < inputs; ++k) {
            const int i = 4 * g + k;
#pragma GCC unroll 16
            for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 16
                for (int c = 0; c < Cols; ++c) acc[r][c] += x[r * In + i] * wg[c][k];
        }
    }
#pragma GCC unroll 16
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 16
        for (int c = 0; c < Cols; ++c) y[r * Out + o + c] = linear_output(acc[r][c], p, o + c);
}

// y[r][o] = linear_output(linear_accumulator(x + r * In, p, o)) for r < rows, o < Out; rows two at
// a time, outputs four at a time, then the remainders.
template <class P, class X, class Y>
inline void linear_rows(const X* x, int rows, const P& p, Y* y) noexcept {
    constexpr int In = P::inputs, Out = P::outputs, cols = 4, tiled_cols = Out - Out % cols;
    const int tiled_rows = rows - rows % 2;
    for (int r = 0; r < rows; r += r < tiled_rows ? 2 : 1) {
        const X* xr = x + r * In;
        Y* yr = y + r * Out;
        if (r < tiled_rows) {
            if constexpr (tiled_cols > 0)  // (no 4-wide tile is even instantiated for Out < 4)
                for (int o = 0; o < tiled_cols; o += cols) linear_tile<2, cols>(xr, p, o, yr);
            for (int o = tiled_cols; o < Out; ++o) linear_tile<2, 1>(xr, p, o, yr);
        } else {
            if constexpr (tiled_cols > 0)
                for (int o = 0; o < tiled_cols; o += cols) linear_tile<1, cols>(xr, p, o, yr);
            for (int o = tiled_cols; o < Out; ++o) linear_tile<1, 1>(xr, p, o, yr);
        }
    }
}

template <int In, int Out>
STATICFORMER_OUT_OF_LINE void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
    linear_rows(x, rows, p, y);
}
// a16w8: int16 rows, |x| <= input_limit (its producer's clamp), int16 outputs.
template <int In, int Out>
STATICFORMER_OUT_OF_LINE void linear(const std::int16_t* x, int rows, const linear_a16w8<In, Out>& p,
                                     std::int16_t* y) noexcept {
    linear_rows(x, rows, p, y);
}

// The int32 outputs of a head: rescale(linear_accumulator(x + r * In, p, o), multiplier[o], shift)
// + output_zero_point, with no int8 saturation (rescale's own bound is +-2^30).
template <int In, int Out>
inline void linear_wide(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int32_t* y) noexcept {
    for (int r = 0; r < rows; ++r)
        for (int o = 0; o < Out; ++o)
            y[r * Out + o] =
                math::rescale(linear_accumulator(x + r * In, p, o), p.multiplier[o], p.shift) + p.output_zero_point;
}
// a16w8: the same for int16 x (|x| <= input_limit), symmetric (no zero point; output_limit unused).
template <int In, int Out>
inline void linear_wide(const std::int16_t* x, int rows, const linear_a16w8<In, Out>& p, std::int32_t* y) noexcept {
    for (int r = 0; r < rows; ++r)
        for (int o = 0; o < Out; ++o)
            y[r * Out + o] = math::rescale(linear_accumulator(x + r * In, p, o), p.multiplier[o], p.shift);
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
