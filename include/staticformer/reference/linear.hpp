// staticformer: y = x W + b (normative).
//
// W is stored input-major, w[i * WStride + o] (the transpose of torch's Linear.weight), so a
// vector of consecutive outputs reads consecutive memory. Each output starts from its bias and
// adds x[i] * w[i][o] for i = 0, 1, ..., In-1, one fused multiply-add at a time.
#pragma once

#include <cmath>

namespace staticformer {
namespace kernels {
namespace reference {

// One output: b + sum_i x[i] * w[i * WStride], in increasing i.
template <int In, int WStride>
inline float linear_output(const float* x, const float* w, float bias) noexcept {
    float acc = bias;
    for (int i = 0; i < In; ++i) acc = std::fma(x[i], w[i * WStride], acc);
    return acc;
}

// y[r][o] for r < rows, o < Out; x rows are In floats apart, y rows Out floats apart.
template <int In, int Out, int WStride = Out>
inline void linear(const float* x, int rows, const float* w, const float* b, float* y) noexcept {
    for (int r = 0; r < rows; ++r)
        for (int o = 0; o < Out; ++o)
            y[r * Out + o] = linear_output<In, WStride>(x + r * In, w + o, b[o]);
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
