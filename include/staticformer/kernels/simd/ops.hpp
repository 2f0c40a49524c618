// staticformer: xsimd batch operations for the portable approximations (optimised).
// Lane for lane the same IEEE operations as math::scalar_ops.
#pragma once

#include <cstdint>

#include "../../config.hpp"

#include <xsimd/xsimd.hpp>

namespace staticformer {
namespace kernels {
namespace simd {

using batch = xsimd::batch<float>;
constexpr int width = int(batch::size);

// A fused multiply-add, always: xsimd 8.1 implements fma for AVX-512 as x * y + z (two
// roundings unless the compiler happens to contract it), so the instruction is named here.
inline batch fma(const batch& a, const batch& b, const batch& c) noexcept {
#if defined(__AVX512F__)
    static_assert(width == 16, "AVX-512 builds use 512-bit batches");
    return _mm512_fmadd_ps(a, b, c);
#elif defined(__FMA__)
    static_assert(width == 8, "FMA3 builds use 256-bit batches");
    return _mm256_fmadd_ps(a, b, c);
#elif defined(__aarch64__)
    return vfmaq_f32(c, a, b);
#else
#error "staticformer simd backend: no fused multiply-add instruction for this target"
#endif
}

inline batch load(const float* p) noexcept { return batch::load_unaligned(p); }
inline void store(float* p, const batch& v) noexcept { v.store_unaligned(p); }

// The first `count` (1 .. width) lanes of a batch at p: loaded with `fill` beyond them (nothing
// past p + count is read), stored without touching what follows. A vector's tail (the last keys
// of a row, the last features of a head) then runs in one batch instead of one float at a time.
inline batch load_first(const float* p, int count, float fill = 0.0f) noexcept {
#if defined(__AVX512F__)
    return _mm512_mask_loadu_ps(_mm512_set1_ps(fill), __mmask16((1u << count) - 1), p);
#elif defined(__AVX2__)
    const __m256i first = _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    return _mm256_blendv_ps(_mm256_set1_ps(fill), _mm256_maskload_ps(p, first), _mm256_castsi256_ps(first));
#else
    alignas(16) float lanes[width];
    for (int i = 0; i < width; ++i) lanes[i] = i < count ? p[i] : fill;
    return batch::load_aligned(lanes);
#endif
}
inline void store_first(float* p, const batch& v, int count) noexcept {
#if defined(__AVX512F__)
    _mm512_mask_storeu_ps(p, __mmask16((1u << count) - 1), v);
#elif defined(__AVX2__)
    _mm256_maskstore_ps(p, _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)), v);
#else
    alignas(16) float lanes[width];
    v.store_aligned(lanes);
    for (int i = 0; i < count; ++i) p[i] = lanes[i];
#endif
}

// A correctly rounded division, always: xsimd 8.1 divides on NEON (AArch64 included) by a
// reciprocal estimate refined with Newton steps, which is not IEEE division.
inline batch div(const batch& a, const batch& b) noexcept {
#if defined(__aarch64__)
    return vdivq_f32(a, b);
#else
    return a / b;  // x86: divps is IEEE division
#endif
}

struct batch_ops {
    using value = batch;
    using mask = xsimd::batch_bool<float>;

