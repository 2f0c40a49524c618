// staticformer: int8 and a16w8 gated feed-forward hidden rows on Cortex-M (optimised;
// bit-identical to reference/glu_int8.hpp) in 32 bits. int8: gate_int8's bounds (|activated|,
// |gate| <= 255, multiplier < 2^15) keep the product below 2^31, where the reference takes 64
// bits; saturation by SSAT. a16w8: the product's rescale by SMLAWB (17 <= shift <= 47).
#pragma once

#include <cstdint>

#include "../../isa/arm_dsp.hpp"
#include "../../params_a16w8.hpp"
#include "../../params_int8.hpp"
#include "../../reference/glu_int8.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_dsp {

// rescale(t, 1, shift) + zero_point for |t| < 2^31 without a 2^(shift-1) term that could
// overflow: floor((t + 2^(s-1)) / 2^s) = (floor(t / 2^(s-1)) + 1) >> 1, and for s > 32 both sides
// are 0 as they are at s = 32. So ((t >> min(s - 1, 31)) + 1 + 2 zero_point) >> 1.
struct glu_rounding {
    std::int32_t floor_shift, offset;
    explicit glu_rounding(const gate_int8& p) noexcept
        : floor_shift(p.shift - 1 < 31 ? p.shift - 1 : 31), offset(1 + 2 * p.output_zero_point) {}
    std::int32_t operator()(std::int32_t t) const noexcept { return ((t >> floor_shift) + offset) >> 1; }
};

// Row r of h holds [a | b] (2F values at 2 r F); its F outputs go to r F, each written after its
// a and b are read (the reference's in-place order). Both out of line as the a16w8 stream steps
// (stream_int8.hpp, STATICFORMER_GUARD_GCC12_MVE_LITERAL_POOL).
template <int F>
STATICFORMER_OUT_OF_LINE void glu(std::int8_t* h, int rows, const std::int8_t* table, const gate_int8& p) noexcept {
    const std::int8_t* t = table + 128;
    const std::int32_t a_zero_point = p.a_zero_point, b_zero_point = p.b_zero_point, m = p.multiplier;
    const glu_rounding round{p};
    for (int r = 0; r < rows; ++r) {
        const std::int8_t* ab = h + 2 * r * F;
        std::int8_t* y = h + r * F;
        for (int i = 0; i < F; ++i) {
            const std::int32_t activated = t[ab[i]] - a_zero_point, gate = (ab[F + i] - b_zero_point) * m;
            y[i] = std::int8_t(__ssat(round(activated * gate), 8));
        }
    }
}

// a16w8: the activation as the reference's, then rescale(a b, m, shift) as
// math::int16_multiplier_requantizer computes it (|a b| <= 2^30); other shifts the reference's.
template <int F>
STATICFORMER_OUT_OF_LINE void glu(std::int16_t* h, int rows, const activation_a16w8& a, const gate_a16w8& p) noexcept {
    if (!math::int16_multiplier_requantizer::applies(p.shift)) return reference::glu<F>(h, rows, a, p);
    const math::int16_multiplier_requantizer q{p.shift, 0};
    const std::int32_t m = p.multiplier, limit = p.output_limit;
    for (int r = 0; r < rows; ++r) {
        const std::int16_t* ab = h + 2 * r * F;
        std::int16_t* y = h + r * F;
        for (int i = 0; i < F; ++i) {
            const std::int32_t product = std::int32_t(reference::activation_value(ab[i], a)) * ab[F + i];
            y[i] = math::clamp_to(__smlawb(product, m, q.round) >> q.high_shift, limit);
        }
    }
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
