// staticformer: float <-> int8 and int16 at the edges of an int8 encoder (for code that has
// floats: the host, or a core with an FPU). The int8 forward pass itself never touches a float.
// The encoder's input and output are its int16 residual stream; a model's feature or image
// values are int8.
//   quantise:   q = saturate(floor(x / scale + 0.5) + zero_point)   (float arithmetic)
//   dequantise: x = scale * (q - zero_point)
// Non-finite values: quantize_input / quantize_model_input refuse any NaN or infinity with
// status::non_finite_input and write nothing, as the float forward passes do; values beyond the
// range saturate (int8: -128 / 127, int16: -32768 / 32767), subnormals round to the zero point.
// quantize_value alone maps +infinity to the largest code and -infinity and NaN to the smallest.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../math/finite.hpp"
#include "../model_weights.hpp"
#include "../model_weights_int8.hpp"
#include "../status.hpp"
#include "../weights_a16w8.hpp"
#include "../weights_int8.hpp"

namespace staticformer {

inline std::int8_t quantize_value(float x, const quantization& q) noexcept {
    const float v = std::floor(x / q.scale + 0.5f) + float(q.zero_point);
    return std::int8_t(v >= 127.0f ? 127 : v > -128.0f ? int(v) : -128);  // NaN -> -128
}

inline float dequantize_value(std::int8_t v, const quantization& q) noexcept {
    return q.scale * float(std::int64_t(v) - q.zero_point);  // (64-bit: any zero point, unchecked weights too)
}

inline std::int16_t quantize_stream_value(float x, const quantization& q) noexcept {
    const float v = std::floor(x / q.scale + 0.5f) + float(q.zero_point);
    return std::int16_t(v >= 32767.0f ? 32767 : v > -32768.0f ? int(v) : -32768);  // NaN -> -32768
}

inline float dequantize_value(std::int16_t v, const quantization& q) noexcept {
    return q.scale * float(std::int64_t(v) - q.zero_point);
}

namespace detail {
inline std::int8_t quantize_to(float x, const quantization& q, std::int8_t) noexcept { return quantize_value(x, q); }
inline std::int16_t quantize_to(float x, const quantization& q, std::int16_t) noexcept {
    return quantize_stream_value(x, q);
}
template <class T>
inline status quantize_values(const float* x, T* q, std::size_t n, const quantization& quant) noexcept {
    if (x == nullptr || q == nullptr) return status::null_pointer;
    if (!math::all_finite(x, n)) return status::non_finite_input;
    for (std::size_t i = 0; i < n; ++i) q[i] = quantize_to(x[i], quant, T{});
    return status::ok;
}
}  // namespace detail

// n input values x -> q (the stream), with the weights' input quantisation (int8 or a16w8).
template <class Cfg, class P>
status quantize_input(const encoder_weights<Cfg, P>& w, const float* x, std::int16_t* q, std::size_t n) noexcept {
    static_assert(std::is_same<P, int8>::value || std::is_same<P, a16w8>::value, "quantize_input: integer weights");
    return detail::quantize_values(x, q, n, w.input);
}

// n output values q (the stream) -> y, with the weights' output quantisation.
template <class Cfg, class P>
void dequantize_output(const encoder_weights<Cfg, P>& w, const std::int16_t* q, float* y, std::size_t n) noexcept {
    static_assert(std::is_same<P, int8>::value || std::is_same<P, a16w8>::value, "dequantize_output: integer weights");
    for (std::size_t i = 0; i < n; ++i) y[i] = dequantize_value(q[i], w.output);
}

// Whole integer models (model_weights_int8.hpp): n features or image values x -> q with the
// model's input quantisation (a16w8: within its projection's input_limit); n int32 logits, or n
// int16 output values (pooled row or sequence), -> y.
template <class M>
status quantize_model_input(const model_weights<M, int8>& w, const float* x, std::int8_t* q, std::size_t n) noexcept {
    return detail::quantize_values(x, q, n, w.quant.input);
}
template <class M>
status quantize_model_input(const model_weights<M, a16w8>& w, const float* x, std::int16_t* q, std::size_t n) noexcept {
    const status s = detail::quantize_values(x, q, n, w.quant.input);
    constexpr std::int16_t limit = std::int16_t(a16w8_limits::input_limit(M::features));
    if (s == status::ok)
        for (std::size_t i = 0; i < n; ++i) q[i] = q[i] > limit ? limit : q[i] < -limit ? std::int16_t(-limit) : q[i];
    return s;
}
template <class M, class P>
void dequantize_logits(const model_weights<M, P>& w, const std::int32_t* q, float* y, std::size_t n) noexcept {
    static_assert(is_integer_precision<P>, "dequantize_logits: integer weights");
    for (std::size_t i = 0; i < n; ++i)  // (64-bit difference: any int32 logit and zero point)
        y[i] = w.quant.logits.scale * float(std::int64_t(q[i]) - w.quant.logits.zero_point);
}
// (The output's quantisation is quant.logits: the encoder's output, or pooled_norm's.)
template <class M, class P>
void dequantize_model_output(const model_weights<M, P>& w, const std::int16_t* q, float* y, std::size_t n) noexcept {
    static_assert(is_integer_precision<P>, "dequantize_model_output: integer weights");
    for (std::size_t i = 0; i < n; ++i) y[i] = dequantize_value(q[i], w.quant.logits);
}

}  // namespace staticformer
