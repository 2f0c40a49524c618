// staticformer: the instruction set of the int8 simd kernels, chosen once at compile time
// (optimised kernels only). xsimd 8.1 has no widening integer dot product, so the int8 kernels
// use intrinsics through the per-ISA building blocks included here:
//   STATICFORMER_INT8_AVX512VNNI  x86 AVX-512 VNNI (VPDPBUSD / VPDPWSSD on 512-bit vectors)
//   STATICFORMER_INT8_AVXVNNI     x86 AVX-VNNI (VPDPBUSD on 256-bit vectors)
//   STATICFORMER_INT8_AVX2        x86 AVX2 (sign extension to int16 and VPMADDWD)
//   STATICFORMER_INT8_SDOT        AArch64 NEON with the dot-product extension (SDOT)
//   STATICFORMER_INT8_NEON        AArch64 or ARMv7-A NEON (SMULL / SADALP); on ARMv7 only the
//                                 armv7_neon backend (int8) uses it, float NEON staying off there
// and none of them: the reference kernels. STATICFORMER_INT8_X86 / _ARM name the family;
// linear_isa is the linear layer's step for the chosen set. Integer sums are exact, so the
// order of the additions is free; every rounding step is reproduced lane by lane.
#pragma once

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
#elif defined(__arm__) && defined(__ARM_NEON)
#define STATICFORMER_INT8_NEON 1
#define STATICFORMER_INT8_ISA "armv7-neon"
#else
#define STATICFORMER_INT8_ISA "none"
#endif

#if defined(STATICFORMER_INT8_AVX512VNNI) || defined(STATICFORMER_INT8_AVXVNNI) || defined(STATICFORMER_INT8_AVX2)
#define STATICFORMER_INT8_X86 1
#include "x86_avx2.hpp"
#if defined(__AVX512BW__) && defined(__AVX512VL__)  // (also beside the AVX2 kernels: the VBMI table lookup)
#include "x86_avx512.hpp"
#endif
#if defined(STATICFORMER_INT8_AVXVNNI)
#include "x86_avxvnni.hpp"
#endif
// AMX tiles for the int8 linear layer where the CPU and the OS allow (checked at run time);
// STATICFORMER_NO_AMX leaves them out of the build.
#if defined(STATICFORMER_INT8_AVX512VNNI) && defined(__x86_64__) && defined(__linux__) && !defined(STATICFORMER_NO_AMX)
#define STATICFORMER_INT8_AMX 1
#include "x86_amx.hpp"
#endif
#elif defined(STATICFORMER_INT8_SDOT) || defined(STATICFORMER_INT8_NEON)
#define STATICFORMER_INT8_ARM 1
#include "neon.hpp"
#endif

namespace staticformer {
namespace kernels {
namespace simd_int8 {

// linear_isa: the linear layer's step; linear16_isa: a16w8's (int16 inputs); lanes: 32-bit lanes
// for the element-wise kernels; scores_isa: the attention scores' step on transposed keys.
#if defined(STATICFORMER_INT8_AVX512VNNI)
using linear_isa = linear_avx512;
using linear16_isa = linear16_avx512;
using lanes = lanes16;
using scores_isa = scores_avx512;
#elif defined(STATICFORMER_INT8_AVXVNNI)
using linear_isa = linear_avxvnni;
using linear16_isa = linear16_avx2;
using lanes = lanes8;
using scores_isa = scores_avx2;
#elif defined(STATICFORMER_INT8_AVX2)
using linear_isa = linear_avx2;
using linear16_isa = linear16_avx2;
using lanes = lanes8;
using scores_isa = scores_avx2;
#elif defined(STATICFORMER_INT8_SDOT)
using linear_isa = linear_sdot;
using linear16_isa = linear16_neon;
using lanes = lanes4;
using scores_isa = scores_sdot;
#elif defined(STATICFORMER_INT8_NEON)
using linear_isa = linear_neon;
using linear16_isa = linear16_neon;
using lanes = lanes4;
using scores_isa = scores_neon;
#endif

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
