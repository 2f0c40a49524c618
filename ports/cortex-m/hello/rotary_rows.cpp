// Cortex-M: rotary positions on the target. Each Cortex-M backend's int8 and a16w8 turns
// (backends.hpp) must give the reference kernels' bytes (memcmp) for both layouts, heads of 4, 6,
// 8 and 10 pairs (whole and predicated vectors) and every position of a 32-row table; then it
// prints the instructions of the tiny encoder's rotary work (64/4/256/32/2: 2 layers x 32 rows x
// queries and keys, 128 rows of 64 values), int8 and a16w8 on each backend and float on the reference (run.sh:
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

// K, R: the backend's and the reference's set; values of T over their whole range (the ends
// saturate: a turned value grows by up to sqrt(2)).
template <class K, class R, class T, int D, int Dh, bool Interleaved>
bool check(xorshift32& g) {
    constexpr auto& angles = sf::math::rotary_angles_q14<rows, Dh / 2, 10000>;
    bool ok = true;
    for (int p = 0; p < rows; ++p) {
        T x[D], y[D];
        for (auto& v : x) v = T(std::int32_t(g.next()) >> (32 - 8 * int(sizeof(T))));
        std::memcpy(y, x, sizeof x);
        K::template rotate<D, Dh, Interleaved>(x, angles.cos[p], angles.sin[p]);
        R::template rotate<D, Dh, Interleaved>(y, angles.cos[p], angles.sin[p]);
        ok = ok && std::memcmp(x, y, sizeof x) == 0;
    }
    return ok;
}

template <class K, class R, class T>
bool check_shapes(xorshift32& g) {
    return check<K, R, T, 24, 8, false>(g) && check<K, R, T, 24, 8, true>(g) && check<K, R, T, 64, 16, false>(g) &&
           check<K, R, T, 64, 16, true>(g) && check<K, R, T, 60, 20, false>(g) && check<K, R, T, 60, 20, true>(g) &&
           check<K, R, T, 36, 12, false>(g) && check<K, R, T, 36, 12, true>(g);
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
        using K8 = sf::int8_kernel_set<B>;
        using K16 = sf::a16w8_kernel_set<B>;
        const bool same = check_shapes<K8, sf::int8_kernel_set<sf::reference>, std::int8_t>(g) &&
                          check_shapes<K16, sf::a16w8_kernel_set<sf::reference>, std::int16_t>(g);
        std::int8_t x[64];
        std::int16_t x16[64];
        for (auto& v : x) v = std::int8_t(g.next() >> 24);
        for (auto& v : x16) v = std::int16_t(g.next() >> 16);
        constexpr auto& angles = sf::math::rotary_angles_q14<rows, 8, 10000>;
        const std::uint64_t count = tiny_rotary_work<K8>(x, angles), count16 = tiny_rotary_work<K16>(x16, angles);
        std::printf("%s: int8 and a16w8 turns %s the reference's; the tiny encoder's rotary work: %llu instructions "
                    "(int8), %llu (a16w8)\n", name, same ? "equal" : "DIFFER FROM", (unsigned long long)count,
                    (unsigned long long)count16);
        return same;
    });
    float xf[64];
    for (auto& v : xf) v = float(std::int32_t(g.next() >> 16) - 32768) / 16384.0f;
    const std::uint64_t count = tiny_rotary_work<sf::kernel_set<sf::reference>>(xf, sf::math::rotary_angles<rows, 8, 10000>);
    std::printf("reference: the tiny encoder's rotary work: %llu instructions (f32)\n", (unsigned long long)count);
    std::printf("%s\n", ok ? "rotary rows: ok" : "rotary rows: FAILED");
    return ok ? 0 : 1;
}
