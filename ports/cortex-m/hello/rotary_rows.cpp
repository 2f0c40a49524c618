// Cortex-M: rotary positions on the target. Each Cortex-M backend's int8 turn (backends.hpp) must
// give the reference kernel's bytes (memcmp) for both layouts, heads of 4, 6, 8 and 10 pairs
// (whole and predicated vectors) and every position of a 32-row table; then it prints the
// instructions of the tiny encoder's rotary work (64/4/256/32/2: 2 layers x 32 rows x queries
// and keys, 128 rows of 64 values), int8 on each backend and float on the reference (run.sh:
// QEMU -icount shift=0), to set against the tiny encoder's instructions per pass
// (docs/footprint-and-timing.md).
#include <staticformer/staticformer.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "backends.hpp"
#include "cycle_counter.h"
#include "xorshift.hpp"

namespace sf = staticformer;

namespace {

constexpr int rows = 32;

template <class Backend, int D, int Dh, bool Interleaved>
bool check(xorshift32& g) {
    constexpr auto& angles = sf::math::rotary_angles_q14<rows, Dh / 2, 10000>;
    bool ok = true;
    for (int p = 0; p < rows; ++p) {
        std::int8_t x[D], y[D];
        for (auto& v : x) v = std::int8_t(g.next() >> 24);
        std::memcpy(y, x, D);
        sf::int8_kernel_set<Backend>::template rotate<D, Dh, Interleaved>(x, angles.cos[p], angles.sin[p]);
        sf::int8_kernel_set<sf::reference>::template rotate<D, Dh, Interleaved>(y, angles.cos[p], angles.sin[p]);
        ok = ok && std::memcmp(x, y, D) == 0;
    }
    return ok;
}

// The tiny encoder's 128 rotary rows (positions 0..31, queries and keys of 2 layers).
template <class K, class T, class Angles>
std::uint64_t tiny_rotary_work(T (&x)[64], const Angles& angles) {
    sf_port_counter_start();
    for (int layer_and_kind = 0; layer_and_kind < 4; ++layer_and_kind)
        for (int p = 0; p < rows; ++p) K::template rotate<64, 16, false>(x, angles.cos[p], angles.sin[p]);
    return sf_port_counter_read();
}

}  // namespace

int main() {
    xorshift32 g{0x2468u};
    const bool ok = each_cortex_m_backend([&](auto backend, const char* name) {
        using B = decltype(backend);
        const bool same = check<B, 24, 8, false>(g) && check<B, 24, 8, true>(g) && check<B, 64, 16, false>(g) &&
                          check<B, 64, 16, true>(g) && check<B, 60, 20, false>(g) && check<B, 60, 20, true>(g) &&
                          check<B, 36, 12, false>(g) && check<B, 36, 12, true>(g);
        std::int8_t x[64];
        for (auto& v : x) v = std::int8_t(g.next() >> 24);
        const std::uint64_t count = tiny_rotary_work<sf::int8_kernel_set<B>>(x, sf::math::rotary_angles_q14<rows, 8, 10000>);
        std::printf("%s: int8 turns %s the reference's; the tiny encoder's rotary work: %llu instructions (int8)\n",
                    name, same ? "equal" : "DIFFER FROM", (unsigned long long)count);
        return same;
    });
    float xf[64];
    for (auto& v : xf) v = float(std::int32_t(g.next() >> 16) - 32768) / 16384.0f;
    const std::uint64_t count = tiny_rotary_work<sf::kernel_set<sf::reference>>(xf, sf::math::rotary_angles<rows, 8, 10000>);
    std::printf("reference: the tiny encoder's rotary work: %llu instructions (f32)\n", (unsigned long long)count);
    std::printf("%s\n", ok ? "rotary rows: ok" : "rotary rows: FAILED");
    return ok ? 0 : 1;
}
