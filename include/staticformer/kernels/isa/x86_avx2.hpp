// staticformer: x86 AVX2 building blocks of the int8 kernels (optimised): 8 lanes of 32 bits,
// the vector rescale and requantisation (each lane exactly math::rescale() / requantize():
// the 64-bit product acc * multiplier, plus 2^(shift-1), arithmetic shift, clamp to +-2^30),
// and the linear layer's step.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "../../math/fixed_point.hpp"
#include "common.hpp"

namespace staticformer {
namespace kernels {
namespace simd_int8 {

// STATICFORMER_NO_ASM: the twins instead of the x86 assembly blocks (as on Cortex-M).
#if defined(STATICFORMER_NO_ASM)
#define STATICFORMER_X86_ASM 0
#else
#define STATICFORMER_X86_ASM 1
#endif

#if defined(STATICFORMER_INT8_AVXVNNI)
// ---- assembly blocks (AVX-VNNI), each with its C++ twin (namespace twin) ------------------

// acc + the dot products of a and b on 256-bit vectors, VEX forms: VPDPBUSD (unsigned a, signed
// b bytes) and VPDPWSSD (int16 pairs). As on AVX-512 (x86_avx512.hpp), through the intrinsics
// GCC 12 copies each accumulator to another register and back around every instruction and
// spills some of a 4 x 2 tile; the tied operand keeps each in place.
namespace twin {
inline __m256i dpbusd_avx(__m256i acc, __m256i a, __m256i b) noexcept { return _mm256_dpbusd_avx_epi32(acc, a, b); }
inline __m256i dpwssd_avx(__m256i acc, __m256i a, __m256i b) noexcept { return _mm256_dpwssd_avx_epi32(acc, a, b); }
}  // namespace twin

inline __m256i dpbusd_avx(__m256i acc, __m256i a, __m256i b) noexcept {
#if STATICFORMER_X86_ASM
    __asm__("%{vex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(a), "x"(b));
    return acc;
#else
    return twin::dpbusd_avx(acc, a, b);
#endif
}
inline __m256i dpwssd_avx(__m256i acc, __m256i a, __m256i b) noexcept {
#if STATICFORMER_X86_ASM
    __asm__("%{vex%} vpdpwssd %2, %1, %0" : "+x"(acc) : "x"(a), "x"(b));
    return acc;
#else
    return twin::dpwssd_avx(acc, a, b);
#endif
}
#endif

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

inline std::int32_t hmax8(__m256i v) noexcept {
    __m128i m = _mm_max_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0x4e));
    m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0xb1));
    return _mm_cvtsi128_si32(m);
}

// The softmax's u = rescale(d, m, shift) of N vectors, in place, for d = max - s[j] >= 0 and
// m >= 0, as for 16 lanes (x86_avx512.hpp): a logical shift, and quotients above 2^20
// (exponential 0) made all ones by OR-ing in the comparison's mask, where rescale8 emulates the
// arithmetic shift and clamps.
template <int N>
inline void capped_quotients(__m256i (&d)[N], __m256i m, const rescale8_params& p) noexcept {
    const __m256i cap = _mm256_set1_epi64x(std::int64_t(1) << 20);
    const auto quotient = [&](__m256i lanes) {
        const __m256i q = _mm256_srl_epi64(_mm256_add_epi64(_mm256_mul_epu32(lanes, m), p.round), p.count);
        return _mm256_or_si256(q, _mm256_cmpgt_epi64(q, cap));
    };
    __m256i even[N], odd[N];
    each_vector<N>([&](int k) { even[k] = quotient(d[k]); });
    each_vector<N>([&](int k) { odd[k] = quotient(_mm256_srli_epi64(d[k], 32)); });
    each_vector<N>([&](int k) { d[k] = join_halves8(even[k], odd[k]); });
}

// (table[i], table[i + 1]) in the low and high halves of each 32-bit lane, for i in [0, 255]:
// one 32-bit gather at byte offset 2i of the 16-bit table (entry i + 1 <= 256: never past the
// table). The table stays in memory: nothing to load per call.
struct exp2_table8 {};
inline __m256i exp2_table_pairs(__m256i i, const exp2_table8&) noexcept {
    return _mm256_i32gather_epi32(reinterpret_cast<const int*>(math::exp2_table.value), i, 2);
}

