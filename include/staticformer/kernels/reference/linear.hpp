// staticformer: y = x W + b (normative).
//
// W is stored input-major, w[i * WStride + o] (the transpose of torch's Linear.weight), so a
// vector of consecutive outputs reads consecutive memory. Each output starts from its bias and
// adds x[i] * w[i][o] for i = 0, 1, ..., In-1, one fused multiply-add at a time.
// W is float (f32 weights) or std::uint16_t (f16 weights, binary16 bits): every weight and bias
// is widened to float exactly (math::widen) and enters the same chain.
#pragma once

#include <cmath>

#include "../../math/fp16.hpp"
#include "fma_tile.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

// One output: b + sum_i x[i] * w[i * WStride], in increasing i.
template <int In, int WStride, class W>
inline float linear_output(const float* x, const W* w, W bias) noexcept {
    float acc = math::widen(bias);
    for (int i = 0; i < In; ++i) acc = std::fma(x[i], math::widen(w[i * WStride]), acc);
    return acc;
}

// Rows rows x Cols consecutive outputs, each exactly linear_output's chain (fma_tile.hpp: the
// tile only saves loads on a scalar core).
template <int In, int Out, int WStride, int Rows, int Cols, class W>
inline void linear_tile(const float* x, const W* w, const W* b, float* y) noexcept {
    float acc[Rows][Cols];
#pragma GCC unroll 16
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 16
        for (int c = 0; c < Cols; ++c) acc[r][c] = math::widen(b[c]);
    fma_tile<Rows, Cols, In, WStride>(x, w, In, acc);
#pragma GCC unroll 16
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 16
        for (int c = 0; c < Cols; ++c) y[r * Out + c] = acc[r][c];
}

// Rows rows: outputs in tiles of 4, then the Out % 4 last ones one column at a time.
template <int In, int Out, int WStride, int Rows, class W>
inline void linear_rows(const float* x, const W* w, const W* b, float* y) noexcept {
    constexpr int cols = 4, tiled = Out - Out % cols;
    for (int o = 0; o < tiled; o += cols) linear_tile<In, Out, WStride, Rows, cols>(x, w + o, b + o, y + o);
    for (int o = tiled; o < Out; ++o) linear_tile<In, Out, WStride, Rows, 1>(x, w + o, b + o, y + o);
}

// y[r][o] = linear_output<In, WStride>(x + r * In, w + o, b[o]) for r < rows, o < Out; x rows
// are In floats apart, y rows Out floats apart. Rows go 4 at a time, then one by one.
template <int In, int Out, int WStride = Out, class W>
inline void linear(const float* x, int rows, const W* w, const W* b, float* y) noexcept {
    const int tiled = rows - rows % 4;
    for (int r = 0; r < tiled; r += 4) linear_rows<In, Out, WStride, 4>(x + r * In, w, b, y + r * Out);
    for (int r = tiled; r < rows; ++r) linear_rows<In, Out, WStride, 1>(x + r * In, w, b, y + r * Out);
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
