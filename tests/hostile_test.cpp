// Hostile weights and inputs: corrupted blobs (with and without a recomputed CRC), non-finite,
// huge, subnormal and saturating inputs, degenerate rows. Each case requires a status that says
// what went wrong, or the same bytes from the reference and from this build's default backend
// (the sanitizer variants run this file too: no overflow, no out-of-bounds access).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <cstring>
#include <limits>
#include <vector>

#include "common/cases.hpp"
#include "common/model_cases.hpp"

namespace {

using namespace sftest;

// Small enough to flip every byte: odd sizes, so the int8 linear layers have padding weights.
using small_pre = sf::encoder_config<6, 2, 10, 4, 1, sf::pre_norm, sf::gelu, sf::final_norm>;
using small_post = sf::encoder_config<6, 3, 9, 5, 1, sf::post_norm, sf::relu, sf::causal>;
using small_model = sf::model_config<small_pre, sf::feature_input<5>, sf::learned_positions, sf::cls_token,
                                     sf::embedding_norm, sf::mean_pooling, sf::classifier_head<3>>;

template <class W>
struct blob_traits;
template <class Cfg, class P>
struct blob_traits<sf::encoder_weights<Cfg, P>> {
    static constexpr std::size_t header = sf::blob::header_bytes, payload_crc = 56, header_crc = 60;
};
template <class M, class P>
struct blob_traits<sf::model_weights<M, P>> {
    static constexpr std::size_t header = sf::blob::model_header_bytes, payload_crc = 120, header_crc = 124;
};

// A blob's bytes at a 64-byte boundary (as load_blob needs for zero copy).
struct blob_buffer {
    std::vector<unsigned char> storage;
    std::size_t size = 0;
    explicit blob_buffer(std::size_t n) : storage(n + 64), size(n) {}
    unsigned char* data() {
        const auto a = reinterpret_cast<std::uintptr_t>(storage.data());
        return storage.data() + (64 - a % 64) % 64;
    }
};

// The CRCs of a blob recomputed over its (possibly corrupted) header and payload: what a bad
// update tool or an attacker writes.
template <class W>
void reseal(unsigned char* b, std::size_t size) {
    using t = blob_traits<W>;
    std::uint64_t announced;
    std::memcpy(&announced, b + 48, 8);
    const std::size_t payload = std::size_t(std::min<std::uint64_t>(announced, size - t::header));
    const std::uint32_t crc = sf::blob::crc32(b + t::header, payload);
    std::memcpy(b + t::payload_crc, &crc, 4);
    const std::uint32_t hcrc = sf::blob::crc32(b, t::header_crc);
    std::memcpy(b + t::header_crc, &hcrc, 4);
}

// One pass on loaded weights with backend B; the output bytes (from a fixed fill) and the status.
template <class B, class Cfg, class P, class X>
std::vector<unsigned char> run(const sf::encoder_weights<Cfg, P>& w, const std::vector<X>& x, int n, sf::status& s) {
    using value = std::conditional_t<std::is_same<P, sf::int8>::value, stream_t, float>;
    using ws_t = std::conditional_t<std::is_same<P, sf::int8>::value, sf::workspace_int8_for<Cfg, B>,
                                    sf::workspace_for<Cfg, B>>;
    auto ws = std::make_unique<ws_t>();
    std::vector<value> y(x.size(), value(77));
    s = sf::forward<B>(w, *ws, x.data(), y.data(), n);
    return {reinterpret_cast<const unsigned char*>(y.data()), reinterpret_cast<const unsigned char*>(y.data() + y.size())};
}
template <class B, class M, class P, class X>
std::vector<unsigned char> run(const sf::model_weights<M, P>& w, const std::vector<X>& x, int n, sf::status& s) {
    auto ws = std::make_unique<sf::model_workspace_for<M, B, P>>();
    std::vector<sf::model_output_t<M, P>> y(M::output_values, sf::model_output_t<M, P>(77));
    s = sf::forward<B>(w, *ws, x.data(), y.data(), n);
    return {reinterpret_cast<const unsigned char*>(y.data()), reinterpret_cast<const unsigned char*>(y.data() + y.size())};
}

// The reference and the default backend agree: status and bytes.
template <class W, class X>
void expect_backends_agree(const W& w, const std::vector<X>& x, int n, const std::string& what) {
    sf::status s_ref, s_def;
    const auto ref = run<sf::reference>(w, x, n, s_ref);
    const auto def = run<sf::default_backend>(w, x, n, s_def);
    ASSERT_EQ(s_ref, s_def) << what << ": " << sf::to_string(s_ref) << " vs " << sf::to_string(s_def);
    ASSERT_TRUE(ref == def) << what << ": the backends' bytes differ (" << sf::to_string(s_ref) << ")";
}

template <class W, class X>
void flip_every_byte(const W& good, const std::vector<X>& x, int n) {
    blob_buffer b(sizeof(W) + blob_traits<W>::header);
    ASSERT_EQ(sf::write_blob(good, b.data(), b.size), sf::status::ok);
    const std::vector<unsigned char> original(b.data(), b.data() + b.size);
    const W* loaded = nullptr;
    ASSERT_EQ(sf::load_blob(b.data(), b.size, loaded), sf::status::ok);
    // Each byte: all bits, the top bit (an int32's sign: a bias near -2^31), bit 6 (a float's
    // exponent: a huge weight); each once with the CRCs kept, once resealed.
    int accepted = 0;
    const unsigned char flips[] = {0xff, 0x80, 0x40};
    for (std::size_t k = 0; k < 2 * 3 * b.size; ++k) {
        const std::size_t i = k / 6;
        const unsigned char flip = flips[k % 3];
        const bool resealed = k % 6 >= 3;
        std::memcpy(b.data(), original.data(), b.size);
        b.data()[i] ^= flip;
        if (resealed) reseal<W>(b.data(), b.size);
        const W* w = nullptr;
        const sf::status s = sf::load_blob(b.data(), b.size, w);
        const std::string what = "byte " + std::to_string(i) + " ^ " + std::to_string(flip);
        if (!resealed) {
            ASSERT_NE(s, sf::status::ok) << what << ", CRC kept: loaded";
        } else if (s != sf::status::ok) {
            ASSERT_EQ(w, nullptr) << what;  // out untouched
        } else {
            ++accepted;
            expect_backends_agree(*w, x, n, what + ", CRC resealed");
            if (::testing::Test::HasFatalFailure()) return;
        }
    }
    // Most payload bytes are weights: the flips that load must run (the comparison is not vacuous).
    EXPECT_GT(accepted, 0);
}

template <class P>
void encoder_flips() {
    SCOPED_TRACE(precision_name<P>);
    if constexpr (std::is_same<P, sf::int8>::value) {
        flip_every_byte(weights_for<small_pre, P>(), make_input_int8<small_pre>(input_kind::normal), 3);
        flip_every_byte(weights_for<small_post, P>(), make_input_int8<small_post>(input_kind::normal), 5);
    } else {
        flip_every_byte(weights_for<small_pre, P>(), make_input<small_pre>(input_kind::normal), 3);
        flip_every_byte(weights_for<small_post, P>(), make_input<small_post>(input_kind::normal), 5);
    }
}

TEST(HostileBlob, EveryByteFlippedEncoderF32) { encoder_flips<sf::f32>(); }
TEST(HostileBlob, EveryByteFlippedEncoderF16) { encoder_flips<sf::f16>(); }
TEST(HostileBlob, EveryByteFlippedEncoderInt8) { encoder_flips<sf::int8>(); }

template <class P>
void model_flips() {
    SCOPED_TRACE(precision_name<P>);
    flip_every_byte(model_weights_for<small_model, P>(), make_model_input_for<small_model, P>(input_kind::normal), 3);
}
TEST(HostileBlob, EveryByteFlippedModelF32) { model_flips<sf::f32>(); }
TEST(HostileBlob, EveryByteFlippedModelF16) { model_flips<sf::f16>(); }
TEST(HostileBlob, EveryByteFlippedModelInt8) { model_flips<sf::int8>(); }

// Each int8 parameter at the first value past its bound is refused; at the bound it loads and runs.
template <class W, class Edit>
sf::status load_edited(const W& good, Edit&& edit) {
    blob_buffer b(sizeof(W) + blob_traits<W>::header);
    auto copy = std::make_unique<W>(good);
    edit(*copy);
    EXPECT_EQ(sf::write_blob(*copy, b.data(), b.size), sf::status::ok);
    const W* w = nullptr;
    const sf::status s = sf::load_blob(b.data(), b.size, w);
    if (s == sf::status::ok)
        expect_backends_agree(*w, make_input_int8<typename W::config>(input_kind::large), 4, "edited");
    return s;
}

// glu's gate and RMSNorm's centre, likewise.
TEST(HostileBlob, Int8GateAndRmsNormBoundsAreExact) {
    using G = sf::encoder_weights<swiglu_causal, sf::int8>;
    const G& gated = weights_for<swiglu_causal, sf::int8>();
    const auto ok = sf::status::ok, bad = sf::status::blob_bad_quantization;
    EXPECT_EQ(load_edited(gated, [&](G& w) { w.layer[1].gate.multiplier = 32767; }), ok);
    EXPECT_EQ(load_edited(gated, [&](G& w) { w.layer[1].gate.multiplier = 32768; }), bad);
    EXPECT_EQ(load_edited(gated, [&](G& w) { w.layer[0].gate.b_zero_point = -128; }), ok);
    EXPECT_EQ(load_edited(gated, [&](G& w) { w.layer[0].gate.b_zero_point = -129; }), bad);
    EXPECT_EQ(load_edited(gated, [&](G& w) { w.layer[0].gate.shift = 0; }), bad);
    EXPECT_EQ(load_edited(gated, [&](G& w) { w.layer[0].gate.reserved = 1; }), bad);
    using R = sf::encoder_weights<rms_pre, sf::int8>;
    const R& rms = weights_for<rms_pre, sf::int8>();
    // (from the stream: the centre is its zero point, 0)
    EXPECT_EQ(load_edited(rms, [&](R& w) { w.layer[1].norm2.input_zero_point = 0; }), ok);
    EXPECT_EQ(load_edited(rms, [&](R& w) { w.layer[1].norm2.input_zero_point = 1; }), bad);
    EXPECT_EQ(load_edited(rms, [&](R& w) { w.final_norm.norm.reserved = 1; }), bad);
}

TEST(HostileBlob, Int8BoundsAreExact) {
    using W = sf::encoder_weights<small_pre, sf::int8>;
    const W& good = weights_for<small_pre, sf::int8>();
    const std::int64_t bias_limit = decltype(good.layer[0].ff2)::bias_limit;
    const auto ok = sf::status::ok, bad = sf::status::blob_bad_quantization;
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].ff2.bias[1] = std::int32_t(bias_limit); }), ok);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].ff2.bias[1] = std::int32_t(-bias_limit); }), ok);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].ff2.bias[1] = std::int32_t(bias_limit + 1); }), bad);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].query.bias[0] = std::numeric_limits<std::int32_t>::min(); }), bad);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].norm1.beta[2] = 1 << 30; }), ok);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].norm1.beta[2] = (1 << 30) + 1; }), bad);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.final_norm.norm.beta[5] = -(1 << 30) - 1; }), bad);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].ff1.w[1][0][2] = 5; }), bad);  // input 6 of 6: padding
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].ff1.w[1][0][1] = -128; }), ok);  // input 5: a weight
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].residual1.a_zero_point = 128; }), bad);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].residual1.multiplier = 32767; }), ok);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].residual1.multiplier = 32768; }), bad);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].residual2.shift = 30; }), ok);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].residual2.shift = 31; }), bad);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].residual2.reserved = 1; }), bad);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].input1.shift = 1; }), bad);  // pre-norm: unused, 0
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].gate.multiplier = 1; }), bad);  // no glu: unused, 0
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].reserved[5] = 1; }), bad);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.output.zero_point = 1; }), bad);  // the stream: symmetric
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].out.output_zero_point = -129; }), bad);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.input.zero_point = 1000; }), bad);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.output.scale = 0.0f; }), bad);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.output.scale = std::numeric_limits<float>::quiet_NaN(); }), bad);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.input.scale = std::numeric_limits<float>::infinity(); }), bad);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].norm2.eps = -1; }), bad);
    EXPECT_EQ(load_edited(good, [&](W& w) { w.layer[0].attention.logits.shift = 63; }), bad);
}

