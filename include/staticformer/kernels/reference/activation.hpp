// staticformer: FFN activations, in place (normative).
#pragma once

#include "../../config.hpp"
#include "../../math/approx.hpp"
#include "../../math/scalar_ops.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

template <activation_kind Act>
inline float activate_one(float x) noexcept {
    using ops = math::scalar_ops;
    if constexpr (Act == activation_kind::relu) return math::relu<ops>(x);
    else if constexpr (Act == activation_kind::gelu) return math::gelu<ops>(x);
    else if constexpr (Act == activation_kind::gelu_tanh) return math::gelu_tanh<ops>(x);
    else return math::silu<ops>(x);
}

template <activation_kind Act>
inline void activate(float* x, int n) noexcept {
    for (int i = 0; i < n; ++i) x[i] = activate_one<Act>(x[i]);
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
