// staticformer: int8 activation on Cortex-M (optimised; bit-identical to
// reference/activation_int8.hpp): four table lookups per word, one load and one store of x per
// four values; each lookup's index is its byte sign-extended (SXTB / SBFX) against table + 128.
// All four are read before the word is written, so the table may be anywhere.
#pragma once

#include <cstdint>
#include <cstring>

#include "../../isa/arm_dsp.hpp"
#include "../../reference/activation_int8.hpp"

namespace staticformer {
namespace kernels {
namespace cortex_m_dsp {

inline void activate(std::int8_t* x, int n, const std::int8_t* table) noexcept {
    const std::uint8_t* t = reinterpret_cast<const std::uint8_t*>(table) + 128;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        const std::uint32_t w = std::uint32_t(arm_dsp::load32(x + i));
        const std::uint32_t y = t[std::int8_t(w)] | std::uint32_t(t[std::int8_t(w >> 8)]) << 8 |
                                std::uint32_t(t[std::int8_t(w >> 16)]) << 16 | std::uint32_t(t[std::int8_t(w >> 24)]) << 24;
        std::memcpy(x + i, &y, 4);
    }
    reference::activate(x + i, n - i, table);  // the last n % 4
}

}  // namespace cortex_m_dsp
}  // namespace kernels
}  // namespace staticformer