TEST(HostileBlob, NonFiniteFloatWeights) {
    for (float v : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity()}) {
        auto w = std::make_unique<sf::encoder_weights<small_pre, sf::f32>>(weights_for<small_pre, sf::f32>());
        w->final_norm.beta[5] = v;
        EXPECT_EQ(sf::check_weights(*w), sf::status::blob_non_finite);
        auto m = std::make_unique<sf::model_weights<small_model, sf::f32>>(model_weights_for<small_model, sf::f32>());
        m->positions.table[3][1] = v;
        EXPECT_EQ(sf::check_weights(*m), sf::status::blob_non_finite);
        auto h = std::make_unique<sf::model_weights<small_model, sf::f16>>(model_weights_for<small_model, sf::f16>());
        h->head.b[2] = sf::math::float_to_half(v);
        EXPECT_EQ(sf::check_weights(*h), sf::status::blob_non_finite);
    }
    EXPECT_EQ(sf::check_weights(weights_for<small_pre, sf::f16>()), sf::status::ok);
    // The largest finite values load: they may overflow a pass, which then says so.
    auto w = std::make_unique<sf::encoder_weights<small_pre, sf::f32>>(weights_for<small_pre, sf::f32>());
    for (auto& row : w->layer[0].ff1_w)
        for (float& v : row) v = std::numeric_limits<float>::max();
    EXPECT_EQ(sf::check_weights(*w), sf::status::ok);
    const auto x = make_input<small_pre>(input_kind::normal);
    sf::status s;
    const auto y = run<sf::reference>(*w, x, 3, s);
    EXPECT_EQ(s, sf::status::non_finite_output);
    const std::uint32_t nan = sf::math::canonical_nan_bits;
    for (int i = 0; i < 3 * small_pre::d_model; ++i) EXPECT_EQ(std::memcmp(&y[4 * i], &nan, 4), 0) << i;
    for (std::size_t i = 3 * small_pre::d_model * 4; i < y.size(); ++i) EXPECT_EQ(y[i], 0) << "padded rows: zero";
    expect_backends_agree(*w, x, 3, "max weights");
}

