// staticformer: Helium (MVE, Armv8.1-M: Cortex-M55, M85) building blocks for the Cortex-M int8
// kernels (optimised). VMLADAVA.S8 adds the 16 products of two vectors of int8 to a 32-bit sum.
//
// Every inline-assembly block of the Helium kernels is here, as a named function with its C++
// twin (namespace twin, MVE intrinsics) beside it; STATICFORMER_NO_ASM (arm_dsp.hpp) selects the
// twins, and make test runs the Cortex-M tests both ways. Each block says what it saves.
#pragma once

#include <arm_mve.h>

#include <cstdint>

#include "../../config.hpp"
#include "arm_dsp.hpp"

namespace staticformer {
namespace kernels {
namespace arm_mve {

inline constexpr bool assembly = arm_dsp::assembly;

// STATICFORMER_GUARD_GCC12_MVE_MEMORY_SIZES: GCC 12 gives the widening loads and narrowing stores
// (vldrbq_s32, vldrhq_s32, vstrbq_s32, vstrhq_s32 and their _z / _p forms) and the gathers the
// memory size of one element, so its scheduler may move a scalar access to the other elements
// across them (tests/compiler_guards/mve_memory_sizes.cpp). A kernel using them on tensors other
// code writes or reads fences its entry and exit: no memory access crosses the fence (no
// instruction; other compilers are fenced too).
STATICFORMER_ALWAYS_INLINE void memory_fence() noexcept { __asm__ volatile("" ::: "memory"); }

namespace twin {

template <int Blocks>
STATICFORMER_ALWAYS_INLINE void row_blocks(std::int32_t& acc, const std::int8_t*& x, const int8x16_t* w) noexcept {
#pragma GCC unroll 5
    for (int b = 0; b < Blocks; ++b) acc = vmladavaq_s8(acc, vldrbq_s8(x + 16 * b), w[b]);
    x += 16 * Blocks;
}

// Rows (1..3) rows' sums a[r][0..1] of outputs o, o + 1 over Blocks blocks of 16 inputs: the
// weights' words gathered at offsets first and second from w, w moving 16 Out bytes a block.
template <int Rows, int Blocks, int Out>
STATICFORMER_ALWAYS_INLINE void pair_tile(std::int32_t (&a)[3][2], const std::int8_t* const (&x)[3], const std::int32_t* w,
                                          uint32x4_t first, uint32x4_t second) noexcept {
    for (int b = 0; b < Blocks; ++b, w += 4 * Out) {
        const int8x16_t wa = vreinterpretq_s8_s32(vldrwq_gather_offset_s32(w, first));
        const int8x16_t wb = vreinterpretq_s8_s32(vldrwq_gather_offset_s32(w, second));
        for (int r = 0; r < Rows; ++r) {
            const int8x16_t t = vldrbq_s8(x[r] + 16 * b);
            a[r][0] = vmladavaq_s8(a[r][0], t, wa), a[r][1] = vmladavaq_s8(a[r][1], t, wb);
        }
    }
}

// a16w8: Rows (1..3) rows' sums a[r][0..1] of outputs o, o + 1 over Steps steps of 8 int16
// inputs: the weights' bytes gathered (widened to int16) at offsets first and second from w,
// w moving 8 Out bytes a step.
template <int Rows, int Steps, int Out>
STATICFORMER_ALWAYS_INLINE void pair_tile_a16w8(std::int32_t (&a)[3][2], const std::int16_t* const (&x)[3],
                                                const std::int8_t* w, uint16x8_t first, uint16x8_t second) noexcept {
    for (int s = 0; s < Steps; ++s, w += 8 * Out) {
        const int16x8_t wa = vldrbq_gather_offset_s16(w, first), wb = vldrbq_gather_offset_s16(w, second);
        for (int r = 0; r < Rows; ++r) {
            const int16x8_t t = vldrhq_s16(x[r] + 8 * s);
            a[r][0] = vmladavaq_s16(a[r][0], t, wa), a[r][1] = vmladavaq_s16(a[r][1], t, wb);
        }
    }
}

// a16w8, rows of In = 8 Steps inputs: four rows' sums a[r][0..1] of outputs o, o + 1, the rows
// at x, x + In, x + 2 In, x + 3 In.
template <int Steps, int Out>
STATICFORMER_ALWAYS_INLINE void quad_tile_a16w8(std::int32_t (&a)[4][2], const std::int16_t* x, const std::int8_t* w,
                                                uint16x8_t first, uint16x8_t second) noexcept {
    for (int s = 0; s < Steps; ++s, w += 8 * Out) {
        const int16x8_t wa = vldrbq_gather_offset_s16(w, first), wb = vldrbq_gather_offset_s16(w, second);
        for (int r = 0; r < 4; ++r) {
            const int16x8_t t = vldrhq_s16(x + r * 8 * Steps + 8 * s);
            a[r][0] = vmladavaq_s16(a[r][0], t, wa), a[r][1] = vmladavaq_s16(a[r][1], t, wb);
        }
    }
}

}  // namespace twin

// acc += one row's Blocks x 16 inputs times w[0 .. Blocks-1] (VLDRB, VMLADAVA per block), and
// x moves to the next row: the first block is loaded last, with post-increment (GCC copies the
// row pointer and adds to both apart: 18 instructions a row of 64 inputs, against these 15).
template <int Blocks>
STATICFORMER_ALWAYS_INLINE void row_blocks(std::int32_t& acc, const std::int8_t*& x, const int8x16_t* w) noexcept {
    static_assert(Blocks >= 1 && Blocks <= 5 && 16 * Blocks <= 127, "VLDRB's post-increment reaches 127");
    if constexpr (!assembly) return twin::row_blocks<Blocks>(acc, x, w);
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
    if constexpr (!assembly) {
        *y = v, y += Step;
        return;
    }
    __asm__("strb %3, [%0], %2" : "+r"(y), "=m"(*y) : "i"(Step), "r"(v));
}

// Rows (1..3) rows x outputs o and o + 1 (In % 16 == 0): per block of 16 inputs two gathers, a
// VLDRB per row and a VMLADAVA per row and output, 13 instructions per 96 multiply-adds in a
// low-overhead loop. Its 6 sums, 3 row pointers and the loop all stay in registers (GCC's own
// code for the twin spilled them: 0.26 instructions per multiply-add at 256 inputs).
template <int Rows, int Blocks, int Out>
STATICFORMER_ALWAYS_INLINE void pair_tile(std::int32_t (&a)[3][2], const std::int8_t* const (&x)[3], const std::int32_t* w,
                                          uint32x4_t first, uint32x4_t second) noexcept {
    static_assert(Rows >= 1 && Rows <= 3 && Out <= 255, "up to three rows, ADDW's step");
    if constexpr (!assembly) return twin::pair_tile<Rows, Blocks, Out>(a, x, w, first, second);
    const std::int8_t *x0 = x[0], *x1 = x[1], *x2 = x[2];
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
            : [t] "=&w"(t), [wa] "=&w"(wa), [wb] "=&w"(wb), [a00] "+Te"(a[0][0]), [a01] "+Te"(a[0][1]),
              [a10] "+Te"(a[1][0]), [a11] "+Te"(a[1][1]), [a20] "+Te"(a[2][0]),
              [a21] "+Te"(a[2][1]),  // Te: even registers, as VMLADAVA needs
              [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [w] "+r"(w)
            : [blocks] "n"(Blocks), [step] "n"(16 * Out), [first] "w"(first), [second] "w"(second), [rows] "i"(Rows)
            : "lr", "memory");  // (memory: "m" operands for the weights and rows would each take a
                                // base register, which -O1 and a frame pointer do not leave)
}


inline constexpr int pair_tile_a16w8_max_out = 511;  // ADDW's step: 8 Out <= 4095

// a16w8's pair_tile: per eight inputs two widening byte gathers, a VLDRH per row and a
// VMLADAVA.S16 per row and output, 13 instructions per 48 multiply-adds (the tiny encoder's
// 256 -> 64 layer in its 4-row calls: 0.385 instructions per multiply-add, GCC's code for the
// twin 0.464).
template <int Rows, int Steps, int Out>
STATICFORMER_ALWAYS_INLINE void pair_tile_a16w8(std::int32_t (&a)[3][2], const std::int16_t* const (&x)[3],
                                                const std::int8_t* w, uint16x8_t first, uint16x8_t second) noexcept {
    static_assert(Rows >= 1 && Rows <= 3 && Out <= pair_tile_a16w8_max_out, "up to three rows, ADDW's step");
    if constexpr (!assembly) return twin::pair_tile_a16w8<Rows, Steps, Out>(a, x, w, first, second);
    const std::int16_t *x0 = x[0], *x1 = x[1], *x2 = x[2];
    int16x8_t t, wa, wb;
    __asm__("mov lr, #%c[steps]\n\tdls lr, lr\n"
            "1:\n\t"
            "vldrb.s16 %q[wa], [%[w], %q[first]]\n\t"
            "vldrb.s16 %q[wb], [%[w], %q[second]]\n\t"
            "add %[w], %[w], #%c[step]\n\t"
            "vldrh.s16 %q[t], [%[x0]], #16\n\t"
            "vmladava.s16 %[a00], %q[t], %q[wa]\n\t"
            "vmladava.s16 %[a01], %q[t], %q[wb]\n\t"
            ".if %c[rows] > 1\n\t"
            "vldrh.s16 %q[t], [%[x1]], #16\n\t"
            "vmladava.s16 %[a10], %q[t], %q[wa]\n\t"
            "vmladava.s16 %[a11], %q[t], %q[wb]\n\t"
            ".endif\n\t"
            ".if %c[rows] > 2\n\t"
            "vldrh.s16 %q[t], [%[x2]], #16\n\t"
            "vmladava.s16 %[a20], %q[t], %q[wa]\n\t"
            "vmladava.s16 %[a21], %q[t], %q[wb]\n\t"
            ".endif\n\t"
            "le lr, 1b"
            : [t] "=&w"(t), [wa] "=&w"(wa), [wb] "=&w"(wb), [a00] "+Te"(a[0][0]), [a01] "+Te"(a[0][1]),
              [a10] "+Te"(a[1][0]), [a11] "+Te"(a[1][1]), [a20] "+Te"(a[2][0]),
              [a21] "+Te"(a[2][1]),  // Te: even registers, as VMLADAVA needs
              [x0] "+r"(x0), [x1] "+r"(x1), [x2] "+r"(x2), [w] "+r"(w)
            : [steps] "n"(Steps), [step] "n"(8 * Out), [first] "w"(first), [second] "w"(second), [rows] "i"(Rows)
            : "lr", "memory");  // (memory: as pair_tile's)
}

inline constexpr int quad_tile_a16w8_max_in = 80;  // VLDRH's reach: 3 In bytes <= 254

// a16w8's quad_tile: four rows x two outputs, eight sums in the even registers (lr among them),
// so the loop counts with SUBS / BNE, and one pointer at the rows' middle reaches all four
// (-3 In .. 3 In bytes: -O0 has no register for a second). Per eight inputs two gathers, four
// VLDRH and eight VMLADAVA.S16: 18 instructions per 64 multiply-adds (64 -> 192 in 4-row calls:
// 0.399 instructions per multiply-add; GCC's code for the twin spills the sums, 0.784).
template <int Steps, int Out>
STATICFORMER_ALWAYS_INLINE void quad_tile_a16w8(std::int32_t (&a)[4][2], const std::int16_t* x, const std::int8_t* w,
                                                uint16x8_t first, uint16x8_t second) noexcept {
    static_assert(8 * Steps <= quad_tile_a16w8_max_in && Out <= pair_tile_a16w8_max_out, "VLDRH's reach, ADDW's step");
    if constexpr (!assembly) return twin::quad_tile_a16w8<Steps, Out>(a, x, w, first, second);
    // Local copies: at -O0 each reference's address would hold a register across the block.
    std::int32_t a00 = a[0][0], a01 = a[0][1], a10 = a[1][0], a11 = a[1][1], a20 = a[2][0], a21 = a[2][1],
                 a30 = a[3][0], a31 = a[3][1];
    const std::int16_t* middle = x + 12 * Steps;  // rows 0..3 at -3 In, -In, In, 3 In bytes
    int count = Steps;  // (q0 - q3 by name: four operands more would pass asm's limit of 30)
    __asm__("1:\n\t"
            "vldrb.s16 q2, [%[w], %q[first]]\n\t"
            "vldrb.s16 q3, [%[w], %q[second]]\n\t"
            "add %[w], %[w], #%c[step]\n\t"
            "vldrh.s16 q0, [%[x], #-%c[far]]\n\t"
            "vldrh.s16 q1, [%[x], #-%c[near]]\n\t"
            "vmladava.s16 %[a00], q0, q2\n\t"
            "vmladava.s16 %[a01], q0, q3\n\t"
            "vldrh.s16 q0, [%[x], #%c[near]]\n\t"
            "vmladava.s16 %[a10], q1, q2\n\t"
            "vmladava.s16 %[a11], q1, q3\n\t"
            "vldrh.s16 q1, [%[x], #%c[far]]\n\t"
            "vmladava.s16 %[a20], q0, q2\n\t"
            "vmladava.s16 %[a21], q0, q3\n\t"
            "add %[x], %[x], #16\n\t"
            "vmladava.s16 %[a30], q1, q2\n\t"
            "vmladava.s16 %[a31], q1, q3\n\t"
            "subs %[count], %[count], #1\n\t"
            "bne 1b"
            : [a00] "+Te"(a00), [a01] "+Te"(a01), [a10] "+Te"(a10), [a11] "+Te"(a11), [a20] "+Te"(a20),
              [a21] "+Te"(a21), [a30] "+Te"(a30), [a31] "+Te"(a31),  // Te: even registers
              [x] "+r"(middle), [w] "+r"(w), [count] "+r"(count)
            : [step] "n"(8 * Out), [near] "n"(8 * Steps), [far] "n"(24 * Steps), [first] "w"(first),
              [second] "w"(second)
            : "q0", "q1", "q2", "q3", "cc", "memory");  // (memory: as pair_tile's)
    a[0][0] = a00, a[0][1] = a01, a[1][0] = a10, a[1][1] = a11, a[2][0] = a20, a[2][1] = a21, a[3][0] = a30, a[3][1] = a31;
}

}  // namespace arm_mve
}  // namespace kernels
}  // namespace staticformer
