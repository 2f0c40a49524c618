// staticformer: canonical order of every split reduction (normative).
//
// A sum over n elements is kept in `reduction_lanes` partial sums: partial[k] accumulates the
// elements j with j % reduction_lanes == k, in increasing j. The partials are then folded
// pairwise, halving the width each step (partial[k] + partial[k + width], width = 8, 4, 2, 1).
// Any SIMD width dividing reduction_lanes (4, 8, 16 floats) follows this order with whole vectors.
#pragma once

#include <cmath>

namespace staticformer {
namespace kernels {
namespace reference {

constexpr int reduction_lanes = 16;

struct lane_sums {
    float partial[reduction_lanes] = {};
};

// Calls add(partial, j) for j in [begin, end), partial being lane j % reduction_lanes's sum:
// each lane takes its elements in increasing j. Whole rounds of reduction_lanes elements keep
// the partials in registers (a scalar core, Cortex-M, would otherwise load and store a partial
// per element); the order of the additions is the same.
template <class Add>
inline void for_each_lane(lane_sums& acc, int begin, int end, Add add) noexcept {
    int j = begin;
    for (; j < end && j % reduction_lanes != 0; ++j) add(acc.partial[j % reduction_lanes], j);
    if (end - j >= reduction_lanes) {
        float p[reduction_lanes];
#pragma GCC unroll 16
        for (int k = 0; k < reduction_lanes; ++k) p[k] = acc.partial[k];
        for (; end - j >= reduction_lanes; j += reduction_lanes)
#pragma GCC unroll 16
            for (int k = 0; k < reduction_lanes; ++k) add(p[k], j + k);
#pragma GCC unroll 16
        for (int k = 0; k < reduction_lanes; ++k) acc.partial[k] = p[k];
    }
    // The last, partial round: j is a multiple of reduction_lanes here, or already end.
    for (int k = 0; k < end - j; ++k) add(acc.partial[k], j + k);
}

// Adds x[j] for j in [begin, end) into its lane.
inline void accumulate(lane_sums& acc, const float* x, int begin, int end) noexcept {
    for_each_lane(acc, begin, end, [x](float& partial, int j) { partial += x[j]; });
}

// Adds (x[j] - mean)^2 for j in [begin, end) into its lane.
inline void accumulate_squares(lane_sums& acc, const float* x, float mean, int begin, int end) noexcept {
    for_each_lane(acc, begin, end, [x, mean](float& partial, int j) {
        const float d = x[j] - mean;
        partial = std::fma(d, d, partial);
    });
}

// Pairwise, width 8, 4, 2, 1: partial[k] + partial[k + width]. The caller's partials are read
// in place (a by-value lane_sums would be copied through the stack on a scalar core).
inline float fold(const lane_sums& sums) noexcept {
    constexpr int half = reduction_lanes / 2;
    float acc[half];
    for (int k = 0; k < half; ++k) acc[k] = sums.partial[k] + sums.partial[k + half];
    for (int width = half / 2; width >= 1; width /= 2)
        for (int k = 0; k < width; ++k) acc[k] = acc[k] + acc[k + width];
    return acc[0];
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
