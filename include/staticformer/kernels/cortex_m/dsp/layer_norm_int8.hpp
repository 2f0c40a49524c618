// staticformer: LayerNorm and RMSNorm of the int16 stream on Cortex-M (optimised; bit-identical
// to reference/layer_norm_int8.hpp): a row's sums by SMLAD and SMLALD on the stream's int16
// pairs, the root by VSQRT with an FPU, z by one SMMLA instead of a 64 x 64-bit product, each
// rescale in 32 bits.
#pragma once

#include <cstdint>
#include <cstring>

#include "../../../math/fixed_point.hpp"
#include "../../params_int8.hpp"
#include "../../isa/arm_dsp.hpp"
#include "../../reference/layer_norm_int8.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_dsp {

// floor(2^48 / d) for 1 <= d < 2^16 by two 32-bit divisions: 2^48 = 2^32 2^16, so
// q = (2^32 / d) 2^16 + ((2^32 mod d) 2^16) / d, with 2^32 / d from (2^32 - 1) / d (one more when
// its remainder is d - 1: a select).
inline std::uint64_t power_of_two_48_over(std::uint32_t d) noexcept {
    const std::uint32_t high = 0xffffffffu / d, rem = 0xffffffffu - high * d + 1;  // rem in 1..d
    const std::uint32_t carry = rem == d;
    return ((std::uint64_t(high) + carry) << 16) + ((rem - carry * d) << 16) / d;
}

// The reference's stream_norm_stats: the 32-bit root by VSQRT (isqrt32_fpu) with an FPU, and
// 2^48 / root by two divisions (about 40 instructions a row instead of 400).
template <int N, bool Rms>
inline reference::norm_stats_int8 stream_norm_stats(std::int32_t sum, std::int64_t sum_sq,
                                                    const layer_norm_int8<N, Rms>& p) noexcept {
    const std::uint64_t radicand = reference::stream_radicand(sum, sum_sq, p);
    const int t = math::radicand_halvings(radicand);
#if defined(__ARM_FP) && (__ARM_FP & 4)
    const std::uint32_t root = arm_dsp::isqrt32_fpu(std::uint32_t(radicand >> (2 * t)));
#else
    const std::uint32_t root = math::isqrt32(std::uint32_t(radicand >> (2 * t)));
#endif
    const std::int64_t reciprocal = std::int64_t(power_of_two_48_over(root | std::uint32_t(root == 0)) >> t);
    return {Rms ? 0 : sum, reciprocal & -std::int64_t(root != 0)};
}

// A stream row's sum and sum of squares, two values a word: SMLAD with (1, 1), SMLALD with itself.
template <int N, bool Rms>
inline reference::norm_stats_int8 stream_row_stats(const std::int16_t* x, const layer_norm_int8<N, Rms>& p) noexcept {
    std::int32_t sum = 0;
    std::int64_t sum_sq = 0;
    int c = 0;
    for (; c + 2 <= N; c += 2) {
        std::int32_t pair;
        std::memcpy(&pair, x + c, 4);  // one LDR
        sum = __smlad(pair, 0x00010001, sum);
        sum_sq = __smlald(pair, pair, sum_sq);
    }
    if (c < N) sum += x[c], sum_sq += std::int32_t(x[c]) * x[c];
    return stream_norm_stats(sum, sum_sq, p);
}

// The stream's LayerNorm into int8 or into the stream. With r = high 2^32 + low (low signed,
// math::q32_reciprocal), floor(c r / 2^32) = SMMLA(c, low, c high) (|c r| <= 2^54 keeps c high
// within 2^23), so z = (that + 2^7) >> 8; then z gamma + beta, math::rescale_unit and SSAT.
// Shifts past 31 (never made by the quantiser) take the reference's kernel.
template <int N, bool Rms, class Out>
inline void layer_norm(const std::int16_t* x, int rows, const layer_norm_int8<N, Rms>& p, Out* y) noexcept {
    if (p.shift > 31) return reference::layer_norm(x, rows, p, y);
    constexpr int bits = 8 * int(sizeof(Out));
    const std::int32_t shift = p.shift, zero_point = p.output_zero_point;  // (locals: a store to y may alias p)
    for (int r = 0; r < rows; ++r) {
        const std::int16_t* xr = x + r * N;
        Out* yr = y + r * N;  // may equal xr: each value is read before it is written
        const reference::norm_stats_int8 s = stream_row_stats<N>(xr, p);
        const math::q32_reciprocal reciprocal(s.reciprocal);
        for (int c = 0; c < N; ++c) {
            const std::int32_t centred = N * xr[c] - s.sum;
            const std::int32_t high = arm_dsp::multiply_high_add(centred, reciprocal.low, centred * reciprocal.high);
            const std::int32_t z = (high + 128) >> 8;
            yr[c] = Out(__ssat(math::rescale_unit(z * p.gamma[c] + p.beta[c], shift) + zero_point, bits));
        }
    }
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
