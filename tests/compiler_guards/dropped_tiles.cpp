// STATICFORMER_GUARD_GCC12_DROPPED_TILES, reproduced: the DSP linear layer's row blocks out of
// line (the guard off), built at -O1 by arm-none-eabi-g++ 12.2 for a Cortex-M4, lose their call:
// the 256 -> 64 layer's outputs stay as they were. Prints "DROPPED" then (ports/cortex-m expects
// it while the guard is needed) or "kept" when the compiler runs the call.
#define STATICFORMER_GUARD_OFF_GCC12_DROPPED_TILES
#include <staticformer/staticformer.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace sf = staticformer;

int main() {
    static sf::linear_int8<256, 64> p;
    static std::int8_t x[2 * 256], y[2 * 64], expected[2 * 64];
    for (int i = 0; i < 2 * 256; ++i) x[i] = std::int8_t(i * 7);
    for (auto& group : p.w)
        for (auto& out : group)
            for (auto& w : out) w = std::int8_t(&w - &p.w[0][0][0]);
    for (int o = 0; o < 64; ++o) p.bias[o] = o, p.multiplier[o] = 20000;
    p.shift = 22, p.output_zero_point = 0;
    std::memset(y, 0x55, sizeof y);
    sf::kernels::cortex_m_dsp::linear(x, 2, p, y);
    sf::kernels::reference::linear(x, 2, p, expected);
    const bool kept = std::memcmp(y, expected, sizeof y) == 0;
    std::puts(kept ? "kept: the out-of-line row blocks ran" : "DROPPED: the out-of-line row blocks did not run");
    return 0;
}
