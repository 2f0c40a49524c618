// staticformer: the stream's LayerNorm on vector lanes (optimised; bit-identical to
// reference/layer_norm_int8.hpp): the row's sum and 64-bit sum of squares from int16 pairs
// (VPMADDWD); the statistics' isqrt and 2^48 / den in double arithmetic where it is exact
// (layer_norm_den, layer_norm_reciprocal); the outputs z = ((centred * reciprocal + 2^39) >> 32)
// >> 8 (mul_round_high, with one product per lane when the reciprocal fits 31 bits, as it does
// unless the row's spread is tiny), z * gamma + beta, the rescale by 1 (round_shift). Partial
// vectors are masked (AVX-512) or take the reference's element formula.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
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

// 2^48 / den (integer division) for 1 <= den < 2^32.
inline std::int64_t layer_norm_reciprocal(std::uint32_t den) noexcept { return power_of_two_over_by_double<48>(den); }

// Rows go through LayerNorm a block at a time: the statistics of the block's rows first (each
// a chain of dependent steps: sums, square root, division; the rows' chains overlap), then their
// outputs, output(stats, x row, y row). y may equal x: a row is written only after the whole
// block's statistics are taken.
template <int N, class In, class Out, class Stats, class Output>
inline void layer_norm_blocks(const In* x, int rows, Out* y, Stats stats_of, Output output) noexcept {
    constexpr int block = 8;
    for (int r0 = 0; r0 < rows; r0 += block) {
        const int b = rows - r0 < block ? rows - r0 : block;
        reference::norm_stats_int8 stats[block];
        for (int r = 0; r < b; ++r) stats[r] = stats_of(x + (r0 + r) * N);
        for (int r = 0; r < b; ++r) output(stats[r], x + (r0 + r) * N, y + (r0 + r) * N);
    }
}

// (c * r + Round) >> 32 per lane for r = hi 2^31 + lo (0 <= lo < 2^31; hi = 0 with Narrow, the
// usual case): the products of the even and of the odd lanes in 64 bits, z the high half of
// each sum.
template <class V, bool Narrow, std::int64_t Round>
inline typename V::vec mul_round_high(typename V::vec c, typename V::vec lo, typename V::vec hi) noexcept {
    const typename V::vec round = V::set1_64(Round), odd = V::template srl64<32>(c);
    typename V::vec even_product = V::add64(V::mul_even(c, lo), round);
    typename V::vec odd_product = V::add64(V::mul_even(odd, lo), round);
    if constexpr (!Narrow) {
        even_product = V::add64(even_product, V::template shl64<31>(V::mul_even(c, hi)));
        odd_product = V::add64(odd_product, V::template shl64<31>(V::mul_even(odd, hi)));
    }
    return V::join_high(even_product, odd_product);
}

// From the stream (params_int8.hpp): the sum and the 64-bit sum of squares of a row, two int16
// values per 32-bit lane and step. A lane's two squares reach 2^31: read unsigned, widened into
// 64-bit sums of the even and the odd lanes.
template <class V, int N, bool Rms>
inline reference::norm_stats_int8 stream_norm_stats(const std::int16_t* x, const layer_norm_int8<N, Rms>& p) noexcept {
    using P = typename V::pairs;
    using vec = typename V::vec;
    const vec ones = V::set1(0x00010001), low_half = V::set1_64(0xffffffff);
    vec sumv = V::set1(0), squares = V::set1_64(0);
    const int done = each_block<P>(N, [&](int c, typename P::mask m) {
        const vec x2 = V::load_i16_pairs(x + c, m), sq = V::madd16(x2, x2);
        sumv = V::add(sumv, V::madd16(x2, ones));
        squares = V::add64(squares, V::add64(V::and_(sq, low_half), V::template srl64<32>(sq)));
    });
    std::int64_t lanes64[sizeof(vec) / 8];
    std::memcpy(lanes64, &squares, sizeof squares);
    std::int32_t sum = V::hsum(sumv);
    std::int64_t sum_sq = 0;
    for (std::int64_t v : lanes64) sum_sq += v;
    for (int c = done; c < N; ++c) {
        sum += x[c];
        sum_sq += std::int32_t(x[c]) * x[c];
    }
    const std::uint64_t radicand = reference::stream_radicand(sum, sum_sq, p);
    const int t = math::radicand_halvings(radicand);
    const std::uint32_t root = layer_norm_den(radicand >> (2 * t));
    return {Rms ? 0 : sum, root == 0 ? 0 : layer_norm_reciprocal(root) >> t};
}

// A stream row's outputs: z = ((centred * reciprocal + 2^39) >> 32) >> 8, z * gamma + beta, the
// rescale by 1 and the zero point, into int8 (saturated) or into the stream (clamped).
template <class V, bool Narrow, int N, bool Rms, class Out>
inline void stream_norm_row(reference::norm_stats_int8 st, const std::int16_t* xr, const layer_norm_int8<N, Rms>& p,
                            Out* yr) noexcept {
    using vec = typename V::vec;
    const typename V::shift_params k(p.shift);
    const vec zero_point = V::set1(p.output_zero_point), n = V::set1(N), sum = V::set1(st.sum);
    const vec lo = V::set1_64(st.reciprocal & 0x7fffffff), hi = V::set1_64(st.reciprocal >> 31);
    const vec low = V::set1(-32768), high = V::set1(32767);
    const int done = each_block<V>(N, [&](int c, typename V::mask m) {
        const vec centred = V::sub(V::mullo(V::load_i16(xr + c, m), n), sum);
        const vec z = V::template srai<8>(mul_round_high<V, Narrow, std::int64_t(1) << 39>(centred, lo, hi));
        const vec acc = V::add(V::mullo(z, V::load_i16(p.gamma + c, m)), V::load_i32(p.beta + c, m));
        const vec y = V::add(V::round_shift(acc, k), zero_point);
        if constexpr (sizeof(Out) == 1)
            V::store_i8(yr + c, y, m);
        else
            V::store_i16(yr + c, V::min(V::max(y, low), high), m);
    });
    // The tail, where the blocks leave one (written only then:
    // STATICFORMER_GUARD_GCC12_EMPTY_TAIL_BOUNDS, GCC 12 at -O3, a -Warray-bounds false positive
    // of GCC's meta-bug 56456: an out-of-range gamma[c] in the empty tail loop after unrolling).
    if constexpr (!V::masked && N % V::lanes != 0)
        for (int c = done; c < N; ++c)
            reference::store_norm_output(reference::stream_norm_value(xr[c], st, p, c), p.shift, p.output_zero_point,
                                         yr[c]);
    else
        static_cast<void>(done);
}

template <int N, bool Rms, class Out, class V = lanes>
inline void layer_norm(const std::int16_t* x, int rows, const layer_norm_int8<N, Rms>& p, Out* y) noexcept {
    static_assert(N <= 4096, "centred values N x - sum must fit 32 bits");
    const auto stats_of = [&p](const std::int16_t* xr) { return stream_norm_stats<V>(xr, p); };
    layer_norm_blocks<N>(x, rows, y, stats_of, [&](reference::norm_stats_int8 st, const std::int16_t* xr, Out* yr) {
        if (st.reciprocal <= 0x7fffffff) stream_norm_row<V, true>(st, xr, p, yr);
        else stream_norm_row<V, false>(st, xr, p, yr);
    });
}

#else

using reference::layer_norm;  // no vector form on this target

#endif

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
