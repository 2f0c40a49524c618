// staticformer: the int8 softmax with x86 intrinsics (optimised; bit-identical to
// reference/softmax_int8.hpp's softmax), lane by lane:
//   u   = rescale(max - s[j], logits), capped at 2^20     (softmax_u: d >= 0, the cap leaves e_j)
//   e_j = exp2_neg_q16(u): table interval (u >> 8) & 255, linear interpolation by u & 255,
//         then a rounding shift by u >> 16 (0 beyond 15)
//   p_j = min((e_j * (2^46 / sum e) + 2^30) >> 31, 32767) (in 32-bit lanes: probability_factors)
// AVX2: one 32-bit gather at byte offset 2i of the 16-bit table loads the interval's two end
// points (entries i and i + 1, i <= 255: never past entry 256); AVX-512: VPERMI2W lookups in the
// table held in registers (exp2_table_pairs). The sum of the exponentials is exact
// in any order; the division is the reference's (softmax_reciprocal), once per row; the tails
// use the reference's element steps. Elements that fill no whole
// vector use masks (AVX-512) or the reference's element formulas. Both instruction sets split
// a row into the same three steps (row_max, exponentials, probabilities), which softmax_rows
// runs for up to 8 rows at a time, step by step (AVX2 softmax kernel: tiny -10%, small -7%);
// the exponentials go through their chain of some 40 operations up to four vectors side by side
// (each_vector: one call on 128 rows of 32 / 128 scores, AVX-512 3.54 -> 3.22 / 12.2 -> 10.5 us,
// AVX2 3.92 -> 3.59 / 14.3 -> 13.6 us; the softmax kernel rows of `make bench`, the encoder's
// calls on the real scores: AVX-512 tiny -6%, small -14%, AVX2 even).
#pragma once

#include "../isa/int8.hpp"
#include "../reference/softmax_int8.hpp"

