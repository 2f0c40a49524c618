// Encoder configurations, weights and inputs shared by the bit-exactness tests and the
// reference-output generator. Shapes are chosen to be multiples of no SIMD width.
#pragma once

#include <staticformer/quant/convert.hpp>
#include <staticformer/quant/quantize.hpp>
#include <staticformer/staticformer.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "random.hpp"
#include "reference_configs.hpp"

namespace sftest {

namespace sf = staticformer;

using odd_pre_gelu = sf::encoder_config<24, 3, 40, 7, 2, sf::pre_norm, sf::gelu, sf::final_norm>;
using tanh_post = sf::encoder_config<20, 5, 36, 9, 2, sf::post_norm, sf::gelu_tanh, sf::final_norm,
                                     sf::layer_norm_eps<1, -6>>;
using odd33_relu = sf::encoder_config<33, 3, 70, 13, 1, sf::relu>;
using tiny_pre_gelu = tiny;  // the reference configuration
using tile3_pre_relu = sf::encoder_config<48, 6, 100, 17, 2, sf::pre_norm, sf::relu, sf::tile_rows<3>>;
using single = sf::encoder_config<8, 1, 16, 1, 1>;
using long_gelu = sf::encoder_config<40, 2, 72, 37, 1, sf::gelu, sf::tile_rows<8>>;
using causal_pre = sf::encoder_config<24, 3, 40, 11, 2, sf::pre_norm, sf::gelu, sf::causal>;
using silu_post = sf::encoder_config<20, 4, 44, 10, 2, sf::silu, sf::final_norm, sf::no_norm_bias, sf::tile_rows<3>>;
using bias_free_pre = sf::encoder_config<24, 4, 40, 9, 2, sf::pre_norm, sf::gelu, sf::final_norm, sf::no_bias,
                                         sf::no_norm_bias>;
using rms_pre = sf::encoder_config<28, 4, 48, 11, 2, sf::pre_norm, sf::silu, sf::final_norm, sf::rms_norm, sf::no_bias,
                                   sf::layer_norm_eps<1, -6>, sf::tile_rows<5>>;
using swiglu_causal = sf::encoder_config<20, 4, 26, 10, 2, sf::pre_norm, sf::silu, sf::glu, sf::causal, sf::tile_rows<4>>;

// Rotary positions and grouped-query attention: NeoBERT's block (pre-RMSNorm, SwiGLU, no biases,
// rotate-halves; head_dim 32, so 16 pairs: every vector width's lanes) with one key head for 2
// query heads, and GPT-J's interleaved pairs with a larger theta, post-norm, one key head for 3
// (multi-query), in the backends' own tiles (simd: the batched int8 attention).
using rope_neobert = sf::encoder_config<64, 2, 72, 13, 2, sf::pre_norm, sf::silu, sf::glu, sf::rms_norm, sf::no_bias,
                                        sf::final_norm, sf::rotary<10000>, sf::kv_heads<1>, sf::tile_rows<5>>;
using rope_interleaved_post = sf::encoder_config<24, 3, 36, 9, 2, sf::gelu, sf::rotary_interleaved<500000>,
                                                 sf::kv_heads<1>>;

#define STATICFORMER_TEST_CASES(X)                                                                                   \
    X(odd_pre_gelu) X(tanh_post) X(odd33_relu) X(tiny_pre_gelu) X(tile3_pre_relu) X(single) X(long_gelu) X(causal_pre) \
        X(silu_post) X(bias_free_pre) X(rms_pre) X(swiglu_causal) X(rope_neobert) X(rope_interleaved_post)

// Weights for Cfg from a seed: matrices at their fan-in scale, biases small, LayerNorm gammas
// around 1 and betas around 0.
template <class Cfg>
void make_weights(sf::encoder_weights<Cfg, sf::f32>& w, std::uint64_t seed) {
    splitmix64 g{seed};
    constexpr int D = Cfg::d_model, F = Cfg::d_ff;
    for (auto& l : w.layer) {
        fill_uniform(&l.qkv_w[0][0], std::size_t(D) * Cfg::qkv_width, g, fan_in_scale(D));
        if constexpr (Cfg::has_bias) fill_uniform(l.qkv_b, Cfg::qkv_width, g, 0.125f);
        fill_uniform(&l.out_w[0][0], std::size_t(D) * D, g, fan_in_scale(D));
        if constexpr (Cfg::has_bias) fill_uniform(l.out_b, D, g, 0.125f);
        fill_uniform(&l.ff1_w[0][0], std::size_t(D) * Cfg::ff1_width, g, fan_in_scale(D));
        if constexpr (Cfg::has_bias) fill_uniform(l.ff1_b, Cfg::ff1_width, g, 0.125f);
        fill_uniform(&l.ff2_w[0][0], std::size_t(F) * D, g, fan_in_scale(F));
        if constexpr (Cfg::has_bias) fill_uniform(l.ff2_b, D, g, 0.125f);
        for (float* gamma : {l.norm1_gamma, l.norm2_gamma})
            for (int i = 0; i < D; ++i) gamma[i] = 1.0f + g.uniform(0.25f);
        if constexpr (Cfg::has_norm_bias) {
            fill_uniform(l.norm1_beta, D, g, 0.125f);
            fill_uniform(l.norm2_beta, D, g, 0.125f);
        }
    }
    if constexpr (Cfg::has_final_norm) {
        for (int i = 0; i < D; ++i) w.final_norm.gamma[i] = 1.0f + g.uniform(0.25f);
        if constexpr (Cfg::has_norm_bias) fill_uniform(w.final_norm.beta, D, g, 0.125f);
    }
}

enum class input_kind { normal, large, masked };
inline const char* name_of(input_kind k) {
    return k == input_kind::normal ? "normal" : k == input_kind::large ? "large" : "masked";
}
constexpr input_kind all_input_kinds[] = {input_kind::normal, input_kind::large, input_kind::masked};

// The key padding mask of an input kind for valid_len n, `length` entries: "masked" hides the
// first n / 3 keys (left padding, as a ring buffer that is filling) and every fourth from key 2,
// keeps key n - 1 (the mask keeps a key), and sets the entries from n on (never read); the other
// kinds have none (empty).
inline std::vector<std::uint8_t> make_mask(input_kind kind, int length, int n) {
    if (kind != input_kind::masked) return {};
    std::vector<std::uint8_t> m(std::size_t(length), 1);
    for (std::size_t j = 0; j < m.size() && j < std::size_t(n); ++j) m[j] = j < std::size_t(n / 3) || j % 4 == 2;
    if (n >= 1 && n <= length) m[std::size_t(n - 1)] = 0;
    return m;
}
inline sf::key_padding_mask as_key_mask(const std::vector<std::uint8_t>& m) {
    return m.empty() ? sf::key_padding_mask{} : sf::key_padding_mask{m.data(), int(m.size())};
}

// Input rows: "normal" (and "masked") is uniform in [-2, 2); "large" in [-256, 256) with a few
// extreme values, to drive softmax, exp and GELU into their clamps (and the int8 input into
// saturation).
template <class Cfg>
std::vector<float> make_input(input_kind kind) {
    std::vector<float> x(std::size_t(Cfg::seq_len) * Cfg::d_model);
    splitmix64 g{0x1234u + Cfg::d_model};
    fill_uniform(x.data(), x.size(), g, kind == input_kind::large ? 256.0f : 2.0f);
    if (kind == input_kind::large)
        for (std::size_t i = 0; i < x.size(); i += 7) x[i] = (i % 2 ? -1.0f : 1.0f) * 3.0e4f;
    return x;
}

// One static weights object per configuration and precision (encoder_weights can be large for
// a stack). The f16 weights are the f32 ones rounded by the library's software conversion; the
// int8 weights are the f32 ones quantised by the library's quantiser, on the target itself,
// calibrated on the "normal" input and more rows like it, 64 rows at least (min-max for even
// d_model, the 99.9th percentile for odd). At a 64-byte boundary, as sf::weights_alignment
// asks (the benchmarks time these weights).
template <class Cfg, class P = sf::f32>
const sf::encoder_weights<Cfg, P>& weights_for();

// A library call the test data depends on: anything but ok stops the program (host or device).
inline void require_ok(sf::status s, const char* what) {
    if (s == sf::status::ok) return;
    std::fprintf(stderr, "%s: status %d\n", what, int(s));
    std::abort();
}

// The int8 (or a16w8) weights of weights_for: the f32 ones calibrated and quantised by the library.
template <class Cfg, class P>
void calibrate(sf::encoder_weights<Cfg, P>& w) {
    sf::quant::calibrator<Cfg> c(weights_for<Cfg, sf::f32>());
    require_ok(c.observe(make_input<Cfg>(input_kind::normal).data(), Cfg::seq_len), "calibrator::observe");
    for (int k = 1; k * Cfg::seq_len < 64; ++k) {  // at least 64 rows of calibration data
        std::vector<float> x(std::size_t(Cfg::seq_len) * Cfg::d_model);
        splitmix64 g{0x5000u + std::uint64_t(k)};
        fill_uniform(x.data(), x.size(), g, 2.0f);
        require_ok(c.observe(x.data(), Cfg::seq_len), "calibrator::observe");
    }
    sf::quant::options o;
    if (Cfg::d_model % 2) o.range = sf::quant::method::percentile, o.percentile = 99.9;
    c.quantize(w, o);
}

template <class Cfg, class P>
const sf::encoder_weights<Cfg, P>& weights_for() {
    alignas(sf::weights_alignment) static sf::encoder_weights<Cfg, P> w;
    static const bool made = [] {
        if constexpr (std::is_same<P, sf::f32>::value)
            make_weights<Cfg>(w, 0x5eed0000u + Cfg::d_model * 131u + Cfg::seq_len);
        else if constexpr (std::is_same<P, sf::f16>::value)
            sf::convert_weights(weights_for<Cfg, sf::f32>(), w);
        else
            calibrate<Cfg>(w);
        return true;
    }();
    (void)made;
    return w;
}

template <class P>
constexpr const char* precision_name = std::is_same<P, sf::f16>::value     ? "f16"
                                       : std::is_same<P, sf::int8>::value  ? "int8"
                                       : std::is_same<P, sf::a16w8>::value ? "a16w8"
                                                                           : "f32";

// int8 and a16w8: integer encoders, whose input and output rows are the int16 residual stream.
template <class P>
constexpr bool is_integer = sf::is_integer_precision<P>;
using stream_t = std::int16_t;

// An integer encoder's input: make_input() quantised with the weights' input quantisation.
template <class Cfg, class P = sf::int8>
std::vector<stream_t> make_input_int8(input_kind kind) {
    const std::vector<float> x = make_input<Cfg>(kind);
    std::vector<stream_t> q(x.size());
    require_ok(sf::quantize_input(weights_for<Cfg, P>(), x.data(), q.data(), x.size()), "quantize_input");
    return q;
}

// The input of `kind` as precision P's encoder takes it: floats (f32, f16) or int16 codes.
template <class Cfg, class P>
auto input_for(input_kind kind) {
    if constexpr (is_integer<P>)
        return make_input_int8<Cfg, P>(kind);
    else
        return make_input<Cfg>(kind);
}

// One workspace of type W for the whole program: the passes run one at a time, and every
// case, precision and backend whose workspace has the same type shares it (the firmware's RAM).
template <class W>
W& shared_workspace() {
    static W w;
    return w;
}

// The output bytes of one forward pass of the test case's encoder (float rows for f32 and f16,
// int16 rows for int8 and a16w8) on input `kind` (and its mask) with valid_len n; s receives the
// status.
template <class Cfg, class P, class Backend>
std::vector<unsigned char> output_bytes(input_kind kind, int n, sf::status& s) {
    const auto& w = weights_for<Cfg, P>();
    const std::vector<std::uint8_t> mask = make_mask(kind, Cfg::seq_len, n);
    std::vector<unsigned char> bytes;
    if constexpr (is_integer<P>) {
        using workspace = std::conditional_t<std::is_same<P, sf::int8>::value, sf::workspace_int8_for<Cfg, Backend>,
                                             sf::workspace_a16w8_for<Cfg, Backend>>;
        workspace& ws = shared_workspace<workspace>();  // the tile an encoder on Backend uses
        const std::vector<stream_t> x = make_input_int8<Cfg, P>(kind);
        std::vector<stream_t> y(x.size(), 9999);
        s = sf::forward<Backend>(w, ws, x.data(), y.data(), n, as_key_mask(mask));
        bytes.assign(reinterpret_cast<const unsigned char*>(y.data()), reinterpret_cast<const unsigned char*>(y.data() + y.size()));
    } else {
        auto& ws = shared_workspace<sf::workspace_for<Cfg, Backend>>();
        const std::vector<float> x = make_input<Cfg>(kind);
        std::vector<float> y(x.size(), 123.0f);
        s = sf::forward<Backend>(w, ws, x.data(), y.data(), n, as_key_mask(mask));
        bytes.assign(reinterpret_cast<const unsigned char*>(y.data()), reinterpret_cast<const unsigned char*>(y.data() + y.size()));
    }
    return bytes;
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
