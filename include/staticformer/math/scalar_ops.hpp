// staticformer: scalar operations used by the portable approximations (normative).
// kernels/simd/ops.hpp provides the same set for xsimd batches with identical results lane by lane.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace staticformer {
namespace math {

struct scalar_ops {
    using value = float;
    using mask = bool;

    static float fma(float a, float b, float c) noexcept { return std::fma(a, b, c); }
    static float div(float a, float b) noexcept { return a / b; }
    // x86's maxps/minps semantics (second operand when unordered), spelled out so that every
    // backend agrees even for NaN and signed zeros.
    static float max(float a, float b) noexcept { return a > b ? a : b; }
    static float min(float a, float b) noexcept { return a < b ? a : b; }
    static float abs(float a) noexcept { return std::fabs(a); }
    static float select(bool c, float a, float b) noexcept { return c ? a : b; }
    // 2^n for an integral n in [-126, 127], built from its exponent bits (exact).
    static float pow2i(float n) noexcept {
        const std::int32_t bits = (static_cast<std::int32_t>(n) + 127) * (1 << 23);
        float r;
        std::memcpy(&r, &bits, sizeof r);
        return r;
    }
};

}  // namespace math
}  // namespace staticformer
