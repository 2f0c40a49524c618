// staticformer: LayerNorm and RMSNorm of the int16 stream with Helium (MVE, Cortex-M55), integer
// only (optimised; bit-identical to reference/layer_norm_int8.hpp): a row's sums by VADDVA and
// VMLALDAVA over eight int16 values at a time, its statistics as the DSP set's
// (dsp/layer_norm_int8.hpp), the outputs four per vector of int32 lanes; partial vectors
// predicated.
#pragma once

#include <arm_mve.h>

#include <cstdint>

#include "../../../math/fixed_point.hpp"
#include "../../params_int8.hpp"
#include "../../reference/layer_norm_int8.hpp"
#include "../dsp/layer_norm_int8.hpp"
#include "stream_int8.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_mve {

// z = (floor(c r / 2^32) + 2^7) >> 8 with floor(c r / 2^32) = VMULH(c, low) + c high (r = high
// 2^32 + low, low signed: math::q32_reciprocal), then z gamma + beta, the rescale and the clamp.
// y may equal x: each block is read before it is written. Shifts past 31 (never made by the
// quantiser) take the reference's.
template <int N, bool Rms, class Out>
inline void layer_norm(const std::int16_t* x, int rows, const layer_norm_int8<N, Rms>& p, Out* y) noexcept {
    arm_mve::memory_fence();
    if (p.shift > 31) return reference::layer_norm(x, rows, p, y);
    const std::int32_t shift = p.shift, zero_point = p.output_zero_point;
    for (int r = 0; r < rows; ++r) {
        const std::int16_t* xr = x + r * N;
        Out* yr = y + r * N;
        std::int32_t sum = 0;
        std::int64_t sum_sq = 0;
        for (int c = 0; c < N; c += 8) {
            const int16x8_t v = vldrhq_z_s16(xr + c, vctp16q(N - c));
            sum = vaddvaq_s16(sum, v), sum_sq = vmlaldavaq_s16(sum_sq, v, v);
        }
        const reference::norm_stats_int8 s = cortex_m_dsp::stream_norm_stats(sum, sum_sq, p);
        const math::q32_reciprocal reciprocal(s.reciprocal);
        for (int c = 0; c < N; c += 4) {
            const mve_pred16_t live = vctp32q(N - c);
            const int32x4_t centred = vsubq_n_s32(vmulq_n_s32(vldrhq_z_s32(xr + c, live), N), s.sum);
            const int32x4_t high = vmlaq_n_s32(vmulhq_s32(centred, vdupq_n_s32(reciprocal.low)), centred, reciprocal.high);
            const int32x4_t z = vshrq_n_s32(vaddq_n_s32(high, 128), 8);
            const int32x4_t v = vaddq_s32(vldrwq_z_s32(p.beta + c, live), vmulq_s32(z, vldrhq_z_s32(p.gamma + c, live)));
            store_clamped(yr + c, vaddq_n_s32(rounded_shift(v, shift), zero_point), live);
        }
    }
    arm_mve::memory_fence();
}

}  // namespace cortex_m_mve
}  // namespace kernels
}  // namespace staticformer
