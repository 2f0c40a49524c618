// staticformer: int8 attention with Helium (MVE, Cortex-M55), integer only (optimised;
// bit-identical to reference/attention_int8.hpp).
//   scores   keys in the DSP layout (attention_int8.hpp: key j's HeadDim values together): the
//            query's 16-value blocks stay in vector registers, each key is one VLDRB and one
//            VMLADAV.S8 per block (the last block tail-predicated).
//   context  values in the reference's row-major layout: per key, its probability times 4
//            channels widened to int32 lanes (VLDRB.S32, VMLA by a scalar) into the channels'
//            sums (a last partial quad predicated); then the requantisation (math::fixed_requantizer).
// a16w8 likewise on int16 (keys row-major by head: store_keys below).
#pragma once

#include <arm_mve.h>

#include <cstdint>
#include <cstring>

#include "../../../math/fixed_point.hpp"
#include "../../isa/arm_mve.hpp"

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

// Channels c0 + 4k + (0..3) of key row `row`, widened to int32 (a quad past HeadDim: 0).
template <int HeadDim>
inline int32x4_t value_quad(const std::int8_t* row, int c) noexcept {
    if (HeadDim - c < 4) return vldrbq_z_s32(row + c, vctp32q(HeadDim - c));  // no byte past the head
    return vldrbq_s32(row + c);
}
template <int HeadDim>
inline int32x4_t value_quad(const std::int16_t* row, int c) noexcept {  // a16w8's int16 values
    if (HeadDim - c < 4) return vldrhq_z_s32(row + c, vctp32q(HeadDim - c));
    return vldrhq_s32(row + c);
}

// The sums of channels C0 .. C0 + 15 (named accumulators: an array of them spills).
template <int HeadDim, int VStride, int C0, class T>
inline void context_sums(const std::int16_t* p, const T* v, int n, std::int32_t* sums) noexcept {
    constexpr int quads = (HeadDim - C0 + 3) / 4 < 4 ? (HeadDim - C0 + 3) / 4 : 4;
    int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0;
    for (int j = 0; j < n; ++j) {
        const std::int32_t pj = p[j];
        const T* row = v + j * VStride;
        a0 = vmlaq_n_s32(a0, value_quad<HeadDim>(row, C0), pj);
        if constexpr (quads > 1) a1 = vmlaq_n_s32(a1, value_quad<HeadDim>(row, C0 + 4), pj);
        if constexpr (quads > 2) a2 = vmlaq_n_s32(a2, value_quad<HeadDim>(row, C0 + 8), pj);
        if constexpr (quads > 3) a3 = vmlaq_n_s32(a3, value_quad<HeadDim>(row, C0 + 12), pj);
    }
    vst1q_s32(sums + C0, a0);
    if constexpr (quads > 1) vst1q_s32(sums + C0 + 4, a1);
    if constexpr (quads > 2) vst1q_s32(sums + C0 + 8, a2);
    if constexpr (quads > 3) vst1q_s32(sums + C0 + 12, a3);
    if constexpr (C0 + 16 < HeadDim) context_sums<HeadDim, VStride, C0 + 16>(p, v, n, sums);
}

// ctx[c] = requantize(sum_j p[j] * v[j * VStride + c], context, 0)
template <int HeadDim, int VStride>
inline void attention_context(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier context,
                              std::int8_t* ctx) noexcept {
    arm_mve::memory_fence();
    std::int32_t sums[(HeadDim + 3) / 4 * 4];
    context_sums<HeadDim, VStride, 0>(p, v, n, sums);
    math::fixed_requantizer{context, 0}.each(sums, HeadDim, ctx);
    arm_mve::memory_fence();
}

// ---- a16w8 ----------------------------------------------------------------------------------

// Keys row-major by head, as the DSP set's int8 keys: key j's HeadDim int16 values together,
// head h's keys from kt + h HeadDim S.
template <int D, int HeadDim, int S>
inline void store_keys(const std::int16_t* k, int rows, int j0, std::int16_t* kt) noexcept {
    for (int r = 0; r < rows; ++r)
        for (int h = 0; h < D / HeadDim; ++h)
            std::memcpy(kt + h * HeadDim * S + (j0 + r) * HeadDim, k + r * D + h * HeadDim, 2 * HeadDim);
}

// The query's 8-value blocks in registers; each key one VLDRH and one VMLADAVA.S16 a block.
template <int HeadDim, int KStride>
inline void attention_scores(const std::int16_t* q, const std::int16_t* kt, int n, std::int32_t* s) noexcept {
    constexpr int blocks = (HeadDim + 7) / 8, tail = HeadDim % 8;
    int16x8_t qv[blocks];
    for (int b = 0; b < blocks; ++b) qv[b] = vldrhq_z_s16(q + 8 * b, vctp16q(HeadDim - 8 * b));
    for (int j = 0; j < n; ++j) {
        const std::int16_t* key = kt + j * HeadDim;
        std::int32_t acc = 0;
#pragma GCC unroll 8
        for (int b = 0; b < blocks; ++b) {
            if (tail > 0 && b == blocks - 1)
                acc = vmladavaq_s16(acc, qv[b], vldrhq_z_s16(key + 8 * b, vctp16q(tail)));
            else
                acc = vmladavaq_s16(acc, qv[b], vldrhq_s16(key + 8 * b));
        }
        s[j] = acc;
    }
}

// ctx[c] = clamp(rescale(sum_j p[j] v[j * VStride + c], context), -limit, limit): the int8
// context's sums on int16 values (VLDRH.S32), rescaled and clamped one by one.
template <int HeadDim, int VStride>
inline void attention_context(const std::int16_t* p, const std::int16_t* v, int n, math::fixed_multiplier context,
                              std::int32_t limit, std::int16_t* ctx) noexcept {
    arm_mve::memory_fence();
    std::int32_t sums[(HeadDim + 3) / 4 * 4];
    context_sums<HeadDim, VStride, 0>(p, v, n, sums);
    for (int c = 0; c < HeadDim; ++c) ctx[c] = math::clamp_to(math::rescale(sums[c], context.multiplier, context.shift), limit);
    arm_mve::memory_fence();
}

}  // namespace cortex_m_mve
}  // namespace kernels
}  // namespace staticformer
