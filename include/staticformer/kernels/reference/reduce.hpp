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
    // Elements before the first whole round, the rounds, the elements after them (explicit
    // counts: GCC then sees every loop's bound).
    const int first_round = (begin + reduction_lanes - 1) / reduction_lanes * reduction_lanes;
    const int head_end = end < first_round ? end : first_round;
    for (int j = begin; j < head_end; ++j) add(acc.partial[j % reduction_lanes], j);
    const int rounds = (end - head_end) / reduction_lanes;
    if (rounds > 0) {
        float p[reduction_lanes];
#pragma GCC unroll 16
        for (int k = 0; k < reduction_lanes; ++k) p[k] = acc.partial[k];
        for (int r = 0; r < rounds; ++r)
#pragma GCC unroll 16
            for (int k = 0; k < reduction_lanes; ++k) add(p[k], head_end + r * reduction_lanes + k);
#pragma GCC unroll 16
        for (int k = 0; k < reduction_lanes; ++k) acc.partial[k] = p[k];
    }
    for (int j = head_end + rounds * reduction_lanes; j < end; ++j) add(acc.partial[j % reduction_lanes], j);
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
