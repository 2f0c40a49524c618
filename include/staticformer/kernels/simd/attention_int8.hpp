// staticformer: int8 attention scores and context with intrinsics (optimised; bit-identical to
// reference/attention_int8.hpp).
//
// Scores s[j] = sum_d q[d] kt[d * KStride + j] are vectorised over keys j (contiguous in the
// transposed keys). With a dot-product instruction, four rows d..d+3 of keys are interleaved
// byte by byte so that each 32-bit lane holds one key's four values, and the query's four
// values are broadcast: VPDPBUSD on the keys made unsigned (k + 128, the accumulator starting
// at -128 * sum_d q[d]) or SDOT on signed bytes. Without one, two rows are sign-extended,
// interleaved as int16 pairs and multiplied by the query pair with VPMADDWD (x86), or each row
// is widened and multiplied by q[d] (NEON).
// Context ctx[d] = requantize(sum_j p[j] v[j * VStride + d]) is vectorised over d: two value
// rows interleaved as int16 pairs times the probability pair (p[j], p[j+1]) with VPDPWSSD /
// VPMADDWD, or each row widened and multiplied by p[j] (NEON); then the vector rescale.
// Keys or dimensions that fill no whole vector use masks (AVX-512) or the reference kernel.
//
// The keys' layout is the kernel set's (store_keys). With AVX-512 VNNI and a head dimension that
// is a multiple of 4, keys are stored the way VPDPBUSD reads them: groups of four channels, a
// key's four values in one 32-bit lane, made unsigned (k xor 0x80 = k + 128): channels
// c..c+3 of key j (c a multiple of 4) at kt[c * S + 4 j] .. kt[c * S + 4 j + 3]. A vector of
// 16 scores is then one load and one VPDPBUSD per four dimensions, with none of the
// interleaving the transposed layout needs for every query row (attention kernel, AVX-512 VNNI:
// tiny 14.9 -> 12.2 us, mini 291 -> 250 us). Otherwise the keys are transposed as in the
// reference.
//
// The values' layout is the kernel set's too (store_values). On x86, with a head dimension
// that is a multiple of 16 (of 32 for the 512-bit form), keys 2m and 2m + 1 share the two rows
// 2m, 2m + 1 of the buffer: for each block of G channels (G = 16 with AVX-512 VNNI and
// head_dim % 32 == 0, else 8), their values interleaved byte by byte, the even blocks of each
// 2G channels in row 2m, the odd ones in row 2m + 1 (paired_offset), so head h still starts at
// h * head_dim with rows D apart. A key pair is then one load, VPMOVSXBW and VPDPWSSD (or
// VPMADDWD) per G channels, instead of two loads, two unpacks and an insert (AVX-512, G = 16:
// context, mini: 128 -> 57 us per layer; attention kernel: mini 260 -> 175 us, small 47 -> 36
// us). An odd last key's partner is zero (store_values) with a zero probability.
#pragma once

#include <cstring>

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

