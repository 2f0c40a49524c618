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

#include "../../../math/fixed_point.hpp"
#include "../../isa/arm_dsp.hpp"

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
    if constexpr (8 * HeadDim / 4 <= 1020 && 4 * HeadDim <= 4095) {
        j = n / 4 * 4;
        arm_dsp::score_quads<HeadDim>(pairs, kt, j, s);
    }
    arm_dsp::twin::scores<HeadDim>(pairs, kt + j * HeadDim, n - j, s + j);
}

// Where block b (channels 4b .. 4b + 3) of key pair 0 starts, from the head's start: its words
// side by side, or in rows 0 and 1 (header comment).
template <int HeadDim, int VStride>
constexpr int block_start(int b) {
    if constexpr (HeadDim % 8 == 0) return b / (HeadDim / 8) * VStride + 8 * (b % (HeadDim / 8));
    else return 4 * b;
}

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
        if constexpr (HeadDim % 8 == 0 && 2 * VStride <= 1020) {
            std::int32_t a[4] = {0, 0, 0, 0};
            const std::int16_t* pp = p;
            m = pairs / 2 * 2;
            arm_dsp::context_pairs<VStride>(a, pp, w, p + 2 * m);
            a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
        }
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
                return std::int8_t(__ssat(arm_dsp::multiply_high_add(acc, context.multiplier, round) >> high_shift, 8));
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
