// staticformer: the int8 weights, encoder_weights<cfg, int8> (normative layout).
//
// The residual stream (the encoder's input and output, what every block adds to) is int16 with
// one symmetric scale; every tensor a block computes is int8 with one scale and zero point:
// real = scale * (q - zero_point). Weights are int8 per output channel (symmetric), biases are
// int32 in the units of input scale x weight scale with the input's zero point folded in, and
// each step from an int32 accumulator to an int8 output is math::rescale() with a stored
// multiplier and shift. The scales themselves (floats) are kept only for the encoder's input and
// output (the stream's, and the final LayerNorm's), for host code that converts; the forward pass
// never reads them. The parameters are produced by quant/quantize.hpp from f32 weights and
// calibration inputs.
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


template <class Cfg>
struct layer_weights_int8 {
    static constexpr int D = Cfg::d_model, F = Cfg::d_ff;
    layer_norm_int8<D, Cfg::is_rms_norm> norm1;  // from the stream: into int8 (pre-norm) or the stream (post-norm)
    linear_int8<D, D> query;
    linear_int8<D, Cfg::kv_dim> key, value;  // kv_heads: kv_dim = kv_heads * head_dim outputs (else D)
    linear_int8<D, D> out;
    layer_norm_int8<D, Cfg::is_rms_norm> norm2;
    linear_int8<D, Cfg::ff1_width> ff1;  // glu: outputs [0, F) W1's, [F, 2F) W3's (the gate)
    std::int8_t activation[256];  // activation(x) for x = -128..127, at index x + 128
    linear_int8<F, D> ff2;
    // The small parameters, two 64-byte units (unused ones 0):
    attention_int8 attention;
    stream_add_int8 residual1;  // the attention output into the stream
    stream_add_int8 residual2;  // the feed-forward output into the stream
    stream_narrow_int8 input1;  // post-norm: the stream into the attention block's int8 input
    stream_narrow_int8 input2;  // post-norm: the stream into the feed-forward block's
    gate_int8 gate;             // glu: the activation times the gate
    std::int32_t reserved[6];   // 0
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
    if constexpr (Rms) ok = ok && n.input_zero_point == 0 && n.reserved == 0;  // the stream's centre
    return ok;
}
constexpr bool is_valid(const gate_int8& g) noexcept {
    return g.multiplier >= 0 && g.multiplier < 32768 && math::is_valid(g.multiplier, g.shift) &&
           is_zero_point(g.a_zero_point) && is_zero_point(g.b_zero_point) && is_zero_point(g.output_zero_point) &&
           g.reserved == 0;
}
// The stream's steps: multiplier < 2^15 and shift in [1, 30] (their 32-bit bounds).
constexpr bool is_stream_step(std::int32_t multiplier, std::int32_t shift) noexcept {
    return multiplier >= 0 && multiplier < 32768 && shift >= 1 && shift <= 30;
}
constexpr bool is_valid(const stream_add_int8& a) noexcept {
    return is_stream_step(a.multiplier, a.shift) && is_zero_point(a.a_zero_point) && a.reserved == 0;
}
constexpr bool is_valid(const stream_narrow_int8& n) noexcept {
    return is_stream_step(n.multiplier, n.shift) && is_zero_point(n.zero_point) && n.reserved == 0;
}
// A part a configuration does not use: all zero.
constexpr bool is_unused(const stream_add_int8& a) noexcept {
    return a.a_zero_point == 0 && a.multiplier == 0 && a.shift == 0 && a.reserved == 0;
}
constexpr bool is_unused(const stream_narrow_int8& n) noexcept {
    return n.multiplier == 0 && n.shift == 0 && n.zero_point == 0 && n.reserved == 0;
}
constexpr bool is_unused(const gate_int8& g) noexcept {
    return g.a_zero_point == 0 && g.b_zero_point == 0 && g.multiplier == 0 && g.shift == 0 &&
           g.output_zero_point == 0 && g.reserved == 0;
}
// A LayerNorm into the stream: zero point 0.
template <int N, bool Rms>
constexpr bool is_stream_norm(const layer_norm_int8<N, Rms>& n) noexcept {
    return n.output_zero_point == 0;
}
// A layer's parameters: post-norm normalises into the stream and narrows it into each block.
template <class Cfg>
constexpr bool is_valid(const layer_weights_int8<Cfg>& l) noexcept {
    bool ok = is_valid(l.norm1) && is_valid(l.norm2) && is_valid(l.query) &&
              is_valid(l.key) && is_valid(l.value) && is_valid(l.out) && is_valid(l.ff1) && is_valid(l.ff2) &&
              is_valid(l.residual1) && is_valid(l.residual2) &&
              math::is_valid(l.attention.logits.multiplier, l.attention.logits.shift) &&
              math::is_valid(l.attention.context.multiplier, l.attention.context.shift);
    if constexpr (Cfg::norm_first)
        ok = ok && is_unused(l.input1) && is_unused(l.input2);
    else
        ok = ok && is_stream_norm(l.norm1) && is_stream_norm(l.norm2) && is_valid(l.input1) && is_valid(l.input2);
    ok = ok && (Cfg::is_gated ? is_valid(l.gate) : is_unused(l.gate));
    for (std::int32_t r : l.reserved) ok = ok && r == 0;
    return ok;
}

// An integer encoder's weights (int8, a16w8): each layer (valid_layer: its precision's check),
// and the stream's quantisation symmetric (zero point 0) in and out, through the final LayerNorm
// if there is one.
template <class Cfg, class W, class LayerCheck>
constexpr bool is_valid_integer(const W& w, LayerCheck valid_layer) noexcept {
    for (const auto& l : w.layer)
        if (!valid_layer(l)) return false;
    if (!is_valid(w.input) || !is_valid(w.output) || w.input.zero_point != 0 || w.output.zero_point != 0)
        return false;
    if constexpr (Cfg::has_final_norm) return is_valid(w.final_norm.norm) && is_stream_norm(w.final_norm.norm);
    return true;
}

}  // namespace detail

template <class Cfg>
constexpr bool is_valid(const encoder_weights<Cfg, int8>& w) noexcept {
    return detail::is_valid_integer<Cfg>(w, [](const layer_weights_int8<Cfg>& l) { return detail::is_valid(l); });
}

}  // namespace staticformer
