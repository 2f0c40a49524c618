// staticformer: softmax with xsimd (optimised; bit-identical to reference/softmax.hpp).
//
// A row is short (one score per key), so its cost is mostly latency: the maximum is reduced as a
// tree instead of lane after lane, and the exponentials are summed as they are computed, block by
// block in the canonical lane order of reference/reduce.hpp.
#pragma once

#include "../math/approx.hpp"
#include "../reference/softmax.hpp"
#include "reduce.hpp"

namespace staticformer {
namespace kernels {
namespace simd {

// The maximum of the row. Without NaN scores the maximum is the same whatever the order in which
// it is taken, except the sign of a zero maximum, which cannot change an exponential (s - m is
// the same number, and exp(-0) == exp(+0) bit for bit). A NaN score makes every output NaN in
// both backends.
inline float row_max(const float* s, int n) noexcept {
    const int whole = n / width * width;
    float m = s[0];
    if (whole > 0) {
        batch mv = load(s);
        for (int j = width; j < whole; j += width) mv = batch_ops::max(load(s + j), mv);
        alignas(64) float lane[width];
        store(lane, mv);
        for (int half = width / 2; half >= 1; half /= 2)
            for (int k = 0; k < half; ++k) lane[k] = reference::scalar_ops::max(lane[k + half], lane[k]);
        m = reference::scalar_ops::max(lane[0], m);
    }
    return reference::row_max(s, whole, n, m);
}

inline void softmax(float* s, int n) noexcept {
    const float m = row_max(s, n);
    const batch mb(m);

    // e_j = exp(s_j - m), stored, and summed into the canonical lanes for whole blocks.
    batch acc[batches_per_block];
    for (int a = 0; a < batches_per_block; ++a) acc[a] = batch(0.0f);
    const int blocks_end = n / lanes * lanes;
    int j = 0;
    for (; j < blocks_end; j += lanes)
        for (int a = 0; a < batches_per_block; ++a) {
            const batch e = math::exp<batch_ops>(load(s + j + a * width) - mb);
            store(s + j + a * width, e);
            acc[a] = acc[a] + e;
        }
    const int whole = n / width * width;
    for (; j < whole; j += width) store(s + j, math::exp<batch_ops>(load(s + j) - mb));
    reference::exp_shifted(s, whole, n, m);
    reference::lane_sums sums;
    store_lanes(sums, acc);
    reference::accumulate(sums, s, blocks_end, n);
    const float sum = reference::fold(sums);

    const batch sb(sum);
    for (j = 0; j < whole; j += width) store(s + j, div(load(s + j), sb));
    reference::divide(s, whole, n, sum);
}

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
