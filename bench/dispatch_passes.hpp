// bench_dispatch: one forward pass of each reference configuration and precision, built once per
// instruction-set level (staticformer_add_dispatch) or once with fixed flags.
#pragma once

#include <staticformer/dispatch.hpp>
#include <staticformer/staticformer.hpp>

#include <cstdint>

#include "common/reference_configs.hpp"

namespace sfbench {

namespace sf = staticformer;

template <sf::isa Level, class Cfg>
sf::status pass_f32(const sf::encoder_weights<Cfg, sf::f32>& w, const float* x, float* y);
template <sf::isa Level, class Cfg>
sf::status pass_int8(const sf::encoder_weights<Cfg, sf::int8>& w, const std::int16_t* x, std::int16_t* y);

#define SFBENCH_DISPATCH_CONFIGS(X) X(sftest::tiny) X(sftest::small) X(sftest::mini) X(sftest::wide)

}  // namespace sfbench
