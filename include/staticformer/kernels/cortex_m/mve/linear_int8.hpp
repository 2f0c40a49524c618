// staticformer: int8 y = x W + b with Helium (MVE, Armv8.1-M: Cortex-M55), integer only
// (optimised; bit-identical to reference/linear_int8.hpp). Output o's weights of 16 consecutive
// inputs are four words w[g..g+3][o], 4 * Out bytes apart: one gather load (VLDRW with offsets)
// puts them in input order, and VMLADAVA.S8 adds their 16 products with a row's 16 inputs (one
// VLDRB) to that row's sum. Three ways to share the gathers (linear, at the end). The last block of
// In % 16 inputs is tail-predicated: inputs past In read as 0, groups past the weights are not
// read (padding weights inside a group are 0, load_blob checks it). The requantisation is the
// DSP kernel's (SMLAWB). Integer sums are exact: any order gives the reference's accumulator.
// a16w8 (int16 rows) at the end: eight inputs a VMLADAVA.S16, the weights widened by a gather.
#pragma once

#include <arm_mve.h>

#include <cstdint>
#include <type_traits>

#include "../../../config.hpp"
#include "../../../math/fixed_point.hpp"
#include "../../params_a16w8.hpp"
#include "../../params_int8.hpp"
#include "../../isa/arm_mve.hpp"
#include "../dsp/linear_int8.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_mve {

// With Helium, for 17 <= shift <= 47: SMLAWB, a shift and SSAT (math::int16_multiplier_requantizer).
struct int16_multiplier {
    math::int16_multiplier_requantizer q;
    STATICFORMER_ALWAYS_INLINE std::int32_t multiplier(std::int32_t m) const noexcept { return m; }
    STATICFORMER_ALWAYS_INLINE std::int8_t operator()(std::int32_t acc, std::int32_t m) const noexcept {
        return std::int8_t(__ssat(q.unsaturated(__smlawb(acc, m, q.round)), 8));
    }
};

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
        for (int r = 0; r < Rows; ++r) xr[r] = arm_dsp::opaque(xr[r]);
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

// Short rows (at most five blocks of 16 inputs): one output at a time, its weights gathered
// once into registers while every row streams past (a VLDRB and a VMLADAVA per block and row,
// 15 instructions a row of 64 inputs). It beats the 4-row tiles even for the encoder's 4-row
// calls: with 4 blocks their per-output requantisation and set-up cost more than their blocks.
template <int In, int Out, class Requant>
inline void linear_weights_held(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, Requant requant,
                                std::int8_t* y) noexcept {
    constexpr int whole = In / 16, tail = In % 16;
    const uint32x4_t offsets = vmulq_n_u32(vidupq_n_u32(0, 1), std::uint32_t(4 * Out));  // bytes: 4 groups
    for (int o = 0; o < Out; ++o) {
        const std::int32_t* w = reinterpret_cast<const std::int32_t*>(&p.w[0][o][0]);
        int8x16_t wv[whole + 1];
#pragma GCC unroll 5
        for (int b = 0; b < whole; ++b) wv[b] = vreinterpretq_s8_s32(vldrwq_gather_offset_s32(w + 4 * Out * b, offsets));
        if constexpr (tail > 0)
            wv[whole] = vreinterpretq_s8_s32(
                vldrwq_gather_offset_z_s32(w + 4 * Out * whole, offsets, vctp32q((tail + 3) / 4)));
        const std::int32_t bias = p.bias[o], m = p.multiplier[o];
        const std::int8_t* xr = x;
        std::int8_t* yr = y + o;
        if constexpr (tail == 0 && In <= 127 && Out <= 255) {
            for (int r = 0; r < rows; ++r) {
                std::int32_t acc = bias;
                arm_mve::row_blocks<whole>(acc, xr, wv);
                arm_mve::store_next<Out>(yr, requant(acc, m));
            }
        } else {
            for (int r = 0; r < rows; ++r, xr += In, yr += Out) {
                std::int32_t acc = bias;
#pragma GCC unroll 5
                for (int b = 0; b < whole; ++b) acc = vmladavaq_s8(acc, vldrbq_s8(xr + 16 * b), wv[b]);
                if constexpr (tail > 0)
                    acc = vmladavaq_s8(acc, vldrbq_z_s8(xr + 16 * whole, vctp8q(tail)), wv[whole]);
                *yr = requant(acc, m);
            }
        }
    }
}

