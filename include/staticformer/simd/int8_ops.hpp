// staticformer: the int8 simd kernels' instruction set and their vector requantisation
// (optimised; each lane gives exactly math::rescale() / math::requantize()).
//
// The int8 kernels use intrinsics (xsimd 8.1 has no widening integer dot product). The best
// instruction set available at compile time is chosen once, here:
//   STATICFORMER_INT8_AVX512VNNI  x86 AVX-512 VNNI (VPDPBUSD / VPDPWSSD on 512-bit vectors)
//   STATICFORMER_INT8_AVXVNNI     x86 AVX-VNNI (VPDPBUSD on 256-bit vectors)
//   STATICFORMER_INT8_AVX2        x86 AVX2 (sign extension to int16 and VPMADDWD)
//   STATICFORMER_INT8_SDOT        AArch64 NEON with the dot-product extension (SDOT)
//   STATICFORMER_INT8_NEON        AArch64 NEON (SMULL / SADALP)
// and none of them: the reference kernels. Integer sums are exact, so the order of the
// additions is free; the one rounding step is rescale()'s, reproduced below lane by lane:
// the 64-bit product acc * multiplier, plus 2^(shift-1), arithmetic shift, clamp to +-2^30.
#pragma once

#include <cstdint>
#include <cstring>

#include "../math/fixed_point.hpp"

#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#define STATICFORMER_INT8_AVX512VNNI 1
#define STATICFORMER_INT8_ISA "avx512vnni"
#elif defined(__AVXVNNI__) && defined(__AVX2__)
#define STATICFORMER_INT8_AVXVNNI 1
#define STATICFORMER_INT8_ISA "avxvnni"
#elif defined(__AVX2__)
#define STATICFORMER_INT8_AVX2 1
#define STATICFORMER_INT8_ISA "avx2"
#elif defined(__aarch64__) && defined(__ARM_FEATURE_DOTPROD)
#define STATICFORMER_INT8_SDOT 1
#define STATICFORMER_INT8_ISA "neon-sdot"
#elif defined(__aarch64__) && defined(__ARM_NEON)
#define STATICFORMER_INT8_NEON 1
#define STATICFORMER_INT8_ISA "neon"
#else
#define STATICFORMER_INT8_ISA "none"
#endif

#if defined(STATICFORMER_INT8_AVX512VNNI) || defined(STATICFORMER_INT8_AVXVNNI) || defined(STATICFORMER_INT8_AVX2)
#define STATICFORMER_INT8_X86 1
#include <immintrin.h>
#elif defined(STATICFORMER_INT8_SDOT) || defined(STATICFORMER_INT8_NEON)
#define STATICFORMER_INT8_ARM 1
#include <arm_neon.h>
#endif

