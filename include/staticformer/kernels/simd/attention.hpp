// staticformer: attention scores and context with xsimd (optimised; bit-identical to
// reference/attention.hpp). Scores are vectorised over keys, context over head features.
//
// Each output is one fma chain (d, resp. j, increasing) from zero. One query row alone offers
// few chains (head_dim 16: a single batch of context), so the kernels take a block of rows and
// advance a register tile of Rows x Vecs chains together: each key (resp. value) batch loaded
// serves every row of the block, and the chains' fmas overlap.
#pragma once

#include <cstddef>

#include "../reference/attention.hpp"
#include "ops.hpp"

namespace staticformer {
namespace kernels {
namespace simd {

// Register tiles: accumulators plus one register per key (value) batch.
#if defined(__AVX512F__) || defined(__aarch64__)
constexpr int attention_rows = 8, attention_vecs = 3;  // 24 accumulators of 32 registers
#else
constexpr int attention_rows = 4, attention_vecs = 3;  // 12 accumulators of 16 registers
#endif

// out[r * OStride + k * width + lane] = sum_t a[r * AStride + t] * b[t * BStride + k * width + lane]
// for r < Rows, k < Vecs: from zero, in increasing t < count. Scores: a = q, t = d, b = keys;
// context: a = p, t = j, b = values. With Tail, the last vector has only its first `tail` lanes
// (load_first, store_first).
template <int Rows, int Vecs, int AStride, int BStride, int OStride, bool Tail = false>
inline void dot_tile(const float* a, const float* b, std::ptrdiff_t count, float* out, int tail = width) noexcept {
    batch acc[Rows][Vecs];
#pragma GCC unroll 8
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 8
        for (int k = 0; k < Vecs; ++k) acc[r][k] = batch(0.0f);
    for (std::ptrdiff_t t = 0; t < count; ++t) {
        batch bt[Vecs];
#pragma GCC unroll 8
        for (int k = 0; k < Vecs; ++k)
            bt[k] = Tail && k == Vecs - 1 ? load_first(b + t * BStride + k * width, tail) : load(b + t * BStride + k * width);
#pragma GCC unroll 8
        for (int r = 0; r < Rows; ++r) {
            const batch ar(a[r * AStride + t]);
#pragma GCC unroll 8
            for (int k = 0; k < Vecs; ++k) acc[r][k] = simd::fma(ar, bt[k], acc[r][k]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 8
        for (int k = 0; k < Vecs; ++k) {
            if (Tail && k == Vecs - 1) store_first(out + r * OStride + k * width, acc[r][k], tail);
            else store(out + r * OStride + k * width, acc[r][k]);
        }
}

// dot_tile for `rows` <= Rows rows: the rows count picks the tile height at run time.
template <int Rows, int Vecs, int AStride, int BStride, int OStride, bool Tail = false>
inline void dot_rows(const float* a, int rows, const float* b, std::ptrdiff_t count, float* out,
                     int tail = width) noexcept {
    if (rows == Rows) dot_tile<Rows, Vecs, AStride, BStride, OStride, Tail>(a, b, count, out, tail);
    else if constexpr (Rows > 1) dot_rows<Rows - 1, Vecs, AStride, BStride, OStride, Tail>(a, rows, b, count, out, tail);
}

// Scores of up to attention_rows query rows against keys [0, n): blocks of attention_vecs
// batches of keys, then 2 and 1 batches, then the last n % width keys in one part-batch.
template <int HeadDim, int KStride, int QStride>
inline void attention_scores_block(const float* q, int rows, const float* kt, int n, float* s) noexcept {
    int j = 0;
    for (; j + attention_vecs * width <= n; j += attention_vecs * width)
        dot_rows<attention_rows, attention_vecs, QStride, KStride, KStride>(q, rows, kt + j, HeadDim, s + j);
    if constexpr (attention_vecs > 2)
        if (j + 2 * width <= n) dot_rows<attention_rows, 2, QStride, KStride, KStride>(q, rows, kt + j, HeadDim, s + j), j += 2 * width;
    if (j + width <= n) dot_rows<attention_rows, 1, QStride, KStride, KStride>(q, rows, kt + j, HeadDim, s + j), j += width;
    if (j < n) dot_rows<attention_rows, 1, QStride, KStride, KStride, true>(q, rows, kt + j, HeadDim, s + j, n - j);
}

template <int HeadDim, int KStride, int QStride>
inline void attention_scores_rows(const float* q, int rows, const float* kt, int n, float* s) noexcept {
    for (int r = 0; r < rows; r += attention_rows) {
        const int block = rows - r < attention_rows ? rows - r : attention_rows;
        attention_scores_block<HeadDim, KStride, QStride>(q + r * QStride, block, kt, n, s + r * KStride);
    }
}

// Context of up to attention_rows rows: the head's whole batches of features in column blocks of
// at most attention_vecs batches, then the last HeadDim % width features in one part-batch.
template <int HeadDim, int VStride, int PStride, int CStride>
inline void attention_context_block(const float* p, int rows, const float* v, int n, float* ctx) noexcept {
    constexpr int batches = HeadDim / width;
    if constexpr (batches > 0) {
        constexpr int blocks = (batches + attention_vecs - 1) / attention_vecs;
        constexpr int per_block = (batches + blocks - 1) / blocks;
        int d = 0;
        for (; d + per_block * width <= batches * width; d += per_block * width)
            dot_rows<attention_rows, per_block, PStride, VStride, CStride>(p, rows, v + d, n, ctx + d);
        if constexpr (batches % per_block != 0)
            dot_rows<attention_rows, batches % per_block, PStride, VStride, CStride>(p, rows, v + d, n, ctx + d);
    }
    constexpr int tail = HeadDim % width, d = HeadDim - tail;
    if constexpr (tail > 0) dot_rows<attention_rows, 1, PStride, VStride, CStride, true>(p, rows, v + d, n, ctx + d, tail);
}

// Context rows CStride floats apart (VStride unless grouped-query attention narrows the values).
template <int HeadDim, int VStride, int PStride, int CStride = VStride>
inline void attention_context_rows(const float* p, int rows, const float* v, int n, float* ctx) noexcept {
    for (int r = 0; r < rows; r += attention_rows) {
        const int block = rows - r < attention_rows ? rows - r : attention_rows;
        attention_context_block<HeadDim, VStride, PStride, CStride>(p + r * PStride, block, v, n, ctx + r * CStride);
    }
}

#if defined(__AVX__)
// dst[c * DStride + r] = src[r * SStride + c] for r, c < 8, in registers: neighbouring rows'
// elements interleaved in pairs (unpack), then in fours (shuffle), then the 128-bit halves
// exchanged.
inline void transpose_8x8(const float* src, std::ptrdiff_t SStride, float* dst, std::ptrdiff_t DStride) noexcept {
    __m256 a[8], pairs[8], fours[8];
    for (int r = 0; r < 8; ++r) a[r] = _mm256_loadu_ps(src + r * SStride);
    for (int r = 0; r < 8; r += 2) {
        pairs[r] = _mm256_unpacklo_ps(a[r], a[r + 1]);      // columns 0, 1 | 4, 5 of rows r, r + 1
        pairs[r + 1] = _mm256_unpackhi_ps(a[r], a[r + 1]);  // columns 2, 3 | 6, 7
    }
    for (int r = 0; r < 8; r += 4) {
        fours[r] = _mm256_shuffle_ps(pairs[r], pairs[r + 2], 0x44);          // column 0 | 4 of rows r..r + 3
        fours[r + 1] = _mm256_shuffle_ps(pairs[r], pairs[r + 2], 0xee);      // column 1 | 5
        fours[r + 2] = _mm256_shuffle_ps(pairs[r + 1], pairs[r + 3], 0x44);  // column 2 | 6
        fours[r + 3] = _mm256_shuffle_ps(pairs[r + 1], pairs[r + 3], 0xee);  // column 3 | 7
    }
    for (int c = 0; c < 4; ++c) {
        _mm256_storeu_ps(dst + c * DStride, _mm256_permute2f128_ps(fours[c], fours[c + 4], 0x20));
        _mm256_storeu_ps(dst + (c + 4) * DStride, _mm256_permute2f128_ps(fours[c], fours[c + 4], 0x31));
    }
}
#endif

// Keys into the transposed keys buffer, as reference::store_keys (a copy: any order gives the
// same bits). x86: 8 x 8 blocks transposed in registers, instead of the reference's scattered
// scalar stores (bench/PERF_NOTES.md).
template <int D, int S>
inline void store_keys(const float* k, int rows, int j0, float* kt) noexcept {
    int r = 0;
#if defined(__AVX__)
    if constexpr (D % 8 == 0)
        for (; r + 8 <= rows; r += 8)
            for (int c = 0; c < D; c += 8) transpose_8x8(k + r * D + c, D, kt + c * S + j0 + r, S);
#endif
    reference::store_keys<D, S>(k + r * D, rows - r, j0 + r, kt);
}

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
