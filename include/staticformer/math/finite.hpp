// staticformer: finiteness by the bits, and the canonical NaN of a failed pass (normative).
// The tests read the exponent bits, so -ffinite-math-only or -ffast-math cannot fold them away,
// and they run over every value without an early exit: the same time for every input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace staticformer {
namespace math {

// The quiet NaN every backend writes when a pass overflows: NaN payloads otherwise depend on the
// order of operands, which compilers and instruction sets choose freely.
inline constexpr std::uint32_t canonical_nan_bits = 0x7fc00000u;

inline bool is_finite(float x) noexcept {
    std::uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return (bits & 0x7f800000u) != 0x7f800000u;
}

// binary16 bits (f16 weights)
constexpr bool is_finite_half(std::uint16_t h) noexcept { return (h & 0x7c00u) != 0x7c00u; }

inline bool all_finite(const float* x, std::size_t n) noexcept {
    bool finite = true;
    for (std::size_t i = 0; i < n; ++i) finite &= is_finite(x[i]);
    return finite;
}
constexpr bool all_finite(const std::uint16_t* h, std::size_t n) noexcept {
    bool finite = true;
    for (std::size_t i = 0; i < n; ++i) finite &= is_finite_half(h[i]);
    return finite;
}

// If any of the n values is an infinity or a NaN, every one becomes the canonical NaN; returns
// whether the values were all finite.
inline bool canonicalize_non_finite(float* y, std::size_t n) noexcept {
    if (all_finite(y, n)) return true;
    float nan;
    std::memcpy(&nan, &canonical_nan_bits, sizeof nan);
    for (std::size_t i = 0; i < n; ++i) y[i] = nan;
    return false;
}

}  // namespace math
}  // namespace staticformer