namespace staticformer {
namespace kernels {
namespace simd_int8 {

inline std::int32_t load4(const std::int8_t* p) noexcept {
    std::int32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// The first n < 4 bytes of p, zero-extended to four (never reads past p + n).
inline std::int32_t load_partial4(const std::int8_t* p, int n) noexcept {
    std::int8_t b[4] = {0, 0, 0, 0};
    for (int i = 0; i < n; ++i) b[i] = p[i];
    return load4(b);
}

#if defined(STATICFORMER_INT8_X86)

// ---- 256-bit: 8 lanes (AVX2) --------------------------------------------------------------

// floor(v / 2^count) for 64-bit lanes: AVX2 has only the logical shift, so shift v ^ sign and
// flip back (floor(v / 2^n) = ~(~v >> n) for negative v).
inline __m256i sra64(__m256i v, __m128i count) noexcept {
    const __m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), v);
    return _mm256_xor_si256(_mm256_srl_epi64(_mm256_xor_si256(v, sign), count), sign);
}

inline __m256i clamp64(__m256i v) noexcept {
    const __m256i hi = _mm256_set1_epi64x(std::int64_t(1) << 30), lo = _mm256_set1_epi64x(-(std::int64_t(1) << 30));
    v = _mm256_blendv_epi8(v, hi, _mm256_cmpgt_epi64(v, hi));
    return _mm256_blendv_epi8(v, lo, _mm256_cmpgt_epi64(lo, v));
}

struct rescale8_params {
    __m256i round;
    __m128i count;
    explicit rescale8_params(std::int32_t shift) noexcept
        : round(_mm256_set1_epi64x(std::int64_t(1) << (shift - 1))), count(_mm_cvtsi32_si128(shift)) {}
};

// 32-bit lanes from the 64-bit results of the even lanes (`even`) and of the odd ones (`odd`),
// each in the low half of its 64-bit lane.
inline __m256i join_halves8(__m256i even, __m256i odd) noexcept {
    return _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xaa);
}

// rescale(acc[l], m[l], shift) for 8 lanes.
inline __m256i rescale8(__m256i acc, __m256i m, const rescale8_params& k) noexcept {
    __m256i even = _mm256_mul_epi32(acc, m);
    __m256i odd = _mm256_mul_epi32(_mm256_srli_epi64(acc, 32), _mm256_srli_epi64(m, 32));
    even = clamp64(sra64(_mm256_add_epi64(even, k.round), k.count));
    odd = clamp64(sra64(_mm256_add_epi64(odd, k.round), k.count));
    return join_halves8(even, odd);
}

// rescale(acc, 1, shift) for shift >= 1, in 32-bit lanes: (acc + 2^(shift-1)) >> shift =
// floor(acc / 2^shift + 1/2) is floor(acc / 2^shift) plus bit shift - 1 of acc, and lies within
// [-2^30, 2^30] for any 32-bit acc, so it is never clamped. Shifts of 32 or more fill with the
// sign, which keeps both terms right (-1 + 1 or 0 + 0: the rounded quotient is 0).
struct round_shift_params {
    __m128i count, below;
    explicit round_shift_params(std::int32_t shift) noexcept
        : count(_mm_cvtsi32_si128(shift)), below(_mm_cvtsi32_si128(shift - 1)) {}
};

inline __m256i round_shift8(__m256i acc, const round_shift_params& k) noexcept {
    return _mm256_add_epi32(_mm256_sra_epi32(acc, k.count),
                            _mm256_and_si256(_mm256_sra_epi32(acc, k.below), _mm256_set1_epi32(1)));
}

// requantize(acc, m, shift, zero_point) = rescale(acc, m, shift) + zero_point for the linear
// layers' multipliers, 0 <= m < 2^15, and shift >= 17, in 32-bit lanes. With
// acc = 2^16 hi + lo (hi = acc >> 16, 0 <= lo < 2^16),
//   A = floor(acc m / 2^16) = hi m + floor(lo m / 2^16),
// VPMADDWD of acc with m in the high halves of the lanes (hi x m + lo x 0, signed) plus
// VPMULHUW with m in the low halves (floor(lo m / 2^16) in the low half, 0 in the high one).
// Then rescale() = floor((acc m + 2^(s-1)) / 2^s) = floor((A + 2^(t-1)) / 2^t), t = s - 16:
// the dropped bits of acc m are below 2^16, so they cannot carry into bit t. |A| < 2^30, so
// the result is never clamped, and the zero point joins the rounding constant:
// (A + 2^(t-1) + zp 2^t) >> t = ((A + 2^(t-1)) >> t) + zp, exact while |zp| 2^t + 2^(t-1)
// <= 2^30 keeps the sum within int32 (fits(): any int8 zero point for t <= 22, i.e. the usual
// shifts, 17..38; t <= 31 keeps z << t within 64 bits).
struct requantize_narrow_params {
    std::int32_t round;
    __m128i count;
    static bool fits(std::int32_t shift, std::int32_t zero_point) noexcept {
        const int t = shift - 16;
        if (t < 1 || t > 31) return false;
        const std::int64_t z = zero_point < 0 ? -std::int64_t(zero_point) : std::int64_t(zero_point);
        return (z << t) + (std::int64_t(1) << (t - 1)) <= (std::int64_t(1) << 30);
    }
    requantize_narrow_params(std::int32_t shift, std::int32_t zero_point) noexcept
        : round(std::int32_t(std::int64_t(zero_point) * (std::int64_t(1) << (shift - 16)) + (std::int64_t(1) << (shift - 17)))),
          count(_mm_cvtsi32_si128(shift - 16)) {}
};

// requantize(acc[l], m[l], shift, zero_point) for 8 lanes: the general rescale plus the zero point, or
// the narrow form above.
inline __m256i requantize8(__m256i acc, __m256i m, const rescale8_params& k, std::int32_t zero_point) noexcept {
    return _mm256_add_epi32(rescale8(acc, m, k), _mm256_set1_epi32(zero_point));
}

inline __m256i requantize8(__m256i acc, __m256i m, const requantize_narrow_params& k, std::int32_t) noexcept {
    const __m256i a = _mm256_add_epi32(_mm256_madd_epi16(acc, _mm256_slli_epi32(m, 16)), _mm256_mulhi_epu16(acc, m));
    return _mm256_sra_epi32(_mm256_add_epi32(a, _mm256_set1_epi32(k.round)), k.count);
}

// Saturates 8 int32 lanes to int8 and stores them.
inline void store8_int8(std::int8_t* y, __m256i v) noexcept {
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(y), _mm_packs_epi16(w, w));
}

