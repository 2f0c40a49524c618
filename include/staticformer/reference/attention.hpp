// staticformer: the two products of one attention head for one query row (normative).
//   scores:  s[j]   = sum_d q[d] * k[j][d]   for keys j < n, with K stored transposed
//   context: ctx[d] = sum_j p[j] * v[j][d]
// Both sums start from zero and run in increasing d (resp. j) with fused multiply-adds.
#pragma once

#include <cmath>

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

template <int HeadDim, int KStride>
inline void attention_scores(const float* q, const float* kt, int n, float* s) noexcept {
    for (int j = 0; j < n; ++j) s[j] = attention_score<HeadDim, KStride>(q, kt, j);
}

// v: this head's values, v[j * VStride + d].
template <int VStride>
inline float attention_context_output(const float* p, const float* v, int n, int d) noexcept {
    float acc = 0.0f;
    for (int j = 0; j < n; ++j) acc = std::fma(p[j], v[j * VStride + d], acc);
    return acc;
}

template <int HeadDim, int VStride>
inline void attention_context(const float* p, const float* v, int n, float* ctx) noexcept {
    for (int d = 0; d < HeadDim; ++d) ctx[d] = attention_context_output<VStride>(p, v, n, d);
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
