// staticformer: building blocks the optimised kernels share: the tile heights of the linear layers
// (float and int8); for every int8 instruction set, four bytes as one 32-bit word (four int16 as
// one 64-bit word) and the traits of the linear layer's per-ISA step.
#pragma once

#include <cstdint>
#include <cstring>

namespace staticformer {
namespace kernels {

// The height of the first of the tiles of rows [r0, rows): as few tiles of at most Rows rows as
// will do, of near-equal heights, the shorter ones first (float and int8 linear layers alike).
template <int Rows, class Index>
constexpr Index first_tile_rows(Index r0, Index rows) noexcept {
    const Index tiles = (rows - r0 + Rows - 1) / Rows;
    return (rows - r0) / tiles;
}

namespace simd_int8 {

// floor(2^K / d) for 1 <= d < 2^32 by one double division (math::power_of_two_over's value
// without its chain of integer divisions). 2^K and d are exact doubles and the quotient q < 2^K
// <= 2^52, so the rounded double is within 2^(K-53) / d < 1 / d of q, while a q that is not an
// integer is at least 1 / d from the next one: truncating the double gives the integer quotient.
template <int K>
inline std::int64_t power_of_two_over_by_double(std::uint32_t d) noexcept {
    static_assert(K >= 0 && K <= 52, "2^K / d exact by truncation for K <= 52");
    return std::int64_t(double(std::int64_t(1) << K) / double(d));
}

inline std::int32_t load4(const std::int8_t* p) noexcept {
    std::int32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// The first n < 4 bytes of p, zero-extended to four (never reads past p + n).
inline std::int32_t load_partial4(const std::int8_t* p, int n) noexcept {
    std::int8_t b[4] = {0, 0, 0, 0};
    for (int i = 0; i < n; ++i) b[i] = p[i];
    return load4(b);
}

// a16w8: four int16 values as one 64-bit word, and the first n < 4 of them zero-extended.
inline std::int64_t load4(const std::int16_t* p) noexcept {
    std::int64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
inline std::int64_t load_partial4(const std::int16_t* p, int n) noexcept {
    std::int16_t h[4] = {0, 0, 0, 0};
    for (int i = 0; i < n; ++i) h[i] = p[i];
    return load4(h);
}

// q[d..d+3] as four bytes, zero beyond n: the query's four values of a four-row score step.
inline std::int32_t load4_within(const std::int8_t* q, int d, int n) noexcept {
    return d + 4 <= n ? load4(q + d) : load_partial4(q + d, n - d);
}

// Instruction sets without masked loads: partial vectors go to the reference's per-output routine.
struct unmasked {
    static constexpr bool masked = false;
    using mask = int;
    static mask full() noexcept { return 0; }
    static mask tail(int) noexcept { return 0; }
};

// f(k) for k < N: a step run on N vectors at a time, each statement on all N before the next,
// so that N independent dependency chains advance side by side instead of one after another.
template <int N, class F>
inline void each_vector(F f) noexcept {
#pragma GCC unroll 8
    for (int k = 0; k < N; ++k) f(k);
}

// The element-wise kernels (add, LayerNorm, softmax, attention context) run on `lanes`: 32-bit
// integer lanes of one instruction set (lanes16 AVX-512, lanes8 AVX2, lanes4 NEON), each a
// struct of the same static building blocks: lanes, masked, vec, mask, full(), tail(n),
// set1, add, sub, mullo, max, min, and_, srli<n>, srai<n>, sllv, srlv, load_i8 / i16 / i32
// (widened to 32 bits; masked sets load the lanes in the mask and zero the others),
// store_i8 (saturated) / i16 (values within int16) / i32, hsum, hmax, round_shift.
// each_block runs step(i, mask) on [0, n) a vector at a time; a masked set takes the last,
// partial vector too, an unmasked one stops before it. Returns where it stopped.
template <class V, class Step>
inline int each_block(int n, Step step) noexcept {
    int i = 0;
    for (; i + V::lanes <= n; i += V::lanes) step(i, V::full());
    if constexpr (V::masked) {
        if (i < n) step(i, V::tail(n - i));
        return n;
    }
    return i;
}

// Instruction sets that multiply signed by signed bytes: no row sums.
struct signed_products {
    static constexpr bool row_sum = false;
    static std::int32_t sum(const std::int8_t*, int) noexcept { return 0; }
};

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
