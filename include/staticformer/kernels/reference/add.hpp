// staticformer: residual add, y = y + x, and the gate's product (reference backend, normative). x is float, or binary16
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

// A gated feed-forward's product, y = a * b (one rounding: the same bytes however it is
// vectorised). y may equal a, or lie before a and b (the products of a row written over the
// rows before it): each y[i] is written after a[i] and b[i] are read, and ahead of no unread value.
inline void multiply(float* y, const float* a, const float* b, int n) noexcept {
    for (int i = 0; i < n; ++i) y[i] = a[i] * b[i];
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
