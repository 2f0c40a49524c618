// staticformer: FFN activations with xsimd (optimised; bit-identical to reference/activation.hpp).
#pragma once

#include "../math/approx.hpp"
#include "../reference/activation.hpp"
#include "ops.hpp"

namespace staticformer {
namespace kernels {
namespace simd {

template <activation_kind Act>
inline batch activate_batch(const batch& x) noexcept {
    if constexpr (Act == activation_kind::relu) return math::relu<batch_ops>(x);
    else if constexpr (Act == activation_kind::gelu) return math::gelu<batch_ops>(x);
    else return math::gelu_tanh<batch_ops>(x);
}

template <activation_kind Act>
inline void activate(float* x, int n) noexcept {
    int i = 0;
    for (; i + width <= n; i += width) store(x + i, activate_batch<Act>(load(x + i)));
    for (; i < n; ++i) x[i] = reference::activate_one<Act>(x[i]);
}

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
