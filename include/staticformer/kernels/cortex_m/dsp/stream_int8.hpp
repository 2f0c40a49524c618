// staticformer: the int16 stream's add, widening and narrowing on Cortex-M (optimised;
// bit-identical to reference/stream_int8.hpp): each rescale in 32 bits where the parameters'
// bounds keep it exact (the reference's takes 64), the saturation by SSAT.
#pragma once

#include <cstdint>

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

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
