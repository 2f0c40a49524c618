// staticformer: Arm DSP extension building blocks (Armv7E-M / Armv8-M Mainline with DSP:
// Cortex-M4, M7, M33, M55) for the Cortex-M int8 kernels (optimised). SXTB16 splits a word of
// four int8 values into two pairs of int16; SMLAD adds both products of two int16 pairs at once.
//
// Every inline-assembly block of the Cortex-M DSP kernels is here, as a named function with its
// C++ twin (namespace twin) beside it: the same results from ACLE intrinsics or plain C++.
// -DSTATICFORMER_NO_ASM selects the twins; make test runs the Cortex-M tests both ways, and at
// -O0 (where the blocks must still find their registers beside a frame pointer). The assembly
// exists where GCC's own code for the twin spills or takes more instructions; each block says
// what it saves.
#pragma once

#include <arm_acle.h>

#include <cstdint>
#include <cstring>

#include "../../config.hpp"
#include "../../math/fixed_point.hpp"

// STATICFORMER_NO_ASM: the twins instead of every block below (and of VCVTB in math/fp16.hpp).
#if defined(STATICFORMER_NO_ASM)
#define STATICFORMER_ARM_ASM 0
#else
#define STATICFORMER_ARM_ASM 1
#endif

namespace staticformer {
namespace kernels {
namespace arm_dsp {

inline constexpr bool assembly = STATICFORMER_ARM_ASM;

STATICFORMER_ALWAYS_INLINE std::int32_t load32(const std::int8_t* p) noexcept {
    std::int32_t word;
    std::memcpy(&word, p, 4);  // one LDR (unaligned access is allowed on these cores)
    return word;
}

// (v0, v2) and (v1, v3) of four int8 values in a word, as int16 pairs.
STATICFORMER_ALWAYS_INLINE std::int32_t even_pair(std::int32_t w) noexcept { return __sxtb16(w); }

// ---- the C++ twins (namespace twin) and the blocks they define -----------------------------------
namespace twin {

STATICFORMER_ALWAYS_INLINE std::int32_t odd_pair(std::int32_t w) noexcept {
    return __sxtb16(std::int32_t(std::uint32_t(w) >> 8 | std::uint32_t(w) << 24));
}
// SMMULR: (a b + 2^31) >> 32. SMMLAR: that plus c 2^32. SMMLA: (a b + c 2^32) >> 32.
STATICFORMER_ALWAYS_INLINE std::int32_t multiply_high_rounded(std::int32_t a, std::int32_t b) noexcept {
    return std::int32_t((std::int64_t(a) * b + (std::int64_t(1) << 31)) >> 32);
}
STATICFORMER_ALWAYS_INLINE std::int32_t multiply_high_rounded_add(std::int32_t a, std::int32_t b, std::int32_t c) noexcept {
    return std::int32_t(((std::int64_t(c) << 32) + std::int64_t(a) * b + (std::int64_t(1) << 31)) >> 32);
}
STATICFORMER_ALWAYS_INLINE std::int32_t multiply_high_add(std::int32_t a, std::int32_t b, std::int32_t c) noexcept {
    return std::int32_t(((std::int64_t(c) << 32) + std::int64_t(a) * b) >> 32);
}

}  // namespace twin

// SXTB16 with its ROR #8 operand (GCC emits a separate ROR for __sxtb16 of a rotation).
STATICFORMER_ALWAYS_INLINE std::int32_t odd_pair(std::int32_t w) noexcept {
    if constexpr (!assembly) return twin::odd_pair(w);
    std::int32_t pair;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(pair) : "r"(w));
    return pair;
}

// SMMULR, SMMLAR, SMMLA (no ACLE intrinsics).
STATICFORMER_ALWAYS_INLINE std::int32_t multiply_high_rounded(std::int32_t a, std::int32_t b) noexcept {
    if constexpr (!assembly) return twin::multiply_high_rounded(a, b);
    std::int32_t high;
    __asm__("smmulr %0, %1, %2" : "=r"(high) : "r"(a), "r"(b));
    return high;
}
STATICFORMER_ALWAYS_INLINE std::int32_t multiply_high_rounded_add(std::int32_t a, std::int32_t b, std::int32_t c) noexcept {
    if constexpr (!assembly) return twin::multiply_high_rounded_add(a, b, c);
    std::int32_t v;
    __asm__("smmlar %0, %1, %2, %3" : "=r"(v) : "r"(a), "r"(b), "r"(c));
    return v;
}
STATICFORMER_ALWAYS_INLINE std::int32_t multiply_high_add(std::int32_t a, std::int32_t b, std::int32_t c) noexcept {
    if constexpr (!assembly) return twin::multiply_high_add(a, b, c);
    std::int32_t v;
    __asm__("smmla %0, %1, %2, %3" : "=r"(v) : "r"(a), "r"(b), "r"(c));
    return v;
}

// An opaque copy of v: GCC may not reason about its value (constant instruction counts).
template <class T>
STATICFORMER_ALWAYS_INLINE T opaque(T v) noexcept {
    if constexpr (assembly) __asm__("" : "+r"(v));
    return v;
}

// The twins of the larger blocks below (with the blocks above, as their tails run beside the assembly).
namespace twin {

// acc[r][c] += the pairs of Groups groups (layout of unpacked_rows: group g's rows side by side,
// two words each) times output c's weight words, Group bytes a group apart; pairs and w move on.
template <int Rows, int Cols, int Group>
STATICFORMER_ALWAYS_INLINE void tile_groups(std::int32_t (&acc)[Rows][Cols], const std::int32_t*& pairs,
                                            const std::int8_t*& w, int groups) noexcept {
    for (int g = 0; g < groups; ++g, pairs += 2 * Rows, w += Group)
        for (int c = 0; c < Cols; ++c) {
            const std::int32_t ww = load32(w + 4 * c), we = even_pair(ww), wo = arm_dsp::odd_pair(ww);
            for (int r = 0; r < Rows; ++r) acc[r][c] = __smlad(pairs[2 * r + 1], wo, __smlad(pairs[2 * r], we, acc[r][c]));
        }
}

// Four bytes from each of Rows rows In apart, as (even, odd) pairs at to; to moves on.
template <int In, int Rows>
STATICFORMER_ALWAYS_INLINE void unpack_group(const std::int8_t* from, std::int32_t*& to) noexcept {
    for (int r = 0; r < Rows; ++r, to += 2) {
        const std::int32_t w = load32(from + r * In);
        to[0] = even_pair(w), to[1] = arm_dsp::odd_pair(w);
    }
}

STATICFORMER_ALWAYS_INLINE std::int32_t row_max(const std::int32_t* s, int n) noexcept {
    std::int32_t max = s[0];
    for (int j = 1; j < n; ++j) max = s[j] > max ? s[j] : max;
    return max;
}

// s[j] = 2^-(u / 2^16) in Q15 (math::exp2_neg_q16_pairs) for u the rescaled distance max - s[j];
// returns the sum. Rescale: (d m + 2^(shift - 1)) >> shift for d < 2^32, 2^23 <= m < 2^31.
template <class Rescale>
STATICFORMER_ALWAYS_INLINE std::int32_t exponentials(std::int32_t* s, int n, std::int32_t max, Rescale rescale) noexcept {
    std::int32_t sum = 0;
    for (int j = 0; j < n; ++j) sum += s[j] = math::exp2_neg_q16_pairs(rescale(std::uint32_t(max - s[j])));
    return sum;
}

// p[j] = min((2 s[j] r + 2^31) >> 32, 2^15 - 1) for 0 <= s[j] <= 2^15, 0 <= r < 2^31.
STATICFORMER_ALWAYS_INLINE void probabilities(const std::int32_t* s, int n, std::int32_t r, std::int16_t* p) noexcept {
    for (int j = 0; j < n; ++j) p[j] = std::int16_t(__usat(arm_dsp::multiply_high_rounded(2 * s[j], r), 15));
}

// s[j] = the query's HeadDim / 4 words (as pairs) against key j's, keys HeadDim bytes apart.
template <int HeadDim>
STATICFORMER_ALWAYS_INLINE void scores(const std::int32_t* query_pairs, const std::int8_t* kt, int n,
                                       std::int32_t* s) noexcept {
    for (int j = 0; j < n; ++j) {
        const std::int8_t* key = kt + j * HeadDim;
        std::int32_t acc = 0;
        for (int g = 0; g < HeadDim / 4; ++g) {
            const std::int32_t w = load32(key + 4 * g);
            acc = __smlad(query_pairs[2 * g + 1], arm_dsp::odd_pair(w), __smlad(query_pairs[2 * g], even_pair(w), acc));
        }
        s[j] = acc;
    }
}

// a[0..3] += each key pair's probabilities (one word, from p) times its block's two words (at w,
// side by side); p moves to end, w two rows of VStride a key pair.
template <int VStride>
STATICFORMER_ALWAYS_INLINE void context_pairs(std::int32_t (&a)[4], const std::int16_t*& p, const std::int8_t*& w,
                                              const std::int16_t* end) noexcept {
    for (; p != end; p += 2, w += 2 * VStride) {
        std::int32_t pp;
        std::memcpy(&pp, p, sizeof pp);
        const std::int32_t x = load32(w), y = load32(w + 4);
        a[0] = __smlad(pp, even_pair(x), a[0]), a[1] = __smlad(pp, arm_dsp::odd_pair(x), a[1]);
        a[2] = __smlad(pp, even_pair(y), a[2]), a[3] = __smlad(pp, arm_dsp::odd_pair(y), a[3]);
    }
}

// x[i] = ssat8((x[i], a[i]) . multipliers + b >> shift) for i < n (a multiple of 4).
STATICFORMER_ALWAYS_INLINE void add_quads(std::int8_t* x, const std::int8_t* a, int n, std::int32_t multipliers,
                                          std::int32_t b, std::int32_t shift) noexcept {
    for (int i = 0; i < n; ++i) {
        const std::int32_t pair = std::int32_t(std::uint32_t(std::uint16_t(x[i])) | std::uint32_t(a[i]) << 16);
        x[i] = std::int8_t(__ssat(__smlad(pair, multipliers, b) >> shift, 8));
    }
}

}  // namespace twin

// ---- the linear layer's tiles ------------------------------------------------------------------

// A tile of Rows x Cols outputs (4 x 1, 2 x 2 and the smaller) over Unroll x Passes groups of
// four inputs: per group a LDR (both outputs' words in one LDRD where the offset allows) and two
// SXTB16 per output's weight word, then per row one LDRD of its unpacked pairs (post-incremented)
// and two SMLAD per output (15 instructions per 16 multiply-adds in both 4 x 1 and 2 x 2).
// Unroll groups a pass with the weights' offsets immediate (past four, an ADD of the weights'
// pointer in the middle). At most 12 registers: beside a frame pointer (-fno-omit-frame-pointer;
// clang) 13 remain, and GCC's own code for the twin spills a tile this size.
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
    if constexpr (!assembly) return twin::tile_groups<Rows, Cols, Group>(acc, pairs, w, Unroll * Passes);
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
// multiply-adds, no loop). The weights' offsets stay immediate (an ADD when they pass 4095).
// The pairs sit in r8, r10 - r12: LDM fills its registers in number order (r0 - r3 hold the
// arguments, and left no allocation at -Og; r9 may be a platform register).
template <int Groups, int Group>
STATICFORMER_ALWAYS_INLINE void tile_4x1_unrolled(std::int32_t (&acc)[4][1], const std::int32_t* pairs,
                                                  const std::int8_t* w) noexcept {
    static_assert(Groups >= 1 && Groups <= 32 && Group >= 4 && Group <= 4095, "LDR offsets; code size");
    if constexpr (!assembly) return twin::tile_groups<4, 1, Group>(acc, pairs, w, Groups);
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

// Four inputs of Rows rows (In apart) as int16 pairs at to, one STRD a row (GCC's own code
// stores word by word). Volatile: its stores are its result.
template <int In, int Rows, int Row = 0>
STATICFORMER_ALWAYS_INLINE void unpack_group(const std::int8_t* from, std::int32_t*& to) noexcept {
    if constexpr (!assembly) return twin::unpack_group<In, Rows>(from, to);
    std::int32_t even, odd;
    __asm__ volatile("ldr %[odd], [%[from], #%c[row]]\n\t"
                     "sxtb16 %[even], %[odd]\n\t"
                     "sxtb16 %[odd], %[odd], ror #8\n\t"
                     "strd %[even], %[odd], [%[to]], #8"
                     : [to] "+r"(to), [even] "=&r"(even), [odd] "=&r"(odd)
                     : [from] "r"(from), [row] "n"(Row * In)
                     : "memory");
    if constexpr (Row + 1 < Rows) unpack_group<In, Rows, Row + 1>(from, to);
}

// ---- softmax -------------------------------------------------------------------------------------

// The largest of s[0..n), n >= 1: two scores a step (one LDRD); an odd n's first is compared with itself.
STATICFORMER_ALWAYS_INLINE std::int32_t row_max(const std::int32_t* s, int n) noexcept {
    if constexpr (!assembly) return twin::row_max(s, n);
    std::int32_t max = s[0];
    if (n < 2) return max;
    const std::int32_t* from = s + n % 2;
    std::int32_t a, b;
    __asm__("1:\n\t"
            "ldrd %[a], %[b], [%[from]], #8\n\t"
            "cmp %[a], %[max]\n\t"
            "it gt\n\t"
            "movgt %[max], %[a]\n\t"
            "cmp %[b], %[max]\n\t"
            "it gt\n\t"
            "movgt %[max], %[b]\n\t"
            "cmp %[from], %[end]\n\t"
            "bne 1b"
            : [max] "+r"(max), [from] "+r"(from), [a] "=&r"(a), [b] "=&r"(b)
            : [end] "r"(s + n)
            : "cc", "memory");
    return max;
}

// dmax = 2^max(0, 21 + shift - k), k = floor(log2 m): from there on the rescaled distance is at
// least 2^21, where every exponential is 0; below it the rescale stays under 2^23.
inline std::uint32_t distance_clamp(std::uint32_t m, std::int32_t shift) noexcept {
    const int e = 21 + shift - (31 - __builtin_clz(m | 1));
    return e >= 31 ? 0x7fffffffu : std::uint32_t(1) << (e > 0 ? e : 0);
}

// The exponentials of a row (n >= 1, 2^23 <= m < 2^31; returns their sum), 24 instructions a
// score. The rescale r = (d m + 2^(shift - 1)) >> shift of the distance d:
//   2 <= shift <= 32 (exponentials_short): d clamped at dmax <= 2^(shift - 2), so d 2^(32 - shift)
//     < 2^31 and SMMULR of it with m is r exactly;
//   33 <= shift <= 62 (exponentials_long): UMULL's high word plus 2^(shift - 33), shifted by
//     shift - 32 (the low word cannot carry into it past the rounding term: r exactly).
// An r of 2^20 or more becomes 17 * 2^16 (math::exp2_neg_q16_pairs' value is 0 there, as the
// reference's); then math::exp2_neg_q16_clamped's steps, SMLATB adding the 128. Every score takes
// the same instructions (firmware timing).
#define STATICFORMER_DSP_EXPONENTIALS(rescale)                                                        \
    __asm__ volatile(/* volatile: the exponentials it stores are results too */                       \
                     "1:\n\t"                                                                         \
                     "ldr %[u], [%[s]]\n\t"                                                           \
                     "sub %[u], %[max], %[u]\n\t" rescale                                            \
                     "cmp %[u], #0x100000\n\t"                                                        \
                     "it hs\n\t"                                                                      \
                     "movhs %[u], #0x110000\n\t"                                                      \
                     "ubfx %[i], %[u], #8, #8\n\t"                                                    \
                     "ldr %[t], [%[table], %[i], lsl #2]\n\t"                                         \
                     "uxtb %[i], %[u]\n\t"                                                            \
                     "smlatb %[i], %[t], %[i], %[c128]\n\t"                                           \
                     "uxth %[t], %[t]\n\t"                                                            \
                     "sub %[t], %[t], %[i], asr #8\n\t"                                               \
                     "lsr %[u], %[u], #16\n\t"                                                        \
                     "lsl %[t], %[t], #1\n\t"                                                         \
                     "asr %[t], %[t], %[u]\n\t"                                                       \
                     "add %[t], %[t], #1\n\t"                                                         \
                     "asr %[t], %[t], #1\n\t"                                                         \
                     "str %[t], [%[s]], #4\n\t"                                                       \
                     "add %[sum], %[sum], %[t]\n\t"                                                   \
                     "cmp %[s], %[end]\n\t"                                                           \
                     "bne 1b"                                                                         \
                     : [s] "+r"(s), [sum] "+r"(sum), [u] "=&r"(u), [i] "=&r"(i), [t] "=&r"(t)         \
                     : [end] "r"(s + n), [max] "r"(max), [m] "r"(m), [table] "r"(math::exp2_pairs.value), \
                       [c128] "r"(128), [a] "r"(a), [b] "r"(b)                                        \
                     : "cc", "memory")
inline std::int32_t exponentials_short(std::int32_t* s, int n, std::int32_t max, std::uint32_t m,
                                       std::int32_t shift) noexcept {
    const std::uint32_t a = distance_clamp(m, shift), b = std::uint32_t(32 - shift);
    if constexpr (!assembly)
        return twin::exponentials(s, n, max, [=](std::uint32_t d) {
            return std::uint32_t(twin::multiply_high_rounded(std::int32_t((d < a ? d : a) << b), std::int32_t(m)));
        });
    std::uint32_t u, i, t;
    std::int32_t sum = 0;
    STATICFORMER_DSP_EXPONENTIALS("cmp %[u], %[a]\n\t"
                                  "it hs\n\t"
                                  "movhs %[u], %[a]\n\t"
                                  "lsl %[u], %[u], %[b]\n\t"
                                  "smmulr %[u], %[u], %[m]\n\t");
    return sum;
}
inline std::int32_t exponentials_long(std::int32_t* s, int n, std::int32_t max, std::uint32_t m,
                                      std::int32_t shift) noexcept {
    const std::uint32_t a = std::uint32_t(1) << (shift - 33), b = std::uint32_t(shift - 32);
    if constexpr (!assembly)
        return twin::exponentials(s, n, max, [=](std::uint32_t d) {
            return (std::uint32_t((std::uint64_t(d) * m) >> 32) + a) >> b;
        });
    std::uint32_t u, i, t;
    std::int32_t sum = 0;
    STATICFORMER_DSP_EXPONENTIALS("umull %[i], %[u], %[u], %[m]\n\t"
                                  "add %[u], %[u], %[a]\n\t"
                                  "lsr %[u], %[u], %[b]\n\t");
    return sum;
}
#undef STATICFORMER_DSP_EXPONENTIALS

// p[j] = min((2 s[j] r + 2^31) >> 32, 2^15 - 1): two a step (one LDRD, one word stored by PKHBT).
STATICFORMER_ALWAYS_INLINE void probabilities(const std::int32_t* s, int n, std::int32_t r, std::int16_t* p) noexcept {
    if constexpr (!assembly) return twin::probabilities(s, n, r, p);
    const int pairs = n / 2 * 2;
    if (pairs > 0) {
        const std::int32_t* from = s;
        std::int16_t* to = p;
        std::int32_t a, b;
        __asm__ volatile(  // volatile: the probabilities it stores are its only result
            "1:\n\t"
            "ldrd %[a], %[b], [%[from]], #8\n\t"
            "lsl %[a], %[a], #1\n\t"
            "lsl %[b], %[b], #1\n\t"
            "smmulr %[a], %[a], %[r]\n\t"
            "smmulr %[b], %[b], %[r]\n\t"
            "usat %[a], #15, %[a]\n\t"
            "usat %[b], #15, %[b]\n\t"
            "pkhbt %[a], %[a], %[b], lsl #16\n\t"
            "str %[a], [%[to]], #4\n\t"
            "cmp %[from], %[end]\n\t"
            "bne 1b"
            : [from] "+r"(from), [to] "+r"(to), [a] "=&r"(a), [b] "=&r"(b)
            : [end] "r"(s + pairs), [r] "r"(r)
            : "cc", "memory");
    }
    twin::probabilities(s + pairs, n - pairs, r, p + pairs);  // an odd n's last
}

// ---- attention -----------------------------------------------------------------------------------

// Scores of n keys (n a multiple of 4, kt the first key's HeadDim bytes), four keys a step: per
// word of the keys one LDRD of the query's unpacked pairs, then per key its word, two SXTB16 and
// two SMLAD (the first word's SMUAD starts the sum): 21 instructions per 16 multiply-adds; GCC's
// own code for the twin spills the query. 12 registers.
template <int HeadDim>
STATICFORMER_ALWAYS_INLINE void score_quads(const std::int32_t* query_pairs, const std::int8_t* kt, int n,
                                            std::int32_t* s) noexcept {
    static_assert(HeadDim % 4 == 0 && 8 * HeadDim / 4 <= 1020 && 3 * HeadDim + HeadDim <= 4095, "offsets");
    if constexpr (!assembly) return twin::scores<HeadDim>(query_pairs, kt, n, s);
    if (n <= 0) return;
    const std::int8_t* const end = kt + n * HeadDim;
    std::int32_t a0, a1, a2, a3, qe, qo, k, t;
#define STATICFORMER_DSP_KEY(a, key)                                         \
    "ldr %[k], [%[kt], #" key " * %c[dim] + 4 * .Lsf_word]\n\t"               \
    "sxtb16 %[t], %[k]\n\t"                                                    \
    "sxtb16 %[k], %[k], ror #8\n\t"                                            \
    ".if .Lsf_word == 0\n\t"                                                   \
    "smuad %[" a "], %[qe], %[t]\n\t"                                          \
    ".else\n\t"                                                                \
    "smlad %[" a "], %[qe], %[t], %[" a "]\n\t"                                \
    ".endif\n\t"                                                               \
    "smlad %[" a "], %[qo], %[k], %[" a "]\n\t"
    __asm__ volatile(  // volatile: the scores it stores are its only result
            "1:\n\t"
            ".set .Lsf_word, 0\n\t"
            ".rept %c[words]\n\t"
            "ldrd %[qe], %[qo], [%[q], #8 * .Lsf_word]\n\t"
            STATICFORMER_DSP_KEY("a0", "0") STATICFORMER_DSP_KEY("a1", "1")
            STATICFORMER_DSP_KEY("a2", "2") STATICFORMER_DSP_KEY("a3", "3")
            ".set .Lsf_word, .Lsf_word + 1\n\t"
            ".endr\n\t"
            "add %[kt], %[kt], #4 * %c[dim]\n\t"
            "strd %[a0], %[a1], [%[s]], #8\n\t"
            "strd %[a2], %[a3], [%[s]], #8\n\t"
            "cmp %[kt], %[end]\n\t"
            "bne 1b"
            : [kt] "+r"(kt), [s] "+r"(s), [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3),
              [qe] "=&r"(qe), [qo] "=&r"(qo), [k] "=&r"(k), [t] "=&r"(t)
            : [q] "r"(query_pairs), [end] "r"(end), [words] "n"(HeadDim / 4), [dim] "n"(HeadDim)
            : "cc", "memory");
#undef STATICFORMER_DSP_KEY
}

// Key pairs from p to end (a multiple of two pairs) over one block of side-by-side words, two
// pairs a step: one LDRD of four probabilities, per key pair one LDRD of the block's words, four
// SXTB16 and four SMLAD (21 instructions per 16 multiply-adds; GCC's own code for the twin spills
// an accumulator and the loop's bound). 12 registers; w moves two rows a key pair.
template <int VStride>
STATICFORMER_ALWAYS_INLINE void context_pairs(std::int32_t (&a)[4], const std::int16_t*& p, const std::int8_t*& w,
                                              const std::int16_t* end) noexcept {
    static_assert(2 * VStride <= 1020, "LDRD post-index");
    if constexpr (!assembly) return twin::context_pairs<VStride>(a, p, w, end);
    if (p == end) return;
    std::int32_t pa, pb, x, y, t;
    __asm__("1:\n\t"
            "ldrd %[pa], %[pb], [%[p]], #8\n\t"
            ".irp pp, %[pa], %[pb]\n\t"
            "ldrd %[x], %[y], [%[w]], #%c[row2]\n\t"
            "sxtb16 %[t], %[x]\n\t"
            "sxtb16 %[x], %[x], ror #8\n\t"
            "smlad %[a0], \\pp, %[t], %[a0]\n\t"
            "smlad %[a1], \\pp, %[x], %[a1]\n\t"
            "sxtb16 %[t], %[y]\n\t"
            "sxtb16 %[y], %[y], ror #8\n\t"
            "smlad %[a2], \\pp, %[t], %[a2]\n\t"
            "smlad %[a3], \\pp, %[y], %[a3]\n\t"
            ".endr\n\t"
            "cmp %[p], %[end]\n\t"
            "bne 1b"
            : [a0] "+r"(a[0]), [a1] "+r"(a[1]), [a2] "+r"(a[2]), [a3] "+r"(a[3]), [p] "+r"(p), [w] "+r"(w),
              [pa] "=&r"(pa), [pb] "=&r"(pb), [x] "=&r"(x), [y] "=&r"(y), [t] "=&r"(t)
            : [end] "r"(end), [row2] "n"(2 * VStride)
            : "cc", "memory");
}

// ---- residual add --------------------------------------------------------------------------------

// x[i] = ssat8(SMLAD((x[i], a[i]), multipliers, b) >> shift) for the first n / 4 * 4 values
// (returns how many), 28 instructions per 4 values: the pairs by PKHBT / PKHTB and the results
// into one word by BFI (GCC's own code for the twin masks and ORs: 36).
STATICFORMER_ALWAYS_INLINE int add_quads(std::int8_t* x, const std::int8_t* a, int n, std::int32_t multipliers,
                                         std::int32_t b, std::int32_t shift) noexcept {
    const int quads = n / 4 * 4;
    if constexpr (!assembly) return twin::add_quads(x, a, quads, multipliers, b, shift), quads;
    if (quads == 0) return 0;
    std::int32_t xw, aw, xe, ae, t;
    const std::int8_t* const end = x + quads;
    __asm__ volatile(  // volatile: the sums it stores are its only result
        "1:\n\t"
        "ldr %[xw], [%[x]]\n\t"
        "ldr %[aw], [%[a]], #4\n\t"
        "sxtb16 %[xe], %[xw]\n\t"
        "sxtb16 %[xw], %[xw], ror #8\n\t"
        "sxtb16 %[ae], %[aw]\n\t"
        "sxtb16 %[aw], %[aw], ror #8\n\t"
        "pkhbt %[t], %[xe], %[ae], lsl #16\n\t"
        "pkhtb %[ae], %[ae], %[xe], asr #16\n\t"
        "pkhbt %[xe], %[xw], %[aw], lsl #16\n\t"
        "pkhtb %[aw], %[aw], %[xw], asr #16\n\t"
        ".irp v, %[t], %[xe], %[ae], %[aw]\n\t"
        "smlad \\v, \\v, %[m], %[b]\n\t"
        "asr \\v, \\v, %[shift]\n\t"
        "ssat \\v, #8, \\v\n\t"
        ".endr\n\t"
        "bfi %[t], %[xe], #8, #8\n\t"
        "bfi %[t], %[ae], #16, #8\n\t"
        "bfi %[t], %[aw], #24, #8\n\t"
        "str %[t], [%[x]], #4\n\t"
        "cmp %[x], %[end]\n\t"
        "bne 1b"
        : [x] "+r"(x), [a] "+r"(a), [xw] "=&r"(xw), [aw] "=&r"(aw), [xe] "=&r"(xe), [ae] "=&r"(ae), [t] "=&r"(t)
        : [end] "r"(end), [m] "r"(multipliers), [b] "r"(b), [shift] "r"(shift)
        : "cc", "memory");
    return quads;
}

// ---- LayerNorm statistics --------------------------------------------------------------------------

#if defined(__ARM_FP) && (__ARM_FP & 4)
// floor(sqrt(v)). The float of v and VSQRT are each within one ulp (any rounding mode): the root
// is within 0.02 of sqrt(v) < 2^16, so its truncation r is floor(sqrt(v)) or one off. The selects
// step r down if r^2 > v, then up if (r + 1)^2 <= v, i.e. r (r + 2) < v (no overflow: r < 2^16).
// VSQRT in assembly: sqrtf with math-errno would link newlib's. The twin: the reference's digits.
inline std::uint32_t isqrt32_fpu(std::uint32_t v) noexcept {
    if constexpr (!assembly) return math::isqrt32(v);
    float f = float(v);
    __asm__("vsqrt.f32 %0, %0" : "+t"(f));
    std::uint32_t r = std::uint32_t(__usat(std::int32_t(f), 16));  // f <= 65536
    r -= r * r > v;
    r += r * (r + 2) < v;
    return r;
}
#endif

}  // namespace arm_dsp
}  // namespace kernels
}  // namespace staticformer

