// staticformer footprint: the int8 (or a16w8) weights of the measured programs. A host program that
// tools/footprint.py builds once per configuration and runs: it quantises the generated f32
// weights (SF_FP_F32_HEADER) with the library's own quantiser (quant/quantize.hpp, min-max
// calibration on a few deterministic inputs of platform.hpp's generator, the programs' input
// among them) and writes them with quant::detail::write_header, the writer behind
// tools/export_pytorch.py --precision int8. The scheme exists once, in the library's C++.
//
//   quantize_weights OUT.hpp "staticformer::encoder_config<...>"
// writes OUT.hpp (`using weights_config = ...;` and `weights`, to be included inside namespace
// sf_fp) and prints one line: sf_fp_quant: samples=... sqnr_db=... (the output against f32's).
// SF_FP_QUANT_PRECISION: the integer precision (default staticformer::int8).
#include SF_FP_F32_HEADER

#include <cstdio>
#include <string>
#include <vector>

#include "quantize_tool.hpp"  // python/staticformer_export: the exporter's quantiser program, its header writer

#include "platform.hpp"

namespace sf = staticformer;

#ifndef SF_FP_QUANT_PRECISION
#define SF_FP_QUANT_PRECISION staticformer::int8
#endif
using quant_precision = SF_FP_QUANT_PRECISION;
using cfg = sf_fp::config;

// The stage comparison's output SQNR: the dequantised output against the f32 encoder's.
double quantised_sqnr(const sf::encoder_weights<cfg, quant_precision>& wq, const sf::quant::report& r,
                      const std::vector<float>& samples, int count) {
    constexpr std::size_t n = std::size_t(cfg::seq_len) * cfg::d_model;
    sf::quant::stage_comparison<cfg, quant_precision> stages(sf_fp::weights, wq, r);
    for (int s = 0; s < count; ++s)
        if (stages.observe(samples.data() + n * std::size_t(s), cfg::seq_len) != sf::status::ok) return -1.0;
    return stages.table().output.sqnr();
}

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s OUT.hpp CONFIG_TYPE\n", argv[0]);
        return 2;
    }
    constexpr std::size_t n = std::size_t(cfg::seq_len) * cfg::d_model;
    // The first seed is the input of footprint_main.cpp's programs.
    const std::uint32_t seeds[] = {0x9E3779B9u, 0x6A09E667u, 0xBB67AE85u, 0x3C6EF372u};
    const int count = int(sizeof seeds / sizeof seeds[0]);
    std::vector<float> samples(n * count);
    sf::quant::calibrator<cfg> c(sf_fp::weights);
    for (int s = 0; s < count; ++s) {
        sf_fp::generator g{seeds[s]};
        float* x = samples.data() + n * s;
        for (std::size_t i = 0; i < n; ++i) x[i] = g.next();
        if (c.observe(x, cfg::seq_len) != sf::status::ok) {
            std::fprintf(stderr, "calibration input %d refused\n", s);
            return 1;
        }
    }
    static sf::encoder_weights<cfg, quant_precision> w8;
    const sf::quant::report r = c.quantize(w8);
    if (!sf::is_valid(w8)) {
        std::fprintf(stderr, "quantised weights out of range\n");
        return 1;
    }
    const std::string config_line = std::string("using weights_config = ") + argv[2] + ";";
    std::FILE* f = std::fopen(argv[1], "w");
    if (!f) {
        std::fprintf(stderr, "cannot write %s\n", argv[1]);
        return 1;
    }
    sf::quant::detail::write_header(f, "weights", config_line.c_str(), w8, "the footprint's f32 weights",
                                    "ports/footprint/quantize_weights.cpp");
    if (std::fclose(f) != 0) return 1;
    std::printf("sf_fp_quant: samples=%d sqnr_db=%.2f\n", count, quantised_sqnr(w8, r, samples, count));
    return 0;
}
