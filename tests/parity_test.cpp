// PyTorch parity: every golden configuration, loaded from its blob, matches torch's output
// within 1e-5 * max(1, max|torch|) in every element, with padded rows exactly zero; the
// reference and simd backends agree bit for bit; exported headers equal their blobs.
#include <gtest/gtest.h>

#include <staticformer/staticformer.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "common/compare.hpp"
#include "common/files.hpp"
#include "common/options.hpp"
#include "golden/odd_post_gelu/model.hpp"
#include "golden/parity_configs.hpp"
#include "golden/post_relu/model.hpp"

namespace {

namespace sf = staticformer;

struct golden_case {
    std::vector<unsigned char> blob;  // stored at an aligned address below
    std::vector<float> input, expected;
    int valid_len = 0;
};

bool load_case(const std::string& dir, golden_case& c) {
    std::ifstream vl(dir + "/valid_len.txt");
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
    ASSERT_EQ(sf::forward<sf::reference>(*w, ws, c.input.data(), ref.data(), c.valid_len), sf::status::ok);
    ASSERT_EQ(sf::forward<sf::default_backend>(*w, ws, c.input.data(), vec.data(), c.valid_len), sf::status::ok);
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
    std::printf("parity %-24s valid_len %2d/%2d  max|torch| %8.4f  max error %.3g (bound %.3g)\n", name, c.valid_len,
                Cfg::seq_len, scale, worst, bound);
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

}  // namespace
