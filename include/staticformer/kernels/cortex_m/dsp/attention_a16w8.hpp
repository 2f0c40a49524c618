// staticformer: a16w8 attention with the Arm DSP extension (optimised; bit-identical to
// reference/attention_int8.hpp's a16w8 kernels), for even head dimensions (others use the
// reference's kernels and layouts). SMLAD multiplies two int16 pairs and adds both products:
// int16 activations need no SXTB16 unpacking, so two products take one instruction.
//   keys    this set's own layout, as its int8 keys: head h's from kt + h * HeadDim * S, key j's
//           HeadDim values together at j * HeadDim. A score is HeadDim / 2 SMLADs of the query's
//           pairs against the key's.
//   values  the reference's, row-major: channels c, c + 1 of keys j and j + 1 are two words,
//           repacked into (v[j][c], v[j+1][c]) and (v[j][c+1], v[j+1][c+1]) (PKHBT, PKHTB) for
//           SMLAD with (p[j], p[j+1]). An odd last key: one product per channel.
// Integer sums are exact in any order: every partial sum stays within the bound the full sum
// keeps (params_a16w8.hpp), so pairing the products changes no bit.
#pragma once

#include <arm_acle.h>

#include <cstdint>
#include <cstring>

#include "../../../math/fixed_point.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_dsp {

template <int HeadDim>
constexpr bool dsp_attention_a16w8 = HeadDim % 2 == 0;

// Two int16 values from p as one word (p[0] in the low half): one LDR.
STATICFORMER_ALWAYS_INLINE std::int32_t load_pair(const std::int16_t* p) noexcept {
    std::int32_t word;
    std::memcpy(&word, p, 4);
    return word;
}

template <int D, int HeadDim, int S>
inline void store_keys(const std::int16_t* k, int rows, int j0, std::int16_t* kt) noexcept {
    for (int r = 0; r < rows; ++r)
        for (int h = 0; h < D / HeadDim; ++h)
            std::memcpy(kt + h * HeadDim * S + (j0 + r) * HeadDim, k + r * D + h * HeadDim, HeadDim * sizeof(std::int16_t));
}

// s[j] = q . key j for the n valid keys.
template <int HeadDim, int KStride>
inline void attention_scores(const std::int16_t* q, const std::int16_t* kt, int n, std::int32_t* s) noexcept {
    std::int32_t pairs[HeadDim / 2];
    for (int g = 0; g < HeadDim / 2; ++g) pairs[g] = load_pair(q + 2 * g);
    for (int j = 0; j < n; ++j) {
        const std::int16_t* key = kt + j * HeadDim;
        std::int32_t acc = 0;
        for (int g = 0; g < HeadDim / 2; ++g) acc = __smlad(pairs[g], load_pair(key + 2 * g), acc);
        s[j] = acc;
    }
}

// ctx[c] = clamp(rescale(sum_j p[j] v[j][c], context), -limit, limit), two channels at a time.
template <int HeadDim, int VStride>
inline void attention_context(const std::int16_t* p, const std::int16_t* v, int n, math::fixed_multiplier context,
                              std::int32_t limit, std::int16_t* ctx) noexcept {
    for (int c = 0; c < HeadDim; c += 2) {
        std::int32_t a0 = 0, a1 = 0;
        const std::int16_t* w = v + c;
        int j = 0;
        for (; j + 2 <= n; j += 2, w += 2 * VStride) {
            const std::int32_t pp = load_pair(p + j);
            const std::uint32_t x = std::uint32_t(load_pair(w)), y = std::uint32_t(load_pair(w + VStride));
            a0 = __smlad(pp, std::int32_t((x & 0xffffu) | y << 16), a0);   // (v[j][c], v[j+1][c])
            a1 = __smlad(pp, std::int32_t(x >> 16 | (y & 0xffff0000u)), a1);  // (v[j][c+1], v[j+1][c+1])
        }
        if (j < n) a0 += std::int32_t(p[j]) * w[0], a1 += std::int32_t(p[j]) * w[1];
        ctx[c] = math::clamp_to(math::rescale(a0, context.multiplier, context.shift), limit);
        ctx[c + 1] = math::clamp_to(math::rescale(a1, context.multiplier, context.shift), limit);
    }
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
