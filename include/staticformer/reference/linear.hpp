// staticformer: y = x W + b (normative).
//
// W is stored input-major, w[i * WStride + o] (the transpose of torch's Linear.weight), so a
// vector of consecutive outputs reads consecutive memory. Each output starts from its bias and
// adds x[i] * w[i][o] for i = 0, 1, ..., In-1, one fused multiply-add at a time.
// W is float (f32 weights) or std::uint16_t (f16 weights, binary16 bits): every weight and bias
// is widened to float exactly (math::widen) and enters the same chain.
#pragma once

#include <cmath>

#include "../math/fp16.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

// One output: b + sum_i x[i] * w[i * WStride], in increasing i.
template <int In, int WStride, class W>
inline float linear_output(const float* x, const W* w, W bias) noexcept {
    float acc = math::widen(bias);
    for (int i = 0; i < In; ++i) acc = std::fma(x[i], math::widen(w[i * WStride]), acc);
    return acc;
}

// y[r][o] for r < rows, o < Out; x rows are In floats apart, y rows Out floats apart.
template <int In, int Out, int WStride = Out, class W>
inline void linear(const float* x, int rows, const W* w, const W* b, float* y) noexcept {
    for (int r = 0; r < rows; ++r)
        for (int o = 0; o < Out; ++o)
            y[r * Out + o] = linear_output<In, WStride>(x + r * In, w + o, b[o]);
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