// Long rows (In % 16 == 0): Rows (1..3) rows x outputs o and o + 1 per tile (arm_mve::pair_tile).
template <int In, int Out, int Rows, class Requant>
inline void linear_pair_tile(const std::int8_t* x, const linear_int8<In, Out>& p, int o, Requant requant,
                             std::int8_t* y) noexcept {
    static_assert(In % 16 == 0, "whole blocks");
    const uint32x4_t first = vmulq_n_u32(vidupq_n_u32(0, 1), std::uint32_t(4 * Out));  // bytes: 4 groups
    const uint32x4_t second = vaddq_n_u32(first, 4);  // the next output's words
    const std::int32_t* w = reinterpret_cast<const std::int32_t*>(&p.w[0][o][0]);
    const std::int8_t* const rows[3] = {x, x + (Rows > 1 ? In : 0), x + (Rows > 2 ? 2 * In : 0)};
    const std::int32_t b0 = p.bias[o], b1 = p.bias[o + 1];
    std::int32_t a[3][2] = {{b0, b1}, {b0, b1}, {b0, b1}};
    arm_mve::pair_tile<Rows, In / 16, Out>(a, rows, w, first, second);
    const std::int32_t m0 = p.multiplier[o], m1 = p.multiplier[o + 1];
#pragma GCC unroll 3
    for (int r = 0; r < Rows; ++r) y[r * Out + o] = requant(a[r][0], m0), y[r * Out + o + 1] = requant(a[r][1], m1);
}

// Apart from its caller, which may hold the frame pointer and leave too few registers for the tile.
template <int In, int Out, int Rows, class Requant>
STATICFORMER_OUT_OF_LINE void linear_pair_rows(const std::int8_t* x, const linear_int8<In, Out>& p, Requant requant,
                             std::int8_t* y) noexcept {
    for (int o = 0; o + 2 <= Out; o += 2) linear_pair_tile<In, Out, Rows>(x, p, o, requant, y);
    if constexpr (Out % 2 != 0) linear_tile<In, Out, Rows>(x, p, Out - 1, requant, y);
}

// Short rows: weights held; long rows of whole blocks: 3 x 2 tiles; else 4 rows per gather.
template <int In, int Out, class Requant>
inline void linear_requantized(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, Requant requant,
                   std::int8_t* y) noexcept {
    if constexpr ((In + 15) / 16 <= 5) {
        return linear_weights_held(x, rows, p, requant, y);
    } else if constexpr (In % 16 == 0 && Out <= 255) {
        // Three rows a tile; four left are two tiles of two (a one-row tile costs more per row).
        int r = 0;
        for (; rows - r >= 5 || rows - r == 3; r += 3) linear_pair_rows<In, Out, 3>(x + r * In, p, requant, y + r * Out);
        for (; rows - r >= 2; r += 2) linear_pair_rows<In, Out, 2>(x + r * In, p, requant, y + r * Out);
        if (rows - r == 1) linear_pair_rows<In, Out, 1>(x + r * In, p, requant, y + r * Out);
        return;
    }
    int r = 0;
    for (; r + 4 <= rows; r += 4) linear_rows<In, Out, 4>(x + r * In, p, requant, y + r * Out);
    switch (rows - r) {
    case 3: linear_rows<In, Out, 3>(x + r * In, p, requant, y + r * Out); break;
    case 2: linear_rows<In, Out, 2>(x + r * In, p, requant, y + r * Out); break;
    case 1: linear_rows<In, Out, 1>(x + r * In, p, requant, y + r * Out); break;
    default: break;
    }
}

