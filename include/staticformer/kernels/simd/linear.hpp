// staticformer: y = x W + b with xsimd (optimised; bit-identical to reference/linear.hpp).
//
// Vectorised over outputs: each lane runs the reference's chain, bias first, then one fma per
// input in increasing order. A register tile of Rows x Vecs batches keeps Rows * Vecs chains in
// registers, so each weight batch loaded serves Rows rows and each broadcast input serves Vecs
// batches of outputs. Column blocks are the outer loop and row blocks the inner one: a block's
// weight panel (In x Vecs batches) is streamed from memory once per call and then reused from
// cache by every row block (on AVX2 from a packed copy: see linear_packs_panels). Columns left
// over after whole batches call the reference's per-output routine. f16 weights
// (W = std::uint16_t) are widened batch by batch (simd::widen, exact like math::widen) and then
// enter the same fma chain.
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <type_traits>

#include "../isa/common.hpp"
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

// Packed panels (AVX2): a column block of a tall tile is 2 batches, 64 bytes of each weight row,
// and weight rows are Out floats apart: for Out = 1024 every row of the panel falls in the same
// L1 set, so the panel cannot stay in L1 however small it is. So, for calls of at least
// linear_pack_min_rows rows, each chunk of linear_panel_rows weight rows of the block is copied
// (widened to float) into a contiguous stack buffer of linear_panel_bytes (16 KiB) by the first
// row tile as it reads them, and every other row tile reads the copy. On fewer rows the copy
// costs more than it saves. AVX-512 tiles' 3-batch blocks (192 bytes of each row) lose with
// packing, so they read the weights in place, and so does AArch64 (not benchmarked packed).
// Timings and chunk sizes tried: bench/PERF_NOTES.md.
#if defined(__AVX512F__) || defined(__aarch64__)
constexpr bool linear_packs_panels = false;
#else
constexpr bool linear_packs_panels = true;
#endif
constexpr int linear_panel_rows = 256;

// A column block read in place stays in L1 only if its In weight rows (one 64-byte line each
// for a tall tile's 2 batches) spread over enough of the L1's sets: rows k lines apart fall in
// 64 / gcd(k, 64) of its 64 sets (32 KiB 8-way, as here, or 48 KiB 12-way), at most 8 rows a set.
// Tiny's query / key / value rows, 768 bytes apart, take 16 sets, and its 64 rows stay there:
// read in place; ff1's, 1 KiB apart, only 4: packed. Every larger configuration packs, and so do
// f16 weights (their copy is widened once for all the block's tiles). Timings:
// bench/PERF_NOTES.md.
template <int In, int WStride, class W>
constexpr bool linear_block_stays_in_l1() {
    if (!std::is_same<W, float>::value || WStride % 16 != 0) return false;
    return In <= 8 * (64 / std::gcd(WStride / 16, 64));
}
constexpr int linear_pack_min_rows = 4 * linear_tall_rows;
constexpr std::size_t linear_panel_bytes =
    linear_packs_panels ? std::size_t(linear_panel_rows) * linear_tall_vecs * width * sizeof(float) : 0;

