// staticformer: rotary position embedding of one row of int8 queries or keys (normative): the
// float kernel's turn (rotary.hpp) in fixed point. Queries and keys are symmetric (zero point 0)
// and their scale covers the turned values too; cos and sin are Q14 (math/rotary.hpp):
//   a' = requantize(a C - b S, 1, 14, 0),  b' = requantize(b C + a S, 1, 14, 0)
// with THE rounding of math/fixed_point.hpp (|a C - b S| < 2^23: no overflow).
#pragma once

#include <cstdint>

#include "../../math/fixed_point.hpp"
#include "rotary.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

template <int D, int HeadDim, bool Interleaved>
inline void rotate(std::int8_t* x, const std::int16_t* cos, const std::int16_t* sin) noexcept {
    for (int h = 0; h < D; h += HeadDim)
        for (int i = 0; i < HeadDim / 2; ++i) {
            std::int8_t& a = x[h + pair_first<HeadDim, Interleaved>(i)];
            std::int8_t& b = x[h + pair_second<HeadDim, Interleaved>(i)];
            const std::int32_t a0 = a, b0 = b;
            a = math::requantize(a0 * cos[i] - b0 * sin[i], 1, 14, 0);
            b = math::requantize(b0 * cos[i] + a0 * sin[i], 1, 14, 0);
        }
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
