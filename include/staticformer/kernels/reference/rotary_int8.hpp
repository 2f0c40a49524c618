// staticformer: rotary position embedding of one row of int8 (or a16w8's int16) queries or keys
// (normative): the float kernel's turn (rotary.hpp) in fixed point. Queries and keys are
// symmetric (zero point 0) and their scale covers the turned values too; cos and sin are Q14
// (math/rotary.hpp):
//   a' = requantize(a C - b S, 1, 14, 0),  b' = requantize(b C + a S, 1, 14, 0)
// with THE rounding of math/fixed_point.hpp. |a C - b S| < 2^23 (int8; 2^30 int16), so that
// rounding is exactly (acc + 2^13) >> 14 in 32 bits (turn below; no 64-bit product).
#pragma once

#include <cstdint>
#include <cstring>

#include "../../math/fixed_point.hpp"
#include "rotary.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

// requantize(acc, 1, 14, 0) for |acc| < 2^23.
constexpr std::int8_t turn(std::int32_t acc) noexcept { return math::saturate_int8((acc + (1 << 13)) >> 14); }
static_assert(turn(8191) == math::requantize(8191, 1, 14, 0) && turn(8192) == math::requantize(8192, 1, 14, 0) &&
                  turn(-8192) == math::requantize(-8192, 1, 14, 0) && turn(-8193) == math::requantize(-8193, 1, 14, 0) &&
                  turn(4194304) == 127 && turn(-4194304) == -128,
              "turn is THE rounding");

// Each head turned from a copy into a copy: no write can alias a read, and the loop over pairs,
// of a constant trip count, vectorises at -O2.
template <int D, int HeadDim, bool Interleaved>
inline void rotate(std::int8_t* x, const std::int16_t* cos, const std::int16_t* sin) noexcept {
    for (int h = 0; h < D; h += HeadDim) {
        std::int8_t in[HeadDim], out[HeadDim];
        std::memcpy(in, x + h, HeadDim);
        for (int i = 0; i < HeadDim / 2; ++i) {
            const std::int32_t a = in[pair_first<HeadDim, Interleaved>(i)];
            const std::int32_t b = in[pair_second<HeadDim, Interleaved>(i)];
            out[pair_first<HeadDim, Interleaved>(i)] = turn(a * cos[i] - b * sin[i]);
            out[pair_second<HeadDim, Interleaved>(i)] = turn(b * cos[i] + a * sin[i]);
        }
        std::memcpy(x + h, out, HeadDim);
    }
}

// a16w8: the same turn of int16 queries or keys, |a C - b S| < 2^30, saturated to int16.
template <int D, int HeadDim, bool Interleaved>
inline void rotate(std::int16_t* x, const std::int16_t* cos, const std::int16_t* sin) noexcept {
    for (int h = 0; h < D; h += HeadDim) {
        std::int16_t in[HeadDim], out[HeadDim];
        std::memcpy(in, x + h, sizeof in);
        for (int i = 0; i < HeadDim / 2; ++i) {
            const std::int32_t a = in[pair_first<HeadDim, Interleaved>(i)];
            const std::int32_t b = in[pair_second<HeadDim, Interleaved>(i)];
            out[pair_first<HeadDim, Interleaved>(i)] = math::saturate_int16((a * cos[i] - b * sin[i] + (1 << 13)) >> 14);
            out[pair_second<HeadDim, Interleaved>(i)] = math::saturate_int16((b * cos[i] + a * sin[i] + (1 << 13)) >> 14);
        }
        std::memcpy(x + h, out, sizeof out);
    }
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
