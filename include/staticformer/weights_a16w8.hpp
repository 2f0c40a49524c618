// staticformer: the a16w8 weights, encoder_weights<cfg, a16w8> (normative layout): int8 weights
// as int8's, every activation int16 and symmetric (kernels/params_a16w8.hpp), the residual
// stream int16 as int8's. Each tensor's clamp is the limit its consumers' int32 sums allow;
// is_valid checks every producer against its consumers, so no input can overflow a sum.
#pragma once

#include <cstddef>
#include <cstdint>

#include "config.hpp"
#include "kernels/params_a16w8.hpp"
#include "math/fixed_point.hpp"
#include "weights_int8.hpp"

namespace staticformer {

template <class Cfg>
struct layer_weights_a16w8 {
    static constexpr int D = Cfg::d_model, F = Cfg::d_ff;
    layer_norm_int8<D, Cfg::is_rms_norm> norm1;  // from the stream: into the block input (pre-norm) or the stream
    linear_a16w8<D, D> query;
    linear_a16w8<D, Cfg::kv_dim> key, value;
    linear_a16w8<D, D> out;
    layer_norm_int8<D, Cfg::is_rms_norm> norm2;
    linear_a16w8<D, Cfg::ff1_width> ff1;  // glu: outputs [0, F) W1's, [F, 2F) W3's (the gate)
    activation_a16w8 activation;
    linear_a16w8<F, D> ff2;
    // The small parameters, two 64-byte units (unused ones 0):
    attention_a16w8 attention;
    stream_add_int8 residual1;   // the attention output into the stream (a_zero_point 0)
    stream_add_int8 residual2;   // the feed-forward output into the stream
    stream_narrow_a16w8 input1;  // post-norm: the stream into the attention block's input
    stream_narrow_a16w8 input2;  // post-norm: the stream into the feed-forward block's
    gate_a16w8 gate;             // glu: the activation times the gate
    std::int32_t reserved[6];    // 0
};

template <class Cfg>
struct encoder_weights<Cfg, a16w8> {
    static_assert(is_encoder_config<Cfg>::value, "encoder_weights needs an encoder_config");
    static_assert(Cfg::d_model <= 4096 && Cfg::d_ff <= 65536, "a16w8: d_model at most 4096 and d_ff at most 65536");
    static_assert(Cfg::seq_len <= 65535, "a16w8: seq_len at most 65535 (the context's sum must fit in int32)");
    static_assert(detail::matrices_on_units<layer_weights_a16w8<Cfg>>(),
                  "a16w8 layout: a weight matrix off its 64-byte unit");
    using config = Cfg;
    using precision = a16w8;
    layer_weights_a16w8<Cfg> layer[Cfg::layers];
    final_norm_int8<Cfg::d_model, Cfg::has_final_norm, Cfg::is_rms_norm> final_norm;
    quantization input;   // how the caller quantises the encoder's input rows (the stream)
    quantization output;  // how to read the encoder's output rows
};

namespace detail {

template <int In, int Out>
constexpr bool is_valid(const linear_a16w8<In, Out>& l) noexcept {
    bool ok = math::is_valid(0, l.shift) && l.output_limit >= 1 && l.output_limit <= 32767;
    for (int o = 0; o < Out; ++o) {
        ok = ok && l.multiplier[o] >= 0 && l.bias[o] <= l.bias_limit && l.bias[o] >= -l.bias_limit;
        for (int i = In; i < 4 * l.in_groups; ++i) ok = ok && l.w[i / 4][o][i % 4] == 0;
    }
    return ok;
}
constexpr bool is_limit(std::int32_t limit, std::int32_t most) noexcept { return limit >= 1 && limit <= most; }
constexpr bool is_valid(const gate_a16w8& g, std::int32_t most) noexcept {
    return g.multiplier >= 0 && g.multiplier < 32768 && math::is_valid(g.multiplier, g.shift) &&
           is_limit(g.output_limit, most) && g.reserved == 0;
}
constexpr bool is_valid(const stream_narrow_a16w8& n, std::int32_t most) noexcept {
    return is_stream_step(n.multiplier, n.shift) && is_limit(n.output_limit, most) && n.reserved == 0;
}
constexpr bool is_unused(const stream_narrow_a16w8& n) noexcept {
    return n.multiplier == 0 && n.shift == 0 && n.output_limit == 0 && n.reserved == 0;
}
constexpr bool is_unused(const gate_a16w8& g) noexcept {
    return g.multiplier == 0 && g.shift == 0 && g.output_limit == 0 && g.reserved == 0;
}
// The branch of a stream add is int16 here: its zero point 0.
constexpr bool is_branch_add(const stream_add_int8& a) noexcept { return is_valid(a) && a.a_zero_point == 0; }

// The largest |output| of a LayerNorm into int16, whatever its input: |z| <= 2^8 sqrt(N) + 2
// (params_int8.hpp), so |z gamma + beta| before the rescale is at most this over the columns.
template <int N, bool Rms>
constexpr std::int64_t norm_output_bound(const layer_norm_int8<N, Rms>& n) noexcept {
    std::int64_t root = 0;
    while (root * root < N) ++root;  // ceil(sqrt(N))
    const std::int64_t z = 256 * root + 2;
    std::int64_t most = 0;
    for (int c = 0; c < N; ++c) {
        const std::int64_t g = n.gamma[c] < 0 ? -std::int64_t(n.gamma[c]) : n.gamma[c];
        const std::int64_t b = n.beta[c] < 0 ? -std::int64_t(n.beta[c]) : n.beta[c];
        most = g * z + b > most ? g * z + b : most;
    }
    return ((most >> (n.shift - 1)) + 1) >> 1;  // rescale(most, 1, shift), rounded up at most
}
// A LayerNorm into a block input read by linear layers of In inputs (zero point 0).
template <int N, bool Rms>
constexpr bool is_block_norm(const layer_norm_int8<N, Rms>& n, std::int32_t limit) noexcept {
    return n.output_zero_point == 0 && norm_output_bound(n) <= limit;
}
// The activation table: 513 points within the consumer's limit, the rest 0.
constexpr bool is_valid(const activation_a16w8& a, std::int32_t limit) noexcept {
    bool ok = true;
    for (int i = 0; i < a.points; ++i) ok = ok && a.table[i] >= -limit && a.table[i] <= limit;
    for (int i = a.points; i < int(sizeof a.table / sizeof a.table[0]); ++i) ok = ok && a.table[i] == 0;
    return ok;
}

// Each producer within its consumers' limits: queries and keys within score_limit, the
// context, block inputs and hidden layer within their linear layers' input_limit.
template <class Cfg>
constexpr bool is_valid(const layer_weights_a16w8<Cfg>& l) noexcept {
    constexpr std::int32_t in_d = a16w8_limits::input_limit(Cfg::d_model), in_f = a16w8_limits::input_limit(Cfg::d_ff);
    constexpr std::int32_t scores = a16w8_limits::score_limit(Cfg::head_dim);
    bool ok = is_valid(l.norm1) && is_valid(l.norm2) && is_valid(l.query) && is_valid(l.key) && is_valid(l.value) &&
              is_valid(l.out) && is_valid(l.ff1) && is_valid(l.ff2) && is_branch_add(l.residual1) &&
              is_branch_add(l.residual2) && l.query.output_limit <= scores && l.key.output_limit <= scores &&
              math::is_valid(l.attention.logits.multiplier, l.attention.logits.shift) &&
              math::is_valid(l.attention.context.multiplier, l.attention.context.shift) &&
              is_limit(l.attention.context_limit, in_d) && l.attention.reserved == 0;
    if constexpr (Cfg::norm_first)
        ok = ok && is_block_norm(l.norm1, in_d) && is_block_norm(l.norm2, in_d) && is_unused(l.input1) &&
             is_unused(l.input2);
    else
        ok = ok && is_stream_norm(l.norm1) && is_stream_norm(l.norm2) && is_valid(l.input1, in_d) &&
             is_valid(l.input2, in_d);
    if constexpr (Cfg::is_gated)
        ok = ok && is_valid(l.gate, in_f) && is_valid(l.activation, 32767);
    else
        ok = ok && is_unused(l.gate) && is_valid(l.activation, in_f);
    for (std::int32_t r : l.reserved) ok = ok && r == 0;
    return ok;
}

}  // namespace detail

template <class Cfg>
constexpr bool is_valid(const encoder_weights<Cfg, a16w8>& w) noexcept {
    return detail::is_valid_integer<Cfg>(w, [](const layer_weights_a16w8<Cfg>& l) { return detail::is_valid(l); });
}

}  // namespace staticformer
