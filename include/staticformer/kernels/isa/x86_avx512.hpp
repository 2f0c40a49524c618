// staticformer: x86 AVX-512 (BW, VL, VNNI; VBMI where present) building blocks of the int8
// kernels (optimised): the AVX2 ones, 16 lanes of 32 bits with masks for partial vectors, and
// VPDPBUSD on 512-bit vectors for the linear layer's step.
#pragma once

#include "x86_avx2.hpp"

namespace staticformer {
namespace kernels {
namespace simd_int8 {

// ---- assembly blocks, each with its C++ twin (namespace twin; STATICFORMER_X86_ASM) -------

// acc + the dot products of a and b, accumulated in acc's register: VPDPWSSD (int16 pairs) and
// VPDPBUSD (unsigned a, signed b bytes). Through the intrinsics, GCC 12 copies every
// accumulator of a register tile to another register and back around each instruction (and
// spills some in an 8 x 2 tile); the tied operand keeps each in place. (Only builds with
// AVX-512 VNNI call them.)
namespace twin {
inline __m512i dpwssd(__m512i acc, __m512i a, __m512i b) noexcept { return _mm512_dpwssd_epi32(acc, a, b); }
inline __m512i dpbusd(__m512i acc, __m512i a, __m512i b) noexcept { return _mm512_dpbusd_epi32(acc, a, b); }
}  // namespace twin

inline __m512i dpwssd(__m512i acc, __m512i a, __m512i b) noexcept {
#if STATICFORMER_X86_ASM
    __asm__("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
    return acc;
#else
    return twin::dpwssd(acc, a, b);
#endif
}
inline __m512i dpbusd(__m512i acc, __m512i a, __m512i b) noexcept {
#if STATICFORMER_X86_ASM
    __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
    return acc;
#else
    return twin::dpbusd(acc, a, b);
#endif
}

// The first n (or all 64) bytes of a 512-bit vector.
inline __mmask64 mask64(int n) noexcept { return n >= 64 ? ~__mmask64(0) : (__mmask64(1) << n) - 1; }

// ---- 512-bit: 16 lanes (AVX-512) ----------------------------------------------------------

struct rescale16_params {
    __m512i round;
    __m128i count;
    explicit rescale16_params(std::int32_t shift) noexcept
        : round(_mm512_set1_epi64(std::int64_t(1) << (shift - 1))), count(_mm_cvtsi32_si128(shift)) {}
};

// STATICFORMER_GUARD_GCC12_AVX512_UNDEFINED (GCC 12; GCC bug 105593): the unmasked forms of some
// AVX-512 intrinsics start from an undefined vector that -Wuninitialized reports once inlined;
// the all-ones masked forms do not.
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
// (No 512 -> 256-bit extracts: STATICFORMER_GUARD_GCC12_AVX512_UNDEFINED; a reduction through
// memory puts a store-to-load wait on every row.)
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

// The exponential's table, entries 0..255 in eight vectors of 32, loaded once per call.
struct exp2_table16 {
    __m512i part[8];
    exp2_table16() noexcept {
        for (int k = 0; k < 8; ++k) part[k] = _mm512_loadu_si512(math::exp2_table.value + 32 * k);
    }
};

// (table[i], table[i + 1]) in the low and high halves of each 32-bit lane, for i in [0, 255]:
// each 16-bit half looks up its own index (i, then i + 1) with VPERMI2W in the four 64-entry
// pairs of vectors, picked by the index's bits 6 and 7; index 256 is the last end point, 16384.
// (A 32-bit gather at byte offset 2i loads the same pair, but its latency sits on each row's
// critical path.)
inline __m512i exp2_table_pairs(__m512i i, const exp2_table16& t) noexcept {
    const __m512i index = _mm512_add_epi32(i, _mm512_maskz_slli_epi32(all16, _mm512_add_epi32(i, _mm512_set1_epi32(1)), 16));
    const __m512i q0 = _mm512_permutex2var_epi16(t.part[0], index, t.part[1]);
    const __m512i q1 = _mm512_permutex2var_epi16(t.part[2], index, t.part[3]);
    const __m512i q2 = _mm512_permutex2var_epi16(t.part[4], index, t.part[5]);
    const __m512i q3 = _mm512_permutex2var_epi16(t.part[6], index, t.part[7]);
    const __mmask32 bit6 = _mm512_test_epi16_mask(index, _mm512_set1_epi16(64));
    const __mmask32 bit7 = _mm512_test_epi16_mask(index, _mm512_set1_epi16(128));
    const __mmask32 bit8 = _mm512_test_epi16_mask(index, _mm512_set1_epi16(256));
    const __m512i below256 = _mm512_mask_blend_epi16(bit7, _mm512_mask_blend_epi16(bit6, q0, q1),
                                                     _mm512_mask_blend_epi16(bit6, q2, q3));
    return _mm512_mask_blend_epi16(bit8, below256, _mm512_set1_epi16(std::int16_t(math::exp2_table.value[256])));
}

// The softmax's u = rescale(d, m, shift) of N vectors, in place, for d = max - s[j] >= 0 and
// m >= 0 (one multiplier in every lane): the product and the quotient are never negative, and
// every u >= 2^20 gives the same exponential, 0 (u >> 16 > 15), so a quotient of 2^20 or more
// may be any value of 2^20 or more: here capped at 2^20 by one unsigned minimum instead of
// clamped to +-2^30, with a logical shift.
template <int N>
inline void capped_quotients(__m512i (&d)[N], __m512i m, const rescale16_params& p) noexcept {
    const __m512i cap = _mm512_set1_epi64(std::int64_t(1) << 20);
    const auto quotient = [&](__m512i lanes) {
        const __m512i product = _mm512_maskz_mul_epu32(all8, lanes, m);
        const __m512i q = _mm512_maskz_srl_epi64(all8, _mm512_add_epi64(product, p.round), p.count);
        return _mm512_maskz_min_epu64(all8, q, cap);
    };
    __m512i even[N], odd[N];
    each_vector<N>([&](int k) { even[k] = quotient(d[k]); });
    each_vector<N>([&](int k) { odd[k] = quotient(_mm512_maskz_srli_epi64(all8, d[k], 32)); });
    each_vector<N>([&](int k) { d[k] = join_halves16(even[k], odd[k]); });
}

// 16 lanes of int32 for the element-wise kernels (isa/common.hpp, each_block): the last,
// partial vector masked.
struct lanes16 {
    static constexpr int lanes = 16;
    static constexpr bool masked = true;
    using vec = __m512i;
    using mask = __mmask16;
    using shift_params = round_shift_params;
    static mask full() noexcept { return all16; }
    static mask tail(int n) noexcept { return mask16(n); }
    static vec set1(std::int32_t v) noexcept { return _mm512_set1_epi32(v); }
    static vec add(vec a, vec b) noexcept { return _mm512_add_epi32(a, b); }
    static vec sub(vec a, vec b) noexcept { return _mm512_sub_epi32(a, b); }
    static vec mullo(vec a, vec b) noexcept { return _mm512_maskz_mullo_epi32(all16, a, b); }
    static vec max(vec a, vec b) noexcept { return _mm512_maskz_max_epi32(all16, a, b); }
    static vec min(vec a, vec b) noexcept { return _mm512_maskz_min_epi32(all16, a, b); }
    static vec load_i8(const std::int8_t* p, mask m) noexcept {
        return _mm512_maskz_cvtepi8_epi32(all16, _mm_maskz_loadu_epi8(m, p));
    }
    static vec load_i16(const std::int16_t* p, mask m) noexcept {
        return _mm512_maskz_cvtepi16_epi32(all16, _mm256_maskz_loadu_epi16(m, p));
    }
    static vec load_i32(const std::int32_t* p, mask m) noexcept { return _mm512_maskz_loadu_epi32(m, p); }
    static void store_i8(std::int8_t* p, vec v, mask m) noexcept {
        _mm_mask_storeu_epi8(p, m, _mm512_maskz_cvtsepi32_epi8(all16, v));
    }
    static void store_i16(std::int16_t* p, vec v, mask m) noexcept {
        _mm256_mask_storeu_epi16(p, m, _mm512_maskz_cvtepi32_epi16(all16, v));
    }
    static void store_i32(std::int32_t* p, vec v, mask m) noexcept { _mm512_mask_storeu_epi32(p, m, v); }
    static std::int32_t hsum(vec v) noexcept { return hsum16(v); }
    static std::int32_t hmax(vec v) noexcept { return hmax16(v); }
    static vec round_shift(vec acc, const shift_params& k) noexcept { return round_shift16(acc, k); }
    template <int Count>
    static vec srli(vec v) noexcept { return _mm512_maskz_srli_epi32(all16, v, Count); }
    template <int Count>
    static vec srai(vec v) noexcept { return _mm512_maskz_srai_epi32(all16, v, Count); }
    static vec and_(vec a, vec b) noexcept { return _mm512_and_si512(a, b); }
    static vec sllv(vec v, vec count) noexcept { return _mm512_maskz_sllv_epi32(all16, v, count); }
    static vec mulhi_u16(vec a, vec b) noexcept { return _mm512_mulhi_epu16(a, b); }
    // max(acc, v) in the lanes of m, acc in the others.
    static vec max_in(vec acc, vec v, mask m) noexcept { return _mm512_mask_max_epi32(acc, m, acc, v); }
    // LayerNorm (simd/layer_norm_int8.hpp): 32 int16 values as pairs, VPMADDWD.
    struct pairs {
        static constexpr int lanes = 32;
        static constexpr bool masked = true;
        using mask = __mmask32;
        static mask full() noexcept { return 0xffffffff; }
        static mask tail(int n) noexcept { return mask32(n); }
    };
    static vec load_i16_pairs(const std::int16_t* p, pairs::mask m) noexcept { return _mm512_maskz_loadu_epi16(m, p); }
    static vec madd16(vec a, vec b) noexcept { return _mm512_madd_epi16(a, b); }
    // 64-bit lanes for LayerNorm's products: signed 32 x 32-bit products of the even lanes
    // (VPMULDQ), and 32-bit lanes from the high halves of two vectors of 64-bit lanes.
    static vec mul_even(vec a, vec b) noexcept { return _mm512_maskz_mul_epi32(all8, a, b); }
    static vec set1_64(std::int64_t v) noexcept { return _mm512_set1_epi64(v); }
    static vec add64(vec a, vec b) noexcept { return _mm512_add_epi64(a, b); }
    template <int Count>
    static vec shl64(vec v) noexcept { return _mm512_maskz_slli_epi64(all8, v, Count); }
    template <int Count>
    static vec srl64(vec v) noexcept { return _mm512_maskz_srli_epi64(all8, v, Count); }
    static vec join_high(vec even, vec odd) noexcept {
        return _mm512_mask_blend_epi32(0xaaaa, _mm512_maskz_srli_epi64(all8, even, 32), odd);
    }
    // Attention context (simd/attention_int8.hpp): 16-bit pairs (a value of key j, one of key
    // j + 1) times a probability pair, added pairwise into 32-bit lanes (VPDPWSSD).
    static vec load_pair_rows(const std::int8_t* r0, const std::int8_t* r1, mask m) noexcept {
        const __m128i a = _mm_maskz_loadu_epi8(m, r0), b = _mm_maskz_loadu_epi8(m, r1);
        const __m256i pairs =
            _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi8(a, b)), _mm_unpackhi_epi8(a, b), 1);
        return _mm512_maskz_cvtepi8_epi16(~__mmask32(0), pairs);
    }
    static vec load_paired(const std::int8_t* at) noexcept {  // 32 bytes already interleaved
        return _mm512_maskz_cvtepi8_epi16(~__mmask32(0), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at)));
    }
    static vec load_paired(const std::int16_t* at) noexcept { return _mm512_loadu_si512(at); }  // a16w8: 32 int16
    static vec gather_pairs(const std::int16_t* table, vec i) noexcept {  // as lanes8's
        return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), all16, i, table, 2);
    }
    static vec dot_pairs(vec acc, vec pairs, vec pp) noexcept { return dpwssd(acc, pairs, pp); }
    static vec rescale(vec acc, vec m, const rescale16_params& k) noexcept { return rescale16(acc, m, k); }
    // The softmax's steps (simd/softmax_int8.hpp).
    using rescale_params = rescale16_params;
    using exp2_table = exp2_table16;
    template <int N>
    static void capped_quotients(vec (&d)[N], vec m, const rescale_params& p) noexcept {
        simd_int8::capped_quotients(d, m, p);
    }
    static vec exp2_table_pairs(vec i, const exp2_table& t) noexcept { return simd_int8::exp2_table_pairs(i, t); }
    // v >> whole in the lanes of `live` where whole <= 15, else 0 (whole >= 0: u >> 16).
    static vec shift_below16(vec v, vec whole, mask live) noexcept {
        return _mm512_maskz_srlv_epi32(_mm512_mask_cmple_epu32_mask(live, whole, _mm512_set1_epi32(15)), v, whole);
    }
};

