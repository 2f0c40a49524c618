// STATICFORMER_GUARD_GCC12_MVE_SHIFT_ICE, reduced: arm-none-eabi-g++ 12.2 -mcpu=cortex-m55 -O2
// stops with "internal compiler error: in trunc_int_for_mode" (RTL pass combine) on this test of
// high >> shift against 0. kernels/cortex_m/mve/softmax_int8.hpp compares high with 2^shift
// instead. ports/cortex-m (Cortex-M55, GCC 12) checks that the error still reproduces: when a
// compiler no longer fails here, the guard can go.
#include <arm_mve.h>

uint32x4_t limit_past_32_bits(uint32x4_t q, uint32x4_t high, int shift) {
    const uint32x4_t limit = vdupq_n_u32(1u << 30);
    return vpselq_u32(limit, vminq_u32(q, limit), vcmpneq_n_u32(vshlq_r_u32(high, -shift), 0));
}
