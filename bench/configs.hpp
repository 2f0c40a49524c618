// The reference configurations of the benchmarks (issue list: tiny, small, mini, wide) and the
// work of one forward pass, shared by bench_encoder.cpp (f32/f16) and bench_int8.cpp.
#pragma once

#include <staticformer/config.hpp>

namespace sfbench {

namespace sf = staticformer;
using tiny = sf::encoder_config<64, 4, 256, 32, 2, sf::pre_norm, sf::gelu, sf::final_norm>;
using small = sf::encoder_config<128, 4, 512, 64, 4, sf::pre_norm, sf::gelu, sf::final_norm>;
using mini = sf::encoder_config<256, 4, 1024, 128, 4, sf::pre_norm, sf::gelu, sf::final_norm>;
using wide = sf::encoder_config<384, 12, 1536, 128, 6, sf::pre_norm, sf::gelu, sf::final_norm>;

// Multiply-adds of the projections and of attention (scores and context) for n valid rows,
// each counted as two operations.
template <class Cfg>
double encoder_ops(int n) {
    constexpr double D = Cfg::d_model, F = Cfg::d_ff;
    return 2.0 * (double(n) * (4 * D * D + 2 * D * F) + 2.0 * n * n * D) * Cfg::layers;
}

}  // namespace sfbench
