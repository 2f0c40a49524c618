// staticformer: int8 attention with the Arm DSP extension (optimised; bit-identical to
// reference/attention_int8.hpp), for head dimensions that are multiples of 4 (others use the
// reference's kernels and layouts). The layouts are this set's own (kernel_set.hpp):
//   keys    head h's keys from kt + h * HeadDim * S, key j's HeadDim values together at
//           j * HeadDim: a score is HeadDim / 4 words against the query's pairs (unpacked once).
//   values  keys 2m and 2m + 1 share rows 2m, 2m + 1 of the buffer; the word of channel pair i
//           of a head (channels 2i, 2i + 1) holds (v[2m][2i], v[2m][2i+1], v[2m+1][2i],
//           v[2m+1][2i+1]), in row 2m + i % 2 at 4 * (i / 2) from the head's start (h * HeadDim,
//           as every layout). SXTB16 splits it into the key pair of channel 2i and that of
//           2i + 1, each one SMLAD with the pair of probabilities (p[2m], p[2m+1]), one word.
//           An odd last key takes (p[n-1], 0): its partner's stale bytes count zero times.
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
template <int D>
constexpr int value_offset(int j, int c) {
    const int i = c / 2;
    return (j / 2 * 2 + i % 2) * D + 4 * (i / 2) + c % 2 + 2 * (j % 2);
}

template <int D, int HeadDim, int S>
inline void store_values(const std::int8_t* v, int rows, int j0, std::int8_t* values) noexcept {
    for (int r = 0; r < rows; ++r)
        for (int h = 0; h < D / HeadDim; ++h)
            for (int c = 0; c < HeadDim; ++c) values[h * HeadDim + value_offset<D>(j0 + r, c)] = v[r * D + h * HeadDim + c];
}

// s[j] = q . key j, for the n valid keys.
template <int HeadDim, int KStride>
inline void attention_scores(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
    using namespace arm_dsp;
    constexpr int words = HeadDim / 4;
    std::int32_t qe[words], qo[words];
    for (int g = 0; g < words; ++g) {
        const std::int32_t w = load32(q + 4 * g);
        qe[g] = even_pair(w), qo[g] = odd_pair(w);
    }
    for (int j = 0; j < n; ++j) {
        const std::int8_t* key = kt + j * HeadDim;
        std::int32_t acc = 0;
#pragma GCC unroll 16
        for (int g = 0; g < words; ++g) {
            const std::int32_t w = load32(key + 4 * g);
            acc = __smlad(qo[g], odd_pair(w), __smlad(qe[g], even_pair(w), acc));
        }
        s[j] = acc;
    }
}

// ctx[c] = requantize(sum_j p[j] * v[j][c], context, 0), four channels (two words) at a time.
template <int HeadDim, int VStride>
inline void attention_context(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier context,
                              std::int8_t* ctx) noexcept {
    using namespace arm_dsp;
    const math::fixed_requantizer requantize{context, 0};
    const int pairs = n / 2;
    for (int c = 0; c < HeadDim; c += 4) {
        const std::int8_t* w = v + c;  // channel pair c / 2 in row 2m, c / 2 + 1 in row 2m + 1
        std::int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        const auto key_pair = [&](std::int32_t pp) {  // the probabilities of keys 2m, 2m + 1
            const std::int32_t x = load32(w), y = load32(w + VStride);
            a0 = __smlad(pp, even_pair(x), a0), a1 = __smlad(pp, odd_pair(x), a1);
            a2 = __smlad(pp, even_pair(y), a2), a3 = __smlad(pp, odd_pair(y), a3);
        };
        for (int m = 0; m < pairs; ++m, w += 2 * VStride) {
            std::int32_t pp;
            std::memcpy(&pp, p + 2 * m, sizeof pp);  // (p[2m], p[2m+1])
            key_pair(pp);
        }
        if (n % 2) key_pair(std::uint16_t(p[n - 1]));  // (p[n-1], 0)
        ctx[c] = requantize(a0), ctx[c + 1] = requantize(a1), ctx[c + 2] = requantize(a2), ctx[c + 3] = requantize(a3);
    }
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
