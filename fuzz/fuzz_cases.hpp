// The fuzz targets' cases, shared by fuzz_target.cpp (the libFuzzer targets) and make_seeds.cpp
// (their seed corpus), so that seeds and targets always agree on configurations and layout.
//
// One fuzz input = byte 0 (the selector) + a body:
//   case = (byte0 & 31) % 5               which weights: enc_a, enc_b, token_model, feature_model,
//                                         patch_model
//   mode = (byte0 & 31) / 5 % 4           (the low 5 bits hold case + 5 * mode; 20..31 repeat 0..11)
//     raw       body = blob bytes, given to load_blob as they are
//     reseal    body = blob bytes whose payload and header CRC-32 the target recomputes first
//     forward   body = valid_len, the input values (encoded below), then a blob (resealed)
//     in_place  as forward; the simd encoder runs in place (x == y); models: as forward
//   misaligned = byte0 & 32               the blob starts one byte past an aligned address
//   raw_values = byte0 & 64               forward input as raw bytes: an int32 valid_len and
//                                         every value's own bytes (any float bit pattern, any id)
//   else scaled values, so that most mutations stay in the range a model sees: valid_len one
//   byte % (len + 2); a float two bytes, int16 / 4096; a token id one byte % (vocab + 2) - 1
//   (so -1 and vocab too); an int8 value one byte; an int16 one (a16w8's features) two.
#pragma once

#include <staticformer/staticformer.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace sffuzz {

namespace sf = staticformer;

// Small configurations (fast executions) that between them set most options a blob header encodes.
// Each binary instantiates two encoder configurations only (each costs about 12 s of build under
// the sanitizers): the models run on the same two encoders, and options the two cannot both hold
// vary with the precision instead. head_dim 4 (queries scaled by a product) and 6 (by a quotient);
// d_ff 15 and 3 features: int8 linears with In % 4 != 0 (zero weight groups); seq_len 5 and 9: simd
// int8 tiles below 8 rows (attention row by row) and of 8 rows or more (the batched attention
// path).
// The layer options of the blob's bits 8 to 31 too: f16's enc_a has no LayerNorm betas, int8's
// RMSNorms, enc_b of f32, int8 and a16w8 no linear biases and a gated feed-forward (SwiGLU); rotary
// positions: enc_a of f32, int8 and a16w8 (rotate-halves), f16's enc_b (interleaved); multi-query
// attention (kv_heads<1>, the blob's heads field): int8's enc_a, enc_b but f16's. a16w8 takes
// f32's configurations (LayerNorm; int8 has the RMSNorms).
template <class P>
using enc_a = std::conditional_t<
    std::is_same<P, sf::f16>::value,
    sf::encoder_config<8, 2, 16, 5, 2, sf::pre_norm, sf::gelu_tanh, sf::final_norm, sf::layer_norm_eps<1, -6>,
                       sf::no_norm_bias>,
    std::conditional_t<std::is_same<P, sf::int8>::value,
                       sf::encoder_config<8, 2, 16, 5, 2, sf::pre_norm, sf::gelu, sf::final_norm, sf::rms_norm,
                                          sf::rotary<10000>, sf::kv_heads<1>>,
                       sf::encoder_config<8, 2, 16, 5, 2, sf::pre_norm, sf::gelu, sf::final_norm, sf::rotary<160000>>>>;
template <class P>
using enc_b = std::conditional_t<std::is_same<P, sf::f16>::value,
                                 sf::encoder_config<12, 2, 15, 9, 1, sf::post_norm, sf::relu,
                                                    sf::rotary_interleaved<500000>>,
                                 sf::encoder_config<12, 2, 15, 9, 1, sf::post_norm, sf::silu, sf::causal, sf::no_bias,
                                                    sf::glu, sf::kv_heads<1>>>;
// Token ids over enc_b: scaled embeddings, sinusoidal positions, embedding LayerNorm, mean pooling, a head.
template <class P>
using token_model = sf::model_config<enc_b<P>, sf::token_input<11>, sf::scale_embedding, sf::sinusoidal_positions,
                                     sf::embedding_norm, sf::mean_pooling, sf::classifier_head<3>>;
// Features over enc_a: learned positions, a CLS token, the encoded sequence as output.
template <class P>
using feature_model = sf::model_config<enc_a<P>, sf::feature_input<3>, sf::learned_positions, sf::cls_token>;
// An image over enc_a: a 3-channel 2x2 image in 1x1 patches (4 patches + CLS = seq_len 5; 3 values
// a patch: an int8 input projection with In % 4 != 0), no positions (the kind the other models
// lack), CLS pooling, a head. It takes valid_len 4 only: others must be bad_valid_len.
template <class P>
using patch_model =
    sf::model_config<enc_a<P>, sf::patch_input<3, 2, 2, 1>, sf::cls_token, sf::cls_pooling, sf::classifier_head<3>>;

constexpr int case_count = 5;
enum class mode { raw, reseal, forward, in_place };
constexpr int mode_count = 4;
constexpr unsigned char case_mode_bits = 31;  // case + case_count * mode < 32
constexpr unsigned char misaligned_bit = 32;
constexpr unsigned char raw_values_bit = 64;
static_assert(case_count * mode_count - 1 <= case_mode_bits, "case and mode must fit below misaligned_bit");
constexpr unsigned char selector(int case_index, mode m, bool raw_values = false) {
    return static_cast<unsigned char>(case_index + case_count * int(m) + (raw_values ? raw_values_bit : 0));
}

