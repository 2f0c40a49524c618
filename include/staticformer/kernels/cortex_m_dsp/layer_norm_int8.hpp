// staticformer: int8 LayerNorm on Cortex-M (optimised; bit-identical to
// reference/layer_norm_int8.hpp). A row's statistics are the reference's; each output then takes
// about 15 instructions instead of 85: z by math::q32_reciprocal (SMLAL and MLA instead of a
// 64 x 64-bit product), the requantisation by math::rescale_unit (no 64-bit sum) and SSAT. Shifts
// past 31 (never made by the quantiser) take the reference's kernel.
#pragma once

#include <cstdint>

#include "../../math/fixed_point.hpp"
#include "../../weights_int8.hpp"
#include "../reference/layer_norm_int8.hpp"
#if defined(__ARM_FEATURE_MVE)
#include "layer_norm_int8_mve.hpp"
#endif

namespace staticformer {
namespace kernels {
namespace cortex_m_dsp {

template <int N>
inline void layer_norm(const std::int8_t* x, int rows, const layer_norm_int8<N>& p, std::int8_t* y) noexcept {
    if (p.shift > 31) return reference::layer_norm(x, rows, p, y);
#if defined(__ARM_FEATURE_MVE)
    return cortex_m_mve::layer_norm(x, rows, p, y);  // four outputs at a time with Helium
#endif
    for (int r = 0; r < rows; ++r) {
        const std::int8_t* xr = x + r * N;
        std::int8_t* yr = y + r * N;  // may equal xr: each value is read before it is written
        const reference::norm_stats_int8 s = reference::layer_norm_stats(xr, p);
        const math::q32_reciprocal reciprocal(s.reciprocal);
        for (int c = 0; c < N; ++c) {
            const std::int32_t z = reciprocal.times(N * xr[c] - s.sum);
            const std::int32_t v = math::rescale_unit(z * p.gamma[c] + p.beta[c], p.shift);
            yr[c] = std::int8_t(__ssat(v + p.output_zero_point, 8));
        }
    }
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
