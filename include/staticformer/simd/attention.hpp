// staticformer: attention scores and context with xsimd (optimised; bit-identical to
// reference/attention.hpp). Scores are vectorised over keys, context over head features.
#pragma once

#include "../reference/attention.hpp"
#include "ops.hpp"

namespace staticformer {
namespace kernels {
namespace simd {

template <int HeadDim, int KStride>
inline void attention_scores(const float* q, const float* kt, int n, float* s) noexcept {
    int j = 0;
    for (; j + width <= n; j += width) {
        batch acc(0.0f);
        for (int d = 0; d < HeadDim; ++d) acc = simd::fma(batch(q[d]), load(kt + d * KStride + j), acc);
        store(s + j, acc);
    }
    for (; j < n; ++j) s[j] = reference::attention_score<HeadDim, KStride>(q, kt, j);
}

template <int HeadDim, int VStride>
inline void attention_context(const float* p, const float* v, int n, float* ctx) noexcept {
    constexpr int vectored = HeadDim / width * width;
    for (int d = 0; d < vectored; d += width) {
        batch acc(0.0f);
        for (int j = 0; j < n; ++j) acc = simd::fma(batch(p[j]), load(v + j * VStride + d), acc);
        store(ctx + d, acc);
    }
    for (int d = vectored; d < HeadDim; ++d) ctx[d] = reference::attention_context_output<VStride>(p, v, n, d);
}

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
