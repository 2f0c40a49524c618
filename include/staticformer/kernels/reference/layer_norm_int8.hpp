// staticformer: int8 LayerNorm and RMSNorm (reference backend, normative): integer statistics, an integer
// square root and one requantisation per output (weights_int8.hpp, layer_norm_int8).
#pragma once

#include <cstdint>

#include "../../math/fixed_point.hpp"
#include "../params_int8.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

// A row's statistics: its centre C (params_int8.hpp) and 2^40 / sqrt(N^2 var / scale^2 + eps).
struct norm_stats_int8 {
    std::int32_t sum;  // C
    std::int64_t reciprocal;
};

// N^2 var / scale^2 about the centre is at most N^2 (255 / 2)^2 < N^2 2^14 about the mean
// (LayerNorm), N^2 255^2 < N^2 2^16 about a zero point (RMSNorm). With eps below 2^32 less that
// bound, the radicand fits 32 bits and takes half the steps: a choice by the weights, the same
// for every input.
template <int N, bool Rms>
constexpr bool radicand_fits_32_bits(const layer_norm_int8<N, Rms>& p) noexcept {
    return p.eps < (std::int64_t(1) << 32) - std::int64_t(N) * N * (1 << (Rms ? 16 : 14));
}

// The centre C and the radicand N q - 2 C s + C^2 + eps of a row with sum s and sum of squares q.
struct norm_radicand {
    std::int32_t centre;
    std::uint64_t radicand;
};
template <int N, bool Rms>
inline norm_radicand centre_and_radicand(std::int32_t sum, std::int32_t sum_sq, const layer_norm_int8<N, Rms>& p) noexcept {
    std::int64_t spread = std::int64_t(N) * sum_sq - std::int64_t(sum) * sum;  // N^2 var / scale^2 (LayerNorm)
    std::int32_t centre = sum;
    if constexpr (Rms) {
        centre = N * p.input_zero_point;
        const std::int64_t offset = std::int64_t(sum) - centre;  // about C: plus (s - C)^2
        spread += offset * offset;
    }
    return {centre, std::uint64_t(spread + p.eps)};
}

// From a row's sum and sum of squares (optimised kernels add those their own way).
template <int N, bool Rms>
inline norm_stats_int8 layer_norm_stats(std::int32_t sum, std::int32_t sum_sq, const layer_norm_int8<N, Rms>& p) noexcept {
    const norm_radicand r = centre_and_radicand(sum, sum_sq, p);
    const std::uint32_t den = radicand_fits_32_bits(p) ? math::isqrt32(std::uint32_t(r.radicand)) : math::isqrt(r.radicand);
    // den >= 1: 2^40 / den <= 2^40, a 41-bit quotient; den == 0 (a constant row, eps 0): 0.
    const std::int64_t reciprocal = std::int64_t(math::power_of_two_over<40>(den | std::uint32_t(den == 0)));
    return {r.centre, reciprocal & -std::int64_t(den != 0)};
}

template <int N, bool Rms>
inline norm_stats_int8 layer_norm_stats(const std::int8_t* x, const layer_norm_int8<N, Rms>& p) noexcept {
    std::int32_t sum = 0, sum_sq = 0;
    for (int c = 0; c < N; ++c) {
        sum += x[c];
        sum_sq += std::int32_t(x[c]) * x[c];
    }
    return layer_norm_stats(sum, sum_sq, p);
}

// Output c of a row with statistics s.
template <int N, bool Rms>
inline std::int8_t layer_norm_output(std::int8_t x, norm_stats_int8 s, const layer_norm_int8<N, Rms>& p, int c) noexcept {
    const std::int64_t centred = std::int64_t(N) * x - s.sum;
    const std::int32_t z = std::int32_t((centred * s.reciprocal + (std::int64_t(1) << 31)) >> 32);  // Q8
    return math::requantize(z * p.gamma[c] + p.beta[c], 1, p.shift, p.output_zero_point);
}

