// Model configurations (model_config.hpp), weights and inputs shared by the model bit-exactness
// tests, the reference-output generator and the firmware test. One per input kind, between them
// every position, CLS, pooling and head option; sizes are multiples of no SIMD width.
#pragma once

#include <staticformer/quant/convert.hpp>
#include <staticformer/quant/model_quantize.hpp>
#include <staticformer/staticformer.hpp>

#include <string>
#include <type_traits>
#include <vector>

#include "cases.hpp"
#include "random.hpp"

namespace sftest {

// A small ViT: a 2-channel 8x8 image in 2x2 patches, learned positions, CLS token and pooling.
using vit_model = sf::model_config<sf::encoder_config<24, 3, 40, 17, 2, sf::pre_norm, sf::gelu, sf::final_norm,
                                                      sf::layer_norm_eps<1, -6>>,
                                   sf::patch_input<2, 8, 8, 2>, sf::learned_positions, sf::cls_token, sf::cls_pooling,
                                   sf::classifier_head<5>>;
// Token ids, scaled embeddings, sinusoidal positions, embedding LayerNorm, causal attention,
// mean pooling.
using token_model = sf::model_config<sf::encoder_config<20, 2, 36, 9, 2, sf::gelu_tanh, sf::causal>,
                                     sf::token_input<13>, sf::scale_embedding, sf::sinusoidal_positions,
                                     sf::embedding_norm, sf::mean_pooling, sf::classifier_head<4>>;
// Sensor frames: a projection of 7 features, sinusoidal positions, a CLS token, the encoded
// sequence as output (no pooling).
using feature_model = sf::model_config<sf::encoder_config<33, 3, 70, 11, 1, sf::relu, sf::final_norm>,
                                       sf::feature_input<7>, sf::sinusoidal_positions, sf::cls_token>;

// Sensor frames pooled by their mean, the pooled row normalised (pooled_norm); each norm outside
// the layers with an epsilon of its own, large enough that a mix-up changes the output.
using pooled_model =
    sf::model_config<sf::encoder_config<16, 2, 28, 8, 2, sf::pre_norm, sf::silu, sf::final_norm, sf::final_norm_eps<1, -2>>,
                     sf::feature_input<6>, sf::sinusoidal_positions, sf::embedding_norm, sf::embedding_norm_eps<5, -2>,
                     sf::mean_pooling, sf::pooled_norm, sf::pooled_norm_eps<1, -1>, sf::classifier_head<3>>;

#define STATICFORMER_MODEL_CASES(X) X(vit_model) X(token_model) X(feature_model) X(pooled_model)

template <class M, class T>
void fill_model_part(T& array, splitmix64& g, float scale) {
    using element = std::remove_all_extents_t<T>;
    fill_uniform(reinterpret_cast<element*>(&array), sizeof(T) / sizeof(element), g, scale);
}

template <class M>
void make_model_weights(sf::model_weights<M, sf::f32>& w, std::uint64_t seed) {
    make_weights<typename M::encoder>(w.encoder, seed);
    splitmix64 g{seed ^ 0xabcdefu};
    constexpr int D = M::d_model;
    if constexpr (M::input == sf::input_kind::tokens) {
        fill_model_part<M>(w.input.table, g, 1.0f);
    } else {
        fill_model_part<M>(w.input.w, g, fan_in_scale(M::features));
        fill_model_part<M>(w.input.b, g, 0.125f);
    }
    if constexpr (M::has_cls) fill_model_part<M>(w.cls.token, g, 1.0f);
    if constexpr (M::has_embedding_norm) {
        for (int i = 0; i < D; ++i) w.embedding_norm.gamma[i] = 1.0f + g.uniform(0.25f);
        fill_model_part<M>(w.embedding_norm.beta, g, 0.125f);
    }
    if constexpr (M::has_pooled_norm) {
        for (int i = 0; i < D; ++i) w.head.norm_gamma[i] = 1.0f + g.uniform(0.25f);
        fill_model_part<M>(w.head.norm_beta, g, 0.125f);
    }
    if constexpr (M::has_head) {
        fill_model_part<M>(w.head.w, g, fan_in_scale(D));
        fill_model_part<M>(w.head.b, g, 0.125f);
    }
    if constexpr (M::positions == sf::positions_kind::learned) fill_model_part<M>(w.positions.table, g, 0.5f);
}

template <class M>
std::vector<sf::model_input_t<M>> make_model_input(input_kind kind);

template <class M, class P = sf::f32>
const sf::model_weights<M, P>& model_weights_for();

// The int8 and a16w8 weights of model_weights_for: the f32 ones quantised by the library's
// quantiser, calibrated on the "normal" input at full and half length and more inputs like it
// (64 rows at least).
template <class M, class P>
void calibrate_model(sf::model_weights<M, P>& w) {
    sf::quant::model_calibrator<M> c(model_weights_for<M, sf::f32>());
    const auto x = make_model_input<M>(input_kind::normal);
    require_ok(c.observe(x.data(), M::input_tokens), "model_calibrator::observe");
    require_ok(c.observe(x.data(), (M::input == sf::input_kind::patches ? M::input_tokens : (M::input_tokens + 1) / 2)),
               "model_calibrator::observe");
    for (int k = 1; k * M::seq_len < 64; ++k) {
        auto more = make_model_input<M>(input_kind::normal);
        splitmix64 g{0x6000u + std::uint64_t(k)};
        if constexpr (M::input == sf::input_kind::tokens)
            for (auto& id : more) id = std::int32_t(g.next() % M::vocab);
        else
            fill_uniform(more.data(), more.size(), g, 2.0f);
        require_ok(c.observe(more.data(), M::input_tokens), "model_calibrator::observe");
    }
    c.quantize(w);
}

// f32: seeded; f16: the f32 weights rounded by the library's conversion; int8, a16w8:
// calibrate_model, on the target itself.
template <class M, class P>
const sf::model_weights<M, P>& model_weights_for() {
    alignas(sf::weights_alignment) static sf::model_weights<M, P> w;
    static const bool made = [] {
        if constexpr (std::is_same<P, sf::f32>::value)
            make_model_weights<M>(w, 0x30de1000u + M::d_model * 131u + M::seq_len);
        else if constexpr (std::is_same<P, sf::f16>::value)
            sf::convert_weights(model_weights_for<M, sf::f32>(), w);
        else
            calibrate_model<M, P>(w);
        return true;
    }();
    (void)made;
    return w;
}

// Inputs: token ids spread over the vocabulary, or floats ("normal" and "masked" in [-2, 2),
// "large" in [-256, 256) with some extreme values).
template <class M>
std::vector<sf::model_input_t<M>> make_model_input(input_kind kind) {
    std::vector<sf::model_input_t<M>> x(M::input_values);
    splitmix64 g{0x4321u + M::d_model + (kind == input_kind::large ? 7u : 0u)};
    if constexpr (M::input == sf::input_kind::tokens) {
        for (auto& id : x) id = std::int32_t(g.next() % M::vocab);
        if (kind == input_kind::large) x[0] = M::vocab - 1;
    } else {
        fill_uniform(x.data(), x.size(), g, kind == input_kind::large ? 256.0f : 2.0f);
        if (kind == input_kind::large)
            for (std::size_t i = 0; i < x.size(); i += 5) x[i] = (i % 2 ? -1.0f : 1.0f) * 3.0e4f;
    }
    return x;
}

template <class M>
std::vector<int> model_valid_lens() {
    if constexpr (M::input == sf::input_kind::patches) return {M::input_tokens};
    std::vector<int> v{1};
    if (M::input_tokens > 2) v.push_back((M::input_tokens + 1) / 2);
    if (M::input_tokens > 1) v.push_back(M::input_tokens);
    return v;
}

// The input of precision P: int8 and a16w8 models take features and images quantised with the
// weights' input quantisation (token ids as they are).
template <class M, class P>
std::vector<sf::model_input_t<M, P>> make_model_input_for(input_kind kind) {
    const auto x = make_model_input<M>(kind);
    if constexpr (sf::is_integer_precision<P> && M::input != sf::input_kind::tokens) {
        std::vector<sf::model_input_t<M, P>> q(x.size());
        require_ok(sf::quantize_model_input(model_weights_for<M, P>(), x.data(), q.data(), x.size()),
                   "quantize_model_input");
        return q;
    } else {
        return x;
    }
}

template <class M, class P, class Backend>
std::vector<unsigned char> model_output_bytes(input_kind kind, int n, sf::status& s) {
    static sf::model_workspace_for<M, Backend, P> ws;
    const auto x = make_model_input_for<M, P>(kind);
    const std::vector<std::uint8_t> mask = make_mask(kind, M::input_tokens, n);
    std::vector<sf::model_output_t<M, P>> y(M::output_values, sf::model_output_t<M, P>(99));
    s = sf::forward<Backend>(model_weights_for<M, P>(), ws, x.data(), y.data(), n, as_key_mask(mask));
    return {reinterpret_cast<const unsigned char*>(y.data()), reinterpret_cast<const unsigned char*>(y.data() + y.size())};
}

template <class M, class P>
constexpr std::size_t model_output_bytes_count = M::output_values * sizeof(sf::model_output_t<M, P>);

}  // namespace sftest
