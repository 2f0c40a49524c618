// staticformer: int8 LayerNorm with intrinsics (optimised; bit-identical to
// reference/layer_norm_int8.hpp): the row's sum and sum of squares with VPMADDWD; the
// statistics' isqrt and 2^40 / den in double arithmetic where it is exact (layer_norm_den,
// layer_norm_reciprocal); the outputs z = (centred * reciprocal + 2^31) >> 32 (64-bit lanes, or
// one 32 x 32-bit product per lane when the reciprocal fits 31 bits, as it does unless the
// row's spread is tiny), z * gamma + beta, the rescale by 1 (round_shift). Elements that fill
// no whole vector use masks (AVX-512) or the reference's element formula.
#pragma once

#include <cmath>
#include <type_traits>

#include "../isa/int8.hpp"
#include "../reference/layer_norm_int8.hpp"

namespace staticformer {
namespace kernels {
namespace simd_int8 {

#if defined(STATICFORMER_INT8_X86)

// floor(sqrt(v)), math::isqrt's value. Below 2^52, v is an exact double and the correctly
// rounded sqrt truncates to the floor or one off it, which the integer tests then fix.
inline std::uint32_t layer_norm_den(std::uint64_t v) noexcept {
    if (v >= (std::uint64_t(1) << 52)) return math::isqrt(v);
    std::uint64_t r = std::uint64_t(std::sqrt(double(v)));
    if (r * r > v) --r;
    if ((r + 1) * (r + 1) <= v) ++r;
    return std::uint32_t(r);
}

// 2^40 / den (integer division) for den >= 1. The quotient q = 2^40 / den is at most 2^40, so
// the rounded double quotient is within 2^-13 / den of q, while a q that is not an integer is at
// least 1 / den from the next one: truncating the double gives the integer quotient.
inline std::int64_t layer_norm_reciprocal(std::uint32_t den) noexcept {
    return std::int64_t(double(std::int64_t(1) << 40) / double(den));
}

// Rows go through LayerNorm a block at a time: the statistics of the block's rows first (each
// a chain of dependent steps: sums, square root, division; the rows' chains overlap), then their
// outputs, output(stats, x row, y row). y may equal x: a row is written only after the whole
// block's statistics are taken.
template <int N, class Stats, class Output>
inline void layer_norm_blocks(const std::int8_t* x, int rows, std::int8_t* y, Stats stats_of, Output output) noexcept {
    constexpr int block = 8;
    for (int r0 = 0; r0 < rows; r0 += block) {
        const int b = rows - r0 < block ? rows - r0 : block;
        reference::norm_stats_int8 stats[block];
        for (int r = 0; r < b; ++r) stats[r] = stats_of(x + (r0 + r) * N);
        for (int r = 0; r < b; ++r) output(stats[r], x + (r0 + r) * N, y + (r0 + r) * N);
    }
}

// The reference's layer_norm_stats from the row's sums.
template <int N>
inline reference::norm_stats_int8 layer_norm_stats(std::int32_t sum, std::int32_t sum_sq,
                                                   const layer_norm_int8<N>& p) noexcept {
    const std::int64_t variance = std::int64_t(N) * sum_sq - std::int64_t(sum) * sum;
    const std::uint32_t den = layer_norm_den(std::uint64_t(variance + p.eps));
    return {sum, den == 0 ? 0 : layer_norm_reciprocal(den)};
}

#endif

#if defined(STATICFORMER_INT8_AVX512VNNI)

// z for eight values, in the low halves of 64-bit lanes (N x: VPMULDQ; centred x reciprocal:
// VPMULLQ).
inline __m512i layer_norm_z8(__m128i x8, std::int64_t n, reference::norm_stats_int8 st) noexcept {
    const __m512i x64 = _mm512_maskz_cvtepi8_epi64(all8, x8);
    const __m512i centred = _mm512_sub_epi64(_mm512_maskz_mul_epi32(all8, x64, _mm512_set1_epi64(n)), _mm512_set1_epi64(st.sum));
    const __m512i prod = _mm512_add_epi64(_mm512_maskz_mullo_epi64(all8, centred, _mm512_set1_epi64(st.reciprocal)),
                                          _mm512_set1_epi64(std::int64_t(1) << 31));
    return _mm512_maskz_srai_epi64(all8, prod, 32);
}

// z for sixteen values when the reciprocal fits an int32 (den > 512, the usual case): centred
// = N x - sum in 32-bit lanes, the products by VPMULDQ on the even and the odd lanes, and
// (p + 2^31) >> 32 is the high half of each 64-bit sum.
inline __m512i layer_norm_z16(__m128i x16, std::int32_t n, reference::norm_stats_int8 st) noexcept {
    const __m512i x = _mm512_maskz_cvtepi8_epi32(all16, x16);
    const __m512i centred = _mm512_sub_epi32(_mm512_maskz_mullo_epi32(all16, x, _mm512_set1_epi32(n)), _mm512_set1_epi32(st.sum));
    const __m512i r = _mm512_set1_epi64(st.reciprocal), round = _mm512_set1_epi64(std::int64_t(1) << 31);
    const __m512i even = _mm512_add_epi64(_mm512_maskz_mul_epi32(all8, centred, r), round);
    const __m512i odd = _mm512_add_epi64(_mm512_maskz_mul_epi32(all8, _mm512_maskz_srli_epi64(all8, centred, 32), r), round);
    return _mm512_mask_blend_epi32(0xaaaa, _mm512_maskz_srli_epi64(all8, even, 32), odd);
}

// The sum and the sum of squares of a row, 32 values per step.
template <int N>
inline reference::norm_stats_int8 layer_norm_stats(const std::int8_t* x, const layer_norm_int8<N>& p) noexcept {
    const __m512i ones = _mm512_set1_epi16(1);
    __m512i sum = _mm512_setzero_si512(), sum_sq = _mm512_setzero_si512();
    for (int c = 0; c < N; c += 32) {
        const __m512i x32 = _mm512_maskz_cvtepi8_epi16(0xffffffff, _mm256_maskz_loadu_epi8(mask32(N - c), x + c));
        sum = _mm512_add_epi32(sum, _mm512_madd_epi16(x32, ones));
        sum_sq = _mm512_add_epi32(sum_sq, _mm512_madd_epi16(x32, x32));
    }
    return layer_norm_stats(hsum16(sum), hsum16(sum_sq), p);
}

template <int N>
inline void layer_norm(const std::int8_t* x, int rows, const layer_norm_int8<N>& p, std::int8_t* y) noexcept {
    static_assert(N < (1 << 22), "centred values N x - sum must fit 32 bits");
    const round_shift_params k(p.shift);
    const __m512i zero_point = _mm512_set1_epi32(p.output_zero_point);
    const __m512i low_halves = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const auto stats_of = [&p](const std::int8_t* xr) { return layer_norm_stats(xr, p); };
    // The row's outputs, z by z_of(16 values): the loop is written out once per form of z.
    const auto outputs = [&](const std::int8_t* xr, std::int8_t* yr, auto z_of) {
        for (int c = 0; c < N; c += 16) {
            const __mmask16 m = mask16(N - c);
            const __m512i z = z_of(_mm_maskz_loadu_epi8(m, xr + c));
            const __m512i gamma = _mm512_maskz_cvtepi16_epi32(all16, _mm256_maskz_loadu_epi16(m, p.gamma + c));
            const __m512i acc = _mm512_add_epi32(_mm512_maskz_mullo_epi32(all16, z, gamma), _mm512_maskz_loadu_epi32(m, p.beta + c));
            const __m512i q = _mm512_add_epi32(round_shift16(acc, k), zero_point);
            _mm_mask_storeu_epi8(yr + c, m, _mm512_maskz_cvtsepi32_epi8(all16, q));
        }
    };
    layer_norm_blocks<N>(x, rows, y, stats_of, [&](reference::norm_stats_int8 st, const std::int8_t* xr, std::int8_t* yr) {
        if (st.reciprocal <= 0x7fffffff) {
            outputs(xr, yr, [&](__m128i x16) { return layer_norm_z16(x16, N, st); });
        } else {
            outputs(xr, yr, [&](__m128i x16) {
                return _mm512_permutex2var_epi32(layer_norm_z8(x16, N, st), low_halves,
                                                 layer_norm_z8(_mm_srli_si128(x16, 8), N, st));
            });
        }
    });
}

#elif defined(STATICFORMER_INT8_X86)

// The sum and the sum of squares of a row, 16 values per step.
template <int N>
inline reference::norm_stats_int8 layer_norm_stats(const std::int8_t* x, const layer_norm_int8<N>& p) noexcept {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i sumv = _mm256_setzero_si256(), sum_sqv = _mm256_setzero_si256();
    int c = 0;
    for (; c + 16 <= N; c += 16) {
        const __m256i x16 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + c)));
        sumv = _mm256_add_epi32(sumv, _mm256_madd_epi16(x16, ones));
        sum_sqv = _mm256_add_epi32(sum_sqv, _mm256_madd_epi16(x16, x16));
    }
    std::int32_t sum = hsum8(sumv), sum_sq = hsum8(sum_sqv);
    for (; c < N; ++c) {
        sum += x[c];
        sum_sq += std::int32_t(x[c]) * x[c];
    }
    return layer_norm_stats(sum, sum_sq, p);
}

