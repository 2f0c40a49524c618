// What an option costs int8 by itself: `option_sqnr` quantises the test suite's weights of two
// configurations that differ only in rotary positions (a NeoBERT-like block, an interleaved
// post-norm one) and prints the int8 SQNR of each, with and without the option, against the
// library's own f32 output on the test inputs (normal and masked), reference backend.
// Built only when named (make target option_sqnr); bench/PERF_NOTES.md, "Rotary positions".
#include <cmath>
#include <cstdio>
#include <vector>
#include "common/cases.hpp"
namespace sf = staticformer;
using namespace sftest;

template <class Cfg>
double sqnr() {
    double signal = 0, noise = 0;
    for (input_kind kind : {input_kind::normal, input_kind::masked}) {
        const auto mask = make_mask(kind, Cfg::seq_len, Cfg::seq_len);
        static sf::workspace_for<Cfg, sf::reference> ws;
        static sf::workspace_int8_for<Cfg, sf::reference> ws8;
        const auto x = make_input<Cfg>(kind);
        std::vector<float> y(x.size()), back(x.size());
        require_ok(sf::forward<sf::reference>(weights_for<Cfg>(), ws, x.data(), y.data(), Cfg::seq_len, as_key_mask(mask)),
                   "f32 forward");
        const auto q = make_input_int8<Cfg>(kind);
        std::vector<sftest::stream_t> y8(q.size());
        require_ok(sf::forward<sf::reference>(weights_for<Cfg, sf::int8>(), ws8, q.data(), y8.data(), Cfg::seq_len,
                                              as_key_mask(mask)),
                   "int8 forward");
        sf::dequantize_output(weights_for<Cfg, sf::int8>(), y8.data(), back.data(), back.size());
        for (std::size_t i = 0; i < y.size(); ++i)
            signal += double(y[i]) * y[i], noise += double(back[i] - y[i]) * (back[i] - y[i]);
    }
    return 10 * std::log10(signal / noise);
}

using neobert = sf::encoder_config<32, 4, 40, 13, 2, sf::pre_norm, sf::silu, sf::glu, sf::rms_norm, sf::no_bias,
                                   sf::final_norm, sf::tile_rows<5>>;
using neobert_rotary = sf::encoder_config<32, 4, 40, 13, 2, sf::pre_norm, sf::silu, sf::glu, sf::rms_norm, sf::no_bias,
                                          sf::final_norm, sf::rotary<10000>, sf::tile_rows<5>>;
using post = sf::encoder_config<24, 3, 36, 9, 2, sf::gelu, sf::tile_rows<2>>;
using post_rotary = sf::encoder_config<24, 3, 36, 9, 2, sf::gelu, sf::rotary_interleaved<500000>, sf::tile_rows<2>>;

int main() {
    std::printf("NeoBERT-like 32/4/40/13/2: rotary %.2f dB, without %.2f dB\n", sqnr<neobert_rotary>(), sqnr<neobert>());
    std::printf("post-norm GELU 24/3/36/9/2: interleaved rotary %.2f dB, without %.2f dB\n", sqnr<post_rotary>(),
                sqnr<post>());
}
