// staticformer: Arm M-profile FPU building blocks for math/fp16.hpp (optimised): VCVTB / VCVTT
// widen the bottom / top binary16 half of a 32-bit register to a float in one instruction. Their
// C++ twin is the software conversion, math::half_bits_to_float_bits (fp16.hpp), which runs
// instead under STATICFORMER_NO_ASM or without an FPU (STATICFORMER_VCVT_HALF).
#pragma once

#include "../../config.hpp"

namespace staticformer {
namespace math {
namespace arm_fp {

// The half in the low 16 bits of pair's bits, as a float.
STATICFORMER_ALWAYS_INLINE float widen_bottom(float pair) noexcept {
    float f;
    __asm__("vcvtb.f32.f16 %0, %1" : "=t"(f) : "t"(pair));
    return f;
}
// The half in the high 16 bits.
STATICFORMER_ALWAYS_INLINE float widen_top(float pair) noexcept {
    float f;
    __asm__("vcvtt.f32.f16 %0, %1" : "=t"(f) : "t"(pair));
    return f;
}

}  // namespace arm_fp
}  // namespace math
}  // namespace staticformer