namespace staticformer {
namespace kernels {
namespace simd_int8 {

#if defined(STATICFORMER_INT8_X86)

// The probabilities' product in 32-bit lanes. With the reciprocal r = softmax_reciprocal(sum)
// <= 2^31 split as r = 2^16 hi + lo (hi <= 2^15, lo < 2^16) and an exponential e <= 2^15:
//   (e r + 2^30) >> 31 = (e hi + ((e lo + 2^30) >> 16)) >> 15        (floor of a floor)
//                      = (e hi + floor(e lo / 2^16) + 2^14) >> 15,
// e hi <= 2^30 by VPMULLD, floor(e lo / 2^16) by VPMULHUW (e and lo in the low 16 bits of each
// lane, zeros above), instead of two 64-bit products.
struct probability_factors {
    std::int32_t hi, lo;
    explicit probability_factors(std::int64_t reciprocal) noexcept
        : hi(std::int32_t(reciprocal >> 16)), lo(std::int32_t(reciprocal & 0xffff)) {}
};

// f(k) for k < N. The exponential step runs on N vectors at a time, each statement on all N
// before the next: N independent dependency chains side by side (as batches<N> in the float
// kernels) instead of one after another.
template <int N, class F>
inline void each_vector(F f) noexcept {
#pragma GCC unroll 8
    for (int k = 0; k < N; ++k) f(k);
}

#endif

#if defined(STATICFORMER_INT8_AVX512VNNI)

// The maskz forms throughout: see all16 in isa/x86_avx512.hpp (GCC 12's -Wuninitialized).

// The exponential's table, entries 0..255 in eight vectors of 32, loaded once per call.
struct exp2_table_vectors {
    __m512i part[8];
    exp2_table_vectors() noexcept {
        for (int k = 0; k < 8; ++k) part[k] = _mm512_loadu_si512(math::exp2_table.value + 32 * k);
    }
};

// (table[i], table[i + 1]) in the low and high halves of each 32-bit lane, for i in [0, 255]:
// each 16-bit half looks up its own index (i, then i + 1) with VPERMI2W in the four 64-entry
// pairs of vectors, picked by the index's bits 6 and 7; index 256 is the last end point, 16384.
// (A 32-bit gather at byte offset 2i loads the same pair, but its latency sat on each row's
// critical path: 25% of the softmax in the tiny encoder.)
inline __m512i exp2_table_pairs(__m512i i, const exp2_table_vectors& t) noexcept {
    const __m512i index = _mm512_add_epi32(i, _mm512_maskz_slli_epi32(all16, _mm512_add_epi32(i, _mm512_set1_epi32(1)), 16));
    const __m512i q0 = _mm512_permutex2var_epi16(t.part[0], index, t.part[1]);
    const __m512i q1 = _mm512_permutex2var_epi16(t.part[2], index, t.part[3]);
    const __m512i q2 = _mm512_permutex2var_epi16(t.part[4], index, t.part[5]);
    const __m512i q3 = _mm512_permutex2var_epi16(t.part[6], index, t.part[7]);
    const __mmask32 bit6 = _mm512_test_epi16_mask(index, _mm512_set1_epi16(64));
    const __mmask32 bit7 = _mm512_test_epi16_mask(index, _mm512_set1_epi16(128));
    const __mmask32 bit8 = _mm512_test_epi16_mask(index, _mm512_set1_epi16(256));
    const __m512i below256 = _mm512_mask_blend_epi16(bit7, _mm512_mask_blend_epi16(bit6, q0, q1),
                                                     _mm512_mask_blend_epi16(bit6, q2, q3));
    return _mm512_mask_blend_epi16(bit8, below256, _mm512_set1_epi16(std::int16_t(math::exp2_table.value[256])));
}

// exp2_neg_q16 of N vectors of u, in place: the lanes in tail[k], 0 in the others.
template <int N>
inline void exp2_neg_q16_16(__m512i (&u)[N], const exp2_table_vectors& table, const __mmask16 (&tail)[N]) noexcept {
    __m512i whole[N], r[N], a[N], b[N], v[N];
    each_vector<N>([&](int k) {
        whole[k] = _mm512_maskz_srli_epi32(all16, u[k], 16);
        r[k] = _mm512_and_si512(u[k], _mm512_set1_epi32(0xff));
    });
    each_vector<N>([&](int k) {
        const __m512i i = _mm512_and_si512(_mm512_maskz_srli_epi32(all16, u[k], 8), _mm512_set1_epi32(0xff));
        const __m512i ab = exp2_table_pairs(i, table);
        a[k] = _mm512_and_si512(ab, _mm512_set1_epi32(0xffff));
        b[k] = _mm512_maskz_srli_epi32(all16, ab, 16);
    });
    each_vector<N>([&](int k) {
        const __m512i product = _mm512_maskz_mullo_epi32(all16, _mm512_sub_epi32(a[k], b[k]), r[k]);
        const __m512i step = _mm512_maskz_srai_epi32(all16, _mm512_add_epi32(product, _mm512_set1_epi32(128)), 8);
        v[k] = _mm512_sub_epi32(a[k], step);
    });
    // (v + 2^whole / 2) >> whole: v itself for whole = 0.
    each_vector<N>([&](int k) {
        const __m512i power = _mm512_maskz_sllv_epi32(all16, _mm512_set1_epi32(1), whole[k]);
        const __m512i half = _mm512_maskz_srli_epi32(all16, power, 1);
        const __mmask16 live = _mm512_mask_cmple_epu32_mask(tail[k], whole[k], _mm512_set1_epi32(15));
        u[k] = _mm512_maskz_srlv_epi32(live, _mm512_add_epi32(v[k], half), whole[k]);
    });
}

// u = rescale(d, m, shift) of N vectors, in place, for the softmax's d = max - s[j] >= 0 and
// m >= 0 (one multiplier in every lane): the product and the quotient are never negative, and
// every u >= 2^20 gives the same exponential, 0 (whole > 15), so the quotient is capped at 2^20
// by one unsigned minimum instead of clamped to +-2^30, with a logical shift.
template <int N>
inline void softmax_u16(__m512i (&d)[N], __m512i m, const rescale16_params& p) noexcept {
    const __m512i cap = _mm512_set1_epi64(std::int64_t(1) << 20);
    const auto quotient = [&](__m512i lanes) {
        const __m512i product = _mm512_maskz_mul_epu32(all8, lanes, m);
        const __m512i q = _mm512_maskz_srl_epi64(all8, _mm512_add_epi64(product, p.round), p.count);
        return _mm512_maskz_min_epu64(all8, q, cap);
    };
    __m512i even[N], odd[N];
    each_vector<N>([&](int k) { even[k] = quotient(d[k]); });
    each_vector<N>([&](int k) { odd[k] = quotient(_mm512_maskz_srli_epi64(all8, d[k], 32)); });
    each_vector<N>([&](int k) { d[k] = join_halves16(even[k], odd[k]); });
}

// The exponentials of N vectors from s (the lanes in live[k]), stored over them; their sum.
template <int N>
inline __m512i exponential_vectors(std::int32_t* s, const __mmask16 (&live)[N], __m512i max, __m512i m,
                                   const rescale16_params& p, const exp2_table_vectors& table) noexcept {
    __m512i x[N];
    each_vector<N>([&](int k) { x[k] = _mm512_sub_epi32(max, _mm512_maskz_loadu_epi32(live[k], s + 16 * k)); });
    softmax_u16(x, m, p);
    exp2_neg_q16_16(x, table, live);
    __m512i sum = _mm512_setzero_si512();
    each_vector<N>([&](int k) {
        _mm512_mask_storeu_epi32(s + 16 * k, live[k], x[k]);
        sum = _mm512_add_epi32(sum, x[k]);
    });
    return sum;
}

// The softmax's three steps for one row: the maximum; the exponentials (left in s) and their
// sum; the probabilities.
inline std::int32_t row_max(const std::int32_t* s, int n) noexcept {
    __m512i mv = _mm512_set1_epi32(s[0]);
    for (int j = 0; j < n; j += 16) mv = _mm512_mask_max_epi32(mv, mask16(n - j), mv, _mm512_maskz_loadu_epi32(mask16(n - j), s + j));
    return hmax16(mv);
}

// The exponentials four vectors at a time, then two, then one (the last one masked). The sum of
// integers is the same in any order.
inline std::int32_t exponentials(std::int32_t* s, int n, std::int32_t max, math::fixed_multiplier logits,
                                 const exp2_table_vectors& table) noexcept {
    const rescale16_params p(logits.shift);
    const __m512i maxv = _mm512_set1_epi32(max), m = _mm512_set1_epi32(logits.multiplier);
    __m512i sumv = _mm512_setzero_si512();
    const auto add = [&sumv](__m512i sum) { sumv = _mm512_add_epi32(sumv, sum); };
    int j = 0;
    for (; j + 64 <= n; j += 64) add(exponential_vectors<4>(s + j, {all16, all16, all16, all16}, maxv, m, p, table));
    for (; j + 32 <= n; j += 32) add(exponential_vectors<2>(s + j, {all16, all16}, maxv, m, p, table));
    for (; j < n; j += 16) add(exponential_vectors<1>(s + j, {mask16(n - j)}, maxv, m, p, table));
    return hsum16(sumv);
}

inline void probabilities(const std::int32_t* s, int n, std::int64_t reciprocal, std::int16_t* p) noexcept {
    const probability_factors f(reciprocal);
    const __m512i hi = _mm512_set1_epi32(f.hi), lo = _mm512_set1_epi32(f.lo);
    for (int j = 0; j < n; j += 16) {
        const __mmask16 live = mask16(n - j);
        const __m512i e = _mm512_maskz_loadu_epi32(live, s + j);
        const __m512i a = _mm512_add_epi32(_mm512_maskz_mullo_epi32(all16, e, hi), _mm512_mulhi_epu16(e, lo));
        const __m512i q = _mm512_maskz_srli_epi32(all16, _mm512_add_epi32(a, _mm512_set1_epi32(1 << 14)), 15);
        const __m512i clamped = _mm512_maskz_min_epi32(all16, q, _mm512_set1_epi32(32767));
        _mm256_mask_storeu_epi16(p + j, live, _mm512_maskz_cvtepi32_epi16(all16, clamped));
    }
}

#elif defined(STATICFORMER_INT8_X86)

// exp2_neg_q16 of N vectors of u, in place.
template <int N>
inline void exp2_neg_q16_8(__m256i (&u)[N]) noexcept {
    __m256i whole[N], r[N], ab[N], v[N];
    each_vector<N>([&](int k) {
        whole[k] = _mm256_srli_epi32(u[k], 16);
        r[k] = _mm256_and_si256(u[k], _mm256_set1_epi32(0xff));
    });
    each_vector<N>([&](int k) {
        const __m256i i = _mm256_and_si256(_mm256_srli_epi32(u[k], 8), _mm256_set1_epi32(0xff));
        ab[k] = _mm256_i32gather_epi32(reinterpret_cast<const int*>(math::exp2_table.value), i, 2);
    });
    each_vector<N>([&](int k) {
        const __m256i a = _mm256_and_si256(ab[k], _mm256_set1_epi32(0xffff)), b = _mm256_srli_epi32(ab[k], 16);
        const __m256i product = _mm256_mullo_epi32(_mm256_sub_epi32(a, b), r[k]);
        v[k] = _mm256_sub_epi32(a, _mm256_srai_epi32(_mm256_add_epi32(product, _mm256_set1_epi32(128)), 8));
    });
    each_vector<N>([&](int k) {
        const __m256i half = _mm256_srli_epi32(_mm256_sllv_epi32(_mm256_set1_epi32(1), whole[k]), 1);
        const __m256i live = _mm256_cmpgt_epi32(_mm256_set1_epi32(16), whole[k]);  // whole <= 15 (whole >= 0)
        u[k] = _mm256_and_si256(live, _mm256_srlv_epi32(_mm256_add_epi32(v[k], half), whole[k]));
    });
}

// u = rescale(d, m, shift) of N vectors, in place, for d = max - s[j] >= 0 and m >= 0, as
// softmax_u16 (AVX-512): a logical shift, and quotients above 2^20 (exponential 0) made all ones
// (whole = 65535 > 15) by OR-ing in the comparison's mask, where rescale8 emulates the arithmetic
// shift and clamps.
template <int N>
inline void softmax_u8(__m256i (&d)[N], __m256i m, const rescale8_params& p) noexcept {
    const __m256i cap = _mm256_set1_epi64x(std::int64_t(1) << 20);
    const auto quotient = [&](__m256i lanes) {
        const __m256i q = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epu32(lanes, m), p.round), p.count);
        return _mm256_or_si256(q, _mm256_cmpgt_epi64(q, cap));
    };
    __m256i even[N], odd[N];
    each_vector<N>([&](int k) { even[k] = quotient(d[k]); });
    each_vector<N>([&](int k) { odd[k] = quotient(_mm256_srli_epi64(d[k], 32)); });
    each_vector<N>([&](int k) { d[k] = join_halves8(even[k], odd[k]); });
}

// The exponentials of N whole vectors from s, stored over them; their sum.
template <int N>
inline __m256i exponential_vectors(std::int32_t* s, __m256i max, __m256i m, const rescale8_params& p) noexcept {
    __m256i x[N];
    each_vector<N>([&](int k) {
        x[k] = _mm256_sub_epi32(max, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 8 * k)));
    });
    softmax_u8(x, m, p);
    exp2_neg_q16_8(x);
    __m256i sum = _mm256_setzero_si256();
    each_vector<N>([&](int k) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(s + 8 * k), x[k]);
        sum = _mm256_add_epi32(sum, x[k]);
    });
    return sum;
}

