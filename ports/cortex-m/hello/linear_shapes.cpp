// Cortex-M: the int8 and a16w8 linear layers of each Cortex-M backend of the build (backends.hpp)
// on the shapes of the tiny encoder, 32 rows: their bytes must equal the reference kernel's
// (memcmp), for shifts on the fast requantisation path and off it; prints the instructions per
// multiply-add of each shape (run.sh: QEMU -icount shift=0).
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
constexpr int tile_rows = sf::encoder_config<64, 4, 256, 32, 2>::tile;  // a Cortex-M encoder's calls

bool report(const char* name, std::int32_t shift, std::uint64_t n, std::uint64_t macs, bool equal) {
    std::printf("%-8s shift %2d: %llu.%03llu instructions per multiply-add, %s\n", name, int(shift),
                (unsigned long long)(n / macs), (unsigned long long)(n % macs * 1000 / macs),
                equal ? "equal to the reference" : "DIFFERENT from the reference");
    return equal;
}

// Random weights (the padding 0), biases up to the kernel's bound, multipliers below 2^15.
template <class Params>
void random_layer(Params& p, xorshift32& g) {
    constexpr int in = Params::inputs, out = Params::outputs;
    for (auto& group : p.w)
        for (auto& weights : group)
            for (int k = 0; k < 4; ++k) weights[k] = int(&group - p.w) * 4 + k < in ? g.int8() : 0;
    for (int o = 0; o < out; ++o) {
        p.bias[o] = std::int32_t(g.next() % 2000001u) - 1000000;
        p.multiplier[o] = std::int16_t(g.next() % 32768u);
    }
    p.bias[0] = std::int32_t(p.bias_limit), p.bias[out - 1] = -std::int32_t(p.bias_limit);
}

// A random layer and rows; one pass of each backend. Returns false if their bytes differ.
template <class Backend, int In, int Out>
bool check(const char* name, std::int32_t shift, std::uint32_t seed) {
    static sf::linear_int8<In, Out> p;
    static std::int8_t x[rows * In], y[rows * Out], expected[rows * Out];
    xorshift32 g{seed};
    random_layer(p, g);
    p.shift = shift, p.output_zero_point = std::int8_t(g.next() % 256u);
    for (auto& v : x) v = g.int8();
    x[0] = -128, x[1] = 127;

    sf_port_counter_start();
    sf::int8_kernel_set<Backend>::linear(x, rows, p, y);
    const std::uint64_t n = sf_port_counter_read();
    sf::int8_kernel_set<sf::reference>::linear(x, rows, p, expected);
    return report(name, shift, n, std::uint64_t(rows) * In * Out, std::memcmp(y, expected, sizeof y) == 0);
}

// a16w8: int16 rows within the layer's input limit (both ends among them), outputs clamped to a
// random limit, the same weights' layout.
template <class Backend, int In, int Out>
bool check_a16w8(const char* name, std::int32_t shift, std::uint32_t seed) {
    static sf::linear_a16w8<In, Out> p;
    static std::int16_t x[rows * In], y[rows * Out], expected[rows * Out];
    xorshift32 g{seed};
    random_layer(p, g);
    p.shift = shift, p.output_limit = 1 + std::int32_t(g.next() % 32767u);
    const std::uint32_t span = 2u * std::uint32_t(p.input_limit) + 1u;
    for (auto& v : x) v = std::int16_t(std::int32_t(g.next() % span) - p.input_limit);
    x[0] = std::int16_t(-p.input_limit), x[1] = std::int16_t(p.input_limit);

    sf_port_counter_start();  // in the encoder's calls: tiles of tile_rows rows
    for (int r = 0; r < rows; r += tile_rows) sf::a16w8_kernel_set<Backend>::linear(x + r * In, tile_rows, p, y + r * Out);
    const std::uint64_t n = sf_port_counter_read();
    sf::a16w8_kernel_set<sf::reference>::linear(x, rows, p, expected);
    bool equal = std::memcmp(y, expected, sizeof y) == 0;
    for (int count : {31, 30, 29}) {  // one call: the rows left after the 4-row tiles (3, 2, 1)
        std::memset(y, 0, sizeof y);
        sf::a16w8_kernel_set<Backend>::linear(x, count, p, y);
        equal = std::memcmp(y, expected, sizeof(y[0]) * count * Out) == 0 && y[count * Out] == 0 && equal;
    }
    return report(name, shift, n, std::uint64_t(rows) * In * Out, equal);
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
        std::printf("a16w8 linear, %d rows in calls of %d, backend %s\n", rows, tile_rows, backend);
        // 17..32: the high-half rescale (SMMLAR); the others the reference's rescale
        for (std::int32_t shift : {22, 17, 32, 16, 33, 1, 62}) {
            ok = check_a16w8<B, 64, 192>("64->192", shift, 0x2345u + std::uint32_t(shift)) && ok;
            ok = check_a16w8<B, 64, 256>("64->256", shift, 0x3456u + std::uint32_t(shift)) && ok;
            ok = check_a16w8<B, 256, 64>("256->64", shift, 0x6789u + std::uint32_t(shift)) && ok;
            ok = check_a16w8<B, 63, 5>("63->5", shift, 0xabcdu + std::uint32_t(shift)) && ok;
            ok = check_a16w8<B, 80, 7>("80->7", shift, 0xbcdeu + std::uint32_t(shift)) && ok;  // odd Out
            ok = check_a16w8<B, 88, 6>("88->6", shift, 0xcdefu + std::uint32_t(shift)) && ok;  // past 80 inputs
            ok = check_a16w8<B, 252, 6>("252->6", shift, 0xef01u + std::uint32_t(shift)) && ok;
        }
        return ok;
    });
    std::puts(ok ? "linear shapes: ok" : "linear shapes: FAILED");
    return ok ? 0 : 1;
}
