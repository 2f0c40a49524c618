// staticformer: int8 LayerNorm on Cortex-M (optimised; bit-identical to
// reference/layer_norm_int8.hpp). A row's sums by SMLAD, its statistics from them the
// reference's; each output then takes about 18 instructions instead of 85: z by
// math::q32_reciprocal (SMLAL and MLA instead of a 64 x 64-bit product), the requantisation by
// math::rescale_unit (no 64-bit sum) and SSAT. Shifts past 31 (never made by the quantiser) take
// the reference's kernel.
#pragma once

#include <cstdint>

#include "../../../math/fixed_point.hpp"
#include "../../params_int8.hpp"
#include "../../isa/arm_dsp.hpp"
#include "../../reference/layer_norm_int8.hpp"
#include "layer_norm_stats.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_dsp {

// The row's sum and sum of squares four values at a time: SXTB16 into two int16 pairs, SMLAD
// of each pair with itself and with (1, 1).
template <int N, bool Rms>
inline reference::norm_stats_int8 row_stats(const std::int8_t* x, const layer_norm_int8<N, Rms>& p) noexcept {
    constexpr std::int32_t ones = 0x00010001;
    std::int32_t sum = 0, sum_sq = 0;
    int c = 0;
    for (; c + 4 <= N; c += 4) {
        const std::int32_t w = arm_dsp::load32(x + c), even = arm_dsp::even_pair(w), odd = arm_dsp::odd_pair(w);
        sum_sq = __smlad(odd, odd, __smlad(even, even, sum_sq));
        sum = __smlad(odd, ones, __smlad(even, ones, sum));
    }
    for (; c < N; ++c) sum += x[c], sum_sq += std::int32_t(x[c]) * x[c];
    return layer_norm_stats(sum, sum_sq, p);
}

// Two outputs a step, about 12 instructions each: z by SMMULR and MLA (q32_reciprocal::times,
// whose low word rounds as SMMULR does), z gamma + beta by SMLABB / SMLABT from one word of two
// gammas (|z| < 2^15, weights_int8.hpp), the rescale and the zero point by math::unit_rescaler
// and SSAT's own ASR #1.
template <int N, bool Rms>
inline void layer_norm_pairs(const std::int8_t* x, int rows, const layer_norm_int8<N, Rms>& p, std::int8_t* y) noexcept {
    const math::unit_rescaler out(p.shift, p.output_zero_point);
    const std::int32_t* const beta = p.beta;
    const std::int16_t* const gamma = p.gamma;
    for (int r = 0; r < rows; ++r) {
        const std::int8_t* xr = x + r * N;
        std::int8_t* yr = y + r * N;  // may equal xr: each value is read before it is written
        const reference::norm_stats_int8 s = row_stats<N>(xr, p);
        const math::q32_reciprocal reciprocal(s.reciprocal);
        const std::int32_t low = reciprocal.low, high = reciprocal.high, sum = s.sum;
        for (int c = 0; c < N; c += 2) {
            const std::int32_t c0 = N * xr[c] - sum, c1 = N * xr[c + 1] - sum;
            const std::int32_t z0 = arm_dsp::multiply_high_rounded(c0, low) + c0 * high;
            const std::int32_t z1 = arm_dsp::multiply_high_rounded(c1, low) + c1 * high;
            const std::int32_t g = arm_dsp::load32(reinterpret_cast<const std::int8_t*>(gamma + c));
            const std::int32_t v0 = __smlabb(z0, g, beta[c]), v1 = __smlabt(z1, g, beta[c + 1]);
            yr[c] = std::int8_t(__ssat(out.doubled(v0) >> 1, 8));
            yr[c + 1] = std::int8_t(__ssat(out.doubled(v1) >> 1, 8));
        }
    }
}

template <int N, bool Rms>
inline void layer_norm(const std::int8_t* x, int rows, const layer_norm_int8<N, Rms>& p, std::int8_t* y) noexcept {
    if (p.shift > 31) return reference::layer_norm(x, rows, p, y);
    if constexpr (N % 2 == 0)
        if (math::unit_rescaler::applies(p.shift)) return layer_norm_pairs(x, rows, p, y);
    // p's scalars in locals: a store to y (int8) may alias p, and would make GCC reload them
    // for every output (25 instructions per output instead of 18).
    const std::int32_t shift = p.shift, zero_point = p.output_zero_point;
    for (int r = 0; r < rows; ++r) {
        const std::int8_t* xr = x + r * N;
        std::int8_t* yr = y + r * N;  // may equal xr: each value is read before it is written
        const reference::norm_stats_int8 s = row_stats<N>(xr, p);
        const math::q32_reciprocal reciprocal(s.reciprocal);
        for (int c = 0; c < N; ++c) {
            const std::int32_t z = reciprocal.times(N * xr[c] - s.sum);
            const std::int32_t v = math::rescale_unit(z * p.gamma[c] + p.beta[c], shift);
            yr[c] = std::int8_t(__ssat(v + zero_point, 8));
        }
    }
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
