// PyTorch parity of whole models: torchvision VisionTransformers and staticformer_torch's
// TransformerClassifier (tools/make_goldens.py, golden/models/), each loaded from the exporter's
// model blob, match torch's logits (or pooled row, or sequence) within 1e-5 * max(1, max|torch|);
// the reference and default backends agree bit for bit; the f16 blob matches torch run on the
// binary16-rounded parameters within the same bound and equals the C++ conversion of the f32
// blob; an exported header equals its blob. ParityModelInt8: the exporter's int8 blobs equal the
// library's own quantisation of the f32 blob on the same calibration samples, byte for byte, and
// the int8 model follows torch (SQNR >= 25 dB on the logits or rows, the same arg-max).
#include <gtest/gtest.h>

#include <staticformer/quant/convert.hpp>
#include <staticformer/quant/model_quantize.hpp>
#include <staticformer/quant/stages.hpp>
#include <staticformer/staticformer.hpp>

#include <cmath>
#include <fstream>
#include <vector>

#include "common/compare.hpp"
#include "common/files.hpp"
#include "common/options.hpp"
#include "common/random.hpp"
#include "golden/models/model_configs.hpp"
#include "golden/models/tokens_causal/model.hpp"
#include "golden/models/tokens_causal/model_int8.hpp"
#include "golden/models/vit_tv/model.hpp"
#include "golden/models/vit_tv/model_int8.hpp"

namespace {

namespace sf = staticformer;

// A golden's key padding mask (mask.bin, 1 where a token is masked), or none.
struct golden_mask {
    std::vector<unsigned char> bytes;
    explicit golden_mask(const std::string& dir) {
        if (std::ifstream(dir + "/mask.bin")) {
            EXPECT_TRUE(sftest::read_file(dir + "/mask.bin", bytes)) << dir;
        }
    }
    sf::key_padding_mask get() const {
        return bytes.empty() ? sf::key_padding_mask{} : sf::key_padding_mask{bytes.data(), int(bytes.size())};
    }
};
using namespace golden_models;

double worst_model_error = 0;

// A file's bytes at a 64-byte boundary (zero-copy loading).
struct aligned_file {
    std::vector<unsigned char> bytes;
    std::vector<std::uint64_t> words;
    bool read(const std::string& path) {
        if (!sftest::read_file(path, bytes)) return false;
        words.assign(bytes.size() / 8 + 9, 0);
        std::memcpy(data(), bytes.data(), bytes.size());
        return true;
    }
    unsigned char* data() {
        const auto a = reinterpret_cast<std::uintptr_t>(words.data());
        return reinterpret_cast<unsigned char*>(words.data()) + (64 - a % 64) % 64;
    }
};

template <class M, class P>
void check_against(const char* name, const sf::model_weights<M, P>& w, const char* expected_file, bool f16) {
    const std::string dir = sftest::test_options().golden_dir + "/models/" + name;
    std::vector<unsigned char> input_bytes;
    std::vector<float> expected;
    std::ifstream vl(dir + "/valid_len.txt");
    int valid = 0;
    ASSERT_TRUE(sftest::read_file(dir + "/input.bin", input_bytes) &&
                sftest::read_floats(dir + "/" + expected_file, expected) && bool(vl >> valid))
        << "cannot read golden files in " << dir;
    using in_t = sf::model_input_t<M>;
    ASSERT_EQ(input_bytes.size(), M::input_values * sizeof(in_t));
    ASSERT_EQ(expected.size(), M::output_values);
    std::vector<in_t> x(M::input_values);
    std::memcpy(x.data(), input_bytes.data(), input_bytes.size());

    static sf::model_workspace_for<M, sf::reference> ws_ref;
    static sf::model_workspace_for<M, sf::default_backend> ws;
    const golden_mask mask(dir);
    std::vector<float> ref(M::output_values, 9.0f), vec(M::output_values, 9.0f);
    ASSERT_EQ(sf::forward<sf::reference>(w, ws_ref, x.data(), ref.data(), valid, mask.get()), sf::status::ok);
    ASSERT_EQ(sf::forward<sf::default_backend>(w, ws, x.data(), vec.data(), valid, mask.get()), sf::status::ok);
    EXPECT_TRUE(sftest::bit_equal(ref.data(), vec.data(), ref.size())) << name << ": backends differ";

    float scale = 1.0f;
    for (float v : expected) scale = std::max(scale, std::fabs(v));
    double worst = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, double(std::fabs(ref[i] - expected[i])));
    EXPECT_LE(worst, 1e-5 * scale) << name << (f16 ? " f16" : " f32");
    worst_model_error = std::max(worst_model_error, worst / scale);
    std::printf("  %-14s %s: max |staticformer - torch| = %.3g (bound %.3g), %zu outputs\n", name, f16 ? "f16" : "f32",
                worst, 1e-5 * scale, ref.size());
}