// ---- attention scores step on transposed keys: VPDPBUSD, keys made unsigned --------------------

#if defined(__AVX512VNNI__)

// 64 keys per block (masked), four key rows per step: interleaved byte by byte so that each
// 32-bit lane holds one key's four values, made unsigned (k xor 0x80 = k + 128, the block's
// accumulators starting at -128 * sum_d q[d]), times the query's four bytes broadcast.
struct scores_avx512 {
    static constexpr int keys = 64, rows = 4;
    static constexpr bool masked = true, row_sum = true;
    using mask = __mmask64;
    static mask full() noexcept { return ~__mmask64(0); }
    static mask tail(int n) noexcept { return mask64(n); }
    struct acc {
        __m512i a[4];  // per 128-bit lane L: a[u] holds keys 16 L + 4 u .. 16 L + 4 u + 3
    };
    static acc start(std::int32_t bias) noexcept {
        const __m512i b = _mm512_set1_epi32(bias);
        return {{b, b, b, b}};
    }
    template <int HeadDim>
    static std::int32_t query(const std::int8_t* q, int d) noexcept {
        return load4_within(q, d, HeadDim);
    }
    // acc + rows d..d+3 of the keys (k, `stride` apart; rows >= left are zero) times q4.
    static acc step(acc s, const std::int8_t* k, int stride, int left, std::int32_t q4, mask m) noexcept {
        const __m512i flip = _mm512_set1_epi8(-128);
        __m512i r[4];
        for (int i = 0; i < 4; ++i)
            r[i] = i < left ? _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, k + i * stride), flip)
                            : _mm512_setzero_si512();
        const __m512i a = _mm512_unpacklo_epi8(r[0], r[1]), b = _mm512_unpackhi_epi8(r[0], r[1]);
        const __m512i c = _mm512_unpacklo_epi8(r[2], r[3]), e = _mm512_unpackhi_epi8(r[2], r[3]);
        const __m512i qb = _mm512_set1_epi32(q4);
        s.a[0] = dpbusd(s.a[0], _mm512_unpacklo_epi16(a, c), qb);
        s.a[1] = dpbusd(s.a[1], _mm512_unpackhi_epi16(a, c), qb);
        s.a[2] = dpbusd(s.a[2], _mm512_unpacklo_epi16(b, e), qb);
        s.a[3] = dpbusd(s.a[3], _mm512_unpackhi_epi16(b, e), qb);
        return s;
    }
    // The 4 x 4 blocks of 128 bits transposed (output u: keys 16 u .. 16 u + 15), `left` stored.
    static void store(std::int32_t* out, const acc& s, int left) noexcept {
        const __m512i u0 = _mm512_maskz_shuffle_i32x4(all16, s.a[0], s.a[1], 0x44),
                      u1 = _mm512_maskz_shuffle_i32x4(all16, s.a[2], s.a[3], 0x44);
        const __m512i u2 = _mm512_maskz_shuffle_i32x4(all16, s.a[0], s.a[1], 0xee),
                      u3 = _mm512_maskz_shuffle_i32x4(all16, s.a[2], s.a[3], 0xee);
        const __m512i o[4] = {
            _mm512_maskz_shuffle_i32x4(all16, u0, u1, 0x88), _mm512_maskz_shuffle_i32x4(all16, u0, u1, 0xdd),
            _mm512_maskz_shuffle_i32x4(all16, u2, u3, 0x88), _mm512_maskz_shuffle_i32x4(all16, u2, u3, 0xdd)};
        for (int u = 0; u < 4 && 16 * u < left; ++u)
            _mm512_mask_storeu_epi32(out + 16 * u, mask16(left - 16 * u), o[u]);
    }
};

