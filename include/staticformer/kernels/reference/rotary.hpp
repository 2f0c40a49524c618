// staticformer: rotary position embedding of one row of queries or keys (normative). Each of
// the D / HeadDim heads' pairs (a, b) turns by its angle (math/rotary.hpp):
//   a' = a cos - b sin,  b' = b cos + a sin
// each a fused multiply-add of a rounded product, fma(a, cos, -(b sin)) and fma(b, cos, a sin),
// so contraction cannot change them (int8: rotary_int8.hpp). Pairs: (i, i + HeadDim / 2) for
// rotate-halves, (2i, 2i + 1) for interleaved.
#pragma once

#include <cmath>

namespace staticformer {
namespace kernels {
namespace reference {

// The two dimensions of pair i of a head.
template <int HeadDim, bool Interleaved>
constexpr int pair_first(int i) noexcept { return Interleaved ? 2 * i : i; }
template <int HeadDim, bool Interleaved>
constexpr int pair_second(int i) noexcept { return Interleaved ? 2 * i + 1 : i + HeadDim / 2; }

// x: one row of D values; cos, sin: the row's HeadDim / 2 angles.
template <int D, int HeadDim, bool Interleaved>
inline void rotate(float* x, const float* cos, const float* sin) noexcept {
    for (int h = 0; h < D; h += HeadDim)
        for (int i = 0; i < HeadDim / 2; ++i) {
            float& a = x[h + pair_first<HeadDim, Interleaved>(i)];
            float& b = x[h + pair_second<HeadDim, Interleaved>(i)];
            const float a0 = a, b0 = b;
            a = std::fma(a0, cos[i], -(b0 * sin[i]));
            b = std::fma(b0, cos[i], a0 * sin[i]);
        }
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