template <class M>
void check_model_parity(const char* name) {
    const std::string dir = sftest::test_options().golden_dir + "/models/" + name;
    aligned_file f32_blob, f16_blob;
    ASSERT_TRUE(f32_blob.read(dir + "/model.sfwm") && f16_blob.read(dir + "/model_f16.sfwm")) << dir;
    const sf::model_weights<M, sf::f32>* w = nullptr;
    const sf::model_weights<M, sf::f16>* w16 = nullptr;
    ASSERT_EQ(sf::load_blob(f32_blob.data(), f32_blob.bytes.size(), w), sf::status::ok);
    ASSERT_EQ(sf::load_blob(f16_blob.data(), f16_blob.bytes.size(), w16), sf::status::ok);
    check_against(name, *w, "expected.bin", false);
    check_against(name, *w16, "expected_f16.bin", true);
    // numpy's binary16 rounding (the exporter) == the library's.
    static sf::model_weights<M, sf::f16> converted;
    sf::convert_weights(*w, converted);
    EXPECT_EQ(std::memcmp(&converted, w16, sizeof converted), 0) << name << ": f16 blob != converted f32 blob";
}

#define MODEL_PARITY_TEST(name) \
    TEST(ParityModel, name) { check_model_parity<name##_config>(#name); }
STATICFORMER_GOLDEN_MODELS(MODEL_PARITY_TEST)
#undef MODEL_PARITY_TEST

template <class M>
void check_model_int8(const char* name, sf::quant::method method) {
    const std::string dir = sftest::test_options().golden_dir + "/models/" + name;
    aligned_file f32_blob, int8_blob;
    std::vector<unsigned char> calibration, input_bytes;
    std::vector<float> expected;
    ASSERT_TRUE(f32_blob.read(dir + "/model.sfwm") && int8_blob.read(dir + "/model_int8.sfwm") &&
                sftest::read_file(dir + "/calibration.bin", calibration) &&
                sftest::read_file(dir + "/input.bin", input_bytes) && sftest::read_floats(dir + "/expected.bin", expected))
        << dir;
    const sf::model_weights<M, sf::f32>* w = nullptr;
    const sf::model_weights<M, sf::int8>* w8 = nullptr;
    ASSERT_EQ(sf::load_blob(f32_blob.data(), f32_blob.bytes.size(), w), sf::status::ok);
    ASSERT_EQ(sf::load_blob(int8_blob.data(), int8_blob.bytes.size(), w8), sf::status::ok);

    // The library's quantiser on the same samples gives the exporter's bytes.
    using in_t = sf::model_input_t<M>;
    constexpr std::size_t per_sample = M::input_values * sizeof(in_t);
    ASSERT_EQ(calibration.size() % per_sample, 0u);
    sf::quant::model_calibrator<M> c(*w);
    std::vector<in_t> sample(M::input_values);
    for (std::size_t at = 0; at < calibration.size(); at += per_sample) {
        std::memcpy(sample.data(), calibration.data() + at, per_sample);
        ASSERT_EQ(c.observe(sample.data(), M::input_tokens), sf::status::ok);
    }
    static sf::model_weights<M, sf::int8> mine;
    sf::quant::options o;
    o.range = method;
    c.quantize(mine, o);
    EXPECT_EQ(std::memcmp(&mine, w8, sizeof mine), 0) << name << ": exported int8 != the library's quantisation";

    // Against torch.
    std::ifstream vl(dir + "/valid_len.txt");
    int valid = 0;
    ASSERT_TRUE(bool(vl >> valid));
    std::vector<in_t> x(M::input_values);
    std::memcpy(x.data(), input_bytes.data(), input_bytes.size());
    std::vector<sf::model_input_t<M, sf::int8>> x8(M::input_values);
    if constexpr (M::input == sf::input_kind::tokens)
        x8 = x;
    else
        ASSERT_EQ(sf::quantize_model_input(*w8, x.data(), x8.data(), x.size()), sf::status::ok);
    static sf::model_workspace_for<M, sf::reference, sf::int8> ws_ref;
    static sf::model_workspace_for<M, sf::default_backend, sf::int8> ws;
    std::vector<sf::model_output_t<M, sf::int8>> q(M::output_values), qv(M::output_values);
    const golden_mask mask(dir);
    ASSERT_EQ(sf::forward<sf::reference>(*w8, ws_ref, x8.data(), q.data(), valid, mask.get()), sf::status::ok);
    ASSERT_EQ(sf::forward<sf::default_backend>(*w8, ws, x8.data(), qv.data(), valid, mask.get()), sf::status::ok);
    EXPECT_EQ(q, qv) << name << ": backends differ";
    std::vector<float> y(M::output_values);
    if constexpr (M::has_head)
        sf::dequantize_logits(*w8, q.data(), y.data(), y.size());
    else
        sf::dequantize_model_output(*w8, q.data(), y.data(), y.size());
    double signal = 0, noise = 0;
    for (std::size_t i = 0; i < y.size(); ++i)
        signal += double(expected[i]) * expected[i], noise += double(y[i] - expected[i]) * (y[i] - expected[i]);
    const double sqnr = 10 * std::log10(signal / std::max(noise, 1e-30));
    std::printf("  %-14s int8: SQNR %.1f dB against torch\n", name, sqnr);
    EXPECT_GE(sqnr, 25.0) << name;
    if constexpr (M::has_head) {
        EXPECT_EQ(sf::arg_max(y.data(), M::classes), sf::arg_max(expected.data(), M::classes)) << name;
    }
}

TEST(ParityModelInt8, vit_tv) { check_model_int8<vit_tv_config>("vit_tv", sf::quant::method::min_max); }
TEST(ParityModelInt8, tokens_causal) {
    check_model_int8<tokens_causal_config>("tokens_causal", sf::quant::method::percentile);
}
TEST(ParityModelInt8, features_seq) { check_model_int8<features_seq_config>("features_seq", sf::quant::method::min_max); }
TEST(ParityModelInt8, sensor_left_pad) {
    check_model_int8<sensor_left_pad_config>("sensor_left_pad", sf::quant::method::min_max);
}
TEST(ParityModelInt8, tokens_rms_cls) {
    check_model_int8<tokens_rms_cls_config>("tokens_rms_cls", sf::quant::method::min_max);
}
TEST(ParityModelInt8, sensor_swiglu) {
    check_model_int8<sensor_swiglu_config>("sensor_swiglu", sf::quant::method::min_max);
}

TEST(ParityModelInt8, tokens_neobert) {
    check_model_int8<tokens_neobert_config>("tokens_neobert", sf::quant::method::min_max);
}
TEST(ParityModelInt8, sensor_pooled_norm) {
    check_model_int8<sensor_pooled_norm_config>("sensor_pooled_norm", sf::quant::method::min_max);
}

// The encoder's residual branch inside an int8 model: both precisions' input steps give the
// encoder rows (x, and int16 rows), both encoders run, and the int8 output's difference from the
// f32 rows x is compared with the f32 output's (y - x: what the layers add).
struct branch_sums {
    sf::quant::sqnr_sum branch, cls;  // every row's branch; the CLS row's output (what the head reads)
};
template <class M>
void add_model_branch(const sf::model_weights<M, sf::f32>& w, const sf::model_weights<M, sf::int8>& w8,
                      const std::vector<float>& image, branch_sums& sums) {
    using E = typename M::encoder;
    constexpr int T = E::tile;
    constexpr std::size_t n = std::size_t(M::seq_len) * M::d_model;
    using f32_rows = sf::detail::model_composition<M, sf::detail::float_model_steps<M, sf::kernel_set<sf::reference>, sf::f32, T>>;
    using int8_rows = sf::detail::model_composition<M, sf::detail::int8_model_steps<M, sf::int8_kernel_set<sf::reference>, T, sf::int8>>;
    static sf::model_buffers<M, T, sf::f32> buffers;
    static sf::model_buffers<M, T, sf::int8> buffers8;
    static sf::workspace<E> ws;
    static sf::workspace_int8<E> ws8;
    std::vector<float> x(n), y(n), y8(n);
    std::vector<std::int8_t> image8(image.size());
    std::vector<std::int16_t> x16(n), out16(n);
    EXPECT_EQ(sf::quantize_model_input(w8, image.data(), image8.data(), image.size()), sf::status::ok);
    const int rows = f32_rows::embed_rows(w, image.data(), M::input_tokens, x.data(), buffers, [](const float*, int) {});
    int8_rows::embed_rows(w8, image8.data(), M::input_tokens, x16.data(), buffers8, [](const std::int16_t*, int) {});
    EXPECT_EQ(sf::forward<sf::reference>(w.encoder, ws, x.data(), y.data(), rows), sf::status::ok);
    EXPECT_EQ(sf::forward<sf::reference>(w8.encoder, ws8, x16.data(), out16.data(), rows), sf::status::ok);
    sf::dequantize_output(w8.encoder, out16.data(), y8.data(), n);
    for (std::size_t i = 0; i < std::size_t(rows) * M::d_model; ++i)
        sums.branch.add(double(y[i]) - x[i], double(y8[i]) - x[i]);
    for (int i = 0; i < M::d_model; ++i) sums.cls.add(y[i], y8[i]);
}

// A torchvision ViT as torchvision initialises its class token (zeros) and positions (normal,
// standard deviation 0.02), fed images that are not normalised (standard deviation 2): the
// patch rows set the stream's range, and the CLS row, small beside them, is what the head reads.
// Min-max calibration on 16 such images; on 8 others the encoder's branch and the CLS row's
// output keep >= 28 dB (an int8 stream: 32.9 and 28.2 dB).
TEST(ParityModelInt8, VitUnnormalisedBranch) {
    using M = vit_tv_config;
    const std::string dir = sftest::test_options().golden_dir + "/models/vit_tv";
    aligned_file f32_blob;
    ASSERT_TRUE(f32_blob.read(dir + "/model.sfwm")) << dir;
    const sf::model_weights<M, sf::f32>* loaded = nullptr;
    ASSERT_EQ(sf::load_blob(f32_blob.data(), f32_blob.bytes.size(), loaded), sf::status::ok);
    static sf::model_weights<M, sf::f32> tv;
    tv = *loaded;
    sftest::splitmix64 g{0x717u};
    for (float& v : tv.cls.token) v = 0.0f;
    sftest::fill_normal(&tv.positions.table[0][0], std::size_t(M::seq_len) * M::d_model, g, 0.02);
    const sf::model_weights<M, sf::f32>* w = &tv;
    sf::quant::model_calibrator<M> c(*w);
    std::vector<float> image(M::input_values);
    for (int k = 0; k < 16; ++k) {
        sftest::fill_normal(image.data(), image.size(), g, 2.0);
        ASSERT_EQ(c.observe(image.data(), M::input_tokens), sf::status::ok);
    }
    static sf::model_weights<M, sf::int8> w8;
    c.quantize(w8);
    branch_sums sums;
    for (int k = 0; k < 8; ++k) {
        sftest::fill_normal(image.data(), image.size(), g, 2.0);
        add_model_branch<M>(*w, w8, image, sums);
    }
    std::printf("  vit_tv int8, images of standard deviation 2: encoder branch %.2f dB, CLS row %.2f dB\n",
                sums.branch.sqnr(), sums.cls.sqnr());
    EXPECT_GE(sums.branch.sqnr(), 28.0);
    EXPECT_GE(sums.cls.sqnr(), 28.0);
}

TEST(ParityModelInt8, HeadersEqualBlobs) {
    aligned_file b;
    ASSERT_TRUE(b.read(sftest::test_options().golden_dir + "/models/vit_tv/model_int8.sfwm"));
    const sf::model_weights<::vit_tv_int8_config, sf::int8>* w = nullptr;
    ASSERT_EQ(sf::load_blob(b.data(), b.bytes.size(), w), sf::status::ok);
    EXPECT_EQ(std::memcmp(w, &::vit_tv_int8, sizeof ::vit_tv_int8), 0);
    ASSERT_TRUE(b.read(sftest::test_options().golden_dir + "/models/tokens_causal/model_int8.sfwm"));
    const sf::model_weights<::tokens_causal_int8_config, sf::int8>* t = nullptr;
    ASSERT_EQ(sf::load_blob(b.data(), b.bytes.size(), t), sf::status::ok);
    EXPECT_EQ(std::memcmp(t, &::tokens_causal_int8, sizeof ::tokens_causal_int8), 0);
}

TEST(ParityModel, HeadersEqualBlobs) {
    for (const char* name : {"vit_tv", "tokens_causal"}) {
        aligned_file b;
        ASSERT_TRUE(b.read(sftest::test_options().golden_dir + "/models/" + name + "/model.sfwm"));
        if (std::string(name) == "vit_tv") {
            const sf::model_weights<::vit_tv_config, sf::f32>* w = nullptr;
            ASSERT_EQ(sf::load_blob(b.data(), b.bytes.size(), w), sf::status::ok);
            EXPECT_EQ(std::memcmp(w, &::vit_tv, sizeof ::vit_tv), 0);
        } else {
            const sf::model_weights<::tokens_causal_config, sf::f32>* w = nullptr;
            ASSERT_EQ(sf::load_blob(b.data(), b.bytes.size(), w), sf::status::ok);
            EXPECT_EQ(std::memcmp(w, &::tokens_causal, sizeof ::tokens_causal), 0);
        }
    }
}

TEST(ParityModel, WorstError) {
    std::printf("  worst model parity error: %.3g x max(1, max|torch|)\n", worst_model_error);
    SUCCEED();
}

}  // namespace
