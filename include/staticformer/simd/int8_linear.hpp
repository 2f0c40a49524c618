// staticformer: int8 y = x W + b with intrinsics (optimised; bit-identical to reference/int8.hpp).
//
// The weights' layout w[i / 4][o][i % 4] puts, for one group of four inputs, the four weights of
// each output in one 32-bit lane: a vector load covers `lanes` outputs x 4 inputs, the four
// inputs of a row are broadcast to every lane, and one widening dot-product instruction adds
// the four products into each output's int32 accumulator. A register tile of Rows x Vecs
// accumulators reuses each weight load across rows and each broadcast across vectors.
//
// VPDPBUSD multiplies unsigned by signed bytes. The weights are made unsigned, w + 128 (w xor
// 0x80, exact for every int8 including -128), and the accumulator starts at
// bias - 128 * sum_i x[i]: one row sum per call, shared by every output (column sums of w would
// have to be recomputed in every call, the weights being constants in flash). Sums wrap
// modulo 2^32 like the reference's int32 arithmetic, so the result is the same integer.
// Each accumulator then goes through the vector rescale (int8_ops.hpp; on x86 the shorter one for
// int16 multipliers when the shift is at least 17, the usual case, with the zero point in its
// rounding constant: tiny linear kernels, AVX-512, 1-3% faster). Columns that fill no
// whole vector use masked loads and stores (AVX-512) or the reference's per-output routine.
#pragma once

#include "../reference/int8.hpp"
#include "int8_ops.hpp"

namespace staticformer {
namespace kernels {
namespace simd_int8 {

#if defined(STATICFORMER_INT8_X86) || defined(STATICFORMER_INT8_ARM)

// Instruction sets without masked loads: partial vectors go to the reference's per-output routine.
struct unmasked {
    static constexpr bool masked = false;
    using mask = int;
    static mask full() noexcept { return 0; }
    static mask tail(int) noexcept { return 0; }
};

// Instruction sets that multiply signed by signed bytes: no row sums.
struct signed_products {
    static constexpr bool row_sum = false;
    static std::int32_t sum(const std::int8_t*, int) noexcept { return 0; }
};

#endif

#if defined(STATICFORMER_INT8_AVX512VNNI)

struct linear_isa {
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

#elif defined(STATICFORMER_INT8_AVXVNNI)

struct linear_isa : unmasked {
    static constexpr int lanes = 8, rows = 4, vecs = 2;
    static constexpr bool row_sum = true;
    using acc = __m256i;
    using wvec = __m256i;
    using xvec = __m256i;
    static acc init(const std::int32_t* bias, std::int32_t row, mask) noexcept {
        return _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(bias)), _mm256_set1_epi32(row));
    }
    static wvec load_w(const std::int8_t* w, mask) noexcept {
        return _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w)), _mm256_set1_epi8(-128));
    }
    static xvec broadcast(std::int32_t x4) noexcept { return _mm256_set1_epi32(x4); }
    static acc dot(acc a, wvec w, xvec x) noexcept { return _mm256_dpbusd_avx_epi32(a, w, x); }
    template <class Params>
    static void store(std::int8_t* y, acc a, const std::int16_t* multiplier, const Params& k, std::int32_t zero_point,
                      mask) noexcept {
        store8_int8(y, requantize8(a, load8_int16(multiplier), k, zero_point));
    }
    using params = rescale8_params;
    static std::int32_t sum(const std::int8_t* x, int n) noexcept {
        __m256i s = _mm256_setzero_si256();
        const __m256i ones = _mm256_set1_epi8(1);
        int i = 0;
        for (; i + 32 <= n; i += 32)
            s = _mm256_dpbusd_avx_epi32(s, ones, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i)));
        std::int32_t total = hsum8(s);
        for (; i < n; ++i) total += x[i];
        return total;
    }
};

#elif defined(STATICFORMER_INT8_AVX2)

