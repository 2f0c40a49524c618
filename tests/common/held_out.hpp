// The reference configurations' accuracy measurement, shared by tests/parity_test.cpp (its SQNR
// bounds) and bench/precision_table.cpp (make bench's side-by-side table): fan-in weights
// (make_weights), 4 standard-normal sequences to calibrate on and 4 others, held out, to measure
// on; SQNR against the f32 encoder of the whole output and of the branch (output - input: what
// the layers add). Every backend gives the reference's bytes, so the build's fastest measures.
#pragma once

#include <staticformer/quant/calibration.hpp>
#include <staticformer/quant/convert.hpp>
#include <staticformer/quant/quantize.hpp>
#include <staticformer/quant/stages.hpp>
#include <staticformer/staticformer.hpp>

#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "cases.hpp"

namespace sftest {

template <class Cfg>
struct held_out_case {
    static constexpr int sequences = 4;
    static constexpr std::size_t n = std::size_t(Cfg::seq_len) * Cfg::d_model;
    std::unique_ptr<sf::encoder_weights<Cfg, sf::f32>> w32 = std::make_unique<sf::encoder_weights<Cfg, sf::f32>>();
    std::vector<float> calibration = std::vector<float>(sequences * n), input = std::vector<float>(sequences * n);
    std::vector<float> output = std::vector<float>(sequences * n);  // the f32 encoder's, of input

    held_out_case() {
        make_weights(*w32, 0x5eed0000u + Cfg::d_model);
        splitmix64 g{0xca1u + Cfg::d_model};
        for (int k = 0; k < sequences; ++k) fill_normal(&calibration[k * n], n, g);
        for (int k = 0; k < sequences; ++k) fill_normal(&input[k * n], n, g);
        const auto ws = std::make_unique<sf::workspace_for<Cfg, sf::default_backend>>();
        for (int k = 0; k < sequences; ++k)
            require_ok(sf::forward<sf::default_backend>(*w32, *ws, &input[k * n], &output[k * n], Cfg::seq_len), "f32");
    }
};

// P's weights from the case's f32 ones: f16 converted, int8 and a16w8 calibrated on its
// calibration sequences.
template <class Cfg, class P>
std::unique_ptr<sf::encoder_weights<Cfg, P>> held_out_weights(const held_out_case<Cfg>& c) {
    auto w = std::make_unique<sf::encoder_weights<Cfg, P>>();
    if constexpr (std::is_same<P, sf::f16>::value) {
        sf::convert_weights(*c.w32, *w);
    } else {
        sf::quant::calibrator<Cfg> cal(*c.w32);
        for (int k = 0; k < c.sequences; ++k) require_ok(cal.observe(&c.calibration[k * c.n], Cfg::seq_len), "observe");
        cal.quantize(*w);
    }
    return w;
}

struct sqnr_pair {
    double output, branch;
};

// P's forward of the held-out inputs (float in and out: integer precisions through
// quantize_input / dequantize_output) into y, sequence k at k n.
template <class Cfg, class P>
void held_out_forward(const held_out_case<Cfg>& c, const sf::encoder_weights<Cfg, P>& w, std::vector<float>& y) {
    y.resize(c.sequences * c.n);
    if constexpr (sf::is_integer_precision<P>) {
        using integer_workspace =
            typename sf::precision_traits<P>::template workspace<Cfg, sf::tile_for<Cfg, sf::default_backend>>;
        const auto ws = std::make_unique<integer_workspace>();
        std::vector<std::int16_t> q(c.n), out(c.n);
        for (int k = 0; k < c.sequences; ++k) {
            require_ok(sf::quantize_input(w, &c.input[k * c.n], q.data(), c.n), "quantize_input");
            require_ok(sf::forward<sf::default_backend>(w, *ws, q.data(), out.data(), Cfg::seq_len), "integer");
            sf::dequantize_output(w, out.data(), &y[k * c.n], c.n);
        }
    } else {
        const auto ws = std::make_unique<sf::workspace_for<Cfg, sf::default_backend>>();
        for (int k = 0; k < c.sequences; ++k)
            require_ok(sf::forward<sf::default_backend>(w, *ws, &c.input[k * c.n], &y[k * c.n], Cfg::seq_len), "float");
    }
}

template <class Cfg>
sqnr_pair held_out_sqnr(const held_out_case<Cfg>& c, const std::vector<float>& y) {
    sf::quant::sqnr_sum output, branch;
    for (std::size_t i = 0; i < y.size(); ++i)
        output.add(c.output[i], y[i]), branch.add(double(c.output[i]) - c.input[i], double(y[i]) - c.input[i]);
    return {output.sqnr(), branch.sqnr()};
}

template <class Cfg, class P>
sqnr_pair held_out_sqnr(const held_out_case<Cfg>& c) {
    std::vector<float> y;
    held_out_forward(c, *held_out_weights<Cfg, P>(c), y);
    return held_out_sqnr(c, y);
}

}  // namespace sftest
