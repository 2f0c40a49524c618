// staticformer: softmax with xsimd (optimised; bit-identical to reference/softmax.hpp).
//
// A row is short (one score per key), so its cost is mostly latency: the maximum is reduced as a
// tree instead of lane after lane, and the exponentials are summed as they are computed, block by
// block in the canonical lane order of reference/reduce.hpp.
#pragma once

#include <limits>

#include "../../math/approx.hpp"
#include "../reference/softmax.hpp"
#include "reduce.hpp"

namespace staticformer {
namespace kernels {
namespace simd {

// lane[k] = max(lane[k + half], lane[k]) for half = width / 2, ..., 1; lane 0. On x86 in
// registers (MAXPS(a, b) is a > b ? a : b, scalar_ops::max), elsewhere through memory: a row is
// short, and a vector store with scalar loads weighs on the softmax kernel, most with AVX-512
// (bench/PERF_NOTES.md).
inline float fold_max(const batch& v) noexcept {
#if defined(__AVX__)
#if defined(__AVX512F__)
    const __m256 w8 = _mm256_max_ps(_mm512_maskz_extractf32x8_ps(0xff, v, 1), _mm512_maskz_extractf32x8_ps(0xff, v, 0));
#else
    const __m256 w8 = v;
#endif
    const __m128 w4 = _mm_max_ps(_mm256_extractf128_ps(w8, 1), _mm256_castps256_ps128(w8));
    const __m128 w2 = _mm_max_ps(_mm_movehl_ps(w4, w4), w4);
    return _mm_cvtss_f32(_mm_max_ss(_mm_movehdup_ps(w2), w2));
#else
    alignas(64) float lane[width];
    store(lane, v);
    for (int half = width / 2; half >= 1; half /= 2)
        for (int k = 0; k < half; ++k) lane[k] = reference::scalar_ops::max(lane[k + half], lane[k]);
    return lane[0];
#endif
}

// The maximum of the row. Without NaN scores the maximum is the same whatever the order in which
// it is taken, except the sign of a zero maximum, which cannot change an exponential (s - m is
// the same number, and exp(-0) == exp(+0) bit for bit). A NaN score makes every output NaN in
// both backends.
inline float row_max(const float* s, int n) noexcept {
    const int whole = n / width * width;
    constexpr float lowest = -std::numeric_limits<float>::infinity();  // (a lane past n: never the maximum)
    batch mv = whole < n ? load_first(s + whole, n - whole, lowest) : load(s);
    for (int j = 0; j < whole; j += width) mv = batch_ops::max(load(s + j), mv);
    return fold_max(mv);
}

// Exponentials are taken softmax_exp_batches batches at a time (batches<N>, ops.hpp): whole
// blocks of the canonical lanes, so the sums still take them block by block. It pays on AVX2 and
// breaks even on AVX-512; STATICFORMER_FLATTEN goes on exp_sum, not on the whole softmax_rows,
// which lost when inlined entirely (bench/PERF_NOTES.md).
constexpr int softmax_exp_batches = 2 * batches_per_block;
static_assert(softmax_exp_batches % batches_per_block == 0, "groups of whole blocks");

// e_j = exp(s_j - m), stored, and their sum in the canonical lane order: whole blocks summed as
// they are computed, then the rest. The last n % width exponentials take one part-batch
// (load_first: the lanes past n compute an unused value, never stored).
STATICFORMER_FLATTEN inline float exp_sum(float* s, int n, float m) noexcept {
    constexpr int G = softmax_exp_batches;
    const batch mb(m);
    batch acc[batches_per_block];
    for (int a = 0; a < batches_per_block; ++a) acc[a] = batch(0.0f);
    const int blocks_end = n / lanes * lanes;
    int j = 0;
    for (; j + G * width <= blocks_end; j += G * width) {
        const batches<G> e = math::exp<batches_ops<G>>(load<G>(s + j) - batches<G>(m));
        store(s + j, e);
#pragma GCC unroll 8
        for (int k = 0; k < G; ++k) acc[k % batches_per_block] = acc[k % batches_per_block] + e.v[k];
    }
    for (; j < blocks_end; j += lanes)
        for (int a = 0; a < batches_per_block; ++a) {
            const batch e = math::exp<batch_ops>(load(s + j + a * width) - mb);
            store(s + j + a * width, e);
            acc[a] = acc[a] + e;
        }
    if (blocks_end == n) return fold(acc);  // the partials are all in registers
    const int whole = n / width * width;
    for (; j < whole; j += width) store(s + j, math::exp<batch_ops>(load(s + j) - mb));
    if (whole < n) store_first(s + whole, math::exp<batch_ops>(load_first(s + whole, n - whole) - mb), n - whole);
    // The last, partial block: its element k joins partial k, as in reference::accumulate. The
    // lanes past n add +0, which leaves any partial as it was (a partial starts at +0: never -0).
    for (int a = 0; blocks_end + a * width < n; ++a) {
        const int first = blocks_end + a * width;
        acc[a] = acc[a] + load_first(s + first, n - first < width ? n - first : width);
    }
    return fold(acc);
}

inline void divide(float* s, int n, float sum) noexcept {
    const batch sb(sum);
    const int whole = n / width * width;
    for (int j = 0; j < whole; j += width) store(s + j, div(load(s + j), sb));
    if (whole < n) store_first(s + whole, div(load_first(s + whole, n - whole), sb), n - whole);
}

inline void softmax(float* s, int n) noexcept { divide(s, n, exp_sum(s, n, row_max(s, n))); }

// Rows of scores Stride floats apart. A short row is a chain of dependent steps (maximum, then
// exponentials and their sum, then the division), so the rows go through each step together,
// a block at a time: the steps of different rows overlap. Each row's division follows the next
// row's exponentials, so that the divider works beside the FMA pipes instead of after them.
template <int Stride>
inline void softmax_rows(float* s, int rows, int n) noexcept {
    constexpr int block = 8;
    for (int r0 = 0; r0 < rows; r0 += block) {
        const int b = rows - r0 < block ? rows - r0 : block;
        float* row = s + r0 * Stride;
        float value[block];
        for (int r = 0; r < b; ++r) value[r] = row_max(row + r * Stride, n);
        for (int r = 0; r < b; ++r) {
            value[r] = exp_sum(row + r * Stride, n, value[r]);
            if (r > 0) divide(row + (r - 1) * Stride, n, value[r - 1]);
        }
        divide(row + (b - 1) * Stride, n, value[b - 1]);
    }
}

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
