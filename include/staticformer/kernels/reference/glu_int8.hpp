// staticformer: int8 and a16w8 gated feed-forward hidden layers (reference backend, normative):
// the activation table on a, the product with the gate b, one requantisation (params_int8.hpp
// gate_int8, params_a16w8.hpp gate_a16w8).
#pragma once

#include <cstdint>

#include "../../math/fixed_point.hpp"
#include "../params_a16w8.hpp"
#include "../params_int8.hpp"
#include "activation_int8.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

inline std::int8_t glu_output(std::int8_t a, std::int8_t b, const std::int8_t* table, const gate_int8& p) noexcept {
    const std::int32_t activated = table[a + 128] - p.a_zero_point, gate = b - p.b_zero_point;
    return math::requantize(activated * gate, p.multiplier, p.shift, p.output_zero_point);
}

// Row r of h holds [a | b], 2F values at 2 r F; its F outputs go to r F. In place: row r's
// outputs end before its own values (r >= 1) or are written where just read (r = 0).
template <int F>
inline void glu(std::int8_t* h, int rows, const std::int8_t* table, const gate_int8& p) noexcept {
    for (int r = 0; r < rows; ++r) {
        const std::int8_t* ab = h + 2 * r * F;
        std::int8_t* y = h + r * F;
        for (int i = 0; i < F; ++i) y[i] = glu_output(ab[i], ab[F + i], table, p);
    }
}

// a16w8: y = clamp(rescale(activation(a) * b, multiplier, shift), -output_limit, output_limit),
// rows as above.
template <int F>
inline void glu(std::int16_t* h, int rows, const activation_a16w8& a, const gate_a16w8& p) noexcept {
    for (int r = 0; r < rows; ++r) {
        const std::int16_t* ab = h + 2 * r * F;
        std::int16_t* y = h + r * F;
        for (int i = 0; i < F; ++i) {
            const std::int32_t product = std::int32_t(activation_value(ab[i], a)) * ab[F + i];
            y[i] = math::clamp_to(math::rescale(product, p.multiplier, p.shift), p.output_limit);
        }
    }
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