// 8 lanes of int32 for the element-wise kernels (isa/common.hpp, each_block): whole vectors
// only; a partial one goes to the reference's element formula.
struct lanes8 : unmasked {
    static constexpr int lanes = 8;
    using vec = __m256i;
    using shift_params = round_shift_params;
    static vec set1(std::int32_t v) noexcept { return _mm256_set1_epi32(v); }
    static vec add(vec a, vec b) noexcept { return _mm256_add_epi32(a, b); }
    static vec sub(vec a, vec b) noexcept { return _mm256_sub_epi32(a, b); }
    static vec mullo(vec a, vec b) noexcept { return _mm256_mullo_epi32(a, b); }
    static vec max(vec a, vec b) noexcept { return _mm256_max_epi32(a, b); }
    static vec min(vec a, vec b) noexcept { return _mm256_min_epi32(a, b); }
    static vec load_i8(const std::int8_t* p, mask) noexcept {
        return _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
    }
    static vec load_i16(const std::int16_t* p, mask) noexcept { return load8_int16(p); }
    static vec load_i32(const std::int32_t* p, mask) noexcept {
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    }
    static void store_i8(std::int8_t* p, vec v, mask) noexcept { store8_int8(p, v); }
    static void store_i16(std::int16_t* p, vec v, mask) noexcept {
        // lanes 0-3 and 4-7 sit in the two halves; the signed pack is exact within int16
        const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p), w);
    }
    static void store_i32(std::int32_t* p, vec v, mask) noexcept {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
    }
    static std::int32_t hsum(vec v) noexcept { return hsum8(v); }
    static std::int32_t hmax(vec v) noexcept { return hmax8(v); }
    static vec round_shift(vec acc, const shift_params& k) noexcept { return round_shift8(acc, k); }
    template <int Count>
    static vec srli(vec v) noexcept { return _mm256_srli_epi32(v, Count); }
    template <int Count>
    static vec srai(vec v) noexcept { return _mm256_srai_epi32(v, Count); }
    static vec and_(vec a, vec b) noexcept { return _mm256_and_si256(a, b); }
    static vec sllv(vec v, vec count) noexcept { return _mm256_sllv_epi32(v, count); }
    static vec mulhi_u16(vec a, vec b) noexcept { return _mm256_mulhi_epu16(a, b); }
    static vec max_in(vec acc, vec v, mask) noexcept { return _mm256_max_epi32(acc, v); }
    // LayerNorm (simd/layer_norm_int8.hpp): 16 int16 values as pairs, VPMADDWD.
    struct pairs : unmasked {
        static constexpr int lanes = 16;
    };
    static vec load_i16_pairs(const std::int16_t* p, pairs::mask) noexcept {
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    }
    static vec madd16(vec a, vec b) noexcept { return _mm256_madd_epi16(a, b); }
    // 64-bit lanes for LayerNorm's products: signed 32 x 32-bit products of the even lanes
    // (VPMULDQ), and 32-bit lanes from the high halves of two vectors of 64-bit lanes.
    static vec mul_even(vec a, vec b) noexcept { return _mm256_mul_epi32(a, b); }
    static vec set1_64(std::int64_t v) noexcept { return _mm256_set1_epi64x(v); }
    static vec add64(vec a, vec b) noexcept { return _mm256_add_epi64(a, b); }
    template <int Count>
    static vec shl64(vec v) noexcept { return _mm256_slli_epi64(v, Count); }
    template <int Count>
    static vec srl64(vec v) noexcept { return _mm256_srli_epi64(v, Count); }
    static vec join_high(vec even, vec odd) noexcept {
        return _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xaa);
    }
    // Attention context (simd/attention_int8.hpp): 16-bit pairs (a value of key j, one of key
    // j + 1) times a probability pair, added pairwise into 32-bit lanes.
    static vec load_pair_rows(const std::int8_t* r0, const std::int8_t* r1, mask) noexcept {
        const __m128i a = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(r0));
        const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(r1));
        return _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(a, b));
    }
    static vec load_paired(const std::int8_t* at) noexcept {  // 16 bytes already interleaved
        return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at)));
    }
    static vec load_paired(const std::int16_t* at) noexcept {  // a16w8: 16 int16 already interleaved
        return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
    }
    // (table[i], table[i + 1]) in the low and high halves of each lane: a 32-bit gather at byte
    // offset 2i of an int16 table (a16w8's activation).
    static vec gather_pairs(const std::int16_t* table, vec i) noexcept {
        return _mm256_i32gather_epi32(reinterpret_cast<const int*>(table), i, 2);
    }
    static vec dot_pairs(vec acc, vec pairs, vec pp) noexcept {
#if defined(STATICFORMER_INT8_AVX512VNNI)
        return _mm256_dpwssd_epi32(acc, pairs, pp);
#elif defined(STATICFORMER_INT8_AVXVNNI)
        return dpwssd_avx(acc, pairs, pp);
#else
        return _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, pp));
