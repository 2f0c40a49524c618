// staticformer: the int16 stream's add, widening and narrowing on Cortex-M, int8 and a16w8
// branches (optimised; bit-identical to reference/stream_int8.hpp): each rescale in 32 bits where the parameters'
// bounds keep it exact (the reference's takes 64), the saturation by SSAT.
#pragma once

#include <cstdint>

#include "../../params_a16w8.hpp"
#include "../../params_int8.hpp"
#include "../../isa/arm_dsp.hpp"
#include "../../reference/stream_int8.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_dsp {

// stream += a. stream_add_int8's bounds (|(a - za) m| < 2^23, shift <= 30) keep the product and
// its rounding term within 32 bits, and the rescaled value far from rescale()'s clamp.
inline void add(std::int16_t* x, const std::int8_t* a, int n, const stream_add_int8& p) noexcept {
    const std::int32_t m = p.multiplier, shift = p.shift, zero_point = p.a_zero_point;
    const std::int32_t round = std::int32_t(1) << (shift - 1);
    for (int i = 0; i < n; ++i) x[i] = std::int16_t(__ssat(x[i] + (((a[i] - zero_point) * m + round) >> shift), 16));
}

// An int8 tensor widened into the stream: the add's branch alone.
inline void widen(const std::int8_t* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
    const std::int32_t m = p.multiplier, shift = p.shift, zero_point = p.a_zero_point;
    const std::int32_t round = std::int32_t(1) << (shift - 1);
    for (int i = 0; i < n; ++i) y[i] = std::int16_t(__ssat(((a[i] - zero_point) * m + round) >> shift, 16));
}

// int8 from the stream: |x m| < 2^30 and the rounding at most 2^29 (stream_narrow_int8's bounds).
inline void narrow(const std::int16_t* x, int n, const stream_narrow_int8& p, std::int8_t* y) noexcept {
    const std::int32_t m = p.multiplier, shift = p.shift, zero_point = p.zero_point;
    const std::int32_t round = std::int32_t(1) << (shift - 1);
    for (int i = 0; i < n; ++i) y[i] = std::int8_t(__ssat(((x[i] * m + round) >> shift) + zero_point, 8));
}

// a16w8: int16 branches (zero point 0, |a m| < 2^30, shift <= 30: 32-bit steps as above) and the
// clamp to a block input's limit. Out of line (STATICFORMER_GUARD_GCC12_MVE_LITERAL_POOL): built
// for a Cortex-M55, GCC 12 vectorises these loops with a literal pool VLDR cannot reach once
// they are inlined into an encoder's pass.
STATICFORMER_OUT_OF_LINE inline void add(std::int16_t* x, const std::int16_t* a, int n, const stream_add_int8& p) noexcept {
    const std::int32_t m = p.multiplier, shift = p.shift, round = std::int32_t(1) << (shift - 1);
    for (int i = 0; i < n; ++i) x[i] = std::int16_t(__ssat(x[i] + ((a[i] * m + round) >> shift), 16));
}

STATICFORMER_OUT_OF_LINE inline void widen(const std::int16_t* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
    const std::int32_t m = p.multiplier, shift = p.shift, round = std::int32_t(1) << (shift - 1);
    for (int i = 0; i < n; ++i) y[i] = std::int16_t(__ssat((a[i] * m + round) >> shift, 16));
}

STATICFORMER_OUT_OF_LINE inline void narrow(const std::int16_t* x, int n, const stream_narrow_a16w8& p,
                                            std::int16_t* y) noexcept {
    const std::int32_t m = p.multiplier, shift = p.shift, round = std::int32_t(1) << (shift - 1), limit = p.output_limit;
    for (int i = 0; i < n; ++i) y[i] = math::clamp_to((x[i] * m + round) >> shift, limit);
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
