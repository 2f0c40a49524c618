// staticformer: the canonical lane-order sums of reference/reduce.hpp with whole batches
// (optimised; bit-identical). A batch of `width` lanes covers lanes [a*width, (a+1)*width) of
// each block of reference::reduction_lanes elements.
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

// Same as reference::accumulate(acc, x, 0, n) on zeroed partials.
inline reference::lane_sums sum_lanes(const float* x, int n) noexcept {
    batch acc[batches_per_block];
    for (int a = 0; a < batches_per_block; ++a) acc[a] = batch(0.0f);
    const int whole = n / lanes * lanes;
    for (int j = 0; j < whole; j += lanes)
        for (int a = 0; a < batches_per_block; ++a) acc[a] = acc[a] + load(x + j + a * width);
    reference::lane_sums out;
    store_lanes(out, acc);
    reference::accumulate(out, x, whole, n);
    return out;
}

// Same as reference::accumulate_squares(acc, x, mean, 0, n) on zeroed partials.
inline reference::lane_sums sum_squares_lanes(const float* x, float mean, int n) noexcept {
    batch acc[batches_per_block];
    for (int a = 0; a < batches_per_block; ++a) acc[a] = batch(0.0f);
    const batch m(mean);
    const int whole = n / lanes * lanes;
    for (int j = 0; j < whole; j += lanes)
        for (int a = 0; a < batches_per_block; ++a) {
            const batch d = load(x + j + a * width) - m;
            acc[a] = simd::fma(d, d, acc[a]);
        }
    reference::lane_sums out;
    store_lanes(out, acc);
    reference::accumulate_squares(out, x, mean, whole, n);
    return out;
}

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
