// staticformer: x86 AVX-512 (BW, VL, VNNI; VBMI where present) building blocks of the int8
// kernels (optimised): the AVX2 ones, 16 lanes of 32 bits with masks for partial vectors, and
// VPDPBUSD on 512-bit vectors for the linear layer's step.
#pragma once

#include "x86_avx2.hpp"

namespace staticformer {
namespace kernels {
namespace simd_int8 {

// The first n (or all 64) bytes of a 512-bit vector.
inline __mmask64 mask64(int n) noexcept { return n >= 64 ? ~__mmask64(0) : (__mmask64(1) << n) - 1; }

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


#if defined(__AVX512VNNI__)

// ---- linear layer step: VPDPBUSD, weights made unsigned, masked tails --------------------

struct linear_avx512 {
    static constexpr int lanes = 16, rows = 4, vecs = 3;  // larger tiles spill (GCC 12, measured)
    static constexpr bool masked = true, row_sum = true;
    using acc = __m512i;
    using wvec = __m512i;
    using xvec = __m512i;
    using mask = __mmask16;
    static mask full() noexcept { return 0xffff; }
    static mask tail(int n) noexcept { return mask16(n); }
    static acc init(const std::int32_t* bias, std::int32_t row, mask m) noexcept {
        return _mm512_add_epi32(_mm512_maskz_loadu_epi32(m, bias), _mm512_set1_epi32(row));
    }
    static wvec load_w(const std::int8_t* w, mask m) noexcept {
        return _mm512_xor_si512(_mm512_maskz_loadu_epi32(m, w), _mm512_set1_epi8(-128));
    }
    static xvec broadcast(std::int32_t x4) noexcept { return _mm512_set1_epi32(x4); }
    static acc dot(acc a, wvec w, xvec x) noexcept { return _mm512_dpbusd_epi32(a, w, x); }
    template <class Params>
    static void store(std::int8_t* y, acc a, const std::int16_t* multiplier, const Params& k, std::int32_t zero_point,
                      mask m) noexcept {
        const __m512i mv = _mm512_maskz_cvtepi16_epi32(all16, _mm256_maskz_loadu_epi16(m, multiplier));
        _mm_mask_storeu_epi8(y, m, _mm512_maskz_cvtsepi32_epi8(all16, requantize16(a, mv, k, zero_point)));
    }
    using params = rescale16_params;
    // sum_i x[i], 64 bytes per step.
    static std::int32_t sum(const std::int8_t* x, int n) noexcept {
        __m512i s = _mm512_setzero_si512();
        const __m512i ones = _mm512_set1_epi8(1);
        int i = 0;
        for (; i + 64 <= n; i += 64) s = _mm512_dpbusd_epi32(s, ones, _mm512_loadu_si512(x + i));
        if (i < n) {
            const __mmask64 m = mask64(n - i);
            s = _mm512_dpbusd_epi32(s, ones, _mm512_maskz_loadu_epi8(m, x + i));
        }
        return hsum16(s);
    }
};

#endif

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
