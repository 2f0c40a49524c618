// staticformer: a16w8 attention with intrinsics (optimised; bit-identical to
// reference/attention_int8.hpp's int16 forms), x86 only (elsewhere the reference's).
//
// Keys: with an even head dimension, channels c and c + 1 of key j (c even) are one 32-bit
// word, kt[c * S + 2 j] and kt[c * S + 2 j + 1] (head h still starts at kt + h * HeadDim * S).
// A vector of scores, one key a lane, is then one load and one VPMADDWD / VPDPWSSD per two
// channels with the query's pair (q[c], q[c + 1]) in every lane: no interleaving per query.
// Values: int8's paired layout (attention_int8.hpp, paired_offset) on int16 elements, each
// block of G channels of a key pair one vector of pairs times the probability pair.
// |q|, |k| <= score_limit and p <= 32767: no pair sum saturates, every sum is int32's.
#pragma once

#include <cstring>

#include "attention_int8.hpp"

namespace staticformer {
namespace kernels {
namespace simd_a16w8 {

#if defined(STATICFORMER_INT8_X86)

using simd_int8::each_vector;
using simd_int8::lanes;

template <int D, int HeadDim, int S>
inline void store_keys(const std::int16_t* k, int rows, int j0, std::int16_t* kt) noexcept {
    if constexpr (HeadDim % 2 == 0) {
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < D; c += 2) std::memcpy(kt + c * S + 2 * (j0 + r), k + r * D + c, 4);
    } else {
        reference::store_keys<D, HeadDim, S>(k, rows, j0, kt);
    }
}

// s[j] for keys j .. j + U L - 1 (L keys a vector; `left` of them valid, the rest masked or,
// on unmasked sets, never asked for).
template <int HeadDim, int KStride, int U>
inline void scores_block(const std::int16_t* q, const std::int16_t* kt, int j, int left, std::int32_t* s) noexcept {
    using V = lanes;
    using P = typename V::pairs;
    constexpr int L = V::lanes;
    typename V::vec acc[U];
    typename V::mask m[U];
    typename P::mask pm[U];
    each_vector<U>([&](int u) {
        const int keys = left - L * u < 0 ? 0 : left - L * u;
        m[u] = keys >= L ? V::full() : V::tail(keys);
        pm[u] = keys >= L ? P::full() : P::tail(2 * keys);
        acc[u] = V::set1(0);
    });
    for (int d = 0; d < HeadDim; d += 2) {
        std::int32_t pair;
        std::memcpy(&pair, q + d, 4);
        const typename V::vec qq = V::set1(pair);
        each_vector<U>([&](int u) {
            acc[u] = V::dot_pairs(acc[u], V::load_i16_pairs(kt + d * KStride + 2 * (j + L * u), pm[u]), qq);
        });
    }
    each_vector<U>([&](int u) {
        if (left > L * u) V::store_i32(s + j + L * u, acc[u], m[u]);
    });
}

template <int HeadDim, int KStride>
inline void attention_scores(const std::int16_t* q, const std::int16_t* kt, int n, std::int32_t* s) noexcept {
    if constexpr (HeadDim % 2 != 0) {
        reference::attention_scores<HeadDim, KStride>(q, kt, n, s);
    } else {
        constexpr int L = lanes::lanes, U = 4;
        int j = 0;
        for (; j + U * L <= n; j += U * L) scores_block<HeadDim, KStride, U>(q, kt, j, U * L, s);
        if constexpr (lanes::masked) {
            if (j < n) scores_block<HeadDim, KStride, U>(q, kt, j, n - j, s);
        } else {
            for (; j + L <= n; j += L) scores_block<HeadDim, KStride, 1>(q, kt, j, L, s);
            for (; j < n; ++j) {  // the last keys, one at a time in the same layout
                std::int32_t acc = 0;
                for (int d = 0; d < HeadDim; ++d) acc += std::int32_t(q[d]) * kt[(d - d % 2) * KStride + 2 * j + d % 2];
                s[j] = acc;
            }
        }
    }
}

template <int D, int HeadDim, int S>
inline void store_values(const std::int16_t* v, int rows, int j0, std::int16_t* values) noexcept {
    constexpr int G = simd_int8::paired_granule<HeadDim, D>;
    if constexpr (G > 0) {
        simd_int8::store_values_paired<D, G>(v, rows, j0, values);
    } else {
        reference::store_values<D, HeadDim, S>(v, rows, j0, values);
    }
}

template <int HeadDim, int VStride>
inline void attention_context(const std::int16_t* p, const std::int16_t* v, int n, const attention_a16w8& a,
                              std::int16_t* ctx) noexcept {
    constexpr int G = simd_int8::paired_granule<HeadDim, VStride>;
    if constexpr (G > 0) {
        using V = simd_int8::paired_lanes<G>;
        const typename V::vec lo = V::set1(-a.context_limit), hi = V::set1(a.context_limit);
        simd_int8::attention_context_paired<HeadDim, VStride, G>(p, v, n, a.context, [&](int b, typename V::vec y) {
            V::store_i16(ctx + G * b, V::min(V::max(y, lo), hi), V::full());
        });
    } else {
        reference::attention_context<HeadDim, VStride>(p, v, n, a.context, a.context_limit, ctx);
    }
}

#else

using reference::store_keys;
using reference::store_values;
using reference::attention_scores;
template <int HeadDim, int VStride>
inline void attention_context(const std::int16_t* p, const std::int16_t* v, int n, const attention_a16w8& a,
                              std::int16_t* ctx) noexcept {
    reference::attention_context<HeadDim, VStride>(p, v, n, a.context, a.context_limit, ctx);
}

#endif

}  // namespace simd_a16w8
}  // namespace kernels
}  // namespace staticformer
