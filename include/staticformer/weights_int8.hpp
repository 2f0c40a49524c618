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
#include "math/fixed_point.hpp"

namespace staticformer {

// real = scale * (q - zero_point)
struct quantization {
    float scale;
    std::int32_t zero_point;
};

// Layout: every weight matrix starts a multiple of 64 bytes after the start of the encoder's
// weights, so weights placed on a 64-byte boundary (weights_alignment) put every matrix there:
// the kernels' 64-byte weight loads then never straddle two cache lines (bench/PERF_NOTES.md:
// what straddling cost). Each linear_int8 and layer_norm_int8 is a whole number
// of 64-byte units (their trailing multiplier / gamma arrays are lengthened with zeros), a
// layer's small parameters share one 64-byte unit at its end, and the layers come first. The
// types still ask only for their elements' alignment (8 bytes), as the float weights do.
inline constexpr int int8_layout_unit = 64;

namespace detail {
// The entries of a trailing int16 array of at least `count` entries that ends a struct of
// `bytes_before` bytes (a multiple of 4) on a multiple of int8_layout_unit bytes.
constexpr int padded_int16_count(long long bytes_before, int count) noexcept {
    const long long even = count + count % 2;
    const long long end = bytes_before + 2 * even;
    return int(even + (int8_layout_unit - end % int8_layout_unit) % int8_layout_unit / 2);
}
}  // namespace detail

// y = x W + b for int8 x (In per row) and int8 y (Out per row):
//   acc[o] = bias[o] + sum_i x[i] * w[i / 4][o][i % 4]        (exact, int32)
//   y[o]   = requantize(acc[o], multiplier[o], shift, output_zero_point)
// Weights are grouped by four inputs per output (zero beyond In), the layout of the widening
// dot-product instructions (x86 VPDPBUSD, Arm SDOT, Cortex-M SMLAD after SXTB16).
template <int In, int Out>
struct linear_int8 {
    static_assert(In <= 65536, "int8 linear: at most 65536 inputs (the int32 accumulator must not overflow)");
    static constexpr int in_groups = (In + 3) / 4;
    // |bias| + In 2^14 < 2^31 (|x w| <= 2^14): every partial sum of acc, in any order a backend
    // adds them, fits in int32. The padding weights (inputs In..4 in_groups - 1) are 0: the
    // vector kernels multiply them by whatever follows a row.
    static constexpr std::int64_t bias_limit = (std::int64_t(1) << 31) - 1 - std::int64_t(In) * (1 << 14);
    // multipliers past Out are 0: they end the struct on a 64-byte unit
    static constexpr int multiplier_count =
        detail::padded_int16_count(4LL * in_groups * Out + 4LL * Out + 8, Out);
    std::int8_t w[in_groups][Out][4];
    std::int32_t bias[Out];
    std::int32_t shift;
    std::int32_t output_zero_point;
    std::int16_t multiplier[multiplier_count];  // output o's multiplier (< 2^15)
};

// LayerNorm of int8 rows of N values x, integer-only. With s = sum x, q = sum x^2:
//   den  = isqrt(N q - s^2 + eps)                     (eps in the units of N q - s^2)
//   z[c] = round(2^8 (N x[c] - s) / den)               via a reciprocal: (N x[c] - s) * floor(2^40 / den)
//   y[c] = requantize(z[c] * gamma[c] + beta[c], 1, shift, output_zero_point)
// The input's scale and zero point cancel in z; only eps depends on the input scale.
template <int N>
struct layer_norm_int8 {
    static_assert(N <= 4096, "int8 LayerNorm: d_model at most 4096 (z * gamma must fit in 31 bits)");
    // |z| <= 2^9 sqrt(N - 1) < 2^15 (a centred value is at most sqrt((N - 1) var) and den at least
    // floor(sqrt(var)) > sqrt(var) / 2), so |z gamma| < 2^30 and |beta| <= 2^30 keeps
    // z gamma + beta within int32.
    static constexpr std::int32_t beta_limit = std::int32_t(1) << 30;
    static constexpr int gamma_count = detail::padded_int16_count(16LL + 4LL * N, N);
    std::int64_t eps;
    std::int32_t shift;
    std::int32_t output_zero_point;
    std::int32_t beta[N];
    std::int16_t gamma[gamma_count];  // entries past N are 0: they end the struct on a 64-byte unit
};

// x + a for two int8 tensors of different scales, into the output's scale:
//   y = requantize((x - x_zero_point) * x_multiplier + (a - a_zero_point) * a_multiplier, 1, shift, output_zero_point)
struct add_int8 {
    std::int32_t x_zero_point, a_zero_point;
    std::int32_t x_multiplier, a_multiplier;  // < 2^15
    std::int32_t shift;
    std::int32_t output_zero_point;
};

// Attention on symmetric int8 queries, keys and values (zero point 0).
//   score[j] = sum_d q[d] k[j][d]                                    (int32)
//   u[j]     = rescale(max_j score - score[j], logits)                (Q16, in units of log2)
//   e[j]     = math::exp2_neg_q16(u[j])                               (Q15, 2^15 for the maximum)
//   p[j]     = min(32767, (e[j] * floor(2^46 / sum e) + 2^30) >> 31)  (Q15 probabilities)
//   ctx[d]   = requantize(sum_j p[j] v[j][d], context, 0)
// logits holds 2^16 * s_q * s_k / (sqrt(head_dim) * ln 2); context holds s_v / (2^15 s_ctx).
struct attention_int8 {
    math::fixed_multiplier logits;
    math::fixed_multiplier context;
};

template <class Cfg>
struct layer_weights_int8 {
    static constexpr int D = Cfg::d_model, F = Cfg::d_ff;
    layer_norm_int8<D> norm1;
    linear_int8<D, D> query, key, value;
    linear_int8<D, D> out;
    layer_norm_int8<D> norm2;
    linear_int8<D, F> ff1;
    std::int8_t activation[256];  // activation(x) for x = -128..127, at index x + 128
    linear_int8<F, D> ff2;
    // 16 + 24 + 24 bytes: one 64-byte unit
    attention_int8 attention;
    add_int8 residual1;  // the stream plus the attention output
    add_int8 residual2;  // the stream plus the feed-forward output
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

template <int D, bool Present>
struct final_norm_int8 {
    layer_norm_int8<D> norm;
};
template <int D>
struct final_norm_int8<D, false> {};

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
    final_norm_int8<Cfg::d_model, Cfg::has_final_norm> final_norm;
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
template <int N>
constexpr bool is_valid(const layer_norm_int8<N>& n) noexcept {
    bool ok = n.eps >= 0 && n.eps <= (std::int64_t(1) << 62) && math::is_valid(1, n.shift) &&
              is_zero_point(n.output_zero_point);
    for (int c = 0; c < N; ++c) ok = ok && n.beta[c] <= n.beta_limit && n.beta[c] >= -n.beta_limit;
    return ok;
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
    }
    if (!detail::is_valid(w.input) || !detail::is_valid(w.output)) return false;
    if constexpr (Cfg::has_final_norm) return detail::is_valid(w.final_norm.norm);
    return true;
}

}  // namespace staticformer
