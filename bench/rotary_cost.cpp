// The work of rotary positions, counted in instructions (deterministic, unlike time on a shared
// VM): `rotary_cost ROTARY PRECISION PASSES` runs PASSES full-length simd passes of the tiny
// reference configuration (64/4/256/32/2, pre-norm, GELU, final norm) with rotary<10000>
// (ROTARY 1) or without (ROTARY 0), PRECISION f32 or int8. The difference of two counts under
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null bench/rotary_cost ROTARY f32 10 (and 20)
// is 10 passes (bench/PERF_NOTES.md, "Rotary positions"). Built with -march=x86-64-v3:
// valgrind does not run AVX-512.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "common/cases.hpp"
namespace sf = staticformer;
using tiny_rotary = sf::encoder_config<64, 4, 256, 32, 2, sf::pre_norm, sf::gelu, sf::final_norm, sf::rotary<10000>>;
template <class Cfg, class P>
void run(int passes) {
    static sf::encoder<Cfg, P, sf::simd> enc{sftest::weights_for<Cfg, P>()};
    if constexpr (std::is_same<P, sf::int8>::value) {
        const auto x = sftest::make_input_int8<Cfg>(sftest::input_kind::normal);
        std::vector<std::int8_t> y(x.size());
        for (int i = 0; i < passes; ++i) enc.forward(x.data(), y.data(), Cfg::seq_len);
        std::printf("%d\n", int(y[5]));
    } else {
        const auto x = sftest::make_input<Cfg>(sftest::input_kind::normal);
        std::vector<float> y(x.size());
        for (int i = 0; i < passes; ++i) enc.forward(x.data(), y.data(), Cfg::seq_len);
        std::printf("%a\n", double(y[5]));
    }
}
template <class Cfg>
void run(const char* precision, int passes) {
    if (std::strcmp(precision, "int8") == 0)
        run<Cfg, sf::int8>(passes);
    else
        run<Cfg, sf::f32>(passes);
}
int main(int argc, char** argv) {
    if (argc != 4) return std::fprintf(stderr, "usage: %s ROTARY f32|int8 PASSES\n", argv[0]), 2;
    if (std::atoi(argv[1]) != 0)
        run<tiny_rotary>(argv[2], std::atoi(argv[3]));
    else
        run<sftest::tiny>(argv[2], std::atoi(argv[3]));
}
