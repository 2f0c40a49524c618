// staticformer: canonical order of every split reduction (normative).
//
// A sum over n elements is kept in `reduction_lanes` partial sums: partial[k] accumulates the
// elements j with j % reduction_lanes == k, in increasing j. The partials are then folded
// pairwise, halving the width each step (k += k + width/2). Any SIMD width dividing
// reduction_lanes (4, 8, 16 floats) follows this order with whole vectors.
#pragma once

#include <cmath>

namespace staticformer {
namespace kernels {
namespace reference {

constexpr int reduction_lanes = 16;

struct lane_sums {
    float partial[reduction_lanes] = {};
};

// Adds x[j] for j in [begin, end) into its lane.
inline void accumulate(lane_sums& acc, const float* x, int begin, int end) noexcept {
    for (int j = begin; j < end; ++j) acc.partial[j % reduction_lanes] += x[j];
}

// Adds (x[j] - mean)^2 for j in [begin, end) into its lane.
inline void accumulate_squares(lane_sums& acc, const float* x, float mean, int begin, int end) noexcept {
    for (int j = begin; j < end; ++j) {
        const float d = x[j] - mean;
        acc.partial[j % reduction_lanes] = std::fma(d, d, acc.partial[j % reduction_lanes]);
    }
}

inline float fold(lane_sums acc) noexcept {
    for (int width = reduction_lanes / 2; width >= 1; width /= 2)
        for (int k = 0; k < width; ++k) acc.partial[k] = acc.partial[k] + acc.partial[k + width];
    return acc.partial[0];
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
