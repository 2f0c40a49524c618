// Cortex-M: the int8 linear layer of each Cortex-M backend of the build (backends.hpp) on the shapes of the tiny encoder, 32 rows: its bytes must
// equal the reference kernel's (memcmp), for shifts on the fast requantisation path and off it;
// prints the instructions per multiply-add of each shape (run.sh: QEMU -icount shift=0).
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

constexpr int rows = 32;

// Random weights, biases up to the kernel's bound, multipliers below 2^15; one pass of each
// backend. Returns false if their bytes differ.
template <class Backend, int In, int Out>
bool check(const char* name, std::int32_t shift, std::uint32_t seed) {
    static sf::linear_int8<In, Out> p;
    static std::int8_t x[rows * In], y[rows * Out], expected[rows * Out];
    xorshift32 g{seed};
    for (auto& group : p.w)
        for (auto& out : group)
            for (int k = 0; k < 4; ++k) out[k] = int(&group - p.w) * 4 + k < In ? g.int8() : 0;  // padding: 0
    for (int o = 0; o < Out; ++o) {
        p.bias[o] = std::int32_t(g.next() % 2000001u) - 1000000;
        p.multiplier[o] = std::int16_t(g.next() % 32768u);
    }
    p.bias[0] = p.bias_limit, p.bias[Out - 1] = -p.bias_limit;
    p.shift = shift, p.output_zero_point = std::int8_t(g.next() % 256u);
    for (auto& v : x) v = g.int8();
    x[0] = -128, x[1] = 127;

    sf_port_counter_start();
    sf::int8_kernel_set<Backend>::linear(x, rows, p, y);
    const std::uint64_t n = sf_port_counter_read();
    sf::int8_kernel_set<sf::reference>::linear(x, rows, p, expected);
    const bool equal = std::memcmp(y, expected, sizeof y) == 0;
    const std::uint64_t macs = std::uint64_t(rows) * In * Out;
    std::printf("%-8s shift %2d: %llu.%03llu instructions per multiply-add, %s\n", name, int(shift),
                (unsigned long long)(n / macs), (unsigned long long)(n % macs * 1000 / macs),
                equal ? "equal to the reference" : "DIFFERENT from the reference");
    return equal;
}

}  // namespace

int main() {
    const bool ok = each_cortex_m_backend([](auto tag, const char* backend) {
        using B = decltype(tag);
        std::printf("int8 linear, %d rows, backend %s\n", rows, backend);
        bool ok = true;
        // 17..32: the M4 / M7 SMMLAR requantisation, 17..47 the M55's SMLAWB one; the others math::requantize
        for (std::int32_t shift : {22, 17, 32, 33, 47, 16, 48, 1, 62}) {
            ok = check<B, 64, 192>("64->192", shift, 0x1234u + std::uint32_t(shift)) && ok;
            ok = check<B, 256, 64>("256->64", shift, 0x5678u + std::uint32_t(shift)) && ok;
            ok = check<B, 63, 5>("63->5", shift, 0x9abcu + std::uint32_t(shift)) && ok;  // In % 4, odd Out
            ok = check<B, 252, 6>("252->6", shift, 0xdef0u + std::uint32_t(shift)) && ok;  // 8-group passes and the rest
        }
        return ok;
    });
    std::puts(ok ? "linear shapes: ok" : "linear shapes: FAILED");
    return ok ? 0 : 1;
}
