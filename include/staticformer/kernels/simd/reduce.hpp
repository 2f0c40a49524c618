// staticformer: the canonical lane-order sums of reference/reduce.hpp with whole batches
// (optimised; bit-identical). A batch of `width` lanes covers lanes [a*width, (a+1)*width) of
// each block of reference::reduction_lanes elements. Where no element is left over after whole
// blocks, the partials are folded in registers (fold), in the reference's order.
#pragma once

#include "../reference/reduce.hpp"
#include "ops.hpp"

namespace staticformer {
namespace kernels {
namespace simd {

constexpr int lanes = reference::reduction_lanes;
static_assert(lanes % width == 0, "the SIMD width must divide the canonical reduction lane count");
constexpr int batches_per_block = lanes / width;

inline void store_lanes(reference::lane_sums& out, const batch (&acc)[batches_per_block]) noexcept {
    for (int a = 0; a < batches_per_block; ++a) store(out.partial + a * width, acc[a]);
}

// reference::fold of partials held in registers (partial k in lane k % width of acc[k / width]):
// the same additions, partial[k] + partial[k + w] for w = 8, 4, 2, 1, on vectors' halves.
inline float fold(const batch (&acc)[batches_per_block]) noexcept {
    static_assert(lanes == 16, "the folds below halve 16 partials");
#if defined(__AVX512F__)
    // maskz extracts: STATICFORMER_GUARD_GCC12_AVX512_UNDEFINED (GCC 12, bug 105593).
    const __m512 v = acc[0];
    const __m256 w8 = _mm256_add_ps(_mm512_maskz_extractf32x8_ps(0xff, v, 0), _mm512_maskz_extractf32x8_ps(0xff, v, 1));
#elif defined(__AVX__)
    const __m256 w8 = _mm256_add_ps(acc[0], acc[1]);
#endif
#if defined(__AVX__)
    const __m128 w4 = _mm_add_ps(_mm256_castps256_ps128(w8), _mm256_extractf128_ps(w8, 1));
    const __m128 w2 = _mm_add_ps(w4, _mm_movehl_ps(w4, w4));
    return _mm_cvtss_f32(_mm_add_ss(w2, _mm_movehdup_ps(w2)));
#elif defined(__aarch64__)
    const float32x4_t w4 = vaddq_f32(vaddq_f32(acc[0], acc[2]), vaddq_f32(acc[1], acc[3]));
    const float32x2_t w2 = vadd_f32(vget_low_f32(w4), vget_high_f32(w4));
    return vget_lane_f32(w2, 0) + vget_lane_f32(w2, 1);
#endif
}

// Same as reference::fold of reference::accumulate(acc, x, 0, n) on zeroed partials.
inline float sum(const float* x, int n) noexcept {
    batch acc[batches_per_block];
    for (int a = 0; a < batches_per_block; ++a) acc[a] = batch(0.0f);
    const int whole = n / lanes * lanes;
    for (int j = 0; j < whole; j += lanes)
        for (int a = 0; a < batches_per_block; ++a) acc[a] = acc[a] + load(x + j + a * width);
    if (whole == n) return fold(acc);
    reference::lane_sums out;
    store_lanes(out, acc);
    reference::accumulate(out, x, whole, n);
    return reference::fold(out);
}

// Same as reference::fold of reference::accumulate_squares(acc, x, mean, 0, n) on zeroed partials.
inline float sum_squares(const float* x, float mean, int n) noexcept {
    batch acc[batches_per_block];
    for (int a = 0; a < batches_per_block; ++a) acc[a] = batch(0.0f);
    const batch m(mean);
    const int whole = n / lanes * lanes;
    for (int j = 0; j < whole; j += lanes)
        for (int a = 0; a < batches_per_block; ++a) {
            const batch d = load(x + j + a * width) - m;
            acc[a] = simd::fma(d, d, acc[a]);
        }
    if (whole == n) return fold(acc);
    reference::lane_sums out;
    store_lanes(out, acc);
    reference::accumulate_squares(out, x, mean, whole, n);
    return reference::fold(out);
}

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