// ---- inputs ---------------------------------------------------------------------------------

const float specials[] = {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::signaling_NaN(), std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity()};

// A non-finite value in a valid row: non_finite_input, output untouched; in a padded row: ignored.
template <class W, class X>
void non_finite_inputs(const W& w, std::vector<X> x, int n, std::size_t values_per_token) {
    sf::status s;
    const auto clean = run<sf::reference>(w, x, n, s);
    ASSERT_EQ(s, sf::status::ok);
    const auto untouched = run<sf::reference>(w, x, 0, s);  // bad_valid_len: the fill, as it was
    ASSERT_EQ(s, sf::status::bad_valid_len);
    for (float v : specials)
        for (std::size_t at : {std::size_t(0), n * values_per_token - 1}) {
            std::vector<X> bad = x;
            bad[at] = v;
            EXPECT_TRUE(run<sf::default_backend>(w, bad, n, s) == untouched) << "output written";
            EXPECT_EQ(s, sf::status::non_finite_input) << at;
        }
    if (std::size_t(n) * values_per_token < x.size()) {
        x[n * values_per_token] = specials[0];  // first value past the valid tokens: never read
        EXPECT_TRUE(run<sf::default_backend>(w, x, n, s) == clean);
        EXPECT_EQ(s, sf::status::ok);
    }
}

