// staticformer: int8 and a16w8 gated feed-forward hidden rows with Helium (MVE, Cortex-M55)
// (optimised; bit-identical to reference/glu_int8.hpp). int8: 16 values a step, the activation by
// one byte gather (as activation_int8.hpp), both factors widened to int16 (even and odd lanes),
// the products and the rounding in int32 lanes as the DSP set's (dsp/glu_int8.hpp), narrowed back
// by saturating moves into the same lanes; the last F % 16 predicated. a16w8: four values a step,
// the rescale as the DSP set's SMLAWB by VMULH with the multiplier in the high half.
#pragma once

#include <arm_mve.h>

#include <cstdint>

#include "../../isa/arm_mve.hpp"
#include "../../params_int8.hpp"
#include "../dsp/glu_int8.hpp"
#include "activation_int8.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_mve {

// ((a b m) >> floor_shift + offset) >> 1 of four int32 lanes (dsp/glu_int8.hpp's glu_rounding).
STATICFORMER_ALWAYS_INLINE int32x4_t glu_round(int32x4_t ab, std::int32_t m, const cortex_m_dsp::glu_rounding& r) noexcept {
    return vshrq_n_s32(vaddq_n_s32(vshlq_r_s32(vmulq_n_s32(ab, m), -r.floor_shift), r.offset), 1);
}

// Eight int16 products of a and b (each |x| <= 255) rounded and saturated to int16, in a's lanes.
STATICFORMER_ALWAYS_INLINE int16x8_t glu_half(int16x8_t a, int16x8_t b, std::int32_t m,
                                              const cortex_m_dsp::glu_rounding& r) noexcept {
    const int16x8_t even = vqmovnbq_s32(vdupq_n_s16(0), glu_round(vmullbq_int_s16(a, b), m, r));
    return vqmovntq_s32(even, glu_round(vmulltq_int_s16(a, b), m, r));
}

template <int F>
inline void glu(std::int8_t* h, int rows, const std::int8_t* table, const gate_int8& p) noexcept {
    const cortex_m_dsp::glu_rounding round{p};
    const std::int32_t m = p.multiplier;
    const std::int16_t a_zero_point = std::int16_t(p.a_zero_point), b_zero_point = std::int16_t(p.b_zero_point);
    arm_mve::memory_fence();
    for (int r = 0; r < rows; ++r) {
        const std::int8_t* ab = h + 2 * r * F;
        std::int8_t* y = h + r * F;
        for (int i = 0; i < F; i += 16) {
            const mve_pred16_t live = vctp8q(F - i);
            const uint8x16_t index = veorq_u8(vreinterpretq_u8_s8(vldrbq_z_s8(ab + i, live)), vdupq_n_u8(0x80));
            const int8x16_t a = vldrbq_gather_offset_s8(table, index), b = vldrbq_z_s8(ab + F + i, live);
            const int16x8_t even = glu_half(vsubq_n_s16(vmovlbq_s8(a), a_zero_point), vsubq_n_s16(vmovlbq_s8(b), b_zero_point), m, round);
            const int16x8_t odd = glu_half(vsubq_n_s16(vmovltq_s8(a), a_zero_point), vsubq_n_s16(vmovltq_s8(b), b_zero_point), m, round);
            vstrbq_p_s8(y + i, vqmovntq_s16(vqmovnbq_s16(vdupq_n_s8(0), even), odd), live);
        }
    }
    arm_mve::memory_fence();
}

// floor(a b m / 2^16) = VMULH(a b, m 2^16) (m < 2^15), then int16_multiplier_requantizer's
// rounding and shift, clamped to the output limit.
template <int F>
inline void glu(std::int16_t* h, int rows, const activation_a16w8& a, const gate_a16w8& p) noexcept {
    if (!math::int16_multiplier_requantizer::applies(p.shift)) return reference::glu<F>(h, rows, a, p);
    const math::int16_multiplier_requantizer q{p.shift, 0};
    const int32x4_t m = vdupq_n_s32(p.multiplier << 16), low = vdupq_n_s32(-p.output_limit), high = vdupq_n_s32(p.output_limit);
    arm_mve::memory_fence();
    for (int r = 0; r < rows; ++r) {
        const std::int16_t* ab = h + 2 * r * F;
        std::int16_t* y = h + r * F;
        for (int i = 0; i < F; i += 4) {
            const mve_pred16_t live = vctp32q(F - i);
            const int32x4_t product = vmulq_s32(activation_values(vldrhq_z_s32(ab + i, live), a), vldrhq_z_s32(ab + F + i, live));
            const int32x4_t v = vshlq_r_s32(vaddq_n_s32(vmulhq_s32(product, m), q.round), -q.high_shift);
            vstrhq_p_s32(y + i, vminq_s32(vmaxq_s32(v, low), high), live);
        }
    }
    arm_mve::memory_fence();
}

}  // namespace cortex_m_mve
}  // namespace kernels
}  // namespace staticformer
