// staticformer: int8 activation as a 256-entry table, x -> table[x + 128], and a16w8's as a
// table of 513 points with linear interpolation (reference backend, normative; the tables are
// built on the host from the float activation: weights_int8.hpp, params_a16w8.hpp).
#pragma once

#include <cstdint>

#include "../params_a16w8.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

// 16 at a time through a local block: x and the table are both int8, so without it every
// store to x could change the table for the next lookup, and the lookups would be serialised.
inline void activate(std::int8_t* x, int n, const std::int8_t* table) noexcept {
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        std::int8_t block[16];
        for (int k = 0; k < 16; ++k) block[k] = table[x[i + k] + 128];
        for (int k = 0; k < 16; ++k) x[i + k] = block[k];
    }
    for (; i < n; ++i) x[i] = table[x[i] + 128];
}

// a16w8: table point i = (x + 32768) >> 7 and the next, interpolated at f = (x + 32768) & 127.
inline std::int16_t activation_value(std::int16_t x, const activation_a16w8& a) noexcept {
    const std::int32_t u = std::int32_t(x) + 32768, i = u >> a16w8_limits::table_step_bits;
    const std::int32_t f = u & ((1 << a16w8_limits::table_step_bits) - 1);
    const std::int32_t low = a.table[i], high = a.table[i + 1];
    return std::int16_t(low + (((high - low) * f + (1 << (a16w8_limits::table_step_bits - 1))) >>
                               a16w8_limits::table_step_bits));
}

inline void activate(std::int16_t* x, int n, const activation_a16w8& a) noexcept {
    for (int i = 0; i < n; ++i) x[i] = activation_value(x[i], a);
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
