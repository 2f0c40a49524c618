// staticformer: the int8 residual add and LayerNorm with intrinsics (optimised; bit-identical to
// reference/int8.hpp).
//   add:        acc = (x - x_zero_point) x_multiplier + (a - a_zero_point) a_multiplier, then the
//               vector rescale by 1 and the output's zero point, lane by lane.
//   layer_norm: the row statistics are the reference's (layer_norm_stats); the outputs
//               z = (centred * reciprocal + 2^31) >> 32 (64-bit lanes), z * gamma + beta, rescale.
// Elements that fill no whole vector use masks (AVX-512) or the reference kernel.
#pragma once

#include "../reference/int8.hpp"
#include "int8_ops.hpp"

namespace staticformer {
namespace kernels {
namespace simd_int8 {

#if defined(STATICFORMER_INT8_AVX512VNNI)

inline void add(std::int8_t* x, const std::int8_t* a, int n, const add_int8& p) noexcept {
    const rescale16_params k(p.shift);
    const __m512i one = _mm512_set1_epi32(1), zero_point = _mm512_set1_epi32(p.output_zero_point);
    const __m512i xz = _mm512_set1_epi32(p.x_zero_point), az = _mm512_set1_epi32(p.a_zero_point);
    const __m512i xm = _mm512_set1_epi32(p.x_multiplier), am = _mm512_set1_epi32(p.a_multiplier);
    for (int i = 0; i < n; i += 16) {
        const __mmask16 m = mask16(n - i);
        const __m512i xv = _mm512_maskz_cvtepi8_epi32(all16, _mm_maskz_loadu_epi8(m, x + i));
        const __m512i av = _mm512_maskz_cvtepi8_epi32(all16, _mm_maskz_loadu_epi8(m, a + i));
        const __m512i acc = _mm512_add_epi32(_mm512_maskz_mullo_epi32(all16, _mm512_sub_epi32(xv, xz), xm),
                                             _mm512_maskz_mullo_epi32(all16, _mm512_sub_epi32(av, az), am));
        const __m512i q = _mm512_add_epi32(rescale16(acc, one, k), zero_point);
        _mm_mask_storeu_epi8(x + i, m, _mm512_maskz_cvtsepi32_epi8(all16, q));
    }
}

// z for eight values, in the low halves of 64-bit lanes (VPMULLQ).
inline __m512i layer_norm_z8(__m128i x8, std::int64_t n, reference::norm_stats_int8 st) noexcept {
    const __m512i x64 = _mm512_maskz_cvtepi8_epi64(all8, x8);
    const __m512i centred = _mm512_sub_epi64(_mm512_maskz_mullo_epi64(all8, x64, _mm512_set1_epi64(n)), _mm512_set1_epi64(st.sum));
    const __m512i prod = _mm512_add_epi64(_mm512_maskz_mullo_epi64(all8, centred, _mm512_set1_epi64(st.reciprocal)),
                                          _mm512_set1_epi64(std::int64_t(1) << 31));
    return _mm512_maskz_srai_epi64(all8, prod, 32);
}

template <int N>
inline void layer_norm(const std::int8_t* x, int rows, const layer_norm_int8<N>& p, std::int8_t* y) noexcept {
    const rescale16_params k(p.shift);
    const __m512i one = _mm512_set1_epi32(1), zero_point = _mm512_set1_epi32(p.output_zero_point);
    const __m512i low_halves = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    for (int r = 0; r < rows; ++r, x += N, y += N) {
        const reference::norm_stats_int8 st = reference::layer_norm_stats(x, p);
        for (int c = 0; c < N; c += 16) {
            const __mmask16 m = mask16(N - c);
            const __m128i x16 = _mm_maskz_loadu_epi8(m, x + c);
            const __m512i z = _mm512_permutex2var_epi32(layer_norm_z8(x16, N, st), low_halves,
                                                        layer_norm_z8(_mm_srli_si128(x16, 8), N, st));
            const __m512i gamma = _mm512_maskz_cvtepi16_epi32(all16, _mm256_maskz_loadu_epi16(m, p.gamma + c));
            const __m512i acc = _mm512_add_epi32(_mm512_maskz_mullo_epi32(all16, z, gamma), _mm512_maskz_loadu_epi32(m, p.beta + c));
            const __m512i q = _mm512_add_epi32(rescale16(acc, one, k), zero_point);
            _mm_mask_storeu_epi8(y + c, m, _mm512_maskz_cvtsepi32_epi8(all16, q));
        }
    }
}

#define STATICFORMER_INT8_SIMD_LAYER_NORM 1

#elif defined(STATICFORMER_INT8_X86)

inline void add(std::int8_t* x, const std::int8_t* a, int n, const add_int8& p) noexcept {
    const rescale8_params k(p.shift);
    const __m256i one = _mm256_set1_epi32(1), zero_point = _mm256_set1_epi32(p.output_zero_point);
    const __m256i xz = _mm256_set1_epi32(p.x_zero_point), az = _mm256_set1_epi32(p.a_zero_point);
    const __m256i xm = _mm256_set1_epi32(p.x_multiplier), am = _mm256_set1_epi32(p.a_multiplier);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i xv = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(x + i)));
        const __m256i av = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(a + i)));
        const __m256i acc = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_sub_epi32(xv, xz), xm),
                                             _mm256_mullo_epi32(_mm256_sub_epi32(av, az), am));
        store8_int8(x + i, _mm256_add_epi32(rescale8(acc, one, k), zero_point));
    }
    if (i < n) reference::add(x + i, a + i, n - i, p);
}

#elif defined(STATICFORMER_INT8_ARM)

inline void add(std::int8_t* x, const std::int8_t* a, int n, const add_int8& p) noexcept {
    const rescale4_params k(p.shift);
    const int32x4_t one = vdupq_n_s32(1), zero_point = vdupq_n_s32(p.output_zero_point);
    const int16x8_t xz = vdupq_n_s16(std::int16_t(p.x_zero_point)), az = vdupq_n_s16(std::int16_t(p.a_zero_point));
    const std::int16_t xm = std::int16_t(p.x_multiplier), am = std::int16_t(p.a_multiplier);
    int i = 0;
    for (; i + 8 <= n; i += 8) {
        const int16x8_t xv = vsubq_s16(vmovl_s8(vld1_s8(x + i)), xz), av = vsubq_s16(vmovl_s8(vld1_s8(a + i)), az);
        const int32x4_t lo = vmlal_n_s16(vmull_n_s16(vget_low_s16(xv), xm), vget_low_s16(av), am);
        const int32x4_t hi = vmlal_high_n_s16(vmull_high_n_s16(xv, xm), av, am);
        store4_int8(x + i, vaddq_s32(rescale4(lo, one, k), zero_point));
        store4_int8(x + i + 4, vaddq_s32(rescale4(hi, one, k), zero_point));
    }
    if (i < n) reference::add(x + i, a + i, n - i, p);
}

#endif

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