template <int In, int Out>
inline void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
    if (math::int16_multiplier_requantizer::applies(p.shift))
        return linear_requantized(x, rows, p, int16_multiplier{{p.shift, p.output_zero_point}}, y);
    cortex_m_dsp::linear_any_shift<In, Out>(x, rows, p, cortex_m_dsp::any_shift{p.shift, p.output_zero_point}, y);
}

// ---- a16w8: int16 rows, VMLADAVA.S16 -------------------------------------------------------

// Byte offsets of output o's eight weights for inputs 8s .. 8s + 7 from &w[2s][o][0]: input i
// at (i / 4) 4 Out + i % 4 (two groups of four).
template <int Out>
STATICFORMER_ALWAYS_INLINE uint16x8_t a16w8_weight_offsets() noexcept {
    const uint16x8_t i = vidupq_n_u16(0, 1);
    return vaddq_u16(vmulq_n_u16(vshrq_n_u16(i, 2), std::uint16_t(4 * Out)), vandq_u16(i, vdupq_n_u16(3)));
}

// Rows (1..4) rows of output o, eight inputs a step: one widening byte gather puts output o's
// eight weights in input order (offsets (i / 4) 4 Out + i % 4: two groups), and each row adds
// its eight products with one VLDRH and one VMLADAVA.S16. The last In % 8 inputs predicated.
// The gather only reads weights, which nothing writes: STATICFORMER_GUARD_GCC12_MVE_MEMORY_SIZES
// needs no fence here.
template <int In, int Out, int Rows, class Requant>
inline void linear_tile_a16w8(const std::int16_t* x, const linear_a16w8<In, Out>& p, int o, Requant requant,
                              std::int16_t* y) noexcept {
    constexpr int whole = In / 8, tail = In % 8;
    const uint16x8_t offsets = a16w8_weight_offsets<Out>();
    const std::int8_t* w = &p.w[0][o][0];
    std::int32_t acc[Rows];
#pragma GCC unroll 4
    for (int r = 0; r < Rows; ++r) acc[r] = p.bias[o];
#pragma GCC unroll 2
    for (int b = 0; b < whole; ++b, w += 8 * Out) {
        const int16x8_t wv = vldrbq_gather_offset_s16(w, offsets);
#pragma GCC unroll 4
        for (int r = 0; r < Rows; ++r) acc[r] = vmladavaq_s16(acc[r], vldrhq_s16(x + r * In + 8 * b), wv);
    }
    if constexpr (tail > 0) {
        const mve_pred16_t inputs = vctp16q(tail);
        const int16x8_t wv = vldrbq_gather_offset_z_s16(w, offsets, inputs);
#pragma GCC unroll 4
        for (int r = 0; r < Rows; ++r) acc[r] = vmladavaq_s16(acc[r], vldrhq_z_s16(x + r * In + 8 * whole, inputs), wv);
    }
    const std::int32_t m = requant.multiplier(p.multiplier[o]);
#pragma GCC unroll 4
    for (int r = 0; r < Rows; ++r) y[r * Out + o] = requant(acc[r], m);
}

template <int In, int Out, int Rows, class Requant>
STATICFORMER_OUT_OF_LINE void linear_rows_a16w8(const std::int16_t* x, const linear_a16w8<In, Out>& p, Requant requant,
                                                std::int16_t* y) noexcept {
    for (int o = 0; o < Out; ++o) linear_tile_a16w8<In, Out, Rows>(x, p, o, requant, y);
}

