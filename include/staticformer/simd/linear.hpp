// staticformer: y = x W + b with xsimd (optimised; bit-identical to reference/linear.hpp).
//
// Vectorised over outputs: each lane runs the reference's chain, bias first, then one fma per
// input in increasing order. A register tile of Rows x Vecs batches keeps Rows * Vecs chains in
// registers, so each weight batch loaded serves Rows rows and each broadcast input serves Vecs
// batches of outputs. Column blocks are the outer loop and row blocks the inner one: a block's
// weight panel (In x Vecs batches) is streamed from memory once per call and then reused from
// cache by every row block. Columns left over after whole batches call the reference's
// per-output routine. f16 weights (W = std::uint16_t) are widened batch by batch (simd::widen,
// exact like math::widen) and then enter the same fma chain.
#pragma once

#include <cstddef>

#include "../reference/linear.hpp"
#include "fp16.hpp"
#include "ops.hpp"

namespace staticformer {
namespace kernels {
namespace simd {

using index = std::ptrdiff_t;

// Register tiles, by the register budget (accumulators plus one register per weight batch):
// tall tiles when a call has enough rows (a weight batch serves more rows, so less weight traffic
// per fma), wide tiles for the few rows of a small encoder tile.
#if defined(__AVX512F__) || defined(__aarch64__)
constexpr int linear_tall_rows = 8, linear_tall_vecs = 3;  // 24 accumulators of 32 registers
constexpr int linear_wide_rows = 4, linear_wide_vecs = 6;
#else
constexpr int linear_tall_rows = 6, linear_tall_vecs = 2;  // 12 accumulators of 16 registers
constexpr int linear_wide_rows = 4, linear_wide_vecs = 3;
#endif

// y[r][c + k] for r < Rows and Vecs batches of columns from c: Rows * Vecs independent chains.
// `next`, if not null, is the next column block's weights: its rows are prefetched into L2 along
// the way (weight rows are WStride apart, too far for the hardware stride prefetchers).
template <int In, int Out, int WStride, int Rows, int Vecs, class W>
inline void linear_tile(const float* x, const W* w, const W* b, float* y, const W* next = nullptr) noexcept {
    batch acc[Rows][Vecs];
#pragma GCC unroll 8
    for (int v = 0; v < Vecs; ++v) {
        const batch bias = widen(b + index(v) * width);
#pragma GCC unroll 8
        for (int r = 0; r < Rows; ++r) acc[r][v] = bias;
    }
    for (index i = 0; i < In; ++i) {
        if (next != nullptr) {
#pragma GCC unroll 8
            for (int v = 0; v < Vecs; ++v) __builtin_prefetch(next + i * WStride + index(v) * width, 0, 2);
        }
        batch wv[Vecs];
#pragma GCC unroll 8
        for (int v = 0; v < Vecs; ++v) wv[v] = widen(w + i * WStride + index(v) * width);
#pragma GCC unroll 8
        for (int r = 0; r < Rows; ++r) {
            const batch xr(x[index(r) * In + i]);
#pragma GCC unroll 8
            for (int v = 0; v < Vecs; ++v) acc[r][v] = simd::fma(xr, wv[v], acc[r][v]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 8
        for (int v = 0; v < Vecs; ++v) store(y + index(r) * Out + index(v) * width, acc[r][v]);
}

// Rows x Vecs tiles for rows [0, rows) of one column block; a remainder of k < Rows rows is one
// k x Vecs tile.
template <int In, int Out, int WStride, int Rows, int Vecs, class W, int K = Rows - 1>
inline void linear_remainder(const float* x, index k, const W* w, const W* b, float* y) noexcept {
    if constexpr (K > 0) {
        if (k == K) linear_tile<In, Out, WStride, K, Vecs>(x, w, b, y);
        else linear_remainder<In, Out, WStride, Rows, Vecs, W, K - 1>(x, k, w, b, y);
    }
}

template <int In, int Out, int WStride, int Rows, int Vecs, class W>
inline void linear_column_block(const float* x, index rows, const W* w, const W* b, float* y, index c) noexcept {
    index r = 0;
    const index next = c + index(Vecs) * width;
    if (Rows <= rows && next + width <= Out) {  // the first tile prefetches the next block
        linear_tile<In, Out, WStride, Rows, Vecs>(x, w + c, b + c, y + c, w + next);
        r = Rows;
    }
    for (; r + Rows <= rows; r += Rows) linear_tile<In, Out, WStride, Rows, Vecs>(x + r * In, w + c, b + c, y + r * Out + c);
    linear_remainder<In, Out, WStride, Rows, Vecs>(x + r * In, rows - r, w + c, b + c, y + r * Out + c);
}

// Whole batches of columns, split into as few column blocks as MaxVecs allows, of (nearly) equal
// width: `big` batches for the first blocks, big - 1 for the others.
template <int In, int Out, int WStride, int Rows, int MaxVecs, class W>
inline void linear_columns(const float* x, index rows, const W* w, const W* b, float* y) noexcept {
    constexpr int batches = Out / width;
    if constexpr (batches > 0) {
        constexpr int blocks = (batches + MaxVecs - 1) / MaxVecs;
        constexpr int big = (batches + blocks - 1) / blocks;
        constexpr int big_blocks = batches - blocks * (big - 1);
        index c = 0;
        for (int k = 0; k < big_blocks; ++k, c += big * width)
            linear_column_block<In, Out, WStride, Rows, big>(x, rows, w, b, y, c);
        if constexpr (big > 1)
            for (int k = big_blocks; k < blocks; ++k, c += (big - 1) * width)
                linear_column_block<In, Out, WStride, Rows, big - 1>(x, rows, w, b, y, c);
    }
}

template <int In, int Out, int WStride = Out, class W>
inline void linear(const float* x, int rows, const W* w, const W* b, float* y) noexcept {
    if (rows >= linear_tall_rows)
        linear_columns<In, Out, WStride, linear_tall_rows, linear_tall_vecs>(x, rows, w, b, y);
    else
        linear_columns<In, Out, WStride, linear_wide_rows, linear_wide_vecs>(x, rows, w, b, y);
    for (index c = index(Out / width) * width; c < Out; ++c)
        for (index r = 0; r < rows; ++r)
            y[r * Out + c] = reference::linear_output<In, WStride>(x + r * In, w + c, b[c]);
}

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
