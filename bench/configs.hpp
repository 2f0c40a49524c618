// The reference configurations of the benchmarks (tiny, small, mini, wide:
// tests/common/reference_configs.hpp) and the work of one forward pass, shared by
// bench_encoder.cpp (f32/f16) and bench_int8.cpp.
#pragma once

#include <staticformer/config.hpp>

#include "common/reference_configs.hpp"

namespace sfbench {

namespace sf = staticformer;
using sftest::mini;
using sftest::small;
using sftest::tiny;
using sftest::wide;

// A sensor-style encoder: 48 frames and a CLS row, d_model 32 (the valid-length sweep's second
// shape, where tiles and attention blocks end at odd row counts).
using sensor = sf::encoder_config<32, 4, 64, 49, 2, sf::pre_norm, sf::gelu, sf::final_norm>;

// Multiply-adds of the projections and of attention (scores and context) for n valid rows,
// each counted as two operations.
template <class Cfg>
double encoder_ops(int n) {
    constexpr double D = Cfg::d_model, F = Cfg::d_ff;
    return 2.0 * (double(n) * (4 * D * D + 2 * D * F) + 2.0 * n * n * D) * Cfg::layers;
}

}  // namespace sfbench