// Rows (1..3) rows x outputs o and o + 1 (In % 8 == 0): per eight inputs two widening gathers,
// a VLDRH per row and a VMLADAVA.S16 per row and output (arm_mve::pair_tile_a16w8).
template <int In, int Out, int Rows, class Requant>
inline void linear_pair_tile_a16w8(const std::int16_t* x, const linear_a16w8<In, Out>& p, int o, Requant requant,
                                   uint16x8_t first, uint16x8_t second, std::int16_t* y) noexcept {
    static_assert(In % 8 == 0, "whole steps of eight inputs");
    const std::int16_t* const rows[3] = {x, x + (Rows > 1 ? In : 0), x + (Rows > 2 ? 2 * In : 0)};
    const std::int32_t b0 = p.bias[o], b1 = p.bias[o + 1];
    std::int32_t a[3][2] = {{b0, b1}, {b0, b1}, {b0, b1}};
    arm_mve::pair_tile_a16w8<Rows, In / 8, Out>(a, rows, &p.w[0][o][0], first, second);
    const std::int32_t m0 = requant.multiplier(p.multiplier[o]), m1 = requant.multiplier(p.multiplier[o + 1]);
#pragma GCC unroll 3
    for (int r = 0; r < Rows; ++r) y[r * Out + o] = requant(a[r][0], m0), y[r * Out + o + 1] = requant(a[r][1], m1);
}

template <int In, int Out, int Rows, class Requant>
STATICFORMER_OUT_OF_LINE void linear_pair_rows_a16w8(const std::int16_t* x, const linear_a16w8<In, Out>& p,
                                                     Requant requant, std::int16_t* y) noexcept {
    const uint16x8_t first = a16w8_weight_offsets<Out>(), second = vaddq_n_u16(first, 4);  // and the next output's
    for (int o = 0; o + 2 <= Out; o += 2) linear_pair_tile_a16w8<In, Out, Rows>(x, p, o, requant, first, second, y);
    if constexpr (Out % 2 != 0) linear_tile_a16w8<In, Out, Rows>(x, p, Out - 1, requant, y);
}

// The eight sums of a 4 x 2 tile (a[r][c]: row r, output o + c) rescaled as
// high_multiplier_a16w8 does (VRMULH is SMMLAR with no addend), clamped, and stored by one
// scatter: lane 2r + c to y[r Out + c] (offsets: quad_offsets).
STATICFORMER_ALWAYS_INLINE void store_quad_a16w8(const std::int32_t (&a)[4][2], std::int32_t m0, std::int32_t m1,
                                                 std::int32_t limit, uint16x8_t offsets, std::int16_t* y) noexcept {
    const int32x4_t hi = vdupq_n_s32(limit), lo = vdupq_n_s32(-limit);
    const int32x4_t s0 = {a[0][0], a[1][0], a[2][0], a[3][0]}, s1 = {a[0][1], a[1][1], a[2][1], a[3][1]};
    const int32x4_t c0 = vminq_s32(vmaxq_s32(vrmulhq_s32(s0, vdupq_n_s32(m0)), lo), hi);
    const int32x4_t c1 = vminq_s32(vmaxq_s32(vrmulhq_s32(s1, vdupq_n_s32(m1)), lo), hi);
    vstrhq_scatter_offset_s16(y, offsets, vmovntq_s32(vreinterpretq_s16_s32(c0), c1));  // c0 already in the even lanes
}
template <int Out>
STATICFORMER_ALWAYS_INLINE uint16x8_t quad_offsets() noexcept {  // bytes: (lane / 2) Out 2 + (lane % 2) 2
    const uint16x8_t i = vidupq_n_u16(0, 1);
    return vaddq_u16(vmulq_n_u16(vshrq_n_u16(i, 1), std::uint16_t(2 * Out)), vshlq_n_u16(vandq_u16(i, vdupq_n_u16(1)), 1));
}

template <class Requant, int Out>
STATICFORMER_ALWAYS_INLINE void store_quad(const std::int32_t (&a)[4][2], std::int32_t m0, std::int32_t m1, Requant requant,
                                           uint16x8_t offsets, std::int16_t* y) noexcept {
    if constexpr (std::is_same<Requant, cortex_m_dsp::high_multiplier_a16w8>::value) {
        store_quad_a16w8(a, m0, m1, requant.limit, offsets, y);
    } else {
#pragma GCC unroll 4
        for (int r = 0; r < 4; ++r) y[r * Out] = requant(a[r][0], m0), y[r * Out + 1] = requant(a[r][1], m1);
    }
}

