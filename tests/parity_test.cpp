// PyTorch parity: every golden configuration, loaded from its blob, matches torch's output
// within 1e-5 * max(1, max|torch|) in every element, with padded rows exactly zero; the
// reference and simd backends agree bit for bit; exported headers equal their blobs.
// ParityF16: the exporter's f16 blobs (numpy's float16 rounding) equal the C++ conversion of
// the f32 blobs byte for byte, and the f16 encoder's output keeps an SQNR >= 60 dB against the
// f32 reference output on every golden configuration.
#include <gtest/gtest.h>

#include <staticformer/kernels/isa/int8.hpp>
#include <staticformer/quant/convert.hpp>
#include <staticformer/quant/quantize.hpp>
#include <staticformer/quant/stages.hpp>
#include <staticformer/staticformer.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/cases.hpp"
#include "common/compare.hpp"
#include "common/files.hpp"
#include "common/held_out.hpp"
#include "common/options.hpp"
#include "golden/odd_post_gelu/model.hpp"
#include "golden/parity_configs.hpp"
#include "golden/post_relu/model.hpp"
#include "golden/post_relu/model_f16.hpp"
#include "golden/post_relu/model_int8.hpp"

namespace {

namespace sf = staticformer;

struct golden_case {
    std::vector<unsigned char> blob;  // stored at an aligned address below
    std::vector<float> input, expected;
    int valid_len = 0;
    std::vector<unsigned char> mask;  // mask.bin (1: torch's src_key_padding_mask True), if the golden has one
    sf::key_padding_mask key_mask() const { return mask.empty() ? sf::key_padding_mask{} : sf::key_padding_mask{mask.data(), int(mask.size())}; }
};

// A blob's bytes at an 8-byte aligned address, as zero-copy loading needs.
struct aligned_blob {
    std::vector<std::uint64_t> words;
    std::size_t size = 0;
    explicit aligned_blob(const std::vector<unsigned char>& bytes) : words((bytes.size() + 7) / 8), size(bytes.size()) {
        std::memcpy(words.data(), bytes.data(), bytes.size());
    }
    const void* data() const { return words.data(); }
};

bool load_case(const std::string& dir, golden_case& c) {
    std::ifstream vl(dir + "/valid_len.txt");
    if (std::ifstream(dir + "/mask.bin") && !sftest::read_file(dir + "/mask.bin", c.mask)) return false;
    return sftest::read_file(dir + "/model.sfwb", c.blob) && sftest::read_floats(dir + "/input.bin", c.input) &&
           sftest::read_floats(dir + "/expected.bin", c.expected) && bool(vl >> c.valid_len);
}

double worst_parity_error = 0;

template <class Cfg>
void check_parity(const char* name) {
    const std::string dir = sftest::test_options().golden_dir + "/" + name;
    golden_case c;
    ASSERT_TRUE(load_case(dir, c)) << "cannot read golden files in " << dir;
    constexpr std::size_t count = std::size_t(Cfg::seq_len) * Cfg::d_model;
    ASSERT_EQ(c.input.size(), count);
    ASSERT_EQ(c.expected.size(), count);

    // Zero-copy loading needs the blob at an aligned address.
    std::vector<std::uint64_t> aligned((c.blob.size() + 7) / 8);
    std::memcpy(aligned.data(), c.blob.data(), c.blob.size());
    const sf::encoder_weights<Cfg, sf::f32>* w = nullptr;
    ASSERT_EQ((sf::load_blob<Cfg, sf::f32>(aligned.data(), c.blob.size(), w)), sf::status::ok);

    static sf::workspace<Cfg> ws;
    std::vector<float> ref(count), vec(count);
    ASSERT_EQ(sf::forward<sf::reference>(*w, ws, c.input.data(), ref.data(), c.valid_len, c.key_mask()), sf::status::ok);
    ASSERT_EQ(sf::forward<sf::default_backend>(*w, ws, c.input.data(), vec.data(), c.valid_len, c.key_mask()), sf::status::ok);
    EXPECT_TRUE(sftest::bit_equal(ref.data(), vec.data(), count)) << name << ": backends differ";

    float scale = 1.0f;
    for (float v : c.expected) scale = std::max(scale, std::fabs(v));
    const double bound = 1e-5 * scale;
    double worst = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const double err = std::fabs(double(ref[i]) - double(c.expected[i]));
        worst = std::max(worst, err);
        ASSERT_LE(err, bound) << name << " element " << i << " (row " << i / Cfg::d_model << "): staticformer "
                              << ref[i] << ", torch " << c.expected[i];
    }
    for (std::size_t i = std::size_t(c.valid_len) * Cfg::d_model; i < count; ++i) ASSERT_EQ(sftest::bits_of(ref[i]), 0u);
    worst_parity_error = std::max(worst_parity_error, worst / scale);
    std::printf("parity %-24s valid_len %2d/%2d%s  max|torch| %8.4f  max error %.3g (bound %.3g)\n", name, c.valid_len,
                Cfg::seq_len, c.mask.empty() ? "" : " masked", scale, worst, bound);
}

