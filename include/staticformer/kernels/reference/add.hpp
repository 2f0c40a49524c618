// staticformer: residual add, y = y + x (reference backend, normative).
#pragma once

namespace staticformer {
namespace kernels {
namespace reference {

inline void add(float* y, const float* x, int n) noexcept {
    for (int i = 0; i < n; ++i) y[i] = y[i] + x[i];
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