// q[d..d+3] as four bytes, zero beyond HeadDim.
template <int HeadDim>
inline std::int32_t query4(const std::int8_t* q, int d) noexcept {
    return d + 4 <= HeadDim ? load4(q + d) : load_partial4(q + d, HeadDim - d);
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
constexpr int paired_granule =
#if defined(STATICFORMER_INT8_AVX512VNNI)
    HeadDim % 32 == 0 && VStride % 32 == 0 ? 16 :
#endif
    HeadDim % 16 == 0 && VStride % 16 == 0 ? 8 : 0;
#else
template <int HeadDim, int VStride>
constexpr int paired_granule = 0;
#endif

template <int D, int G>
constexpr int paired_offset(int j, int c) {
    return (j - j % 2 + c / G % 2) * D + c / (2 * G) * (2 * G) + c % G * 2 + j % 2;
}

#if defined(STATICFORMER_INT8_X86)
// Rows [j0, j0 + rows) into paired values; a lone first row of a pair gets a zero partner (its
// probability is 0 too: the zero keeps the buffer defined).
template <int D, int G>
inline void store_values_paired(const std::int8_t* v, int rows, int j0, std::int8_t* values) noexcept {
    int r = 0;
    if (j0 % 2 == 1) {  // the second of a pair whose first came with the previous rows
        for (int c = 0; c < D; ++c) values[paired_offset<D, G>(j0, c)] = v[c];
        r = 1;
    }
    for (; r + 2 <= rows; r += 2) {  // whole pairs, 2G channels at a time
        std::int8_t* pair = values + (j0 + r) * D;
        for (int c = 0; c < D; c += 2 * G) {
            if constexpr (G == 16) {
                const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + r * D + c));
                const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + (r + 1) * D + c));
                // per 128-bit lane L: lo holds channels 16 L .. 16 L + 7 of a and b interleaved, hi the next 8
                const __m256i lo = _mm256_unpacklo_epi8(a, b), hi = _mm256_unpackhi_epi8(a, b);
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(pair + c), _mm256_permute2x128_si256(lo, hi, 0x20));
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(pair + D + c), _mm256_permute2x128_si256(lo, hi, 0x31));
            } else {
                const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v + r * D + c));
                const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v + (r + 1) * D + c));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(pair + c), _mm_unpacklo_epi8(a, b));
                _mm_storeu_si128(reinterpret_cast<__m128i*>(pair + D + c), _mm_unpackhi_epi8(a, b));
            }
        }
    }
    if (r < rows) {  // the first of a pair: its partner comes with the next rows, or stays zero
        for (int c = 0; c < D; ++c) {
            values[paired_offset<D, G>(j0 + r, c)] = v[r * D + c];
            values[paired_offset<D, G>(j0 + r + 1, c)] = 0;
        }
    }
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

#if defined(STATICFORMER_INT8_X86)
// The vectors of paired values of granule G: pairs(at) loads the G channel pairs at `at` as
// 16-bit pairs; dot adds pairs x probability pair into 32-bit lanes; store requantises G outputs.
template <int G>
struct value_pairs;

template <>
struct value_pairs<8> {
    using vec = __m256i;
    using params = rescale8_params;
    static vec zero() noexcept { return _mm256_setzero_si256(); }
    static vec broadcast(std::int32_t v) noexcept { return _mm256_set1_epi32(v); }
    static vec add(vec a, vec b) noexcept { return _mm256_add_epi32(a, b); }
    static vec pairs(const std::int8_t* at) noexcept {
        return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at)));
    }
    static vec dot(vec acc, vec pairs, vec pp) noexcept {
#if defined(STATICFORMER_INT8_AVX512VNNI)
        return _mm256_dpwssd_epi32(acc, pairs, pp);
#elif defined(STATICFORMER_INT8_AVXVNNI)
        return _mm256_dpwssd_avx_epi32(acc, pairs, pp);
#else
        return _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, pp));
#endif
    }
    static void store(std::int8_t* ctx, vec acc, vec m, const params& k) noexcept { store8_int8(ctx, rescale8(acc, m, k)); }
};

#if defined(STATICFORMER_INT8_AVX512VNNI)
template <>
struct value_pairs<16> {
    using vec = __m512i;
    using params = rescale16_params;
    static vec zero() noexcept { return _mm512_setzero_si512(); }
    static vec broadcast(std::int32_t v) noexcept { return _mm512_set1_epi32(v); }
    static vec add(vec a, vec b) noexcept { return _mm512_add_epi32(a, b); }
    static vec pairs(const std::int8_t* at) noexcept {
        return _mm512_maskz_cvtepi8_epi16(~__mmask32(0), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at)));
    }
    static vec dot(vec acc, vec pairs, vec pp) noexcept { return _mm512_dpwssd_epi32(acc, pairs, pp); }
    static void store(std::int8_t* ctx, vec acc, vec m, const params& k) noexcept {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(ctx), _mm512_maskz_cvtsepi32_epi8(all16, rescale16(acc, m, k)));
    }
};
#endif

