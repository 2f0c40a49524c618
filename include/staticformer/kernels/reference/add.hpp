// staticformer: residual add, y = y + x (reference backend, normative). x is float, or binary16
// bits (an f16 model's learned positions), widened exactly.
#pragma once

#include "../../math/fp16.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

template <class W>
inline void add(float* y, const W* x, int n) noexcept {
    for (int i = 0; i < n; ++i) y[i] = y[i] + math::widen(x[i]);
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
