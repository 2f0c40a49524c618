// The whole encoder: every backend in this build reproduces the baseline reference outputs
// byte for byte, with f32 and f16 weights; an f16 encoder equals the f32 encoder on the widened
// weights; bad calls return a status and write nothing; padded rows are zero and cost no work;
// a perturbed kernel is caught; weight and workspace sizes are compile-time constants.
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

template <class Cfg, class Backend, class P = sf::f32>
std::vector<float> run(const sf::encoder_weights<Cfg, P>& w, const std::vector<float>& x, int valid_len,
                       input_kind kind = input_kind::normal) {
    static sf::workspace_for<Cfg, Backend> ws;  // the tile an encoder on Backend uses
    std::vector<float> y(x.size(), 123.0f);
    const auto mask = make_mask(kind, Cfg::seq_len, valid_len);
    const sf::status s = sf::forward<Backend>(w, ws, x.data(), y.data(), valid_len, as_key_mask(mask));
    EXPECT_EQ(s, sf::status::ok);
    return y;
}

template <class Cfg, class P>
void check_case(const char* name) {
    const char* precision = precision_name<P>;
    const std::string& dir = test_options().reference_dir;
    ASSERT_FALSE(dir.empty()) << "pass --reference-dir=DIR (the reference_outputs generator's output)";
    for (input_kind kind : all_input_kinds) {
        const std::vector<float> x = make_input<Cfg>(kind);
        for (int n : valid_lens<Cfg>()) {
            std::vector<float> expected;
            const std::string path = output_file(dir, name, precision, n, kind);
            ASSERT_TRUE(read_floats(path, expected)) << "missing " << path;
            ASSERT_EQ(expected.size(), x.size());
            const auto ref = run<Cfg, sf::reference>(weights_for<Cfg, P>(), x, n, kind);
            EXPECT_TRUE(bit_equal(expected.data(), ref.data(), x.size()))
                << name << " " << precision << " reference, valid_len " << n << ", " << name_of(kind);
#if STATICFORMER_HAS_SIMD
            const auto vec = run<Cfg, sf::simd>(weights_for<Cfg, P>(), x, n, kind);
            EXPECT_TRUE(bit_equal(expected.data(), vec.data(), x.size()))
                << name << " " << precision << " simd, valid_len " << n << ", " << name_of(kind);
#endif
            for (std::size_t i = std::size_t(n) * Cfg::d_model; i < ref.size(); ++i)
                ASSERT_EQ(bits_of(ref[i]), 0u) << "padded output not +0 at " << i;
            for (std::size_t i = 0; i < std::size_t(n) * Cfg::d_model; ++i) ASSERT_TRUE(std::isfinite(ref[i]));
        }
    }
}

