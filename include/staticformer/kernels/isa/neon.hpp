// staticformer: AArch64 NEON building blocks of the int8 kernels (optimised): 4 lanes of 32
// bits, the vector rescale, and the linear layer's step with SDOT (dot-product extension) or
// SMULL / SADALP.
#pragma once

#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "../../math/fixed_point.hpp"
#include "common.hpp"

namespace staticformer {
namespace kernels {
namespace simd_int8 {

// ---- 128-bit: 4 lanes (NEON) --------------------------------------------------------------

// rescale(acc[l], m[l], shift) for 4 lanes: SRSHL by -shift is (p + 2^(shift-1)) >> shift
// computed without overflow; the saturating narrow to int32 then the clamp to +-2^30 equal the
// clamp of the 64-bit value.
struct rescale4_params {
    int64x2_t neg_shift;
    explicit rescale4_params(std::int32_t shift) noexcept : neg_shift(vdupq_n_s64(-std::int64_t(shift))) {}
};

inline int32x4_t rescale4(int32x4_t acc, int32x4_t m, const rescale4_params& k) noexcept {
    const int64x2_t neg_shift = k.neg_shift;
    const int64x2_t lo = vrshlq_s64(vmull_s32(vget_low_s32(acc), vget_low_s32(m)), neg_shift);
    const int64x2_t hi = vrshlq_s64(vmull_high_s32(acc, m), neg_shift);
    const int32x4_t q = vcombine_s32(vqmovn_s64(lo), vqmovn_s64(hi));
    return vmaxq_s32(vminq_s32(q, vdupq_n_s32(1 << 30)), vdupq_n_s32(-(1 << 30)));
}

inline void store4_int8(std::int8_t* y, int32x4_t v) noexcept {
    const int16x4_t w = vqmovn_s32(v);
    const int8x8_t b = vqmovn_s16(vcombine_s16(w, w));
    const std::int32_t four = vget_lane_s32(vreinterpret_s32_s8(b), 0);
    std::memcpy(y, &four, 4);
}


// ---- linear layer step ------------------------------------------------------------------

#if defined(__ARM_FEATURE_DOTPROD)
// SDOT (dot-product extension): four signed byte products per lane.
struct linear_sdot : unmasked, signed_products {
    static constexpr int lanes = 4, rows = 4, vecs = 4;
    using acc = int32x4_t;
    using wvec = int8x16_t;
    using xvec = int8x16_t;
    static acc init(const std::int32_t* bias, std::int32_t, mask) noexcept { return vld1q_s32(bias); }
    static wvec load_w(const std::int8_t* w, mask) noexcept { return vld1q_s8(w); }
    static xvec broadcast(std::int32_t x4) noexcept { return vreinterpretq_s8_s32(vdupq_n_s32(x4)); }
    static acc dot(acc a, wvec w, xvec x) noexcept { return vdotq_s32(a, w, x); }
    using params = rescale4_params;
    static void store(std::int8_t* y, acc a, const std::int16_t* multiplier, const params& k, std::int32_t zero_point,
                      mask) noexcept {
        const int32x4_t m = vmovl_s16(vld1_s16(multiplier));
        store4_int8(y, vaddq_s32(rescale4(a, m, k), vdupq_n_s32(zero_point)));
    }
};
#endif

// SMULL gives eight int16 products (|w x| <= 2^14, exact) and SADALP adds them pairwise into
// int32: two half sums per output, added pairwise at the end.
struct linear_neon : unmasked, signed_products {
    static constexpr int lanes = 4, rows = 4, vecs = 2;
    struct acc {
        int32x4_t lo, hi;  // outputs 0..1 and 2..3, two half sums each
    };
    using wvec = int8x16_t;
    using xvec = int8x16_t;
    static acc init(const std::int32_t* bias, std::int32_t, mask) noexcept {
        const int32x4_t b = vld1q_s32(bias), z = vdupq_n_s32(0);
        return {vzip1q_s32(b, z), vzip2q_s32(b, z)};  // bias[o] in the first half sum of output o
    }
    static wvec load_w(const std::int8_t* w, mask) noexcept { return vld1q_s8(w); }
    static xvec broadcast(std::int32_t x4) noexcept { return vreinterpretq_s8_s32(vdupq_n_s32(x4)); }
    static acc dot(acc a, wvec w, xvec x) noexcept {
        return {vpadalq_s16(a.lo, vmull_s8(vget_low_s8(w), vget_low_s8(x))), vpadalq_s16(a.hi, vmull_high_s8(w, x))};
    }
    using params = rescale4_params;
    static void store(std::int8_t* y, acc a, const std::int16_t* multiplier, const params& k, std::int32_t zero_point,
                      mask) noexcept {
        const int32x4_t m = vmovl_s16(vld1_s16(multiplier));
        store4_int8(y, vaddq_s32(rescale4(vpaddq_s32(a.lo, a.hi), m, k), vdupq_n_s32(zero_point)));
    }
};

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
