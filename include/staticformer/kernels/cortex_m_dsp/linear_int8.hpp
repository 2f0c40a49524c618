// staticformer: int8 y = x W + b with the Arm DSP extension (optimised; bit-identical to
// reference/linear_int8.hpp). The weights' layout w[i / 4][o][i % 4] puts an output's four
// weights of a group of four inputs in one word: one load, SXTB16 into two int16 pairs, two
// SMLAD. A tile of 4 rows x 1 output (In <= 128) or 2 rows x 2 outputs uses each unpacked weight
// word for several rows and each input pair for the tile's outputs, in at most 12 registers
// (more spill, or do not exist beside a frame pointer). The rows' inputs are unpacked into int16
// pairs once per tile of rows, on the stack (at most 1 KiB: In <= 256), else word by word in
// each tile. Integer sums are exact, so this order gives the reference's accumulator; the
// requantisation is math::requantize's, by SMMLAR and SSAT for the usual shifts.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../math/fixed_point.hpp"
#include "../../weights_int8.hpp"
#include "../isa/arm_dsp.hpp"
#include "activation_int8.hpp"
#if defined(__ARM_FEATURE_MVE)
#include "linear_int8_mve.hpp"
#endif

namespace staticformer {
namespace kernels {
namespace cortex_m_dsp {

// The requantisations, each with the form of an output's multiplier it takes (multiplier()).
// On the M4 / M7, for 17 <= shift <= 32 (the layers the quantiser makes in practice): SMMLAR of
// acc with m 2^(32 - shift) (< 2^31: m < 2^15) and the zero point, then SSAT. (acc m 2^(32 -
// shift) + 2^31) >> 32 is (acc m + 2^(shift - 1)) >> shift, the rounding requantize makes.
struct high_multiplier {
    std::int32_t up, zero_point;
    static constexpr bool applies(std::int32_t shift) noexcept { return shift >= 17 && shift <= 32; }
    STATICFORMER_ALWAYS_INLINE std::int32_t multiplier(std::int32_t m) const noexcept { return m << up; }
    STATICFORMER_ALWAYS_INLINE std::int8_t operator()(std::int32_t acc, std::int32_t m) const noexcept {
        std::int32_t v;
        __asm__("smmlar %0, %1, %2, %3" : "=r"(v) : "r"(acc), "r"(m), "r"(zero_point));
        return std::int8_t(__ssat(v, 8));
    }
};
// The same, then the activation's table (feed-forward layers: linear_activate): one LDRB more an
// output instead of a pass of its own over the hidden values.
struct high_multiplier_activated : high_multiplier {
    const std::int8_t* table;  // the table's entry for 0 (table + 128)
    STATICFORMER_ALWAYS_INLINE std::int8_t operator()(std::int32_t acc, std::int32_t m) const noexcept {
        return table[high_multiplier::operator()(acc, m)];
    }
};
// With Helium, for 17 <= shift <= 47: SMLAWB, a shift and SSAT (math::int16_multiplier_requantizer).
struct int16_multiplier {
    math::int16_multiplier_requantizer q;
    STATICFORMER_ALWAYS_INLINE std::int32_t multiplier(std::int32_t m) const noexcept { return m; }
    STATICFORMER_ALWAYS_INLINE std::int8_t operator()(std::int32_t acc, std::int32_t m) const noexcept {
        return std::int8_t(__ssat(q.unsaturated(__smlawb(acc, m, q.round)), 8));
    }
};
// Other shifts: math::requantize in one-output tiles (less code for a rare case).
struct any_shift {
    std::int32_t shift, zero_point;
    std::int32_t multiplier(std::int32_t m) const noexcept { return m; }
    std::int8_t operator()(std::int32_t acc, std::int32_t m) const noexcept {
        return math::requantize(acc, m, shift, zero_point);
    }
};

// The inputs of a tile's rows as int16 pairs: (x0, x2), (x1, x3) of group g, the rows of a group
// side by side so that the assembly tile reads them with one pointer and post-increments.
template <int In, int Rows>
struct unpacked_rows {  // read from a buffer filled once per tile of rows
    static constexpr int words = In / 4 * 2 * Rows;
    const std::int32_t* pairs;
    STATICFORMER_ALWAYS_INLINE void group(int r, int g, std::int32_t& even, std::int32_t& odd) const noexcept {
        std::uint64_t both;  // one LDRD
        std::memcpy(&both, pairs + 2 * (g * Rows + r), sizeof both);
        even = std::int32_t(std::uint32_t(both)), odd = std::int32_t(std::uint32_t(both >> 32));
    }
};
template <int In>
struct packed_rows {  // unpacked word by word
    const std::int8_t* x;
    STATICFORMER_ALWAYS_INLINE void group(int r, int g, std::int32_t& even, std::int32_t& odd) const noexcept {
        const std::int32_t w = arm_dsp::load32(x + r * In + 4 * g);
        even = arm_dsp::even_pair(w), odd = arm_dsp::odd_pair(w);
    }
};

#if defined(__OPTIMIZE__)
// A tile of Rows x Cols outputs (4 x 1, 2 x 2 and the smaller) over groups of four
// inputs, in inline assembly: per group a LDR (both outputs' words in one LDRD where the
// offset allows) and two SXTB16 per output's weight word, then per row one LDRD of its unpacked
// pairs (post-incremented) and two SMLAD per output (15 instructions per 16 multiply-adds in
// both 4 x 1 and 2 x 2). Unroll groups a pass with the weights' offsets immediate (past four, an
// ADD of the weights' pointer in the middle), Passes passes. At most 12 registers: beside a
// frame pointer (-fno-omit-frame-pointer; clang) 13 remain, and GCC's own code spills a tile
// this size. Not at -O0 (the intrinsics' loop there).
#define STATICFORMER_DSP_WEIGHT(we, wo, offset)                     \
    "ldr %[" wo "], [%[w], #%c[group] * (\\g & 3) + " offset "]\n\t" \
    "sxtb16 %[" we "], %[" wo "]\n\t"                               \
    "sxtb16 %[" wo "], %[" wo "], ror #8\n\t"
#define STATICFORMER_DSP_ROW1(a0)                                   \
    "ldrd %[xe], %[xo], [%[pairs]], #8\n\t"                         \
    "smlad %[" a0 "], %[xe], %[we0], %[" a0 "]\n\t"                 \
    "smlad %[" a0 "], %[xo], %[wo0], %[" a0 "]\n\t"
#define STATICFORMER_DSP_ROW2(a0, a1)                               \
    STATICFORMER_DSP_ROW1(a0)                                       \
    "smlad %[" a1 "], %[xe], %[we1], %[" a1 "]\n\t"                 \
    "smlad %[" a1 "], %[xo], %[wo1], %[" a1 "]\n\t"
// The loop's bound in a register (Cols 1) or, where the registers are taken, in memory.
#define STATICFORMER_DSP_TILE(weights, rows, compare)               \
    ".if %c[passes] > 1\n1:\n.endif\n\t"                            \
    ".irp g, 0, 1, 2, 3, 4, 5, 6, 7\n\t"                            \
    ".if \\g == 4 && %c[unroll] > 4\n\t"                            \
    "add %[w], %[w], #%c[group] * 4\n\t"                            \
    ".endif\n\t"                                                    \
    ".if \\g < %c[unroll]\n\t" weights rows                         \
    ".endif\n\t"                                                    \
    ".endr\n\t"                                                     \
    "add %[w], %[w], #%c[group] * %c[last]\n\t"                     \
    ".if %c[passes] > 1\n\t" compare                                \
    "bne 1b\n\t"                                                    \
    ".endif"
#define STATICFORMER_DSP_IN_MEMORY "ldr %[xe], %[end]\n\tcmp %[pairs], %[xe]\n\t"
#define STATICFORMER_DSP_IN_REGISTER "cmp %[pairs], %[end]\n\t"
#define STATICFORMER_DSP_TEMPS                                                                        \
    [pairs] "+r"(pairs), [w] "+r"(w), [xe] "=&r"(xe), [xo] "=&r"(xo), [we0] "=&r"(we0), [wo0] "=&r"(wo0)
#define STATICFORMER_DSP_CONSTANTS                                                  \
    [unroll] "n"(Unroll), [passes] "n"(Passes), [group] "n"(Group), [span] "n"(span), \
        [last] "n"(Unroll > 4 ? Unroll - 4 : Unroll)
#define STATICFORMER_DSP_ONE STATICFORMER_DSP_WEIGHT("we0", "wo0", "0")
#define STATICFORMER_DSP_TWO                                        \
    ".if %c[group] * (%c[span] - 1) <= 1020\n\t"                    \
    "ldrd %[wo0], %[wo1], [%[w], #%c[group] * (\\g & 3)]\n\t"      \
    ".else\n\t"                                                     \
    "ldr %[wo0], [%[w], #%c[group] * (\\g & 3)]\n\t"               \
    "ldr %[wo1], [%[w], #%c[group] * (\\g & 3) + 4]\n\t"           \
    ".endif\n\t"                                                    \
    "sxtb16 %[we0], %[wo0]\n\t"                                     \
    "sxtb16 %[wo0], %[wo0], ror #8\n\t"                             \
    "sxtb16 %[we1], %[wo1]\n\t"                                     \
    "sxtb16 %[wo1], %[wo1], ror #8\n\t"

template <int Rows, int Cols, int Group, int Unroll, int Passes>
STATICFORMER_ALWAYS_INLINE void tile_groups(std::int32_t (&acc)[Rows][Cols], const std::int32_t*& pairs,
                                            const std::int8_t*& w) noexcept {
    static_assert((Rows == 4 && Cols == 1) || (Rows <= 2 && Cols <= 2), "4 x 1, 2 x 2 or smaller: 12 registers");
    static_assert((Unroll >= 1 && Unroll <= 4) || Unroll == 8, "groups a pass");
    constexpr int span = Unroll < 4 ? Unroll : 4;  // groups between ADDs of the weights' pointer
    static_assert(Passes >= 1 && Group * (span - 1) + 4 <= 4095, "LDR offsets");
    const std::int32_t* const end = pairs + 2 * Rows * Unroll * Passes;
    std::int32_t xe, xo, we0, wo0, we1, wo1;
    if constexpr (Cols == 2 && Rows == 2)
        __asm__(STATICFORMER_DSP_TILE(STATICFORMER_DSP_TWO,
                                      STATICFORMER_DSP_ROW2("a00", "a01") STATICFORMER_DSP_ROW2("a10", "a11"),
                                      STATICFORMER_DSP_IN_MEMORY)
                : [a00] "+r"(acc[0][0]), [a01] "+r"(acc[0][1]), [a10] "+r"(acc[1][0]), [a11] "+r"(acc[1][1]),
                  [we1] "=&r"(we1), [wo1] "=&r"(wo1), STATICFORMER_DSP_TEMPS
                : [end] "m"(end), STATICFORMER_DSP_CONSTANTS
                : "cc", "memory");
    else if constexpr (Cols == 2)
        __asm__(STATICFORMER_DSP_TILE(STATICFORMER_DSP_TWO, STATICFORMER_DSP_ROW2("a00", "a01"),
                                      STATICFORMER_DSP_IN_MEMORY)
                : [a00] "+r"(acc[0][0]), [a01] "+r"(acc[0][1]), [we1] "=&r"(we1), [wo1] "=&r"(wo1),
                  STATICFORMER_DSP_TEMPS
                : [end] "m"(end), STATICFORMER_DSP_CONSTANTS
                : "cc", "memory");
    else if constexpr (Rows == 4)
        __asm__(STATICFORMER_DSP_TILE(STATICFORMER_DSP_ONE,
                                      STATICFORMER_DSP_ROW1("a0") STATICFORMER_DSP_ROW1("a1") STATICFORMER_DSP_ROW1("a2")
                                          STATICFORMER_DSP_ROW1("a3"),
                                      STATICFORMER_DSP_IN_REGISTER)
                : [a0] "+r"(acc[0][0]), [a1] "+r"(acc[1][0]), [a2] "+r"(acc[2][0]), [a3] "+r"(acc[3][0]),
                  STATICFORMER_DSP_TEMPS
                : [end] "r"(end), STATICFORMER_DSP_CONSTANTS
                : "cc", "memory");
    else if constexpr (Rows == 2)
        __asm__(STATICFORMER_DSP_TILE(STATICFORMER_DSP_ONE, STATICFORMER_DSP_ROW1("a0") STATICFORMER_DSP_ROW1("a1"),
                                      STATICFORMER_DSP_IN_REGISTER)
                : [a0] "+r"(acc[0][0]), [a1] "+r"(acc[1][0]), STATICFORMER_DSP_TEMPS
                : [end] "r"(end), STATICFORMER_DSP_CONSTANTS
                : "cc", "memory");
    else
        __asm__(STATICFORMER_DSP_TILE(STATICFORMER_DSP_ONE, STATICFORMER_DSP_ROW1("a0"), STATICFORMER_DSP_IN_REGISTER)
                : [a0] "+r"(acc[0][0]), STATICFORMER_DSP_TEMPS
                : [end] "r"(end), STATICFORMER_DSP_CONSTANTS
                : "cc", "memory");
    (void)we1, (void)wo1;
}
#undef STATICFORMER_DSP_WEIGHT
#undef STATICFORMER_DSP_ROW1
#undef STATICFORMER_DSP_ROW2
#undef STATICFORMER_DSP_TILE
#undef STATICFORMER_DSP_TEMPS
#undef STATICFORMER_DSP_CONSTANTS
#undef STATICFORMER_DSP_IN_MEMORY
#undef STATICFORMER_DSP_IN_REGISTER
#undef STATICFORMER_DSP_ONE
#undef STATICFORMER_DSP_TWO

// The 4 x 1 tile with every group unrolled (In <= 128): per group a LDR and two SXTB16 of the
// weight word, two LDM of two rows' pairs each and eight SMLAD (13 instructions per 16
// multiply-adds, no loop). The weights' offsets stay immediate (an ADD when they pass 4095). The
// pairs sit in r8, r10 - r12, as LDM fills its registers in number order (in r0 - r3, the
// arguments' registers, GCC 12 at -Og found no allocation; r9 may be a platform register).
// 12 registers.
template <int Groups, int Group>
STATICFORMER_ALWAYS_INLINE void tile_4x1_unrolled(std::int32_t (&acc)[4][1], const std::int32_t* pairs,
                                                  const std::int8_t* w) noexcept {
    static_assert(Groups >= 1 && Groups <= 32 && Group >= 4 && Group <= 4095, "LDR offsets; code size");
    register std::int32_t x0 __asm__("r8"), x1 __asm__("r10"), x2 __asm__("r11"), x3 __asm__("r12");
    std::int32_t we, wo;
#define STATICFORMER_DSP_ROWS(a, b)                                  \
    "ldm %[pairs]!, {%[x0], %[x1], %[x2], %[x3]}\n\t"                \
    "smlad %[" a "], %[x0], %[we], %[" a "]\n\t"                     \
    "smlad %[" a "], %[x1], %[wo], %[" a "]\n\t"                     \
    "smlad %[" b "], %[x2], %[we], %[" b "]\n\t"                     \
    "smlad %[" b "], %[x3], %[wo], %[" b "]\n\t"
    __asm__(".set .Lsf_offset, 0\n\t"
            ".rept %c[groups]\n\t"
            ".if .Lsf_offset > 4095\n\t"
            "add %[w], %[w], #.Lsf_offset - %c[group]\n\t"
            ".set .Lsf_offset, %c[group]\n\t"
            ".endif\n\t"
            "ldr %[wo], [%[w], #.Lsf_offset]\n\t"
            "sxtb16 %[we], %[wo]\n\t"
            "sxtb16 %[wo], %[wo], ror #8\n\t"
            STATICFORMER_DSP_ROWS("a0", "a1") STATICFORMER_DSP_ROWS("a2", "a3")
            ".set .Lsf_offset, .Lsf_offset + %c[group]\n\t"
            ".endr"
            : [a0] "+r"(acc[0][0]), [a1] "+r"(acc[1][0]), [a2] "+r"(acc[2][0]), [a3] "+r"(acc[3][0]),
              [pairs] "+r"(pairs), [w] "+r"(w), [we] "=&r"(we), [wo] "=&r"(wo), [x0] "=&r"(x0), [x1] "=&r"(x1),
              [x2] "=&r"(x2), [x3] "=&r"(x3)
            : [groups] "n"(Groups), [group] "n"(Group)
            : "memory");
#undef STATICFORMER_DSP_ROWS
}

// Groups a pass of the assembly tile: most (8 or 4), 4, 2 or 1, as the LDR offsets and the
// pointer's ADD allow.
constexpr bool thumb_add_immediate(long v) noexcept {  // ADDW's 12 bits, or 8 bits shifted
    if (v <= 4095) return true;
    while (v % 2 == 0) v /= 2;
    return v < 256;
}
constexpr int tile_unroll(int group, int most = 4) noexcept {
    for (int u = most; u > 1; u /= 2)
        if (group * ((u < 4 ? u : 4) - 1) + 4 <= 4095 && thumb_add_immediate(long(group) * (u < 4 ? u : 4))) return u;
    return group + 4 <= 4095 && thumb_add_immediate(group) ? 1 : 0;
}
#endif

// The last In % 4 inputs (w: their group) and the requantisation of a tile.
template <int In, int Out, int Rows, int Cols, class Requant>
STATICFORMER_ALWAYS_INLINE void finish_tile(std::int32_t (&acc)[Rows][Cols], const std::int8_t* x, const std::int8_t* w,
                                            const linear_int8<In, Out>& p, int o, Requant requant,
                                            std::int8_t* y) noexcept {
    for (int i = In / 4 * 4; i < In; ++i)
#pragma GCC unroll 4
        for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 4
            for (int c = 0; c < Cols; ++c) acc[r][c] += x[r * In + i] * w[4 * c + i % 4];
    // The multipliers in locals: a store to y (int8) may alias them, and GCC would load them again
    // for every row.
    std::int32_t m[Cols];
#pragma GCC unroll 4
    for (int c = 0; c < Cols; ++c) m[c] = requant.multiplier(p.multiplier[o + c]);
#pragma GCC unroll 4
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 4
        for (int c = 0; c < Cols; ++c) y[r * Out + o + c] = requant(acc[r][c], m[c]);
}

// Rows x Cols (Rows 1, 2 or 4, Cols 1 or 2) outputs from o; x holds Rows rows of In inputs. The last In % 4
// inputs one by one (the next row's values follow a row: no word may be read across).
template <int In, int Out, int Rows, int Cols, class Inputs, class Requant>
STATICFORMER_ALWAYS_INLINE void linear_tile(Inputs in, const std::int8_t* x, const linear_int8<In, Out>& p, int o,
                                         Requant requant, std::int8_t* y) noexcept {
    using namespace arm_dsp;
    constexpr int whole = In / 4;
    std::int32_t acc[Rows][Cols];
#pragma GCC unroll 4
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 4
        for (int c = 0; c < Cols; ++c) acc[r][c] = p.bias[o + c];
    const std::int8_t* w = p.w[0][o];
#if defined(__OPTIMIZE__)
    if constexpr (std::is_same<Inputs, unpacked_rows<In, Rows>>::value) {
        // 2 x 2 tiles of long rows 8 groups a pass: the loop's bound in memory costs 3 a pass.
        constexpr int group = 4 * Out, unroll = tile_unroll(group, Rows == 2 && Cols == 2 && In > 128 ? 8 : 4);
        if constexpr (Rows == 4 && Cols == 1 && whole >= 1 && group <= 4095) {
            tile_4x1_unrolled<whole, group>(acc, in.pairs, w);
            return finish_tile<In, Out, Rows, Cols>(acc, x, w + whole * group, p, o, requant, y);
        } else if constexpr (unroll > 0) {
            const std::int32_t* pairs = in.pairs;
            if constexpr (whole >= unroll) tile_groups<Rows, Cols, group, unroll, whole / unroll>(acc, pairs, w);
            constexpr int rest = whole % unroll;  // below 8: a pass of 4, then the rest
            if constexpr (rest >= 4) tile_groups<Rows, Cols, group, 4, 1>(acc, pairs, w);
            if constexpr (rest % 4 != 0) tile_groups<Rows, Cols, group, rest % 4, 1>(acc, pairs, w);
            return finish_tile<In, Out, Rows, Cols>(acc, x, w, p, o, requant, y);
        }
    }
#endif
#pragma GCC unroll 4
    for (int g = 0; g < whole; ++g, w += 4 * Out) {
        std::int32_t xe[Rows], xo[Rows];
#pragma GCC unroll 4
        for (int r = 0; r < Rows; ++r) in.group(r, g, xe[r], xo[r]);
#pragma GCC unroll 4
        for (int c = 0; c < Cols; ++c) {
            const std::int32_t ww = load32(w + 4 * c), we = even_pair(ww), wo = odd_pair(ww);
#pragma GCC unroll 4
            for (int r = 0; r < Rows; ++r) acc[r][c] = __smlad(xo[r], wo, __smlad(xe[r], we, acc[r][c]));
        }
    }
    finish_tile<In, Out, Rows, Cols>(acc, x, w, p, o, requant, y);
}

// Rows (1, 2 or 4) rows, every output: one output a tile for 4 rows, else pairs of outputs,
// then the odd one. Inline: GCC 12 at -O1 and -Og dropped calls to out-of-line copies of these
// tiles (their outputs stayed unwritten; -fno-ipa-modref with -fno-ipa-pure-const kept them).
template <int In, int Out, int Rows, class Inputs, class Requant>
STATICFORMER_ALWAYS_INLINE void linear_row_tiles(Inputs in, const std::int8_t* x, const linear_int8<In, Out>& p,
                                                 Requant requant, std::int8_t* y) noexcept {
    constexpr int cols = Rows == 4 ? 1 : 2, paired = Out - Out % cols;
    for (int o = 0; o < paired; o += cols) linear_tile<In, Out, Rows, cols>(in, x, p, o, requant, y);
    if constexpr (paired < Out) linear_tile<In, Out, Rows, 1>(in, x, p, paired, requant, y);
}

#if defined(__OPTIMIZE__)
// Group from (four inputs) of rows Row.. of Rows as int16 pairs at to, one STRD a row (GCC's own
// code stores word by word). Volatile: its stores are its result.
template <int In, int Row, int Rows>
STATICFORMER_ALWAYS_INLINE void unpack_group(const std::int8_t* from, std::int32_t*& to) noexcept {
    std::int32_t even, odd;
    __asm__ volatile("ldr %[odd], [%[from], #%c[row]]\n\t"
                     "sxtb16 %[even], %[odd]\n\t"
                     "sxtb16 %[odd], %[odd], ror #8\n\t"
                     "strd %[even], %[odd], [%[to]], #8"
                     : [to] "+r"(to), [even] "=&r"(even), [odd] "=&r"(odd)
                     : [from] "r"(from), [row] "n"(Row * In)
                     : "memory");
    if constexpr (Row + 1 < Rows) unpack_group<In, Row + 1, Rows>(from, to);
}
#endif

// Rows Rows from x: their inputs unpacked into pairs (In <= 256), or read in place.
template <int In, int Out, int Rows, class Requant>
STATICFORMER_ALWAYS_INLINE void linear_rows_of(const std::int8_t* x, std::int32_t* pairs, const linear_int8<In, Out>& p,
                                               Requant requant, std::int8_t* y) noexcept {
    if constexpr (In <= 256) {
        std::int32_t* to = pairs;
        for (const std::int8_t* from = x; from < x + In / 4 * 4; from += 4)
#if defined(__OPTIMIZE__)
            unpack_group<In, 0, Rows>(from, to);
#else
            for (int r = 0; r < Rows; ++r, to += 2) packed_rows<In>{from}.group(r, 0, to[0], to[1]);
#endif
        linear_row_tiles<In, Out, Rows>(unpacked_rows<In, Rows>{pairs}, x, p, requant, y);
    } else {
        linear_row_tiles<In, Out, Rows>(packed_rows<In>{x}, x, p, requant, y);
    }
}

// Rows four at a time when In <= 128, else two at a time (their unpacked inputs take at most
// 1 KiB of stack), then the rest.
template <int In, int Out, class Requant>
inline void linear_rows(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, Requant requant,
                        std::int8_t* y) noexcept {
    constexpr int tall = In <= 128 ? 4 : 2;
    std::int32_t pairs[In <= 256 ? unpacked_rows<In, tall>::words : 1];
    for (int r = 0; r < rows; r += tall) {
        const int n = rows - r < tall ? rows - r : tall;
        const std::int8_t* xr = x + r * In;
        std::int8_t* yr = y + r * Out;
        if constexpr (tall == 4) {
            if (n == 4) {
                linear_rows_of<In, Out, 4>(xr, pairs, p, requant, yr);
                continue;
            }
            if (n >= 2) linear_rows_of<In, Out, 2>(xr, pairs, p, requant, yr);  // three rows: two, then one
            if (n % 2) linear_rows_of<In, Out, 1>(xr + (n - 1) * In, pairs, p, requant, yr + (n - 1) * Out);
        } else {
            if (n == 2) linear_rows_of<In, Out, 2>(xr, pairs, p, requant, yr);
            else linear_rows_of<In, Out, 1>(xr, pairs, p, requant, yr);
        }
    }
}

// Any shift: one output a tile. Inline, as it was inside linear(): out of line, GCC inlined the
// Helium kernel differently into linear() (M55 tiny +4%).
template <int In, int Out>
STATICFORMER_ALWAYS_INLINE void linear_any_shift(const std::int8_t* x, int rows, const linear_int8<In, Out>& p,
                                                 std::int8_t* y) noexcept {
    for (int r = 0; r < rows; ++r)
        for (int o = 0; o < Out; ++o)
            linear_tile<In, Out, 1, 1>(packed_rows<In>{x + r * In}, x + r * In, p, o,
                                       any_shift{p.shift, p.output_zero_point}, y + r * Out);
}

// Rows four or two at a time, one or two outputs at a time, then the remainders.
// With Helium (Cortex-M55), cortex_m_mve's kernel instead (linear_int8_mve.hpp).
template <int In, int Out>
inline void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
#if defined(__ARM_FEATURE_MVE)
    if (math::int16_multiplier_requantizer::applies(p.shift))
        cortex_m_mve::linear(x, rows, p, int16_multiplier{{p.shift, p.output_zero_point}}, y);
#else
    if (high_multiplier::applies(p.shift))
        linear_rows(x, rows, p, high_multiplier{32 - p.shift, p.output_zero_point}, y);
#endif
    else
        linear_any_shift(x, rows, p, y);
}

// y = the activation table's entries for x W + b (a feed-forward layer's first half).
template <int In, int Out>
inline void linear_activate(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, const std::int8_t* table,
                            std::int8_t* y) noexcept {
#if defined(__ARM_FEATURE_MVE)
    linear(x, rows, p, y);
#else
    if (high_multiplier::applies(p.shift))
        return linear_rows(x, rows, p, high_multiplier_activated{{32 - p.shift, p.output_zero_point}, table + 128}, y);
    linear_any_shift(x, rows, p, y);  // not linear(): its tiles would be a second copy of these
#endif
    activate(y, rows * Out, table);
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
