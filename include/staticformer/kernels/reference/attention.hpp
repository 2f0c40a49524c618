// staticformer: the two products of one attention head (normative).
//   scores:  s[j]   = sum_d q[d] * k[j][d]   for keys j < n, with K stored transposed
//   context: ctx[d] = sum_j p[j] * v[j][d]
// Both sums start from zero and run in increasing d (resp. j) with fused multiply-adds. The
// kernel set takes several query rows per call (attention_scores_rows, attention_context_rows):
// each row is computed exactly as alone, the rows only give an optimised backend independent
// chains to overlap.
#pragma once

#include <cmath>

#include "fma_tile.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

// kt: this head's keys transposed, kt[d * KStride + j].
template <int HeadDim, int KStride>
inline float attention_score(const float* q, const float* kt, int j) noexcept {
    float acc = 0.0f;
    for (int d = 0; d < HeadDim; ++d) acc = std::fma(q[d], kt[d * KStride + j], acc);
    return acc;
}

// Keys 4 at a time, each exactly attention_score's chain (fma_tile.hpp: the tile only saves
// loads on a scalar core), then the n % 4 last ones.
template <int HeadDim, int KStride>
inline void attention_scores(const float* q, const float* kt, int n, float* s) noexcept {
    const int tiled = n - n % 4;
    for (int j = 0; j < tiled; j += 4) fma_row<4, KStride>(q, kt + j, HeadDim, s + j);
    for (int j = tiled; j < n; ++j) s[j] = attention_score<HeadDim, KStride>(q, kt, j);
}

// v: this head's values, v[j * VStride + d].
template <int VStride>
inline float attention_context_output(const float* p, const float* v, int n, int d) noexcept {
    float acc = 0.0f;
    for (int j = 0; j < n; ++j) acc = std::fma(p[j], v[j * VStride + d], acc);
    return acc;
}

// Outputs 4 at a time, each exactly attention_context_output's chain, then the HeadDim % 4 last.
template <int HeadDim, int VStride>
inline void attention_context(const float* p, const float* v, int n, float* ctx) noexcept {
    constexpr int tiled = HeadDim - HeadDim % 4;
    for (int d = 0; d < tiled; d += 4) fma_row<4, VStride>(p, v + d, n, ctx + d);
    for (int d = tiled; d < HeadDim; ++d) ctx[d] = attention_context_output<VStride>(p, v, n, d);
}

// Keys of rows [j0, j0 + rows) (row-major, k[r * D + c]) into the transposed keys buffer,
// kt[c * S + j0 + r], the layout attention_scores reads.
template <int D, int S>
inline void store_keys(const float* k, int rows, int j0, float* kt) noexcept {
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < D; ++c) kt[c * S + j0 + r] = k[r * D + c];
}

// Rows query rows q[r * QStride + d], scores s[r * KStride + j].
template <int HeadDim, int KStride, int QStride>
inline void attention_scores_rows(const float* q, int rows, const float* kt, int n, float* s) noexcept {
    for (int r = 0; r < rows; ++r) attention_scores<HeadDim, KStride>(q + r * QStride, kt, n, s + r * KStride);
}

// Rows probability rows p[r * PStride + j], context rows ctx[r * CStride + d] (the queries' rows;
// VStride too, unless grouped-query attention makes the values narrower).
template <int HeadDim, int VStride, int PStride, int CStride = VStride>
inline void attention_context_rows(const float* p, int rows, const float* v, int n, float* ctx) noexcept {
    for (int r = 0; r < rows; ++r) attention_context<HeadDim, VStride>(p + r * PStride, v, n, ctx + r * CStride);
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