#endif
    }
    using rescale_params = rescale8_params;
    static vec rescale(vec acc, vec m, const rescale_params& k) noexcept { return rescale8(acc, m, k); }
    // The softmax's steps (simd/softmax_int8.hpp).
    using exp2_table = exp2_table8;
    template <int N>
    static void capped_quotients(vec (&d)[N], vec m, const rescale_params& p) noexcept {
        simd_int8::capped_quotients(d, m, p);
    }
    static vec exp2_table_pairs(vec i, const exp2_table& t) noexcept { return simd_int8::exp2_table_pairs(i, t); }
    // v >> whole in the lanes where 0 <= whole <= 15, else 0 (whole >= 0: u >> 16).
    static vec shift_below16(vec v, vec whole, mask) noexcept {
        return _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(16), whole), _mm256_srlv_epi32(v, whole));
    }
};

// ---- attention scores step on transposed keys: VPMADDWD on row pairs ------------------------

// 16 keys per block, two key rows per step: sign-extended to int16, interleaved into pairs and
// multiplied by the query pair (q[d], q[d + 1]) with VPMADDWD.
struct scores_avx2 : unmasked {
    static constexpr int keys = 16, rows = 2;
    static constexpr bool row_sum = false;
    struct acc {
        __m256i lo, hi;  // keys 0-3, 8-11 | 4-7, 12-15
    };
    static acc start(std::int32_t) noexcept { return {_mm256_setzero_si256(), _mm256_setzero_si256()}; }
    template <int HeadDim>
    static std::int32_t query(const std::int8_t* q, int d) noexcept {
        const std::int32_t q1 = d + 1 < HeadDim ? q[d + 1] : 0;
        return std::int32_t(std::uint16_t(q[d]) | std::uint32_t(std::uint16_t(q1)) << 16);
    }
    static acc step(acc s, const std::int8_t* k, int stride, int left, std::int32_t qq, mask) noexcept {
        const __m256i r0 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(k)));
        const __m256i r1 = left > 1 ? _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(k + stride)))
                                    : _mm256_setzero_si256();
        const __m256i qv = _mm256_set1_epi32(qq);
        return {_mm256_add_epi32(s.lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(r0, r1), qv)),
                _mm256_add_epi32(s.hi, _mm256_madd_epi16(_mm256_unpackhi_epi16(r0, r1), qv))};
    }
    static void store(std::int32_t* out, const acc& s, int) noexcept {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permute2x128_si256(s.lo, s.hi, 0x20));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8), _mm256_permute2x128_si256(s.lo, s.hi, 0x31));
    }
};

// ---- linear layer step: VPMADDWD on sign-extended pairs ------------------------------------

