// staticformer: float <-> int8 at the edges of an int8 encoder (for code that has floats: the
// host, or a core with an FPU). The int8 forward pass itself never touches a float.
//   quantise:   q = saturate(floor(x / scale + 0.5) + zero_point)   (float arithmetic)
//   dequantise: x = scale * (q - zero_point)
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "../model_weights.hpp"
#include "../weights_int8.hpp"

namespace staticformer {

inline std::int8_t quantize_value(float x, const quantization& q) noexcept {
    const float v = std::floor(x / q.scale + 0.5f) + float(q.zero_point);
    return std::int8_t(v >= 127.0f ? 127 : v > -128.0f ? int(v) : -128);  // NaN -> -128
}

inline float dequantize_value(std::int8_t v, const quantization& q) noexcept {
    return q.scale * float(int(v) - q.zero_point);
}

// n input values x -> q, with the weights' input quantisation.
template <class Cfg>
void quantize_input(const encoder_weights<Cfg, int8>& w, const float* x, std::int8_t* q, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) q[i] = quantize_value(x[i], w.input);
}

// n output values q -> y, with the weights' output quantisation.
template <class Cfg>
void dequantize_output(const encoder_weights<Cfg, int8>& w, const std::int8_t* q, float* y, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) y[i] = dequantize_value(q[i], w.output);
}

// Whole int8 models (model_weights_int8.hpp): n features or image values x -> q with the model's
// input quantisation; n int32 logits, or n int8 output values (pooled row or sequence), -> y.
template <class M>
void quantize_model_input(const model_weights<M, int8>& w, const float* x, std::int8_t* q, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) q[i] = quantize_value(x[i], w.quant.input);
}
template <class M>
void dequantize_logits(const model_weights<M, int8>& w, const std::int32_t* q, float* y, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) y[i] = w.quant.logits.scale * float(q[i] - w.quant.logits.zero_point);
}
template <class M>
void dequantize_model_output(const model_weights<M, int8>& w, const std::int8_t* q, float* y, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) y[i] = dequantize_value(q[i], w.encoder.output);
}

}  // namespace staticformer
