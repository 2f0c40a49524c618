// staticformer: LayerNorm with xsimd (optimised; bit-identical to reference/layer_norm.hpp).
#pragma once

#include "../reference/layer_norm.hpp"
#include "fp16.hpp"
#include "reduce.hpp"

namespace staticformer {
namespace kernels {
namespace simd {

// gamma and beta: float, or binary16 bits (f16 weights) widened exactly. A row's statistics are
// a chain of dependent steps (sum, mean, squares, variance, square root, reciprocal), so the
// statistics of a block of rows are taken first, together, and their outputs after. Rms: RMSNorm,
// the mean 0 (reference/layer_norm.hpp).
template <int N, bool Rms = false, class W>
inline void layer_norm(const float* x, int rows, const W* gamma, const W* beta, float eps, float* y) noexcept {
    constexpr int block = 8, vectored = N / width * width;
    for (int r0 = 0; r0 < rows; r0 += block) {
        const int b = rows - r0 < block ? rows - r0 : block;
        const float* xb = x + r0 * N;
        float* yb = y + r0 * N;
        reference::norm_stats stats[block];
        for (int r = 0; r < b; ++r) stats[r].mean = Rms ? 0.0f : reference::mean_of<N>(simd::sum(xb + r * N, N));
        for (int r = 0; r < b; ++r)
            stats[r].rstd = reference::rstd_of<N>(sum_squares(xb + r * N, stats[r].mean, N), eps);
        for (int r = 0; r < b; ++r) {
            const reference::norm_stats s = stats[r];
            const batch m(s.mean), rstd(s.rstd);
            const float* xr = xb + r * N;
            float* yr = yb + r * N;
            for (int i = 0; i < vectored; i += width)
                store(yr + i, simd::fma((load(xr + i) - m) * rstd, widen(gamma + i), widen(beta + i)));
            for (int i = vectored; i < N; ++i) yr[i] = reference::layer_norm_output(xr[i], s, gamma[i], beta[i]);
        }
    }
}

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
