// Encoder configurations, weights and inputs shared by the bit-exactness tests and the
// reference-output generator. Shapes are chosen to be multiples of no SIMD width.
#pragma once

#include <staticformer/staticformer.hpp>

#include <string>
#include <type_traits>
#include <vector>

#include "random.hpp"

namespace sftest {

namespace sf = staticformer;

using odd_pre_gelu = sf::encoder_config<24, 3, 40, 7, 2, sf::pre_norm, sf::gelu, sf::final_norm>;
using tanh_post = sf::encoder_config<20, 5, 36, 9, 2, sf::post_norm, sf::gelu_tanh, sf::final_norm,
                                     sf::layer_norm_eps<1, -6>>;
using odd33_relu = sf::encoder_config<33, 3, 70, 13, 1, sf::relu>;
using tiny_pre_gelu = sf::encoder_config<64, 4, 256, 32, 2, sf::pre_norm, sf::gelu, sf::final_norm>;
using tile3_pre_relu = sf::encoder_config<48, 6, 100, 17, 2, sf::pre_norm, sf::relu, sf::tile_rows<3>>;
using single = sf::encoder_config<8, 1, 16, 1, 1>;
using long_gelu = sf::encoder_config<40, 2, 72, 37, 1, sf::gelu, sf::tile_rows<8>>;

#define STATICFORMER_TEST_CASES(X) \
    X(odd_pre_gelu) X(tanh_post) X(odd33_relu) X(tiny_pre_gelu) X(tile3_pre_relu) X(single) X(long_gelu)

// Weights for Cfg from a seed: matrices at their fan-in scale, biases small, LayerNorm gammas
// around 1 and betas around 0.
template <class Cfg>
void make_weights(sf::encoder_weights<Cfg, sf::f32>& w, std::uint64_t seed) {
    splitmix64 g{seed};
    constexpr int D = Cfg::d_model, F = Cfg::d_ff;
    for (auto& l : w.layer) {
        fill_uniform(&l.qkv_w[0][0], std::size_t(D) * 3 * D, g, fan_in_scale(D));
        fill_uniform(l.qkv_b, 3 * D, g, 0.125f);
        fill_uniform(&l.out_w[0][0], std::size_t(D) * D, g, fan_in_scale(D));
        fill_uniform(l.out_b, D, g, 0.125f);
        fill_uniform(&l.ff1_w[0][0], std::size_t(D) * F, g, fan_in_scale(D));
        fill_uniform(l.ff1_b, F, g, 0.125f);
        fill_uniform(&l.ff2_w[0][0], std::size_t(F) * D, g, fan_in_scale(F));
        fill_uniform(l.ff2_b, D, g, 0.125f);
        for (float* gamma : {l.norm1_gamma, l.norm2_gamma})
            for (int i = 0; i < D; ++i) gamma[i] = 1.0f + g.uniform(0.25f);
        fill_uniform(l.norm1_beta, D, g, 0.125f);
        fill_uniform(l.norm2_beta, D, g, 0.125f);
    }
    if constexpr (Cfg::has_final_norm) {
        for (int i = 0; i < D; ++i) w.final_norm.gamma[i] = 1.0f + g.uniform(0.25f);
        fill_uniform(w.final_norm.beta, D, g, 0.125f);
    }
}

// One static weights object per configuration and precision (encoder_weights can be large for
// a stack). The f16 weights are the f32 ones rounded by the library's software conversion.
template <class Cfg, class P = sf::f32>
const sf::encoder_weights<Cfg, P>& weights_for() {
    static sf::encoder_weights<Cfg, P> w;
    static const bool made = [] {
        if constexpr (std::is_same<P, sf::f32>::value)
            make_weights<Cfg>(w, 0x5eed0000u + Cfg::d_model * 131u + Cfg::seq_len);
        else
            sf::convert_weights(weights_for<Cfg, sf::f32>(), w);
        return true;
    }();
    (void)made;
    return w;
}

template <class P>
constexpr const char* precision_name = std::is_same<P, sf::f16>::value ? "f16" : "f32";

enum class input_kind { normal, large };
inline const char* name_of(input_kind k) { return k == input_kind::normal ? "normal" : "large"; }

// Input rows: "normal" is uniform in [-2, 2); "large" in [-256, 256) with a few extreme values,
// to drive softmax, exp and GELU into their clamps.
template <class Cfg>
std::vector<float> make_input(input_kind kind) {
    std::vector<float> x(std::size_t(Cfg::seq_len) * Cfg::d_model);
    splitmix64 g{0x1234u + Cfg::d_model};
    fill_uniform(x.data(), x.size(), g, kind == input_kind::normal ? 2.0f : 256.0f);
    if (kind == input_kind::large)
        for (std::size_t i = 0; i < x.size(); i += 7) x[i] = (i % 2 ? -1.0f : 1.0f) * 3.0e4f;
    return x;
}

template <class Cfg>
std::vector<int> valid_lens() {
    std::vector<int> v{1};
    if (Cfg::seq_len > 2) v.push_back((Cfg::seq_len + 1) / 2);
    if (Cfg::seq_len > 1) v.push_back(Cfg::seq_len);
    return v;
}

// <dir>/<case>_<precision>_<valid_len>_<input>.bin, e.g. tiny_pre_gelu_f16_32_large.bin
inline std::string output_file(const std::string& dir, const char* name, const char* precision, int valid_len,
                               input_kind k) {
    return dir + "/" + name + "_" + precision + "_" + std::to_string(valid_len) + "_" + name_of(k) + ".bin";
}

}  // namespace sftest