#define PARITY_TEST(name) \
    TEST(Parity, name) { check_parity<golden::name##_config>(#name); }
STATICFORMER_GOLDEN_CONFIGS(PARITY_TEST)
#undef PARITY_TEST

TEST(Parity, Summary) { std::printf("largest parity error / max(1, max|torch|): %.3g\n", worst_parity_error); }

// The exporter's header and blob carry the same bytes.
template <class Cfg>
void check_header_equals_blob(const sf::encoder_weights<Cfg, sf::f32>& from_header, const char* name) {
    static_assert(std::is_same<Cfg, typename std::remove_reference_t<decltype(from_header)>::config>::value, "");
    golden_case c;
    ASSERT_TRUE(load_case(sftest::test_options().golden_dir + "/" + name, c));
    ASSERT_EQ(c.blob.size(), (sf::blob::size<Cfg, sf::f32>));
    EXPECT_EQ(std::memcmp(c.blob.data() + sf::blob::header_bytes, &from_header, sizeof from_header), 0);
    std::vector<unsigned char> written(sf::blob::size<Cfg, sf::f32>);
    ASSERT_EQ(sf::write_blob(from_header, written.data(), written.size()), sf::status::ok);
    EXPECT_EQ(written, c.blob) << "C++ write_blob and the exporter disagree on the blob bytes";
}

TEST(Parity, ExportedHeaderEqualsBlob) {
    static_assert(std::is_same<post_relu_config, golden::post_relu_config>::value, "");
    static_assert(std::is_same<odd_post_gelu_config, golden::odd_post_gelu_config>::value, "");
    check_header_equals_blob(post_relu, "post_relu");
    check_header_equals_blob(odd_post_gelu, "odd_post_gelu");
}

// The exporters' headers (f32, f16 and int8) put their weights on a 64-byte boundary, where the
// 512-bit kernels read whole cache lines (sf::weights_alignment).
TEST(Parity, ExportedHeadersAlignTheirWeights) {
    const auto offset = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % sf::weights_alignment; };
    EXPECT_EQ(offset(&post_relu), 0u);
    EXPECT_EQ(offset(&odd_post_gelu), 0u);
    EXPECT_EQ(offset(&post_relu_f16), 0u);
    EXPECT_EQ(offset(&post_relu_int8), 0u);
    // and so every int8 weight matrix inside it (weights_int8.hpp: the layout's 64-byte units)
    for (const auto& l : post_relu_int8.layer) {
        const std::initializer_list<const void*> matrices = {l.query.w, l.key.w, l.value.w, l.out.w, l.ff1.w, l.ff2.w};
        for (const void* w : matrices) EXPECT_EQ(offset(w), 0u);
    }
}


// ---- f16 ---------------------------------------------------------------------------------------

