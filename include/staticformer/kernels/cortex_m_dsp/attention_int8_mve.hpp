// staticformer: int8 attention with Helium (MVE, Cortex-M55), integer only (optimised;
// bit-identical to reference/attention_int8.hpp).
//   scores   keys in the DSP layout (attention_int8.hpp: key j's HeadDim values together): the
//            query's 16-value blocks stay in vector registers, each key is one VLDRB and one
//            VMLADAV.S8 per block (the last block tail-predicated).
//   context  values in the reference's row-major layout: per key, its probability times 4
//            channels widened to int32 lanes (VLDRB.S32, VMLA by a scalar) into the channels'
//            sums (a last partial quad predicated); then the reference's requantisation.
#pragma once

#include <arm_mve.h>

#include <cstdint>

#include "../../math/fixed_point.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_mve {

template <int HeadDim, int KStride>
inline void attention_scores(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
    constexpr int blocks = (HeadDim + 15) / 16, tail = HeadDim % 16;
    int8x16_t qv[blocks];  // in registers: s's stores may not alias them
    for (int b = 0; b < blocks; ++b) qv[b] = vldrbq_z_s8(q + 16 * b, vctp8q(HeadDim - 16 * b));
    for (int j = 0; j < n; ++j) {
        const std::int8_t* key = kt + j * HeadDim;
        std::int32_t acc = 0;
#pragma GCC unroll 8
        for (int b = 0; b < blocks; ++b) {
            if (tail > 0 && b == blocks - 1)
                acc = vmladavaq_s8(acc, qv[b], vldrbq_z_s8(key + 16 * b, vctp8q(tail)));
            else
                acc = vmladavaq_s8(acc, qv[b], vldrbq_s8(key + 16 * b));
        }
        s[j] = acc;
    }
}

// ctx[c] = requantize(sum_j p[j] * v[j * VStride + c], context, 0)
template <int HeadDim, int VStride>
inline void attention_context(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier context,
                              std::int8_t* ctx) noexcept {
    constexpr int quads = (HeadDim + 3) / 4;
    int32x4_t acc[quads];
    for (int k = 0; k < quads; ++k) acc[k] = vdupq_n_s32(0);
    for (int j = 0; j < n; ++j) {
        const std::int32_t pj = p[j];
        const std::int8_t* row = v + j * VStride;
#pragma GCC unroll 16
        for (int k = 0; k < quads; ++k) {
            if (HeadDim % 4 != 0 && k == quads - 1)  // predicated: no byte past the head's row
                acc[k] = vmlaq_n_s32(acc[k], vldrbq_z_s32(row + 4 * k, vctp32q(HeadDim - 4 * k)), pj);
            else
                acc[k] = vmlaq_n_s32(acc[k], vldrbq_s32(row + 4 * k), pj);
        }
    }
    std::int32_t sums[4 * quads];
    for (int k = 0; k < quads; ++k) vst1q_s32(sums + 4 * k, acc[k]);
    for (int c = 0; c < HeadDim; ++c) ctx[c] = math::requantize(sums[c], context.multiplier, context.shift, 0);
}

}  // namespace cortex_m_mve
}  // namespace kernels
}  // namespace staticformer