#endif

#if defined(__AVX512VNNI__)

// ---- linear layer step: VPDPBUSD, weights made unsigned, masked tails --------------------

// Tiles of 8 rows x 48 outputs: 24 accumulators, three weight vectors, the broadcast and the
// flip constant in the 32 registers (with dpbusd's accumulators in place; through the intrinsic
// GCC 12 spilled anything above 4 x 3).
struct linear_avx512 {
    static constexpr int lanes = 16, rows = 8, vecs = 3;
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
    static acc dot(acc a, wvec w, xvec x) noexcept { return dpbusd(a, w, x); }
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

// ---- a16w8 linear layer step: VPDPWSSD on int16 inputs and widened weights ---------------

// Eight outputs a vector: their 32 weight bytes (eight outputs x four inputs) sign-extended to
// int16 pairs, so 32-bit lane 2j holds output j's inputs 0, 1 and lane 2j + 1 its inputs 2, 3;
// the row's four int16 inputs repeat in every 64-bit lane, and VPDPWSSD adds two half sums per
// output. Masked outputs load zero weights and store nothing. One plain vector per accumulator
// and tiles of 8 rows x 16 outputs: a pair of vectors per accumulator made GCC 12 copy and
// spill them in the inner loop, and 8 rows widen each weight vector for twice the products.
struct linear16_avx512 {
    static constexpr int lanes = 8, rows = 8, vecs = 2;
    static constexpr bool masked = true, row_sum = false;
    using acc = __m512i;
    using wvec = __m512i;
    using xvec = __m512i;
    using mask = __mmask8;
    static mask full() noexcept { return all8; }
    static mask tail(int n) noexcept { return n >= 8 ? all8 : __mmask8((1u << n) - 1); }
    static acc init(const std::int32_t* bias, std::int32_t, mask m) noexcept {
        // bias[o] zero-extended to 64 bits: the first half sum of output o, 0 in the second
        return _mm512_maskz_cvtepu32_epi64(all8, _mm256_maskz_loadu_epi32(m, bias));
    }
    static wvec load_w(const std::int8_t* w, mask m) noexcept {
        return _mm512_maskz_cvtepi8_epi16(~__mmask32(0), _mm256_maskz_loadu_epi32(m, w));
    }
    static xvec broadcast(std::int64_t x4) noexcept { return _mm512_set1_epi64(x4); }
    static acc dot(acc s, wvec w, xvec x) noexcept { return dpwssd(s, w, x); }
    // Each output's two half sums added (lane 2j), narrowed to eight lanes, rescaled (zero point
    // 0), clamped to +-limit, stored as int16.
    template <class Params>
    static void store(std::int16_t* y, acc s, const std::int16_t* multiplier, const Params& k, std::int32_t limit,
                      mask m) noexcept {
        const __m512i pairs = _mm512_add_epi32(s, _mm512_maskz_srli_epi64(all8, s, 32));
        const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 0, 0, 0, 0, 0, 0, 0, 0);
        const __m512i sums = _mm512_maskz_permutexvar_epi32(0x00ff, even, pairs);
        const __m512i mv = _mm512_maskz_cvtepi16_epi32(all16, _mm256_maskz_loadu_epi16(m, multiplier));
        const __m512i v = requantize16(sums, mv, k, 0);
        const __m512i clamped = _mm512_maskz_max_epi32(
            all16, _mm512_maskz_min_epi32(all16, v, _mm512_set1_epi32(limit)), _mm512_set1_epi32(-limit));
        _mm256_mask_storeu_epi16(y, m, _mm512_maskz_cvtepi32_epi16(all16, clamped));
    }
    using params = rescale16_params;
};

#endif

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
