// The entry points tests/dispatch builds once per instruction-set level: forward passes of the
// test configurations on the default backend of the level's flags. Weights come from the
// caller (a baseline-built translation unit), so every level runs the same bytes.
#pragma once

#include <staticformer/dispatch.hpp>
#include <staticformer/staticformer.hpp>

#include <cstdint>

#include "../common/cases.hpp"

namespace sftest {

template <class Cfg, class P>
using weights_of = sf::encoder_weights<Cfg, P>;

template <sf::isa Level, class Cfg>
sf::status forward_f32(const weights_of<Cfg, sf::f32>& w, const float* x, float* y, int valid_len);
template <sf::isa Level, class Cfg>
sf::status forward_f16(const weights_of<Cfg, sf::f16>& w, const float* x, float* y, int valid_len);
template <sf::isa Level, class Cfg>
sf::status forward_int8(const weights_of<Cfg, sf::int8>& w, const std::int16_t* x, std::int16_t* y, int valid_len);

// An inline function, kept out of line: every level defines it under the same name, with its
// own flags. The level's copy must be the one its code calls (the renaming of
// staticformer_add_dispatch); a linker left to merge them would give every level one copy.
__attribute__((noinline)) inline sf::isa level_of_inline_code() { return sf::compiled_isa; }
template <sf::isa Level>
sf::isa level_seen_by();  // level_of_inline_code() as the level's code calls it

// The configurations: the reference tiny one and odd sizes (every kernel's tail).
#define SFTEST_DISPATCH_CASES(X) X(tiny_pre_gelu) X(odd33_relu)

}  // namespace sftest
