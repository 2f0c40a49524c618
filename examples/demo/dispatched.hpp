// The demo's code that runs the encoders, built once per instruction-set level
// (staticformer_add_dispatch in examples/CMakeLists.txt) and picked at run time by
// sf::dispatch(): passes of the example encoder (encoder_passes.cpp) and the trained digits
// models (digits.cpp). Weights and test data are defined once, in demo.cpp, and passed in: a
// level's copy of the code holds no copy of them.
#pragma once

#include <staticformer/dispatch.hpp>
#include <staticformer/staticformer.hpp>

#include <cstdint>

#include "demo_model.hpp"
#include "digits_tokens.hpp"
#include "digits_tokens_f16.hpp"
#include "digits_tokens_int8.hpp"
#include "digits_vit.hpp"
#include "digits_vit_f16.hpp"
#include "digits_vit_int8.hpp"

template <staticformer::isa Level>
staticformer::status forward_f32(const staticformer::encoder_weights<demo_model_config, staticformer::f32>& w,
                                 const float* in, float* out, int valid_len);
template <staticformer::isa Level>
staticformer::status forward_int8(const staticformer::encoder_weights<demo_model_config, staticformer::int8>& w,
                                  const std::int16_t* in, std::int16_t* out, int valid_len);

struct digits_data {
    const decltype(digits_vit)& vit;
    const decltype(digits_vit_f16)& vit_f16;
    const decltype(digits_vit_int8)& vit_int8;
    const decltype(digits_tokens)& tokens;
    const decltype(digits_tokens_f16)& tokens_f16;
    const decltype(digits_tokens_int8)& tokens_int8;
    const std::uint8_t (*images)[64];
    const std::uint8_t* labels;
    int count;
};
// Accuracy and median latency of every digits model, printed.
template <staticformer::isa Level>
void run_digits(const digits_data& d);
