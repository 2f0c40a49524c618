// staticformer: LayerNorm with xsimd (optimised; bit-identical to reference/layer_norm.hpp).
#pragma once

#include "../reference/layer_norm.hpp"
#include "fp16.hpp"
#include "reduce.hpp"

namespace staticformer {
namespace kernels {
namespace simd {

// gamma and beta: float, or binary16 bits (f16 weights) widened exactly.
template <int N, class W>
inline void layer_norm(const float* x, int rows, const W* gamma, const W* beta, float eps, float* y) noexcept {
    for (int r = 0; r < rows; ++r, x += N, y += N) {
        const float mean = reference::mean_of<N>(sum_lanes(x, N));
        const reference::norm_stats s{mean, reference::rstd_of<N>(sum_squares_lanes(x, mean, N), eps)};
        const batch m(s.mean), rstd(s.rstd);
        constexpr int vectored = N / width * width;
        for (int i = 0; i < vectored; i += width)
            store(y + i, simd::fma((load(x + i) - m) * rstd, widen(gamma + i), widen(beta + i)));
        for (int i = vectored; i < N; ++i) y[i] = reference::layer_norm_output(x[i], s, gamma[i], beta[i]);
    }
}

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
