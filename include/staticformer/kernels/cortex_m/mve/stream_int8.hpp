// staticformer: the int16 stream's add, widening and narrowing with Helium (MVE, Cortex-M55), int8
// and a16w8 branches, integer only (optimised; bit-identical to reference/stream_int8.hpp): four
// values per vector of int32 lanes, the parameters' bounds keeping every step in 32 bits as the
// DSP set's (dsp/stream_int8.hpp); partial vectors predicated.
#pragma once

#include <arm_mve.h>

#include <cstdint>

#include "../../isa/arm_mve.hpp"
#include "../../params_a16w8.hpp"
#include "../../params_int8.hpp"
#include "../../reference/stream_int8.hpp"

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

// a16w8's: of int16 values (zero point 0, |a m| < 2^30).
STATICFORMER_ALWAYS_INLINE int32x4_t branch(const std::int16_t* a, mve_pred16_t live, const stream_add_int8& p) noexcept {
    return rounded_shift(vmulq_n_s32(vldrhq_z_s32(a, live), p.multiplier), p.shift);
}

// stream += a, and a widened into the stream, for int8 and int16 branches (A).
template <class A>
inline void add(std::int16_t* x, const A* a, int n, const stream_add_int8& p) noexcept {
    arm_mve::memory_fence();
    for (int i = 0; i < n; i += 4) {
        const mve_pred16_t live = vctp32q(n - i);
        store_clamped(x + i, vaddq_s32(vldrhq_z_s32(x + i, live), branch(a + i, live, p)), live);
    }
    arm_mve::memory_fence();
}

template <class A>
inline void widen(const A* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
    arm_mve::memory_fence();
    for (int i = 0; i < n; i += 4) {
        const mve_pred16_t live = vctp32q(n - i);
        store_clamped(y + i, branch(a + i, live, p), live);
    }
    arm_mve::memory_fence();
}

// int8 from the stream: x m, the rounded shift, the zero point, clamped.
inline void narrow(const std::int16_t* x, int n, const stream_narrow_int8& p, std::int8_t* y) noexcept {
    arm_mve::memory_fence();
    const std::int32_t m = p.multiplier, shift = p.shift, zero_point = p.zero_point;
    for (int i = 0; i < n; i += 4) {
        const mve_pred16_t live = vctp32q(n - i);
        store_clamped(y + i, vaddq_n_s32(rounded_shift(vmulq_n_s32(vldrhq_z_s32(x + i, live), m), shift), zero_point), live);
    }
    arm_mve::memory_fence();
}

// a16w8: a block's int16 input from the stream, clamped to its limit.
inline void narrow(const std::int16_t* x, int n, const stream_narrow_a16w8& p, std::int16_t* y) noexcept {
    arm_mve::memory_fence();
    const int32x4_t low = vdupq_n_s32(-p.output_limit), high = vdupq_n_s32(p.output_limit);
    for (int i = 0; i < n; i += 4) {
        const mve_pred16_t live = vctp32q(n - i);
        const int32x4_t v = rounded_shift(vmulq_n_s32(vldrhq_z_s32(x + i, live), p.multiplier), p.shift);
        vstrhq_p_s32(y + i, vminq_s32(vmaxq_s32(v, low), high), live);
    }
    arm_mve::memory_fence();
}

}  // namespace cortex_m_mve
}  // namespace kernels
}  // namespace staticformer
