// staticformer: int8 softmax with Helium (MVE, Cortex-M55), integer only (optimised;
// bit-identical to reference/softmax_int8.hpp): four scores per vector of int32 lanes, the
// reference's three passes. The maximum by VMAXV; the scaled distance to it as
// math::rescale_nonnegative (VMUL and VMULH for the product's halves); the exponential's two
// table entries by gathers (VLDRH), its rounding shift by VRSHL; the sum by VADDVA; each
// probability by VRMULH (the rounded high half of 2e * reciprocal, (e r + 2^30) >> 31). Partial
// vectors are predicated.
#pragma once

#include <arm_mve.h>

#include <cstdint>

#include "../../../math/fixed_point.hpp"
#include "../../isa/arm_mve.hpp"
#include "../../reference/softmax_int8.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_mve {

// math::rescale_nonnegative(d, multiplier, shift) on four lanes (shift is the row's, 1..62).
inline uint32x4_t rescale_nonnegative(uint32x4_t d, std::uint32_t multiplier, std::int32_t shift) noexcept {
    const uint32x4_t m = vdupq_n_u32(multiplier);
    if (shift == 32) return vrmulhq_u32(d, m);                   // the high half, rounded by the low
    if (shift > 32) return vrshlq_n_u32(vmulhq_u32(d, m), 32 - shift);  // the half joins the high half
    // shift < 32: the halves joined, with the rounding half added to the low one (and its carry).
    const uint32x4_t low = vmulq_u32(d, m), rounded = vaddq_n_u32(low, std::uint32_t(1) << (shift - 1));
    const uint32x4_t high = vaddq_m_n_u32(vmulhq_u32(d, m), vmulhq_u32(d, m), 1, vcmphiq_u32(low, rounded));
    const uint32x4_t q = vorrq_u32(vshlq_r_u32(rounded, -shift), vshlq_r_u32(high, 32 - shift));
    const uint32x4_t limit = vdupq_n_u32(std::uint32_t(1) << 30);
    // Past 2^32 when high >= 2^shift. STATICFORMER_GUARD_GCC12_MVE_SHIFT_ICE (arm-none-eabi-g++ 12.2):
    // the equivalent test of high >> shift against 0 is an internal compiler error
    // (tests/compiler_guards/mve_shift_compare.cpp reproduces it).
    return vpselq_u32(limit, vminq_u32(q, limit), vcmpcsq_u32(high, vdupq_n_u32(std::uint32_t(1) << shift)));
}

// math::exp2_neg_q16(u) on four lanes (u >= 0).
inline int32x4_t exp2_neg_q16(uint32x4_t u) noexcept {
    const uint32x4_t whole = vshrq_n_u32(u, 16), i = vandq_u32(vshrq_n_u32(u, 8), vdupq_n_u32(0xff));
    const int32x4_t r = vreinterpretq_s32_u32(vandq_u32(u, vdupq_n_u32(0xff)));
    const int32x4_t a = vreinterpretq_s32_u32(vldrhq_gather_shifted_offset_u32(math::exp2_table.value, i));
    const int32x4_t b = vreinterpretq_s32_u32(vldrhq_gather_shifted_offset_u32(math::exp2_table.value + 1, i));
    const int32x4_t v = vsubq_s32(a, vshrq_n_s32(vaddq_n_s32(vmulq_s32(vsubq_s32(a, b), r), 128), 8));
    const int32x4_t shifted = vrshlq_s32(v, vnegq_s32(vreinterpretq_s32_u32(vandq_u32(whole, vdupq_n_u32(15)))));
    return vpselq_s32(vdupq_n_s32(0), shifted, vcmphiq_n_u32(whole, 15));  // 0 below 2^-16
}

// Scores s[0..n) (overwritten by the exponentials) -> Q15 probabilities p.
inline void softmax(std::int32_t* s, int n, math::fixed_multiplier logits, std::int16_t* p) noexcept {
    arm_mve::memory_fence();
    std::int32_t max = s[0];
    for (int j = 0; j < n; j += 4) {
        const mve_pred16_t live = vctp32q(n - j);
        max = vmaxvq_p_s32(max, vldrwq_z_s32(s + j, live), live);
    }
    std::int32_t sum = 0;
    for (int j = 0; j < n; j += 4) {
        const mve_pred16_t live = vctp32q(n - j);
        const uint32x4_t d = vreinterpretq_u32_s32(vsubq_s32(vdupq_n_s32(max), vldrwq_z_s32(s + j, live)));
        const int32x4_t e = exp2_neg_q16(rescale_nonnegative(d, std::uint32_t(logits.multiplier), logits.shift));
        vstrwq_p_s32(s + j, e, live);
        sum = vaddvaq_p_s32(sum, e, live);
    }
    const uint32x4_t reciprocal = vdupq_n_u32(std::uint32_t(reference::softmax_reciprocal(sum)));  // <= 2^31
    for (int j = 0; j < n; j += 4) {
        const mve_pred16_t live = vctp32q(n - j);
        const uint32x4_t twice_e = vshlq_n_u32(vreinterpretq_u32_s32(vldrwq_z_s32(s + j, live)), 1);
        const uint32x4_t q = vminq_u32(vrmulhq_u32(twice_e, reciprocal), vdupq_n_u32(32767));
        vstrhq_p_s32(p + j, vreinterpretq_s32_u32(q), live);
    }
    arm_mve::memory_fence();
}

}  // namespace cortex_m_mve
}  // namespace kernels
}  // namespace staticformer
