// The work of a gated feed-forward, counted in instructions (deterministic, unlike time on a
// shared VM): `glu_cost GLU PASSES` runs PASSES full-length f32 simd passes of swiglu_causal
// (GLU 1: 20/4/26/10/2, SwiGLU) or of the same encoder without glu (GLU 0). The difference of two
// counts under
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null bench/glu_cost GLU 10 (and 20)
// is 10 passes (bench/PERF_NOTES.md, "Gated feed-forwards"). Built with -march=x86-64-v3:
// valgrind does not run AVX-512.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "common/cases.hpp"
namespace sf = staticformer;
using plain = sf::encoder_config<20, 4, 26, 10, 2, sf::pre_norm, sf::silu, sf::causal, sf::tile_rows<4>>;
template <class Cfg>
void run(int passes) {
    static sf::encoder<Cfg, sf::f32, sf::simd> enc{sftest::weights_for<Cfg>()};
    const auto x = sftest::make_input<Cfg>(sftest::input_kind::normal);
    std::vector<float> y(x.size());
    for (int i = 0; i < passes; ++i) enc.forward(x.data(), y.data(), Cfg::seq_len);
    std::printf("%a\n", double(y[5]));
}
int main(int argc, char** argv) {
    if (argc != 3) return std::fprintf(stderr, "usage: %s GLU PASSES\n", argv[0]), 2;
    if (std::atoi(argv[1]) != 0)
        run<sftest::swiglu_causal>(std::atoi(argv[2]));
    else
        run<plain>(std::atoi(argv[2]));
}