inline __m256i load8_int16(const std::int16_t* p) noexcept {
    return _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

inline std::int32_t hsum8(__m256i v) noexcept {
    __m128i m = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_add_epi32(m, _mm_shuffle_epi32(m, 0x4e));
    m = _mm_add_epi32(m, _mm_shuffle_epi32(m, 0xb1));
    return _mm_cvtsi128_si32(m);
}

#endif

#if defined(STATICFORMER_INT8_X86) && defined(__AVX512BW__)

// The first n (or all 64) bytes of a 512-bit vector.
inline __mmask64 mask64(int n) noexcept { return n >= 64 ? ~__mmask64(0) : (__mmask64(1) << n) - 1; }

#endif

#if defined(STATICFORMER_INT8_AVX512VNNI)

// ---- 512-bit: 16 lanes (AVX-512) ----------------------------------------------------------

struct rescale16_params {
    __m512i round;
    __m128i count;
    explicit rescale16_params(std::int32_t shift) noexcept
        : round(_mm512_set1_epi64(std::int64_t(1) << (shift - 1))), count(_mm_cvtsi32_si128(shift)) {}
};

// GCC 12's unmasked forms of some AVX-512 intrinsics start from an undefined vector that
// -Wuninitialized reports once inlined (GCC bug 105593); the all-ones masked forms do not.
constexpr __mmask8 all8 = 0xff;
constexpr __mmask16 all16 = 0xffff;

inline __m512i clamp64(__m512i v) noexcept {
    return _mm512_maskz_min_epi64(all8, _mm512_maskz_max_epi64(all8, v, _mm512_set1_epi64(-(std::int64_t(1) << 30))),
                                  _mm512_set1_epi64(std::int64_t(1) << 30));
}

// join_halves8 for 16 lanes: one in-lane shuffle moves the odd lanes' low halves into place.
inline __m512i join_halves16(__m512i even, __m512i odd) noexcept {
    return _mm512_mask_shuffle_epi32(even, 0xaaaa, odd, _MM_PERM_CDAB);
}

// rescale(acc[l], m[l], shift) for 16 lanes.
inline __m512i rescale16(__m512i acc, __m512i m, const rescale16_params& k) noexcept {
    __m512i even = _mm512_maskz_mul_epi32(all8, acc, m);
    __m512i odd =
        _mm512_maskz_mul_epi32(all8, _mm512_maskz_srli_epi64(all8, acc, 32), _mm512_maskz_srli_epi64(all8, m, 32));
    even = clamp64(_mm512_maskz_sra_epi64(all8, _mm512_add_epi64(even, k.round), k.count));
    odd = clamp64(_mm512_maskz_sra_epi64(all8, _mm512_add_epi64(odd, k.round), k.count));
    return join_halves16(even, odd);
}

inline __m512i requantize16(__m512i acc, __m512i m, const rescale16_params& k, std::int32_t zero_point) noexcept {
    return _mm512_add_epi32(rescale16(acc, m, k), _mm512_set1_epi32(zero_point));
}

inline __m512i requantize16(__m512i acc, __m512i m, const requantize_narrow_params& k, std::int32_t) noexcept {
    const __m512i a =
        _mm512_add_epi32(_mm512_madd_epi16(acc, _mm512_maskz_slli_epi32(all16, m, 16)), _mm512_mulhi_epu16(acc, m));
    return _mm512_maskz_sra_epi32(all16, _mm512_add_epi32(a, _mm512_set1_epi32(k.round)), k.count);
}

inline __m512i round_shift16(__m512i acc, const round_shift_params& k) noexcept {
    return _mm512_add_epi32(_mm512_maskz_sra_epi32(all16, acc, k.count),
                            _mm512_and_si512(_mm512_maskz_sra_epi32(all16, acc, k.below), _mm512_set1_epi32(1)));
}

inline __mmask16 mask16(int n) noexcept { return n >= 16 ? __mmask16(0xffff) : __mmask16((1u << n) - 1); }
inline __mmask32 mask32(int n) noexcept { return n >= 32 ? __mmask32(0xffffffff) : __mmask32((1u << n) - 1); }

// Lanes reduced in registers: each step adds (or takes the max of) the vector and a copy with
// halves swapped, 256-bit, 128-bit, 64-bit and 32-bit ones, so every lane ends with the total.
// (No 512 -> 256-bit extracts: they trip GCC 12's -Wuninitialized too. A reduction through
// memory, one 64-byte store and sixteen 4-byte loads, cost 8.5% of the tiny int8 encoder.)
template <class Op>
inline std::int32_t reduce16(__m512i v, Op op) noexcept {
    v = op(v, _mm512_maskz_shuffle_i32x4(all16, v, v, 0x4e));
    v = op(v, _mm512_maskz_shuffle_i32x4(all16, v, v, 0xb1));
    v = op(v, _mm512_maskz_shuffle_epi32(all16, v, _MM_PERM_BADC));
    v = op(v, _mm512_maskz_shuffle_epi32(all16, v, _MM_PERM_CDAB));
    return _mm512_cvtsi512_si32(v);
}

inline std::int32_t hsum16(__m512i v) noexcept {
    return reduce16(v, [](__m512i a, __m512i b) { return _mm512_add_epi32(a, b); });
}

inline std::int32_t hmax16(__m512i v) noexcept {
    return reduce16(v, [](__m512i a, __m512i b) { return _mm512_maskz_max_epi32(all16, a, b); });
}

#endif

#if defined(STATICFORMER_INT8_ARM)

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

#endif

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
