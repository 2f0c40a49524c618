// staticformer: int8 y = x W + b with Helium (MVE, Armv8.1-M: Cortex-M55), integer only
// (optimised; bit-identical to reference/linear_int8.hpp). Output o's weights of 16 consecutive
// inputs are four words w[g..g+3][o], 4 * Out bytes apart: one gather load (VLDRW with offsets)
// puts them in input order, and VMLADAVA.S8 adds their 16 products with a row's 16 inputs (one
// VLDRB) to that row's sum. Three ways to share the gathers (linear, at the end). The last block of
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

// The inline-assembly tiles below need registers that an unoptimised build (-O0) keeps for
// the frame pointer and its copies; there the intrinsics' tiles run instead (same bytes).
#if defined(__OPTIMIZE__)
constexpr bool written_out = true;
#else
constexpr bool written_out = false;
#endif

// acc += one row's Blocks x 16 inputs times w[0 .. Blocks-1] (VLDRB, VMLADAVA per block), and
// x moves to the next row: the first block is loaded last, with post-increment.
template <int Blocks>
STATICFORMER_ALWAYS_INLINE void row_blocks(std::int32_t& acc, const std::int8_t*& x, const int8x16_t* w) noexcept {
    static_assert(Blocks >= 1 && Blocks <= 5 && 16 * Blocks <= 127, "VLDRB's post-increment reaches 127");
    const int8x16_t w0 = w[0], w1 = w[Blocks > 1 ? 1 : 0], w2 = w[Blocks > 2 ? 2 : 0], w3 = w[Blocks > 3 ? 3 : 0],
                    w4 = w[Blocks > 4 ? 4 : 0];
    int8x16_t t;
    __asm__(".if %c[n] > 1\n\tvldrb.s8 %q[t], [%[x], #16]\n\tvmladava.s8 %[acc], %q[t], %q[w1]\n\t.endif\n\t"
            ".if %c[n] > 2\n\tvldrb.s8 %q[t], [%[x], #32]\n\tvmladava.s8 %[acc], %q[t], %q[w2]\n\t.endif\n\t"
            ".if %c[n] > 3\n\tvldrb.s8 %q[t], [%[x], #48]\n\tvmladava.s8 %[acc], %q[t], %q[w3]\n\t.endif\n\t"
            ".if %c[n] > 4\n\tvldrb.s8 %q[t], [%[x], #64]\n\tvmladava.s8 %[acc], %q[t], %q[w4]\n\t.endif\n\t"
            "vldrb.s8 %q[t], [%[x]], #%c[step]\n\tvmladava.s8 %[acc], %q[t], %q[w0]"
            : [t] "=&w"(t), [acc] "+Te"(acc), [x] "+r"(x)  // Te: an even register, as VMLADAVA needs
            : [n] "i"(Blocks), [step] "i"(16 * Blocks), [w0] "w"(w0), [w1] "w"(w1), [w2] "w"(w2), [w3] "w"(w3),
              [w4] "w"(w4), "m"(*reinterpret_cast<const std::int8_t(*)[16 * Blocks]>(x)));
}
// *y = v, then y += Step (STRB with post-increment).
template <int Step>
STATICFORMER_ALWAYS_INLINE void store_next(std::int8_t*& y, std::int8_t v) noexcept {
    __asm__("strb %3, [%0], %2" : "+r"(y), "=m"(*y) : "i"(Step), "r"(v));
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
        if constexpr (written_out && tail == 0 && In <= 127 && Out <= 255) {
            // The loads and the store written out: GCC copies the row pointer and adds to both
            // pointers apart (18 instructions a row of 64 inputs, against these 15).
            for (int r = 0; r < rows; ++r) {
                std::int32_t acc = bias;
                row_blocks<whole>(acc, xr, wv);
                store_next<Out>(yr, requant(acc, m));
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

// Long rows (In % 16 == 0): Rows (1..3) rows x outputs o and o + 1 per tile. Per block of 16
// inputs two gathers, a VLDRB per row and a VMLADAVA per row and output: 13 instructions per 96
// multiply-adds. Written out because its 6 sums, 3 row pointers and the loop must all stay in
// registers (GCC's own allocation spilled them: 0.26 instructions per multiply-add at 256 inputs).
template <int In, int Out, int Rows, class Requant>
inline void linear_pair_tile(const std::int8_t* x, const linear_int8<In, Out>& p, int o, Requant requant,
                             std::int8_t* y) noexcept {
    static_assert(In % 16 == 0 && Rows >= 1 && Rows <= 3 && Out <= 255, "whole blocks, up to three rows, ADDW's step");
    const uint32x4_t first = vmulq_n_u32(vidupq_n_u32(0, 1), std::uint32_t(4 * Out));  // bytes: 4 groups
    const uint32x4_t second = vaddq_n_u32(first, 4);  // the next output's words
    const std::int32_t* w = reinterpret_cast<const std::int32_t*>(&p.w[0][o][0]);
    const std::int8_t *x0 = x, *x1 = x + (Rows > 1 ? In : 0), *x2 = x + (Rows > 2 ? 2 * In : 0);
    const std::int32_t b0 = p.bias[o], b1 = p.bias[o + 1];
    std::int32_t a00 = b0, a01 = b1, a10 = b0, a11 = b1, a20 = b0, a21 = b1;
    int8x16_t t, wa, wb;
    __asm__("mov lr, #%c[blocks]\n\tdls lr, lr\n"
            "1:\n\t"
            "vldrw.u32 %q[wa], [%[w], %q[first]]\n\t"
            "vldrw.u32 %q[wb], [%[w], %q[second]]\n\t"
            "add %[w], %[w], #%c[step]\n\t"
            "vldrb.s8 %q[t], [%[x0]], #16\n\t"
            "vmladava.s8 %[a00], %q[t], %q[wa]\n\t"
            "vmladava.s8 %[a01], %q[t], %q[wb]\n\t"
            ".if %c[rows] > 1\n\t"
            "vldrb.s8 %q[t], [%[x1]], #16\n\t"
            "vmladava.s8 %[a10], %q[t], %q[wa]\n\t"
            "vmladava.s8 %[a11], %q[t], %q[wb]\n\t"
            ".endif\n\t"
            ".if %c[rows] > 2\n\t"
            "vldrb.s8 %q[t], [%[x2]], #16\n\t"
            "vmladava.s8 %[a20], %q[t], %q[wa]\n\t"
            "vmladava.s8 %[a21], %q[t], %q[wb]\n\t"
            ".endif\n\t"
            "le lr, 1b"
            : [t] "=&w"(t), [wa] "=&w"(wa), [wb] "=&w"(wb), [a00] "+Te"(a00), [a01] "+Te"(a01), [a10] "+Te"(a10),
              [a11] "+Te"(a11), [a20] "+Te"(a20), [a21] "+Te"(a21),  // Te: even registers, as VMLADAVA needs
              [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [w] "+r"(w)
            : [blocks] "n"(In / 16), [step] "n"(16 * Out), [first] "w"(first), [second] "w"(second),
              [rows] "i"(Rows)
            : "lr", "memory");  // (memory: "m" operands for the weights and rows would each take a
                                // base register, which -O1 and a frame pointer do not leave)
    const std::int32_t m0 = p.multiplier[o], m1 = p.multiplier[o + 1];
    y[o] = requant(a00, m0), y[o + 1] = requant(a01, m1);
    if constexpr (Rows > 1) y[Out + o] = requant(a10, m0), y[Out + o + 1] = requant(a11, m1);
    if constexpr (Rows > 2) y[2 * Out + o] = requant(a20, m0), y[2 * Out + o + 1] = requant(a21, m1);
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
inline void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, Requant requant,
                   std::int8_t* y) noexcept {
    if constexpr ((In + 15) / 16 <= 5) {
        return linear_weights_held(x, rows, p, requant, y);
    } else if constexpr (written_out && In % 16 == 0 && Out <= 255) {
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

}  // namespace cortex_m_mve
}  // namespace kernels
}  // namespace staticformer
