// The work of key padding masks, counted in instructions (deterministic, unlike time on a
// shared VM): `mask_cost D VALID PASSES` runs PASSES tiny f32 simd passes with valid_len VALID,
// keeping every D-th key (D = 0: no mask). The difference of two counts under
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null bench/mask_cost D VALID 10 (and 20)
// is 10 passes (bench/PERF_NOTES.md, "Key padding masks"). Built with -march=x86-64-v3:
// valgrind does not run AVX-512.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "common/cases.hpp"
namespace sf = staticformer;
using cfg = sftest::tiny_pre_gelu;
int main(int argc, char** argv) {
    if (argc != 4) return std::fprintf(stderr, "usage: %s KEEP_EVERY VALID_LEN PASSES\n", argv[0]), 2;
    const int d = std::atoi(argv[1]);      // keep every d-th key (0: no mask)
    const int valid = std::atoi(argv[2]);
    static sf::encoder<cfg, sf::f32, sf::simd> enc{sftest::weights_for<cfg>()};
    const auto x = sftest::make_input<cfg>(sftest::input_kind::normal);
    std::vector<float> y(x.size());
    std::vector<std::uint8_t> mask(cfg::seq_len);
    for (int j = 0; j < cfg::seq_len; ++j) mask[std::size_t(j)] = d > 0 && j % d != 0;
    for (int i = 0; i < std::atoi(argv[3]); ++i)
        enc.forward(x.data(), y.data(), valid,
                    d > 0 ? sf::key_padding_mask{mask.data(), cfg::seq_len} : sf::key_padding_mask{});
    std::printf("%a\n", double(y[5]));
}
