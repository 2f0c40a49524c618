// staticformer: a batch of weights widened to float (optimised; bit-identical to math::widen).
//
// simd::widen(p) loads `width` consecutive weights as a batch of floats: f32 weights as they
// are, f16 weights (binary16 bits) through the hardware conversion where the target has one.
// Every binary16 value is a float, so a correct conversion has no rounding to disagree on;
// tests/fp16_test.cpp checks all 65536 inputs against math::half_bits_to_float_bits in every
// build that uses an instruction below (NaNs included: both quiet them, keeping the payload).
//
//   AVX-512          vcvtph2ps zmm  (_mm512_maskz_cvtph_ps, all lanes)
//   x86-64 F16C      vcvtph2ps ymm  (_mm256_cvtph_ps; every x86-64-v3 CPU has F16C)
//   AArch64          fcvtl          (vcvt_f32_f16)
//   otherwise        math::half_to_float lane by lane (e.g. -mfma without -mf16c)
#pragma once

#include <cstdint>

#include "../../math/fp16.hpp"
#include "ops.hpp"

#if defined(__AVX512F__)
#define STATICFORMER_SIMD_FP16_HARDWARE "AVX-512 vcvtph2ps"
#elif defined(__F16C__) && defined(__AVX__)
#define STATICFORMER_SIMD_FP16_HARDWARE "F16C vcvtph2ps"
#elif defined(__aarch64__)
#define STATICFORMER_SIMD_FP16_HARDWARE "NEON fcvtl"
#endif

namespace staticformer {
namespace kernels {
namespace simd {

inline batch widen(const float* p) noexcept { return load(p); }

inline batch widen(const std::uint16_t* p) noexcept {
#if defined(__AVX512F__)
    // The zero-masking form with every lane selected is the same vcvtph2ps; the plain
    // _mm512_cvtph_ps trips STATICFORMER_GUARD_GCC12_AVX512_UNDEFINED (GCC 12, bug 105593).
    return _mm512_maskz_cvtph_ps(__mmask16(0xffff), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
#elif defined(__F16C__) && defined(__AVX__)
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
#elif defined(__aarch64__)
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p)));
#else
    alignas(64) float lanes[width];
    for (int i = 0; i < width; ++i) lanes[i] = math::half_to_float(p[i]);
    return batch::load_aligned(lanes);
#endif
}

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
