// staticformer: int8 activation with Helium (MVE, Cortex-M55) (optimised; bit-identical to
// reference/activation_int8.hpp): 16 table lookups per gather (VLDRB with byte offsets x + 128,
// which is x with its top bit flipped); the last n % 16 predicated.
#pragma once

#include <arm_mve.h>

#include <cstdint>

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

}  // namespace cortex_m_mve
}  // namespace kernels
}  // namespace staticformer
