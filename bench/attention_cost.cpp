// The work of the attention options, counted in instructions (deterministic, unlike time on a
// shared VM): `attention_cost VARIANT PRECISION PASSES` runs PASSES full-length simd passes of the
// tiny reference configuration (64/4/256/32/2, pre-norm, GELU, final norm) as it is (VARIANT
// plain), with rotary<10000> (rotary), rotary_interleaved<10000> (interleaved), kv_heads<2> (gqa)
// or kv_heads<1> (mqa); PRECISION f32 or int8. The difference of two counts under
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null bench/attention_cost VARIANT f32 10 (and 20)
// is 10 passes (bench/PERF_NOTES.md, "Rotary positions, grouped-query attention"). Built with
// -march=x86-64-v3: valgrind does not run AVX-512.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "common/cases.hpp"
namespace sf = staticformer;
template <class... Options>
using tiny_with = sf::encoder_config<64, 4, 256, 32, 2, sf::pre_norm, sf::gelu, sf::final_norm, Options...>;
template <class Cfg, class P>
void run(int passes) {
    static sf::encoder<Cfg, P, sf::simd> enc{sftest::weights_for<Cfg, P>()};
    if constexpr (std::is_same<P, sf::int8>::value) {
        const auto x = sftest::make_input_int8<Cfg>(sftest::input_kind::normal);
        std::vector<sftest::stream_t> y(x.size());
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
    if (argc != 4) return std::fprintf(stderr, "usage: %s plain|rotary|interleaved|gqa|mqa f32|int8 PASSES\n", argv[0]), 2;
    const std::string variant = argv[1];
    const int passes = std::atoi(argv[3]);
    if (variant == "rotary") run<tiny_with<sf::rotary<10000>>>(argv[2], passes);
    else if (variant == "interleaved") run<tiny_with<sf::rotary_interleaved<10000>>>(argv[2], passes);
    else if (variant == "gqa") run<tiny_with<sf::kv_heads<2>>>(argv[2], passes);
    else if (variant == "mqa") run<tiny_with<sf::kv_heads<1>>>(argv[2], passes);
    else run<tiny_with<>>(argv[2], passes);
}