template <class P>
void float_fronts() {
    SCOPED_TRACE(precision_name<P>);
    non_finite_inputs(weights_for<small_pre, P>(), make_input<small_pre>(input_kind::normal), 2, small_pre::d_model);
    non_finite_inputs(weights_for<tanh_post, P>(), make_input<tanh_post>(input_kind::normal), 9, tanh_post::d_model);
    non_finite_inputs(model_weights_for<small_model, P>(), make_model_input<small_model>(input_kind::normal), 2, 5);
    non_finite_inputs(model_weights_for<vit_model, P>(), make_model_input<vit_model>(input_kind::normal),
                      vit_model::input_tokens, vit_model::features);
}
TEST(HostileInput, NonFiniteF32) { float_fronts<sf::f32>(); }
TEST(HostileInput, NonFiniteF16) { float_fronts<sf::f16>(); }

TEST(HostileInput, QuantizeRefusesNonFinite) {
    const auto& w = weights_for<small_pre, sf::int8>();
    for (float v : specials) {
        std::vector<float> x(6, 0.5f);
        x[4] = v;
        std::vector<stream_t> q(6, 9);
        EXPECT_EQ(sf::quantize_input(w, x.data(), q.data(), x.size()), sf::status::non_finite_input);
        EXPECT_EQ(q, std::vector<stream_t>(6, 9));
    }
    const std::vector<float> x{3e38f, -3e38f, 1e-40f, -1e-40f, 0.0f, -0.0f};
    std::vector<stream_t> q(6);
    ASSERT_EQ(sf::quantize_input(w, x.data(), q.data(), x.size()), sf::status::ok);
    EXPECT_EQ(q, (std::vector<stream_t>{32767, -32768, 0, 0, 0, 0}));  // saturate; subnormals: the zero point
    EXPECT_EQ(sf::quantize_input(w, nullptr, q.data(), 1), sf::status::null_pointer);
}