    static batch fma(const batch& a, const batch& b, const batch& c) noexcept { return simd::fma(a, b, c); }
    static batch div(const batch& a, const batch& b) noexcept { return simd::div(a, b); }
    // a > b ? a : b and a < b ? a : b. On x86 that is what MAXPS / MINPS compute, NaNs and
    // signed zeros included (the second operand whenever the comparison fails): one instruction
    // instead of a compare and a blend, which shortens the GELU loop (bench/PERF_NOTES.md).
    // NEON's FMAX / FMIN differ for NaNs and zeros, so other targets select.
    static batch max(const batch& a, const batch& b) noexcept {
#if defined(__AVX512F__)
        return _mm512_maskz_max_ps(0xffff, a, b);  // STATICFORMER_GUARD_GCC12_AVX512_UNDEFINED (bug 105593)
#elif defined(__AVX__)
        return _mm256_max_ps(a, b);
#else
        return xsimd::select(a > b, a, b);
#endif
    }
    static batch min(const batch& a, const batch& b) noexcept {
#if defined(__AVX512F__)
        return _mm512_maskz_min_ps(0xffff, a, b);
#elif defined(__AVX__)
        return _mm256_min_ps(a, b);
#else
        return xsimd::select(a < b, a, b);
#endif
    }
    static batch abs(const batch& a) noexcept { return xsimd::abs(a); }
    static batch select(const mask& c, const batch& a, const batch& b) noexcept { return xsimd::select(c, a, b); }
    // 2^n for an integral n in [-126, 127]. n + 1.5 * 2^23 is exact and its low mantissa bits
    // are n, so integer arithmetic on the bits gives the exponent field. (Avoids xsimd::to_int
    // and shifts: STATICFORMER_GUARD_GCC12_AVX512_UNDEFINED, GCC 12 bug 105593, in xsimd's forms.)
    static batch pow2i(const batch& n) noexcept {
        using ibatch = xsimd::batch<std::int32_t>;
        const ibatch magic_bits(0x4B400000);  // bits of 1.5 * 2^23
        const ibatch i = xsimd::bitwise_cast<ibatch>(n + batch(12582912.0f)) - magic_bits;
        return xsimd::bitwise_cast<batch>((i + ibatch(127)) * ibatch(1 << 23));
    }
};

// ---- N batches through one formula together -------------------------------------------------
//
// An approximation (math::exp, math::gelu) is a chain of some 45 dependent operations. Taken one
// batch after another, the out-of-order window holds mostly the waiting operations of one or two
// chains and the FMA pipes idle; batches<N> carries N independent batches through the formula
// together, each operation applied to all N before the next, so N chains advance side by side.
// Each lane still sees exactly batch_ops' operations in the formula's order: the same bits.
// Callers inline the whole formula (STATICFORMER_FLATTEN): called out of line, the N batches
// would pass through memory.


template <int N>
struct batches {
    batch v[N];
    batches() = default;
    explicit batches(float f) noexcept {
#pragma GCC unroll 8
        for (int k = 0; k < N; ++k) v[k] = batch(f);
    }
};

template <int N>
struct batches_mask {
    batch_ops::mask m[N];
};

template <int N, class F>
STATICFORMER_ALWAYS_INLINE batches<N> each(F f) noexcept {
    batches<N> r;
#pragma GCC unroll 8
    for (int k = 0; k < N; ++k) r.v[k] = f(k);
    return r;
}

template <int N>
STATICFORMER_ALWAYS_INLINE batches<N> operator+(const batches<N>& a, const batches<N>& b) noexcept {
    return each<N>([&](int k) { return a.v[k] + b.v[k]; });
}
template <int N>
STATICFORMER_ALWAYS_INLINE batches<N> operator-(const batches<N>& a, const batches<N>& b) noexcept {
    return each<N>([&](int k) { return a.v[k] - b.v[k]; });
}
template <int N>
STATICFORMER_ALWAYS_INLINE batches<N> operator*(const batches<N>& a, const batches<N>& b) noexcept {
    return each<N>([&](int k) { return a.v[k] * b.v[k]; });
}
template <int N>
STATICFORMER_ALWAYS_INLINE batches<N> operator-(const batches<N>& a) noexcept {
    return each<N>([&](int k) { return -a.v[k]; });
}
template <int N>
STATICFORMER_ALWAYS_INLINE batches_mask<N> operator<(const batches<N>& a, const batches<N>& b) noexcept {
    batches_mask<N> r;
#pragma GCC unroll 8
    for (int k = 0; k < N; ++k) r.m[k] = a.v[k] < b.v[k];
    return r;
}

template <int N>
struct batches_ops {
    using value = batches<N>;
    using mask = batches_mask<N>;
    using T = batches<N>;
    using O = batch_ops;

    static STATICFORMER_ALWAYS_INLINE T fma(const T& a, const T& b, const T& c) noexcept {
        return each<N>([&](int k) { return O::fma(a.v[k], b.v[k], c.v[k]); });
    }
    static STATICFORMER_ALWAYS_INLINE T div(const T& a, const T& b) noexcept {
        return each<N>([&](int k) { return O::div(a.v[k], b.v[k]); });
    }
    static STATICFORMER_ALWAYS_INLINE T max(const T& a, const T& b) noexcept {
        return each<N>([&](int k) { return O::max(a.v[k], b.v[k]); });
    }
    static STATICFORMER_ALWAYS_INLINE T min(const T& a, const T& b) noexcept {
        return each<N>([&](int k) { return O::min(a.v[k], b.v[k]); });
    }
    static STATICFORMER_ALWAYS_INLINE T abs(const T& a) noexcept {
        return each<N>([&](int k) { return O::abs(a.v[k]); });
    }
    static STATICFORMER_ALWAYS_INLINE T select(const mask& c, const T& a, const T& b) noexcept {
        return each<N>([&](int k) { return O::select(c.m[k], a.v[k], b.v[k]); });
    }
    static STATICFORMER_ALWAYS_INLINE T pow2i(const T& n) noexcept {
        return each<N>([&](int k) { return O::pow2i(n.v[k]); });
    }
};

template <int N>
STATICFORMER_ALWAYS_INLINE batches<N> load(const float* p) noexcept {
    return each<N>([&](int k) { return load(p + k * width); });
}
template <int N>
STATICFORMER_ALWAYS_INLINE void store(float* p, const batches<N>& x) noexcept {
#pragma GCC unroll 8
    for (int k = 0; k < N; ++k) store(p + k * width, x.v[k]);
}

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