namespace f16_tests {

// The exporter's --precision f16 blob (numpy: astype(np.float16)) and the library's software
// conversion of the f32 blob give the same bytes, header included.
template <class Cfg>
void check_numpy_equals_cpp(const char* name) {
    const std::string dir = sftest::test_options().golden_dir + "/" + name;
    std::vector<unsigned char> blob32, blob16;
    ASSERT_TRUE(sftest::read_file(dir + "/model.sfwb", blob32)) << dir;
    ASSERT_TRUE(sftest::read_file(dir + "/model_f16.sfwb", blob16)) << dir << ": run tools/make_goldens.py";
    const aligned_blob a32(blob32), a16(blob16);
    const sf::encoder_weights<Cfg, sf::f32>* w32 = nullptr;
    const sf::encoder_weights<Cfg, sf::f16>* w16 = nullptr;
    ASSERT_EQ((sf::load_blob<Cfg, sf::f32>(a32.data(), a32.size, w32)), sf::status::ok);
    ASSERT_EQ((sf::load_blob<Cfg, sf::f16>(a16.data(), a16.size, w16)), sf::status::ok);
    // A blob of one precision is refused as the other.
    const sf::encoder_weights<Cfg, sf::f32>* wrong = nullptr;
    EXPECT_EQ((sf::load_blob<Cfg, sf::f32>(a16.data(), a16.size, wrong)), sf::status::blob_precision_mismatch);

    static sf::encoder_weights<Cfg, sf::f16> converted;
    sf::convert_weights(*w32, converted);
    std::size_t differing = 0;
    const auto* x = reinterpret_cast<const unsigned char*>(&converted);
    const auto* y = reinterpret_cast<const unsigned char*>(w16);
    for (std::size_t i = 0; i < sizeof converted; ++i) differing += x[i] != y[i];
    EXPECT_EQ(differing, 0u) << name << ": numpy's float16 and staticformer::math::float_to_half disagree";
    std::vector<unsigned char> written(sf::blob::size<Cfg, sf::f16>);
    ASSERT_EQ(sf::write_blob(converted, written.data(), written.size()), sf::status::ok);
    EXPECT_EQ(written, blob16) << name << ": C++ write_blob and the exporter disagree on the f16 blob bytes";
    std::printf("f16 %-22s exporter blob (%zu bytes) == C++ conversion of the f32 blob (%zu bytes)\n", name,
                blob16.size(), blob32.size());
}

TEST(ParityF16, ExporterEqualsCppConversion) {
    check_numpy_equals_cpp<golden::post_relu_config>("post_relu");
    check_numpy_equals_cpp<golden::pre_gelu_final_config>("pre_gelu_final");
}

TEST(ParityF16, ExportedHeaderEqualsBlob) {
    using cfg = golden::post_relu_config;
    static_assert(std::is_same<post_relu_f16_config, cfg>::value, "");
    static_assert(std::is_same<decltype(post_relu_f16), const sf::encoder_weights<cfg, sf::f16>>::value, "");
    std::vector<unsigned char> blob16;
    ASSERT_TRUE(sftest::read_file(sftest::test_options().golden_dir + "/post_relu/model_f16.sfwb", blob16));
    ASSERT_EQ(blob16.size(), (sf::blob::size<cfg, sf::f16>));
    EXPECT_EQ(std::memcmp(blob16.data() + sf::blob::header_bytes, &post_relu_f16, sizeof post_relu_f16), 0);
    std::vector<unsigned char> written(sf::blob::size<cfg, sf::f16>);
    ASSERT_EQ(sf::write_blob(post_relu_f16, written.data(), written.size()), sf::status::ok);
    EXPECT_EQ(written, blob16);
}

struct sqnr_row {
    const char* name;
    double sqnr_db, max_error;
};
std::vector<sqnr_row> sqnr_table;

// 10 log10(sum ref^2 / sum (out - ref)^2) over n values; worst receives max |out - ref|.
double sqnr_db(const float* ref, const float* out, std::size_t n, double& worst) {
    double signal = 0, noise = 0;
    worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double e = double(out[i]) - double(ref[i]);
        signal += double(ref[i]) * double(ref[i]);
        noise += e * e;
        worst = std::max(worst, std::fabs(e));
    }
    return 10.0 * std::log10(signal / noise);
}

void print_summary(const std::vector<sqnr_row>& table, const char* precision, double required) {
    if (table.empty()) GTEST_SKIP() << "no SQNR test ran";
    double lowest = 1e300;
    for (const sqnr_row& r : table) lowest = std::min(lowest, r.sqnr_db);
    std::printf("%s vs f32 SQNR over %zu golden configurations: lowest %.2f dB (required >= %.0f dB)\n", precision,
                table.size(), lowest, required);
}