// Paired values of granule G: for each block of G channels, keys j and j + 1 (j even) are one
// load of 2G bytes, sign-extended to 16-bit pairs and multiplied by the probability pair.
// Blocks x Chains accumulators: Chains independent chains per block (pairs round-robin), added
// at the end.
template <int HeadDim, int VStride, int G>
inline void attention_context_paired(const std::int16_t* p, const std::int8_t* v, int n,
                                     math::fixed_multiplier context, std::int8_t* ctx) noexcept {
    using P = value_pairs<G>;
    constexpr int Blocks = HeadDim / G, Chains = Blocks >= 8 ? 1 : 8 / Blocks;
    typename P::vec acc[Chains][Blocks];
#pragma GCC unroll 8
    for (int c = 0; c < Chains; ++c)
#pragma GCC unroll 16
        for (int b = 0; b < Blocks; ++b) acc[c][b] = P::zero();
    const auto pair = [&](int c, int j, std::int32_t probabilities) {
        const typename P::vec pp = P::broadcast(probabilities);
        const std::int8_t* row = v + j * VStride;  // channel block b: row + (b % 2) * VStride + (b / 2) * 2G
#pragma GCC unroll 16
        for (int b = 0; b < Blocks; ++b) acc[c][b] = P::dot(acc[c][b], P::pairs(row + b % 2 * VStride + b / 2 * 2 * G), pp);
    };
    int j = 0;
    for (; j + 2 * Chains <= n; j += 2 * Chains)
#pragma GCC unroll 8
        for (int c = 0; c < Chains; ++c) pair(c, j + 2 * c, probability_pair(p, j + 2 * c));
    for (; j + 2 <= n; j += 2) pair(0, j, probability_pair(p, j));
    if (j < n) pair(0, j, std::uint16_t(p[j]));  // the last key alone: its partner's probability is 0
    const typename P::params k(context.shift);
    const typename P::vec mv = P::broadcast(context.multiplier);
#pragma GCC unroll 16
    for (int b = 0; b < Blocks; ++b) {
        typename P::vec sum = acc[0][b];
#pragma GCC unroll 8
        for (int c = 1; c < Chains; ++c) sum = P::add(sum, acc[c][b]);
        P::store(ctx + G * b, sum, mv, k);
    }
}
#endif

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
            acc[u] = _mm512_dpbusd_epi32(acc[u], _mm512_maskz_loadu_epi32(m[u], kt + d * KStride + 4 * (j + 16 * u)), qb);
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