// No unsigned x signed byte product without saturation (VPMADDUBSW saturates): the weights of
// four outputs are sign-extended to sixteen int16 and VPMADDWD with the row's four inputs
// (sign-extended, repeated) gives two int32 half sums per output; a pair of accumulators holds
// eight outputs' half sums, added pairwise at the end. Tiles of 4 rows x 1 vector: 8
// accumulators, 2 weight and up to 4 input registers of 16. (2 x 3 tiles, 12 accumulators and
// 6 weight registers, spilled 8 accumulators to the stack in every step of the inner loop:
// encoder 4-8% slower, linear kernels up to 13%; 2 x 2, 3 x 2, 5 x 1, 6 x 1, 8 x 1 no better.
// Widening a column block's weights once into an int16 panel on the stack, for all its row
// tiles: 8.6% fewer instructions, but 64-row calls 8-15% slower.)
struct linear_isa : unmasked, signed_products {
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

#elif defined(STATICFORMER_INT8_SDOT)

struct linear_isa : unmasked, signed_products {
    static constexpr int lanes = 4, rows = 4, vecs = 4;
    using acc = int32x4_t;
    using wvec = int8x16_t;
    using xvec = int8x16_t;
    static acc init(const std::int32_t* bias, std::int32_t, mask) noexcept { return vld1q_s32(bias); }
    static wvec load_w(const std::int8_t* w, mask) noexcept { return vld1q_s8(w); }
    static xvec broadcast(std::int32_t x4) noexcept { return vreinterpretq_s8_s32(vdupq_n_s32(x4)); }
    static acc dot(acc a, wvec w, xvec x) noexcept { return vdotq_s32(a, w, x); }
    using params = rescale4_params;
    static void store(std::int8_t* y, acc a, const std::int16_t* multiplier, const params& k, std::int32_t zero_point,
                      mask) noexcept {
        const int32x4_t m = vmovl_s16(vld1_s16(multiplier));
        store4_int8(y, vaddq_s32(rescale4(a, m, k), vdupq_n_s32(zero_point)));
    }
};

#elif defined(STATICFORMER_INT8_NEON)

// SMULL gives eight int16 products (|w x| <= 2^14, exact) and SADALP adds them pairwise into
// int32: two half sums per output, added pairwise at the end.
struct linear_isa : unmasked, signed_products {
    static constexpr int lanes = 4, rows = 4, vecs = 2;
    struct acc {
        int32x4_t lo, hi;  // outputs 0..1 and 2..3, two half sums each
    };
    using wvec = int8x16_t;
    using xvec = int8x16_t;
    static acc init(const std::int32_t* bias, std::int32_t, mask) noexcept {
        const int32x4_t b = vld1q_s32(bias), z = vdupq_n_s32(0);
        return {vzip1q_s32(b, z), vzip2q_s32(b, z)};  // bias[o] in the first half sum of output o
    }
    static wvec load_w(const std::int8_t* w, mask) noexcept { return vld1q_s8(w); }
    static xvec broadcast(std::int32_t x4) noexcept { return vreinterpretq_s8_s32(vdupq_n_s32(x4)); }
    static acc dot(acc a, wvec w, xvec x) noexcept {
        return {vpadalq_s16(a.lo, vmull_s8(vget_low_s8(w), vget_low_s8(x))), vpadalq_s16(a.hi, vmull_high_s8(w, x))};
    }
    using params = rescale4_params;
    static void store(std::int8_t* y, acc a, const std::int16_t* multiplier, const params& k, std::int32_t zero_point,
                      mask) noexcept {
        const int32x4_t m = vmovl_s16(vld1_s16(multiplier));
        store4_int8(y, vaddq_s32(rescale4(vpaddq_s32(a.lo, a.hi), m, k), vdupq_n_s32(zero_point)));
    }
};

#endif

#if defined(STATICFORMER_INT8_X86) || defined(STATICFORMER_INT8_ARM)

// Rows x Vecs vectors of outputs from column c; with Tail, the last vector is masked by tail.
template <int In, int Out, int Rows, int Vecs, bool Tail, class Params>
inline void linear_tile(const std::int8_t* x, const linear_int8<In, Out>& p, const std::int32_t* row_init,
                        std::int8_t* y, int c, typename linear_isa::mask tail,
                        const Params& k) noexcept {
    using I = linear_isa;
    constexpr int L = I::lanes;
    typename I::mask m[Vecs];
#pragma GCC unroll 8
    for (int v = 0; v < Vecs; ++v) m[v] = Tail && v == Vecs - 1 ? tail : I::full();
    typename I::acc acc[Rows][Vecs];
#pragma GCC unroll 8
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 8
        for (int v = 0; v < Vecs; ++v) acc[r][v] = I::init(p.bias + c + v * L, row_init[r], m[v]);
    constexpr int whole = In / 4;
    for (int g = 0; g < whole; ++g) {
        typename I::wvec wv[Vecs];
#pragma GCC unroll 8
        for (int v = 0; v < Vecs; ++v) wv[v] = I::load_w(&p.w[g][c + v * L][0], m[v]);
#pragma GCC unroll 8
        for (int r = 0; r < Rows; ++r) {
            const typename I::xvec xb = I::broadcast(load4(x + r * In + 4 * g));
#pragma GCC unroll 8
            for (int v = 0; v < Vecs; ++v) acc[r][v] = I::dot(acc[r][v], wv[v], xb);
        }
    }
    if constexpr (In % 4 != 0) {  // the last group: In % 4 inputs, zero weights beyond
        typename I::wvec wv[Vecs];
#pragma GCC unroll 8
        for (int v = 0; v < Vecs; ++v) wv[v] = I::load_w(&p.w[whole][c + v * L][0], m[v]);
#pragma GCC unroll 8
        for (int r = 0; r < Rows; ++r) {
            const typename I::xvec xb = I::broadcast(load_partial4(x + r * In + 4 * whole, In % 4));
#pragma GCC unroll 8
            for (int v = 0; v < Vecs; ++v) acc[r][v] = I::dot(acc[r][v], wv[v], xb);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 8
        for (int v = 0; v < Vecs; ++v)
            I::store(y + r * Out + c + v * L, acc[r][v], p.multiplier + c + v * L, k, p.output_zero_point, m[v]);
}

// Rows rows of one column block: Vecs vectors from column c (the last one masked by tail).
template <int In, int Out, int Rows, int Vecs, bool Tail, class Params>
inline void linear_block(const std::int8_t* x, const std::int32_t* row_init, const linear_int8<In, Out>& p,
                         std::int8_t* y, int c, typename linear_isa::mask tail, const Params& k) noexcept {
    linear_tile<In, Out, Rows, Vecs, Tail>(x, p, row_init, y, c, tail, k);
}

// Every row of one column block: tiles of linear_isa::rows rows, then one tile of the rest.
template <int In, int Out, int Vecs, bool Tail, int Rows = linear_isa::rows, class Params>
inline void linear_column_block(const std::int8_t* x, int rows, const std::int32_t* row_init,
                                const linear_int8<In, Out>& p, std::int8_t* y, int c, typename linear_isa::mask tail,
                                const Params& k) noexcept {
    if constexpr (Rows == linear_isa::rows) {
        int r = 0;
        for (; r + Rows <= rows; r += Rows)
            linear_block<In, Out, Rows, Vecs, Tail>(x + r * In, row_init + r, p, y + r * Out, c, tail, k);
        if (r < rows)
            linear_column_block<In, Out, Vecs, Tail, Rows - 1>(x + r * In, rows - r, row_init + r, p, y + r * Out, c, tail, k);
    } else if constexpr (Rows > 0) {
        if (rows == Rows) linear_block<In, Out, Rows, Vecs, Tail>(x, row_init, p, y, c, tail, k);
        else linear_column_block<In, Out, Vecs, Tail, Rows - 1>(x, rows, row_init, p, y, c, tail, k);
    }
}

// Every column of a chunk of rows, each output requantised with k.
template <int In, int Out, class Params>
inline void linear_columns(const std::int8_t* x, int rows, const std::int32_t* row_init, const linear_int8<In, Out>& p,
                           std::int8_t* y, const Params& k) noexcept {
    using I = linear_isa;
    constexpr int L = I::lanes, V = I::vecs;
    constexpr int tiled = Out / (V * L) * (V * L);  // columns in blocks of V vectors
    constexpr int vectored = Out / L * L;           // then one block of the rest
    constexpr int rest = (vectored - tiled) / L;
    for (int c = 0; c < tiled; c += V * L) linear_column_block<In, Out, V, false>(x, rows, row_init, p, y, c, I::full(), k);
    if constexpr (I::masked && vectored < Out) {
        linear_column_block<In, Out, rest + 1, true>(x, rows, row_init, p, y, tiled, I::tail(Out - vectored), k);
    } else {
        if constexpr (rest > 0) linear_column_block<In, Out, rest, false>(x, rows, row_init, p, y, tiled, I::full(), k);
        for (int c = vectored; c < Out; ++c)
            for (int r = 0; r < rows; ++r)
                y[r * Out + c] = math::requantize(reference::linear_accumulator(x + r * In, p, c), p.multiplier[c],
                                                  p.shift, p.output_zero_point);
    }
}

inline bool nonnegative(const std::int16_t* v, int n) noexcept {
    std::int16_t any_sign = 0;
    for (int i = 0; i < n; ++i) any_sign |= v[i];
    return any_sign >= 0;
}

// Column blocks outermost (linear_columns), over a chunk of at most linear_chunk rows: a block's
// weights (In x Vecs vectors) are read from memory once per chunk and reused from cache by each
// row tile.
constexpr int linear_chunk = 64;

template <int In, int Out>
inline void linear_chunk_rows(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
    using I = linear_isa;
    std::int32_t row_init[linear_chunk];
    for (int r = 0; r < rows; ++r) row_init[r] = I::row_sum ? -128 * I::sum(x + r * In, In) : 0;
#if defined(STATICFORMER_INT8_X86)
    // The int16 multipliers' shorter exact requantisation where the shift and the zero point
    // allow it (int8_ops.hpp). It takes multipliers >= 0, as valid weights have (is_valid);
    // weights built by hand with a negative one take the general rescale, so the output still
    // equals the reference's.
    if (requantize_narrow_params::fits(p.shift, p.output_zero_point) && nonnegative(p.multiplier, Out)) {
        linear_columns(x, rows, row_init, p, y, requantize_narrow_params(p.shift, p.output_zero_point));
        return;
    }
#endif
    linear_columns(x, rows, row_init, p, y, typename I::params(p.shift));
}

template <int In, int Out>
inline void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
    for (int r = 0; r < rows; r += linear_chunk) {
        const int chunk = rows - r < linear_chunk ? rows - r : linear_chunk;
        linear_chunk_rows(x + r * In, chunk, p, y + r * Out);
    }
}

#endif

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
