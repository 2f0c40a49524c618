// staticformer: int8 attention with intrinsics (optimised; bit-identical to
// reference/attention_int8.hpp), written once over the instruction set's steps (isa/).
//
// Scores s[j] = sum_d q[d] kt[d * KStride + j] are vectorised over keys j (contiguous in the
// transposed keys): scores_isa interleaves S::rows key rows and multiplies them by as many
// query values at once (VPDPBUSD on keys made unsigned, SDOT, VPMADDWD on pairs, or one row
// at a time on plain NEON), then puts the scores back in key order.
// Context ctx[d] = requantize(sum_j p[j] v[j * VStride + d]) is vectorised over d: two value
// rows as int16 pairs times the probability pair (p[j], p[j+1]) (VPDPWSSD, VPMADDWD, SMULL),
// then the vector rescale. Keys or dimensions that fill no whole vector use masks (AVX-512) or
// the reference kernel.
//
// The keys' layout is the kernel set's (store_keys). With AVX-512 VNNI and a head dimension that
// is a multiple of 4, keys are stored the way VPDPBUSD reads them: groups of four channels, a
// key's four values in one 32-bit lane, made unsigned (k xor 0x80 = k + 128): channels
// c..c+3 of key j (c a multiple of 4) at kt[c * S + 4 j] .. kt[c * S + 4 j + 3]. A vector of
// 16 scores is then one load and one VPDPBUSD per four dimensions, with none of the
// interleaving the transposed layout needs for every query row. Otherwise the keys are
// transposed as in the reference.
//
// The values' layout is the kernel set's too (store_values). On x86, with a head dimension
// that is a multiple of 16 (of 32 for the 512-bit form), keys 2m and 2m + 1 share the two rows
// 2m, 2m + 1 of the buffer: for each block of G channels (G = 16 with AVX-512 VNNI and
// head_dim % 32 == 0, else 8), their values interleaved byte by byte, the even blocks of each
// 2G channels in row 2m, the odd ones in row 2m + 1 (paired_offset), so head h still starts at
// h * head_dim with rows D apart. A key pair is then one load, VPMOVSXBW and VPDPWSSD (or
// VPMADDWD) per G channels, instead of two loads, two unpacks and an insert. An odd last key's
// partner gets a zero probability: its bytes (zero, or a key of an earlier layer: the encoders
// zero the values once a pass) count zero times. No store writes another call's rows, so the
// tiles of a pass may store their keys at once (parallel.hpp).
#pragma once

#include <cstring>
#include <type_traits>

#include "../isa/int8.hpp"
#include "../reference/attention_int8.hpp"

