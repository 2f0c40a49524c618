// staticformer: int8 y = x W + b with the Arm DSP extension (optimised; bit-identical to
// reference/linear_int8.hpp). The weights' layout w[i / 4][o][i % 4] puts an output's four
// weights of a group of four inputs in one word: one load, SXTB16 into two int16 pairs, two
// SMLAD. A tile of 2 rows x 2 outputs uses each unpacked weight word for two rows and each
// input pair for two outputs (the registers of a larger tile would spill). The two rows' inputs
// are unpacked into int16 pairs once per row pair, on the stack (4 * In bytes, for In <= 256),
// else word by word in each tile. Integer sums are exact, so this order gives the reference's
// accumulator; the requantisation is math::requantize's, in three instructions for the usual shifts.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../math/fixed_point.hpp"
#include "../../weights_int8.hpp"
#include "../isa/arm_dsp.hpp"
#if defined(__ARM_FEATURE_MVE)
#include "linear_int8_mve.hpp"
#endif

namespace staticformer {
namespace kernels {
namespace cortex_m_dsp {

// The requantisation: SMLAWB, a shift and SSAT (math::int16_multiplier_requantizer, for
// 17 <= shift <= 47: the layers the quantiser makes in practice); other shifts take
// math::requantize in one-output tiles (less code for a rare case).
struct int16_multiplier {
    math::int16_multiplier_requantizer q;
    STATICFORMER_ALWAYS_INLINE std::int8_t operator()(std::int32_t acc, std::int32_t m) const noexcept {
        return std::int8_t(__ssat(q.unsaturated(__smlawb(acc, m, q.round)), 8));
    }
};
struct any_shift {
    std::int32_t shift, zero_point;
    std::int8_t operator()(std::int32_t acc, std::int32_t m) const noexcept {
        return math::requantize(acc, m, shift, zero_point);
    }
};

// The inputs of a tile's rows as int16 pairs: (x0, x2), (x1, x3) of group g.
template <int In>
struct unpacked_rows {  // read from a buffer filled once per row pair
    static constexpr int words = In / 4 * 2;
    const std::int32_t* pairs;
    STATICFORMER_ALWAYS_INLINE void group(int r, int g, std::int32_t& even, std::int32_t& odd) const noexcept {
        std::uint64_t both;  // one LDRD
        std::memcpy(&both, pairs + r * words + 2 * g, sizeof both);
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
// Groups of four inputs of a 2 x 2 tile in inline assembly (Count <= 4 groups, from pairs and w):
// per group two LDRD of the rows' unpacked pairs, a LDR and two SXTB16 per output's weight
// word, eight SMLAD (16 instructions per 16 multiply-adds). GCC's own code loads the pairs
// word by word and re-dispatches the unrolled loop's remainder: 18+ per group. Not at -O0,
// whose frame pointer leaves too few registers.
template <int Count, int RowBytes, int GroupBytes>
STATICFORMER_ALWAYS_INLINE void tile22_groups(std::int32_t (&acc)[2][2], const std::int32_t* pairs,
                                              const std::int8_t* w) noexcept {
    static_assert(Count >= 1 && Count <= 4 && RowBytes + 8 * Count <= 1020 && GroupBytes * (Count - 1) + 4 <= 4095,
                  "LDRD and LDR immediate offsets");
    std::int32_t xe0, xo0, xe1, xo1, we, wo;
    __asm__(".irp g, 0, 1, 2, 3\n\t"
            ".if \\g < %c[count]\n\t"
            "ldrd %[xe0], %[xo0], [%[pairs], #8 * \\g]\n\t"
            "ldrd %[xe1], %[xo1], [%[pairs], #%c[row] + 8 * \\g]\n\t"
            "ldr %[wo], [%[w], #%c[group] * \\g]\n\t"
            "sxtb16 %[we], %[wo]\n\t"
            "sxtb16 %[wo], %[wo], ror #8\n\t"
            "smlad %[a00], %[xe0], %[we], %[a00]\n\t"
            "smlad %[a00], %[xo0], %[wo], %[a00]\n\t"
            "smlad %[a10], %[xe1], %[we], %[a10]\n\t"
            "smlad %[a10], %[xo1], %[wo], %[a10]\n\t"
            "ldr %[wo], [%[w], #%c[group] * \\g + 4]\n\t"
            "sxtb16 %[we], %[wo]\n\t"
            "sxtb16 %[wo], %[wo], ror #8\n\t"
            "smlad %[a01], %[xe0], %[we], %[a01]\n\t"
            "smlad %[a01], %[xo0], %[wo], %[a01]\n\t"
            "smlad %[a11], %[xe1], %[we], %[a11]\n\t"
            "smlad %[a11], %[xo1], %[wo], %[a11]\n\t"
            ".endif\n\t"
            ".endr"
            : [a00] "+r"(acc[0][0]), [a01] "+r"(acc[0][1]), [a10] "+r"(acc[1][0]), [a11] "+r"(acc[1][1]),
              [xe0] "=&r"(xe0), [xo0] "=&r"(xo0), [xe1] "=&r"(xe1), [xo1] "=&r"(xo1), [we] "=&r"(we), [wo] "=&r"(wo)
            : [pairs] "r"(pairs), [w] "r"(w), [count] "n"(Count), [row] "n"(RowBytes), [group] "n"(GroupBytes),
              "m"(*reinterpret_cast<const std::int32_t(*)[RowBytes / 4 + 2 * Count]>(pairs)),
              "m"(*reinterpret_cast<const std::int8_t(*)[GroupBytes * (Count - 1) + 8]>(w)));
}
#endif

// The last In % 4 inputs (w: their group) and the requantisation of a tile.
template <int In, int Out, int Rows, int Cols, class Requant>
STATICFORMER_ALWAYS_INLINE void finish_tile(std::int32_t (&acc)[Rows][Cols], const std::int8_t* x, const std::int8_t* w,
                                            const linear_int8<In, Out>& p, int o, Requant requant,
                                            std::int8_t* y) noexcept {
    for (int i = In / 4 * 4; i < In; ++i)
#pragma GCC unroll 2
        for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 2
            for (int c = 0; c < Cols; ++c) acc[r][c] += x[r * In + i] * w[4 * c + i % 4];
#pragma GCC unroll 2
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 2
        for (int c = 0; c < Cols; ++c) y[r * Out + o + c] = requant(acc[r][c], p.multiplier[o + c]);
}

// Rows x Cols (each 1 or 2) outputs from o; x holds Rows rows of In inputs. The last In % 4
// inputs one by one (the next row's values follow a row: no word may be read across).
template <int In, int Out, int Rows, int Cols, class Inputs, class Requant>
STATICFORMER_ALWAYS_INLINE void linear_tile(Inputs in, const std::int8_t* x, const linear_int8<In, Out>& p, int o,
                                         Requant requant, std::int8_t* y) noexcept {
    using namespace arm_dsp;
    constexpr int whole = In / 4;
    std::int32_t acc[Rows][Cols];
#pragma GCC unroll 2
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 2
        for (int c = 0; c < Cols; ++c) acc[r][c] = p.bias[o + c];
    const std::int8_t* w = p.w[0][o];
#if defined(__OPTIMIZE__)
    if constexpr (Rows == 2 && Cols == 2 && std::is_same<Inputs, unpacked_rows<In>>::value) {
        constexpr int row = 4 * unpacked_rows<In>::words, group = 4 * Out;
        if constexpr (row + 32 <= 1020 && 3 * group + 4 <= 4095) {
            const std::int32_t* pairs = in.pairs;
            for (int g = 0; g + 4 <= whole; g += 4, pairs += 8, w += 4 * group)
                tile22_groups<4, row, group>(acc, pairs, w);
            if constexpr (whole % 4 != 0) tile22_groups<whole % 4, row, group>(acc, pairs, w), w += whole % 4 * group;
            return finish_tile<In, Out, Rows, Cols>(acc, x, w, p, o, requant, y);
        }
    }
#endif
#pragma GCC unroll 4
    for (int g = 0; g < whole; ++g, w += 4 * Out) {
        std::int32_t xe[Rows], xo[Rows];
#pragma GCC unroll 2
        for (int r = 0; r < Rows; ++r) in.group(r, g, xe[r], xo[r]);
#pragma GCC unroll 2
        for (int c = 0; c < Cols; ++c) {
            const std::int32_t ww = load32(w + 4 * c), we = even_pair(ww), wo = odd_pair(ww);
#pragma GCC unroll 2
            for (int r = 0; r < Rows; ++r) acc[r][c] = __smlad(xo[r], wo, __smlad(xe[r], we, acc[r][c]));
        }
    }
    finish_tile<In, Out, Rows, Cols>(acc, x, w, p, o, requant, y);
}

// Rows (1 or 2) rows, every output: pairs of outputs, then the odd one.
template <int In, int Out, int Rows, class Inputs>
inline void linear_row_tiles(Inputs in, const std::int8_t* x, const linear_int8<In, Out>& p, int16_multiplier requant,
                             std::int8_t* y) noexcept {
    constexpr int paired = Out - Out % 2;
    for (int o = 0; o < paired; o += 2) linear_tile<In, Out, Rows, 2>(in, x, p, o, requant, y);
    if constexpr (paired < Out) linear_tile<In, Out, Rows, 1>(in, x, p, paired, requant, y);
}

// Row pairs (and the odd row), their inputs unpacked once when In <= 256.
template <int In, int Out>
inline void linear_rows(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, int16_multiplier requant,
                        std::int8_t* y) noexcept {
    constexpr bool unpack = In <= 256;
    for (int r = 0; r < rows; r += 2) {
        const std::int8_t* xr = x + r * In;
        const int n = rows - r < 2 ? 1 : 2;
        if constexpr (unpack) {
            std::int32_t pairs[2 * unpacked_rows<In>::words];
            for (int i = 0; i < n; ++i)
                for (int g = 0; g < In / 4; ++g)
                    packed_rows<In>{xr + i * In}.group(0, g, pairs[i * unpacked_rows<In>::words + 2 * g],
                                                       pairs[i * unpacked_rows<In>::words + 2 * g + 1]);
            const unpacked_rows<In> in{pairs};
            if (n == 2) linear_row_tiles<In, Out, 2>(in, xr, p, requant, y + r * Out);
            else linear_row_tiles<In, Out, 1>(in, xr, p, requant, y + r * Out);
        } else {
            const packed_rows<In> in{xr};
            if (n == 2) linear_row_tiles<In, Out, 2>(in, xr, p, requant, y + r * Out);
            else linear_row_tiles<In, Out, 1>(in, xr, p, requant, y + r * Out);
        }
    }
}

// Rows two at a time, outputs two at a time, then the remainders.
// With Helium (Cortex-M55), cortex_m_mve's kernel instead (linear_int8_mve.hpp).
template <int In, int Out>
inline void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
    if (math::int16_multiplier_requantizer::applies(p.shift))
#if defined(__ARM_FEATURE_MVE)
        cortex_m_mve::linear(x, rows, p, int16_multiplier{{p.shift, p.output_zero_point}}, y);
#else
        linear_rows(x, rows, p, int16_multiplier{{p.shift, p.output_zero_point}}, y);
#endif
    else
        for (int r = 0; r < rows; ++r)
            for (int o = 0; o < Out; ++o)
                linear_tile<In, Out, 1, 1>(packed_rows<In>{x + r * In}, x + r * In, p, o,
                                           any_shift{p.shift, p.output_zero_point}, y + r * Out);
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