// Transposed keys: four key rows interleaved per vector of 64 keys.
template <int HeadDim, int KStride>
inline void attention_scores_transposed(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
    const __m512i bias = _mm512_set1_epi32(-128 * sum_bytes(q, HeadDim));
    const __m512i flip = _mm512_set1_epi8(-128);
    for (int j = 0; j < n; j += 64) {
        const int left = n - j;
        const __mmask64 m = mask64(left);
        __m512i acc[4] = {bias, bias, bias, bias};
        for (int d = 0; d < HeadDim; d += 4) {
            __m512i r[4];
            for (int k = 0; k < 4; ++k)
                r[k] = d + k < HeadDim ? _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, kt + (d + k) * KStride + j), flip)
                                       : _mm512_setzero_si512();
            // Per 128-bit lane L: t[u] holds keys 16 L + 4 u .. 16 L + 4 u + 3, four rows each.
            const __m512i a = _mm512_unpacklo_epi8(r[0], r[1]), b = _mm512_unpackhi_epi8(r[0], r[1]);
            const __m512i c = _mm512_unpacklo_epi8(r[2], r[3]), e = _mm512_unpackhi_epi8(r[2], r[3]);
            const __m512i qb = _mm512_set1_epi32(query4<HeadDim>(q, d));
            acc[0] = _mm512_dpbusd_epi32(acc[0], _mm512_unpacklo_epi16(a, c), qb);
            acc[1] = _mm512_dpbusd_epi32(acc[1], _mm512_unpackhi_epi16(a, c), qb);
            acc[2] = _mm512_dpbusd_epi32(acc[2], _mm512_unpacklo_epi16(b, e), qb);
            acc[3] = _mm512_dpbusd_epi32(acc[3], _mm512_unpackhi_epi16(b, e), qb);
        }
        // Transpose the 4 x 4 blocks of 128 bits: output u holds keys 16 u .. 16 u + 15.
        const __m512i u0 = _mm512_maskz_shuffle_i32x4(all16, acc[0], acc[1], 0x44),
                      u1 = _mm512_maskz_shuffle_i32x4(all16, acc[2], acc[3], 0x44);
        const __m512i u2 = _mm512_maskz_shuffle_i32x4(all16, acc[0], acc[1], 0xee),
                      u3 = _mm512_maskz_shuffle_i32x4(all16, acc[2], acc[3], 0xee);
        const __m512i out[4] = {
            _mm512_maskz_shuffle_i32x4(all16, u0, u1, 0x88), _mm512_maskz_shuffle_i32x4(all16, u0, u1, 0xdd),
            _mm512_maskz_shuffle_i32x4(all16, u2, u3, 0x88), _mm512_maskz_shuffle_i32x4(all16, u2, u3, 0xdd)};
        for (int u = 0; u < 4 && 16 * u < left; ++u)
            _mm512_mask_storeu_epi32(s + j + 16 * u, mask16(left - 16 * u), out[u]);
    }
}

template <int HeadDim, int KStride>
inline void attention_scores(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
    if constexpr (grouped_keys<HeadDim>) attention_scores_grouped<HeadDim, KStride>(q, kt, n, s);
    else attention_scores_transposed<HeadDim, KStride>(q, kt, n, s);
}

// Row-major values: two value rows of 16 bytes unpacked into 16-bit pairs per key pair.
template <int HeadDim, int VStride>
inline void attention_context_rows(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier context,
                                   std::int8_t* ctx) noexcept {
    const rescale16_params k(context.shift);
    const __m512i mv = _mm512_set1_epi32(context.multiplier);
    for (int d = 0; d < HeadDim; d += 16) {
        const __mmask16 m = mask16(HeadDim - d);
        // Key pairs round-robin over four accumulators (independent chains; integer sums are
        // exact in any order), added at the end.
        __m512i part[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
        const auto pair = [&](int j) {
            const __m128i r0 = _mm_maskz_loadu_epi8(m, v + j * VStride + d);
            const __m128i r1 = _mm_maskz_loadu_epi8(m, v + (j + 1) * VStride + d);
            const __m256i pairs = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi8(r0, r1)),
                                                          _mm_unpackhi_epi8(r0, r1), 1);
            const std::int32_t pp = std::int32_t(std::uint16_t(p[j]) | std::uint32_t(std::uint16_t(p[j + 1])) << 16);
            return _mm512_dpwssd_epi32(part[(j / 2) % 4], _mm512_maskz_cvtepi8_epi16(~__mmask32(0), pairs),
                                       _mm512_set1_epi32(pp));
        };
        int j = 0;
        for (; j + 8 <= n; j += 8) {
            part[0] = pair(j);
            part[1] = pair(j + 2);
            part[2] = pair(j + 4);
            part[3] = pair(j + 6);
        }
        for (; j + 2 <= n; j += 2) part[(j / 2) % 4] = pair(j);
        __m512i acc = _mm512_add_epi32(_mm512_add_epi32(part[0], part[1]), _mm512_add_epi32(part[2], part[3]));
        if (j < n) {
            const __m128i r0 = _mm_maskz_loadu_epi8(m, v + j * VStride + d);
            acc = _mm512_add_epi32(
                acc, _mm512_maskz_mullo_epi32(all16, _mm512_maskz_cvtepi8_epi32(all16, r0), _mm512_set1_epi32(p[j])));
        }
        _mm_mask_storeu_epi8(ctx + d, m, _mm512_maskz_cvtsepi32_epi8(all16, rescale16(acc, mv, k)));
    }
}