// Four rows of at most 80 inputs (whole steps of eight) x outputs o and o + 1 per tile
// (arm_mve::quad_tile_a16w8). The scatter store is fenced
// (STATICFORMER_GUARD_GCC12_MVE_MEMORY_SIZES): the caller reads y next.
template <int In, int Out, class Requant>
STATICFORMER_OUT_OF_LINE void linear_quad_rows_a16w8(const std::int16_t* x, const linear_a16w8<In, Out>& p,
                                                     Requant requant, std::int16_t* y) noexcept {
    const uint16x8_t first = a16w8_weight_offsets<Out>(), second = vaddq_n_u16(first, 4);  // and the next output's
    const uint16x8_t offsets = quad_offsets<Out>();
    for (int o = 0; o + 2 <= Out; o += 2) {
        const std::int32_t b0 = p.bias[o], b1 = p.bias[o + 1];
        std::int32_t a[4][2] = {{b0, b1}, {b0, b1}, {b0, b1}, {b0, b1}};
        arm_mve::quad_tile_a16w8<In / 8, Out>(a, x, &p.w[0][o][0], first, second);
        const std::int32_t m0 = requant.multiplier(p.multiplier[o]), m1 = requant.multiplier(p.multiplier[o + 1]);
        store_quad<Requant, Out>(a, m0, m1, requant, offsets, y + o);
    }
    if constexpr (Out % 2 != 0) linear_tile_a16w8<In, Out, 4>(x, p, Out - 1, requant, y);
    arm_mve::memory_fence();
}

// Whole steps of eight inputs: 4 x 2 tiles for rows up to 80 inputs, 3 x 2 for longer ones (the
// rest of either in tiles of 3, 2 and 1 rows: four rows left are two of two); else 4 x 1.
template <int In, int Out, class Requant>
inline void linear_a16w8_rows(const std::int16_t* x, int rows, const linear_a16w8<In, Out>& p, Requant requant,
                              std::int16_t* y) noexcept {
    if constexpr (In % 8 == 0 && Out <= arm_mve::pair_tile_a16w8_max_out) {
        int r = 0;
        if constexpr (In <= arm_mve::quad_tile_a16w8_max_in)
            for (; rows - r >= 4; r += 4) linear_quad_rows_a16w8<In, Out>(x + r * In, p, requant, y + r * Out);
        for (; rows - r >= 5 || rows - r == 3; r += 3)
            linear_pair_rows_a16w8<In, Out, 3>(x + r * In, p, requant, y + r * Out);
        for (; rows - r >= 2; r += 2) linear_pair_rows_a16w8<In, Out, 2>(x + r * In, p, requant, y + r * Out);
        if (rows - r == 1) linear_pair_rows_a16w8<In, Out, 1>(x + r * In, p, requant, y + r * Out);
        return;
    }
    int r = 0;
    for (; r + 4 <= rows; r += 4) linear_rows_a16w8<In, Out, 4>(x + r * In, p, requant, y + r * Out);
    switch (rows - r) {
    case 3: linear_rows_a16w8<In, Out, 3>(x + r * In, p, requant, y + r * Out); break;
    case 2: linear_rows_a16w8<In, Out, 2>(x + r * In, p, requant, y + r * Out); break;
    case 1: linear_rows_a16w8<In, Out, 1>(x + r * In, p, requant, y + r * Out); break;
    default: break;
    }
}

// Four rows a tile; the DSP kernel's rescale (SMMLAR) and clamp, or any shift.
template <int In, int Out>
inline void linear(const std::int16_t* x, int rows, const linear_a16w8<In, Out>& p, std::int16_t* y) noexcept {
    if (cortex_m_dsp::high_multiplier::applies(p.shift))
        return linear_a16w8_rows(x, rows, p, cortex_m_dsp::high_multiplier_a16w8{32 - p.shift, p.output_limit}, y);
    linear_a16w8_rows(x, rows, p, cortex_m_dsp::any_shift_a16w8{p.shift, p.output_limit}, y);
}

}  // namespace cortex_m_mve
}  // namespace kernels
}  // namespace staticformer