template <class P>
constexpr bool is_int8 = std::is_same<P, sf::int8>::value;
template <class P>
constexpr bool is_integer = sf::is_integer_precision<P>;

// What the targets need to know of an encoder case: weights, input and output values, workspace.
template <class Cfg, class P>
struct encoder_case {
    using weights = sf::encoder_weights<Cfg, P>;
    using input = std::conditional_t<is_integer<P>, std::int16_t, float>;  // (int8, a16w8: the int16 stream)
    using output = input;
    static constexpr std::size_t input_values = std::size_t(Cfg::seq_len) * Cfg::d_model;
    static constexpr std::size_t output_values = input_values;
    static constexpr int full_len = Cfg::seq_len;
    static constexpr int vocab = 0;
    static constexpr bool any_len = true;        // takes any valid_len in [1, full_len]
    static constexpr bool runs_in_place = true;  // an encoder allows x == y
    static constexpr std::size_t header_bytes = sf::blob::header_bytes;
    template <class B>
    using workspace = typename sf::precision_traits<P>::template workspace<Cfg, sf::tile_for<Cfg, B>>;
};

// The same for a model case.
template <class M, class P>
struct model_case {
    using weights = sf::model_weights<M, P>;
    using input = sf::model_input_t<M, P>;
    using output = sf::model_output_t<M, P>;
    static constexpr std::size_t input_values = M::input_values;
    static constexpr std::size_t output_values = M::output_values;
    static constexpr int full_len = M::input_tokens;
    static constexpr int vocab = M::vocab;
    static constexpr bool any_len = M::input != sf::input_kind::patches;  // an image: all its patches
    static constexpr bool runs_in_place = false;  // a model's in and out must not overlap
    static constexpr std::size_t header_bytes = sf::blob::model_header_bytes;
    template <class B>
    using workspace = sf::model_workspace_for<M, B, P>;
};

// Calls f.template operator()<Case>() for case index c of precision P.
template <class P, class F>
auto with_case(int c, F&& f) {
    switch (c) {
    case 0: return f.template operator()<encoder_case<enc_a<P>, P>>();
    case 1: return f.template operator()<encoder_case<enc_b<P>, P>>();
    case 2: return f.template operator()<model_case<token_model<P>, P>>();
    case 3: return f.template operator()<model_case<feature_model<P>, P>>();
    default: return f.template operator()<model_case<patch_model<P>, P>>();
    }
}

// The forward modes' prefix: valid_len and the input values, raw or scaled (above).
template <class Case>
struct forward_prefix {
    using value = typename Case::input;
    static constexpr bool is_float = std::is_same<value, float>::value;
    static constexpr bool is_stream = std::is_same<value, std::int16_t>::value;
    static constexpr std::size_t value_bytes(bool raw) { return raw ? sizeof(value) : is_float || is_stream ? 2 : 1; }
    static constexpr std::size_t bytes(bool raw) { return (raw ? 4 : 1) + Case::input_values * value_bytes(raw); }

    static void decode(const unsigned char* p, bool raw, int& valid_len, value* x) {
        if (raw) {
            std::uint32_t v = 0;
            for (int i = 0; i < 4; ++i) v |= std::uint32_t(p[i]) << (8 * i);
            valid_len = int(v);
            std::memcpy(static_cast<void*>(x), p + 4, Case::input_values * sizeof(value));  // little-endian hosts
            return;
        }
        valid_len = p[0] % (Case::full_len + 2);
        for (std::size_t i = 0; i < Case::input_values; ++i) {
            const unsigned char* q = p + 1 + i * value_bytes(false);
            if constexpr (Case::vocab > 0)
                x[i] = value(q[0] % (Case::vocab + 2)) - 1;
            else if constexpr (is_float)
                x[i] = float(std::int16_t(std::uint16_t(q[0] | q[1] << 8))) / 4096.0f;
            else if constexpr (is_stream)
                x[i] = std::int16_t(std::uint16_t(q[0] | q[1] << 8));
            else
                x[i] = value(std::int8_t(q[0]));
        }
    }

    // The inverse (make_seeds): scaled values round to the nearest step and saturate.
    template <class Bytes>
    static void encode(Bytes& out, bool raw, int valid_len, const value* x) {
        if (raw) {
            for (int i = 0; i < 4; ++i) out.push_back(static_cast<unsigned char>(std::uint32_t(valid_len) >> (8 * i)));
            const auto* b = reinterpret_cast<const unsigned char*>(x);
            out.insert(out.end(), b, b + Case::input_values * sizeof(value));
            return;
        }
        out.push_back(static_cast<unsigned char>(valid_len));
        for (std::size_t i = 0; i < Case::input_values; ++i) {
            if constexpr (Case::vocab > 0) {
                out.push_back(static_cast<unsigned char>(x[i] + 1));
            } else if constexpr (is_float) {
                const float v = x[i] * 4096.0f;
                const int q = v >= 32767.0f ? 32767 : v <= -32768.0f ? -32768 : int(v < 0 ? v - 0.5f : v + 0.5f);
                out.push_back(static_cast<unsigned char>(q & 0xff));
                out.push_back(static_cast<unsigned char>((q >> 8) & 0xff));
            } else if constexpr (is_stream) {
                out.push_back(static_cast<unsigned char>(std::uint16_t(x[i]) & 0xff));
                out.push_back(static_cast<unsigned char>(std::uint16_t(x[i]) >> 8));
            } else {
                out.push_back(static_cast<unsigned char>(x[i]));
            }
        }
    }
};

}  // namespace sffuzz