// SQNR of the f16 encoder (the golden f32 weights rounded to binary16) against the f32 reference
// on the same input: 10 log10(sum ref^2 / sum (f16 - ref)^2) over the valid rows.
template <class Cfg>
void check_sqnr(const char* name) {
    const std::string dir = sftest::test_options().golden_dir + "/" + name;
    golden_case c;
    ASSERT_TRUE(load_case(dir, c)) << "cannot read golden files in " << dir;
    const aligned_blob blob(c.blob);
    const sf::encoder_weights<Cfg, sf::f32>* w32 = nullptr;
    ASSERT_EQ((sf::load_blob<Cfg, sf::f32>(blob.data(), blob.size, w32)), sf::status::ok);
    static sf::encoder_weights<Cfg, sf::f16> w16;
    sf::convert_weights(*w32, w16);

    static sf::workspace<Cfg> ws;
    constexpr std::size_t count = std::size_t(Cfg::seq_len) * Cfg::d_model;
    std::vector<float> ref(count), out16(count), vec16(count);
    ASSERT_EQ(sf::forward<sf::reference>(*w32, ws, c.input.data(), ref.data(), c.valid_len, c.key_mask()), sf::status::ok);
    ASSERT_EQ(sf::forward<sf::reference>(w16, ws, c.input.data(), out16.data(), c.valid_len, c.key_mask()), sf::status::ok);
    ASSERT_EQ(sf::forward<sf::default_backend>(w16, ws, c.input.data(), vec16.data(), c.valid_len, c.key_mask()), sf::status::ok);
    EXPECT_TRUE(sftest::bit_equal(out16.data(), vec16.data(), count)) << name << ": f16 backends differ";

    const std::size_t valid = std::size_t(c.valid_len) * Cfg::d_model;
    double worst = 0;
    const double sqnr = sqnr_db(ref.data(), out16.data(), valid, worst);
    for (std::size_t i = valid; i < count; ++i) ASSERT_EQ(sftest::bits_of(out16[i]), 0u);
    ASSERT_GT(worst, 0.0) << name << ": f16 rounding should change the output";
    sqnr_table.push_back({name, sqnr, worst});
    std::printf("f16 SQNR %-22s %6.2f dB  (max |f16 - f32| %.3g, valid rows %d of %d)\n", name, sqnr, worst,
                c.valid_len, Cfg::seq_len);
    EXPECT_GE(sqnr, 60.0) << name;
}

#define SQNR_TEST(name) \
    TEST(ParityF16, name##_Sqnr) { check_sqnr<golden::name##_config>(#name); }
STATICFORMER_GOLDEN_CONFIGS(SQNR_TEST)
#undef SQNR_TEST

TEST(ParityF16, SqnrSummary) { print_summary(sqnr_table, "f16", 60.0); }

}  // namespace f16_tests

