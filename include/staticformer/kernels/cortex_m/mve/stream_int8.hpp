// staticformer: the int16 stream's kernels with Helium (MVE, Cortex-M55), integer only
// (optimised; bit-identical to the reference's, reference/layer_norm_int8.hpp and add_int8.hpp):
// four values per vector of int32 lanes, the parameters' bounds keeping every step in 32 bits as
// the DSP set's (dsp/stream_int8.hpp); a row's sums by VADDVA and VMLALDAVA over eight int16
// values at a time; partial vectors predicated.
#pragma once

#include <arm_mve.h>

#include <cstdint>

#include "../../params_int8.hpp"
#include "../../reference/add_int8.hpp"
#include "../../reference/layer_norm_int8.hpp"
#include "../dsp/stream_int8.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_mve {

// (v + 2^(shift - 1)) >> shift per lane (VRSHL by -shift), for 1 <= shift <= 31: rescale(v, 1, shift).
STATICFORMER_ALWAYS_INLINE int32x4_t rounded_shift(int32x4_t v, std::int32_t shift) noexcept {
    return vrshlq_n_s32(v, -shift);
}

// Into int8 (stores the low bytes) or into the stream (the low halves), clamped.
STATICFORMER_ALWAYS_INLINE void store_clamped(std::int8_t* y, int32x4_t v, mve_pred16_t live) noexcept {
    vstrbq_p_s32(y, vminq_s32(vmaxq_s32(v, vdupq_n_s32(-128)), vdupq_n_s32(127)), live);
}
STATICFORMER_ALWAYS_INLINE void store_clamped(std::int16_t* y, int32x4_t v, mve_pred16_t live) noexcept {
    vstrhq_p_s32(y, vminq_s32(vmaxq_s32(v, vdupq_n_s32(-32768)), vdupq_n_s32(32767)), live);
}

// rescale(a - a_zero_point, multiplier, shift) of four int8 values: the add's branch.
STATICFORMER_ALWAYS_INLINE int32x4_t branch(const std::int8_t* a, mve_pred16_t live, const stream_add_int8& p) noexcept {
    return rounded_shift(vmulq_n_s32(vsubq_n_s32(vldrbq_z_s32(a, live), p.a_zero_point), p.multiplier), p.shift);
}

inline void add(std::int16_t* x, const std::int8_t* a, int n, const stream_add_int8& p) noexcept {
    for (int i = 0; i < n; i += 4) {
        const mve_pred16_t live = vctp32q(n - i);
        store_clamped(x + i, vaddq_s32(vldrhq_z_s32(x + i, live), branch(a + i, live, p)), live);
    }
}

inline void widen(const std::int8_t* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
    for (int i = 0; i < n; i += 4) {
        const mve_pred16_t live = vctp32q(n - i);
        store_clamped(y + i, branch(a + i, live, p), live);
    }
}

// z = (floor(c r / 2^32) + 2^7) >> 8 with floor(c r / 2^32) = VMULH(c, low) + c high (r = high
// 2^32 + low, low signed: math::q32_reciprocal), then z gamma + beta, the rescale and the clamp.
// y may equal x: each block is read before it is written. Shifts past 31 (never made by the
// quantiser) take the reference's.
template <int N, bool Rms, class Out>
inline void layer_norm(const std::int16_t* x, int rows, const layer_norm_int8<N, Rms>& p, Out* y) noexcept {
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
}

}  // namespace cortex_m_mve
}  // namespace kernels
}  // namespace staticformer
