// staticformer: attention scores and context with xsimd (optimised; bit-identical to
// reference/attention.hpp). Scores are vectorised over keys, context over head features.
//
// Each output is one fma chain (d, resp. j, increasing), so a single batch is bound by the fma
// latency. Up to attention_chains batches of outputs advance together in one loop, each its own
// chain, so their fmas overlap.
#pragma once

#include <cstddef>

#include "../reference/attention.hpp"
#include "ops.hpp"

namespace staticformer {
namespace kernels {
namespace simd {

constexpr int attention_chains = 8;

// out[k * width + lane] = sum_t c[t] * m[t * Stride + k * width + lane] for k < Batches, from zero,
// in increasing t: scores (c = q, t = d, m = keys) and context (c = p, t = j, m = values).
template <int Stride, int Batches>
inline void dot_batches(const float* c, const float* m, int count, float* out) noexcept {
    batch acc[Batches];
#pragma GCC unroll 8
    for (int k = 0; k < Batches; ++k) acc[k] = batch(0.0f);
    for (std::ptrdiff_t t = 0; t < count; ++t) {
        const batch ct(c[t]);
#pragma GCC unroll 8
        for (int k = 0; k < Batches; ++k) acc[k] = simd::fma(ct, load(m + t * Stride + k * width), acc[k]);
    }
#pragma GCC unroll 8
    for (int k = 0; k < Batches; ++k) store(out + k * width, acc[k]);
}

template <int HeadDim, int KStride>
inline void attention_scores(const float* q, const float* kt, int n, float* s) noexcept {
    constexpr int block = attention_chains * width;
    int j = 0;
    for (; j + block <= n; j += block) dot_batches<KStride, attention_chains>(q, kt + j, HeadDim, s + j);
    // Fewer than attention_chains whole batches left: 4, 2 and 1 at a time.
    if (j + 4 * width <= n) dot_batches<KStride, 4>(q, kt + j, HeadDim, s + j), j += 4 * width;
    if (j + 2 * width <= n) dot_batches<KStride, 2>(q, kt + j, HeadDim, s + j), j += 2 * width;
    if (j + width <= n) dot_batches<KStride, 1>(q, kt + j, HeadDim, s + j), j += width;
    for (; j < n; ++j) s[j] = reference::attention_score<HeadDim, KStride>(q, kt, j);
}

template <int HeadDim, int VStride>
inline void attention_context(const float* p, const float* v, int n, float* ctx) noexcept {
    constexpr int batches = HeadDim / width;
    constexpr int blocks = (batches + attention_chains - 1) / attention_chains;
    if constexpr (batches > 0) {
        constexpr int per_block = (batches + blocks - 1) / blocks;
        int d = 0;
        for (; d + per_block * width <= batches * width; d += per_block * width)
            dot_batches<VStride, per_block>(p, v + d, n, ctx + d);
        if constexpr (batches % per_block != 0)
            dot_batches<VStride, batches % per_block>(p, v + d, n, ctx + d);
    }
    for (int d = batches * width; d < HeadDim; ++d) ctx[d] = reference::attention_context_output<VStride>(p, v, n, d);
}

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
