// staticformer: the int8 weights, encoder_weights<cfg, int8> (normative layout).
//
// Every tensor of the int8 path is int8 with one scale and zero point per tensor:
// real = scale * (q - zero_point). Weights are int8 per output channel (symmetric), biases are
// int32 in the units of input scale x weight scale with the input's zero point folded in, and
// each step from an int32 accumulator to an int8 output is math::rescale() with a stored
// multiplier and shift. The scales themselves (floats) are kept only for the encoder's input and
// output, for host code that converts; the forward pass never reads them.
// The parameters are produced by quant/quantize.hpp from f32 weights and calibration inputs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "config.hpp"
#include "kernels/params_int8.hpp"
#include "math/fixed_point.hpp"

namespace staticformer {

// real = scale * (q - zero_point)
struct quantization {
    float scale;
    std::int32_t zero_point;
};


template <class Cfg, bool Gated = Cfg::is_gated>
struct layer_weights_int8 {
    static constexpr int D = Cfg::d_model, F = Cfg::d_ff;
    layer_norm_int8<D, Cfg::is_rms_norm> norm1;
    linear_int8<D, D> query;
    linear_int8<D, Cfg::kv_dim> key, value;  // kv_heads: kv_dim = kv_heads * head_dim outputs (else D)
    linear_int8<D, D> out;
    layer_norm_int8<D, Cfg::is_rms_norm> norm2;
    linear_int8<D, Cfg::ff1_width> ff1;  // glu: outputs [0, F) W1's, [F, 2F) W3's (the gate)
    std::int8_t activation[256];  // activation(x) for x = -128..127, at index x + 128
    linear_int8<F, D> ff2;
    // 16 + 24 + 24 bytes: one 64-byte unit
    attention_int8 attention;
    add_int8 residual1;  // the stream plus the attention output
    add_int8 residual2;  // the stream plus the feed-forward output
};
// glu: the same members, then the gate's product in a 64-byte unit of its own (so a layer
// without glu keeps its layout; plain members, not a base: the weights stay standard-layout).
template <class Cfg>
struct layer_weights_int8<Cfg, true> {
    static constexpr int D = Cfg::d_model, F = Cfg::d_ff;
    layer_norm_int8<D, Cfg::is_rms_norm> norm1;
    linear_int8<D, D> query;
    linear_int8<D, Cfg::kv_dim> key, value;
    linear_int8<D, D> out;
    layer_norm_int8<D, Cfg::is_rms_norm> norm2;
    linear_int8<D, 2 * F> ff1;
    std::int8_t activation[256];
    linear_int8<F, D> ff2;
    attention_int8 attention;
    add_int8 residual1;
    add_int8 residual2;
    gate_int8 gate;
    std::int32_t reserved[10];  // 0
};

namespace detail {
// Every linear's weights at a multiple of int8_layout_unit bytes into the layer, and the layer a
// whole number of units (the layers come first in encoder_weights).
template <class Layer>
constexpr bool matrices_on_units() noexcept {
    constexpr std::size_t u = int8_layout_unit;
    return offsetof(Layer, query) % u == 0 && offsetof(Layer, key) % u == 0 && offsetof(Layer, value) % u == 0 &&
           offsetof(Layer, out) % u == 0 && offsetof(Layer, ff1) % u == 0 && offsetof(Layer, ff2) % u == 0 &&
           offsetof(Layer, attention) % u == 0 && sizeof(Layer) % u == 0;
}
}  // namespace detail

template <int D, bool Present, bool Rms = false>
struct final_norm_int8 {
    layer_norm_int8<D, Rms> norm;
};
template <int D, bool Rms>
struct final_norm_int8<D, false, Rms> {};

template <class Cfg, class P>
struct encoder_weights;

template <class Cfg>
struct encoder_weights<Cfg, int8> {
    static_assert(is_encoder_config<Cfg>::value, "encoder_weights needs an encoder_config");
    static_assert(Cfg::d_model <= 4096 && Cfg::d_ff <= 65536,
                  "int8: d_model at most 4096 and d_ff at most 65536 (int32 accumulators)");
    static_assert(Cfg::seq_len <= 65535, "int8: seq_len at most 65535 (the softmax sum must fit in int32)");
    static_assert(Cfg::head_dim <= 32768, "int8: head_dim at most 32768 (attention scores must fit in int32)");
    static_assert(detail::matrices_on_units<layer_weights_int8<Cfg>>(),
                  "int8 layout: a weight matrix off its 64-byte unit");
    using config = Cfg;
    using precision = int8;
    layer_weights_int8<Cfg> layer[Cfg::layers];
    final_norm_int8<Cfg::d_model, Cfg::has_final_norm, Cfg::is_rms_norm> final_norm;
    quantization input;   // how the caller quantises the encoder's input rows
    quantization output;  // how to read the encoder's output rows
};

// Every parameter in the range its kernel handles (load_blob checks this for blobs from outside):
// multipliers, shifts, zero points, biases, LayerNorm betas, padding weights, and the scales the
// host's conversions divide by. A bad parameter could overflow an int32 sum (undefined in C++)
// or make the vector kernels differ from the reference.
namespace detail {

constexpr bool is_zero_point(std::int32_t z) noexcept { return z >= -128 && z <= 127; }

// A scale the conversions can divide by: positive and finite (a NaN fails the comparison).
constexpr bool is_valid(const quantization& q) noexcept {
    return q.scale > 0.0f && q.scale <= 3.4028234663852886e38f && is_zero_point(q.zero_point);
}

template <int In, int Out>
constexpr bool is_valid(const linear_int8<In, Out>& l) noexcept {
    bool ok = math::is_valid(0, l.shift) && is_zero_point(l.output_zero_point);
    for (int o = 0; o < Out; ++o) {
        ok = ok && l.multiplier[o] >= 0 && l.bias[o] <= l.bias_limit && l.bias[o] >= -l.bias_limit;
        for (int i = In; i < 4 * l.in_groups; ++i) ok = ok && l.w[i / 4][o][i % 4] == 0;
    }
    return ok;
}
template <int N, bool Rms>
constexpr bool is_valid(const layer_norm_int8<N, Rms>& n) noexcept {
    bool ok = n.eps >= 0 && n.eps <= (std::int64_t(1) << 62) && math::is_valid(1, n.shift) &&
              is_zero_point(n.output_zero_point);
    for (int c = 0; c < N; ++c) ok = ok && n.beta[c] <= n.beta_limit && n.beta[c] >= -n.beta_limit;
    if constexpr (Rms) ok = ok && is_zero_point(n.input_zero_point) && n.reserved == 0;
    return ok;
}
constexpr bool is_valid(const gate_int8& g) noexcept {
    return g.multiplier >= 0 && g.multiplier < 32768 && math::is_valid(g.multiplier, g.shift) &&
           is_zero_point(g.a_zero_point) && is_zero_point(g.b_zero_point) && is_zero_point(g.output_zero_point) &&
           g.reserved == 0;
}
constexpr bool is_valid(const add_int8& a) noexcept {
    return math::is_valid(1, a.shift) && a.x_multiplier >= 0 && a.x_multiplier < 32768 && a.a_multiplier >= 0 &&
           a.a_multiplier < 32768 && is_zero_point(a.x_zero_point) && is_zero_point(a.a_zero_point) &&
           is_zero_point(a.output_zero_point);
}

}  // namespace detail

template <class Cfg>
constexpr bool is_valid(const encoder_weights<Cfg, int8>& w) noexcept {
    for (const auto& l : w.layer) {
        if (!detail::is_valid(l.norm1) || !detail::is_valid(l.norm2) || !detail::is_valid(l.query) ||
            !detail::is_valid(l.key) || !detail::is_valid(l.value) || !detail::is_valid(l.out) ||
            !detail::is_valid(l.ff1) || !detail::is_valid(l.ff2) || !detail::is_valid(l.residual1) ||
            !detail::is_valid(l.residual2) ||
            !math::is_valid(l.attention.logits.multiplier, l.attention.logits.shift) ||
            !math::is_valid(l.attention.context.multiplier, l.attention.context.shift))
            return false;
        if constexpr (Cfg::is_gated)
            if (!detail::is_valid(l.gate)) return false;
    }
    if (!detail::is_valid(w.input) || !detail::is_valid(w.output)) return false;
    if constexpr (Cfg::has_final_norm) return detail::is_valid(w.final_norm.norm);
    return true;
}

}  // namespace staticformer
