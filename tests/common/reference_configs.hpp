// The reference configurations (benchmarks, footprint, tests), listed once for C++;
// python/staticformer_export/encoder_schema.py's REFERENCE_CONFIGS lists them for Python, and the test
// reference_configs.match_python checks that both say the same.
#pragma once

#include <staticformer/config.hpp>

namespace sftest {

// clang-format off
using tiny = staticformer::encoder_config<64, 4, 256, 32, 2, staticformer::pre_norm, staticformer::gelu, staticformer::final_norm>;
using small = staticformer::encoder_config<128, 4, 512, 64, 4, staticformer::pre_norm, staticformer::gelu, staticformer::final_norm>;
using mini = staticformer::encoder_config<256, 4, 1024, 128, 4, staticformer::pre_norm, staticformer::gelu, staticformer::final_norm>;
using wide = staticformer::encoder_config<384, 12, 1536, 128, 6, staticformer::pre_norm, staticformer::gelu, staticformer::final_norm>;
// clang-format on

}  // namespace sftest
