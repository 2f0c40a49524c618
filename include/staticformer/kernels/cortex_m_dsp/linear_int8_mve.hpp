// staticformer: int8 y = x W + b with Helium (MVE, Armv8.1-M: Cortex-M55), integer only
// (optimised; bit-identical to reference/linear_int8.hpp). Output o's weights of 16 consecutive
// inputs are four words w[g..g+3][o], 4 * Out bytes apart: one gather load (VLDRW with offsets)
// puts them in input order, and VMLADAVA.S8 adds their 16 products with a row's 16 inputs (one
// VLDRB) to that row's sum. A tile of up to 4 rows shares each gather. The last block of
// In % 16 inputs is tail-predicated: inputs past In read as 0, groups past the weights are not
// read (padding weights inside a group are 0, load_blob checks it). The requantisation is the
// DSP kernel's (SMLAWB). Integer sums are exact: any order gives the reference's accumulator.
#pragma once

#include <arm_mve.h>

#include <cstdint>

#include "../../config.hpp"
#include "../../weights_int8.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_mve {

// Rows (1..4) rows of output o.
template <int In, int Out, int Rows, class Requant>
inline void linear_tile(const std::int8_t* x, const linear_int8<In, Out>& p, int o, Requant requant,
                        std::int8_t* y) noexcept {
    constexpr int whole = In / 16, tail = In % 16;
    const uint32x4_t offsets = vmulq_n_u32(vidupq_n_u32(0, 1), std::uint32_t(4 * Out));  // bytes: 4 groups
    const std::int32_t* w = reinterpret_cast<const std::int32_t*>(&p.w[0][o][0]);
    std::int32_t acc[Rows];
    const std::int8_t* xr[Rows];
#pragma GCC unroll 4
    for (int r = 0; r < Rows; ++r) acc[r] = p.bias[o], xr[r] = x + r * In;
    const auto block = [&]() {  // 16 inputs of every row: one gather, a VLDRB and a VMLADAVA per row
        const int8x16_t wv = vreinterpretq_s8_s32(vldrwq_gather_offset_s32(w, offsets));
#pragma GCC unroll 4
        for (int r = 0; r < Rows; ++r) acc[r] = vmladavaq_s8(acc[r], vldrbq_s8(xr[r]), wv), xr[r] += 16;
        w += 4 * Out;
    };
    if constexpr (whole <= 4) {
#pragma GCC unroll 4
        for (int b = 0; b < whole; ++b) block();
    } else {
        // A loop whose rows each walk their own pointer (post-increment loads). Left to itself GCC
        // addresses them as one base plus In-byte offsets, beyond VLDRB's 127, at an ADD per row
        // and block; opaque pointers keep them apart. Not unrolled: -O3 would, and spill them
        // (and linear_tile_apart keeps the caller's values out of the loop's registers).
#pragma GCC unroll 4
        for (int r = 0; r < Rows; ++r) __asm__("" : "+r"(xr[r]));
#pragma GCC unroll 1
        for (int b = 0; b < whole; ++b) block();
    }
    if constexpr (tail > 0) {
        const mve_pred16_t groups = vctp32q((tail + 3) / 4), inputs = vctp8q(tail);
        const int8x16_t wv = vreinterpretq_s8_s32(vldrwq_gather_offset_z_s32(w, offsets, groups));
#pragma GCC unroll 4
        for (int r = 0; r < Rows; ++r) acc[r] = vmladavaq_s8(acc[r], vldrbq_z_s8(xr[r], inputs), wv);
    }
#pragma GCC unroll 4
    for (int r = 0; r < Rows; ++r) y[r * Out + o] = requant(acc[r], p.multiplier[o]);
}

// A tile of more than four blocks as a function of its own: inlined, its row pointers compete
// for registers with the caller's and spill inside the loop at -O2 (256 -> 64: 0.35
// instructions per multiply-add, against 0.24 apart).
template <int In, int Out, int Rows, class Requant>
STATICFORMER_OUT_OF_LINE void linear_tile_apart(const std::int8_t* x, const linear_int8<In, Out>& p, int o,
                                                Requant requant, std::int8_t* y) noexcept {
    linear_tile<In, Out, Rows>(x, p, o, requant, y);
}

template <int In, int Out, int Rows, class Requant>
inline void linear_rows(const std::int8_t* x, const linear_int8<In, Out>& p, Requant requant, std::int8_t* y) noexcept {
    for (int o = 0; o < Out; ++o) {
        if constexpr (In / 16 > 4)
            linear_tile_apart<In, Out, Rows>(x, p, o, requant, y);
        else
            linear_tile<In, Out, Rows>(x, p, o, requant, y);
    }
}

// Rows four at a time, then the remainder.
template <int In, int Out, class Requant>
inline void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, Requant requant,
                   std::int8_t* y) noexcept {
    int r = 0;
    for (; r + 4 <= rows; r += 4) linear_rows<In, Out, 4>(x + r * In, p, requant, y + r * Out);
    switch (rows - r) {
    case 3: linear_rows<In, Out, 3>(x + r * In, p, requant, y + r * Out); break;
    case 2: linear_rows<In, Out, 2>(x + r * In, p, requant, y + r * Out); break;
    case 1: linear_rows<In, Out, 1>(x + r * In, p, requant, y + r * Out); break;
    default: break;
    }
}

}  // namespace cortex_m_mve
}  // namespace kernels
}  // namespace staticformer
