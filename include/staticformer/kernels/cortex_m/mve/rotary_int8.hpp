// staticformer: int8 (and a16w8's int16) rotary positions with Helium (MVE, Cortex-M55), integer
// only (optimised; bit-identical to reference/rotary_int8.hpp): four pairs per vector of int32
// lanes, a C - b S and b C + a S, plus 2^13, shifted right by 14 and clamped to the element's
// range (the reference's turn()). Rotate-halves pairs load and store contiguously; interleaved
// ones through gathers and scatters at even and odd offsets. The last pairs of a head are
// predicated.
#pragma once

#include <arm_mve.h>

#include <cstdint>
#include <limits>

#include "../../isa/arm_mve.hpp"
#include "../../reference/rotary_int8.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_mve {

// turn() on four lanes, into T's range.
template <class T>
inline int32x4_t turn4(int32x4_t acc) noexcept {
    const int32x4_t q = vshrq_n_s32(vaddq_n_s32(acc, 1 << 13), 14);
    return vminq_s32(vmaxq_s32(q, vdupq_n_s32(std::numeric_limits<T>::min())), vdupq_n_s32(std::numeric_limits<T>::max()));
}

// Four elements at element offsets from base, widened to int32 lanes, and back (the low bits).
inline int32x4_t gather(const std::int8_t* base, uint32x4_t at, mve_pred16_t live) noexcept {
    return vldrbq_gather_offset_z_s32(base, at, live);
}
inline int32x4_t gather(const std::int16_t* base, uint32x4_t at, mve_pred16_t live) noexcept {
    return vldrhq_gather_shifted_offset_z_s32(base, at, live);
}
inline void scatter(std::int8_t* base, uint32x4_t at, int32x4_t v, mve_pred16_t live) noexcept {
    vstrbq_scatter_offset_p_s32(base, at, v, live);
}
inline void scatter(std::int16_t* base, uint32x4_t at, int32x4_t v, mve_pred16_t live) noexcept {
    vstrhq_scatter_shifted_offset_p_s32(base, at, v, live);
}

template <int D, int HeadDim, bool Interleaved, class T>
inline void rotate(T* x, const std::int16_t* cos, const std::int16_t* sin) noexcept {
    arm_mve::memory_fence();
    constexpr int P = HeadDim / 2;
    const uint32x4_t first = Interleaved ? vidupq_n_u32(0, 2) : vidupq_n_u32(0, 1);  // a's offsets, b's: + step
    constexpr std::uint32_t step = Interleaved ? 1 : P;
    for (int h = 0; h < D; h += HeadDim)
        for (int i = 0; i < P; i += 4) {
            const mve_pred16_t live = vctp32q(P - i);
            T* base = x + h + (Interleaved ? 2 * i : i);
            const int32x4_t a = gather(base, first, live), b = gather(base, vaddq_n_u32(first, step), live);
            const int32x4_t c = vldrhq_z_s32(cos + i, live), s = vldrhq_z_s32(sin + i, live);
            scatter(base, first, turn4<T>(vsubq_s32(vmulq_s32(a, c), vmulq_s32(b, s))), live);
            scatter(base, vaddq_n_u32(first, step), turn4<T>(vaddq_s32(vmulq_s32(b, c), vmulq_s32(a, s))), live);
        }
    arm_mve::memory_fence();
}

}  // namespace cortex_m_mve
}  // namespace kernels
}  // namespace staticformer
