// Cortex-M: the int8 softmax of each Cortex-M backend of the build (backends.hpp: Helium and the
// DSP port's scalar steps on the Cortex-M55, the DSP port's elsewhere): its probabilities and exponentials must equal the
// reference kernel's (memcmp) for every logit shift 1..62 (both halves of the product's
// rescaling, and the shift of 32 between them), several multipliers, row lengths 1..40 (the
// predicated tails) and rows of random, equal and far-apart scores; prints the instructions per
// score of a 32-score row (run.sh: QEMU -icount shift=0), and checks that a row's count does not
// depend on its scores (firmware timing relies on it), below and above the shift of 32.
#include <staticformer/staticformer.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "backends.hpp"
#include "cycle_counter.h"
#include "xorshift.hpp"

namespace sf = staticformer;

namespace {

constexpr int max_n = 40;

// Constant counts are a promise of the assembly: the C++ twins let GCC branch around zeros.
#if defined(STATICFORMER_NO_ASM)
constexpr bool promised = false;
#else
constexpr bool promised = true;
#endif

// Scores as attention makes them: |s| < 2^24 (a head's int8 dot products). kind 0: random over
// the whole range, 1: within 2^10 of each other, 2: all equal, 3: one far above the rest.
void fill(std::int32_t* s, int n, int kind, xorshift32& g) {
    for (int j = 0; j < n; ++j) {
        const std::int32_t r = std::int32_t(g.next() % (1u << 25)) - (1 << 24);
        s[j] = kind == 0 ? r : kind == 1 ? 1000 + r % 1024 : kind == 2 ? -77777 : (j == n / 2 ? (1 << 24) - 1 : r % 4096);
    }
}

template <class Backend>
bool check(int n, sf::math::fixed_multiplier m, int kind, std::uint32_t seed) {
    std::int32_t s[max_n] = {}, s_expected[max_n];
    std::int16_t p[max_n], p_expected[max_n];
    xorshift32 g{seed};
    fill(s, n, kind, g);
    std::memcpy(s_expected, s, sizeof s);
    std::memset(p, 0x55, sizeof p), std::memset(p_expected, 0x55, sizeof p_expected);
    sf::int8_kernel_set<Backend>::softmax(s, n, m, p);
    sf::int8_kernel_set<sf::reference>::softmax(s_expected, n, m, p_expected);
    const bool equal = std::memcmp(p, p_expected, sizeof p) == 0 && std::memcmp(s, s_expected, sizeof s) == 0;
    if (!equal)
        std::printf("DIFFERENT: n %d, multiplier %ld, shift %ld, kind %d\n", n, long(m.multiplier), long(m.shift), kind);
    return equal;
}

// Every shift, multiplier, length and kind of row against the reference; the counts of 32-score rows.
template <class Backend>
bool check_backend() {
    bool ok = true;
    int rows = 0;
    xorshift32 g{0x2468u};
    for (std::int32_t shift = 1; shift <= 62; ++shift)
        for (std::int32_t multiplier : {std::int32_t(0), std::int32_t(1), std::int32_t(1) << 30, std::int32_t(2147483647),
                                        std::int32_t(g.next() >> 1), std::int32_t(g.next() >> 9)})
            for (int n : {1, 2, 3, 4, 5, 7, 8, 13, 32, 33, 40})
                for (int kind = 0; kind < 4; ++kind, ++rows)
                    ok = check<Backend>(n, {multiplier, shift}, kind, g.next()) && ok;

    // The same instructions for every kind of row: within one counter tick (40 instructions on
    // MPS2, 32 on AN547), where a saturated or far score skipping its exponential would cost
    // hundreds.
    std::int32_t s[32] = {};
    std::int16_t p[32];
    for (std::int32_t shift : {8, 20, 31, 32, 38, 50}) {
        std::uint64_t fewest = ~std::uint64_t(0), most = 0;
        for (int kind = 0; kind < 4; ++kind) {
            xorshift32 k{7u + std::uint32_t(kind)};
            fill(s, 32, kind, k);
            sf_port_counter_start();
            sf::int8_kernel_set<Backend>::softmax(s, 32, {(1 << 30) + 12345, shift}, p);
            const std::uint64_t count = sf_port_counter_read();
            fewest = count < fewest ? count : fewest, most = count > most ? count : most;
        }
        const bool constant = most - fewest <= 40;
        std::printf("shift %2ld: a row of 32 scores takes %llu - %llu instructions%s\n", long(shift),
                    (unsigned long long)fewest, (unsigned long long)most,
                    constant ? "" : promised ? ": DEPENDS ON THE SCORES" : " (the C++ twins)");
        ok = (constant || !promised) && ok;
    }
    xorshift32 h{99};
    fill(s, 32, 0, h);
    sf_port_counter_start();
    sf::int8_kernel_set<Backend>::softmax(s, 32, {1 << 30, 38}, p);
    const std::uint64_t count = sf_port_counter_read();
    std::printf("%d rows: %s; a row of 32 scores: %llu instructions (%llu per score)\n", rows,
                ok ? "equal to the reference, constant counts" : "DIFFERENT from the reference or data-dependent",
                (unsigned long long)count, (unsigned long long)(count / 32));
    return ok;
}

}  // namespace

int main() {
    const bool ok = each_cortex_m_backend([](auto tag, const char* backend) {
        std::printf("int8 softmax, backend %s\n", backend);
        return check_backend<decltype(tag)>();
    });
    std::puts(ok ? "softmax rows: ok" : "softmax rows: FAILED");
    return ok ? 0 : 1;
}