// y[r][c + k] for r < Rows and Vecs batches of columns from c: Rows * Vecs independent chains
// of Len fmas, on inputs x[r * XStride + i] and weight rows WStride apart. The chains start at
// the bias b, or with Resume at the values y holds (a chain a previous call stored there: float
// stores and loads are exact, so a chain split in two is the same chain; b is then unused).
// `next`, if not null, is the next column block's weights: its rows are prefetched into L2 along
// the way (weight rows are WStride apart, too far for the hardware stride prefetchers).
// `panel`, if not null, receives the weight batches as they are read (widened), Vecs batches a
// row: the packed panel the block's other tiles then read.
template <int Len, int XStride, int Out, int WStride, int Rows, int Vecs, bool Resume = false, class W, class B>
inline void linear_tile(const float* x, const W* w, const B* b, float* y, const W* next = nullptr,
                        float* panel = nullptr) noexcept {
    batch acc[Rows][Vecs];
#pragma GCC unroll 8
    for (int v = 0; v < Vecs; ++v) {
        if constexpr (Resume) {
#pragma GCC unroll 8
            for (int r = 0; r < Rows; ++r) acc[r][v] = load(y + index(r) * Out + index(v) * width);
        } else {
            const batch bias = widen(b + index(v) * width);
#pragma GCC unroll 8
            for (int r = 0; r < Rows; ++r) acc[r][v] = bias;
        }
    }
    for (index i = 0; i < Len; ++i) {
        if (next != nullptr) {
#pragma GCC unroll 8
            for (int v = 0; v < Vecs; ++v) __builtin_prefetch(next + i * WStride + index(v) * width, 0, 2);
        }
        batch wv[Vecs];
#pragma GCC unroll 8
        for (int v = 0; v < Vecs; ++v) wv[v] = widen(w + i * WStride + index(v) * width);
        if (panel != nullptr) {
#pragma GCC unroll 8
            for (int v = 0; v < Vecs; ++v) store(panel + (i * Vecs + v) * width, wv[v]);
        }
#pragma GCC unroll 8
        for (int r = 0; r < Rows; ++r) {
            const batch xr(x[index(r) * XStride + i]);
#pragma GCC unroll 8
            for (int v = 0; v < Vecs; ++v) acc[r][v] = simd::fma(xr, wv[v], acc[r][v]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 8
        for (int v = 0; v < Vecs; ++v) store(y + index(r) * Out + index(v) * width, acc[r][v]);
}

// One tile of k x Vecs chains, 1 <= k <= Rows (each height its own instantiation).
template <int Len, int XStride, int Out, int WStride, int Rows, int Vecs, bool Resume = false, class W, class B,
          int K = Rows>
inline void linear_tile_of_height(index k, const float* x, const W* w, const B* b, float* y,
                             float* panel = nullptr) noexcept {
    if constexpr (K > 0) {
        const W* no_prefetch = nullptr;
        if (k == K) linear_tile<Len, XStride, Out, WStride, K, Vecs, Resume>(x, w, b, y, no_prefetch, panel);
        else linear_tile_of_height<Len, XStride, Out, WStride, Rows, Vecs, Resume, W, B, K - 1>(k, x, w, b, y, panel);
    }
}

// Rows [r0, rows) of one column block in as few tiles of at most Rows rows as will do, of
// near-equal heights: 32 rows in tiles of 6 as 5, 5, 5, 5, 6, 6 rather than 6 x 5 + 2, whose
// 2-row tile has too few chains to hide the fma latency (bench/PERF_NOTES.md).
template <int Len, int XStride, int Out, int WStride, int Rows, int Vecs, bool Resume = false, class W, class B>
inline void linear_rows_in_even_tiles(const float* x, index r0, index rows, const W* w, const B* b, float* y) noexcept {
    for (index r = r0, height; r < rows; r += height) {
        height = first_tile_rows<Rows>(r, rows);
        linear_tile_of_height<Len, XStride, Out, WStride, Rows, Vecs, Resume>(height, x + r * XStride, w, b, y + r * Out);
    }
}

// One column block, weights read in place.
template <int In, int Out, int WStride, int Rows, int Vecs, class W>
inline void linear_column_block(const float* x, index rows, const W* w, const W* b, float* y, index c) noexcept {
    index r = 0;
    const index next = c + index(Vecs) * width;
    if (Rows <= rows && next + width <= Out) {  // the first tile prefetches the next block
        linear_tile<In, In, Out, WStride, Rows, Vecs>(x, w + c, b + c, y + c, w + next);
        r = Rows;
    }
    linear_rows_in_even_tiles<In, In, Out, WStride, Rows, Vecs>(x, r, rows, w + c, b + c, y + c);
}

// One column block through a packed panel: the first row tile reads Len weight rows of the
// block in place and copies them (widened to float) next to each other as it goes, then every
// other row tile runs its chains' next Len fmas on the copy: from the bias b in the first chunk,
// from y in the later ones (Resume). Before that, the first next_rows rows of the weights needed
// after these (`next`, rows WStride apart) are prefetched into L2, so that they arrive while the
// tiles run. The first tile copies as it computes, instead of a copy loop before the tiles: the
// copy then adds no pass of its own (bench/PERF_NOTES.md).
template <bool Resume, int Len, int In, int Out, int WStride, int Rows, int Vecs, class W>
inline void linear_panel_chunk(const float* x, index rows, const W* w, const W* b, float* y, float* panel,
                               const W* next, index next_rows) noexcept {
    for (index i = 0; i < next_rows; ++i)
#pragma GCC unroll 8
        for (int v = 0; v < Vecs; ++v) __builtin_prefetch(next + i * WStride + index(v) * width, 0, 2);
    const index first = first_tile_rows<Rows>(index(0), rows);
    linear_tile_of_height<Len, In, Out, WStride, Rows, Vecs, Resume>(first, x, w, b, y, panel);
    linear_rows_in_even_tiles<Len, In, Out, Vecs * width, Rows, Vecs, Resume>(x, first, rows, panel, b, y);
}

// The chunks of the block at column c, linear_panel_rows weight rows at a time. The weights
// needed after a chunk are the block's next chunk, or after its last chunk the first chunk of
// the next block (if it is as wide as this one: a narrower last block is not prefetched).
template <int In, int Out, int WStride, int Rows, int Vecs, class W>
inline void linear_packed_block(const float* x, index rows, const W* w, const W* b, float* y, index c) noexcept {
    constexpr int K = linear_panel_rows, full = In / K, last = In % K;
    alignas(64) float panel[(full > 0 ? K : last) * Vecs * width];
    const index next_block = c + index(Vecs) * width;
    const bool has_next_block = next_block + index(Vecs) * width <= Out;
    const auto chunk = [&](auto len, index k0) {
        constexpr int Len = decltype(len)::value;
        const W* next = nullptr;
        index next_rows = 0;
        if (k0 + Len < In) {
            next = w + (k0 + Len) * WStride + c;
            next_rows = std::min<index>(In - (k0 + Len), K);
        } else if (has_next_block) {
            next = w + next_block;
            next_rows = std::min<index>(In, K);
        }
        if (k0 == 0)
            linear_panel_chunk<false, Len, In, Out, WStride, Rows, Vecs>(x, rows, w + c, b + c, y + c, panel, next,
                                                                         next_rows);
        else  // a later chunk: the chains continue from y
            linear_panel_chunk<true, Len, In, Out, WStride, Rows, Vecs>(x + k0, rows, w + k0 * WStride + c, b, y + c,
                                                                        panel, next, next_rows);
    };
    for (index k = 0; k < full; ++k) chunk(std::integral_constant<int, K>(), k * K);
    if constexpr (last > 0) chunk(std::integral_constant<int, last>(), index(full) * K);
}

template <bool Packed, int In, int Out, int WStride, int Rows, int Vecs, class W>
inline void linear_block(const float* x, index rows, const W* w, const W* b, float* y, index c) noexcept {
    if constexpr (Packed) linear_packed_block<In, Out, WStride, Rows, Vecs>(x, rows, w, b, y, c);
    else linear_column_block<In, Out, WStride, Rows, Vecs>(x, rows, w, b, y, c);
}

// Whole batches of columns, split into as few column blocks as MaxVecs allows, of (nearly) equal
// width: `big` batches for the first blocks, big - 1 for the others.
template <bool Packed, int In, int Out, int WStride, int Rows, int MaxVecs, class W>
inline void linear_columns(const float* x, index rows, const W* w, const W* b, float* y) noexcept {
    constexpr int batches = Out / width;
    if constexpr (batches > 0) {
        constexpr int blocks = (batches + MaxVecs - 1) / MaxVecs;
        constexpr int big = (batches + blocks - 1) / blocks;
        constexpr int big_blocks = batches - blocks * (big - 1);
        index c = 0;
        for (int k = 0; k < big_blocks; ++k, c += big * width)
            linear_block<Packed, In, Out, WStride, Rows, big>(x, rows, w, b, y, c);
        if constexpr (big > 1)
            for (int k = big_blocks; k < blocks; ++k, c += (big - 1) * width)
                linear_block<Packed, In, Out, WStride, Rows, big - 1>(x, rows, w, b, y, c);
    }
}

template <int In, int Out, int WStride = Out, class W>
inline void linear(const float* x, int rows, const W* w, const W* b, float* y) noexcept {
    if (linear_packs_panels && rows >= linear_pack_min_rows && !linear_block_stays_in_l1<In, WStride, W>())
        linear_columns<linear_packs_panels, In, Out, WStride, linear_tall_rows, linear_tall_vecs>(x, rows, w, b, y);
    else if (rows >= linear_tall_rows)
        linear_columns<false, In, Out, WStride, linear_tall_rows, linear_tall_vecs>(x, rows, w, b, y);
    else
        linear_columns<false, In, Out, WStride, linear_wide_rows, linear_wide_vecs>(x, rows, w, b, y);
    for (index c = index(Out / width) * width; c < Out; ++c)
        for (index r = 0; r < rows; ++r)
            y[r * Out + c] = reference::linear_output<In, WStride>(x + r * In, w + c, b[c]);
}

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
