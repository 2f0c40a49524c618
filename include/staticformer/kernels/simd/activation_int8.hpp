// staticformer: the int8 activation's table lookup with intrinsics (optimised; bit-identical to
// reference/activation_int8.hpp): AVX-512 VBMI, two VPERMI2B per 64 values; elsewhere the
// reference kernel. a16w8's interpolated table: a gather of point pairs per vector (x86).
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

inline void activate(std::int8_t* x, int n, const std::int8_t* table) noexcept {  // no vector form here
    reference::activate(x, n, table);
}

#endif

#if defined(STATICFORMER_INT8_X86)

// a16w8: each lane's table point pair (table[i], table[i + 1]) by one gather, then the
// reference's interpolation, low + (((high - low) f + 64) >> 7), in 32-bit lanes. A partial
// vector is masked (AVX-512; its zero lanes gather point 256) or takes the element formula.
inline void activate(std::int16_t* x, int n, const activation_a16w8& a) noexcept {
    using V = lanes;
    using vec = V::vec;
    constexpr int step = a16w8_limits::table_step_bits;
    const vec offset = V::set1(32768), fraction = V::set1((1 << step) - 1), half = V::set1(1 << (step - 1));
    const vec sixteen = V::set1(16);
    const int done = each_block<V>(n, [&](int c, V::mask m) {
        const vec u = V::add(V::load_i16(x + c, m), offset);
        const vec pair = V::gather_pairs(a.table, V::template srli<step>(u));
        const vec low = V::template srai<16>(V::sllv(pair, sixteen)), high = V::template srai<16>(pair);
        const vec f = V::and_(u, fraction);
        const vec y = V::add(low, V::template srai<step>(V::add(V::mullo(V::sub(high, low), f), half)));
        V::store_i16(x + c, y, m);
    });
    for (int c = done; c < n; ++c) x[c] = reference::activation_value(x[c], a);
}

#else

inline void activate(std::int16_t* x, int n, const activation_a16w8& a) noexcept { reference::activate(x, n, a); }

#endif

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
