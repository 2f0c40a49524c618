// The portable approximations: accurate against libm in double precision, and identical
// between scalar and batch evaluation over a dense sweep of inputs.
#include <gtest/gtest.h>

#include <staticformer/staticformer.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "common/compare.hpp"

namespace {

namespace sf = staticformer;
using ops = sf::math::scalar_ops;

#ifndef SFTEST_SWEEP_STEP
#define SFTEST_SWEEP_STEP 97
#endif

// Every SFTEST_SWEEP_STEP-th float between lo and hi (by bit pattern, so all exponents are covered).
std::vector<float> sweep(float lo, float hi) {
    constexpr std::uint32_t step = SFTEST_SWEEP_STEP;
    std::vector<float> v;
    for (float x = lo; x < hi;) {
        v.push_back(x);
        std::uint32_t u;
        std::memcpy(&u, &x, 4);
        u = x < 0 ? (u > step + 0x80000000u ? u - step : 0) : u + step;
        std::memcpy(&x, &u, 4);
    }
    return v;
}

TEST(Approx, ExpRelativeErrorWithinFourUlp) {
    double worst = 0;
    for (float x : sweep(-87.0f, 88.0f)) {
        const double exact = std::exp(double(x));
        const double got = sf::math::exp<ops>(x);
        const double ulp = std::ldexp(1.0, std::ilogb(exact) - 23);
        worst = std::max(worst, std::fabs(got - exact) / ulp);
    }
    EXPECT_LE(worst, 4.0);
    std::printf("exp: worst error %.2f ulp\n", worst);
}

TEST(Approx, ExpNeverSubnormalAndClamped) {
    for (float x : {-87.0f, -100.0f, -1e30f, -std::numeric_limits<float>::infinity()}) {
        const float e = sf::math::exp<ops>(x);
        EXPECT_TRUE(std::isnormal(e)) << x;
        EXPECT_LT(e, 2e-38f) << x;
    }
    EXPECT_TRUE(std::isfinite(sf::math::exp<ops>(1e30f)));
    EXPECT_EQ(sf::math::exp<ops>(0.0f), 1.0f);
}

TEST(Approx, GeluAbsoluteErrorSmall) {
    double worst = 0;
    for (float x : sweep(-30.0f, 30.0f)) {
        const double exact = 0.5 * double(x) * (1.0 + std::erf(double(x) / std::sqrt(2.0)));
        const double got = sf::math::gelu<ops>(x);
        worst = std::max(worst, std::fabs(got - exact) / std::max(1.0, std::fabs(double(x))));
    }
    EXPECT_LE(worst, 3e-7);
    std::printf("gelu: worst error %.3g * max(1, |x|)\n", worst);
}

TEST(Approx, GeluTanhAbsoluteErrorSmall) {
    double worst = 0;
    for (float x : sweep(-30.0f, 30.0f)) {
        const double xd = x;
        const double exact = 0.5 * xd * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (xd + 0.044715 * xd * xd * xd)));
        const double got = sf::math::gelu_tanh<ops>(x);
        worst = std::max(worst, std::fabs(got - exact) / std::max(1.0, std::fabs(xd)));
    }
    EXPECT_LE(worst, 3e-7);
    std::printf("gelu_tanh: worst error %.3g * max(1, |x|)\n", worst);
}

TEST(Approx, SiluAbsoluteErrorSmall) {
    double worst = 0;
    for (float x : sweep(-100.0f, 100.0f)) {
        const double exact = double(x) / (1.0 + std::exp(-double(x)));
        const double got = sf::math::silu<ops>(x);
        worst = std::max(worst, std::fabs(got - exact) / std::max(1.0, std::fabs(double(x))));
    }
    EXPECT_LE(worst, 3e-7);
    std::printf("silu: worst error %.3g * max(1, |x|)\n", worst);
    EXPECT_EQ(sf::math::silu<ops>(0.0f), 0.0f);
    EXPECT_LE(std::fabs(sf::math::silu<ops>(-1e30f)), 1e-8f);  // the clamped exponential: nearly 0
}

#if STATICFORMER_HAS_SIMD
using sf::kernels::simd::batch;
using sf::kernels::simd::batch_ops;
using sf::kernels::simd::width;

template <class ScalarF, class BatchF>
void check_same(const std::vector<float>& xs, ScalarF scalar, BatchF vector, const char* what) {
    std::vector<float> a(xs.size()), b(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) a[i] = scalar(xs[i]);
    std::size_t i = 0;
    for (; i + width <= xs.size(); i += width) vector(batch::load_unaligned(xs.data() + i)).store_unaligned(b.data() + i);
    for (; i < xs.size(); ++i) b[i] = scalar(xs[i]);
    EXPECT_TRUE(sftest::bit_equal(a.data(), b.data(), a.size())) << what;
}

// batch_ops::max / min (MAXPS / MINPS on x86) against the scalar ops' a > b ? a : b and
// a < b ? a : b on the pairs where max / min instructions differ: signed zeros, NaNs, infinities.
TEST(Approx, BatchMaxMinEqualScalar) {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    const float values[] = {0.0f, -0.0f, nan, -nan, inf, -inf, 1.0f, -1.0f, std::numeric_limits<float>::denorm_min()};
    for (float a : values)
        for (float b : values) {
            float lanes_max[width], lanes_min[width];
            batch_ops::max(batch(a), batch(b)).store_unaligned(lanes_max);
            batch_ops::min(batch(a), batch(b)).store_unaligned(lanes_min);
            const float want_max = ops::max(a, b), want_min = ops::min(a, b);
            for (int l = 0; l < width; ++l) {
                EXPECT_TRUE(sftest::bit_equal(&lanes_max[l], &want_max, 1)) << "max(" << a << ", " << b << ")";
                EXPECT_TRUE(sftest::bit_equal(&lanes_min[l], &want_min, 1)) << "min(" << a << ", " << b << ")";
            }
        }
}

TEST(Approx, BatchEqualsScalar) {
    const std::vector<float> xs = sweep(-1e6f, 1e6f);
    check_same(xs, [](float x) { return sf::math::exp<ops>(x); }, [](batch x) { return sf::math::exp<batch_ops>(x); }, "exp");
    check_same(xs, [](float x) { return sf::math::gelu<ops>(x); }, [](batch x) { return sf::math::gelu<batch_ops>(x); }, "gelu");
    check_same(xs, [](float x) { return sf::math::gelu_tanh<ops>(x); }, [](batch x) { return sf::math::gelu_tanh<batch_ops>(x); }, "gelu_tanh");
    check_same(xs, [](float x) { return sf::math::relu<ops>(x); }, [](batch x) { return sf::math::relu<batch_ops>(x); }, "relu");
    check_same(xs, [](float x) { return sf::math::silu<ops>(x); }, [](batch x) { return sf::math::silu<batch_ops>(x); }, "silu");
}
#endif

}  // namespace
