// Whole models (model.hpp): every backend in this build reproduces the baseline reference
// outputs byte for byte, with f32 and f16 weights; bad calls and bad token ids return their
// status and write nothing; model blobs load zero-copy, with a distinct status for each kind of
// mismatch, and across sequence lengths where the model allows it; causal attention computes
// only the scores it keeps; the byte counts are compile-time constants.
#include <gtest/gtest.h>

#include <staticformer/staticformer.hpp>

#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "common/compare.hpp"
#include "common/files.hpp"
#include "common/model_cases.hpp"
#include "common/options.hpp"

namespace {

using namespace sftest;

template <class M, class P>
void check_model_case(const char* name) {
    const std::string& dir = test_options().reference_dir;
    ASSERT_FALSE(dir.empty()) << "pass --reference-dir=DIR (the reference_outputs generator's output)";
    for (input_kind kind : all_input_kinds) {
        for (int n : model_valid_lens<M>()) {
            std::vector<unsigned char> expected;
            const std::string path = output_file(dir, name, precision_name<P>, n, kind);
            ASSERT_TRUE(read_file(path, expected)) << "missing " << path;
            ASSERT_EQ(expected.size(), (model_output_bytes_count<M, P>));
            sf::status s;
            const auto ref = model_output_bytes<M, P, sf::reference>(kind, n, s);
            ASSERT_EQ(s, sf::status::ok);
            EXPECT_EQ(ref, expected) << name << " " << precision_name<P> << " reference, valid " << n << ", "
                                     << name_of(kind);
#if STATICFORMER_HAS_SIMD
            const auto vec = model_output_bytes<M, P, sf::simd>(kind, n, s);
            ASSERT_EQ(s, sf::status::ok);
            EXPECT_EQ(vec, expected) << name << " " << precision_name<P> << " simd, valid " << n << ", " << name_of(kind);
#elif STATICFORMER_HAS_ARMV7_NEON
            if constexpr (is_integer<P>) {  // (its float kernels are the reference's)
                const auto vec = model_output_bytes<M, P, sf::armv7_neon>(kind, n, s);
                ASSERT_EQ(s, sf::status::ok);
                EXPECT_EQ(vec, expected) << name << " " << precision_name<P> << " armv7_neon, valid " << n << ", "
                                         << name_of(kind);
            }
#endif
        }
    }
}

#define MODEL_BIT_EXACT_TEST(name)                                               \
    TEST(ModelBitExact, name) { check_model_case<name, sf::f32>(#name); }        \
    TEST(ModelBitExactF16, name) { check_model_case<name, sf::f16>(#name); }     \
    TEST(ModelBitExactInt8, name) { check_model_case<name, sf::int8>(#name); }   \
    TEST(ModelBitExactA16w8, name) { check_model_case<name, sf::a16w8>(#name); }
STATICFORMER_MODEL_CASES(MODEL_BIT_EXACT_TEST)
#undef MODEL_BIT_EXACT_TEST

// int8 models follow their f32 model: the dequantised logits keep an SQNR >= 20 dB and the same
// arg-max on the calibration-like input; rows the same within an SQNR of 20 dB. a16w8 models:
// 30 dB (int8 weights bound them; the encoders reach 45 dB on the reference configurations).
template <class M, class P = sf::int8>
void check_int8_accuracy(const char* name) {
    constexpr double bound = std::is_same<P, sf::a16w8>::value ? 30.0 : 20.0;
    double signal = 0, noise = 0;
    int agree = 0, total = 0;
    for (int n : model_valid_lens<M>()) {
        sf::status s;
        const auto f = model_output_bytes<M, sf::f32, sf::reference>(input_kind::normal, n, s);
        const auto q = model_output_bytes<M, P, sf::reference>(input_kind::normal, n, s);
        std::vector<float> y(M::output_values), yq(M::output_values);
        std::memcpy(y.data(), f.data(), f.size());
        if constexpr (M::has_head) {
            sf::dequantize_logits(model_weights_for<M, P>(), reinterpret_cast<const std::int32_t*>(q.data()),
                                  yq.data(), yq.size());
            agree += sf::arg_max(y.data(), M::classes) == sf::arg_max(yq.data(), M::classes);
            ++total;
        } else {
            sf::dequantize_model_output(model_weights_for<M, P>(), reinterpret_cast<const std::int16_t*>(q.data()),
                                        yq.data(), yq.size());
        }
        for (std::size_t i = 0; i < y.size(); ++i) signal += double(y[i]) * y[i], noise += double(y[i] - yq[i]) * (y[i] - yq[i]);
    }
    const double sqnr = 10 * std::log10(signal / std::max(noise, 1e-30));
    std::printf("  %s model %-14s SQNR %.1f dB, arg-max agrees %d / %d\n", precision_name<P>, name, sqnr, agree, total);
    EXPECT_GE(sqnr, bound) << name;
    EXPECT_EQ(agree, total) << name;
}

#define MODEL_INT8_ACCURACY_TEST(name)                                  \
    TEST(ModelInt8Accuracy, name) { check_int8_accuracy<name>(#name); } \
    TEST(ModelA16w8Accuracy, name) { check_int8_accuracy<name, sf::a16w8>(#name); }
STATICFORMER_MODEL_CASES(MODEL_INT8_ACCURACY_TEST)

// A normalised mean row as the output (no head): int8 writes it in pooled_norm's quantisation.
using pooled_rows = sf::model_config<pooled_model::encoder, sf::feature_input<6>, sf::sinusoidal_positions,
                                     sf::mean_pooling, sf::pooled_norm>;
TEST(ModelInt8Accuracy, PooledNormWithoutHead) { check_int8_accuracy<pooled_rows>("pooled_rows"); }
TEST(ModelA16w8Accuracy, PooledNormWithoutHead) { check_int8_accuracy<pooled_rows, sf::a16w8>("pooled_rows"); }
#undef MODEL_INT8_ACCURACY_TEST

// The model's steps done by hand with the public kernels and encoder: the composition is what
// model.hpp's header says it is.
TEST(ModelSteps, TokenModelEqualsItsSteps) {
    using M = token_model;
    using Cfg = M::encoder;
    constexpr int D = M::d_model, S = M::seq_len, n = 6;
    const auto& w = model_weights_for<M>();
    const auto ids = make_model_input<M>(input_kind::normal);
    std::vector<float> rows(std::size_t(S) * D, 0.0f);
    // (scaled embeddings take their positions in one fused multiply-add)
    sf::kernels::reference::embed_scaled<D>(&w.input.table[0][0], ids.data(), n, float(std::sqrt(double(D))),
                                            &sf::math::sinusoids<S, D>.v[0][0], rows.data());
    sf::kernels::reference::layer_norm<D>(rows.data(), n, w.embedding_norm.gamma, w.embedding_norm.beta, Cfg::eps,
                                          rows.data());
    static sf::workspace<Cfg> ews;
    ASSERT_EQ(sf::forward<sf::reference>(w.encoder, ews, rows.data(), rows.data(), n), sf::status::ok);
    float mean[D], logits[M::classes];
    sf::kernels::reference::mean_rows<D>(rows.data(), n, mean);
    sf::kernels::reference::linear<D, M::classes>(mean, 1, &w.head.w[0][0], w.head.b, logits);

    sf::model<M, sf::f32, sf::reference> m{w};
    float out[M::classes];
    int label = -1;
    ASSERT_EQ(m.classify(ids.data(), out, &label, n), sf::status::ok);
    EXPECT_TRUE(bit_equal(out, logits, M::classes));
    EXPECT_EQ(label, sf::arg_max(logits, M::classes));
}

// Each norm outside the layers with its own epsilon: the embedding's, the final one (the same
// layers without final_norm, then the norm by hand) and the pooled row's.
TEST(ModelSteps, PooledModelEqualsItsSteps) {
    using M = pooled_model;
    using Cfg = M::encoder;
    using plain = sf::encoder_config<Cfg::d_model, Cfg::heads, Cfg::d_ff, Cfg::seq_len, Cfg::layers, sf::pre_norm, sf::silu>;
    static_assert(M::embedding_eps == 0.05f && Cfg::final_eps == 0.01f && M::pooled_eps == 0.1f && Cfg::eps == 1e-5f, "");
    constexpr int D = M::d_model, S = M::seq_len, n = 5;
    const auto& w = model_weights_for<M>();
    const auto x = make_model_input<M>(input_kind::normal);
    std::vector<float> rows(std::size_t(S) * D, 0.0f);
    sf::kernels::reference::linear<M::features, D>(x.data(), n, &w.input.w[0][0], w.input.b, rows.data());
    sf::kernels::reference::add(rows.data(), &sf::math::sinusoids<S, D>.v[0][0], n * D);
    sf::kernels::reference::layer_norm<D>(rows.data(), n, w.embedding_norm.gamma, w.embedding_norm.beta, 0.05f,
                                          rows.data());
    static sf::encoder_weights<plain, sf::f32> layers;
    static_assert(sizeof layers.layer == sizeof w.encoder.layer, "");
    std::memcpy(&layers.layer, &w.encoder.layer, sizeof layers.layer);
    static sf::workspace<plain> ews;
    ASSERT_EQ(sf::forward<sf::reference>(layers, ews, rows.data(), rows.data(), n), sf::status::ok);
    sf::kernels::reference::layer_norm<D>(rows.data(), n, w.encoder.final_norm.gamma, w.encoder.final_norm.beta,
                                          0.01f, rows.data());
    float mean[D], logits[M::classes];
    sf::kernels::reference::mean_rows<D>(rows.data(), n, mean);
    sf::kernels::reference::layer_norm<D>(mean, 1, w.head.norm_gamma, w.head.norm_beta, 0.1f, mean);
    sf::kernels::reference::linear<D, M::classes>(mean, 1, &w.head.w[0][0], w.head.b, logits);

    sf::model<M, sf::f32, sf::reference> m{w};
    float out[M::classes];
    ASSERT_EQ(m.forward(x.data(), out, n), sf::status::ok);
    EXPECT_TRUE(bit_equal(out, logits, M::classes));
}

TEST(ModelSteps, SinusoidTableIsTheFormula) {
    constexpr int S = 50, D = 14;
    for (int p = 0; p < S; ++p)
        for (int c = 0; c < D; ++c) {
            const double angle = p / std::pow(10000.0, double(c - c % 2) / D);
            const double expected = c % 2 ? std::cos(angle) : std::sin(angle);
            EXPECT_NEAR((sf::math::sinusoids<S, D>.v[p][c]), expected, 1e-6) << p << ", " << c;
        }
}

// ---- statuses --------------------------------------------------------------------------------

TEST(ModelStatus, BadCallsWriteNothing) {
    using M = token_model;
    sf::model<M> m{model_weights_for<M>()};
    auto ids = make_model_input<M>(input_kind::normal);
    std::vector<float> out(M::output_values, 7.0f);
    int label = 42;
    // After each refused call: the logits and the label as they were.
    const auto untouched = [&](const char* what) {
        for (float v : out) EXPECT_EQ(v, 7.0f) << what;
        EXPECT_EQ(label, 42) << what;
    };
    EXPECT_EQ(m.classify(ids.data(), out.data(), &label, 0), sf::status::bad_valid_len);
    untouched("valid 0");
    EXPECT_EQ(m.classify(ids.data(), out.data(), &label, M::input_tokens + 1), sf::status::bad_valid_len);
    untouched("valid past seq_len");
    EXPECT_EQ(m.classify(nullptr, out.data(), &label, 3), sf::status::null_pointer);
    untouched("null input");
    EXPECT_EQ(m.classify(ids.data(), nullptr, &label, 3), sf::status::null_pointer);
    untouched("null output");
    EXPECT_EQ(m.forward(reinterpret_cast<const std::int32_t*>(out.data()), out.data(), 3),
              sf::status::overlapping_buffers);
    untouched("overlap");
    for (std::int32_t bad : {-1, M::vocab, 1 << 30}) {
        ids[2] = bad;
        EXPECT_EQ(m.classify(ids.data(), out.data(), &label, 3), sf::status::bad_token_id) << bad;
        untouched("bad token id");
        EXPECT_EQ(m.classify(ids.data(), out.data(), &label, 2), sf::status::ok) << "only valid tokens are read";
        EXPECT_NE(out[0], 7.0f);  // the ok call did write
        std::fill(out.begin(), out.end(), 7.0f);
        label = 42;
    }
}

TEST(ModelStatus, ImageModelsTakeWholeImages) {
    using M = vit_model;
    sf::model<M> m{model_weights_for<M>()};
    const auto img = make_model_input<M>(input_kind::normal);
    float logits[M::classes];
    int label;
    EXPECT_EQ(m.classify(img.data(), logits, &label, M::input_tokens - 1), sf::status::bad_valid_len);
    EXPECT_EQ(m.classify(img.data(), logits, &label), sf::status::ok);
    EXPECT_GE(label, 0);
    EXPECT_LT(label, M::classes);
}

TEST(ModelStatus, PaddedRowsOfTheSequenceAreZero) {
    using M = feature_model;
    sf::model<M> m{model_weights_for<M>()};
    const auto x = make_model_input<M>(input_kind::normal);
    std::vector<float> y(M::output_values, 5.0f);
    ASSERT_EQ(m.forward(x.data(), y.data(), 4), sf::status::ok);
    for (std::size_t i = std::size_t(5) * M::d_model; i < y.size(); ++i) ASSERT_EQ(bits_of(y[i]), 0u) << i;
    for (std::size_t i = 0; i < std::size_t(5) * M::d_model; ++i) ASSERT_TRUE(std::isfinite(y[i]));
}

TEST(ModelStatus, Int8BadCallsWriteNothing) {
    using M = token_model;
    sf::model<M, sf::int8> m{model_weights_for<M, sf::int8>()};
    auto ids = make_model_input<M>(input_kind::normal);
    std::int32_t logits[M::classes] = {7, 7, 7, 7};
    int label = 42;
    ids[1] = M::vocab;
    EXPECT_EQ(m.classify(ids.data(), logits, &label, 3), sf::status::bad_token_id);
    EXPECT_EQ(m.classify(ids.data(), logits, &label, 0), sf::status::bad_valid_len);
    for (std::int32_t v : logits) EXPECT_EQ(v, 7);
    EXPECT_EQ(label, 42);
    ids[1] = 0;
    EXPECT_EQ(m.classify(ids.data(), logits, &label, 3), sf::status::ok);
    EXPECT_EQ(label, sf::arg_max(logits, M::classes));
}

TEST(ModelStatus, Int8SequencePaddingIsZero) {
    using M = feature_model;
    const auto& w = model_weights_for<M, sf::int8>();
    sf::model<M, sf::int8> m{w};
    const auto x = make_model_input_for<M, sf::int8>(input_kind::normal);
    std::vector<std::int16_t> y(M::output_values, 5);
    ASSERT_EQ(m.forward(x.data(), y.data(), 4), sf::status::ok);
    for (std::size_t i = std::size_t(5) * M::d_model; i < y.size(); ++i) ASSERT_EQ(y[i], 0) << i;
}

// a16w8 models read int16 features within their projection's input limit: one value past it
// (or -32768) returns input_out_of_range and writes nothing; quantize_model_input keeps within it.
TEST(ModelStatus, A16w8InputsBeyondTheLimitWriteNothing) {
    using M = pooled_model;
    const auto& w = model_weights_for<M, sf::a16w8>();
    sf::model<M, sf::a16w8> m{w};
    EXPECT_TRUE(sf::is_valid(w));
    EXPECT_TRUE(sf::is_valid(model_weights_for<vit_model, sf::a16w8>()));
    EXPECT_TRUE(sf::is_valid(model_weights_for<token_model, sf::a16w8>()));
    constexpr std::int16_t limit = std::int16_t(sf::a16w8_limits::input_limit(M::features));
    std::vector<float> big(M::input_values, 1.0e9f);
    std::vector<std::int16_t> x(M::input_values);
    ASSERT_EQ(sf::quantize_model_input(w, big.data(), x.data(), x.size()), sf::status::ok);
    EXPECT_EQ(x[0], limit);
    std::int32_t logits[M::classes] = {7, 7, 7};
    int label = 42;
    EXPECT_EQ(m.classify(x.data(), logits, &label), sf::status::ok);
    for (std::int16_t bad : {std::int16_t(limit + (limit < 32767 ? 1 : 0)), std::int16_t(-32768)}) {
        if (bad == limit) continue;  // (a limit of 32767: only -32768 is past it)
        auto y = x;
        y[std::size_t(M::input_values) - 1] = bad;  // the last valid value
        std::int32_t untouched[M::classes] = {7, 7, 7};
        label = 42;
        EXPECT_EQ(m.classify(y.data(), untouched, &label), sf::status::input_out_of_range) << bad;
        for (std::int32_t v : untouched) EXPECT_EQ(v, 7);
        EXPECT_EQ(label, 42);
    }
    EXPECT_EQ(m.classify(x.data(), logits, &label, 0), sf::status::bad_valid_len);
}

// ---- causal attention: the masked scores cost nothing ---------------------------------------

struct counting_keys : sf::kernel_set<sf::reference> {
    static inline long keys = 0;
    template <int HeadDim, int KStride, int QStride>
    static void attention_scores(const float* q, int rows, const float* kt, int n, float* s) noexcept {
        keys += long(rows) * n;
        sf::kernel_set<sf::reference>::attention_scores<HeadDim, KStride, QStride>(q, rows, kt, n, s);
    }
};

TEST(ModelWork, CausalComputesOnlyKeptScores) {
    using M = token_model;
    using Cfg = M::encoder;
    static sf::model_workspace<M, Cfg::tile> ws;
    const auto ids = make_model_input<M>(input_kind::normal);
    for (int n = 1; n <= M::input_tokens; ++n) {
        counting_keys::keys = 0;
        float logits[M::classes];
        ASSERT_EQ(sf::forward_with<counting_keys>(model_weights_for<M>(), ws, ids.data(), logits, n), sf::status::ok);
        EXPECT_EQ(counting_keys::keys, long(n) * (n + 1) / 2 * Cfg::heads * Cfg::layers) << n;
    }
}

// Causal: a row's output does not depend on later rows (both precisions' encoders).
TEST(ModelWork, CausalRowsIgnoreLaterRows) {
    using Cfg = causal_pre;
    const auto x = make_input<Cfg>(input_kind::normal);
    static sf::workspace<Cfg> ws;
    std::vector<float> full(x.size()), part(x.size());
    ASSERT_EQ(sf::forward<sf::reference>(weights_for<Cfg>(), ws, x.data(), full.data(), Cfg::seq_len), sf::status::ok);
    ASSERT_EQ(sf::forward<sf::reference>(weights_for<Cfg>(), ws, x.data(), part.data(), 5), sf::status::ok);
    EXPECT_TRUE(bit_equal(full.data(), part.data(), std::size_t(5) * Cfg::d_model));
    static sf::workspace_int8<Cfg> ws8;
    const auto q = make_input_int8<Cfg>(input_kind::normal);
    std::vector<stream_t> full8(q.size()), part8(q.size());
    ASSERT_EQ(sf::forward<sf::reference>(weights_for<Cfg, sf::int8>(), ws8, q.data(), full8.data(), Cfg::seq_len),
              sf::status::ok);
    ASSERT_EQ(sf::forward<sf::reference>(weights_for<Cfg, sf::int8>(), ws8, q.data(), part8.data(), 5), sf::status::ok);
    EXPECT_EQ(std::memcmp(full8.data(), part8.data(), std::size_t(5) * Cfg::d_model * sizeof(stream_t)), 0);
}

// ---- blobs -----------------------------------------------------------------------------------

template <class M, class P>
std::vector<unsigned char> model_blob() {
    std::vector<unsigned char> b(sf::blob::model_size<M, P>);
    EXPECT_EQ(sf::write_blob(model_weights_for<M, P>(), b.data(), b.size()), sf::status::ok);
    return b;
}

// A blob's bytes at a 64-byte boundary.
struct aligned_bytes {
    alignas(64) unsigned char data[1 << 17];
    std::size_t size = 0;
    explicit aligned_bytes(const std::vector<unsigned char>& b) : size(b.size()) {
        EXPECT_LE(b.size(), sizeof data);
        std::memcpy(data, b.data(), b.size());
    }
};

template <class M, class P>
sf::status load(const std::vector<unsigned char>& b) {
    static aligned_bytes a{b};
    a = aligned_bytes{b};
    const sf::model_weights<M, P>* w = nullptr;
    return sf::load_blob(a.data, a.size, w);
}

TEST(ModelBlob, RoundTripIsZeroCopy) {
    const aligned_bytes a{model_blob<vit_model, sf::f16>()};
    const sf::model_weights<vit_model, sf::f16>* w = nullptr;
    ASSERT_EQ(sf::load_blob(a.data, a.size, w), sf::status::ok);
    EXPECT_EQ(reinterpret_cast<const unsigned char*>(w), a.data + sf::blob::model_header_bytes);
    EXPECT_EQ(std::memcmp(w, &model_weights_for<vit_model, sf::f16>(), sizeof *w), 0);
}

TEST(ModelBlob, Int8RoundTripAndQuantizationChecks) {
    const auto b = model_blob<vit_model, sf::int8>();
    EXPECT_EQ((load<vit_model, sf::int8>(b)), sf::status::ok);
    EXPECT_EQ((load<vit_model, sf::f32>(b)), sf::status::blob_precision_mismatch);
    // A shift out of range, with both CRCs recomputed: refused as a bad quantisation.
    static sf::model_weights<vit_model, sf::int8> bad;
    bad = model_weights_for<vit_model, sf::int8>();
    bad.head.linear.shift = 70;
    std::vector<unsigned char> resealed(sf::blob::model_size<vit_model, sf::int8>);
    ASSERT_EQ(sf::write_blob(bad, resealed.data(), resealed.size()), sf::status::ok);
    EXPECT_EQ((load<vit_model, sf::int8>(resealed)), sf::status::blob_bad_quantization);
}

TEST(ModelBlob, A16w8RoundTripAndQuantizationChecks) {
    const auto b = model_blob<vit_model, sf::a16w8>();
    EXPECT_EQ((load<vit_model, sf::a16w8>(b)), sf::status::ok);
    EXPECT_EQ((load<vit_model, sf::int8>(b)), sf::status::blob_precision_mismatch);
    EXPECT_EQ((load<vit_model, sf::a16w8>(model_blob<vit_model, sf::int8>())), sf::status::blob_precision_mismatch);
    // The classifier's input past its input limit: refused as a bad quantisation.
    static sf::model_weights<vit_model, sf::a16w8> bad;
    bad = model_weights_for<vit_model, sf::a16w8>();
    bad.quant.head_input.output_limit = sf::a16w8_limits::input_limit(vit_model::d_model) + 1;
    std::vector<unsigned char> resealed(sf::blob::model_size<vit_model, sf::a16w8>);
    ASSERT_EQ(sf::write_blob(bad, resealed.data(), resealed.size()), sf::status::ok);
    EXPECT_EQ((load<vit_model, sf::a16w8>(resealed)), sf::status::blob_bad_quantization);
}

TEST(ModelBlob, EachMismatchHasItsStatus) {
    const auto token = model_blob<token_model, sf::f32>();
    EXPECT_EQ((load<token_model, sf::f32>(token)), sf::status::ok);
    EXPECT_EQ((load<token_model, sf::f16>(token)), sf::status::blob_precision_mismatch);
    using other_vocab = sf::model_config<token_model::encoder, sf::token_input<14>, sf::scale_embedding,
                                         sf::sinusoidal_positions, sf::embedding_norm, sf::mean_pooling,
                                         sf::classifier_head<4>>;
    EXPECT_EQ((load<other_vocab, sf::f32>(token)), sf::status::blob_input_mismatch);
    using features = sf::model_config<token_model::encoder, sf::feature_input<13>, sf::sinusoidal_positions,
                                      sf::embedding_norm, sf::mean_pooling, sf::classifier_head<4>>;
    EXPECT_EQ((load<features, sf::f32>(token)), sf::status::blob_input_mismatch);
    using unscaled = sf::model_config<token_model::encoder, sf::token_input<13>, sf::sinusoidal_positions,
                                      sf::embedding_norm, sf::mean_pooling, sf::classifier_head<4>>;
    EXPECT_EQ((load<unscaled, sf::f32>(token)), sf::status::blob_embedding_mismatch);
    using learned = sf::model_config<token_model::encoder, sf::token_input<13>, sf::scale_embedding,
                                     sf::learned_positions, sf::embedding_norm, sf::mean_pooling,
                                     sf::classifier_head<4>>;
    EXPECT_EQ((load<learned, sf::f32>(token)), sf::status::blob_embedding_mismatch);
    using classes5 = sf::model_config<token_model::encoder, sf::token_input<13>, sf::scale_embedding,
                                      sf::sinusoidal_positions, sf::embedding_norm, sf::mean_pooling,
                                      sf::classifier_head<5>>;
    EXPECT_EQ((load<classes5, sf::f32>(token)), sf::status::blob_head_mismatch);
    using cls_pool = sf::model_config<token_model::encoder, sf::token_input<13>, sf::scale_embedding,
                                      sf::sinusoidal_positions, sf::cls_token, sf::embedding_norm, sf::cls_pooling,
                                      sf::classifier_head<4>>;
    EXPECT_EQ((load<cls_pool, sf::f32>(token)), sf::status::blob_embedding_mismatch);  // the CLS token first
    using not_causal = sf::model_config<sf::encoder_config<20, 2, 36, 9, 2, sf::gelu_tanh>, sf::token_input<13>,
                                        sf::scale_embedding, sf::sinusoidal_positions, sf::embedding_norm,
                                        sf::mean_pooling, sf::classifier_head<4>>;
    EXPECT_EQ((load<not_causal, sf::f32>(token)), sf::status::blob_config_mismatch);
    using pooled_normed = sf::model_config<token_model::encoder, sf::token_input<13>, sf::scale_embedding,
                                           sf::sinusoidal_positions, sf::embedding_norm, sf::mean_pooling,
                                           sf::pooled_norm, sf::classifier_head<4>>;
    EXPECT_EQ((load<pooled_normed, sf::f32>(token)), sf::status::blob_head_mismatch);
    using own_eps = sf::model_config<token_model::encoder, sf::token_input<13>, sf::scale_embedding,
                                     sf::sinusoidal_positions, sf::embedding_norm, sf::embedding_norm_eps<1, -6>,
                                     sf::mean_pooling, sf::classifier_head<4>>;
    EXPECT_EQ((load<own_eps, sf::f32>(token)), sf::status::blob_embedding_mismatch);

    // Each norm's epsilon is part of the model: pooled_model's blob against the same model with
    // the layers' epsilon for one of its norms.
    const auto pooled = model_blob<pooled_model, sf::f32>();
    EXPECT_EQ((load<pooled_model, sf::f32>(pooled)), sf::status::ok);
    using E = pooled_model::encoder;
    using final_default = sf::model_config<sf::encoder_config<16, 2, 28, 8, 2, sf::pre_norm, sf::silu, sf::final_norm>,
                                           sf::feature_input<6>, sf::sinusoidal_positions, sf::embedding_norm,
                                           sf::embedding_norm_eps<5, -2>, sf::mean_pooling, sf::pooled_norm,
                                           sf::pooled_norm_eps<1, -1>, sf::classifier_head<3>>;
    EXPECT_EQ((load<final_default, sf::f32>(pooled)), sf::status::blob_config_mismatch);
    using embedding_default = sf::model_config<E, sf::feature_input<6>, sf::sinusoidal_positions, sf::embedding_norm,
                                               sf::mean_pooling, sf::pooled_norm, sf::pooled_norm_eps<1, -1>,
                                               sf::classifier_head<3>>;
    EXPECT_EQ((load<embedding_default, sf::f32>(pooled)), sf::status::blob_embedding_mismatch);
    using pooled_default = sf::model_config<E, sf::feature_input<6>, sf::sinusoidal_positions, sf::embedding_norm,
                                            sf::embedding_norm_eps<5, -2>, sf::mean_pooling, sf::pooled_norm,
                                            sf::classifier_head<3>>;
    EXPECT_EQ((load<pooled_default, sf::f32>(pooled)), sf::status::blob_head_mismatch);
    using unnormed = sf::model_config<E, sf::feature_input<6>, sf::sinusoidal_positions, sf::embedding_norm,
                                      sf::embedding_norm_eps<5, -2>, sf::mean_pooling, sf::classifier_head<3>>;
    EXPECT_EQ((load<unnormed, sf::f32>(pooled)), sf::status::blob_head_mismatch);

    // An encoder blob is not a model blob, nor the other way round.
    std::vector<unsigned char> enc(sf::blob::size<token_model::encoder, sf::f32>);
    ASSERT_EQ(sf::write_blob(model_weights_for<token_model>().encoder, enc.data(), enc.size()), sf::status::ok);
    EXPECT_EQ((load<token_model, sf::f32>(enc)), sf::status::blob_kind_mismatch);
    const aligned_bytes a{token};
    const sf::encoder_weights<token_model::encoder, sf::f32>* ew = nullptr;
    EXPECT_EQ(sf::load_blob(a.data, a.size, ew), sf::status::blob_kind_mismatch);
    EXPECT_EQ(ew, nullptr);

    // Corruption: header or payload CRC, truncation.
    auto bad = token;
    bad[sf::blob::model_header_bytes + 100] ^= 1;
    EXPECT_EQ((load<token_model, sf::f32>(bad)), sf::status::blob_bad_checksum);
    bad = token;
    bad[60] ^= 1;
    EXPECT_EQ((load<token_model, sf::f32>(bad)), sf::status::blob_bad_checksum);
    bad.assign(token.begin(), token.end() - 1);
    EXPECT_EQ((load<token_model, sf::f32>(bad)), sf::status::blob_too_small);
}

// Without learned positions no weight depends on seq_len: a blob of one length runs a build of
// another. With learned positions a blob serves any shorter sequence.
TEST(ModelBlob, OtherSequenceLengths) {
    using longer = sf::model_config<sf::encoder_config<20, 2, 36, 15, 2, sf::gelu_tanh, sf::causal>, sf::token_input<13>,
                                    sf::scale_embedding, sf::sinusoidal_positions, sf::embedding_norm,
                                    sf::mean_pooling, sf::classifier_head<4>>;
    const aligned_bytes a{model_blob<token_model, sf::f32>()};
    const sf::model_weights<longer, sf::f32>* w = nullptr;
    ASSERT_EQ(sf::load_blob(a.data, a.size, w), sf::status::ok);
    // Causal and the same first rows: the same logits for the same tokens.
    const auto ids = make_model_input<token_model>(input_kind::normal);
    float l1[4], l2[4];
    sf::model<token_model, sf::f32, sf::reference> short_model{model_weights_for<token_model>()};
    sf::model<longer, sf::f32, sf::reference> long_model{*w};
    ASSERT_EQ(short_model.classify(ids.data(), l1, nullptr, 6), sf::status::ok);
    ASSERT_EQ(long_model.classify(ids.data(), l2, nullptr, 6), sf::status::ok);
    EXPECT_TRUE(bit_equal(l1, l2, 4));


    // Learned positions: 11 rows in the blob serve 7, not 15.
    using learned11 = sf::model_config<sf::encoder_config<16, 2, 24, 11, 1>, sf::feature_input<3>,
                                       sf::learned_positions, sf::mean_pooling>;
    using learned7 = sf::model_config<sf::encoder_config<16, 2, 24, 7, 1>, sf::feature_input<3>,
                                      sf::learned_positions, sf::mean_pooling>;
    using learned15 = sf::model_config<sf::encoder_config<16, 2, 24, 15, 1>, sf::feature_input<3>,
                                       sf::learned_positions, sf::mean_pooling>;
    static sf::model_weights<learned11, sf::f32> w11;
    make_model_weights<learned11>(w11, 11);
    std::vector<unsigned char> b(sf::blob::model_size<learned11, sf::f32>);
    ASSERT_EQ(sf::write_blob(w11, b.data(), b.size()), sf::status::ok);
    EXPECT_EQ((load<learned15, sf::f32>(b)), sf::status::blob_embedding_mismatch);
    const aligned_bytes a11{b};
    const sf::model_weights<learned7, sf::f32>* w7 = nullptr;
    ASSERT_EQ(sf::load_blob(a11.data, a11.size, w7), sf::status::ok);
    EXPECT_EQ(std::memcmp(&w7->positions.table[0][0], &w11.positions.table[0][0], 7 * 16 * sizeof(float)), 0);
    float x[11 * 3] = {}, y7[16], y11[16];  // the input holds input_values of the larger model
    splitmix64 g{5};
    fill_uniform(x, 7 * 3, g, 1.0f);
    sf::model<learned7, sf::f32, sf::reference> m7{*w7};
    sf::model<learned11, sf::f32, sf::reference> m11{w11};
    ASSERT_EQ(m7.forward(x, y7, 7), sf::status::ok);
    ASSERT_EQ(m11.forward(x, y11, 7), sf::status::ok);
    EXPECT_TRUE(bit_equal(y7, y11, 16));
}

// ---- memory ------------------------------------------------------------------------------------

TEST(ModelMemory, ConstexprByteCounts) {
    using M = vit_model;
    using m = sf::model<M, sf::f32, sf::reference>;
    constexpr std::size_t D = M::d_model;
    static_assert(m::weight_bytes == sizeof(sf::model_weights<M, sf::f32>));
    static_assert(m::weight_bytes == sizeof(sf::encoder_weights<M::encoder, sf::f32>) +
                                         4 * (M::features * D + D + D + D * M::classes + M::classes + M::seq_len * D) +
                                         4 /* the empty embedding_norm, padded */);
    static_assert(m::workspace_bytes == sizeof(sf::model_workspace_for<M, sf::reference>));
    static_assert(sizeof(sf::model_weights<M, sf::f16>) * 2 >= m::weight_bytes);
    static_assert(sf::model<token_model>::table_bytes == sizeof(float) * token_model::seq_len * token_model::d_model);
    static_assert(sf::model<vit_model>::table_bytes == 0);
    SUCCEED();
}

}  // namespace
