// The whole encoder: every backend in this build reproduces the baseline reference outputs
// byte for byte; bad calls return a status and write nothing; padded rows are zero and cost
// no work; a perturbed kernel is caught.
#include <gtest/gtest.h>

#include <staticformer/staticformer.hpp>

#include <cmath>
#include <vector>

#include "common/cases.hpp"
#include "common/compare.hpp"
#include "common/files.hpp"
#include "common/options.hpp"

namespace {

using namespace sftest;

template <class Cfg, class Backend>
std::vector<float> run(const std::vector<float>& x, int valid_len) {
    static sf::workspace<Cfg> ws;
    std::vector<float> y(x.size(), 123.0f);
    const sf::status s = sf::forward<Backend>(weights_for<Cfg>(), ws, x.data(), y.data(), valid_len);
    EXPECT_EQ(s, sf::status::ok);
    return y;
}

template <class Cfg>
void check_case(const char* name) {
    const std::string& dir = test_options().reference_dir;
    ASSERT_FALSE(dir.empty()) << "pass --reference-dir=DIR (the reference_outputs generator's output)";
    for (input_kind kind : {input_kind::normal, input_kind::large}) {
        const std::vector<float> x = make_input<Cfg>(kind);
        for (int n : valid_lens<Cfg>()) {
            std::vector<float> expected;
            const std::string path = output_file(dir, name, n, kind);
            ASSERT_TRUE(read_floats(path, expected)) << "missing " << path;
            ASSERT_EQ(expected.size(), x.size());
            const auto ref = run<Cfg, sf::reference>(x, n);
            EXPECT_TRUE(bit_equal(expected.data(), ref.data(), x.size())) << name << " reference, valid_len " << n << ", " << name_of(kind);
#if STATICFORMER_HAS_SIMD
            const auto vec = run<Cfg, sf::simd>(x, n);
            EXPECT_TRUE(bit_equal(expected.data(), vec.data(), x.size())) << name << " simd, valid_len " << n << ", " << name_of(kind);
#endif
            for (std::size_t i = std::size_t(n) * Cfg::d_model; i < ref.size(); ++i)
                ASSERT_EQ(bits_of(ref[i]), 0u) << "padded output not +0 at " << i;
            for (std::size_t i = 0; i < std::size_t(n) * Cfg::d_model; ++i) ASSERT_TRUE(std::isfinite(ref[i]));
        }
    }
}

#define BIT_EXACT_TEST(name) \
    TEST(EncoderBitExact, name) { check_case<name>(#name); }
STATICFORMER_TEST_CASES(BIT_EXACT_TEST)
#undef BIT_EXACT_TEST

TEST(EncoderBitExact, BackendInThisBuild) {
#if STATICFORMER_HAS_SIMD
    static_assert(std::is_same<sf::default_backend, sf::simd>::value, "");
    std::printf("simd backend: %d floats per batch\n", sf::kernels::simd::width);
#else
    static_assert(std::is_same<sf::default_backend, sf::reference>::value, "");
    std::printf("reference backend only\n");
#endif
}

// ---- a perturbed kernel is caught ----------------------------------------------------------

// The reference kernels with one plausible SIMD-port bug: a linear layer that sums its inputs
// in reverse order (same mathematics, different rounding).
struct reversed_linear : sf::kernel_set<sf::reference> {
    template <int In, int Out, int WStride = Out>
    static void linear(const float* x, int rows, const float* w, const float* b, float* y) noexcept {
        for (int r = 0; r < rows; ++r)
            for (int o = 0; o < Out; ++o) {
                float acc = b[o];
                for (int i = In - 1; i >= 0; --i) acc = std::fma(x[r * In + i], w[i * WStride + o], acc);
                y[r * Out + o] = acc;
            }
    }
};

// ... and a softmax whose sum runs sequentially instead of in the canonical lanes.
struct sequential_softmax : sf::kernel_set<sf::reference> {
    static void softmax(float* s, int n) noexcept {
        namespace k = sf::kernels::reference;
        const float m = k::row_max(s, 1, n, s[0]);
        k::exp_shifted(s, 0, n, m);
        float sum = 0;
        for (int j = 0; j < n; ++j) sum += s[j];
        k::divide(s, 0, n, sum);
    }
};

template <class K>
std::vector<float> run_with(const std::vector<float>& x, int n) {
    using cfg = tiny_pre_gelu;
    static sf::workspace<cfg> ws;
    std::vector<float> y(x.size());
    EXPECT_EQ((sf::detail::forward<cfg, K>(weights_for<cfg>(), ws, x.data(), y.data(), n)), sf::status::ok);
    return y;
}

TEST(EncoderBitExact, PerturbedKernelIsCaught) {
    const auto x = make_input<tiny_pre_gelu>(input_kind::normal);
    const auto good = run_with<sf::kernel_set<sf::reference>>(x, 32);
    const auto bad_linear = run_with<reversed_linear>(x, 32);
    const auto bad_softmax = run_with<sequential_softmax>(x, 32);
    EXPECT_FALSE(bit_equal(good.data(), bad_linear.data(), good.size()));
    EXPECT_FALSE(bit_equal(good.data(), bad_softmax.data(), good.size()));
    // The perturbations are rounding-level: a tolerance check would have let them through.
    for (std::size_t i = 0; i < good.size(); ++i) {
        ASSERT_NEAR(good[i], bad_linear[i], 1e-4f);
        ASSERT_NEAR(good[i], bad_softmax[i], 1e-4f);
    }
}

// ---- bad calls -----------------------------------------------------------------------------

TEST(EncoderStatus, BadValidLenWritesNothing) {
    using cfg = odd_pre_gelu;
    sf::encoder<cfg> enc{weights_for<cfg>()};
    const auto x = make_input<cfg>(input_kind::normal);
    for (int n : {0, -1, cfg::seq_len + 1, 1 << 30}) {
        std::vector<float> y(x.size(), 42.0f);
        EXPECT_EQ(enc.forward(x.data(), y.data(), n), sf::status::bad_valid_len) << n;
        for (float v : y) ASSERT_EQ(v, 42.0f);
    }
}

TEST(EncoderStatus, NullAndOverlappingBuffers) {
    using cfg = odd_pre_gelu;
    sf::encoder<cfg, sf::f32, sf::reference> enc{weights_for<cfg>()};
    std::vector<float> buf(2 * cfg::seq_len * cfg::d_model, 1.0f);
    EXPECT_EQ(enc.forward(nullptr, buf.data(), 1), sf::status::null_pointer);
    EXPECT_EQ(enc.forward(buf.data(), nullptr, 1), sf::status::null_pointer);
    EXPECT_EQ(enc.forward(buf.data(), buf.data() + 1, 1), sf::status::overlapping_buffers);
    EXPECT_EQ(enc.forward(buf.data() + 5, buf.data(), 1), sf::status::overlapping_buffers);
    EXPECT_EQ(enc.forward(buf.data(), buf.data() + cfg::seq_len * cfg::d_model, 1), sf::status::ok);
}

TEST(EncoderStatus, InPlaceEqualsOutOfPlace) {
    using cfg = tanh_post;
    sf::encoder<cfg> enc{weights_for<cfg>()};
    const auto x = make_input<cfg>(input_kind::normal);
    std::vector<float> y(x.size()), z(x);
    ASSERT_EQ(enc.forward(x.data(), y.data(), 6), sf::status::ok);
    ASSERT_EQ(enc.forward(z.data(), z.data(), 6), sf::status::ok);
    EXPECT_TRUE(bit_equal(y.data(), z.data(), y.size()));
}

TEST(EncoderStatus, StatusNames) {
    EXPECT_STREQ(sf::to_string(sf::status::ok), "ok");
    EXPECT_STREQ(sf::to_string(sf::status::bad_valid_len), "bad_valid_len");
    EXPECT_STREQ(sf::to_string(sf::status::blob_bad_checksum), "blob_bad_checksum");
}

// ---- padded rows cost no work --------------------------------------------------------------

// Counts the rows and keys every kernel is given.
struct counting : sf::kernel_set<sf::reference> {
    static inline long linear_rows = 0, norm_rows = 0, keys = 0, softmax_len = 0;
    template <int In, int Out, int WStride = Out>
    static void linear(const float* x, int rows, const float* w, const float* b, float* y) noexcept {
        linear_rows += rows;
        sf::kernel_set<sf::reference>::linear<In, Out, WStride>(x, rows, w, b, y);
    }
    template <int N>
    static void layer_norm(const float* x, int rows, const float* g, const float* b, float eps, float* y) noexcept {
        norm_rows += rows;
        sf::kernel_set<sf::reference>::layer_norm<N>(x, rows, g, b, eps, y);
    }
    template <int HeadDim, int KStride>
    static void attention_scores(const float* q, const float* kt, int n, float* s) noexcept {
        keys += n;
        sf::kernel_set<sf::reference>::attention_scores<HeadDim, KStride>(q, kt, n, s);
    }
    static void softmax(float* s, int n) noexcept {
        softmax_len += n;
        sf::kernel_set<sf::reference>::softmax(s, n);
    }
};

TEST(EncoderWork, ProportionalToValidLen) {
    using cfg = tile3_pre_relu;  // pre-norm: LayerNorm runs twice per attention block
    const auto x = make_input<cfg>(input_kind::normal);
    static sf::workspace<cfg> ws;
    for (int n = 1; n <= cfg::seq_len; ++n) {
        counting::linear_rows = counting::norm_rows = counting::keys = counting::softmax_len = 0;
        std::vector<float> y(x.size());
        ASSERT_EQ((sf::detail::forward<cfg, counting>(weights_for<cfg>(), ws, x.data(), y.data(), n)), sf::status::ok);
        // Per layer: K, V, Q, output projection, FFN in and out: six projections of n rows.
        EXPECT_EQ(counting::linear_rows, 6L * n * cfg::layers);
        EXPECT_EQ(counting::norm_rows, 3L * n * cfg::layers);
        EXPECT_EQ(counting::keys, long(n) * n * cfg::heads * cfg::layers);
        EXPECT_EQ(counting::softmax_len, long(n) * n * cfg::heads * cfg::layers);
    }
}

// ---- memory is known at compile time -------------------------------------------------------

TEST(EncoderMemory, ConstexprByteCounts) {
    using cfg = tiny_pre_gelu;
    using enc = sf::encoder<cfg>;
    constexpr std::size_t D = 64, S = 32, F = 256, T = 4, L = 2;
    static_assert(enc::weight_bytes == 4 * (L * (D * 3 * D + 3 * D + D * D + D + D * F + F + F * D + D + 4 * D) + 2 * D), "");
    static_assert(enc::workspace_bytes == 4 * (2 * S * D + 3 * T * D + T * F + S), "");
    static_assert(sizeof(enc) <= enc::workspace_bytes + 64 + sizeof(void*), "");
    std::printf("tiny: weights %zu B, workspace %zu B, encoder object %zu B\n", enc::weight_bytes,
                enc::workspace_bytes, sizeof(enc));
}

}  // namespace
