// staticformer: the int8 kernels' parameters (normative: their formulas and layout), one struct
// per op: linear_int8, layer_norm_int8, stream_add_int8, attention_int8, ... The int8 weights
// (weights_int8.hpp) are made of them; every tensor is int8 with one scale and zero point, each
// step from an int32 accumulator to int8 one math::requantize with a stored multiplier and shift.
#pragma once

#include <cstdint>

#include "../config.hpp"
#include "../math/fixed_point.hpp"

namespace staticformer {

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
    static constexpr int inputs = In, outputs = Out;
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

// LayerNorm of the stream's int16 rows of N values x (zero point 0), integer-only. With
// s = sum x, q = sum x^2 (64 bits) and the row's centre C = s (LayerNorm: N times the mean) or
// C = 0 (RMSNorm, Rms: the real zero), the radicand R = N q - C s + eps (N^2 var / scale^2 about
// C; eps in those units) and t the fewest halvings with R >> 2t < 2^32:
//   den  = isqrt(R >> 2t) 2^t                  (a 32-bit root, within 2^-15 of sqrt(R))
//   z[c] = round(2^8 (N x[c] - C) / den)       via (N x[c] - C) * floor(2^48 / den), rounded >> 40
//   y[c] = requantize(z[c] * gamma[c] + beta[c], 1, shift, output_zero_point)       (int8 output)
//   y[c] = saturate_int16(rescale(z[c] * gamma[c] + beta[c], 1, shift) + output_zero_point)  (stream)
// The stream's scale cancels in z, only eps depends on it. |N x - C| <= sqrt(N) sqrt(R), so
// |(N x - C) floor(2^48 / den)| < 2^55 and |z| <= 2^8 sqrt(N) + 2.
template <int N, bool Rms = false>
struct layer_norm_int8 {
    static_assert(N <= 4096, "int8 LayerNorm: d_model at most 4096 (z * gamma must fit in 31 bits)");
    // |z| <= 2^9 sqrt(N) <= 2^15 (a centred value is at most sqrt(N) times the root mean square
    // about C, and den at least half of it), so |z gamma| < 2^30 (gamma < 2^15) and
    // |beta| <= 2^30 keeps z gamma + beta within int32.
    static constexpr bool rms = false;
    static constexpr std::int32_t beta_limit = std::int32_t(1) << 30;
    static constexpr int gamma_count = detail::padded_int16_count(16LL + 4LL * N, N);
    std::int64_t eps;
    std::int32_t shift;
    std::int32_t output_zero_point;
    std::int32_t beta[N];
    std::int16_t gamma[gamma_count];  // entries past N are 0: they end the struct on a 64-byte unit
};

// RMSNorm: the same with the stream's zero point, 0 (a plain aggregate, as the LayerNorm's: an
// empty base would change how both are brace-initialised).
template <int N>
struct layer_norm_int8<N, true> {
    static_assert(N <= 4096, "int8 RMSNorm: d_model at most 4096 (z * gamma must fit in 31 bits)");
    static constexpr bool rms = true;
    static constexpr std::int32_t beta_limit = layer_norm_int8<N>::beta_limit;
    static constexpr int gamma_count = detail::padded_int16_count(24LL + 4LL * N, N);
    std::int64_t eps;
    std::int32_t shift;
    std::int32_t output_zero_point;
    std::int32_t input_zero_point;  // 0, the stream's
    std::int32_t reserved;          // 0: beta on 8 bytes
    std::int32_t beta[N];   // 0 for torch's RMSNorm, which has no bias
    std::int16_t gamma[gamma_count];
};

// A gated feed-forward's product of the activated a (the activation table's output, its zero
// point a_zero_point) and the gate b (the first linear's output, b_zero_point), into the hidden
// layer's scale:
//   y = requantize((a - a_zero_point) * (b - b_zero_point), multiplier, shift, output_zero_point)
// |a - za| |b - zb| <= 255^2 < 2^16 and multiplier < 2^15: the product fits 31 bits.
struct gate_int8 {
    std::int32_t a_zero_point, b_zero_point;
    std::int32_t multiplier;  // < 2^15
    std::int32_t shift;
    std::int32_t output_zero_point;
    std::int32_t reserved;  // 0
};

// The residual stream (int8 encoders' input and output, what every block adds to): int16 values
// of one symmetric scale for the whole encoder (zero point 0). The tensors the linear layers
// read stay int8; the stream's finer grid keeps the adds' rounding from piling up layer after
// layer (tools/int8_noise_model.py: about 11 dB on the branch of the reference configurations).

// stream += a, an int8 tensor (zero point a_zero_point) added into the stream; widened into
// the stream (an embedding row) is the same on a stream of zeros:
//   x[i] = saturate_int16(x[i] + rescale(a[i] - a_zero_point, multiplier, shift))
//   y[i] = saturate_int16(rescale(a[i] - a_zero_point, multiplier, shift))           (widen)
// multiplier < 2^15 and 1 <= shift <= 30: |(a - za) m| + 2^(shift-1) < 2^31, 32-bit steps.
struct stream_add_int8 {
    std::int32_t a_zero_point;
    std::int32_t multiplier;
    std::int32_t shift;
    std::int32_t reserved;  // 0
};

// An int8 tensor from the stream (a block input that is not a LayerNorm's output):
//   y[i] = requantize(x[i], multiplier, shift, zero_point)
// multiplier < 2^15 and 1 <= shift <= 30: |x m| + 2^(shift-1) < 2^31, 32-bit steps.
struct stream_narrow_int8 {
    std::int32_t multiplier;
    std::int32_t shift;
    std::int32_t zero_point;
    std::int32_t reserved;  // 0
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

}  // namespace staticformer
