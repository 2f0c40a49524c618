// Deterministic test data: integer generator, floats built exactly from its bits, so every
// target produces the same inputs and weights.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sftest {

struct splitmix64 {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // Uniform in [-scale, scale) on a grid of 2^-23 * scale: exact for a power-of-two scale.
    float uniform(float scale) {
        const std::int32_t u = std::int32_t(next() >> 40) - (1 << 23);  // [-2^23, 2^23)
        return float(u) * (scale / 8388608.0f);
    }
};

inline void fill_uniform(float* p, std::size_t n, splitmix64& g, float scale) {
    for (std::size_t i = 0; i < n; ++i) p[i] = g.uniform(scale);
}

// The largest power of two <= 1/sqrt(n), a typical init scale for a fan-in of n.
inline float fan_in_scale(int n) {
    float s = 1.0f;
    while (s * s * float(n) > 1.0f) s *= 0.5f;
    return s;
}

}  // namespace sftest
