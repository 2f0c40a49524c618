// Deterministic test data: integer generator, floats built exactly from its bits, so every
// target produces the same inputs and weights.
#pragma once

#include <cmath>
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

// Normal values of standard deviation sigma (Box-Muller on the generator's uniforms; libm's log
// and cos may round differently on another target: for accuracy measurements, not bytes).
inline void fill_normal(float* p, std::size_t n, splitmix64& g, double sigma = 1.0) {
    for (std::size_t i = 0; i + 1 < n; i += 2) {
        const double u1 = (double(g.uniform(1.0f)) + 1.0 + 0x1p-24) / 2.0, u2 = (double(g.uniform(1.0f)) + 1.0) / 2.0;
        const double r = sigma * std::sqrt(-2.0 * std::log(u1)), a = 6.283185307179586 * u2;
        p[i] = float(r * std::cos(a)), p[i + 1] = float(r * std::sin(a));
    }
    if (n % 2) p[n - 1] = 0.0f;
}

// The largest power of two <= 1/sqrt(n), a typical init scale for a fan-in of n.
inline float fan_in_scale(int n) {
    float s = 1.0f;
    while (s * s * float(n) > 1.0f) s *= 0.5f;
    return s;
}

}  // namespace sftest