#elif defined(STATICFORMER_INT8_X86)

template <int HeadDim, int KStride>
inline void attention_scores(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
    int j = 0;
    for (; j + 16 <= n; j += 16) {
        __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();  // keys 0-3, 8-11 | 4-7, 12-15
        for (int d = 0; d < HeadDim; d += 2) {
            const __m256i r0 =
                _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(kt + d * KStride + j)));
            const __m256i r1 = d + 1 < HeadDim ? _mm256_cvtepi8_epi16(_mm_loadu_si128(
                                                     reinterpret_cast<const __m128i*>(kt + (d + 1) * KStride + j)))
                                               : _mm256_setzero_si256();
            const std::int32_t q1 = d + 1 < HeadDim ? q[d + 1] : 0;
            const __m256i qq =
                _mm256_set1_epi32(std::int32_t(std::uint16_t(q[d]) | std::uint32_t(std::uint16_t(q1)) << 16));
            lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(r0, r1), qq));
            hi = _mm256_add_epi32(hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(r0, r1), qq));
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(s + j), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(s + j + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
    }
    if (j < n) reference::attention_scores<HeadDim, KStride>(q, kt + j, n - j, s + j);
}

// Row-major values: two value rows of 8 bytes unpacked into 16-bit pairs per key pair.
template <int HeadDim, int VStride>
inline void attention_context_rows(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier context,
                                   std::int8_t* ctx) noexcept {
    constexpr int vectored = HeadDim / 8 * 8;
    const rescale8_params k(context.shift);
    const __m256i mv = _mm256_set1_epi32(context.multiplier);
    for (int d = 0; d < vectored; d += 8) {
        // Key pairs round-robin over four accumulators, as above.
        __m256i part[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
        const auto pair = [&](int j) {
            const __m128i r0 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(v + j * VStride + d));
            const __m128i r1 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(v + (j + 1) * VStride + d));
            const __m256i pairs = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(r0, r1));
            const std::int32_t pp = std::int32_t(std::uint16_t(p[j]) | std::uint32_t(std::uint16_t(p[j + 1])) << 16);
#if defined(STATICFORMER_INT8_AVXVNNI)
            return _mm256_dpwssd_avx_epi32(part[(j / 2) % 4], pairs, _mm256_set1_epi32(pp));
#else
            return _mm256_add_epi32(part[(j / 2) % 4], _mm256_madd_epi16(pairs, _mm256_set1_epi32(pp)));
#endif
        };
        int j = 0;
        for (; j + 8 <= n; j += 8) {
            part[0] = pair(j);
            part[1] = pair(j + 2);
            part[2] = pair(j + 4);
            part[3] = pair(j + 6);
        }
        for (; j + 2 <= n; j += 2) part[(j / 2) % 4] = pair(j);
        __m256i acc = _mm256_add_epi32(_mm256_add_epi32(part[0], part[1]), _mm256_add_epi32(part[2], part[3]));
        if (j < n) {
            const __m128i r0 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(v + j * VStride + d));
            acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(_mm256_cvtepi8_epi32(r0), _mm256_set1_epi32(p[j])));
        }
        store8_int8(ctx + d, rescale8(acc, mv, k));
    }
    if constexpr (vectored < HeadDim)
        reference::attention_context<HeadDim - vectored, VStride>(p, v + vectored, n, context, ctx + vectored);
}

#elif defined(STATICFORMER_INT8_ARM)

