// staticformer: the int8 softmax on vector lanes (optimised; bit-identical to
// reference/softmax_int8.hpp's softmax), lane by lane:
//   u   = rescale(max - s[j], logits), any value >= 2^20 where it is >= 2^20 (capped_quotients)
//   e_j = exp2_neg_q16(u): table interval (u >> 8) & 255, linear interpolation by u & 255,
//         then a rounding shift by u >> 16 (0 beyond 15)
//   p_j = min((e_j * (2^46 / sum e) + 2^30) >> 31, 32767) (in 32-bit lanes: probability_factors)
// The table's end points come from V::exp2_table_pairs (a gather on AVX2, VPERMI2W lookups in
// registers on AVX-512). The sum of the exponentials is exact in any order; its reciprocal
// 2^46 / sum, once per row, takes one double division (softmax_reciprocal). A row is three
// steps (row_max, exponentials, probabilities), which softmax_rows runs for up to 8 rows at a
// time, step by step, so that the rows' dependent chains overlap; the exponentials' chain of
// some 40 operations runs on up to four vectors side by side (each_vector). Partial vectors are
// masked (AVX-512) or take the reference's element steps.
#pragma once

#include "../isa/int8.hpp"
#include "../reference/softmax_int8.hpp"

namespace staticformer {
namespace kernels {
namespace simd_int8 {

#if defined(STATICFORMER_INT8_X86)

// reference::softmax_reciprocal(sum) = floor(2^46 / sum) by one double division instead of three
// 32-bit ones in a chain.
inline std::int64_t softmax_reciprocal(std::int32_t sum) noexcept {
    return power_of_two_over_by_double<46>(std::uint32_t(sum));
}

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

// exp2_neg_q16 of N vectors of u, in place: the lanes in live[k], 0 in the others.
template <class V, int N>
inline void exp2_neg_q16(typename V::vec (&u)[N], const typename V::exp2_table& table,
                         const typename V::mask (&live)[N]) noexcept {
    using vec = typename V::vec;
    vec whole[N], r[N], a[N], b[N], v[N];
    each_vector<N>([&](int k) {
        whole[k] = V::template srli<16>(u[k]);
        r[k] = V::and_(u[k], V::set1(0xff));
    });
    each_vector<N>([&](int k) {
        const vec ab = V::exp2_table_pairs(V::and_(V::template srli<8>(u[k]), V::set1(0xff)), table);
        a[k] = V::and_(ab, V::set1(0xffff));
        b[k] = V::template srli<16>(ab);
    });
    each_vector<N>([&](int k) {
        const vec product = V::mullo(V::sub(a[k], b[k]), r[k]);
        v[k] = V::sub(a[k], V::template srai<8>(V::add(product, V::set1(128))));
    });
    // (v + 2^whole / 2) >> whole: v itself for whole = 0.
    each_vector<N>([&](int k) {
        const vec half = V::template srli<1>(V::sllv(V::set1(1), whole[k]));
        u[k] = V::shift_below16(V::add(v[k], half), whole[k], live[k]);
    });
}

// The exponentials of N vectors from s (the lanes in live[k]), stored over them; their sum.
template <class V, int N>
inline typename V::vec exponential_vectors(std::int32_t* s, const typename V::mask (&live)[N], typename V::vec max,
                                           typename V::vec m, const typename V::rescale_params& p,
                                           const typename V::exp2_table& table) noexcept {
    typename V::vec x[N];
    each_vector<N>([&](int k) { x[k] = V::sub(max, V::load_i32(s + V::lanes * k, live[k])); });
    V::capped_quotients(x, m, p);
    exp2_neg_q16<V>(x, table, live);
    typename V::vec sum = V::set1(0);
    each_vector<N>([&](int k) {
        V::store_i32(s + V::lanes * k, x[k], live[k]);
        sum = V::add(sum, x[k]);
    });
    return sum;
}

// The softmax's three steps for one row: the maximum; the exponentials (left in s) and their
// sum; the probabilities.
template <class V>
inline std::int32_t row_max(const std::int32_t* s, int n) noexcept {
    typename V::vec mv = V::set1(s[0]);
    const int done = each_block<V>(n, [&](int j, typename V::mask m) { mv = V::max_in(mv, V::load_i32(s + j, m), m); });
    std::int32_t max = V::hmax(mv);
    for (int j = done; j < n; ++j) max = s[j] > max ? s[j] : max;
    return max;
}

// Four vectors at a time, then two, then one (the last one masked, or the rest by the
// reference). The sum of integers is the same in any order.
template <class V>
inline std::int32_t exponentials(std::int32_t* s, int n, std::int32_t max, math::fixed_multiplier logits,
                                 const typename V::exp2_table& table) noexcept {
    constexpr int L = V::lanes;
    using mask = typename V::mask;
    const typename V::rescale_params p(logits.shift);
    const typename V::vec maxv = V::set1(max), m = V::set1(logits.multiplier);
    typename V::vec sumv = V::set1(0);
    const mask all = V::full();
    int j = 0;
    for (; j + 4 * L <= n; j += 4 * L)
        sumv = V::add(sumv, exponential_vectors<V, 4>(s + j, {all, all, all, all}, maxv, m, p, table));
    for (; j + 2 * L <= n; j += 2 * L)
        sumv = V::add(sumv, exponential_vectors<V, 2>(s + j, {all, all}, maxv, m, p, table));
    const int done = j + each_block<V>(n - j, [&](int i, mask live) {
        sumv = V::add(sumv, exponential_vectors<V, 1>(s + j + i, {live}, maxv, m, p, table));
    });
    std::int32_t sum = V::hsum(sumv);
    for (j = done; j < n; ++j) sum += s[j] = reference::softmax_exp(max, s[j], logits);
    return sum;
}

template <class V>
inline void probabilities(const std::int32_t* s, int n, std::int64_t reciprocal, std::int16_t* p) noexcept {
    const probability_factors f(reciprocal);
    const typename V::vec hi = V::set1(f.hi), lo = V::set1(f.lo);
    const int done = each_block<V>(n, [&](int j, typename V::mask m) {
        const typename V::vec e = V::load_i32(s + j, m);
        const typename V::vec a = V::add(V::mullo(e, hi), V::mulhi_u16(e, lo));
        V::store_i16(p + j, V::min(V::template srli<15>(V::add(a, V::set1(1 << 14))), V::set1(32767)), m);
    });
    for (int j = done; j < n; ++j) p[j] = reference::softmax_probability(s[j], reciprocal);
}

// One row: its three steps in turn.
inline void softmax(std::int32_t* s, int n, math::fixed_multiplier logits, std::int16_t* p) noexcept {
    using V = lanes;
    const typename V::exp2_table table;
    const std::int32_t sum = exponentials<V>(s, n, row_max<V>(s, n), logits, table);
    probabilities<V>(s, n, softmax_reciprocal(sum), p);
}

// Rows r < rows of scores s + r Stride into probabilities p + r Stride, up to 8 at a time step
// by step (every row's maximum, then every row's exponentials, then every row's probabilities),
// so that the rows' dependent chains overlap instead of following each other.
template <int Stride>
inline void softmax_rows(std::int32_t* s, int rows, int n, math::fixed_multiplier logits, std::int16_t* p) noexcept {
    using V = lanes;
    constexpr int block = 8;
    const typename V::exp2_table table;
    for (int r0 = 0; r0 < rows; r0 += block) {
        const int b = rows - r0 < block ? rows - r0 : block;
        std::int32_t max[block];
        std::int64_t reciprocal[block];
        for (int r = 0; r < b; ++r) max[r] = row_max<V>(s + (r0 + r) * Stride, n);
        for (int r = 0; r < b; ++r)
            reciprocal[r] = softmax_reciprocal(exponentials<V>(s + (r0 + r) * Stride, n, max[r], logits, table));
        for (int r = 0; r < b; ++r) probabilities<V>(s + (r0 + r) * Stride, n, reciprocal[r], p + (r0 + r) * Stride);
    }
}

#else

using reference::softmax;  // no vector form on this target
using reference::softmax_rows;

#endif

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
