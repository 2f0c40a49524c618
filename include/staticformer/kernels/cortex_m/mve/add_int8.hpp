// staticformer: int8 residual add with Helium (MVE, Cortex-M55), integer only (optimised;
// bit-identical to reference/add_int8.hpp): four elements per vector of int32 lanes, the centred
// values times their multipliers, math::rescale_unit's two shifts and its rounding bit, the zero
// point and the int8 clamp; the last n % 4 elements predicated.
#pragma once

#include <arm_mve.h>

#include <cstdint>

#include "../../params_int8.hpp"
#include "../../reference/add_int8.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_mve {

// Shifts past 31 (never made by the quantiser) take the reference's.
inline void add(std::int8_t* x, const std::int8_t* a, int n, const add_int8& p) noexcept {
    if (p.shift > 31) return reference::add(x, a, n, p);
    const std::int32_t xz = p.x_zero_point, az = p.a_zero_point, xm = p.x_multiplier, am = p.a_multiplier;
    const std::int32_t shift = p.shift, zp = p.output_zero_point;
    for (int i = 0; i < n; i += 4) {
        const mve_pred16_t live = vctp32q(n - i);
        const int32x4_t xv = vsubq_n_s32(vldrbq_z_s32(x + i, live), xz), av = vsubq_n_s32(vldrbq_z_s32(a + i, live), az);
        const int32x4_t v = vmlaq_n_s32(vmulq_n_s32(xv, xm), av, am);
        // (v >> shift) + ((v >> (shift - 1)) & 1): math::rescale_unit
        const int32x4_t q = vaddq_s32(vshlq_r_s32(v, -shift), vandq_s32(vshlq_r_s32(v, 1 - shift), vdupq_n_s32(1)));
        const int32x4_t y = vminq_s32(vmaxq_s32(vaddq_n_s32(q, zp), vdupq_n_s32(-128)), vdupq_n_s32(127));
        vstrbq_p_s32(x + i, y, live);
    }
}

}  // namespace cortex_m_mve
}  // namespace kernels
}  // namespace staticformer
