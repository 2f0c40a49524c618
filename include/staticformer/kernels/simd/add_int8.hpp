// staticformer: the int8 residual add with intrinsics (optimised; bit-identical to
// reference/add_int8.hpp): acc = (x - x_zero_point) x_multiplier + (a - a_zero_point)
// a_multiplier in 32-bit lanes, then the rescale by 1 (round_shift on x86, SRSHL on NEON) and
// the output's zero point. Elements that fill no whole vector use masks (AVX-512) or the
// reference kernel.
#pragma once

#include "../isa/int8.hpp"
#include "../reference/add_int8.hpp"

namespace staticformer {
namespace kernels {
namespace simd_int8 {

#if defined(STATICFORMER_INT8_AVX512VNNI)

inline void add(std::int8_t* x, const std::int8_t* a, int n, const add_int8& p) noexcept {
    const round_shift_params k(p.shift);
    const __m512i zero_point = _mm512_set1_epi32(p.output_zero_point);
    const __m512i xz = _mm512_set1_epi32(p.x_zero_point), az = _mm512_set1_epi32(p.a_zero_point);
    const __m512i xm = _mm512_set1_epi32(p.x_multiplier), am = _mm512_set1_epi32(p.a_multiplier);
    for (int i = 0; i < n; i += 16) {
        const __mmask16 m = mask16(n - i);
        const __m512i xv = _mm512_maskz_cvtepi8_epi32(all16, _mm_maskz_loadu_epi8(m, x + i));
        const __m512i av = _mm512_maskz_cvtepi8_epi32(all16, _mm_maskz_loadu_epi8(m, a + i));
        const __m512i acc = _mm512_add_epi32(_mm512_maskz_mullo_epi32(all16, _mm512_sub_epi32(xv, xz), xm),
                                             _mm512_maskz_mullo_epi32(all16, _mm512_sub_epi32(av, az), am));
        const __m512i q = _mm512_add_epi32(round_shift16(acc, k), zero_point);
        _mm_mask_storeu_epi8(x + i, m, _mm512_maskz_cvtsepi32_epi8(all16, q));
    }
}

#elif defined(STATICFORMER_INT8_X86)

inline void add(std::int8_t* x, const std::int8_t* a, int n, const add_int8& p) noexcept {
    const round_shift_params k(p.shift);
    const __m256i zero_point = _mm256_set1_epi32(p.output_zero_point);
    const __m256i xz = _mm256_set1_epi32(p.x_zero_point), az = _mm256_set1_epi32(p.a_zero_point);
    const __m256i xm = _mm256_set1_epi32(p.x_multiplier), am = _mm256_set1_epi32(p.a_multiplier);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i xv = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(x + i)));
        const __m256i av = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(a + i)));
        const __m256i acc = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_sub_epi32(xv, xz), xm),
                                             _mm256_mullo_epi32(_mm256_sub_epi32(av, az), am));
        store8_int8(x + i, _mm256_add_epi32(round_shift8(acc, k), zero_point));
    }
    if (i < n) reference::add(x + i, a + i, n - i, p);
}

#elif defined(STATICFORMER_INT8_ARM)

// The rescale by 1 is SRSHL by -shift: (acc + 2^(shift-1)) >> shift with the rounding added in
// full precision (never overflowing), shifts up to 62 included (the shift operand's low byte),
// and never clamped (|acc| < 2^31).
inline void add(std::int8_t* x, const std::int8_t* a, int n, const add_int8& p) noexcept {
    const int32x4_t neg_shift = vdupq_n_s32(-p.shift), zero_point = vdupq_n_s32(p.output_zero_point);
    const int16x8_t xz = vdupq_n_s16(std::int16_t(p.x_zero_point)), az = vdupq_n_s16(std::int16_t(p.a_zero_point));
    const std::int16_t xm = std::int16_t(p.x_multiplier), am = std::int16_t(p.a_multiplier);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        const int16x8_t xv = vsubq_s16(vmovl_s8(vld1_s8(x + i)), xz), av = vsubq_s16(vmovl_s8(vld1_s8(a + i)), az);
        const int32x4_t lo = vmlal_n_s16(vmull_n_s16(vget_low_s16(xv), xm), vget_low_s16(av), am);
        const int32x4_t hi = vmlal_high_n_s16(vmull_high_n_s16(xv, xm), av, am);
        store4_int8(x + i, vaddq_s32(vrshlq_s32(lo, neg_shift), zero_point));
        store4_int8(x + i + 4, vaddq_s32(vrshlq_s32(hi, neg_shift), zero_point));
    }
    if (i < n) reference::add(x + i, a + i, n - i, p);
}

#else

using reference::add;  // no vector form on this target

#endif

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
