// staticformer: the simd backend's int8 kernel set (optimised; bit-identical to reference/int8.hpp).
// Kernels without a vector version here are the reference ones.
#pragma once

#include "../reference/int8.hpp"

namespace staticformer {

template <>
struct int8_kernel_set<simd> : int8_kernel_set<reference> {};

}  // namespace staticformer
