// staticformer: int8 attention with the Arm DSP extension (optimised; bit-identical to
// reference/attention_int8.hpp), for head dimensions that are multiples of 4 (others use the
// reference's kernels and layouts). The layouts are this set's own (kernel_set.hpp):
//   keys    head h's keys from kt + h * HeadDim * S, key j's HeadDim values together at
//           j * HeadDim: a score is HeadDim / 4 words against the query's pairs (unpacked once).
//   values  keys 2m and 2m + 1 share rows 2m, 2m + 1 of the buffer, where each head keeps its
//           HeadDim bytes from h * HeadDim (as every layout). The head's channels go in blocks
//           of 4; block b's two words, (v[2m][c], v[2m][c+1], v[2m+1][c], v[2m+1][c+1]) for
//           c = 4b and then c = 4b + 2, lie side by side (one LDRD) in row 2m + b / (HeadDim /
//           8) at 8 * (b % (HeadDim / 8)) when HeadDim is a multiple of 8; otherwise channel pair
//           i = c / 2's word lies in row 2m + i % 2 at 4 * (i / 2). SXTB16 splits a word into the
//           key pair of channel c and that of c + 1, each one SMLAD with the pair of
//           probabilities (p[2m], p[2m+1]), one word. An odd last key takes (p[n-1], 0): its
//           partner's stale bytes count zero times.
#pragma once

#include <cstdint>
#include <cstring>

#include "../../math/fixed_point.hpp"
#include "../isa/arm_dsp.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_dsp {

template <int HeadDim>
constexpr bool dsp_attention = HeadDim % 4 == 0;

template <int D, int HeadDim, int S>
inline void store_keys(const std::int8_t* k, int rows, int j0, std::int8_t* kt) noexcept {
    for (int r = 0; r < rows; ++r)
        for (int h = 0; h < D / HeadDim; ++h)
            std::memcpy(kt + h * HeadDim * S + (j0 + r) * HeadDim, k + r * D + h * HeadDim, HeadDim);
}

// Where channel c of key j sits, from its head's start (header comment).
template <int D, int HeadDim>
constexpr int value_offset(int j, int c) {
    if constexpr (HeadDim % 8 == 0) {
        constexpr int per_row = HeadDim / 8;  // blocks of 4 channels in a row's HeadDim bytes
        const int b = c / 4;
        return (j / 2 * 2 + b / per_row) * D + 8 * (b % per_row) + 4 * (c % 4 / 2) + c % 2 + 2 * (j % 2);
    } else {
        const int i = c / 2;
        return (j / 2 * 2 + i % 2) * D + 4 * (i / 2) + c % 2 + 2 * (j % 2);
    }
}

// Rows j0 + r of v into the layout: with blocks (HeadDim a multiple of 8) a key pair's block is
// its two rows' words of 4 channels, a = v[2m][c..c+3] and b = v[2m+1][c..c+3], as PKHBT(a, b << 16)
// and PKHTB(b, a >> 16): five instructions for 8 values. A row without its pair value by value.
template <int D, int HeadDim, int S>
inline void store_values(const std::int8_t* v, int rows, int j0, std::int8_t* values) noexcept {
    const auto row = [&](int i) {  // value by value
        for (int h = 0; h < D / HeadDim; ++h)
            for (int c = 0; c < HeadDim; ++c)
                values[h * HeadDim + value_offset<D, HeadDim>(j0 + i, c)] = v[i * D + h * HeadDim + c];
    };
    int r = 0;
    if constexpr (HeadDim % 8 == 0) {
        if (j0 % 2 && rows > 0) row(r++);
        for (; r + 2 <= rows; r += 2) {
            std::int8_t* to = values + value_offset<D, HeadDim>(j0 + r, 0);
            for (int c = 0; c < D; c += 4) {  // head c / HeadDim's block (c % HeadDim) / 4
                const std::uint32_t a = std::uint32_t(arm_dsp::load32(v + r * D + c));
                const std::uint32_t b = std::uint32_t(arm_dsp::load32(v + (r + 1) * D + c));
                const std::uint32_t low = (a & 0xffffu) | b << 16, high = a >> 16 | (b & 0xffff0000u);
                std::int8_t* block = to + c / HeadDim * HeadDim + value_offset<D, HeadDim>(0, c % HeadDim);
                std::memcpy(block, &low, 4), std::memcpy(block + 4, &high, 4);
            }
        }
    }
    for (; r < rows; ++r) row(r);
}

