// staticformer: FFN activations with xsimd (optimised; bit-identical to reference/activation.hpp).
#pragma once

#include "../../math/approx.hpp"
#include "../reference/activation.hpp"
#include "ops.hpp"

namespace staticformer {
namespace kernels {
namespace simd {

template <activation_kind Act, class Ops, class T>
inline T activate_batch(const T& x) noexcept {
    if constexpr (Act == activation_kind::relu) return math::relu<Ops>(x);
    else if constexpr (Act == activation_kind::gelu) return math::gelu<Ops>(x);
    else return math::gelu_tanh<Ops>(x);
}

// Four batches at a time through the formula together (batches<4>, ops.hpp): GELU kernel on
// 8192 elements, fastest of 15 batches of 400 calls: AVX2 6.43 -> 4.64 us, AVX-512 4.85 -> 4.00
// us (two at a time: 5.41 and 4.20; eight: 5.75 and 3.94).
constexpr int activation_batches = 4;

template <activation_kind Act>
STATICFORMER_FLATTEN inline void activate(float* x, int n) noexcept {
    constexpr int N = activation_batches;
    int i = 0;
    for (; i + N * width <= n; i += N * width) store(x + i, activate_batch<Act, batches_ops<N>>(load<N>(x + i)));
    for (; i + width <= n; i += width) store(x + i, activate_batch<Act, batch_ops>(load(x + i)));
    for (; i < n; ++i) x[i] = reference::activate_one<Act>(x[i]);
}

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