// Values every backend must treat alike: huge (overflowing or not), subnormal, all equal (zero
// LayerNorm variance, equal attention scores), alternating extremes (huge scores).
template <class Cfg>
std::vector<std::vector<float>> degenerate_inputs() {
    const std::size_t n = std::size_t(Cfg::seq_len) * Cfg::d_model;
    std::vector<std::vector<float>> v;
    for (float c : {0.0f, 1.0f, -3.5f, 1e-40f, 1e30f, 3.4e38f}) v.push_back(std::vector<float>(n, c));
    std::vector<float> sub(n), alt(n), mixed(n);
    for (std::size_t i = 0; i < n; ++i) {
        sub[i] = float(int(i % 7) - 3) * 1e-41f;
        alt[i] = (i % 2 ? -1.0f : 1.0f) * 1e18f;
        mixed[i] = i % 3 == 0 ? 1e-39f : float(i % 5) * 1e5f;
    }
    v.push_back(sub), v.push_back(alt), v.push_back(mixed);
    return v;
}

template <class Cfg, class P>
void degenerate_encoder() {
    SCOPED_TRACE(precision_name<P>);
    for (const auto& x : degenerate_inputs<Cfg>())
        for (int n : valid_lens<Cfg>()) {
            if constexpr (std::is_same<P, sf::int8>::value) {
                std::vector<stream_t> q(x.size());
                ASSERT_EQ(sf::quantize_input(weights_for<Cfg, P>(), x.data(), q.data(), q.size()), sf::status::ok);
                expect_backends_agree(weights_for<Cfg, P>(), q, n, "degenerate input " + std::to_string(x[1]));
            } else {
                expect_backends_agree(weights_for<Cfg, P>(), x, n, "degenerate input " + std::to_string(x[1]));
            }
        }
}

template <class P>
void degenerate_all() {
    degenerate_encoder<small_pre, P>();
    degenerate_encoder<small_post, P>();
    degenerate_encoder<odd_pre_gelu, P>();
    degenerate_encoder<tanh_post, P>();
    degenerate_encoder<long_gelu, P>();
}
TEST(HostileInput, DegenerateF32) { degenerate_all<sf::f32>(); }
TEST(HostileInput, DegenerateF16) { degenerate_all<sf::f16>(); }
TEST(HostileInput, DegenerateInt8) { degenerate_all<sf::int8>(); }

