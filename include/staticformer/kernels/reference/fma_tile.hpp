// staticformer: dot products as fused multiply-add chains, a tile of them at a time (normative).
//
// Chain (r, c) of a tile adds a[r * AStride + i] * b[i * BStride + c] for i = 0, 1, ..., n-1,
// one std::fma per step, onto whatever acc[r][c] holds. The chains are independent, so
// advancing them together gives each one exactly the result it has alone; the tile exists for
// scalar cores (Cortex-M): one output at a time costs two loads per fma, while a Rows x Cols
// tile loads each b once for Rows chains and each a once for Cols chains, every accumulator in
// a register (4 x 4 = 16 of the FPU's 32 single-precision registers). b is float, or binary16
// bits widened exactly (math::widen).
#pragma once

#include <cmath>

#include "../../math/fp16.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

template <int Rows, int Cols, int AStride, int BStride, class W>
inline void fma_tile(const float* a, const W* b, int n, float (&acc)[Rows][Cols]) noexcept {
    for (int i = 0; i < n; ++i) {
        float bi[Cols];
        math::widen_n(b + i * BStride, bi);
#pragma GCC unroll 16
        for (int r = 0; r < Rows; ++r) {
            const float ai = a[r * AStride + i];
#pragma GCC unroll 16
            for (int c = 0; c < Cols; ++c) acc[r][c] = std::fma(ai, bi[c], acc[r][c]);
        }
    }
}

// A single row of Cols chains, each from zero, written to out[0 .. Cols-1].
template <int Cols, int BStride, class W>
inline void fma_row(const float* a, const W* b, int n, float* out) noexcept {
    float acc[1][Cols] = {};
    fma_tile<1, Cols, 0, BStride>(a, b, n, acc);
#pragma GCC unroll 16
    for (int c = 0; c < Cols; ++c) out[c] = acc[0][c];
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
