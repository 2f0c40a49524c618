// staticformer: LayerNorm and RMSNorm of the int16 stream (reference backend, normative): integer
// statistics, an integer square root and one requantisation per output (params_int8.hpp,
// layer_norm_int8).
#pragma once

#include <cstdint>

#include "../../math/fixed_point.hpp"
#include "../params_int8.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

// A row's statistics: its centre C (params_int8.hpp) and 2^48 / sqrt(N^2 var / scale^2 + eps).
struct norm_stats_int8 {
    std::int32_t sum;  // C
    std::int64_t reciprocal;
};

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