// Stream extremes: every input -32768, every input 32767, alternating: the saturating paths.
TEST(HostileInput, Int8Extremes) {
    for (stream_t a : {stream_t(-32768), stream_t(32767)})
        for (stream_t b : {stream_t(-32768), stream_t(32767)}) {
            std::vector<stream_t> x(std::size_t(odd_pre_gelu::seq_len) * odd_pre_gelu::d_model);
            for (std::size_t i = 0; i < x.size(); ++i) x[i] = i % 2 ? a : b;
            for (int n : valid_lens<odd_pre_gelu>())
                expect_backends_agree(weights_for<odd_pre_gelu, sf::int8>(), x, n, "int8 extremes");
        }
}

// A huge but finite input that overflows the pass: non_finite_output, canonical NaNs, zero pads.
TEST(HostileInput, OverflowSaysSo) {
    std::vector<float> x(std::size_t(tanh_post::seq_len) * tanh_post::d_model, 1.0f);
    for (std::size_t i = 0; i < x.size(); i += 3) x[i] = 3.0e38f;
    sf::status s;
    const auto y = run<sf::default_backend>(weights_for<tanh_post, sf::f32>(), x, 4, s);
    ASSERT_EQ(s, sf::status::non_finite_output);
    const std::uint32_t nan = sf::math::canonical_nan_bits;
    for (int i = 0; i < 4 * tanh_post::d_model; ++i) ASSERT_EQ(std::memcmp(&y[4 * i], &nan, 4), 0) << i;
    EXPECT_TRUE(std::all_of(y.begin() + 4 * 4 * tanh_post::d_model, y.end(), [](unsigned char b) { return b == 0; }));
    // A classifier answers with the status, not with a label.
    sf::model<vit_model, sf::f32> m(model_weights_for<vit_model, sf::f32>());
    std::vector<float> image(vit_model::input_values, 3.0e38f), logits(vit_model::classes, 5.0f);
    int label = -1;
    EXPECT_EQ(m.classify(image.data(), logits.data(), &label), sf::status::non_finite_output);
    EXPECT_EQ(label, -1);
}

float from_bits(std::uint32_t b) {
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
}

// The finiteness test reads the exponent field: the largest finite values pass, every infinity
// and NaN (any sign, any payload) fails; a failed pass leaves one NaN whatever payloads it made.
TEST(HostileInput, FinitenessAndTheCanonicalNaN) {
    for (std::uint32_t b : {0x00000000u, 0x80000001u, 0x007fffffu, 0x7f7fffffu, 0xff7fffffu, 0x3f800000u})
        EXPECT_TRUE(sf::math::is_finite(from_bits(b))) << std::hex << b;
    for (std::uint32_t b : {0x7f800000u, 0xff800000u, 0x7f800001u, 0x7fc00000u, 0xffc00000u, 0x7fffffffu, 0xffbfffffu})
        EXPECT_FALSE(sf::math::is_finite(from_bits(b))) << std::hex << b;
    for (std::uint16_t h : {0x7bffu, 0xfbffu, 0x0001u, 0x8000u})
        EXPECT_TRUE(sf::math::is_finite_half(h)) << std::hex << h;
    for (std::uint16_t h : {0x7c00u, 0xfc00u, 0x7c01u, 0x7e00u, 0xffffu}) EXPECT_FALSE(sf::math::is_finite_half(h)) << h;

    std::vector<float> y{1.0f, from_bits(0xffc00001u), -2.5f, from_bits(0x7f800000u), from_bits(0x7fa00000u), 0.0f};
    EXPECT_FALSE(sf::math::canonicalize_non_finite(y.data(), y.size()));
    for (std::size_t i = 0; i < y.size(); ++i)
        EXPECT_EQ(std::memcmp(&y[i], &sf::math::canonical_nan_bits, 4), 0) << "value " << i;
    std::vector<float> finite{1.0f, -0.0f, 3.4e38f, 1e-45f}, copy = finite;
    EXPECT_TRUE(sf::math::canonicalize_non_finite(finite.data(), finite.size()));
    EXPECT_EQ(std::memcmp(finite.data(), copy.data(), finite.size() * 4), 0);
}

