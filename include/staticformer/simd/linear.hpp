// staticformer: y = x W + b with xsimd (optimised; bit-identical to reference/linear.hpp).
//
// Vectorised over outputs: each lane runs the reference's chain, bias first, then one fma per
// input in increasing order. A register tile of Rows x Vecs batches reuses each weight load
// across rows and each broadcast input across columns. Columns left over after whole batches
// call the reference's per-output routine. f16 weights (W = std::uint16_t) are widened batch by
// batch (simd::widen, exact like math::widen) and then enter the same fma chain.
#pragma once

#include "../reference/linear.hpp"
#include "fp16.hpp"
#include "ops.hpp"

namespace staticformer {
namespace kernels {
namespace simd {

template <int In, int Out, int WStride, int Rows, int Vecs, class W>
inline void linear_tile(const float* x, const W* w, const W* b, float* y, int c) noexcept {
    batch acc[Rows][Vecs];
    for (int v = 0; v < Vecs; ++v) {
        const batch bias = widen(b + c + v * width);
        for (int r = 0; r < Rows; ++r) acc[r][v] = bias;
    }
    for (int i = 0; i < In; ++i) {
        batch wv[Vecs];
        for (int v = 0; v < Vecs; ++v) wv[v] = widen(w + i * WStride + c + v * width);
        for (int r = 0; r < Rows; ++r) {
            const batch xr(x[r * In + i]);
            for (int v = 0; v < Vecs; ++v) acc[r][v] = simd::fma(xr, wv[v], acc[r][v]);
        }
    }
    for (int r = 0; r < Rows; ++r)
        for (int v = 0; v < Vecs; ++v) store(y + r * Out + c + v * width, acc[r][v]);
}

template <int In, int Out, int WStride, int Rows, class W>
inline void linear_rows(const float* x, const W* w, const W* b, float* y) noexcept {
    constexpr int vecs = 2;
    constexpr int tiled = Out / (vecs * width) * (vecs * width);  // columns in Rows x vecs tiles
    constexpr int vectored = Out / width * width;                 // then in Rows x 1 tiles
    for (int c = 0; c < tiled; c += vecs * width) linear_tile<In, Out, WStride, Rows, vecs>(x, w, b, y, c);
    for (int c = tiled; c < vectored; c += width) linear_tile<In, Out, WStride, Rows, 1>(x, w, b, y, c);
    for (int c = vectored; c < Out; ++c)
        for (int r = 0; r < Rows; ++r) y[r * Out + c] = reference::linear_output<In, WStride>(x + r * In, w + c, b[c]);
}

template <int In, int Out, int WStride = Out, class W>
inline void linear(const float* x, int rows, const W* w, const W* b, float* y) noexcept {
    constexpr int rows_per_tile = 4;
    int r = 0;
    for (; r + rows_per_tile <= rows; r += rows_per_tile)
        linear_rows<In, Out, WStride, rows_per_tile>(x + r * In, w, b, y + r * Out);
    for (; r < rows; ++r) linear_rows<In, Out, WStride, 1>(x + r * In, w, b, y + r * Out);
}

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