// z for 8 centred values: centred * reciprocal in 64-bit lanes from two signed 32 x 32-bit
// products, reciprocal = hi 2^31 + lo (AVX2 has no 64 x 64-bit multiply; with Narrow, hi = 0,
// the usual case: den > 512); z is the high half.
template <bool Narrow>
inline __m256i layer_norm_z8(__m256i centred, __m256i lo, __m256i hi) noexcept {
    const __m256i round = _mm256_set1_epi64x(std::int64_t(1) << 31);
    const __m256i odd = _mm256_srli_epi64(centred, 32);
    __m256i even_product = _mm256_add_epi64(_mm256_mul_epi32(centred, lo), round);
    __m256i odd_product = _mm256_add_epi64(_mm256_mul_epi32(odd, lo), round);
    if constexpr (!Narrow) {
        even_product = _mm256_add_epi64(even_product, _mm256_slli_epi64(_mm256_mul_epi32(centred, hi), 31));
        odd_product = _mm256_add_epi64(odd_product, _mm256_slli_epi64(_mm256_mul_epi32(odd, hi), 31));
    }
    return _mm256_blend_epi32(_mm256_srli_epi64(even_product, 32), odd_product, 0xaa);
}

template <int N>
inline void layer_norm(const std::int8_t* x, int rows, const layer_norm_int8<N>& p, std::int8_t* y) noexcept {
    static_assert(N < (1 << 22), "centred values N x - sum must fit 32 bits");
    const round_shift_params k(p.shift);
    const __m256i zero_point = _mm256_set1_epi32(p.output_zero_point);
    const __m256i n = _mm256_set1_epi32(N);
    const auto stats_of = [&p](const std::int8_t* xr) { return layer_norm_stats(xr, p); };
    // The row's outputs, z from the centred values by the narrow or the general product: the
    // loop is written out once per form.
    const auto outputs = [&](reference::norm_stats_int8 st, const std::int8_t* xr, std::int8_t* yr, auto narrow) {
        const __m256i sum = _mm256_set1_epi32(st.sum);
        const __m256i lo = _mm256_set1_epi64x(st.reciprocal & 0x7fffffff), hi = _mm256_set1_epi64x(st.reciprocal >> 31);
        constexpr int vectored = N / 8 * 8;  // compile-time loop bounds (GCC 12 warns of the tail's otherwise)
        for (int c = 0; c < vectored; c += 8) {
            const __m256i x8 = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(xr + c)));
            const __m256i z = layer_norm_z8<decltype(narrow)::value>(_mm256_sub_epi32(_mm256_mullo_epi32(x8, n), sum), lo, hi);
            const __m256i acc = _mm256_add_epi32(_mm256_mullo_epi32(z, load8_int16(p.gamma + c)),
                                                 _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.beta + c)));
            store8_int8(yr + c, _mm256_add_epi32(round_shift8(acc, k), zero_point));
        }
        for (int c = vectored; c < N; ++c) yr[c] = reference::layer_norm_output(xr[c], st, p, c);
    };
    layer_norm_blocks<N>(x, rows, y, stats_of, [&](reference::norm_stats_int8 st, const std::int8_t* xr, std::int8_t* yr) {
        if (st.reciprocal <= 0x7fffffff) outputs(st, xr, yr, std::true_type());
        else outputs(st, xr, yr, std::false_type());
    });
}

#else

using reference::layer_norm;  // no vector form on this target

#endif

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
