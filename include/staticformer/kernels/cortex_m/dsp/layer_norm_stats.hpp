// staticformer: a LayerNorm row's statistics on Cortex-M (optimised; bit-identical to
// reference::layer_norm_stats): with an FPU, floor(sqrt) by VSQRT and two exact corrections
// instead of 16 digit steps, and 2^40 / den by two 32-bit divisions instead of long division
// (about 30 instructions instead of 330 a row). Without one, or for a radicand past 32 bits, the
// reference's.
#pragma once

#include <cstdint>

#include "../../params_int8.hpp"
#include "../../isa/arm_dsp.hpp"
#include "../../reference/layer_norm_int8.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_dsp {

#if defined(__ARM_FP) && (__ARM_FP & 4)
// floor(2^40 / d) for 1 <= d < 2^16: 2^40 = 2^24 2^16, so q = (2^24 / d) 2^16 + (rem 2^16) / d with
// rem = 2^24 mod d < 2^16.
inline std::uint64_t power_of_two_40_over(std::uint32_t d) noexcept {
    const std::uint32_t high = (std::uint32_t(1) << 24) / d, rem = (std::uint32_t(1) << 24) - high * d;
    return (std::uint64_t(high) << 16) + (rem << 16) / d;
}
#endif

template <int N, bool Rms>
inline reference::norm_stats_int8 layer_norm_stats(std::int32_t sum, std::int32_t sum_sq,
                                                   const layer_norm_int8<N, Rms>& p) noexcept {
#if defined(__ARM_FP) && (__ARM_FP & 4)
    if (reference::radicand_fits_32_bits(p)) {  // the weights' choice, as the reference's
        const reference::norm_radicand r = reference::centre_and_radicand(sum, sum_sq, p);
        const std::uint32_t den = arm_dsp::isqrt32_fpu(std::uint32_t(r.radicand));
        // den == 0 (a constant row, eps 0): reciprocal 0.
        const std::int64_t reciprocal = std::int64_t(power_of_two_40_over(den | std::uint32_t(den == 0)));
        return {r.centre, reciprocal & -std::int64_t(den != 0)};
    }
#endif
    return reference::layer_norm_stats(sum, sum_sq, p);
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
