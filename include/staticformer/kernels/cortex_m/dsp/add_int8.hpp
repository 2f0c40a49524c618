// staticformer: int8 residual add on Cortex-M (optimised; bit-identical to
// reference/add_int8.hpp): the two centred values as one int16 pair against the pair of
// multipliers (both below 2^15) is one SMUAD; the sum stays below 2^24, so the requantisation is
// math::rescale_unit and SSAT. Shifts past 31 (never made by the quantiser) take the reference's.
#pragma once

#include <cstdint>

#include "../../../math/fixed_point.hpp"
#include "../../params_int8.hpp"
#include "../../isa/arm_dsp.hpp"
#include "../../reference/add_int8.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_dsp {

STATICFORMER_ALWAYS_INLINE std::int32_t int16_pair(std::int32_t low, std::int32_t high) noexcept {
    return std::int32_t(std::uint32_t(std::uint16_t(low)) | std::uint32_t(high) << 16);
}

inline void add(std::int8_t* x, const std::int8_t* a, int n, const add_int8& p) noexcept {
    if (p.shift > 31) return reference::add(x, a, n, p);
    const std::int32_t multipliers = int16_pair(p.x_multiplier, p.a_multiplier);
    // Four at a time: the zero points, the rounding and the output's zero point folded into one
    // constant, (x mx + a ma + bias) >> shift = rescale_unit(centred . m, shift) + zp exactly
    // when the bias stays within 2^30 (|x mx + a ma| < 2^23): one SMLAD, ASR, SSAT per value.
    const std::int64_t bias = (std::int64_t(1) << (p.shift - 1)) - std::int64_t(p.x_zero_point) * p.x_multiplier -
                              std::int64_t(p.a_zero_point) * p.a_multiplier +
                              std::int64_t(p.output_zero_point) * (std::int64_t(1) << p.shift);
    int i = 0;
    if (bias > -(std::int64_t(1) << 30) && bias < (std::int64_t(1) << 30))
        i = arm_dsp::add_quads(x, a, n, multipliers, std::int32_t(bias), p.shift);
    for (; i < n; ++i) {
        const std::int32_t centred = int16_pair(x[i] - p.x_zero_point, a[i] - p.a_zero_point);
        const std::int32_t v = math::rescale_unit(__smuad(centred, multipliers), p.shift);
        x[i] = std::int8_t(__ssat(v + p.output_zero_point, 8));
    }
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