// The gather reads the table in memory: nothing to load per call.
struct exp2_table_vectors {};

// The softmax's three steps for one row, as for AVX-512.
inline std::int32_t row_max(const std::int32_t* s, int n) noexcept {
    const int whole = n / 8 * 8;
    std::int32_t max = s[0];
    if (whole > 0) {
        __m256i mv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s));
        for (int j = 8; j < whole; j += 8) mv = _mm256_max_epi32(mv, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + j)));
        max = hmax8(mv);
    }
    for (int j = whole; j < n; ++j) max = s[j] > max ? s[j] : max;
    return max;
}

// Whole vectors four, two, one at a time, as for AVX-512; the rest by the reference.
inline std::int32_t exponentials(std::int32_t* s, int n, std::int32_t max, math::fixed_multiplier logits,
                                 const exp2_table_vectors&) noexcept {
    const rescale8_params p(logits.shift);
    const __m256i maxv = _mm256_set1_epi32(max), m = _mm256_set1_epi32(logits.multiplier);
    __m256i sumv = _mm256_setzero_si256();
    int j = 0;
    for (; j + 32 <= n; j += 32) sumv = _mm256_add_epi32(sumv, exponential_vectors<4>(s + j, maxv, m, p));
    for (; j + 16 <= n; j += 16) sumv = _mm256_add_epi32(sumv, exponential_vectors<2>(s + j, maxv, m, p));
    for (; j + 8 <= n; j += 8) sumv = _mm256_add_epi32(sumv, exponential_vectors<1>(s + j, maxv, m, p));
    std::int32_t sum = hsum8(sumv);
    for (; j < n; ++j) sum += s[j] = reference::softmax_exp(max, s[j], logits);
    return sum;
}

