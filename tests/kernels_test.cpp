// Each simd kernel against its reference, memcmp, on shapes that are multiples of no SIMD
// width and on inputs that drive the approximations into their clamps; the weight-reading
// kernels (linear, layer_norm) with f32 and with f16 weights.
#include <gtest/gtest.h>

#include <staticformer/staticformer.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "common/compare.hpp"
#include "common/random.hpp"

namespace {

namespace sf = staticformer;
using sftest::bit_equal;
using sftest::splitmix64;

#if !STATICFORMER_HAS_SIMD
TEST(Kernels, SimdBackend) { GTEST_SKIP() << "no simd backend in this build"; }
#else
using ref = sf::kernel_set<sf::reference>;
using vec = sf::kernel_set<sf::simd>;

std::vector<float> random_vector(std::size_t n, std::uint64_t seed, float scale) {
    std::vector<float> v(n);
    splitmix64 g{seed};
    sftest::fill_uniform(v.data(), n, g, scale);
    return v;
}

// Weights of element type W: floats as they are, or (std::uint16_t) rounded to binary16, with
// every seventh weight a special half: subnormals, the extremes of the range, signed zeros.
template <class W>
std::vector<W> random_weights(std::size_t n, std::uint64_t seed, float scale) {
    const std::vector<float> v = random_vector(n, seed, scale);
    if constexpr (std::is_same<W, float>::value) {
        return v;
    } else {
        constexpr std::uint16_t special[] = {0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x7bff,
                                             0xfbff, 0x0000, 0x8000, 0x3c00, 0x3bff, 0x0155};
        std::vector<std::uint16_t> h(n);
        for (std::size_t i = 0; i < n; ++i)
            h[i] = i % 7 == 3 ? special[(i / 7) % 12] : sf::math::float_to_half(v[i]);
        return h;
    }
}

std::vector<float> widened(const std::vector<std::uint16_t>& h) {
    std::vector<float> f(h.size());
    for (std::size_t i = 0; i < h.size(); ++i) f[i] = sf::math::half_to_float(h[i]);
    return f;
}

// reference vs simd with W weights; for f16 also: the reference on f16 weights equals the
// reference on the widened (f32) weights.
template <class W, int In, int Out, int WStride = Out>
void check_linear(int column_offset = 0, int max_rows = 9) {
    for (int rows = 1; rows <= max_rows; ++rows) {
        const auto x = random_vector(std::size_t(rows) * In, In * 7 + rows, 2.0f);
        const auto w = random_weights<W>(std::size_t(In) * WStride, Out, 0.5f);
        const auto b = random_weights<W>(WStride, 3, 0.5f);
        std::vector<float> y1(std::size_t(rows) * Out), y2(y1.size());
        ref::linear<In, Out, WStride>(x.data(), rows, w.data() + column_offset, b.data() + column_offset, y1.data());
        vec::linear<In, Out, WStride>(x.data(), rows, w.data() + column_offset, b.data() + column_offset, y2.data());
        ASSERT_TRUE(bit_equal(y1.data(), y2.data(), y1.size())) << "In=" << In << " Out=" << Out << " rows=" << rows;
        if constexpr (std::is_same<W, std::uint16_t>::value) {
            const auto wf = widened(w), bf = widened(b);
            std::vector<float> y3(y1.size());
            ref::linear<In, Out, WStride>(x.data(), rows, wf.data() + column_offset, bf.data() + column_offset, y3.data());
            ASSERT_TRUE(bit_equal(y1.data(), y3.data(), y1.size())) << "f16 vs widened, In=" << In << " rows=" << rows;
        }
    }
}

template <class W>
void check_linear_shapes() {
    check_linear<W, 1, 1>();
    check_linear<W, 3, 5>();
    check_linear<W, 7, 17>();
    check_linear<W, 16, 16>();
    check_linear<W, 24, 40>();
    check_linear<W, 33, 65>();
    check_linear<W, 64, 256>();
    check_linear<W, 100, 31>();
    check_linear<W, 24, 24, 72>(24);  // a column block of a packed QKV matrix
    check_linear<W, 20, 20, 60>(40);
    check_linear<W, 40, 200>(0, 27);  // every row remainder of the larger register tiles
    check_linear<W, 37, 120, 360>(120, 19);
    // AVX2's packed panels (24 rows and more): chunks of 256 weight rows, whole and partial
    check_linear<W, 600, 41>(0, 31);
    check_linear<W, 512, 24, 72>(24, 25);
    check_linear<W, 64, 256>(0, 33);        // packed by the first tile, tiles of near-equal heights
    check_linear<W, 64, 64, 192>(64, 33);   // tiny's key block: many rows, read in place
}

TEST(Kernels, Linear) { check_linear_shapes<float>(); }
TEST(Kernels, LinearF16) { check_linear_shapes<std::uint16_t>(); }

template <int N, class W = float>
void check_layer_norm() {
    for (int variant = 0; variant < 4; ++variant) {
        const int rows = 3;
        auto x = random_vector(std::size_t(rows) * N, N + variant, variant == 3 ? 1000.0f : 3.0f);
        if (variant == 1) std::fill(x.begin(), x.end(), 0.75f);  // zero variance
        if (variant == 2)
            for (std::size_t i = 0; i < x.size(); ++i) x[i] = 5.0f + float(i % 3) * 1e-6f;  // cancellation
        const auto g = random_weights<W>(N, 11, 2.0f), b = random_weights<W>(N, 12, 1.0f);
        std::vector<float> y1(x.size()), y2(x.size()), y3(x);
        ref::layer_norm<N>(x.data(), rows, g.data(), b.data(), 1e-5f, y1.data());
        vec::layer_norm<N>(x.data(), rows, g.data(), b.data(), 1e-5f, y2.data());
        ASSERT_TRUE(bit_equal(y1.data(), y2.data(), y1.size())) << "N=" << N << " variant=" << variant;
        vec::layer_norm<N>(y3.data(), rows, g.data(), b.data(), 1e-5f, y3.data());  // in place
        ASSERT_TRUE(bit_equal(y1.data(), y3.data(), y1.size())) << "in place, N=" << N;
        if constexpr (std::is_same<W, std::uint16_t>::value) {
            const auto gf = widened(g), bf = widened(b);
            std::vector<float> y4(x.size());
            ref::layer_norm<N>(x.data(), rows, gf.data(), bf.data(), 1e-5f, y4.data());
            ASSERT_TRUE(bit_equal(y1.data(), y4.data(), y1.size())) << "f16 vs widened, N=" << N;
        }
    }
}

template <class W>
void check_layer_norm_shapes() {
    check_layer_norm<1, W>();
    check_layer_norm<5, W>();
    check_layer_norm<15, W>();
    check_layer_norm<16, W>();
    check_layer_norm<17, W>();
    check_layer_norm<33, W>();
    check_layer_norm<64, W>();
    check_layer_norm<100, W>();
}

TEST(Kernels, LayerNorm) { check_layer_norm_shapes<float>(); }
TEST(Kernels, LayerNormF16) { check_layer_norm_shapes<std::uint16_t>(); }

TEST(Kernels, Softmax) {
    constexpr int stride = 73;
    for (int n = 1; n <= 70; ++n) {
        for (int variant = 0; variant < 5; ++variant) {
            auto s = random_vector(n, n * 5 + variant, variant == 1 ? 200.0f : 4.0f);
            if (variant == 2) std::fill(s.begin(), s.end(), -3.5f);  // all equal
            if (variant == 3) s[n / 2] = 1e30f;                      // one dominant score
            if (variant == 4)
                for (int j = 0; j < n; ++j) s[j] = j % 2 ? -1e30f : 0.0f;  // exp clamp
            std::vector<float> a(s), b(s);
            sf::kernels::reference::softmax(a.data(), n);
            sf::kernels::simd::softmax(b.data(), n);
            ASSERT_TRUE(bit_equal(a.data(), b.data(), n)) << "n=" << n << " variant=" << variant;
            // Several rows per call: each row as alone, nothing written between the rows.
            const int rows = 1 + (n + variant) % 11;
            auto many = random_vector(std::size_t(rows) * stride, n + 100 * variant, 6.0f);
            for (int j = 0; j < n; ++j) many[j] = s[j];
            std::vector<float> c(many), d(many);
            ref::softmax<stride>(c.data(), rows, n);
            vec::softmax<stride>(d.data(), rows, n);
            ASSERT_TRUE(bit_equal(c.data(), d.data(), c.size())) << "n=" << n << " rows=" << rows;
            ASSERT_TRUE(bit_equal(c.data(), a.data(), n));
        }
    }
}

// Scores and context of 1..19 query rows at once (blocks of rows, remainders), each row equal to
// the single-row reference kernels; bytes outside the outputs untouched.
template <int HeadDim, int S = 41>
void check_attention() {
    constexpr int D = HeadDim * 3 + 1, rows_max = 19;
    const auto q = random_vector(std::size_t(rows_max) * D, HeadDim, 2.0f);
    const auto kt = random_vector(std::size_t(HeadDim) * S, HeadDim + 1, 2.0f);
    const auto v = random_vector(std::size_t(S) * D, HeadDim + 2, 2.0f);
    const auto p = random_vector(std::size_t(rows_max) * S, HeadDim + 3, 1.0f);
    for (int n = 1; n <= S; n += (n < 40 ? 1 : 37)) {
        for (int rows : {1, 2, 3, 4, 5, 7, 8, 9, 16, 19}) {
            std::vector<float> s1(std::size_t(rows_max) * S, 7.0f), s2(s1);
            ref::attention_scores<HeadDim, S, D>(q.data() + 1, rows, kt.data(), n, s1.data());
            vec::attention_scores<HeadDim, S, D>(q.data() + 1, rows, kt.data(), n, s2.data());
            ASSERT_TRUE(bit_equal(s1.data(), s2.data(), s1.size())) << "scores HeadDim=" << HeadDim << " n=" << n << " rows=" << rows;
            for (int r = 0; r < rows; ++r) {
                std::vector<float> alone(S);
                sf::kernels::reference::attention_scores<HeadDim, S>(q.data() + 1 + r * D, kt.data(), n, alone.data());
                ASSERT_TRUE(bit_equal(alone.data(), s1.data() + r * S, n));
            }
            std::vector<float> c1(std::size_t(rows_max) * D, 7.0f), c2(c1);
            ref::attention_context<HeadDim, D, S>(p.data(), rows, v.data() + HeadDim, n, c1.data() + 1);
            vec::attention_context<HeadDim, D, S>(p.data(), rows, v.data() + HeadDim, n, c2.data() + 1);
            ASSERT_TRUE(bit_equal(c1.data(), c2.data(), c1.size())) << "context HeadDim=" << HeadDim << " n=" << n << " rows=" << rows;
            for (int r = 0; r < rows; ++r) {
                std::vector<float> alone(HeadDim);
                sf::kernels::reference::attention_context<HeadDim, D>(p.data() + r * S, v.data() + HeadDim, n, alone.data());
                ASSERT_TRUE(bit_equal(alone.data(), c1.data() + 1 + r * D, HeadDim));
            }
        }
    }
}

TEST(Kernels, Attention) {
    check_attention<1>();
    check_attention<3>();
    check_attention<8>();
    check_attention<11>();
    check_attention<16>();
    check_attention<20>();
    check_attention<32>();
    check_attention<37>();
    check_attention<5, 300>();    // keys in several blocks of batches
    check_attention<136, 300>();  // head features in several blocks of batches
}

// Keys stored tile by tile into the transposed buffer (tiles of 1..S rows, so whole 8 x 8
// blocks, row remainders and a last short tile): every key at kt[c * S + j], the simd kernel set
// equal to the reference one, the entries after the last key untouched.
template <int D, int S>
void check_store_keys() {
    const auto keys = random_vector(std::size_t(S) * D, D + S, 2.0f);
    for (int tile : {1, 3, 8, 13, 16, S}) {
        for (int n : {S, S - 5, 9}) {
            std::vector<float> kt1(static_cast<std::size_t>(D) * S, 7.0f), kt2(kt1);
            for (int j0 = 0; j0 < n; j0 += tile) {
                const int rows = n - j0 < tile ? n - j0 : tile;
                ref::store_keys<D, S>(keys.data() + j0 * D, rows, j0, kt1.data());
                vec::store_keys<D, S>(keys.data() + j0 * D, rows, j0, kt2.data());
            }
            ASSERT_TRUE(bit_equal(kt1.data(), kt2.data(), kt1.size())) << "D=" << D << " tile=" << tile << " n=" << n;
            for (int c = 0; c < D; ++c)
                for (int j = 0; j < S; ++j)
                    ASSERT_EQ(kt2[c * S + j], j < n ? keys[j * D + c] : 7.0f) << "D=" << D << " c=" << c << " j=" << j;
        }
    }
}

TEST(Kernels, StoreKeys) {
    check_store_keys<64, 32>();
    check_store_keys<8, 40>();
    check_store_keys<24, 19>();
    check_store_keys<12, 29>();  // D not a multiple of 8
    check_store_keys<5, 11>();
}

// Inputs for the activations: a sweep of magnitudes, both signs, zeros, infinities.
std::vector<float> activation_inputs() {
    std::vector<float> x;
    for (float m = 1e-30f; m < 1e30f; m *= 1.37f) {
        x.push_back(m);
        x.push_back(-m);
    }
    for (float v = -20.0f; v <= 20.0f; v += 0.013f) x.push_back(v);
    for (float v : {0.0f, -0.0f, 12.7f, -12.7f, 12.8f, -12.8f, 88.0f, -88.0f,
                    std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                    std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min()})
        x.push_back(v);
    x.push_back(1.0f);  // make the length a non-multiple of every width
    return x;
}

template <sf::activation_kind Act>
void check_activation() {
    const std::vector<float> x = activation_inputs();
    for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(17), x.size()}) {
        std::vector<float> a(x.begin(), x.begin() + n), b(a);
        ref::activate<Act>(a.data(), int(n));
        vec::activate<Act>(b.data(), int(n));
        ASSERT_TRUE(bit_equal(a.data(), b.data(), n)) << "activation " << int(Act) << " n=" << n;
    }
    // The special values (at the end of x) at every position of the simd kernel's groups of
    // four batches, of its single batches and of its scalar tail.
    for (std::size_t shift = 1; shift <= 80; ++shift) {
        std::vector<float> a(x.size());
        std::rotate_copy(x.begin(), x.end() - std::ptrdiff_t(shift), x.end(), a.begin());
        std::vector<float> b(a);
        ref::activate<Act>(a.data(), int(a.size()));
        vec::activate<Act>(b.data(), int(b.size()));
        ASSERT_TRUE(bit_equal(a.data(), b.data(), a.size())) << "activation " << int(Act) << " shift=" << shift;
    }
}

TEST(Kernels, Activations) {
    check_activation<sf::activation_kind::relu>();
    check_activation<sf::activation_kind::gelu>();
    check_activation<sf::activation_kind::gelu_tanh>();
    check_activation<sf::activation_kind::silu>();
}

#endif  // STATICFORMER_HAS_SIMD

}  // namespace