#if defined(__OPTIMIZE__)
// Scores of keys four at a time (kt: the first key, end: past the last group's), in inline
// assembly: per word of the keys one LDRD of the query's unpacked pairs, then per key its word,
// two SXTB16 and two SMLAD (the first word's SMUAD starts the sum): 21 instructions per 16
// multiply-adds; GCC's own code spills the query. 12 registers.
template <int HeadDim>
STATICFORMER_ALWAYS_INLINE void score_quads(const std::int32_t* query_pairs, const std::int8_t* kt,
                                            const std::int8_t* end, std::int32_t* s) noexcept {
    static_assert(HeadDim % 4 == 0 && 8 * HeadDim / 4 <= 1020 && 3 * HeadDim + HeadDim <= 4095, "offsets");
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
#endif

// s[j] = q . key j, for the n valid keys: four keys a step in assembly, then the last n % 4.
template <int HeadDim, int KStride>
inline void attention_scores(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
    using namespace arm_dsp;
    constexpr int words = HeadDim / 4;
    std::int32_t pairs[2 * words];  // (even, odd) pairs of each word of q, side by side: one LDRD
    for (int g = 0; g < words; ++g) {
        const std::int32_t w = load32(q + 4 * g);
        pairs[2 * g] = even_pair(w), pairs[2 * g + 1] = odd_pair(w);
    }
    int j = 0;
#if defined(__OPTIMIZE__)
    if constexpr (8 * HeadDim / 4 <= 1020 && 4 * HeadDim <= 4095) {
        if (n >= 4) {
            j = n / 4 * 4;
            score_quads<HeadDim>(pairs, kt, kt + j * HeadDim, s);
        }
    }
#endif
    for (; j < n; ++j) {
        const std::int8_t* key = kt + j * HeadDim;
        std::int32_t acc = 0;
#pragma GCC unroll 16
        for (int g = 0; g < words; ++g) {
            const std::int32_t w = load32(key + 4 * g);
            acc = __smlad(pairs[2 * g + 1], odd_pair(w), __smlad(pairs[2 * g], even_pair(w), acc));
        }
        s[j] = acc;
    }
}

// Where block b (channels 4b .. 4b + 3) of key pair 0 starts, from the head's start: its words
// side by side, or in rows 0 and 1 (header comment).
template <int HeadDim, int VStride>
constexpr int block_start(int b) {
    if constexpr (HeadDim % 8 == 0) return b / (HeadDim / 8) * VStride + 8 * (b % (HeadDim / 8));
    else return 4 * b;
}

#if defined(__OPTIMIZE__)
// Steps of two key pairs over one block of side-by-side words (HeadDim a multiple of 8), in
// inline assembly: one LDRD of four probabilities, per key pair one LDRD of the block's words,
// four SXTB16 and four SMLAD (21 instructions per 16 multiply-adds; GCC's own code spills an
// accumulator and the loop's bound). 12 registers; w moves two rows a key pair (2 VStride <= 1020).
template <int VStride>
STATICFORMER_ALWAYS_INLINE void context_steps(std::int32_t (&a)[4], const std::int16_t*& p, const std::int8_t*& w,
                                              const std::int16_t* end) noexcept {
    static_assert(2 * VStride <= 1020, "LDRD post-index");
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
#endif

// ctx[c] = requantize(sum_j p[j] * v[j][c], context, 0), four channels (two words) at a time:
// two key pairs a step in assembly when HeadDim is a multiple of 8, then the rest one by one.
template <int HeadDim, int VStride>
inline void attention_context(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier context,
                              std::int8_t* ctx) noexcept {
    using namespace arm_dsp;
    const int pairs = n / 2;
    for (int b = 0; b < HeadDim / 4; ++b) {
        const std::int8_t* w = v + block_start<HeadDim, VStride>(b);
        constexpr int second = HeadDim % 8 == 0 ? 4 : VStride;  // the block's second word
        std::int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        const auto key_pair = [&](std::int32_t pp, const std::int8_t* at) {  // probabilities of keys 2m, 2m + 1
            const std::int32_t x = load32(at), y = load32(at + second);
            a0 = __smlad(pp, even_pair(x), a0), a1 = __smlad(pp, odd_pair(x), a1);
            a2 = __smlad(pp, even_pair(y), a2), a3 = __smlad(pp, odd_pair(y), a3);
        };
        int m = 0;
#if defined(__OPTIMIZE__)
        if constexpr (HeadDim % 8 == 0 && 2 * VStride <= 1020) {
            if (pairs >= 2) {
                std::int32_t a[4] = {0, 0, 0, 0};
                const std::int16_t* pp = p;
                m = pairs / 2 * 2;
                context_steps<VStride>(a, pp, w, p + 2 * m);
                a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
            }
        }
#endif
        for (; m < pairs; ++m, w += 2 * VStride) {
            std::int32_t pp;  // (p[2m], p[2m+1])
            std::memcpy(&pp, p + 2 * m, sizeof pp);
            key_pair(pp, w);
        }
        if (n % 2) key_pair(std::uint16_t(p[n - 1]), w);  // (p[n-1], 0)
        std::int8_t* out = ctx + 4 * b;
        if (context.shift >= 33 && context.shift <= 62) {
            // SMMLA with 2^(shift - 33), a shift by shift - 32 and SSAT: floor(acc m / 2^32) +
            // 2^(shift - 33), shifted, is (acc m + 2^(shift - 1)) >> shift (a floor of a floor).
            const std::int32_t round = std::int32_t(1) << (context.shift - 33), high_shift = context.shift - 32;
            const auto requantize = [&](std::int32_t acc) {
                std::int32_t v;
                __asm__("smmla %0, %1, %2, %3" : "=r"(v) : "r"(acc), "r"(context.multiplier), "r"(round));
                return std::int8_t(__ssat(v >> high_shift, 8));
            };
            out[0] = requantize(a0), out[1] = requantize(a1), out[2] = requantize(a2), out[3] = requantize(a3);
        } else if (math::long_shift_requantizer::applies(context.shift)) {  // SMLAL, a shift and SSAT
            const math::long_shift_requantizer q(context.shift, 0);
            const auto requantize = [&](std::int32_t acc) {
                const std::int64_t t = q.round + std::int64_t(acc) * context.multiplier;
                return std::int8_t(__ssat(std::int32_t(t >> 32) >> q.high_shift, 8));
            };
            out[0] = requantize(a0), out[1] = requantize(a1), out[2] = requantize(a2), out[3] = requantize(a3);
        } else {
            const math::fixed_requantizer requantize{context, 0};
            out[0] = requantize(a0), out[1] = requantize(a1), out[2] = requantize(a2), out[3] = requantize(a3);
        }
    }
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
