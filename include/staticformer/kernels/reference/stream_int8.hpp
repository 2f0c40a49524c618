// staticformer: the int16 stream's steps (reference backend, normative; params_int8.hpp): an int8
// tensor added into the stream or widened into it, and int8 tensors read from it.
#pragma once

#include <cstdint>

#include "../../math/fixed_point.hpp"
#include "../params_a16w8.hpp"
#include "../params_int8.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

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

// a16w8: stream += a for an int16 branch (a_zero_point 0: |a m| < 2^30).
inline void add(std::int16_t* x, const std::int16_t* a, int n, const stream_add_int8& p) noexcept {
    for (int i = 0; i < n; ++i) x[i] = math::saturate_int16(x[i] + math::rescale(a[i], p.multiplier, p.shift));
}

// a16w8: an int16 tensor widened into the stream (the add on zeros; a_zero_point 0).
inline void widen(const std::int16_t* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
    for (int i = 0; i < n; ++i) y[i] = math::saturate_int16(math::rescale(a[i], p.multiplier, p.shift));
}

// a16w8: a block's int16 input from the stream (post-norm; stream_narrow_a16w8).
inline void narrow(const std::int16_t* x, int n, const stream_narrow_a16w8& p, std::int16_t* y) noexcept {
    for (int i = 0; i < n; ++i) y[i] = math::clamp_to(math::rescale(x[i], p.multiplier, p.shift), p.output_limit);
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
