// staticformer: the armv7_neon backend's kernel sets (ARMv7-A with NEON; optimised, bit-identical
// to the reference): int8 the simd backend's int8 kernels on NEON's integer instructions
// (isa/neon.hpp: linear layers, attention and residual adds in vectors); float the reference
// kernels, since ARMv7's NEON flushes float subnormals to zero (config.hpp).
#pragma once

#include "../../config.hpp"
#include "../kernel_set.hpp"
#if STATICFORMER_HAS_ARMV7_NEON
#include "../simd/int8_kernel_set.hpp"
#endif

namespace staticformer {

template <>
struct kernel_set<armv7_neon> : kernels::float_kernels {};

#if STATICFORMER_HAS_ARMV7_NEON
template <>
struct int8_kernel_set<armv7_neon> : kernels::simd_int8_kernels {};
template <>
struct a16w8_kernel_set<armv7_neon> : kernels::simd_a16w8_kernels {};
#endif

}  // namespace staticformer
