// staticformer: int8 rotary positions with Helium (MVE, Cortex-M55), integer only (optimised;
// bit-identical to reference/rotary_int8.hpp): four pairs per vector of int32 lanes, a C - b S
// and b C + a S, plus 2^13, shifted right by 14 and clamped to int8 (the reference's turn()).
// Rotate-halves pairs load and store contiguously; interleaved ones through gathers and scatters
// at even and odd offsets. The last pairs of a head are predicated.
#pragma once

#include <arm_mve.h>

#include <cstdint>

#include "../../isa/arm_mve.hpp"
#include "../../reference/rotary_int8.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_mve {

// turn() on four lanes.
inline int32x4_t turn4(int32x4_t acc) noexcept {
    const int32x4_t q = vshrq_n_s32(vaddq_n_s32(acc, 1 << 13), 14);
    return vminq_s32(vmaxq_s32(q, vdupq_n_s32(-128)), vdupq_n_s32(127));
}

template <int D, int HeadDim, bool Interleaved>
inline void rotate(std::int8_t* x, const std::int16_t* cos, const std::int16_t* sin) noexcept {
    arm_mve::memory_fence();
    constexpr int P = HeadDim / 2;
    const uint32x4_t first = Interleaved ? vidupq_n_u32(0, 2) : vidupq_n_u32(0, 1);  // a's offsets, b's: + step
    constexpr std::uint32_t step = Interleaved ? 1 : P;
    for (int h = 0; h < D; h += HeadDim)
        for (int i = 0; i < P; i += 4) {
            const mve_pred16_t live = vctp32q(P - i);
            std::int8_t* base = x + h + (Interleaved ? 2 * i : i);
            const int32x4_t a = vldrbq_gather_offset_z_s32(base, first, live);
            const int32x4_t b = vldrbq_gather_offset_z_s32(base, vaddq_n_u32(first, step), live);
            const int32x4_t c = vldrhq_z_s32(cos + i, live), s = vldrhq_z_s32(sin + i, live);
            vstrbq_scatter_offset_p_s32(base, first, turn4(vsubq_s32(vmulq_s32(a, c), vmulq_s32(b, s))), live);
            vstrbq_scatter_offset_p_s32(base, vaddq_n_u32(first, step), turn4(vaddq_s32(vmulq_s32(b, c), vmulq_s32(a, s))),
                                        live);
        }
    arm_mve::memory_fence();
}

}  // namespace cortex_m_mve
}  // namespace kernels
}  // namespace staticformer
