// consumer_dispatch: one forward pass, built once per instruction-set level.
#pragma once
#include <staticformer/dispatch.hpp>
#include <staticformer/staticformer.hpp>

using dispatch_cfg = staticformer::encoder_config<16, 2, 24, 5, 1>;

template <staticformer::isa Level>
staticformer::status forward_at(const staticformer::encoder_weights<dispatch_cfg, staticformer::f32>& w,
                                const float* x, float* y);
