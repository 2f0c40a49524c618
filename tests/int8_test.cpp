// The int8 path. FixedPoint: the requantisation routine, integer square root and exponential
// against exact models. Int8Kernels: the reference kernels on saturating inputs (extreme
// values, all-equal softmax rows, zero-variance LayerNorm rows). EncoderBitExactInt8: every
// backend in this build reproduces the committed baseline reference outputs byte for byte.
// A16w8Kernels: the a16w8 reference kernels against their formulas and the limits that keep
// their sums in int32. Int8Encoder: padded rows, bad calls, memory. Int8Accuracy: SQNR against
// the f32 encoder on inputs the quantiser did not see. Int8Stages: the stage-by-stage comparison
// (quant/stages.hpp).
#include <gtest/gtest.h>

#include <staticformer/quant/stages.hpp>
#include <staticformer/staticformer.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "common/cases.hpp"
#include "common/files.hpp"
#include "common/int8_backend.hpp"
#include "common/options.hpp"

namespace {

using namespace sftest;
namespace math = sf::math;

// ---- fixed point ---------------------------------------------------------------------------

// rescale() by division instead of shifts: floor((acc * m + 2^(shift-1)) / 2^shift), saturated.
// (|acc * m| < 2^62, so the sum fits in 64 bits; no 128-bit type: it runs on 32-bit targets.)
std::int32_t rescale_model(std::int32_t acc, std::int32_t m, int shift) {
    const std::int64_t p = std::int64_t(acc) * m + (std::int64_t(1) << (shift - 1));
    const std::int64_t d = std::int64_t(1) << shift;
    std::int64_t q = p / d;               // truncates toward zero ...
    if (p % d != 0 && p < 0) --q;         // ... floor for negative p
    const std::int64_t limit = std::int64_t(1) << 30;
    return std::int32_t(q > limit ? limit : q < -limit ? -limit : q);
}

// r == floor(sqrt(v)) without overflow: r^2 <= v < (r + 1)^2.
bool is_floor_sqrt(std::uint64_t v, std::uint64_t r) {
    return r * r <= v && (r + 1) > v / (r + 1);
}

TEST(FixedPoint, RescaleMatchesExactModel) {
    splitmix64 g{7};
    const std::int32_t edges[] = {0, 1, -1, 2, -2, 3, 1 << 30, -(1 << 30), 2147483647, -2147483647 - 1};
    for (std::int32_t acc : edges)
        for (std::int32_t m : {0, 1, 32767, 1 << 30, 2147483647})
            for (int shift : {1, 2, 15, 31, 32, 45, 62}) ASSERT_EQ(math::rescale(acc, m, shift), rescale_model(acc, m, shift));
    for (int i = 0; i < 1000000; ++i) {
        const std::int32_t acc = std::int32_t(g.next() >> (32 + g.next() % 32));
        const std::int32_t signed_acc = (g.next() & 1) ? acc : -acc;
        const std::int32_t m = std::int32_t(g.next() >> (33 + g.next() % 31));
        const int shift = 1 + int(g.next() % 62);
        ASSERT_EQ(math::rescale(signed_acc, m, shift), rescale_model(signed_acc, m, shift))
            << signed_acc << " " << m << " " << shift;
    }
}

// The Cortex-M DSP kernels' requantisation (SMLAWB form): requantize()'s bytes wherever it applies,
// int16 multipliers and shifts 17..47, every edge of acc, multiplier, shift and zero point.
TEST(FixedPoint, Int16MultiplierRequantizerIsRequantize) {
    using rq = math::int16_multiplier_requantizer;
    EXPECT_FALSE(rq::applies(16));
    EXPECT_FALSE(rq::applies(48));
    splitmix64 g{11};
    const std::int32_t edges[] = {0, 1, -1, 2, -2, 3, 65535, -65536, 1 << 30, -(1 << 30), 2147483647, -2147483647 - 1};
    for (int shift = 17; shift <= 47; ++shift) {
        ASSERT_TRUE(rq::applies(shift));
        for (std::int32_t zp : {-128, -1, 0, 5, 127}) {
            const rq q(shift, zp);
            for (std::int32_t acc : edges)
                for (std::int32_t m : {0, 1, 2, 16384, 32767})
                    ASSERT_EQ(q(acc, m), math::requantize(acc, m, shift, zp)) << acc << " " << m << " " << shift;
            for (int i = 0; i < 20000; ++i) {
                const std::int32_t acc = std::int32_t(std::uint32_t(g.next() >> (32 + g.next() % 32)));
                const std::int32_t m = std::int32_t(g.next() % 32768);
                ASSERT_EQ(q(acc, m), math::requantize(acc, m, shift, zp)) << acc << " " << m << " " << shift;
            }
        }
    }
}

// The Cortex-M attention context's requantisation: requantize()'s bytes for shifts 32..62.
TEST(FixedPoint, LongShiftRequantizerIsRequantize) {
    using rq = math::long_shift_requantizer;
    EXPECT_FALSE(rq::applies(31));
    splitmix64 g{19};
    for (int shift = 32; shift <= 62; ++shift) {
        ASSERT_TRUE(rq::applies(shift));
        for (std::int32_t zp : {-128, 0, 127}) {
            const rq q(shift, zp);
            for (std::int32_t acc : {0, 1, -1, 1 << 30, -(1 << 30), 2147483647, -2147483647 - 1})
                for (std::int32_t m : {0, 1, 32767, 1 << 30, 2147483647})
                    ASSERT_EQ(q(acc, m), math::requantize(acc, m, shift, zp)) << acc << " " << m << " " << shift;
            for (int i = 0; i < 20000; ++i) {
                const std::int32_t acc = std::int32_t(std::uint32_t(g.next() >> (32 + g.next() % 32)));
                const std::int32_t m = std::int32_t(g.next() >> (33 + g.next() % 31));
                ASSERT_EQ(q(acc, m), math::requantize(acc, m, shift, zp)) << acc << " " << m << " " << shift;
            }
        }
    }
}

// The Cortex-M softmax's rescale of max - score: rescale()'s result for every d >= 0.
TEST(FixedPoint, RescaleNonnegativeIsRescale) {
    splitmix64 g{17};
    for (int shift = 1; shift <= 62; ++shift) {
        for (std::int32_t d : {0, 1, 2, 3, 65535, 1 << 24, 1 << 30, 2147483647})
            for (std::int32_t m : {0, 1, 32767, 1 << 30, 2147483647})
                ASSERT_EQ(math::rescale_nonnegative(d, m, shift), math::rescale(d, m, shift)) << d << " " << m << " " << shift;
        for (int i = 0; i < 20000; ++i) {
            const std::int32_t d = std::int32_t(g.next() >> (33 + g.next() % 31));
            const std::int32_t m = std::int32_t(g.next() >> (33 + g.next() % 31));
            ASSERT_EQ(math::rescale_nonnegative(d, m, shift), math::rescale(d, m, shift)) << d << " " << m << " " << shift;
        }
    }
}

// The Cortex-M LayerNorm's 32-bit steps: the reference's z and requantisation wherever they apply.
TEST(FixedPoint, LayerNormStepsIn32Bits) {
    splitmix64 g{13};
    for (int shift = 1; shift <= 31; ++shift) {
        for (std::int32_t v : {0, 1, -1, 2, -2, 3, -3, 1 << 30, -(1 << 30), 2147483647, -2147483647 - 1})
            ASSERT_EQ(math::rescale_unit(v, shift), math::rescale(v, 1, shift)) << v << " " << shift;
        for (int i = 0; i < 20000; ++i) {
            const std::int32_t v = std::int32_t(std::uint32_t(g.next() >> (32 + g.next() % 32)));
            ASSERT_EQ(math::rescale_unit(v, shift), math::rescale(v, 1, shift)) << v << " " << shift;
        }
    }
    const auto exact = [](std::int32_t centred, std::int64_t r) {  // the reference's formula
        return std::int32_t((std::int64_t(centred) * r + (std::int64_t(1) << 31)) >> 32);
    };
    const std::int64_t edges[] = {0, 1, 2, (std::int64_t(1) << 31) - 1, std::int64_t(1) << 31, (std::int64_t(1) << 32) - 1,
                                  std::int64_t(1) << 32, (std::int64_t(1) << 40) / 3, std::int64_t(1) << 40};
    for (std::int64_t r : edges)
        for (std::int32_t c : {0, 1, -1, 255, -255, (1 << 23) - 1, -(1 << 23) + 1})
            ASSERT_EQ(math::q32_reciprocal(r).times(c), exact(c, r)) << c << " " << r;
    for (int i = 0; i < 1000000; ++i) {
        const std::int64_t r = std::int64_t(g.next() >> 23);  // 0 .. 2^41 - 1
        if (r > (std::int64_t(1) << 40)) continue;
        const std::int32_t c = std::int32_t(g.next() % (1u << 24)) - (1 << 23) + 1;
        ASSERT_EQ(math::q32_reciprocal(r).times(c), exact(c, r)) << c << " " << r;
    }
}

// The Cortex-M softmax's exponential: one table word per interpolation and a clamp instead of
// the mask, exp2_neg_q16's value for every u < 2^24 and around every power of two up to 2^31.
TEST(FixedPoint, Exp2PairsIsExp2) {
    for (std::uint32_t u = 0; u < (std::uint32_t(1) << 24); ++u)
        ASSERT_EQ(math::exp2_neg_q16_pairs(u), math::exp2_neg_q16(std::int32_t(u))) << u;
    for (int k = 24; k <= 31; ++k)
        for (std::uint32_t u = (std::uint32_t(1) << k) - 4096; u - ((std::uint32_t(1) << k) - 4096) < 8192; ++u)
            if (u <= 0x7fffffffu) {
                ASSERT_EQ(math::exp2_neg_q16_pairs(u), math::exp2_neg_q16(std::int32_t(u))) << u;
            }
}

TEST(FixedPoint, RescaleRoundsTiesUpOnce) {
    EXPECT_EQ(math::rescale(5, 1, 1), 3);    // 2.5 -> 3
    EXPECT_EQ(math::rescale(-5, 1, 1), -2);  // -2.5 -> -2
    EXPECT_EQ(math::rescale(3, 1, 1), 2);    // 1.5 -> 2
    EXPECT_EQ(math::rescale(-3, 1, 1), -1);  // -1.5 -> -1
    // One rounding: 0.4999... does not become 0.5 through an intermediate rounding.
    EXPECT_EQ(math::rescale((1 << 20) - 1, 1 << 10, 31), 0);
    EXPECT_EQ(math::rescale(1 << 20, 1 << 10, 31), 1);
    EXPECT_EQ(math::requantize(1000, 1, 1, 0), 127);
    EXPECT_EQ(math::requantize(-1000, 1, 1, 0), -128);
    EXPECT_EQ(math::requantize(10, 1, 1, -120), -115);
    EXPECT_EQ(math::requantize(2147483647, 2147483647, 1, 127), 127);  // no overflow with a zero point
}

TEST(FixedPoint, IntegerSquareRoot) {
    for (std::uint64_t v = 0; v < 200000; ++v) {
        ASSERT_TRUE(is_floor_sqrt(v, math::isqrt(v))) << v;
    }
    splitmix64 g{11};
    for (int i = 0; i < 200000; ++i) {
        const std::uint64_t v = g.next() >> (1 + g.next() % 63);
        ASSERT_TRUE(is_floor_sqrt(v, math::isqrt(v))) << v;
    }
    EXPECT_EQ(math::isqrt(~std::uint64_t(0) >> 1), 3037000499u);
    EXPECT_EQ(math::isqrt(~std::uint64_t(0)), 4294967295u);
    EXPECT_EQ(math::isqrt(std::uint64_t(4294967295u) * 4294967295u), 4294967295u);
    EXPECT_EQ(math::isqrt(std::uint64_t(4294967295u) * 4294967295u - 1), 4294967294u);
    // isqrt32, LayerNorm's root when the radicand fits 32 bits.
    for (std::uint32_t v = 0; v < (1u << 20); ++v) ASSERT_EQ(math::isqrt32(v), math::isqrt(v)) << v;
    for (int i = 0; i < 200000; ++i) {
        const std::uint32_t v = std::uint32_t(g.next() >> (32 + g.next() % 32));
        ASSERT_EQ(math::isqrt32(v), math::isqrt(v)) << v;
    }
    for (std::uint32_t r : {65535u, 65534u, 46341u, 46340u, 32768u})
        for (std::uint32_t v : {r * r - 1, r * r, r * r + 2 * r})
            ASSERT_EQ(math::isqrt32(v), math::isqrt(v)) << v;
    EXPECT_EQ(math::isqrt32(0xffffffffu), 65535u);
}

// The branch-free forms firmware timing relies on give what the plain formulas give: the 64-bit
// division (also checked for every d below 2^32 once, by hand: tools-free, a loop like these), the early return of exp2_neg_q16 and round_shift's n == 0 case.
TEST(FixedPoint, PowerOfTwoOverIsTheDivision) {
    static_assert(math::power_of_two_over<46>(1u << 15) == (std::uint64_t(1) << 31), "");
    static_assert(math::power_of_two_over<40>(1) == (std::uint64_t(1) << 40), "");
    static_assert(math::power_of_two_over<40>(0xffffffffu) == 256, "");
    splitmix64 g{5};
    for (int i = 0; i < 300000; ++i) {
        const std::uint32_t any = std::uint32_t(g.next() >> (32 + g.next() % 32)) | 1u;
        ASSERT_EQ((math::power_of_two_over<40>(any)), (std::uint64_t(1) << 40) / any) << any;
        const std::uint32_t sum = std::uint32_t(1u << 15) + std::uint32_t(g.next() >> (33 + g.next() % 31));
        ASSERT_EQ((math::power_of_two_over<46>(sum)), (std::uint64_t(1) << 46) / sum) << sum;
    }
    for (std::uint32_t d = 1; d < (1u << 20); ++d) ASSERT_EQ((math::power_of_two_over<40>(d)), (std::uint64_t(1) << 40) / d);
    // Near every power of two (the normalisation shifts) and near every multiple of 2^16 (the
    // digit estimates), where the corrections are needed.
    for (int e = 15; e < 32; ++e)
        for (std::int64_t k = -70; k <= 70; ++k) {
            const std::uint32_t d = std::uint32_t((std::int64_t(1) << e) + k);
            ASSERT_EQ((math::power_of_two_over<40>(d)), (std::uint64_t(1) << 40) / d) << d;
            ASSERT_EQ((math::power_of_two_over<46>(d)), (std::uint64_t(1) << 46) / d) << d;
            ASSERT_EQ((math::divide_shifted(d / 3, d)), (std::uint64_t(d / 3) << 32) / d) << d;
            ASSERT_EQ((math::divide_shifted(d - 1, d)), (std::uint64_t(d - 1) << 32) / d) << d;
        }
    for (int i = 0; i < 300000; ++i) {
        const std::uint32_t d = std::uint32_t(g.next() >> 32) | 1u, high = std::uint32_t(g.next() >> 32) % d;
        ASSERT_EQ(math::divide_shifted(high, d), (std::uint64_t(high) << 32) / d) << high << " / " << d;
    }
    for (std::uint32_t d : {0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu}) {
        ASSERT_EQ((math::power_of_two_over<40>(d)), (std::uint64_t(1) << 40) / d) << d;
        ASSERT_EQ((math::power_of_two_over<46>(d)), (std::uint64_t(1) << 46) / d) << d;
    }
}

TEST(FixedPoint, BranchFreeExp2AndRoundShift) {
    const auto round_shift_plain = [](std::int32_t v, int n) {
        return n == 0 ? v : (v + (std::int32_t(1) << (n - 1))) >> n;
    };
    for (int n = 0; n <= 30; ++n)
        for (std::int32_t v : {0, 1, 2, 3, 32767, 32768, 1 << 29, 0x7fffffff >> 1})
            ASSERT_EQ(math::round_shift(v, n), round_shift_plain(v, n)) << v << " " << n;
    for (std::int32_t u = 0; u < (1 << 30); u += u < (20 << 16) ? 1 : 9973) {
        const int whole = u >> 16;
        const std::int32_t a = math::exp2_table.value[(u >> 8) & 0xff], b = math::exp2_table.value[((u >> 8) & 0xff) + 1];
        const std::int32_t v = a - (((a - b) * (u & 0xff) + 128) >> 8);
        ASSERT_EQ(math::exp2_neg_q16(u), whole > 15 ? 0 : round_shift_plain(v, whole)) << u;
    }
}

TEST(FixedPoint, Exp2TableIsRoundedPowersOfTwo) {
    for (int i = 0; i <= 256; ++i)
        ASSERT_EQ(math::exp2_table.value[i], std::uint16_t(std::lround(32768.0L * std::exp2(-(long double)i / 256))))
            << i;
}

TEST(FixedPoint, Exp2NegIsAccurateAndMonotonic) {
    std::int32_t previous = 32768;
    for (std::int32_t u = 0; u < (17 << 16); u += 7) {
        const std::int32_t e = math::exp2_neg_q16(u);
        ASSERT_LE(e, previous) << u;
        ASSERT_NEAR(double(e), 32768.0 * std::exp2(-double(u) / 65536.0), 1.0) << u;
        previous = e;
    }
    EXPECT_EQ(math::exp2_neg_q16(0), 32768);
    EXPECT_EQ(math::exp2_neg_q16(1 << 30), 0);
}

// ---- kernels on saturating inputs -----------------------------------------------------------

namespace k = sf::kernels::reference;

TEST(Int8Kernels, SoftmaxAllEqualRowIsUniform) {
    for (int n : {1, 2, 3, 7, 64, 1000}) {
        std::vector<std::int32_t> s(n, -123456);
        std::vector<std::int16_t> p(n);
        k::softmax(s.data(), n, {1 << 30, 40}, p.data());
        const int expected = n == 1 ? 32767 : int(std::lround(32768.0 / n));
        for (int j = 0; j < n; ++j) ASSERT_NEAR(p[j], expected, 1) << n;
    }
}

TEST(Int8Kernels, SoftmaxExtremeScores) {
    const std::int32_t big = 1 << 29;
    std::vector<std::int32_t> s = {big, -big, big, 0, -big, big - 1};
    std::vector<std::int16_t> p(s.size());
    k::softmax(s.data(), int(s.size()), {2147483647, 1}, p.data());  // a huge logit scale
    EXPECT_EQ(p[1], 0);
    EXPECT_EQ(p[4], 0);
    EXPECT_EQ(p[3], 0);
    EXPECT_EQ(p[0], 16384);
    EXPECT_EQ(p[2], 16384);
    EXPECT_EQ(p[5], 0);
}

TEST(Int8Kernels, LayerNormZeroVarianceRowGivesBeta) {
    static sf::layer_norm_int8<5> p{};
    p.eps = 0;
    p.shift = 8;
    p.output_zero_point = 3;
    for (int c = 0; c < 5; ++c) p.gamma[c] = std::int16_t(100 * (c + 1)), p.beta[c] = (c - 2) * 256;
    for (std::int16_t v : {std::int16_t(-32768), std::int16_t(0), std::int16_t(32767)}) {
        std::int16_t x[5] = {v, v, v, v, v};
        std::int8_t y[5];
        k::layer_norm(x, 1, p, y);
        for (int c = 0; c < 5; ++c) EXPECT_EQ(y[c], c - 2 + 3);
    }
    // An extreme two-valued row: within one step of the formula evaluated in double.
    const std::int16_t x[5] = {-32768, 32767, -32768, 32767, 32767};
    std::int8_t y[5];
    k::layer_norm(x, 1, p, y);
    double sum = 0, sum_sq = 0;
    for (std::int16_t v : x) sum += v, sum_sq += double(v) * v;
    for (int c = 0; c < 5; ++c) {
        const double z = (5.0 * x[c] - sum) / std::sqrt(5.0 * sum_sq - sum * sum);
        const double expected = (z * 256.0 * p.gamma[c] + p.beta[c]) / 256.0 + p.output_zero_point;
        EXPECT_NEAR(y[c], std::max(-128.0, std::min(127.0, expected)), 1.0) << c;
    }
}

TEST(Int8Kernels, LinearAccumulatesExactlyAtTheExtremes) {
    static sf::linear_int8<7, 3> p{};  // 7 inputs: the last group of four is padded with zeros
    for (int i = 0; i < 7; ++i)
        for (int o = 0; o < 3; ++o) p.w[i / 4][o][i % 4] = o == 0 ? -127 : o == 1 ? 127 : std::int8_t(i - 3);
    p.bias[0] = 1 << 30;
    p.bias[1] = -(1 << 30);
    p.bias[2] = 5;
    p.shift = 20;
    for (int o = 0; o < 3; ++o) p.multiplier[o] = 1;
    const std::int8_t x[7] = {-128, -128, -128, -128, -128, -128, -128};
    std::int8_t y[3];
    k::linear(x, 1, p, y);
    EXPECT_EQ(k::linear_accumulator(x, p, 0), (1 << 30) + 7 * 128 * 127);
    EXPECT_EQ(k::linear_accumulator(x, p, 1), -(1 << 30) - 7 * 128 * 127);
    EXPECT_EQ(k::linear_accumulator(x, p, 2), 5);  // -128 * (-3 - 2 - 1 + 0 + 1 + 2 + 3)
    EXPECT_EQ(y[0], 127);
    EXPECT_EQ(y[1], -128);
    EXPECT_EQ(y[2], 0);
}

// ---- a16w8: the reference kernels against their formulas in int64 / double -------------------

// round(v * m / 2^shift) half up, clamped to +-limit: the a16w8 outputs' formula, by division.
std::int16_t clamped_model(std::int64_t v, std::int32_t m, int shift, std::int32_t limit) {
    const std::int64_t q = rescale_model(std::int32_t(v), m, shift);
    return std::int16_t(std::max<std::int64_t>(-limit, std::min<std::int64_t>(limit, q)));
}

TEST(A16w8Kernels, LimitsKeepEverySumInInt32) {
    for (int in : {1, 4, 64, 255, 256, 257, 384, 1536, 4096, 65536}) {
        const std::int64_t l = sf::a16w8_limits::input_limit(in);
        EXPECT_LT(std::int64_t(in) * 128 * l + sf::a16w8_limits::bias_limit, std::int64_t(1) << 31) << in;
        if (l < 32767) {
            EXPECT_GE(std::int64_t(in) * 128 * (l + 1) + sf::a16w8_limits::bias_limit, std::int64_t(1) << 31)
                << in << ": the limit is the largest";
        }
        EXPECT_LE(l, 32767);
    }
    for (int dh : {2, 8, 16, 64, 128, 256, 1024}) {
        // a turned value: at most sqrt(2) l (1 + 2^-29) + 1/2 (|(cos, sin)| <= 2^14 (1 + 2^-28), rounded)
        const std::int64_t l = sf::a16w8_limits::score_limit(dh), turned = std::int64_t(std::sqrt(2.0) * l) + 1;
        EXPECT_LT(std::int64_t(dh) * turned * turned, std::int64_t(1) << 31) << dh;
    }
}

TEST(A16w8Kernels, LinearIsItsFormula) {
    constexpr int In = 7, Out = 5;
    static sf::linear_a16w8<In, Out> p{};
    splitmix64 g{91};
    const std::int32_t l = p.input_limit;
    for (int variant = 0; variant < 4; ++variant) {
        for (int i = 0; i < In; ++i)
            for (int o = 0; o < Out; ++o) p.w[i / 4][o][i % 4] = variant == 0 ? -128 : std::int8_t(g.next());
        for (int o = 0; o < Out; ++o) {
            p.bias[o] = variant == 0 ? p.bias_limit : std::int32_t(g.next() % (2u * p.bias_limit)) - p.bias_limit;
            p.multiplier[o] = std::int16_t(g.next() % 32768);
        }
        p.shift = 1 + int(g.next() % 40);
        p.output_limit = variant == 1 ? 1 : 1 + std::int32_t(g.next() % 32767);
        std::int16_t x[3 * In], y[3 * Out];
        for (int i = 0; i < 3 * In; ++i) x[i] = variant == 0 ? std::int16_t(-l) : std::int16_t(std::int32_t(g.next() % (2u * l + 1)) - l);
        k::linear(x, 3, p, y);
        for (int r = 0; r < 3; ++r)
            for (int o = 0; o < Out; ++o) {
                std::int64_t acc = p.bias[o];
                for (int i = 0; i < In; ++i) acc += std::int64_t(x[r * In + i]) * p.w[i / 4][o][i % 4];
                ASSERT_LT(std::abs(acc), std::int64_t(1) << 31);
                ASSERT_EQ(y[r * Out + o], clamped_model(acc, p.multiplier[o], p.shift, p.output_limit))
                    << "variant " << variant << " row " << r << " output " << o;
            }
    }
}

TEST(A16w8Kernels, ActivationInterpolatesItsTable) {
    static sf::activation_a16w8 a{};
    splitmix64 g{92};
    for (int i = 0; i < a.points; ++i) a.table[i] = std::int16_t(std::int32_t(g.next() % 65535) - 32767);
    a.table[0] = -32767, a.table[1] = 32767, a.table[a.points - 1] = 32767;
    for (std::int32_t x = -32768; x <= 32767; ++x) {
        const int i = (x + 32768) / 128, f = (x + 32768) % 128;
        const double exact = a.table[i] + (double(a.table[i + 1]) - a.table[i]) * f / 128;
        std::int16_t v = std::int16_t(x);
        k::activate(&v, 1, a);
        ASSERT_EQ(v, std::floor(exact + 0.5)) << x;  // round half up
    }
}

TEST(A16w8Kernels, GluIsItsFormula) {
    constexpr int F = 5;
    static sf::activation_a16w8 a{};
    for (int i = 0; i < a.points; ++i) a.table[i] = std::int16_t(i * 120 - 30000);
    const sf::gate_a16w8 p{23456, 20, 9000, 0};
    splitmix64 g{93};
    std::int16_t h[2 * 2 * F], in[2 * 2 * F];
    for (auto& v : in) v = std::int16_t(g.next());
    in[0] = -32768, in[F] = -32768;
    std::copy(in, in + 2 * 2 * F, h);
    k::glu<F>(h, 2, a, p);
    for (int r = 0; r < 2; ++r)
        for (int i = 0; i < F; ++i) {
            std::int16_t activated = in[2 * r * F + i];
            k::activate(&activated, 1, a);
            const std::int64_t product = std::int64_t(activated) * in[2 * r * F + F + i];
            ASSERT_EQ(h[r * F + i], clamped_model(product, p.multiplier, p.shift, p.output_limit)) << r << " " << i;
        }
}

TEST(A16w8Kernels, AttentionIsItsFormula) {
    constexpr int Dh = 8, S = 6, n = 5;
    const std::int32_t l = sf::a16w8_limits::score_limit(Dh);
    splitmix64 g{94};
    std::int16_t q[Dh], keys[S * Dh], kt[Dh * S], v[S * Dh], values[S * Dh], ctx[Dh];
    for (auto& x : q) x = std::int16_t(std::int32_t(g.next() % (2u * l + 1)) - l);
    for (auto& x : keys) x = std::int16_t(std::int32_t(g.next() % (2u * l + 1)) - l);
    for (auto& x : v) x = std::int16_t(g.next());
    q[0] = std::int16_t(-l), keys[0] = std::int16_t(-l);
    k::store_keys<Dh, Dh, S>(keys, n, 0, kt);
    k::store_values<Dh, Dh, S>(v, n, 0, values);
    std::int32_t s[S];
    k::attention_scores<Dh, S>(q, kt, n, s);
    for (int j = 0; j < n; ++j) {
        std::int64_t dot = 0;
        for (int d = 0; d < Dh; ++d) dot += std::int64_t(q[d]) * keys[j * Dh + d];
        ASSERT_EQ(s[j], dot) << j;
    }
    const std::int16_t p[n] = {32767, 32767, 1, 0, 16000};  // a sum past 2^15: the bound's worst case
    const sf::math::fixed_multiplier context{1 << 30, 45};
    k::attention_context<Dh, Dh>(p, values, n, context, 20000, ctx);
    for (int d = 0; d < Dh; ++d) {
        std::int64_t acc = 0;
        for (int j = 0; j < n; ++j) acc += std::int64_t(p[j]) * v[j * Dh + d];
        ASSERT_EQ(ctx[d], clamped_model(acc, context.multiplier, context.shift, 20000)) << d;
    }
}

TEST(A16w8Kernels, RotaryStreamAddAndNarrowAreTheirFormulas) {
    constexpr int Dh = 8;
    const std::int16_t cos[Dh / 2] = {16384, 0, -11585, 16383}, sin[Dh / 2] = {0, 16384, 11585, -1};
    const std::int16_t in[Dh] = {32767, -32768, 1234, -4321, 32767, 32767, -1, 0};
    std::int16_t x[Dh];
    std::copy(in, in + Dh, x);
    k::rotate<Dh, Dh, true>(x, cos, sin);  // interleaved pairs (2i, 2i + 1)
    for (int i = 0; i < Dh / 2; ++i) {
        const double a = in[2 * i], b = in[2 * i + 1];
        const double first = std::floor((a * cos[i] - b * sin[i]) / 16384 + 0.5);
        const double second = std::floor((b * cos[i] + a * sin[i]) / 16384 + 0.5);
        ASSERT_EQ(x[2 * i], std::max(-32768.0, std::min(32767.0, first))) << i;
        ASSERT_EQ(x[2 * i + 1], std::max(-32768.0, std::min(32767.0, second))) << i;
    }
    const std::int16_t branch[4] = {32767, -32768, 5, -5};
    std::int16_t stream[4] = {32000, -32000, 0, 7};
    const sf::stream_add_int8 add{0, 32767, 15, 0};
    k::add(stream, branch, 4, add);
    const std::int32_t expected[4] = {32767, -32768, 5, 2};  // 32000 + 32766 and -32000 - 32767 saturate
    for (int i = 0; i < 4; ++i) ASSERT_EQ(stream[i], expected[i]) << i;
    const sf::stream_narrow_a16w8 narrow{20000, 15, 12000, 0};
    std::int16_t y[4];
    k::narrow(branch, 4, narrow, y);
    for (int i = 0; i < 4; ++i) ASSERT_EQ(y[i], clamped_model(branch[i], 20000, 15, 12000)) << i;
}

// ---- the whole int8 encoder -----------------------------------------------------------------

// Both integer precisions (int8; a16w8: int16 activations), the reference and the vector
// kernel set, against the committed reference outputs.
template <class Cfg, class P>
void check_case(const char* name) {
    const std::string& dir = test_options().reference_dir;
    ASSERT_FALSE(dir.empty()) << "pass --reference-dir=DIR";
    const char* precision = precision_name<P>;
    for (input_kind kind : all_input_kinds) {
        for (int n : valid_lens<Cfg>()) {
            std::vector<unsigned char> expected;
            const std::string path = output_file(dir, name, precision, n, kind);
            ASSERT_TRUE(read_file(path, expected)) << "missing " << path;
            sf::status s;
            const auto ref = output_bytes<Cfg, P, sf::reference>(kind, n, s);
            ASSERT_EQ(s, sf::status::ok);
            EXPECT_EQ(ref, expected) << name << " " << precision << " reference, valid_len " << n << ", "
                                     << name_of(kind);
#if SFTEST_INT8_VECTOR
            const auto vec = output_bytes<Cfg, P, sftest::int8_vector>(kind, n, s);
            ASSERT_EQ(s, sf::status::ok);
            EXPECT_EQ(vec, expected) << name << " " << precision << " " SFTEST_INT8_VECTOR_NAME ", valid_len " << n
                                     << ", " << name_of(kind);
#endif
            for (std::size_t i = std::size_t(n) * Cfg::d_model * sizeof(stream_t); i < ref.size(); ++i)
                ASSERT_EQ(ref[i], 0) << "padded output is not the code of 0.0 at byte " << i;
        }
    }
}

#define BIT_EXACT_TEST(name)                                                \
    TEST(EncoderBitExactInt8, name) { check_case<name, sf::int8>(#name); } \
    TEST(EncoderBitExactA16w8, name) { check_case<name, sf::a16w8>(#name); }
STATICFORMER_TEST_CASES(BIT_EXACT_TEST)
#undef BIT_EXACT_TEST

// ---- the tile and the kernel set's layouts never change a result -----------------------------

template <class Backend, int Tile, class Cfg>
std::vector<stream_t> run_int8_tile(const std::vector<stream_t>& x, int valid_len, input_kind kind) {
    static sf::workspace_int8<Cfg, Tile> ws;
    std::vector<stream_t> y(x.size(), 9999);
    const auto mask = make_mask(kind, Cfg::seq_len, valid_len);
    EXPECT_EQ(sf::forward<Backend>(weights_for<Cfg, sf::int8>(), ws, x.data(), y.data(), valid_len, as_key_mask(mask)),
              sf::status::ok);
    return y;
}

// Tiles of 1 row, of 4 and 5 rows (odd first rows of a tile, a lone last row) and of the whole
// sequence, both backends, every valid length from 1 to seq_len: the reference's bytes at its
// default tile. The simd kernel set may keep keys and values in layouts of its own (values in
// pairs of rows when head_dim is a multiple of 16 on x86: paired_head_dim, paired_head_dim16).
template <class Cfg>
void check_int8_tiles(const char* name) {
    for (input_kind kind : all_input_kinds) {
        const std::vector<stream_t> x = make_input_int8<Cfg>(kind);
        for (int n = 1; n <= Cfg::seq_len; ++n) {
            const auto expected = run_int8_tile<sf::reference, sf::tile_for<Cfg, sf::reference>, Cfg>(x, n, kind);
            const std::vector<stream_t> outputs[] = {
                run_int8_tile<sf::reference, 5, Cfg>(x, n, kind),
#if SFTEST_INT8_VECTOR
                run_int8_tile<sftest::int8_vector, 1, Cfg>(x, n, kind),
                run_int8_tile<sftest::int8_vector, 4, Cfg>(x, n, kind),
                run_int8_tile<sftest::int8_vector, 5, Cfg>(x, n, kind),
                run_int8_tile<sftest::int8_vector, Cfg::seq_len, Cfg>(x, n, kind),
#endif
            };
            for (const auto& y : outputs)
                ASSERT_EQ(y, expected) << name << " output " << (&y - outputs) << ", valid_len " << n << ", "
                                       << name_of(kind);
        }
    }
}

using paired_head_dim = sf::encoder_config<64, 2, 96, 15, 2, sf::pre_norm, sf::gelu, sf::final_norm>;  // head_dim 32
using paired_head_dim16 = sf::encoder_config<48, 3, 64, 11, 1, sf::post_norm, sf::relu>;                // head_dim 16

TEST(Int8EncoderTile, NeverChangesResult) {
    check_int8_tiles<paired_head_dim>("paired_head_dim");      // seq_len 15: odd
    check_int8_tiles<paired_head_dim16>("paired_head_dim16");  // seq_len 11
    check_int8_tiles<long_gelu>("long_gelu");              // head_dim 20, seq_len 37, post-norm
}

// The stage table of Cfg quantised on its "normal" input, over that input and a masked one: the
// residual stream entering a pre-norm encoder is the input's quantisation and the output the
// encoder's, each computed here by the public calls; every tensor is recorded in both passes in
// the same order (a misaligned one would be near 0 dB), glu's only with glu. Returns the branch's
// SQNR.
template <class Cfg, class P = sf::int8>
double check_stages(const char* name) {
    sf::quant::calibrator<Cfg> c(weights_for<Cfg, sf::f32>());
    const auto x = make_input<Cfg>(input_kind::normal);
    require_ok(c.observe(x.data(), Cfg::seq_len), "calibrator::observe");
    static sf::encoder_weights<Cfg, P> w8;
    const sf::quant::report r = c.quantize(w8);
    sf::quant::stage_comparison<Cfg, P> stages(weights_for<Cfg, sf::f32>(), w8, r);
    std::vector<std::uint8_t> hidden(Cfg::seq_len, 0);
    hidden[1] = hidden[Cfg::seq_len - 2] = 1;
    const int valid = Cfg::seq_len - 1;
    EXPECT_EQ(stages.observe(x.data(), Cfg::seq_len), sf::status::ok);
    EXPECT_EQ(stages.observe(x.data(), valid, {hidden.data(), valid}), sf::status::ok);

    constexpr std::size_t n = std::size_t(Cfg::seq_len) * Cfg::d_model;
    static sf::workspace<Cfg> ws;
    static std::conditional_t<std::is_same<P, sf::int8>::value, sf::workspace_int8<Cfg>, sf::workspace_a16w8<Cfg>> ws8;
    std::vector<float> y(n), yq(n), xq(n);
    std::vector<stream_t> q(n), out(n);
    sf::quant::sqnr_sum input, output;
    for (int pass = 0; pass < 2; ++pass) {
        const int rows = pass ? valid : Cfg::seq_len;
        const sf::key_padding_mask mask = pass ? sf::key_padding_mask{hidden.data(), valid} : sf::key_padding_mask{};
        EXPECT_EQ(sf::forward<sf::reference>(weights_for<Cfg, sf::f32>(), ws, x.data(), y.data(), rows, mask), sf::status::ok);
        EXPECT_EQ(sf::quantize_input(w8, x.data(), q.data(), n), sf::status::ok);
        EXPECT_EQ(sf::forward<sf::reference>(w8, ws8, q.data(), out.data(), rows, mask), sf::status::ok);
        sf::dequantize_output(w8, out.data(), yq.data(), n);
        for (std::size_t i = 0; i < std::size_t(rows) * Cfg::d_model; ++i) {
            input.add(x[i], float((int(q[i]) - r.input.zero_point) * r.input.scale));  // (as the table records it)
            output.add(y[i], yq[i]);
        }
    }
    const sf::quant::stage_table& t = stages.table();
    EXPECT_NEAR(t.output.sqnr(), output.sqnr(), 1e-9) << name;
    if (Cfg::norm_first) {
        EXPECT_NEAR(t.layer[0][0].sqnr(), input.sqnr(), 1e-4) << name;
        EXPECT_EQ(t.layer[0][0].count, input.count) << name;  // each row once
    }
    for (int l = 0; l < Cfg::layers; ++l)
        for (int p = 0; p < int(sf::quant::point::count); ++p) {
            // glu: the gate's tensors, its activation inside the gate's op
            const bool glu_only = p == int(sf::quant::point::gate_in) || p == int(sf::quant::point::gate);
            const bool present = Cfg::is_gated ? p != int(sf::quant::point::activation) : !glu_only;
            EXPECT_EQ(t.layer[l][p].count > 0, present) << name << " layer " << l << " tensor " << p;
            if (t.layer[l][p].count > 0) {
                EXPECT_GE(t.layer[l][p].sqnr(), 12.0) << name << " layer " << l << " tensor " << p;
            }
        }
    for (int l = 0; l < Cfg::layers; ++l) {  // attention's rows, matched by (row, head) across the two orders
        EXPECT_GT(t.scores[l].count, 0u) << name;
        EXPECT_EQ(t.scores[l].count, t.probabilities[l].count) << name;
        EXPECT_GE(t.scores[l].sqnr(), 12.0) << name << " layer " << l << " scores";
        EXPECT_GE(t.probabilities[l].sqnr(), 12.0) << name << " layer " << l << " probabilities";
    }
    EXPECT_GE(t.branch.sqnr(), 12.0) << name;
    std::printf("  %-17s %-5s output %.2f dB, branch %.2f dB, input %.2f dB\n", name,
                std::is_same<P, sf::int8>::value ? "int8" : "a16w8", t.output.sqnr(), t.branch.sqnr(), input.sqnr());
    return t.branch.sqnr();
}

TEST(Int8Stages, EachTensorAgainstF32) {
    check_stages<odd_pre_gelu>("odd_pre_gelu");
    check_stages<paired_head_dim16>("paired_head_dim16");  // post-norm
    check_stages<swiglu_causal>("swiglu_causal");          // glu, causal
}

// a16w8's table: the same identities, and on each configuration a branch above int8's.
TEST(A16w8Stages, EachTensorAgainstF32) {
    EXPECT_GT((check_stages<odd_pre_gelu, sf::a16w8>("odd_pre_gelu")), check_stages<odd_pre_gelu>("odd_pre_gelu"));
    EXPECT_GT((check_stages<paired_head_dim16, sf::a16w8>("paired_head_dim16")),
              check_stages<paired_head_dim16>("paired_head_dim16"));
    EXPECT_GT((check_stages<swiglu_causal, sf::a16w8>("swiglu_causal")), check_stages<swiglu_causal>("swiglu_causal"));
}

// Bad calls leave the output untouched; in place gives the same bytes; padded rows are 0. For
// a16w8 too, whose default backend (the reference kernels so far) gives the reference's bytes.
template <class P>
void check_status_and_in_place() {
    using cfg = odd_pre_gelu;
    sf::encoder<cfg, P> enc{weights_for<cfg, P>()};
    sf::encoder<cfg, P, sf::reference> reference{weights_for<cfg, P>()};
    const auto x = make_input_int8<cfg>(input_kind::normal);
    std::vector<stream_t> y(x.size(), 42), z(x), r(x.size(), 7);
    for (int n : {0, -1, cfg::seq_len + 1}) EXPECT_EQ(enc.forward(x.data(), y.data(), n), sf::status::bad_valid_len);
    for (stream_t v : y) ASSERT_EQ(v, 42);
    EXPECT_EQ(enc.forward(nullptr, y.data(), 1), sf::status::null_pointer);
    EXPECT_EQ(enc.forward(z.data(), z.data() + 1, 1), sf::status::overlapping_buffers);
    ASSERT_EQ(enc.forward(x.data(), y.data(), 5), sf::status::ok);
    ASSERT_EQ(enc.forward(z.data(), z.data(), 5), sf::status::ok);
    ASSERT_EQ(reference.forward(x.data(), r.data(), 5), sf::status::ok);
    EXPECT_EQ(y, z);
    EXPECT_EQ(y, r);
    for (std::size_t i = 5 * cfg::d_model; i < y.size(); ++i) ASSERT_EQ(y[i], 0) << i;
}
TEST(Int8Encoder, StatusAndInPlace) { check_status_and_in_place<sf::int8>(); }
TEST(A16w8Encoder, StatusAndInPlace) { check_status_and_in_place<sf::a16w8>(); }

// kernels::decorated around an a16w8 set (profilers, stage comparisons) keeps its bytes and sees
// every op the block options call: the rotary turn, the gate, RMSNorm, grouped-query attention.
struct op_counts {
    static inline long calls[int(sf::kernels::op_kind::other) + 1] = {};
    template <sf::kernels::op_kind Op, class Call>
    static void run(const Call& call) {
        ++calls[int(Op)];
        call();
    }
};

TEST(A16w8Encoder, DecoratedSetSeesEveryOpAndKeepsTheBytes) {
    using cfg = rope_neobert;
    using K = sf::kernels::decorated<sf::a16w8_kernel_set<sf::default_backend>, op_counts>;
    using kind = sf::kernels::op_kind;
    const auto& w = weights_for<cfg, sf::a16w8>();
    sf::encoder<cfg, sf::a16w8> enc{w};
    static typename sf::precision_traits<sf::a16w8>::template workspace<cfg, sf::tile_for<cfg, sf::default_backend>> ws;
    const auto x = make_input_int8<cfg, sf::a16w8>(input_kind::normal);
    std::vector<stream_t> y(x.size()), z(x.size(), 5);
    ASSERT_EQ(enc.forward(x.data(), y.data(), cfg::seq_len), sf::status::ok);
    ASSERT_EQ(sf::forward_with<K>(w, ws, x.data(), z.data(), cfg::seq_len), sf::status::ok);
    EXPECT_EQ(y, z);
    for (kind k : {kind::linear, kind::scores, kind::softmax, kind::context, kind::layer_norm, kind::gate, kind::add,
                   kind::rotary, kind::other})
        EXPECT_GT(op_counts::calls[int(k)], 0) << int(k);
    // Queries and keys turned once per row and layer each.
    EXPECT_EQ(op_counts::calls[int(kind::rotary)], 2L * cfg::seq_len * cfg::layers);
}

// The demo configuration: int8 weights (scales, biases, tables included) at most 0.2723 x f32
// (0.270 before the layout's 64-byte units: 912 bytes of padding, 0.8%; 0.2719 before the int16
// stream's parameters: a second 64-byte unit per layer, 0.1%).
TEST(Int8Encoder, MemoryIsAQuarter) {
    using cfg = tiny_pre_gelu;
    using enc8 = sf::encoder<cfg, sf::int8, sf::reference>;  // the reference tile: 4 rows
    using enc32 = sf::encoder<cfg, sf::f32, sf::reference>;
    static_assert(enc8::weight_bytes * 10000 <= 2723 * enc32::weight_bytes, "int8 weights <= 0.2723 x f32");
    constexpr std::size_t D = 64, S = 32, F = 256, T = 4;
    static_assert(enc8::workspace_bytes == 2 * S * D + 3 * T * D + T * F + 4 * S + 2 * S,
                  "int8 workspace: keys, values, tiles, one row of scores and of probabilities");
    // Tiles of 8 rows or more (the simd default) batch 8 (row, head) pairs of attention.
    static_assert(sizeof(sf::workspace_int8<cfg, S>) == 2 * S * D + 3 * S * D + S * F + 8 * (4 * S + 2 * S), "");
    std::printf("demo configuration: weights f32 %zu B, int8 %zu B (%.4f x); workspace f32 %zu B, int8 %zu B\n",
                enc32::weight_bytes, enc8::weight_bytes, double(enc8::weight_bytes) / double(enc32::weight_bytes),
                enc32::workspace_bytes, enc8::workspace_bytes);
}

// a16w8: the quantiser's weights keep every limit, and is_valid finds a producer past its
// consumer's limit (an int32 sum could overflow), a table entry past the hidden layer's, a
// LayerNorm that could leave its block input's; its memory: the int8 weights' layout.
TEST(A16w8Encoder, ValidityChecksEveryLimit) {
    using cfg = tiny_pre_gelu;
    const auto w = std::make_unique<sf::encoder_weights<cfg, sf::a16w8>>();
    sf::quant::calibrator<cfg> c(weights_for<cfg>());
    std::vector<float> x(std::size_t(cfg::seq_len) * cfg::d_model);
    splitmix64 g{77};
    for (int k = 0; k < 2; ++k) fill_uniform(x.data(), x.size(), g, 2.0f), require_ok(c.observe(x.data(), cfg::seq_len), "observe");
    c.quantize(*w);
    ASSERT_TRUE(sf::is_valid(*w));
    auto& l = w->layer[1];
    const auto broken = [&](auto& field, auto value, const char* what) {
        const auto kept = field;
        field = value;
        EXPECT_FALSE(sf::is_valid(*w)) << what;
        field = kept;
        ASSERT_TRUE(sf::is_valid(*w)) << what;
    };
    broken(l.query.output_limit, sf::a16w8_limits::score_limit(cfg::head_dim) + 1, "queries past the score limit");
    broken(l.key.output_limit, 0, "a zero limit");
    broken(l.attention.context_limit, sf::a16w8_limits::input_limit(cfg::d_model) + 1, "context past out's limit");
    broken(l.activation.table[7], std::int16_t(sf::a16w8_limits::input_limit(cfg::d_ff) + 1), "table past ff2's limit");
    broken(l.activation.table[543], std::int16_t(1), "the table's padding");
    broken(l.norm2.gamma[3], std::int16_t(32767), "a LayerNorm past its block input's limit");
    broken(l.residual2.a_zero_point, 1, "a branch zero point");
    broken(l.ff2.bias[0], sf::a16w8_limits::bias_limit + 1, "a bias past its limit");
    using enc8 = sf::encoder<cfg, sf::int8, sf::reference>;
    using enc16 = sf::encoder<cfg, sf::a16w8, sf::reference>;
    static_assert(enc16::weight_bytes == enc8::weight_bytes + cfg::layers * (sizeof(sf::activation_a16w8) - 256),
                  "a16w8 weights: int8's, with the larger activation table");
    static_assert(enc16::workspace_bytes == 2 * enc8::workspace_bytes - cfg::seq_len * 4 - cfg::seq_len * 2,
                  "a16w8 workspace: int8's tensors at twice the bytes, the same scores and probabilities");
}

// SQNR of the dequantised int8 output against the f32 encoder, on inputs drawn like the
// calibration input but not seen by the quantiser.
template <class Cfg>
double sqnr_unseen(int seed) {
    const auto& w8 = weights_for<Cfg, sf::int8>();
    std::vector<float> x(std::size_t(Cfg::seq_len) * Cfg::d_model), y(x.size()), yq(x.size());
    splitmix64 g{std::uint64_t(seed)};
    fill_uniform(x.data(), x.size(), g, 2.0f);
    static sf::workspace<Cfg> ws;
    static sf::workspace_int8<Cfg> ws8;
    EXPECT_EQ(sf::forward<sf::reference>(weights_for<Cfg>(), ws, x.data(), y.data(), Cfg::seq_len), sf::status::ok);
    std::vector<stream_t> q(x.size()), out(x.size());
    EXPECT_EQ(sf::quantize_input(w8, x.data(), q.data(), q.size()), sf::status::ok);
    EXPECT_EQ(sf::forward<sf::reference>(w8, ws8, q.data(), out.data(), Cfg::seq_len), sf::status::ok);
    sf::dequantize_output(w8, out.data(), yq.data(), yq.size());
    double signal = 0, noise = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        signal += double(y[i]) * y[i];
        noise += double(y[i] - yq[i]) * (y[i] - yq[i]);
    }
    return 10.0 * std::log10(signal / noise);
}

#define SQNR_TEST(name)                                                    \
    TEST(Int8Accuracy, name) {                                              \
        const double db = sqnr_unseen<name>(99);                           \
        std::printf("int8 SQNR %-16s %6.2f dB (unseen input)\n", #name, db); \
        EXPECT_GE(db, 25.0);                                               \
    }
STATICFORMER_TEST_CASES(SQNR_TEST)
#undef SQNR_TEST

}  // namespace
