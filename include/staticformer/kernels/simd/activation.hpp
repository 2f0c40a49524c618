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
    else if constexpr (Act == activation_kind::gelu_tanh) return math::gelu_tanh<Ops>(x);
    else return math::silu<Ops>(x);
}

// Four batches at a time through the formula together (batches<4>, ops.hpp), so that four
// chains keep the FMA pipes busy: the best of 1, 2, 4 and 8 on AVX2, and nearly as good as 8 on
// AVX-512 (bench/PERF_NOTES.md).
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
