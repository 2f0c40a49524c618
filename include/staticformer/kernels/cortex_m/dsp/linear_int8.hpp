// staticformer: int8 y = x W + b with the Arm DSP extension (optimised; bit-identical to
// reference/linear_int8.hpp). The weights' layout w[i / 4][o][i % 4] puts an output's four
// weights of a group of four inputs in one word: one load, SXTB16 into two int16 pairs, two
// SMLAD. A tile of 4 rows x 1 output (In <= 128) or 2 rows x 2 outputs uses each unpacked weight
// word for several rows and each input pair for the tile's outputs, in at most 12 registers
// (more spill, or do not exist beside a frame pointer). The rows' inputs are unpacked into int16
// pairs once per tile of rows, on the stack (at most 1 KiB: In <= 256), else word by word in
// each tile. Integer sums are exact, so this order gives the reference's accumulator; the
// requantisation is math::requantize's, by SMMLAR and SSAT for the usual shifts. a16w8 (int16
// inputs and outputs) runs the same tiles: its inputs' pairs come from two half-word packs
// instead of SXTB16, its outputs are clamped to their limit.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../../math/fixed_point.hpp"
#include "../../params_a16w8.hpp"
#include "../../params_int8.hpp"
#include "../../isa/arm_dsp.hpp"
#include "activation_int8.hpp"

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
        return std::int8_t(__ssat(arm_dsp::multiply_high_rounded_add(acc, m, zero_point), 8));
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
// Other shifts: math::requantize in one-output tiles (less code for a rare case).
struct any_shift {
    std::int32_t shift, zero_point;
    std::int32_t multiplier(std::int32_t m) const noexcept { return m; }
    std::int8_t operator()(std::int32_t acc, std::int32_t m) const noexcept {
        return math::requantize(acc, m, shift, zero_point);
    }
};
// a16w8's outputs: the same rescale (zero point 0), clamped to +-limit, int16.
struct high_multiplier_a16w8 {
    std::int32_t up, limit;
    STATICFORMER_ALWAYS_INLINE std::int32_t multiplier(std::int32_t m) const noexcept { return m << up; }
    STATICFORMER_ALWAYS_INLINE std::int16_t operator()(std::int32_t acc, std::int32_t m) const noexcept {
        return math::clamp_to(arm_dsp::multiply_high_rounded_add(acc, m, 0), limit);
    }
};
struct any_shift_a16w8 {
    std::int32_t shift, limit;
    std::int32_t multiplier(std::int32_t m) const noexcept { return m; }
    std::int16_t operator()(std::int32_t acc, std::int32_t m) const noexcept {
        return math::clamp_to(math::rescale(acc, m, shift), limit);
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

// a16w8: four int16 inputs (x0, x1), (x2, x3) in two words make the pairs (x0, x2), (x1, x3) by
// two half-word packs (PKHBT, PKHTB), as SXTB16 makes them from four int8.
STATICFORMER_ALWAYS_INLINE void pair_halves(const std::int16_t* x, std::int32_t& even, std::int32_t& odd) noexcept {
    std::uint32_t lo, hi;
    std::memcpy(&lo, x, 4);
    std::memcpy(&hi, x + 2, 4);
    even = std::int32_t((lo & 0xffffu) | (hi << 16)), odd = std::int32_t((lo >> 16) | (hi & 0xffff0000u));
}
template <int In>
struct packed_rows16 {  // a16w8's rows, paired word by word
    const std::int16_t* x;
    STATICFORMER_ALWAYS_INLINE void group(int r, int g, std::int32_t& even, std::int32_t& odd) const noexcept {
        pair_halves(x + r * In + 4 * g, even, odd);
    }
};
template <int In>
packed_rows<In> packed(const std::int8_t* x) noexcept { return {x}; }
template <int In>
packed_rows16<In> packed(const std::int16_t* x) noexcept { return {x}; }

// A group of four inputs of each of Rows rows into the tile's pairs: int8 by SXTB16
// (arm_dsp::unpack_group), int16 by pair_halves.
template <int In, int Rows>
STATICFORMER_ALWAYS_INLINE void unpack_group(const std::int8_t* from, std::int32_t*& to) noexcept {
    arm_dsp::unpack_group<In, Rows>(from, to);
}
template <int In, int Rows>
STATICFORMER_ALWAYS_INLINE void unpack_group(const std::int16_t* from, std::int32_t*& to) noexcept {
    for (int r = 0; r < Rows; ++r, to += 2) pair_halves(from + r * In, to[0], to[1]);
}

// Every whole group of Rows rows into pairs. Out of line for int16
// (STATICFORMER_GUARD_GCC12_MVE_LITERAL_POOL): arm-none-eabi-g++ 12.2 vectorises this loop for
// Helium with a vector constant in a literal pool that, inlined into a large tile function,
// lands beyond VLDR's reach (the assembler's "co-processor offset out of range").
template <int In, int Rows>
STATICFORMER_ALWAYS_INLINE void unpack_rows(const std::int8_t* x, std::int32_t* to) noexcept {
    for (const std::int8_t* from = x; from < x + In / 4 * 4; from += 4) unpack_group<In, Rows>(from, to);
}
template <int In, int Rows>
STATICFORMER_OUT_OF_LINE void unpack_rows(const std::int16_t* x, std::int32_t* to) noexcept {
    for (const std::int16_t* from = x; from < x + In / 4 * 4; from += 4) unpack_group<In, Rows>(from, to);
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

// The last In % 4 inputs (w: their group) and the requantisation of a tile.
template <int In, int Out, int Rows, int Cols, class P, class X, class Requant, class Y>
STATICFORMER_ALWAYS_INLINE void finish_tile(std::int32_t (&acc)[Rows][Cols], const X* x, const std::int8_t* w, const P& p,
                                            int o, Requant requant, Y* y) noexcept {
    for (int i = In / 4 * 4; i < In; ++i)
#pragma GCC unroll 4
        for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 4
            for (int c = 0; c < Cols; ++c) acc[r][c] += x[r * In + i] * w[4 * c + i % 4];
    // The multipliers in locals: a store to y (int8, int16) may alias them, and GCC would load
    // them again for every row.
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
template <int In, int Out, int Rows, int Cols, class Inputs, class P, class X, class Requant, class Y>
STATICFORMER_ALWAYS_INLINE void linear_tile(Inputs in, const X* x, const P& p, int o, Requant requant, Y* y) noexcept {
    using namespace arm_dsp;
    constexpr int whole = In / 4;
    std::int32_t acc[Rows][Cols];
#pragma GCC unroll 4
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 4
        for (int c = 0; c < Cols; ++c) acc[r][c] = p.bias[o + c];
    const std::int8_t* w = p.w[0][o];
    if constexpr (std::is_same<Inputs, unpacked_rows<In, Rows>>::value) {
        // 2 x 2 tiles of long rows 8 groups a pass: the loop's bound in memory costs 3 a pass.
        constexpr int group = 4 * Out, unroll = tile_unroll(group, Rows == 2 && Cols == 2 && In > 128 ? 8 : 4);
        if constexpr (Rows == 4 && Cols == 1 && whole >= 1 && group <= 4095) {
            arm_dsp::tile_4x1_unrolled<whole, group>(acc, in.pairs, w);
            return finish_tile<In, Out, Rows, Cols>(acc, x, w + whole * group, p, o, requant, y);
        } else if constexpr (unroll > 0) {
            const std::int32_t* pairs = in.pairs;
            if constexpr (whole >= unroll) arm_dsp::tile_groups<Rows, Cols, group, unroll, whole / unroll>(acc, pairs, w);
            constexpr int rest = whole % unroll;  // below 8: a pass of 4, then the rest
            if constexpr (rest >= 4) arm_dsp::tile_groups<Rows, Cols, group, 4, 1>(acc, pairs, w);
            if constexpr (rest % 4 != 0) arm_dsp::tile_groups<Rows, Cols, group, rest % 4, 1>(acc, pairs, w);
            return finish_tile<In, Out, Rows, Cols>(acc, x, w, p, o, requant, y);
        }
    }
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

// STATICFORMER_GUARD_GCC12_DROPPED_TILES (arm-none-eabi-g++ 12.2 at -O1 / -Og): a call to an
// out-of-line copy of outputs_of_row_block is dropped, its outputs stay unwritten (-fno-ipa-modref
// with -fno-ipa-pure-const keep it); inline, it runs. tests/compiler_guards/dropped_tiles.cpp
// reproduces it with the guard off (ports/cortex-m checks that it still does).
#if defined(STATICFORMER_GUARD_OFF_GCC12_DROPPED_TILES)
#define STATICFORMER_DSP_ROW_BLOCK STATICFORMER_OUT_OF_LINE
#else
#define STATICFORMER_DSP_ROW_BLOCK STATICFORMER_ALWAYS_INLINE
#endif

// Rows (1, 2 or 4) rows, every output: one output a tile for 4 rows, else pairs of outputs,
// then the odd one.
template <int In, int Out, int Rows, class Inputs, class P, class X, class Requant, class Y>
STATICFORMER_DSP_ROW_BLOCK void outputs_of_row_block(Inputs in, const X* x, const P& p, Requant requant, Y* y) noexcept {
    constexpr int cols = Rows == 4 ? 1 : 2, paired = Out - Out % cols;
    for (int o = 0; o < paired; o += cols) linear_tile<In, Out, Rows, cols>(in, x, p, o, requant, y);
    if constexpr (paired < Out) linear_tile<In, Out, Rows, 1>(in, x, p, paired, requant, y);
}

// Rows Rows from x: their inputs unpacked into pairs (In <= 256), or read in place.
template <int In, int Out, int Rows, class P, class X, class Requant, class Y>
STATICFORMER_ALWAYS_INLINE void row_block(const X* x, std::int32_t* pairs, const P& p, Requant requant, Y* y) noexcept {
    if constexpr (In <= 256) {
        unpack_rows<In, Rows>(x, pairs);
        outputs_of_row_block<In, Out, Rows>(unpacked_rows<In, Rows>{pairs}, x, p, requant, y);
    } else {
        outputs_of_row_block<In, Out, Rows>(packed<In>(x), x, p, requant, y);
    }
}

// Rows four at a time when In <= 128, else two at a time (their unpacked inputs take at most
// 1 KiB of stack), then the rest.
template <int In, int Out, class P, class X, class Requant, class Y>
inline void linear_by_row_blocks(const X* x, int rows, const P& p, Requant requant, Y* y) noexcept {
    constexpr int tall = In <= 128 ? 4 : 2;
    std::int32_t pairs[In <= 256 ? unpacked_rows<In, tall>::words : 1];
    for (int r = 0; r < rows; r += tall) {
        const int n = rows - r < tall ? rows - r : tall;
        const X* xr = x + r * In;
        Y* yr = y + r * Out;
        if constexpr (tall == 4) {
            if (n == 4) {
                row_block<In, Out, 4>(xr, pairs, p, requant, yr);
                continue;
            }
            if (n >= 2) row_block<In, Out, 2>(xr, pairs, p, requant, yr);  // three rows: two, then one
            if (n % 2) row_block<In, Out, 1>(xr + (n - 1) * In, pairs, p, requant, yr + (n - 1) * Out);
        } else {
            if (n == 2) row_block<In, Out, 2>(xr, pairs, p, requant, yr);
            else row_block<In, Out, 1>(xr, pairs, p, requant, yr);
        }
    }
}

// Any shift: one output a tile (less code for a rare case).
template <int In, int Out, class P, class X, class Requant, class Y>
STATICFORMER_ALWAYS_INLINE void linear_any_shift(const X* x, int rows, const P& p, Requant requant, Y* y) noexcept {
    for (int r = 0; r < rows; ++r)
        for (int o = 0; o < Out; ++o) linear_tile<In, Out, 1, 1>(packed<In>(x + r * In), x + r * In, p, o, requant, y + r * Out);
}

// Rows four or two at a time, one or two outputs at a time, then the remainders.
template <int In, int Out>
inline void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
    if (high_multiplier::applies(p.shift))
        return linear_by_row_blocks<In, Out>(x, rows, p, high_multiplier{32 - p.shift, p.output_zero_point}, y);
    linear_any_shift<In, Out>(x, rows, p, any_shift{p.shift, p.output_zero_point}, y);
}

// a16w8: int16 rows through the same tiles (their pairs by pair_halves), int16 outputs.
template <int In, int Out>
inline void linear(const std::int16_t* x, int rows, const linear_a16w8<In, Out>& p, std::int16_t* y) noexcept {
    if (high_multiplier::applies(p.shift))
        return linear_by_row_blocks<In, Out>(x, rows, p, high_multiplier_a16w8{32 - p.shift, p.output_limit}, y);
    linear_any_shift<In, Out>(x, rows, p, any_shift_a16w8{p.shift, p.output_limit}, y);
}

// y = the activation table's entries for x W + b (a feed-forward layer's first half).
template <int In, int Out>
inline void linear_activate(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, const std::int8_t* table,
                            std::int8_t* y) noexcept {
    if (high_multiplier::applies(p.shift)) {
        const high_multiplier_activated requant{{32 - p.shift, p.output_zero_point}, table + 128};
        return linear_by_row_blocks<In, Out>(x, rows, p, requant, y);
    }
    linear_any_shift<In, Out>(x, rows, p, any_shift{p.shift, p.output_zero_point}, y);  // not linear(): a second copy
    activate(y, rows * Out, table);
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