inline void probabilities(const std::int32_t* s, int n, std::int64_t reciprocal, std::int16_t* p) noexcept {
    const int whole = n / 8 * 8;
    const probability_factors f(reciprocal);
    const __m256i hi = _mm256_set1_epi32(f.hi), lo = _mm256_set1_epi32(f.lo);
    for (int j = 0; j < whole; j += 8) {
        const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + j));
        const __m256i a = _mm256_add_epi32(_mm256_mullo_epi32(e, hi), _mm256_mulhi_epu16(e, lo));
        const __m256i q = _mm256_min_epi32(_mm256_srli_epi32(_mm256_add_epi32(a, _mm256_set1_epi32(1 << 14)), 15),
                                           _mm256_set1_epi32(32767));
        // q in [0, 32767]: the signed pack is exact; lanes 0-3 and 4-7 sit in the two halves.
        const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p + j), w);
    }
    for (int j = whole; j < n; ++j) p[j] = reference::softmax_probability(s[j], reciprocal);
}

#endif

#if defined(STATICFORMER_INT8_X86)

// One row: its three steps in turn.
inline void softmax(std::int32_t* s, int n, math::fixed_multiplier logits, std::int16_t* p) noexcept {
    const exp2_table_vectors table;
    const std::int32_t sum = exponentials(s, n, row_max(s, n), logits, table);
    probabilities(s, n, reference::softmax_reciprocal(sum), p);
}

// Rows r < rows of scores s + r Stride into probabilities p + r Stride, up to 8 at a time step
// by step (every row's maximum, then every row's exponentials, then every row's probabilities),
// so that the rows' dependent chains overlap instead of following each other.
template <int Stride>
inline void softmax_rows(std::int32_t* s, int rows, int n, math::fixed_multiplier logits, std::int16_t* p) noexcept {
    constexpr int block = 8;
    const exp2_table_vectors table;
    for (int r0 = 0; r0 < rows; r0 += block) {
        const int b = rows - r0 < block ? rows - r0 : block;
        std::int32_t max[block];
        std::int64_t reciprocal[block];
        for (int r = 0; r < b; ++r) max[r] = row_max(s + (r0 + r) * Stride, n);
        for (int r = 0; r < b; ++r)
            reciprocal[r] = reference::softmax_reciprocal(exponentials(s + (r0 + r) * Stride, n, max[r], logits, table));
        for (int r = 0; r < b; ++r) probabilities(s + (r0 + r) * Stride, n, reciprocal[r], p + (r0 + r) * Stride);
    }
}

#else

using reference::softmax;  // no vector form on this target
using reference::softmax_rows;

#endif

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
