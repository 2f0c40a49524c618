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

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