// Calibration refuses what forward() refuses, records nothing of it and leaves its output
// untouched: the int8 weights equal those of a calibration that never saw the refused inputs.
TEST(HostileInput, CalibratorRefusesWhatForwardRefuses) {
    using Cfg = tanh_post;
    constexpr std::size_t n = std::size_t(Cfg::seq_len) * Cfg::d_model;
    const std::vector<float> good = make_input<Cfg>(input_kind::normal);
    std::vector<float> nan_input = good, huge(n, 1.0f), y(n, 7.0f);
    nan_input[5] = specials[0];
    for (std::size_t i = 0; i < n; i += 3) huge[i] = 3.0e38f;  // overflows (OverflowSaysSo)
    sf::quant::calibrator<Cfg> plain(weights_for<Cfg, sf::f32>()), refusing(weights_for<Cfg, sf::f32>());
    ASSERT_EQ(plain.observe(good.data(), Cfg::seq_len), sf::status::ok);
    EXPECT_EQ(refusing.observe(nan_input.data(), Cfg::seq_len, y.data()), sf::status::non_finite_input);
    EXPECT_EQ(refusing.observe(huge.data(), 4, y.data()), sf::status::non_finite_output);
    EXPECT_EQ(refusing.observe(nullptr, Cfg::seq_len, y.data()), sf::status::null_pointer);
    EXPECT_EQ(refusing.observe(good.data(), 0, y.data()), sf::status::bad_valid_len);
    EXPECT_EQ(refusing.observe(good.data(), Cfg::seq_len + 1, y.data()), sf::status::bad_valid_len);
    EXPECT_EQ(y, std::vector<float>(n, 7.0f)) << "a refused observe wrote its output";
    ASSERT_EQ(refusing.observe(good.data(), Cfg::seq_len), sf::status::ok);
    const auto a = std::make_unique<sf::encoder_weights<Cfg, sf::int8>>(),
               b = std::make_unique<sf::encoder_weights<Cfg, sf::int8>>();
    plain.quantize(*a), refusing.quantize(*b);
    EXPECT_EQ(std::memcmp(a.get(), b.get(), sizeof *a), 0) << "a refused input changed the calibration";
}

template <class M>
void expect_model_calibration_refuses(std::vector<sf::model_input_t<M>> bad, sf::status expected) {
    const auto good = make_model_input<M>(input_kind::normal);
    sf::quant::model_calibrator<M> plain(model_weights_for<M, sf::f32>()), refusing(model_weights_for<M, sf::f32>());
    ASSERT_EQ(plain.observe(good.data(), M::input_tokens), sf::status::ok);
    EXPECT_EQ(refusing.observe(bad.data(), M::input_tokens), expected);
    EXPECT_EQ(refusing.observe(good.data(), 0), sf::status::bad_valid_len);
    EXPECT_EQ(refusing.observe(nullptr, M::input_tokens), sf::status::null_pointer);
    ASSERT_EQ(refusing.observe(good.data(), M::input_tokens), sf::status::ok);
    using weights = sf::model_weights<M, sf::int8>;
    const auto a = std::make_unique<weights>(), b = std::make_unique<weights>();
    plain.quantize(*a), refusing.quantize(*b);
    EXPECT_EQ(std::memcmp(a.get(), b.get(), sizeof *a), 0) << "a refused input changed the calibration";
}

TEST(HostileInput, ModelCalibratorRefusesWhatForwardRefuses) {
    auto features = make_model_input<feature_model>(input_kind::normal);
    features[3] = -std::numeric_limits<float>::infinity();
    expect_model_calibration_refuses<feature_model>(features, sf::status::non_finite_input);
    auto tokens = make_model_input<token_model>(input_kind::normal);
    tokens[1] = token_model::vocab;
    expect_model_calibration_refuses<token_model>(tokens, sf::status::bad_token_id);
    // A finite image that overflows the embedding: the encoder's input is no longer finite.
    expect_model_calibration_refuses<vit_model>(std::vector<float>(vit_model::input_values, 3.0e38f),
                                                sf::status::non_finite_output);
}

}  // namespace