namespace staticformer {
namespace kernels {
namespace simd_int8 {

#if defined(STATICFORMER_INT8_X86) || defined(STATICFORMER_INT8_ARM)

inline std::int32_t sum_bytes(const std::int8_t* q, int n) noexcept {
    std::int32_t s = 0;
    for (int i = 0; i < n; ++i) s += q[i];
    return s;
}

#if defined(STATICFORMER_INT8_AVX512VNNI)
template <int HeadDim>
constexpr bool grouped_keys = HeadDim % 4 == 0;
#else
template <int HeadDim>
constexpr bool grouped_keys = false;
#endif

template <int D, int HeadDim, int S>
inline void store_keys(const std::int8_t* k, int rows, int j0, std::int8_t* kt) noexcept {
    if constexpr (grouped_keys<HeadDim>) {
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < D; c += 4) {
                const std::int32_t unsigned4 = load4(k + r * D + c) ^ std::int32_t(0x80808080u);
                std::memcpy(kt + c * S + 4 * (j0 + r), &unsigned4, 4);
            }
    } else {
        reference::store_keys<D, HeadDim, S>(k, rows, j0, kt);
    }
}

// Paired values (x86): keys 2m and 2m + 1 share rows 2m and 2m + 1 of the buffer. For each
// block of G channels, their values are interleaved byte by byte (2G bytes), even blocks of each
// 2G channels in row 2m, odd ones in row 2m + 1: channel c of key j at row 2 (j / 2) + c / G % 2,
// byte 2G (c / 2G) + 2 (c % G) + j % 2. G = 16 (a 512-bit vector of pairs) with AVX-512 VNNI and
// head_dim % 32 == 0, else G = 8 (256-bit) with head_dim % 16 == 0; 0: row-major.
#if defined(STATICFORMER_INT8_X86)
template <int HeadDim, int VStride>
constexpr int paired_granule = HeadDim % (2 * lanes::lanes) == 0 && VStride % (2 * lanes::lanes) == 0 ? lanes::lanes
                               : HeadDim % 16 == 0 && VStride % 16 == 0                             ? 8
                                                                                                    : 0;
// The lanes of granule G: the build's own, or AVX2's 8 beside AVX-512's 16.
template <int G>
using paired_lanes = std::conditional_t<G == lanes::lanes, lanes, lanes8>;
#else
template <int HeadDim, int VStride>
constexpr int paired_granule = 0;
template <int G>
using paired_lanes = lanes;
#endif

template <int D, int G>
constexpr int paired_offset(int j, int c) {
    return (j - j % 2 + c / G % 2) * D + c / (2 * G) * (2 * G) + c % G * 2 + j % 2;
}

#if defined(STATICFORMER_INT8_X86)
// Channels [c, c + 2G) of rows a and b, interleaved: the first G into even, the next G into odd.
template <int G>
inline void interleave_pair(const std::int8_t* a, const std::int8_t* b, std::int8_t* even, std::int8_t* odd) noexcept {
    if constexpr (G == 16) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a));
        const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
        // per 128-bit lane L: lo holds channels 16 L .. 16 L + 7 of a and b interleaved, hi the next 8
        const __m256i lo = _mm256_unpacklo_epi8(x, y), hi = _mm256_unpackhi_epi8(x, y);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(even), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(odd), _mm256_permute2x128_si256(lo, hi, 0x31));
    } else {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a));
        const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(even), _mm_unpacklo_epi8(x, y));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(odd), _mm_unpackhi_epi8(x, y));
    }
}
// a16w8's values, one int16 a channel: the same interleaving, twice the bytes.
template <int G>
inline void interleave_pair(const std::int16_t* a, const std::int16_t* b, std::int16_t* even,
                            std::int16_t* odd) noexcept {
    if constexpr (G == 16) {
#if defined(STATICFORMER_INT8_AVX512VNNI)
        const __m512i x = _mm512_loadu_si512(a), y = _mm512_loadu_si512(b);
        // per 128-bit lane L: lo holds channels 8 L .. 8 L + 3 of a and b interleaved, hi the next 4
        const __m512i lo = _mm512_unpacklo_epi16(x, y), hi = _mm512_unpackhi_epi16(x, y);
        _mm512_storeu_si512(even, _mm512_permutex2var_epi64(lo, _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11), hi));
        _mm512_storeu_si512(odd, _mm512_permutex2var_epi64(lo, _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15), hi));
#else
        static_assert(G != 16, "16-channel granules are AVX-512's (paired_granule)");
#endif
    } else {
        static_assert(G == 8, "granules of 8 or 16 channels");
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a));
        const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
        const __m256i lo = _mm256_unpacklo_epi16(x, y), hi = _mm256_unpackhi_epi16(x, y);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(even), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(odd), _mm256_permute2x128_si256(lo, hi, 0x31));
    }
}

// Rows [j0, j0 + rows) into paired values (int8, or a16w8's int16); a lone first row of a pair
// leaves its partner's values alone (the next rows', or unread: a zero probability).
template <int D, int G, class T>
inline void store_values_paired(const T* v, int rows, int j0, T* values) noexcept {
    int r = 0;
    if (j0 % 2 == 1) {  // the second of a pair whose first came with the previous rows
        for (int c = 0; c < D; ++c) values[paired_offset<D, G>(j0, c)] = v[c];
        r = 1;
    }
    for (; r + 2 <= rows; r += 2) {  // whole pairs, 2G channels at a time
        T* pair = values + (j0 + r) * D;
        for (int c = 0; c < D; c += 2 * G) interleave_pair<G>(v + r * D + c, v + (r + 1) * D + c, pair + c, pair + D + c);
    }
    if (r < rows)  // the first of a pair: its partner comes with the next rows, or is not read
        for (int c = 0; c < D; ++c) values[paired_offset<D, G>(j0 + r, c)] = v[r * D + c];
}
#endif

template <int D, int HeadDim, int S>
inline void store_values(const std::int8_t* v, int rows, int j0, std::int8_t* values) noexcept {
#if defined(STATICFORMER_INT8_X86)
    if constexpr (paired_granule<HeadDim, D> > 0) {
        store_values_paired<D, paired_granule<HeadDim, D>>(v, rows, j0, values);
        return;
    }
#endif
    reference::store_values<D, HeadDim, S>(v, rows, j0, values);
}

