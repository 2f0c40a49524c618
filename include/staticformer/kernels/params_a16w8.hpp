// staticformer: the a16w8 kernels' parameters (normative: their formulas and layout): int8
// weights as the int8 path's, every activation int16 and symmetric (zero point 0).
//
// Every sum stays in int32, as on the int8 path: each tensor is clamped to a limit its consumers'
// sums allow (a linear layer of In inputs reads values within input_limit(In), attention's
// queries and keys stay within score_limit(head_dim)), so an int16 container carries 11-15
// significant bits, far finer than the int8 weights (about 40 dB) that bound the accuracy.
#pragma once

#include <cstdint>

#include "../math/fixed_point.hpp"
#include "params_int8.hpp"

namespace staticformer {
namespace a16w8_limits {

// The largest |x| a linear layer of In inputs reads: In * 128 * limit + |bias| < 2^31 with
// |bias| <= 2^30 (bias_limit), and never above 32767.
constexpr std::int32_t input_limit(int in) noexcept {
    const std::int64_t l = ((std::int64_t(1) << 30) - 1) / (std::int64_t(in) * 128);
    return std::int32_t(l < 32767 ? l : 32767);
}
constexpr std::int32_t bias_limit = std::int32_t(1) << 30;

// The largest |q| and |k| of attention with head_dim Dh: a turned value (rotary) grows by up to
// sqrt(2) plus its rounding, so Dh * (2 (limit + 1)^2) < 2^31 keeps every score within int32.
constexpr std::int32_t score_limit(int head_dim) noexcept {
    std::int32_t l = 32767;
    while (std::int64_t(head_dim) * 2 * (std::int64_t(l) + 1) * (l + 1) >= (std::int64_t(1) << 31)) --l;
    return l;
}

// The activation table's inputs: 512 segments of 128 values over the int16 range.
constexpr int table_segments = 512, table_step_bits = 7;

}  // namespace a16w8_limits

// y = x W + b for int16 x (In per row, |x| <= input_limit) and int16 y (Out per row):
//   acc[o] = bias[o] + sum_i x[i] * w[i / 4][o][i % 4]        (exact, int32)
//   y[o]   = clamp(rescale(acc[o], multiplier[o], shift), -output_limit, output_limit)
// The weights' layout is linear_int8's; output_limit is the consumer's input limit.
template <int In, int Out>
struct linear_a16w8 {
    static constexpr int inputs = In, outputs = Out;
    static constexpr int in_groups = (In + 3) / 4;
    static constexpr std::int32_t input_limit = a16w8_limits::input_limit(In);
    static constexpr std::int32_t bias_limit = a16w8_limits::bias_limit;
    static constexpr int multiplier_count = detail::padded_int16_count(4LL * in_groups * Out + 4LL * Out + 8, Out);
    std::int8_t w[in_groups][Out][4];
    std::int32_t bias[Out];
    std::int32_t shift;
    std::int32_t output_limit;                  // 1 .. 32767
    std::int16_t multiplier[multiplier_count];  // output o's multiplier (< 2^15); 0 past Out
};

// The activation of int16 x by linear interpolation in a table of 513 points, one every 128
// values from -32768 (entries past 512 are 0: the table is a whole number of 64-byte units):
//   i = (x + 32768) >> 7,  f = (x + 32768) & 127
//   y = table[i] + (((table[i + 1] - table[i]) * f + 64) >> 7)
// |table| <= 32767 keeps y within the table's range.
struct activation_a16w8 {
    static constexpr int points = a16w8_limits::table_segments + 1;
    std::int16_t table[544];
};

// A gated feed-forward's product of the activated a and the gate b (both int16), into the
// hidden layer's scale: y = clamp(rescale(a * b, multiplier, shift), -output_limit, output_limit).
// |a b| <= 2^30: the product fits int32.
struct gate_a16w8 {
    std::int32_t multiplier;  // < 2^15
    std::int32_t shift;
    std::int32_t output_limit;
    std::int32_t reserved;  // 0
};

// Attention on int16 queries, keys (|q|, |k| <= score_limit(head_dim)) and values: scores,
// softmax and probabilities as attention_int8's; the context
//   ctx[d] = clamp(rescale(sum_j p[j] v[j][d], context), -context_limit, context_limit)
// sum_j p[j] <= 2^15 + n / 2 (each probability rounded once), so |sum| < 2^31 for any int16 v
// and n <= 65535.
struct attention_a16w8 {
    math::fixed_multiplier logits;
    math::fixed_multiplier context;
    std::int32_t context_limit;
    std::int32_t reserved;  // 0
};

// A block's int16 input read from the stream (post-norm):
//   y[i] = clamp(rescale(x[i], multiplier, shift), -output_limit, output_limit)
// multiplier < 2^15 and 1 <= shift <= 30: |x m| + 2^(shift-1) < 2^31, 32-bit steps.
struct stream_narrow_a16w8 {
    std::int32_t multiplier;
    std::int32_t shift;
    std::int32_t output_limit;
    std::int32_t reserved;  // 0
};

}  // namespace staticformer