#define BIT_EXACT_TEST(name)                                      \
    TEST(EncoderBitExact, name) { check_case<name, sf::f32>(#name); } \
    TEST(EncoderBitExactF16, name) { check_case<name, sf::f16>(#name); }
STATICFORMER_TEST_CASES(BIT_EXACT_TEST)
#undef BIT_EXACT_TEST

// An independent check of the f16 arithmetic: the f16 encoder equals, bit for bit, the f32
// encoder run on the f16 weights widened back to float. (Widening is exact, and each weight
// then enters the very same fma chain; a kernel that rounded, reordered or skipped a weight in
// its f16 path would differ here.)
template <class Cfg>
void check_f16_equals_widened_f32(const char* name) {
    static sf::encoder_weights<Cfg, sf::f32> widened;
    sf::convert_weights(weights_for<Cfg, sf::f16>(), widened);
    for (input_kind kind : all_input_kinds) {
        const std::vector<float> x = make_input<Cfg>(kind);
        for (int n : valid_lens<Cfg>()) {
            const auto f32_ref = run<Cfg, sf::reference>(widened, x, n, kind);
            const auto f16_ref = run<Cfg, sf::reference>(weights_for<Cfg, sf::f16>(), x, n, kind);
            EXPECT_TRUE(bit_equal(f32_ref.data(), f16_ref.data(), x.size()))
                << name << " reference, valid_len " << n << ", " << name_of(kind);
#if STATICFORMER_HAS_SIMD
            const auto f16_vec = run<Cfg, sf::simd>(weights_for<Cfg, sf::f16>(), x, n, kind);
            EXPECT_TRUE(bit_equal(f32_ref.data(), f16_vec.data(), x.size()))
                << name << " simd, valid_len " << n << ", " << name_of(kind);
#endif
        }
    }
    // ... and the f16 weights are not the f32 ones: rounding to binary16 changed the output.
    const std::vector<float> x = make_input<Cfg>(input_kind::normal);
    const auto f32_out = run<Cfg, sf::reference>(weights_for<Cfg, sf::f32>(), x, Cfg::seq_len);
    const auto f16_out = run<Cfg, sf::reference>(weights_for<Cfg, sf::f16>(), x, Cfg::seq_len);
    EXPECT_FALSE(bit_equal(f32_out.data(), f16_out.data(), x.size())) << name;
}

#define F16_WIDENED_TEST(name) \
    TEST(EncoderF16, name##_EqualsF32OnWidenedWeights) { check_f16_equals_widened_f32<name>(#name); }
STATICFORMER_TEST_CASES(F16_WIDENED_TEST)
#undef F16_WIDENED_TEST

TEST(EncoderBitExact, BackendInThisBuild) {
#if STATICFORMER_HAS_SIMD
    static_assert(std::is_same<sf::default_backend, sf::simd>::value, "");
    std::printf("simd backend: %d floats per batch\n", sf::kernels::simd::width);
#elif STATICFORMER_HAS_ARMV7_NEON
    static_assert(std::is_same<sf::default_backend, sf::armv7_neon>::value, "");
    std::printf("armv7_neon backend: int8 kernels %s, float kernels the reference's\n", STATICFORMER_INT8_ISA);
#else
    static_assert(std::is_same<sf::default_backend, sf::reference>::value, "");
    std::printf("reference backend only\n");
#endif
}

// ---- the tile never changes a result -------------------------------------------------------

template <class Backend, int Tile, class Cfg>
std::vector<float> run_tile(const std::vector<float>& x, int valid_len, input_kind kind) {
    static sf::workspace<Cfg, Tile> ws;
    std::vector<float> y(x.size(), 123.0f);
    const auto mask = make_mask(kind, Cfg::seq_len, valid_len);
    EXPECT_EQ(sf::forward<Backend>(weights_for<Cfg>(), ws, x.data(), y.data(), valid_len, as_key_mask(mask)),
              sf::status::ok);
    return y;
}

// Tiles that divide the sequence, tiles that leave a remainder, one row and the whole sequence,
// with both backends: the same bytes as the reference at its default tile.
template <class Cfg>
void check_tiles(const char* name) {
    for (input_kind kind : all_input_kinds) {
        const std::vector<float> x = make_input<Cfg>(kind);
        for (int n : valid_lens<Cfg>()) {
            const auto expected = run<Cfg, sf::reference>(weights_for<Cfg>(), x, n, kind);
            const std::vector<float> outputs[] = {
                run_tile<sf::reference, 1, Cfg>(x, n, kind), run_tile<sf::reference, 5, Cfg>(x, n, kind),
                run_tile<sf::reference, Cfg::seq_len, Cfg>(x, n, kind),
#if STATICFORMER_HAS_SIMD
                run_tile<sf::simd, 1, Cfg>(x, n, kind), run_tile<sf::simd, 4, Cfg>(x, n, kind),
                run_tile<sf::simd, 7, Cfg>(x, n, kind),
                run_tile<sf::simd, Cfg::seq_len, Cfg>(x, n, kind),
#endif
            };
            for (const auto& y : outputs)
                EXPECT_TRUE(bit_equal(expected.data(), y.data(), x.size()))
                    << name << " tile " << (&y - outputs) << ", valid_len " << n << ", " << name_of(kind);
        }
    }
}

TEST(EncoderTile, NeverChangesResult) {
    check_tiles<long_gelu>("long_gelu");      // seq_len 37, post-norm
    check_tiles<tiny_pre_gelu>("tiny_pre_gelu");  // seq_len 32, pre-norm, final norm
}

TEST(EncoderTile, DefaultPerBackend) {
    // No tile_rows option: 4 rows on the reference backend (firmware RAM), the whole sequence
    // (up to simd_tile_rows) on the simd backend; tile_rows<N> applies to both.
    static_assert(sf::tile_for<tiny_pre_gelu, sf::reference> == 4, "");
    static_assert(sf::tile_for<tiny_pre_gelu, sf::simd> == 32, "");
    static_assert(sf::tile_for<long_gelu, sf::simd> == 8 && sf::tile_for<long_gelu, sf::reference> == 8, "");
    using long_seq = sf::encoder_config<8, 2, 16, 1000, 1>;
    static_assert(sf::tile_for<long_seq, sf::simd> == sf::simd_tile_rows, "");
    static_assert(sf::encoder<tiny_pre_gelu, sf::f32, sf::reference>::tile == 4, "");
#if STATICFORMER_HAS_SIMD
    static_assert(sf::encoder<tiny_pre_gelu>::tile == 32, "");
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
    template <int Stride>
    static void softmax(float* rows_s, int rows, int n) noexcept {
        namespace k = sf::kernels::reference;
        for (int r = 0; r < rows; ++r) {
            float* s = rows_s + r * Stride;
            const float m = k::row_max(s, 1, n, s[0]);
            k::exp_shifted(s, 0, n, m);
            float sum = 0;
            for (int j = 0; j < n; ++j) sum += s[j];
            k::divide(s, 0, n, sum);
        }
    }
};

template <class K>
std::vector<float> run_with(const std::vector<float>& x, int n) {
    using cfg = tiny_pre_gelu;
    static sf::workspace<cfg> ws;
    std::vector<float> y(x.size());
    EXPECT_EQ((sf::forward_with<K>(weights_for<cfg>(), ws, x.data(), y.data(), n)), sf::status::ok);
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
    template <int HeadDim, int KStride, int QStride>
    static void attention_scores(const float* q, int rows, const float* kt, int n, float* s) noexcept {
        keys += long(rows) * n;
        sf::kernel_set<sf::reference>::attention_scores<HeadDim, KStride, QStride>(q, rows, kt, n, s);
    }
    template <int Stride>
    static void softmax(float* s, int rows, int n) noexcept {
        softmax_len += long(rows) * n;
        sf::kernel_set<sf::reference>::softmax<Stride>(s, rows, n);
    }
};

TEST(EncoderWork, ProportionalToValidLen) {
    using cfg = tile3_pre_relu;  // pre-norm: LayerNorm runs twice per attention block
    const auto x = make_input<cfg>(input_kind::normal);
    static sf::workspace<cfg> ws;
    for (int n = 1; n <= cfg::seq_len; ++n) {
        counting::linear_rows = counting::norm_rows = counting::keys = counting::softmax_len = 0;
        std::vector<float> y(x.size());
        ASSERT_EQ((sf::forward_with<counting>(weights_for<cfg>(), ws, x.data(), y.data(), n)), sf::status::ok);
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
    using enc = sf::encoder<cfg, sf::f32, sf::reference>;
    constexpr std::size_t D = 64, S = 32, F = 256, T = 4, L = 2;
    static_assert(enc::weight_bytes == 4 * (L * (D * 3 * D + 3 * D + D * D + D + D * F + F + F * D + D + 4 * D) + 2 * D), "");
    // keys and values of the sequence, a narrow tile buffer, a wide one (FFN hidden layer of a
    // tile, or queries of a tile and one row of scores, whichever is larger)
    constexpr std::size_t wide = T * F > T * D + S ? T * F : T * D + S;
    static_assert(enc::workspace_bytes == 4 * (2 * S * D + T * D + wide), "");
    static_assert(enc::workspace_bytes == 21504, "tiny: 21 KiB of activations");
    static_assert(sizeof(enc) <= enc::workspace_bytes + 64 + sizeof(void*), "");
    // The simd backend's default tile is the whole sequence: the FFN hidden layer of every row.
    static_assert(sf::workspace_for<cfg, sf::simd>::tile == S, "");
    static_assert(sizeof(sf::workspace_for<cfg, sf::simd>) == 4 * (2 * S * D + S * D + S * F), "");
    static_assert(sizeof(sf::workspace_for<cfg, sf::simd>) == 57344, "tiny on simd: 56 KiB of activations");
    std::printf("tiny: weights %zu B, workspace %zu B (reference), %zu B (simd), encoder object %zu B\n",
                enc::weight_bytes, enc::workspace_bytes, sizeof(sf::workspace_for<cfg, sf::simd>), sizeof(enc));
}

// f16 weights: two bytes per parameter, every parameter (matrices, biases, LayerNorm gammas and
// betas). tiny_pre_gelu is the demo's configuration (examples/demo/demo_model.hpp).
TEST(EncoderMemory, F16WeightsAreHalfTheSize) {
    using cfg = tiny_pre_gelu;
    static_assert(std::is_same<cfg, sf::encoder_config<64, 4, 256, 32, 2, sf::pre_norm, sf::gelu, sf::final_norm>>::value,
                  "the demo configuration");
    using enc16 = sf::encoder<cfg, sf::f16>;
    using enc32 = sf::encoder<cfg, sf::f32>;
    constexpr std::size_t D = 64, F = 256, L = 2;
    constexpr std::size_t parameters = L * (D * 3 * D + 3 * D + D * D + D + D * F + F + F * D + D + 4 * D) + 2 * D;
    static_assert(sf::encoder_weights<cfg, sf::f16>::parameter_count == parameters, "");
    static_assert(enc16::weight_bytes == 2 * parameters, "");
    static_assert(enc32::weight_bytes == 4 * parameters, "");
    static_assert(enc16::weight_bytes * 100 <= 51 * enc32::weight_bytes, "f16 weights <= 0.51 x f32");
    static_assert(enc16::workspace_bytes == enc32::workspace_bytes, "activations are float either way");
    static_assert(std::is_same<sf::encoder_weights<cfg, sf::f16>::element, std::uint16_t>::value, "");
    static_assert(sf::blob::size<cfg, sf::f16> == sf::blob::header_bytes + enc16::weight_bytes, "");
    // Without a final norm the empty member costs one element of padding, in both precisions.
    using no_final = sf::encoder_config<64, 4, 256, 32, 2, sf::pre_norm, sf::gelu>;
    using w16 = sf::encoder_weights<no_final, sf::f16>;
    using w32 = sf::encoder_weights<no_final, sf::f32>;
    static_assert(sizeof(w16) == 2 * (w16::parameter_count + 1) && sizeof(w32) == 4 * (w32::parameter_count + 1), "");
    const double ratio = double(enc16::weight_bytes) / double(enc32::weight_bytes);
    EXPECT_LE(ratio, 0.51);
    std::printf("demo configuration: weights f32 %zu B, f16 %zu B (%.4f x); workspace %zu B for both\n",
                enc32::weight_bytes, enc16::weight_bytes, ratio, enc16::workspace_bytes);
}

// ---- the f16 encoder object ----------------------------------------------------------------

TEST(EncoderF16, EncoderObjectMatchesFreeFunction) {
    using cfg = odd_pre_gelu;
    sf::encoder<cfg, sf::f16> by_default{weights_for<cfg, sf::f16>()};
    sf::encoder<cfg, sf::f16, sf::reference> by_reference{weights_for<cfg, sf::f16>()};
    const auto x = make_input<cfg>(input_kind::normal);
    std::vector<float> y1(x.size()), y2(x.size(), 42.0f);
    ASSERT_EQ(by_default.forward(x.data(), y1.data(), 5), sf::status::ok);
    ASSERT_EQ(by_reference.forward(x.data(), y2.data(), 5), sf::status::ok);
    EXPECT_TRUE(bit_equal(y1.data(), y2.data(), y1.size()));
    const auto y3 = run<cfg, sf::reference>(weights_for<cfg, sf::f16>(), x, 5);
    EXPECT_TRUE(bit_equal(y1.data(), y3.data(), y1.size()));
    std::vector<float> z(x.size(), 42.0f);
    EXPECT_EQ(by_default.forward(x.data(), z.data(), cfg::seq_len + 1), sf::status::bad_valid_len);
    for (float v : z) ASSERT_EQ(v, 42.0f);
}

}  // namespace
