// staticformer: integer arithmetic of the int8 path (normative). One requantisation routine,
// rescale(), with one rounding; an integer square root; the table behind the integer softmax.
// Everything here is integer-only: the int8 forward pass performs no floating-point operation.
#pragma once

#include <cstdint>

#include "../config.hpp"

namespace staticformer {
namespace math {

static_assert((-3 >> 1) == -2 && (std::int64_t(-3) >> 1) == -2,
              "the int8 path needs arithmetic right shifts of negative integers (floor division)");

// A real factor m * 2^-shift with 0 <= m < 2^31 and 1 <= shift <= 62 (the quantiser only
// produces such pairs and load_blob rejects others).
struct fixed_multiplier {
    std::int32_t multiplier;
    std::int32_t shift;
};

constexpr bool is_valid(std::int32_t multiplier, std::int32_t shift) noexcept {
    return multiplier >= 0 && shift >= 1 && shift <= 62;
}

// THE requantisation routine: round(acc * multiplier / 2^shift), ties toward +infinity, computed
// exactly in 64 bits and rounded once (no "doubling high multiply" followed by a second
// rounding shift), then saturated to +-2^30 so that adding a zero point cannot overflow.
constexpr std::int32_t rescale(std::int32_t acc, std::int32_t multiplier, std::int32_t shift) noexcept {
    const std::int64_t product = std::int64_t(acc) * multiplier;  // |product| < 2^62
    const std::int64_t q = (product + (std::int64_t(1) << (shift - 1))) >> shift;
    constexpr std::int64_t limit = std::int64_t(1) << 30;
    return std::int32_t(q > limit ? limit : q < -limit ? -limit : q);
}

constexpr std::int8_t saturate_int8(std::int32_t v) noexcept {
    return std::int8_t(v > 127 ? 127 : v < -128 ? -128 : v);
}

constexpr std::int16_t saturate_int16(std::int32_t v) noexcept {
    return std::int16_t(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
}

// v within [-limit, limit] (a16w8's clamps; 0 <= limit <= 32767).
constexpr std::int16_t clamp_to(std::int32_t v, std::int32_t limit) noexcept {
    return std::int16_t(v > limit ? limit : v < -limit ? -limit : v);
}

// An int8 output: rescale() to the output scale, plus its zero point, saturated.
constexpr std::int8_t requantize(std::int32_t acc, std::int32_t multiplier, std::int32_t shift,
                                 std::int32_t zero_point) noexcept {
    return saturate_int8(rescale(acc, multiplier, shift) + zero_point);
}

// requantize() as a 32-bit core computes it cheaply, for int16 multipliers (the int8 linear
// layers': 0 <= m < 2^15, so |acc * m| < 2^46) and 17 <= shift <= 47: floor(acc * m / 2^16) is
// a 32 x 16 multiply's high part (SMLAWB on the Arm DSP extension, which also adds the rounding
// term), and since 2^(shift-1) is a multiple of 2^16 the floors compose: round(acc * m / 2^shift)
// = (floor(acc * m / 2^16) + 2^(shift-17)) >> (shift - 16). No clamp: |that| <= 2^29 < 2^30.
struct int16_multiplier_requantizer {
    std::int32_t round;       // 2^(shift - 17)
    std::int32_t high_shift;  // shift - 16
    std::int32_t zero_point;

    static constexpr bool applies(std::int32_t shift) noexcept { return shift >= 17 && shift <= 47; }
    constexpr int16_multiplier_requantizer(std::int32_t shift, std::int32_t zp) noexcept
        : round(std::int32_t(1) << (shift - 17)), high_shift(shift - 16), zero_point(zp) {}
    // floor(acc * m / 2^16) + round, as SMLAWB computes it
    static constexpr std::int32_t high_part(std::int32_t acc, std::int32_t m, std::int32_t round) noexcept {
        return std::int32_t((std::int64_t(acc) * m) >> 16) + round;
    }
    // Before the int8 saturation (|value| <= 2^29 + 128).
    constexpr std::int32_t unsaturated(std::int32_t high) const noexcept { return (high >> high_shift) + zero_point; }
    constexpr std::int8_t operator()(std::int32_t acc, std::int32_t m) const noexcept {
        return saturate_int8(unsaturated(high_part(acc, m, round)));
    }
};

// requantize() for 32 <= shift <= 62 (an attention context's factor, 31-bit multipliers) in one
// 32 x 32 -> 64-bit multiply-accumulate and one shift: the rounding term 2^(shift-1) joins the
// product, and the floor shift by shift is one of the high word by shift - 32. No clamp:
// |acc * multiplier| < 2^62, so |result| <= 2^(62-shift) <= 2^30.
struct long_shift_requantizer {
    std::int64_t round;       // 2^(shift - 1)
    std::int32_t high_shift;  // shift - 32
    std::int32_t zero_point;

    static constexpr bool applies(std::int32_t shift) noexcept { return shift >= 32 && shift <= 62; }
    constexpr long_shift_requantizer(std::int32_t shift, std::int32_t zp) noexcept
        : round(std::int64_t(1) << (shift - 1)), high_shift(shift - 32), zero_point(zp) {}
    static constexpr std::int8_t apply(std::int32_t acc, std::int32_t multiplier, std::int64_t round,
                                       std::int32_t high_shift, std::int32_t zero_point) noexcept {
        const std::int64_t t = round + std::int64_t(acc) * multiplier;
        return saturate_int8((std::int32_t(t >> 32) >> high_shift) + zero_point);
    }
    constexpr std::int8_t operator()(std::int32_t acc, std::int32_t multiplier) const noexcept {
        return apply(acc, multiplier, round, high_shift, zero_point);
    }
};

// requantize(acc, m, shift, zero_point) for one factor and many accumulators: long_shift_requantizer
// when the shift allows (chosen once), else requantize itself.
struct fixed_requantizer {
    fixed_multiplier factor;
    std::int32_t zero_point;
    bool long_shift = long_shift_requantizer::applies(factor.shift);
    long_shift_requantizer fast{long_shift ? factor.shift : 32, zero_point};
    constexpr std::int8_t operator()(std::int32_t acc) const noexcept {
        return long_shift ? fast(acc, factor.multiplier) : requantize(acc, factor.multiplier, factor.shift, zero_point);
    }
    // y[i] = (*this)(acc[i]) for i < n, the choice made once (and the factor in locals: y's
    // stores may alias this object).
    constexpr void each(const std::int32_t* acc, int n, std::int8_t* y) const noexcept {
        const std::int32_t m = factor.multiplier, shift = factor.shift, zp = zero_point;
        if (long_shift) {
            const std::int64_t round = fast.round;
            const std::int32_t high_shift = fast.high_shift;
            for (int i = 0; i < n; ++i) y[i] = long_shift_requantizer::apply(acc[i], m, round, high_shift, zp);
        } else {
            for (int i = 0; i < n; ++i) y[i] = requantize(acc[i], m, shift, zp);
        }
    }
};

// rescale(d, multiplier, shift) for d >= 0 (a softmax's max - score) by the product's 32-bit
// halves, unsigned: for shift >= 32 the high half shifted (below 2^30: no clamp), else the two
// halves joined, clamped to 2^30. The M55 softmax computes it on four lanes
// (softmax_int8_mve.hpp); the M4 / M7 one clamps the distance instead (softmax_int8.hpp).
constexpr std::int32_t rescale_nonnegative(std::int32_t d, std::int32_t multiplier, std::int32_t shift) noexcept {
    const std::uint64_t t = std::uint64_t(std::uint32_t(d)) * std::uint32_t(multiplier) + (std::uint64_t(1) << (shift - 1));
    const std::uint32_t high = std::uint32_t(t >> 32), low = std::uint32_t(t);
    if (shift >= 32) return std::int32_t(high >> (shift - 32));
    if (high >> shift) return std::int32_t(1) << 30;
    const std::uint32_t q = (low >> shift) | (high << (32 - shift));
    return q > (std::uint32_t(1) << 30) ? std::int32_t(1) << 30 : std::int32_t(q);
}

// rescale(v, 1, shift) for 1 <= shift <= 31 (a LayerNorm's output step) without 64 bits:
// floor((v + 2^(shift-1)) / 2^shift) is v >> shift plus v's bit shift - 1 (whether its remainder
// reaches the half); no clamp, as |v| < 2^31 keeps the result within +-2^30.
constexpr std::int32_t rescale_unit(std::int32_t v, std::int32_t shift) noexcept {
    return (v >> shift) + ((v >> (shift - 1)) & 1);
}

// (centred * r + 2^31) >> 32 for 0 <= r <= 2^40 (a LayerNorm's reciprocal) and |centred| < 2^23,
// in 32-bit pieces: r = high * 2^32 + low with low read as a signed word (its top bit moved into
// high), so the product is one 32 x 32 -> 64 multiply-accumulate (SMLAL) and one 32-bit one.
struct q32_reciprocal {
    std::int32_t low, high;
    constexpr explicit q32_reciprocal(std::int64_t r) noexcept
        : low(std::int32_t(std::uint32_t(r))), high(std::int32_t(r >> 32) + (std::uint32_t(r) >> 31)) {}
    constexpr std::int32_t times(std::int32_t centred) const noexcept {
        const std::int64_t t = (std::int64_t(1) << 31) + std::int64_t(centred) * low;
        return std::int32_t(t >> 32) + centred * high;
    }
};

// floor(sqrt(v)), digit by digit: two bits of v per step, top first. After each step root is
// the square root of the bits taken so far and rem = those bits - root^2 <= 2 root. Each step's
// choice is a select, not a branch, and every step runs whatever v: the same instructions for
// every input, which firmware timing relies on.
namespace detail {
// The 16 steps of one 32-bit word of v. Not unrolled: -O3 would unroll a copy into every caller
// (twice the code).
template <class Rem>
constexpr void sqrt_steps(Rem& rem, std::uint32_t& root, std::uint32_t word) noexcept {
#pragma GCC unroll 1
    for (int i = 30; i >= 0; i -= 2) {
        rem = (rem << 2) | ((word >> i) & 3u);
        const Rem trial = (Rem(root) << 2) | 1u;  // (2 root + 1)^2 - (2 root)^2
        const std::uint32_t take = std::uint32_t(rem >= trial);
        rem -= trial & (Rem(0) - Rem(take));
        root = (root << 1) | take;
    }
}
}  // namespace detail

// 16 steps in 32-bit arithmetic (root < 2^16, rem < 2^17).
constexpr std::uint32_t isqrt32(std::uint32_t v) noexcept {
    std::uint32_t root = 0, rem = 0;
    detail::sqrt_steps(rem, root, v);
    return root;
}

// The fewest halvings t that bring v below 2^32 (v >> 2t < 2^32): the stream's LayerNorm takes
// the root of a radicand's top 32 bits (params_int8.hpp). CLZ of the high word, no loop.
constexpr int radicand_halvings(std::uint64_t v) noexcept {
    const std::uint32_t high = std::uint32_t(v >> 32);
    const int bits = high != 0 ? 64 - __builtin_clz(high) : 0;  // 33..64, or 0 below 2^32
    return bits > 32 ? (bits - 31) / 2 : 0;
}

// 32 steps: v's high word as isqrt32, the low word's steps with rem and the trial in 64 bits.
constexpr std::uint32_t isqrt(std::uint64_t v) noexcept {
    std::uint32_t root = 0, rem = 0;
    detail::sqrt_steps(rem, root, std::uint32_t(v >> 32));
    std::uint64_t wide = rem;
    detail::sqrt_steps(wide, root, std::uint32_t(v));
    return root;
}

// round(v / 2^n) for v >= 0 and 0 <= n <= 30, ties up (n = 0: the half is 0, v as it is).
constexpr std::int32_t round_shift(std::int32_t v, int n) noexcept {
    return (v + ((std::int32_t(1) << n) >> 1)) >> n;
}

// floor(high * 2^32 / d) for high < d (a 32-bit quotient): long division in base 2^16 with the
// divisor normalised (Knuth's algorithm D, as Hacker's Delight's divlu with a zero low word).
// Each 16-bit quotient digit is estimated by one 32-bit division and is at most 2 too large;
// the two corrections run as selects whatever the data, so the instructions are the same for
// every input where 32-bit division is an instruction (Cortex-M3 and later), unlike a 64-bit
// division, a library call whose time depends on the operands on 32-bit cores.
STATICFORMER_ALWAYS_INLINE constexpr std::uint32_t divide_shifted(std::uint32_t high, std::uint32_t d) noexcept {
    constexpr std::uint32_t b = 1u << 16;
    const int s = __builtin_clz(d);
    const std::uint32_t v = d << s, v1 = v >> 16, v0 = v & 0xffffu;
    const std::uint32_t u = high << s;  // < v: the top digits of the dividend
    // One quotient digit of (numerator * 2^16) / v, numerator < v.
    const auto digit = [&](std::uint32_t numerator) {
        std::uint32_t q = numerator / v1, rest = numerator - q * v1;
        for (int k = 0; k < 2; ++k) {
            const std::uint32_t too_big = std::uint32_t(rest < b) & (std::uint32_t(q >= b) | std::uint32_t(q * v0 > b * rest));
            q -= too_big;
            rest += v1 & (0u - too_big);
        }
        return q;
    };
    const std::uint32_t q1 = digit(u);
    const std::uint32_t middle = u * b - q1 * v;  // (u * 2^16) mod v, mod 2^32
    const std::uint32_t q0 = digit(middle);
    return q1 * b + q0;
}

// floor(2^K / d) for d >= 1 and 32 <= K <= 62: the quotient's high word by a 32-bit division,
// its low word by divide_shifted.
template <int K>
constexpr std::uint64_t power_of_two_over(std::uint32_t d) noexcept {
    static_assert(K >= 32 && K <= 62, "2^K / d for 32 <= K <= 62");
    constexpr std::uint32_t top = std::uint32_t(1) << (K - 32);
    const std::uint32_t high = top / d;
    return (std::uint64_t(high) << 32) | divide_shifted(top - high * d, d);
}

// ---- 2^-f, the integer softmax's exponential ----------------------------------------------
//
// exp2_table[i] = round(2^15 * 2^(-i/256)) for i = 0..256, computed at compile time (double
// arithmetic in the compiler, never at run time): 32768 down to 16384.
namespace detail {

constexpr double sqrt_newton(double v) {
    double x = v < 1.0 ? 1.0 : v;
    for (int i = 0; i < 64; ++i) x = 0.5 * (x + v / x);
    return x;
}

struct exp2_table_type {
    std::uint16_t value[257];
};

constexpr exp2_table_type make_exp2_table() {
    double step = 0.5;  // 2^(-1/256): the square root of 1/2, taken eight times
    for (int i = 0; i < 8; ++i) step = sqrt_newton(step);
    exp2_table_type t{};
    double x = 32768.0;
    for (int i = 0; i <= 256; ++i) {
        t.value[i] = std::uint16_t(x + 0.5);
        x *= step;
    }
    return t;
}

}  // namespace detail

inline constexpr detail::exp2_table_type exp2_table = detail::make_exp2_table();
static_assert(exp2_table.value[0] == 32768 && exp2_table.value[256] == 16384, "exp2_table end points");

// 2^(-u / 2^16) in Q15 for u >= 0: the fraction's top 8 bits pick a table interval, its low 8
// bits interpolate linearly, the integer part shifts (with rounding). 0 once below 2^-16.
constexpr std::int32_t exp2_neg_q16(std::int32_t u) noexcept {
    // Branch-free, so that every score costs the same: for whole > 15 the shift is whole mod 16
    // and the result is masked to 0.
    const int whole = u >> 16;
    const std::int32_t in_range = -std::int32_t(whole <= 15);
    const int i = (u >> 8) & 0xff, r = u & 0xff;
    const std::int32_t a = exp2_table.value[i], b = exp2_table.value[i + 1];
    const std::int32_t v = a - (((a - b) * r + 128) >> 8);
    return round_shift(v, whole & 15) & in_range;
}

// exp2_neg_q16(u) for every u >= 0 in fewer steps (the Cortex-M softmax's): one table word per
// interpolation, a | (a - b) << 16 (a - b <= 89), and the rounding shift of the whole part as
// ((2 v >> whole) + 1) >> 1, after u is clamped to whole 16 with i = r = 255, whose value rounds
// to 0 as the reference's mask makes every u >= 2^20 (FixedPoint.Exp2PairsIsExp2).
namespace detail {
struct exp2_pairs_type {
    std::uint32_t value[256];
};
constexpr exp2_pairs_type make_exp2_pairs() {
    exp2_pairs_type t{};
    for (int i = 0; i < 256; ++i)
        t.value[i] = std::uint32_t(exp2_table.value[i]) |
                     std::uint32_t(exp2_table.value[i] - exp2_table.value[i + 1]) << 16;
    return t;
}
}  // namespace detail
inline constexpr detail::exp2_pairs_type exp2_pairs = detail::make_exp2_pairs();

constexpr std::uint32_t exp2_pairs_clamp(std::uint32_t u) noexcept {
    return u < (std::uint32_t(16) << 16) ? u : (std::uint32_t(17) << 16) - 1;
}
// For a clamped u (u < 17 * 2^16).
constexpr std::int32_t exp2_neg_q16_clamped(std::uint32_t u) noexcept {
    const std::uint32_t t = exp2_pairs.value[(u >> 8) & 0xff];
    // (a - b) r + 128
    const std::int32_t step = (std::int32_t(t) >> 16) * std::int32_t(std::int16_t(u & 0xff)) + 128;
    const std::int32_t v = std::int32_t(t & 0xffff) - (step >> 8);
    return ((std::int32_t(std::uint32_t(v) << 1) >> (u >> 16)) + 1) >> 1;
}
constexpr std::int32_t exp2_neg_q16_pairs(std::uint32_t u) noexcept { return exp2_neg_q16_clamped(exp2_pairs_clamp(u)); }

}  // namespace math
}  // namespace staticformer