// (p[j], p[j + 1]) as one 32-bit lane: the probability pair of a key pair.
inline std::int32_t probability_pair(const std::int16_t* p, int j) noexcept {
    std::int32_t two;
    std::memcpy(&two, p + j, 4);
    return two;
}

// Paired values of granule G: for each block of G channels, keys j and j + 1 (j even) are one
// load of 2G values (int8 sign-extended to 16-bit pairs; a16w8's int16 as they are) multiplied
// by the probability pair. Blocks x Chains accumulators: Chains independent chains per block
// (pairs round-robin), added at the end; store(b, y) writes block b's rescaled context y.
template <int HeadDim, int VStride, int G, class T, class Store>
inline void attention_context_paired(const std::int16_t* p, const T* v, int n, math::fixed_multiplier context,
                                     Store store) noexcept {
    using V = paired_lanes<G>;
    using vec = typename V::vec;
    constexpr int Blocks = HeadDim / G, Chains = Blocks >= 8 ? 1 : 8 / Blocks;
    vec acc[Chains][Blocks];
#pragma GCC unroll 8
    for (int c = 0; c < Chains; ++c)
#pragma GCC unroll 16
        for (int b = 0; b < Blocks; ++b) acc[c][b] = V::set1(0);
    const auto pair = [&](int c, int j, std::int32_t probabilities) {
        const vec pp = V::set1(probabilities);
        const T* row = v + j * VStride;  // channel block b: row + (b % 2) * VStride + (b / 2) * 2G
#pragma GCC unroll 16
        for (int b = 0; b < Blocks; ++b)
            acc[c][b] = V::dot_pairs(acc[c][b], V::load_paired(row + b % 2 * VStride + b / 2 * 2 * G), pp);
    };
    int j = 0;
    for (; j + 2 * Chains <= n; j += 2 * Chains)
#pragma GCC unroll 8
        for (int c = 0; c < Chains; ++c) pair(c, j + 2 * c, probability_pair(p, j + 2 * c));
    for (; j + 2 <= n; j += 2) pair(0, j, probability_pair(p, j));
    if (j < n) pair(0, j, std::uint16_t(p[j]));  // the last key alone: its partner's probability is 0
    const typename V::rescale_params k(context.shift);
    const vec mv = V::set1(context.multiplier);
#pragma GCC unroll 16
    for (int b = 0; b < Blocks; ++b) {
        vec sum = acc[0][b];
#pragma GCC unroll 8
        for (int c = 1; c < Chains; ++c) sum = V::add(sum, acc[c][b]);
        store(b, V::rescale(sum, mv, k));
    }
}

// Row-major values: for each vector of channels, keys j and j + 1 as 16-bit pairs times the
// probability pair, key pairs round-robin over four accumulators (independent chains; integer
// sums are exact in any order) added at the end, a last key alone times its probability; then
// the vector rescale. Channels that fill no whole vector: masked, or the reference's.
template <int HeadDim, int VStride, class V = lanes>
inline void attention_context_rows(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier context,
                                   std::int8_t* ctx) noexcept {
    using vec = typename V::vec;
    constexpr int L = V::lanes, vectored = V::masked ? HeadDim : HeadDim / L * L;
    const typename V::rescale_params k(context.shift);
    const vec mv = V::set1(context.multiplier);
    for (int d = 0; d < vectored; d += L) {
        const typename V::mask m = d + L <= HeadDim ? V::full() : V::tail(HeadDim - d);
        vec part[4] = {V::set1(0), V::set1(0), V::set1(0), V::set1(0)};
        const auto pair = [&](int j) {
            const vec pairs = V::load_pair_rows(v + j * VStride + d, v + (j + 1) * VStride + d, m);
            return V::dot_pairs(part[(j / 2) % 4], pairs, V::set1(probability_pair(p, j)));
        };
        int j = 0;
        for (; j + 8 <= n; j += 8) {
            part[0] = pair(j);
            part[1] = pair(j + 2);
            part[2] = pair(j + 4);
            part[3] = pair(j + 6);
        }
        for (; j + 2 <= n; j += 2) part[(j / 2) % 4] = pair(j);
        vec acc = V::add(V::add(part[0], part[1]), V::add(part[2], part[3]));
        if (j < n) acc = V::add(acc, V::mullo(V::load_i8(v + j * VStride + d, m), V::set1(p[j])));
        V::store_i8(ctx + d, V::rescale(acc, mv, k), m);
    }
    if constexpr (vectored < HeadDim)
        reference::attention_context<HeadDim - vectored, VStride>(p, v + vectored, n, context, ctx + vectored);
}