// No unsigned x signed byte product without saturation (VPMADDUBSW saturates): the weights of
// four outputs are sign-extended to sixteen int16 and VPMADDWD with the row's four inputs
// (sign-extended, repeated) gives two int32 half sums per output; a pair of accumulators holds
// eight outputs' half sums, added pairwise at the end. Tiles of 4 rows x 1 vector: 8
// accumulators, 2 weight and up to 4 input registers of 16: larger tiles spill accumulators
// in the inner loop.
struct linear_avx2 : unmasked, signed_products {
    static constexpr int lanes = 8, rows = 4, vecs = 1;
    struct acc {
        __m256i a, b;  // outputs 0..3 and 4..7, two half sums each
    };
    using wvec = acc;
    using xvec = __m256i;
    static acc init(const std::int32_t* bias, std::int32_t, mask) noexcept {
        // bias[o] in the first half sum of output o, 0 in the second.
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bias));
        const __m256i even = _mm256_setr_epi32(-1, 0, -1, 0, -1, 0, -1, 0);
        return {_mm256_and_si256(_mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3)), even),
                _mm256_and_si256(_mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7)), even)};
    }
    static wvec load_w(const std::int8_t* w, mask) noexcept {
        return {_mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w))),
                _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 16)))};
    }
    static xvec broadcast(std::int32_t x4) noexcept { return _mm256_cvtepi8_epi16(_mm_set1_epi32(x4)); }
    static acc dot(acc s, const wvec& w, xvec x) noexcept {
        return {_mm256_add_epi32(s.a, _mm256_madd_epi16(w.a, x)), _mm256_add_epi32(s.b, _mm256_madd_epi16(w.b, x))};
    }
    template <class Params>
    static void store(std::int8_t* y, acc s, const std::int16_t* multiplier, const Params& k, std::int32_t zero_point,
                      mask) noexcept {
        // hadd: [o0 o1 o4 o5 | o2 o3 o6 o7], then the 64-bit blocks back in order.
        const __m256i v = _mm256_permute4x64_epi64(_mm256_hadd_epi32(s.a, s.b), 0xd8);
        store8_int8(y, requantize8(v, load8_int16(multiplier), k, zero_point));
    }
    using params = rescale8_params;
};

// Clamps 8 int32 lanes to [-limit, limit] and stores them as int16.
inline void store8_clamped_int16(std::int16_t* y, __m256i v, std::int32_t limit) noexcept {
    v = _mm256_max_epi32(_mm256_min_epi32(v, _mm256_set1_epi32(limit)), _mm256_set1_epi32(-limit));
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y), w);
}

// ---- a16w8 linear layer step: VPMADDWD on int16 inputs (VPDPWSSD with VNNI) ---------------

// linear_avx2's widened weights and pairs of half sums; the row's four int16 inputs are
// already pairs, repeated in every 64-bit lane. |x w| <= 2^15 * 2^7: no pair sum saturates.
// With AVX-VNNI (one VPDPWSSD per pair, no product register) tiles of 6 rows: 12 accumulators.
struct linear16_avx2 : linear_avx2 {
#if defined(STATICFORMER_INT8_AVXVNNI)
    static constexpr int rows = 6;
#endif
    static xvec broadcast(std::int64_t x4) noexcept { return _mm256_set1_epi64x(x4); }
    static acc dot(acc s, const wvec& w, xvec x) noexcept {
#if defined(STATICFORMER_INT8_AVX512VNNI)
        return {_mm256_dpwssd_epi32(s.a, w.a, x), _mm256_dpwssd_epi32(s.b, w.b, x)};
#elif defined(STATICFORMER_INT8_AVXVNNI)
        return {dpwssd_avx(s.a, w.a, x), dpwssd_avx(s.b, w.b, x)};
#else
        return linear_avx2::dot(s, w, x);
#endif
    }
    // The outputs rescaled (zero point 0) and clamped to +-limit.
    template <class Params>
    static void store(std::int16_t* y, acc s, const std::int16_t* multiplier, const Params& k, std::int32_t limit,
                      mask) noexcept {
        const __m256i v = _mm256_permute4x64_epi64(_mm256_hadd_epi32(s.a, s.b), 0xd8);
        store8_clamped_int16(y, requantize8(v, load8_int16(multiplier), k, 0), limit);
    }
};

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