template <int HeadDim, int KStride>
inline void attention_scores(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
    int j = 0;
    for (; j + 16 <= n; j += 16) {
        int32x4_t acc[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
#if defined(STATICFORMER_INT8_SDOT)
        for (int d = 0; d < HeadDim; d += 4) {
            int8x16_t r[4];
            for (int k = 0; k < 4; ++k) r[k] = d + k < HeadDim ? vld1q_s8(kt + (d + k) * KStride + j) : vdupq_n_s8(0);
            // t[u] holds keys 4 u .. 4 u + 3, four rows each.
            const int16x8_t a = vreinterpretq_s16_s8(vzip1q_s8(r[0], r[1])),
                            b = vreinterpretq_s16_s8(vzip2q_s8(r[0], r[1]));
            const int16x8_t c = vreinterpretq_s16_s8(vzip1q_s8(r[2], r[3])),
                            e = vreinterpretq_s16_s8(vzip2q_s8(r[2], r[3]));
            const int8x16_t qb = vreinterpretq_s8_s32(vdupq_n_s32(query4<HeadDim>(q, d)));
            acc[0] = vdotq_s32(acc[0], vreinterpretq_s8_s16(vzip1q_s16(a, c)), qb);
            acc[1] = vdotq_s32(acc[1], vreinterpretq_s8_s16(vzip2q_s16(a, c)), qb);
            acc[2] = vdotq_s32(acc[2], vreinterpretq_s8_s16(vzip1q_s16(b, e)), qb);
            acc[3] = vdotq_s32(acc[3], vreinterpretq_s8_s16(vzip2q_s16(b, e)), qb);
        }
#else
        for (int d = 0; d < HeadDim; ++d) {
            const int8x16_t r = vld1q_s8(kt + d * KStride + j);
            const int16x8_t lo = vmovl_s8(vget_low_s8(r)), hi = vmovl_high_s8(r);
            acc[0] = vmlal_n_s16(acc[0], vget_low_s16(lo), q[d]);
            acc[1] = vmlal_high_n_s16(acc[1], lo, q[d]);
            acc[2] = vmlal_n_s16(acc[2], vget_low_s16(hi), q[d]);
            acc[3] = vmlal_high_n_s16(acc[3], hi, q[d]);
        }
#endif
        for (int u = 0; u < 4; ++u) vst1q_s32(s + j + 4 * u, acc[u]);
    }
    if (j < n) reference::attention_scores<HeadDim, KStride>(q, kt + j, n - j, s + j);
}

template <int HeadDim, int VStride>
inline void attention_context(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier context,
                              std::int8_t* ctx) noexcept {
    constexpr int vectored = HeadDim / 8 * 8;
    const rescale4_params k(context.shift);
    const int32x4_t mv = vdupq_n_s32(context.multiplier);
    for (int d = 0; d < vectored; d += 8) {
        int32x4_t lo = vdupq_n_s32(0), hi = vdupq_n_s32(0);
        for (int j = 0; j < n; ++j) {
            const int16x8_t r = vmovl_s8(vld1_s8(v + j * VStride + d));
            lo = vmlal_n_s16(lo, vget_low_s16(r), p[j]);
            hi = vmlal_high_n_s16(hi, r, p[j]);
        }
        store4_int8(ctx + d, rescale4(lo, mv, k));
        store4_int8(ctx + d + 4, rescale4(hi, mv, k));
    }
    if constexpr (vectored < HeadDim)
        reference::attention_context<HeadDim - vectored, VStride>(p, v + vectored, n, context, ctx + vectored);
}

#endif

#if defined(STATICFORMER_INT8_X86)
// Paired values where the kernel set stores them (store_values), else row-major.
template <int HeadDim, int VStride>
inline void attention_context(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier context,
                              std::int8_t* ctx) noexcept {
    constexpr int G = paired_granule<HeadDim, VStride>;
    if constexpr (G > 0) attention_context_paired<HeadDim, VStride, G>(p, v, n, context, ctx);
    else attention_context_rows<HeadDim, VStride>(p, v, n, context, ctx);
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
