// staticformer: int8 and a16w8 activation with Helium (MVE, Cortex-M55) (optimised;
// bit-identical to reference/activation_int8.hpp). int8: 16 table lookups per gather (VLDRB with
// byte offsets x + 128, which is x with its top bit flipped); the last n % 16 predicated. a16w8:
// four values a step in int32 lanes, the two table points by two VLDRH gathers.
#pragma once

#include <arm_mve.h>

#include <cstdint>

#include "../../isa/arm_mve.hpp"
#include "../../params_a16w8.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_mve {

inline void activate(std::int8_t* x, int n, const std::int8_t* table) noexcept {
    for (int i = 0; i < n; i += 16) {
        const mve_pred16_t live = vctp8q(n - i);
        const uint8x16_t index = veorq_u8(vreinterpretq_u8_s8(vldrbq_z_s8(x + i, live)), vdupq_n_u8(0x80));
        vstrbq_p_s8(x + i, vldrbq_gather_offset_s8(table, index), live);
    }
}

// reference::activation_value of four int16 values in int32 lanes: |(next - point) f| < 2^23,
// and VRSHR #7 adds the reference's 64 before its shift.
STATICFORMER_ALWAYS_INLINE int32x4_t activation_values(int32x4_t x, const activation_a16w8& a) noexcept {
    const uint32x4_t u = vreinterpretq_u32_s32(vaddq_n_s32(x, 32768));
    const uint32x4_t i = vshrq_n_u32(u, a16w8_limits::table_step_bits);
    const int32x4_t f = vreinterpretq_s32_u32(vandq_u32(u, vdupq_n_u32((1u << a16w8_limits::table_step_bits) - 1)));
    const int32x4_t point = vldrhq_gather_shifted_offset_s32(a.table, i);
    const int32x4_t next = vldrhq_gather_shifted_offset_s32(a.table + 1, i);
    return vaddq_s32(point, vrshrq_n_s32(vmulq_s32(vsubq_s32(next, point), f), a16w8_limits::table_step_bits));
}

inline void activate(std::int16_t* x, int n, const activation_a16w8& a) noexcept {
    arm_mve::memory_fence();
    for (int i = 0; i < n; i += 4) {
        const mve_pred16_t live = vctp32q(n - i);
        vstrhq_p_s32(x + i, activation_values(vldrhq_z_s32(x + i, live), a), live);
    }
    arm_mve::memory_fence();
}

}  // namespace cortex_m_mve
}  // namespace kernels
}  // namespace staticformer