// One row; y may equal x.
template <int N, bool Rms>
inline void layer_norm_row(const std::int8_t* x, const layer_norm_int8<N, Rms>& p, std::int8_t* y) noexcept {
    const norm_stats_int8 s = layer_norm_stats(x, p);
    for (int c = 0; c < N; ++c) y[c] = layer_norm_output(x[c], s, p, c);
}

template <int N, bool Rms>
inline void layer_norm(const std::int8_t* x, int rows, const layer_norm_int8<N, Rms>& p, std::int8_t* y) noexcept {
    for (int r = 0; r < rows; ++r) layer_norm_row(x + r * N, p, y + r * N);
}

// LayerNorm and RMSNorm from the stream (params_int8.hpp): a row's radicand R from its sum and
// 64-bit sum of squares, then its centre C and 2^48 / den.
template <int N, bool Rms>
inline std::uint64_t stream_radicand(std::int32_t sum, std::int64_t sum_sq, const layer_norm_int8<N, Rms>& p) noexcept {
    return std::uint64_t(std::int64_t(N) * sum_sq - (Rms ? 0 : std::int64_t(sum) * sum) + p.eps);
}
// With den = root 2^t, floor(2^48 / den) = floor(2^48 / root) >> t.
template <int N, bool Rms>
inline norm_stats_int8 stream_norm_stats(std::int32_t sum, std::int64_t sum_sq, const layer_norm_int8<N, Rms>& p) noexcept {
    const std::uint64_t radicand = stream_radicand(sum, sum_sq, p);
    const int t = math::radicand_halvings(radicand);
    const std::uint32_t root = math::isqrt32(std::uint32_t(radicand >> (2 * t)));
    const std::int64_t reciprocal = std::int64_t(math::power_of_two_over<48>(root | std::uint32_t(root == 0)) >> t);
    return {Rms ? 0 : sum, reciprocal & -std::int64_t(root != 0)};  // root == 0 (a constant row, eps 0): 0
}

template <int N, bool Rms>
inline norm_stats_int8 stream_norm_stats(const std::int16_t* x, const layer_norm_int8<N, Rms>& p) noexcept {
    std::int32_t sum = 0;
    std::int64_t sum_sq = 0;
    for (int c = 0; c < N; ++c) {
        sum += x[c];
        sum_sq += std::int32_t(x[c]) * x[c];
    }
    return stream_norm_stats(sum, sum_sq, p);
}

// z[c] gamma[c] + beta[c] of stream value x in column c of a row with statistics s.
template <int N, bool Rms>
inline std::int32_t stream_norm_value(std::int16_t x, norm_stats_int8 s, const layer_norm_int8<N, Rms>& p, int c) noexcept {
    const std::int64_t centred = std::int64_t(N) * x - s.sum;
    const std::int32_t z = std::int32_t((centred * s.reciprocal + (std::int64_t(1) << 39)) >> 40);  // Q8
    return z * p.gamma[c] + p.beta[c];
}

// That value as an int8 output or a stream value.
inline void store_norm_output(std::int32_t v, std::int32_t shift, std::int32_t zero_point, std::int8_t& y) noexcept {
    y = math::requantize(v, 1, shift, zero_point);
}
inline void store_norm_output(std::int32_t v, std::int32_t shift, std::int32_t zero_point, std::int16_t& y) noexcept {
    y = math::saturate_int16(math::rescale(v, 1, shift) + zero_point);
}

// Rows of the stream into int8 (a block's input) or into the stream (post-norm, a final norm);
// y may equal x.
template <int N, bool Rms, class Out>
inline void layer_norm(const std::int16_t* x, int rows, const layer_norm_int8<N, Rms>& p, Out* y) noexcept {
    for (int r = 0; r < rows; ++r) {
        const norm_stats_int8 s = stream_norm_stats(x + r * N, p);
        for (int c = 0; c < N; ++c)
            store_norm_output(stream_norm_value(x[r * N + c], s, p, c), p.shift, p.output_zero_point, y[r * N + c]);
    }
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
