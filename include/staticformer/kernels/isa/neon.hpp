// staticformer: NEON building blocks of the int8 kernels (optimised), AArch64 and ARMv7-A: 4
// lanes of 32 bits, the vector rescale, and the linear layer's step with SDOT (dot-product
// extension, AArch64) or SMULL / SADALP. Integer NEON is exact on both (ARMv7's flush-to-zero
// touches floats only); the few AArch64-only forms have ARMv7 equivalents below.
#pragma once

#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "../../config.hpp"
#include "../../math/fixed_point.hpp"
#include "common.hpp"

namespace staticformer {
namespace kernels {
namespace simd_int8 {

// ---- AArch64-only forms, built from halves and pairwise steps on ARMv7 --------------------

#if defined(__aarch64__)
STATICFORMER_ALWAYS_INLINE int64x2_t mull_high(int32x4_t a, int32x4_t b) noexcept { return vmull_high_s32(a, b); }
STATICFORMER_ALWAYS_INLINE int32x4_t mull_high(int16x8_t a, int16x8_t b) noexcept { return vmull_high_s16(a, b); }
STATICFORMER_ALWAYS_INLINE int16x8_t mull_high(int8x16_t a, int8x16_t b) noexcept { return vmull_high_s8(a, b); }
STATICFORMER_ALWAYS_INLINE int16x8_t movl_high(int8x16_t a) noexcept { return vmovl_high_s8(a); }
STATICFORMER_ALWAYS_INLINE int32x4_t mlal_high_n(int32x4_t acc, int16x8_t a, std::int16_t b) noexcept {
    return vmlal_high_n_s16(acc, a, b);
}
STATICFORMER_ALWAYS_INLINE int8x8_t zip_low(int8x8_t a, int8x8_t b) noexcept { return vzip1_s8(a, b); }
STATICFORMER_ALWAYS_INLINE int32x4_t zip_low(int32x4_t a, int32x4_t b) noexcept { return vzip1q_s32(a, b); }
STATICFORMER_ALWAYS_INLINE int32x4_t zip_high(int32x4_t a, int32x4_t b) noexcept { return vzip2q_s32(a, b); }
// {a0 + a1, a2 + a3, b0 + b1, b2 + b3}
STATICFORMER_ALWAYS_INLINE int32x4_t pairwise_add(int32x4_t a, int32x4_t b) noexcept { return vpaddq_s32(a, b); }
STATICFORMER_ALWAYS_INLINE std::int32_t add_across(int32x4_t a) noexcept { return vaddvq_s32(a); }
STATICFORMER_ALWAYS_INLINE std::int32_t max_across(int32x4_t a) noexcept { return vmaxvq_s32(a); }
#else
STATICFORMER_ALWAYS_INLINE int64x2_t mull_high(int32x4_t a, int32x4_t b) noexcept {
    return vmull_s32(vget_high_s32(a), vget_high_s32(b));
}
STATICFORMER_ALWAYS_INLINE int32x4_t mull_high(int16x8_t a, int16x8_t b) noexcept {
    return vmull_s16(vget_high_s16(a), vget_high_s16(b));
}
STATICFORMER_ALWAYS_INLINE int16x8_t mull_high(int8x16_t a, int8x16_t b) noexcept {
    return vmull_s8(vget_high_s8(a), vget_high_s8(b));
}
STATICFORMER_ALWAYS_INLINE int16x8_t movl_high(int8x16_t a) noexcept { return vmovl_s8(vget_high_s8(a)); }
STATICFORMER_ALWAYS_INLINE int32x4_t mlal_high_n(int32x4_t acc, int16x8_t a, std::int16_t b) noexcept {
    return vmlal_n_s16(acc, vget_high_s16(a), b);
}
STATICFORMER_ALWAYS_INLINE int8x8_t zip_low(int8x8_t a, int8x8_t b) noexcept { return vzip_s8(a, b).val[0]; }
STATICFORMER_ALWAYS_INLINE int32x4_t zip_low(int32x4_t a, int32x4_t b) noexcept { return vzipq_s32(a, b).val[0]; }
STATICFORMER_ALWAYS_INLINE int32x4_t zip_high(int32x4_t a, int32x4_t b) noexcept { return vzipq_s32(a, b).val[1]; }
STATICFORMER_ALWAYS_INLINE int32x4_t pairwise_add(int32x4_t a, int32x4_t b) noexcept {
    return vcombine_s32(vpadd_s32(vget_low_s32(a), vget_high_s32(a)), vpadd_s32(vget_low_s32(b), vget_high_s32(b)));
}
STATICFORMER_ALWAYS_INLINE std::int32_t add_across(int32x4_t a) noexcept {
    const int32x2_t s = vadd_s32(vget_low_s32(a), vget_high_s32(a));
    return vget_lane_s32(vpadd_s32(s, s), 0);
}
STATICFORMER_ALWAYS_INLINE std::int32_t max_across(int32x4_t a) noexcept {
    const int32x2_t m = vmax_s32(vget_low_s32(a), vget_high_s32(a));
    return vget_lane_s32(vpmax_s32(m, m), 0);
}
#endif

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
    const int64x2_t hi = vrshlq_s64(mull_high(acc, m), neg_shift);
    const int32x4_t q = vcombine_s32(vqmovn_s64(lo), vqmovn_s64(hi));
    return vmaxq_s32(vminq_s32(q, vdupq_n_s32(1 << 30)), vdupq_n_s32(-(1 << 30)));
}

inline void store4_int8(std::int8_t* y, int32x4_t v) noexcept {
    const int16x4_t w = vqmovn_s32(v);
    const int8x8_t b = vqmovn_s16(vcombine_s16(w, w));
    const std::int32_t four = vget_lane_s32(vreinterpret_s32_s8(b), 0);
    std::memcpy(y, &four, 4);
}

// rescale(acc, 1, shift) for 4 lanes: SRSHL by -shift, (acc + 2^(shift-1)) >> shift with the
// rounding added in full precision (never overflowing), shifts up to 62 included (the shift
// operand's low byte), never clamped (|acc| < 2^31).
struct round_shift4_params {
    int32x4_t neg_shift;
    explicit round_shift4_params(std::int32_t shift) noexcept : neg_shift(vdupq_n_s32(-shift)) {}
};

// 4 lanes of int32 for the element-wise kernels (isa/common.hpp, each_block): whole vectors
// only; a partial one goes to the reference's element formula.
struct lanes4 : unmasked {
    static constexpr int lanes = 4;
    using vec = int32x4_t;
    using shift_params = round_shift4_params;
    static vec set1(std::int32_t v) noexcept { return vdupq_n_s32(v); }
    static vec add(vec a, vec b) noexcept { return vaddq_s32(a, b); }
    static vec sub(vec a, vec b) noexcept { return vsubq_s32(a, b); }
    static vec mullo(vec a, vec b) noexcept { return vmulq_s32(a, b); }
    static vec max(vec a, vec b) noexcept { return vmaxq_s32(a, b); }
    static vec min(vec a, vec b) noexcept { return vminq_s32(a, b); }
    static vec load_i8(const std::int8_t* p, mask) noexcept {
        const int8x8_t b = vreinterpret_s8_s32(vdup_n_s32(load4(p)));
        return vmovl_s16(vget_low_s16(vmovl_s8(b)));
    }
    static vec load_i16(const std::int16_t* p, mask) noexcept { return vmovl_s16(vld1_s16(p)); }
    static vec load_i32(const std::int32_t* p, mask) noexcept { return vld1q_s32(p); }
    static void store_i8(std::int8_t* p, vec v, mask) noexcept { store4_int8(p, v); }
    static void store_i16(std::int16_t* p, vec v, mask) noexcept { vst1_s16(p, vqmovn_s32(v)); }
    static void store_i32(std::int32_t* p, vec v, mask) noexcept { vst1q_s32(p, v); }
    static std::int32_t hsum(vec v) noexcept { return add_across(v); }
    static std::int32_t hmax(vec v) noexcept { return max_across(v); }
    static vec round_shift(vec acc, const shift_params& k) noexcept { return vrshlq_s32(acc, k.neg_shift); }
    template <int Count>
    static vec srai(vec v) noexcept { return vshrq_n_s32(v, Count); }
    // Attention context (simd/attention_int8.hpp): 16-bit pairs (a value of key j, one of key
    // j + 1) times a probability pair, added pairwise into 32-bit lanes (SMULL, ADDP).
    static vec load_pair_rows(const std::int8_t* r0, const std::int8_t* r1, mask) noexcept {
        const int8x8_t a = vreinterpret_s8_s32(vdup_n_s32(load4(r0))), b = vreinterpret_s8_s32(vdup_n_s32(load4(r1)));
        return vreinterpretq_s32_s16(vmovl_s8(zip_low(a, b)));
    }
    static vec dot_pairs(vec acc, vec pairs, vec pp) noexcept {
        const int16x8_t x = vreinterpretq_s16_s32(pairs), p = vreinterpretq_s16_s32(pp);
        return vaddq_s32(acc, pairwise_add(vmull_s16(vget_low_s16(x), vget_low_s16(p)), mull_high(x, p)));
    }
    using rescale_params = rescale4_params;
    static vec rescale(vec acc, vec m, const rescale_params& k) noexcept { return rescale4(acc, m, k); }
};

// ---- attention scores step on transposed keys --------------------------------------------

// 16 keys per block in four vectors of 4.
struct scores_neon_common : unmasked {
    static constexpr int keys = 16;
    static constexpr bool row_sum = false;
    struct acc {
        int32x4_t a[4];  // a[u]: keys 4 u .. 4 u + 3
    };
    static acc start(std::int32_t) noexcept { return {{vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)}}; }
    static void store(std::int32_t* out, const acc& s, int) noexcept {
        for (int u = 0; u < 4; ++u) vst1q_s32(out + 4 * u, s.a[u]);
    }
};

#if defined(__aarch64__) && defined(__ARM_FEATURE_DOTPROD)
// Four key rows per step, zipped so that each 32-bit lane holds one key's four values, SDOT
// with the query's four bytes.
struct scores_sdot : scores_neon_common {
    static constexpr int rows = 4;
    template <int HeadDim>
    static std::int32_t query(const std::int8_t* q, int d) noexcept {
        return load4_within(q, d, HeadDim);
    }
    static acc step(acc s, const std::int8_t* k, int stride, int left, std::int32_t q4, mask) noexcept {
        int8x16_t r[4];
        for (int i = 0; i < 4; ++i) r[i] = i < left ? vld1q_s8(k + i * stride) : vdupq_n_s8(0);
        const int16x8_t a = vreinterpretq_s16_s8(vzip1q_s8(r[0], r[1]));
        const int16x8_t b = vreinterpretq_s16_s8(vzip2q_s8(r[0], r[1]));
        const int16x8_t c = vreinterpretq_s16_s8(vzip1q_s8(r[2], r[3]));
        const int16x8_t e = vreinterpretq_s16_s8(vzip2q_s8(r[2], r[3]));
        const int8x16_t qb = vreinterpretq_s8_s32(vdupq_n_s32(q4));
        s.a[0] = vdotq_s32(s.a[0], vreinterpretq_s8_s16(vzip1q_s16(a, c)), qb);
        s.a[1] = vdotq_s32(s.a[1], vreinterpretq_s8_s16(vzip2q_s16(a, c)), qb);
        s.a[2] = vdotq_s32(s.a[2], vreinterpretq_s8_s16(vzip1q_s16(b, e)), qb);
        s.a[3] = vdotq_s32(s.a[3], vreinterpretq_s8_s16(vzip2q_s16(b, e)), qb);
        return s;
    }
};
#endif

// One key row per step, widened to int16 and multiplied by q[d] (SMLAL).
struct scores_neon : scores_neon_common {
    static constexpr int rows = 1;
    template <int>
    static std::int32_t query(const std::int8_t* q, int d) noexcept { return q[d]; }
    static acc step(acc s, const std::int8_t* k, int, int, std::int32_t qd, mask) noexcept {
        const int8x16_t r = vld1q_s8(k);
        const int16x8_t lo = vmovl_s8(vget_low_s8(r)), hi = movl_high(r);
        const std::int16_t q = std::int16_t(qd);
        s.a[0] = vmlal_n_s16(s.a[0], vget_low_s16(lo), q);
        s.a[1] = mlal_high_n(s.a[1], lo, q);
        s.a[2] = vmlal_n_s16(s.a[2], vget_low_s16(hi), q);
        s.a[3] = mlal_high_n(s.a[3], hi, q);
        return s;
    }
};

// ---- linear layer step ------------------------------------------------------------------

#if defined(__aarch64__) && defined(__ARM_FEATURE_DOTPROD)
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
// ARMv7 has 16 q registers (AArch64 32): 2 rows x 2 vectors keep its 8 accumulators, the
// weights and the broadcast in registers (4 rows spill: 0.76 against 0.54 instructions per
// multiply-add on 64 -> 192, bench/ARMV7_INT8.md).
struct linear_neon : unmasked, signed_products {
#if defined(__aarch64__)
    static constexpr int lanes = 4, rows = 4, vecs = 2;
#else
    static constexpr int lanes = 4, rows = 2, vecs = 2;
#endif
    struct acc {
        int32x4_t lo, hi;  // outputs 0..1 and 2..3, two half sums each
    };
    using wvec = int8x16_t;
    using xvec = int8x16_t;
    static acc init(const std::int32_t* bias, std::int32_t, mask) noexcept {
        const int32x4_t b = vld1q_s32(bias), z = vdupq_n_s32(0);
        return {zip_low(b, z), zip_high(b, z)};  // bias[o] in the first half sum of output o
    }
    static wvec load_w(const std::int8_t* w, mask) noexcept { return vld1q_s8(w); }
    static xvec broadcast(std::int32_t x4) noexcept { return vreinterpretq_s8_s32(vdupq_n_s32(x4)); }
    static acc dot(acc a, wvec w, xvec x) noexcept {
        return {vpadalq_s16(a.lo, vmull_s8(vget_low_s8(w), vget_low_s8(x))), vpadalq_s16(a.hi, mull_high(w, x))};
    }
    using params = rescale4_params;
    static void store(std::int8_t* y, acc a, const std::int16_t* multiplier, const params& k, std::int32_t zero_point,
                      mask) noexcept {
        const int32x4_t m = vmovl_s16(vld1_s16(multiplier));
        store4_int8(y, vaddq_s32(rescale4(pairwise_add(a.lo, a.hi), m, k), vdupq_n_s32(zero_point)));
    }
};

// ---- a16w8 linear layer step: SMLAL by lane on int16 inputs ------------------------------

// VLD4 splits a group's 32 weight bytes (eight outputs x four inputs) by input, each widened to
// int16, and SMLAL by lane multiplies input k's eight weights by the row's x[k]: four
// accumulators a row of eight outputs, no pairwise step. |x w| <= 2^22: exact in int32.
struct linear16_neon : unmasked {
#if defined(__aarch64__)
    static constexpr int lanes = 8, rows = 4, vecs = 2;
#else
    static constexpr int lanes = 8, rows = 2, vecs = 1;  // 16 q registers
#endif
    static constexpr bool row_sum = false;
    struct acc {
        int32x4_t lo, hi;  // outputs 0..3, 4..7
    };
    struct wvec {
        int16x8_t in[4];  // input k's weights of the eight outputs
    };
    using xvec = int16x4_t;
    static acc init(const std::int32_t* bias, std::int32_t, mask) noexcept {
        return {vld1q_s32(bias), vld1q_s32(bias + 4)};
    }
    static wvec load_w(const std::int8_t* w, mask) noexcept {
        const int8x8x4_t v = vld4_s8(w);
        return {{vmovl_s8(v.val[0]), vmovl_s8(v.val[1]), vmovl_s8(v.val[2]), vmovl_s8(v.val[3])}};
    }
    static xvec broadcast(std::int64_t x4) noexcept { return vreinterpret_s16_s64(vdup_n_s64(x4)); }
    static acc dot(acc a, const wvec& w, xvec x) noexcept {
        a.lo = vmlal_lane_s16(a.lo, vget_low_s16(w.in[0]), x, 0);
        a.hi = vmlal_lane_s16(a.hi, vget_high_s16(w.in[0]), x, 0);
        a.lo = vmlal_lane_s16(a.lo, vget_low_s16(w.in[1]), x, 1);
        a.hi = vmlal_lane_s16(a.hi, vget_high_s16(w.in[1]), x, 1);
        a.lo = vmlal_lane_s16(a.lo, vget_low_s16(w.in[2]), x, 2);
        a.hi = vmlal_lane_s16(a.hi, vget_high_s16(w.in[2]), x, 2);
        a.lo = vmlal_lane_s16(a.lo, vget_low_s16(w.in[3]), x, 3);
        a.hi = vmlal_lane_s16(a.hi, vget_high_s16(w.in[3]), x, 3);
        return a;
    }
    using params = rescale4_params;
    // The outputs rescaled (zero point 0), clamped to +-limit, stored as int16.
    static void store(std::int16_t* y, acc a, const std::int16_t* multiplier, const params& k, std::int32_t limit,
                      mask) noexcept {
        const int32x4_t hi = vdupq_n_s32(limit), lo = vdupq_n_s32(-limit);
        const int32x4_t first = vmaxq_s32(vminq_s32(rescale4(a.lo, vmovl_s16(vld1_s16(multiplier)), k), hi), lo);
        const int32x4_t second = vmaxq_s32(vminq_s32(rescale4(a.hi, vmovl_s16(vld1_s16(multiplier + 4)), k), hi), lo);
        vst1q_s16(y, vcombine_s16(vmovn_s32(first), vmovn_s32(second)));
    }
};

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
