// staticformer: int8 LayerNorm with Helium (MVE, Cortex-M55), integer only (optimised;
// bit-identical to reference/layer_norm_int8.hpp). A row's sum and sum of squares are VADDVA and
// VMLADAVA over 16 values at a time; then the reciprocal (cortex_m_dsp::layer_norm_stats); then
// four outputs per vector of int32 lanes: z by VRMULH (the rounded high half of centred * the
// reciprocal's low word: math::q32_reciprocal) plus centred * its high word, z * gamma + beta,
// math::rescale_unit's shifts, the zero point and the int8 clamp. Partial vectors are predicated.
#pragma once

#include <arm_mve.h>

#include <cstdint>

#include "../../../math/fixed_point.hpp"
#include "../../params_int8.hpp"
#include "../../reference/layer_norm_int8.hpp"
#include "../dsp/layer_norm_stats.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_mve {

// y may equal x: each block is read before it is written. Shifts past 31 (never made by the
// quantiser) take the reference's.
template <int N, bool Rms>
inline void layer_norm(const std::int8_t* x, int rows, const layer_norm_int8<N, Rms>& p, std::int8_t* y) noexcept {
    if (p.shift > 31) return reference::layer_norm(x, rows, p, y);
    const std::int32_t shift = p.shift, zp = p.output_zero_point;
    for (int r = 0; r < rows; ++r) {
        const std::int8_t* xr = x + r * N;
        std::int8_t* yr = y + r * N;
        std::int32_t sum = 0, sum_sq = 0;
        for (int c = 0; c < N; c += 16) {
            const int8x16_t v = vldrbq_z_s8(xr + c, vctp8q(N - c));
            sum = vaddvaq_s8(sum, v), sum_sq = vmladavaq_s8(sum_sq, v, v);
        }
        const reference::norm_stats_int8 s = cortex_m_dsp::layer_norm_stats(sum, sum_sq, p);
        const math::q32_reciprocal reciprocal(s.reciprocal);
        for (int c = 0; c < N; c += 4) {
            const mve_pred16_t live = vctp32q(N - c);
            const int32x4_t centred = vsubq_n_s32(vmulq_n_s32(vldrbq_z_s32(xr + c, live), N), s.sum);
            const int32x4_t z = vmlaq_n_s32(vrmulhq_s32(centred, vdupq_n_s32(reciprocal.low)), centred, reciprocal.high);
            const int32x4_t v = vaddq_s32(vldrwq_z_s32(p.beta + c, live), vmulq_s32(z, vldrhq_z_s32(p.gamma + c, live)));
            const int32x4_t q = vaddq_s32(vshlq_r_s32(v, -shift), vandq_s32(vshlq_r_s32(v, 1 - shift), vdupq_n_s32(1)));
            vstrbq_p_s32(yr + c, vminq_s32(vmaxq_s32(vaddq_n_s32(q, zp), vdupq_n_s32(-128)), vdupq_n_s32(127)), live);
        }
    }
}

}  // namespace cortex_m_mve
}  // namespace kernels
}  // namespace staticformer
