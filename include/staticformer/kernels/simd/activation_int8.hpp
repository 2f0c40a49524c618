// staticformer: the int8 activation's table lookup with intrinsics (optimised; bit-identical to
// reference/activation_int8.hpp): AVX-512 VBMI, two VPERMI2B per 64 values; elsewhere the
// reference kernel.
#pragma once

#include "../isa/int8.hpp"
#include "../reference/activation_int8.hpp"

namespace staticformer {
namespace kernels {
namespace simd_int8 {

#if defined(STATICFORMER_INT8_X86) && defined(__AVX512VBMI__) && defined(__AVX512BW__)

// table[x + 128]: VPERMI2B looks up 128 entries in two vectors by the index's low 7 bits, which
// are x + 128 for negative x (entries 0..127) and x for x >= 0 (entries 128..255); the sign
// picks one of the two lookups.
inline void activate(std::int8_t* x, int n, const std::int8_t* table) noexcept {
    const __m512i negative0 = _mm512_loadu_si512(table), negative1 = _mm512_loadu_si512(table + 64);
    const __m512i positive0 = _mm512_loadu_si512(table + 128), positive1 = _mm512_loadu_si512(table + 192);
    for (int i = 0; i < n; i += 64) {
        const __mmask64 m = mask64(n - i);
        const __m512i v = _mm512_maskz_loadu_epi8(m, x + i);
        const __m512i from_negative = _mm512_permutex2var_epi8(negative0, v, negative1);
        const __m512i from_positive = _mm512_permutex2var_epi8(positive0, v, positive1);
        _mm512_mask_storeu_epi8(x + i, m, _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), from_positive, from_negative));
    }
}

#else

using reference::activate;  // no vector form on this target

#endif

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
