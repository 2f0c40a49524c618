// staticformer: int8 activation as a 256-entry table, x -> table[x + 128] (reference backend,
// normative; the table is built on the host from the float activation, weights_int8.hpp).
#pragma once

#include <cstdint>

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

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