// ---- int8 ----------------------------------------------------------------------------------
// ParityInt8: on every golden configuration, the f32 model quantised by the library's quantiser
// on the golden calibration samples (calibration.bin, standard normal like the input) keeps an
// SQNR >= 25 dB against the f32 reference on the golden input, which it did not see; int8
// reference and simd agree bit for bit. The exporter's --precision int8 output (model_int8.*)
// is byte for byte what the C++ quantiser makes: there is one quantisation scheme.
namespace int8_tests {

using f16_tests::sqnr_row;
std::vector<sqnr_row> int8_table;

template <class Cfg>
void quantise_golden(const std::string& dir, const sf::encoder_weights<Cfg, sf::f32>& w32, sf::quant::method m,
                     sf::encoder_weights<Cfg, sf::int8>& w8) {
    std::vector<float> samples;
    ASSERT_TRUE(sftest::read_floats(dir + "/calibration.bin", samples)) << dir;
    constexpr std::size_t n = std::size_t(Cfg::seq_len) * Cfg::d_model;
    ASSERT_EQ(samples.size() % n, 0u);
    sf::quant::calibrator<Cfg> c(w32);
    for (std::size_t s = 0; s < samples.size() / n; ++s)
        ASSERT_EQ(c.observe(samples.data() + s * n, Cfg::seq_len), sf::status::ok);
    sf::quant::options o;
    o.range = m;
    c.quantize(w8, o);
}

template <class Cfg>
void check_int8_sqnr(const char* name) {
    const std::string dir = sftest::test_options().golden_dir + "/" + name;
    golden_case c;
    ASSERT_TRUE(load_case(dir, c)) << "cannot read golden files in " << dir;
    const aligned_blob blob(c.blob);
    const sf::encoder_weights<Cfg, sf::f32>* w32 = nullptr;
    ASSERT_EQ((sf::load_blob<Cfg, sf::f32>(blob.data(), blob.size, w32)), sf::status::ok);
    static sf::encoder_weights<Cfg, sf::int8> w8;
    quantise_golden(dir, *w32, sf::quant::method::min_max, w8);

    constexpr std::size_t count = std::size_t(Cfg::seq_len) * Cfg::d_model;
    static sf::workspace<Cfg> ws;
    static sf::workspace_int8<Cfg> ws8;
    std::vector<float> ref(count), out(count);
    std::vector<std::int16_t> q(count), y(count), y_default(count);  // (the int8 encoder's int16 stream)
    ASSERT_EQ(sf::forward<sf::reference>(*w32, ws, c.input.data(), ref.data(), c.valid_len, c.key_mask()), sf::status::ok);
    ASSERT_EQ(sf::quantize_input(w8, c.input.data(), q.data(), count), sf::status::ok);
    ASSERT_EQ(sf::forward<sf::reference>(w8, ws8, q.data(), y.data(), c.valid_len, c.key_mask()), sf::status::ok);
    ASSERT_EQ(sf::forward<sf::default_backend>(w8, ws8, q.data(), y_default.data(), c.valid_len, c.key_mask()), sf::status::ok);
    EXPECT_EQ(y, y_default) << name << ": int8 backends differ";
    sf::dequantize_output(w8, y.data(), out.data(), count);

    double worst = 0;
    const double sqnr = f16_tests::sqnr_db(ref.data(), out.data(), std::size_t(c.valid_len) * Cfg::d_model, worst);
    int8_table.push_back({name, sqnr, worst});
    std::printf("int8 SQNR %-22s %6.2f dB  (max |int8 - f32| %.3g, valid rows %d of %d)\n", name, sqnr, worst,
                c.valid_len, Cfg::seq_len);
    EXPECT_GE(sqnr, 25.0) << name;
}

#define INT8_SQNR_TEST(name) \
    TEST(ParityInt8, name##_Sqnr) { check_int8_sqnr<golden::name##_config>(#name); }
STATICFORMER_GOLDEN_CONFIGS(INT8_SQNR_TEST)
#undef INT8_SQNR_TEST

TEST(ParityInt8, SqnrSummary) { f16_tests::print_summary(int8_table, "int8", 25.0); }

// Output and branch SQNR of Cfg's int8 or a16w8 quantisation against its f32 encoder on held-out
// standard-normal inputs (tests/common/held_out.hpp).
template <class Cfg, class P = sf::int8>
std::pair<double, double> reference_config_sqnr() {
    const sftest::held_out_case<Cfg> c;
    const auto w = sftest::held_out_weights<Cfg, P>(c);
    EXPECT_TRUE(sf::is_valid(*w)) << "the quantiser's weights break their own bounds";
    std::vector<float> y;
    sftest::held_out_forward(c, *w, y);
    const sftest::sqnr_pair db = sftest::held_out_sqnr(c, y);
    return {db.output, db.branch};
}

// The four reference configurations: the int8 branch keeps >= 30 dB (an int8 residual stream
// gave 19-24 dB; the int16 stream 35-38).
TEST(ParityInt8, ReferenceConfigurationsBranch) {
    // Every backend gives the same bytes: measured where int8 runs on vector kernels (a minute
    // on the reference kernels, under a second with AVX2 or NEON).
    if (std::string(STATICFORMER_INT8_ISA) == "none") GTEST_SKIP() << "no int8 vector kernels in this build";
    const std::pair<const char*, std::pair<double, double>> rows[] = {
        {"tiny", reference_config_sqnr<sftest::tiny>()},
        {"small", reference_config_sqnr<sftest::small>()},
        {"mini", reference_config_sqnr<sftest::mini>()},
        {"wide", reference_config_sqnr<sftest::wide>()}};
    for (const auto& [name, db] : rows) {
        std::printf("  int8 %-5s output %.2f dB, branch %.2f dB (held-out standard-normal inputs)\n", name, db.first,
                    db.second);
        EXPECT_GE(db.second, 30.0) << name;
    }
}

// a16w8 (int16 activations): >= 36 dB on the branch of the same four configurations.
TEST(ParityA16w8, ReferenceConfigurationsBranch) {
    if (std::string(STATICFORMER_INT8_ISA) == "none") GTEST_SKIP() << "measured in the builds with int8 vector kernels";
    const std::pair<const char*, std::pair<double, double>> rows[] = {
        {"tiny", reference_config_sqnr<sftest::tiny, sf::a16w8>()},
        {"small", reference_config_sqnr<sftest::small, sf::a16w8>()},
        {"mini", reference_config_sqnr<sftest::mini, sf::a16w8>()},
        {"wide", reference_config_sqnr<sftest::wide, sf::a16w8>()}};
    for (const auto& [name, db] : rows) {
        std::printf("  a16w8 %-5s output %.2f dB, branch %.2f dB (held-out standard-normal inputs)\n", name, db.first,
                    db.second);
        EXPECT_GE(db.second, 36.0) << name;
    }
}

// make_goldens.py exported post_relu with min-max and pre_gelu_final with percentile (99.99)
// calibration; the C++ quantiser on the same f32 blob and samples gives the same bytes, which
// the header and the blob both hold.
template <class Cfg>
void check_exported_int8(const char* name, sf::quant::method m, const sf::encoder_weights<Cfg, sf::int8>* header) {
    const std::string dir = sftest::test_options().golden_dir + "/" + name;
    golden_case c;
    ASSERT_TRUE(load_case(dir, c));
    const aligned_blob blob(c.blob);
    const sf::encoder_weights<Cfg, sf::f32>* w32 = nullptr;
    ASSERT_EQ((sf::load_blob<Cfg, sf::f32>(blob.data(), blob.size, w32)), sf::status::ok);
    static sf::encoder_weights<Cfg, sf::int8> w8;
    quantise_golden(dir, *w32, m, w8);
    std::vector<unsigned char> exported;
    ASSERT_TRUE(sftest::read_file(dir + "/model_int8.sfwb", exported));
    std::vector<unsigned char> written(sf::blob::size<Cfg, sf::int8>);
    ASSERT_EQ(sf::write_blob(w8, written.data(), written.size()), sf::status::ok);
    EXPECT_EQ(written, exported) << name << ": exporter and C++ quantiser disagree";
    const aligned_blob b8(exported);
    const sf::encoder_weights<Cfg, sf::int8>* loaded = nullptr;
    ASSERT_EQ((sf::load_blob<Cfg, sf::int8>(b8.data(), b8.size, loaded)), sf::status::ok);
    if (header) {
        EXPECT_EQ(std::memcmp(header, &w8, sizeof w8), 0) << name << ": header differs";
    }
}

TEST(ParityInt8, ExporterEqualsCppQuantiser) {
    static_assert(std::is_same<post_relu_int8_config, golden::post_relu_config>::value, "");
    check_exported_int8<golden::post_relu_config>("post_relu", sf::quant::method::min_max, &post_relu_int8);
    check_exported_int8<golden::pre_gelu_final_config>("pre_gelu_final", sf::quant::method::percentile, nullptr);
}

TEST(ParityInt8, CorruptQuantisationIsRefused) {
    using cfg = golden::post_relu_config;
    std::vector<unsigned char> bytes(sf::blob::size<cfg, sf::int8>);
    auto w = post_relu_int8;
    w.layer[1].ff2.shift = 63;  // out of range: would shift by more than 62
    ASSERT_EQ(sf::write_blob(w, bytes.data(), bytes.size()), sf::status::ok);
    const aligned_blob b(bytes);
    const sf::encoder_weights<cfg, sf::int8>* loaded = nullptr;
    EXPECT_EQ((sf::load_blob<cfg, sf::int8>(b.data(), b.size, loaded)), sf::status::blob_bad_quantization);
    EXPECT_EQ(loaded, nullptr);
    w = post_relu_int8;
    w.layer[0].residual1.a_zero_point = 300;
    ASSERT_EQ(sf::write_blob(w, bytes.data(), bytes.size()), sf::status::ok);
    const aligned_blob b2(bytes);
    EXPECT_EQ((sf::load_blob<cfg, sf::int8>(b2.data(), b2.size, loaded)), sf::status::blob_bad_quantization);
}

}  // namespace int8_tests

}  // namespace