// Paired values where the kernel set stores them (store_values), else row-major.
template <int HeadDim, int VStride>
inline void attention_context(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier context,
                              std::int8_t* ctx) noexcept {
    constexpr int G = paired_granule<HeadDim, VStride>;
    if constexpr (G > 0)
        attention_context_paired<HeadDim, VStride, G>(p, v, n, context, [ctx](int b, typename paired_lanes<G>::vec y) {
            paired_lanes<G>::store_i8(ctx + G * b, y, paired_lanes<G>::full());
        });
    else attention_context_rows<HeadDim, VStride>(p, v, n, context, ctx);
}

// Transposed keys (kt[d * KStride + j]): blocks of S::keys keys, S::rows key rows per step
// (interleaved and multiplied by the query's S::rows values), then S::store puts the scores in
// key order. The last, partial block is masked, or the reference's.
template <int HeadDim, int KStride, class S = scores_isa>
inline void attention_scores_transposed(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
    const std::int32_t bias = S::row_sum ? -128 * sum_bytes(q, HeadDim) : 0;
    const auto block = [&](int j, typename S::mask m, int left) {
        typename S::acc acc = S::start(bias);
        for (int d = 0; d < HeadDim; d += S::rows)
            acc = S::step(acc, kt + d * KStride + j, KStride, HeadDim - d, S::template query<HeadDim>(q, d), m);
        S::store(s + j, acc, left);
    };
    int j = 0;
    for (; j + S::keys <= n; j += S::keys) block(j, S::full(), S::keys);
    if (j < n) {
        if constexpr (S::masked) block(j, S::tail(n - j), n - j);
        else reference::attention_scores<HeadDim, KStride>(q, kt + j, n - j, s + j);
    }
}

#endif

#if defined(STATICFORMER_INT8_AVX512VNNI)

// Grouped keys: 16 keys per vector, HeadDim / 4 VPDPBUSD each; U vectors of keys from j at a
// time (independent chains), the last one masked to the keys left.
template <int HeadDim, int KStride, int U>
inline void scores_grouped(const std::int8_t* q, const std::int8_t* kt, int j, int left, __m512i bias,
                           std::int32_t* s) noexcept {
    __mmask16 m[U];
    __m512i acc[U];
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) {
        m[u] = left > 16 * u ? mask16(left - 16 * u) : __mmask16(0);
        acc[u] = bias;
    }
#pragma GCC unroll 32
    for (int d = 0; d < HeadDim; d += 4) {
        const __m512i qb = _mm512_set1_epi32(load4(q + d));
#pragma GCC unroll 4
        for (int u = 0; u < U; ++u)
            acc[u] = dpbusd(acc[u], _mm512_maskz_loadu_epi32(m[u], kt + d * KStride + 4 * (j + 16 * u)), qb);
    }
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) _mm512_mask_storeu_epi32(s + j + 16 * u, m[u], acc[u]);
}

template <int HeadDim, int KStride>
inline void attention_scores_grouped(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
    const __m512i bias = _mm512_set1_epi32(-128 * sum_bytes(q, HeadDim));
    int j = 0;
    for (; n - j > 32; j += 64) scores_grouped<HeadDim, KStride, 4>(q, kt, j, n - j, bias, s);
    if (n - j > 16) scores_grouped<HeadDim, KStride, 2>(q, kt, j, n - j, bias, s);
    else if (n - j > 0) scores_grouped<HeadDim, KStride, 1>(q, kt, j, n - j, bias, s);
}

template <int HeadDim, int KStride>
inline void attention_scores(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
    if constexpr (grouped_keys<HeadDim>) attention_scores_grouped<HeadDim, KStride>(q, kt, n, s);
    else attention_scores_transposed<HeadDim, KStride>(q, kt, n, s);
}

#else

template <int HeadDim, int KStride>
inline void attention_scores(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
    attention_scores_transposed<HeadDim, KStride>(q, kt, n, s);
}

#endif

#if !defined(STATICFORMER_INT8_X86) && !defined(STATICFORMER_INT8_ARM)
using reference::attention_context;  // no vector form on this target
using reference::attention_scores;
using reference::store_keys;
using reference::store_values;
#endif

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
