// staticformer: int8 residual add (reference backend, normative): two tensors in their own
// scales into the output's scale, one requantisation per element; the stream's add and the
// int8 tensors read from it.
#pragma once

#include <cstdint>

#include "../../math/fixed_point.hpp"
#include "../params_int8.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

// x = x + a, each in its own scale, into the output's scale.
inline void add(std::int8_t* x, const std::int8_t* a, int n, const add_int8& p) noexcept {
    for (int i = 0; i < n; ++i) {
        const std::int32_t acc = (x[i] - p.x_zero_point) * p.x_multiplier + (a[i] - p.a_zero_point) * p.a_multiplier;
        x[i] = math::requantize(acc, 1, p.shift, p.output_zero_point);
    }
}

// stream += a (params_int8.hpp, stream_add_int8).
inline void add(std::int16_t* x, const std::int8_t* a, int n, const stream_add_int8& p) noexcept {
    for (int i = 0; i < n; ++i)
        x[i] = math::saturate_int16(x[i] + math::rescale(a[i] - p.a_zero_point, p.multiplier, p.shift));
}

// An int8 tensor widened into the stream (stream_add_int8: the add on zeros).
inline void widen(const std::int8_t* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
    for (int i = 0; i < n; ++i) y[i] = math::saturate_int16(math::rescale(a[i] - p.a_zero_point, p.multiplier, p.shift));
}

// An int8 tensor from the stream (stream_narrow_int8).
inline void narrow(const std::int16_t* x, int n, const stream_narrow_int8& p, std::int8_t* y) noexcept {
    for (int i = 0; i < n; ++i) y[i] = math::requantize(x[i], p.multiplier, p.shift, p.zero_point);
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
