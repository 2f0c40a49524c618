// staticformer: LayerNorm over one row of N features (normative).
//   mean = sum(x) / N,  var = sum((x - mean)^2) / N   (both sums in the canonical lane order)
//   y = (x - mean) * rstd * gamma + beta,  rstd = 1 / sqrt(var + eps)
// RMSNorm (Rms) is the same with mean = 0: var is the mean square, and beta the zeros of a norm
// without bias.
// x and y may be the same buffer. gamma and beta are float or binary16 bits (f16 weights),
// widened exactly (math::widen).
#pragma once

#include <cmath>

#include "../../math/fp16.hpp"
#include "reduce.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

struct norm_stats {
    float mean;
    float rstd;
};

// From the folded sums (optimised kernels fold their own partials).
template <int N>
inline float mean_of(float sum) noexcept {
    return sum / float(N);
}

template <int N>
inline float rstd_of(float sum_squares, float eps) noexcept {
    const float var = sum_squares / float(N);
    return 1.0f / std::sqrt(var + eps);
}

template <int N>
inline float mean_of(const lane_sums& sum) noexcept {
    return mean_of<N>(fold(sum));
}

template <int N>
inline float rstd_of(const lane_sums& squares, float eps) noexcept {
    return rstd_of<N>(fold(squares), eps);
}

template <int N, bool Rms = false>
inline norm_stats layer_norm_stats(const float* x, float eps) noexcept {
    float mean = 0.0f;
    if constexpr (!Rms) {
        lane_sums sum;
        accumulate(sum, x, 0, N);
        mean = mean_of<N>(sum);
    }
    lane_sums squares;
    accumulate_squares(squares, x, mean, 0, N);
    return {mean, rstd_of<N>(squares, eps)};
}

template <class W>
inline float layer_norm_output(float x, norm_stats s, W gamma, W beta) noexcept {
    return std::fma((x - s.mean) * s.rstd, math::widen(gamma), math::widen(beta));
}

template <int N, bool Rms = false, class W>
inline void layer_norm(const float* x, int rows, const W* gamma, const W* beta, float eps, float* y) noexcept {
    for (int r = 0; r < rows; ++r) {
        const norm_stats s = layer_norm_stats<N, Rms>(x + r * N, eps);
        for (int i = 0; i < N; ++i) y[r * N + i] = layer_norm_output(x[r * N + i], s, gamma[i], beta[i]);
    }
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
