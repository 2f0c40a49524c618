// staticformer demo: runs the example encoder (examples/demo/demo_model.hpp, made by
// tools/make_demo_model.py) on this host with the reference backend and with the best kernels
// this CPU has (chosen at run time: dispatched.hpp), and prints the output checksum, whether
// the two agree bit for bit, latency and memory footprint; then quantises it to int8
// (calibrated on inputs like the demo's) and does the same in int8; then runs the trained
// digits models (digits.cpp).
#include <staticformer/quant/convert.hpp>
#include <staticformer/quant/quantize.hpp>
#include <staticformer/staticformer.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "digits_test.hpp"
#include "dispatched.hpp"

namespace sf = staticformer;
using cfg = demo_model_config;

namespace {

constexpr int S = cfg::seq_len, D = cfg::d_model;
float input[S * D];
float out_reference[S * D];
float out_simd[S * D];

sf::encoder<cfg, sf::f32, sf::reference> reference_encoder{demo_model};

alignas(sf::weights_alignment) sf::encoder_weights<cfg, sf::int8> demo_model_int8;  // quantised in main()
std::int16_t input_int8[S * D], out_int8_reference[S * D], out_int8[S * D];  // (the int16 stream)
sf::encoder<cfg, sf::int8, sf::reference> reference_int8{demo_model_int8};

// The forward passes of the level dispatch() picks for this CPU (the "default" kernels).
sf::status dispatched_forward(const float* in, float* out, int valid_len) {
    return sf::dispatch([&](auto level) { return forward_f32<level()>(demo_model, in, out, valid_len); });
}
sf::status dispatched_forward(const std::int16_t* in, std::int16_t* out, int valid_len) {
    return sf::dispatch([&](auto level) { return forward_int8<level()>(demo_model_int8, in, out, valid_len); });
}

// Timed passes per latency (--runs N, 1..41; fewer under valgrind).
constexpr int max_runs = 41;
int runs = max_runs;

// Median wall time of one forward pass, in microseconds.
template <class Forward, class T>
double latency_us(Forward forward, const T* in, T* out, int valid_len) {
    double t[max_runs];
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        forward(in, out, valid_len);
        t[i] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    }
    std::nth_element(t, t + runs / 2, t + runs);
    return t[runs / 2];
}

double gflops(int n) {  // multiply-adds of the projections and attention, counted as 2 flops
    const double proj = double(n) * (4.0 * D * D + 2.0 * D * cfg::d_ff);
    const double attn = 2.0 * double(n) * n * D;
    return 2.0 * (proj + attn) * cfg::layers * 1e-9;
}

}  // namespace

// A deterministic input: a few sinusoids per feature (positional-encoding-like); variant k
// shifts their phase (k = 0 is the demo input, the others calibrate the int8 model).
void make_input(float* x, int k) {
    for (int s = 0; s < S; ++s)
        for (int d = 0; d < D; ++d)
            x[s * D + d] = std::sin(0.1f * float(s + 1) * float(d % 7 + 1) + 0.37f * float(k)) + 0.01f * float(d);
}

template <class P>
void print_memory(const char* name) {
    using enc = sf::encoder<cfg, P, sf::reference>;  // tile of 4 rows
    // The simd backend's tile is the whole sequence (its workspace is a compile-time size too).
    using simd_workspace = typename sf::precision_traits<P>::template workspace<cfg, sf::tile_for<cfg, sf::simd>>;
    std::printf("  %-5s weights %7zu B (%.3f x f32)   workspace %6zu B (reference), %6zu B (simd)\n", name,
                enc::weight_bytes, double(enc::weight_bytes) / double(sf::encoder<cfg>::weight_bytes),
                enc::workspace_bytes, sizeof(simd_workspace));
}

// The int8 model: calibrated on 8 phase-shifted inputs (not the demo input), then run on the
// demo input with both backends. Returns false if they differ.
bool run_int8() {
    sf::quant::calibrator<cfg> calibration(demo_model);
    static float x[S * D];
    for (int k = 1; k <= 8; ++k) {
        make_input(x, k);
        if (calibration.observe(x, S) != sf::status::ok) return false;
    }
    calibration.quantize(demo_model_int8);
    if (sf::quantize_input(demo_model_int8, input, input_int8, S * D) != sf::status::ok ||
        reference_int8.forward(input_int8, out_int8_reference, S) != sf::status::ok ||
        dispatched_forward(input_int8, out_int8, S) != sf::status::ok)
        return false;
    const bool equal = std::memcmp(out_int8_reference, out_int8, sizeof out_int8) == 0;
    static float y[S * D];
    sf::dequantize_output(demo_model_int8, out_int8, y, S * D);
    double signal = 0, noise = 0;
    for (int i = 0; i < S * D; ++i) signal += double(out_reference[i]) * out_reference[i], noise += double(y[i] - out_reference[i]) * (y[i] - out_reference[i]);
    std::printf("int8 (quantised here, calibrated on 8 other inputs):\n");
    std::printf("  output checksum (CRC-32): %08x, reference vs default backend: %s\n",
                sf::blob::crc32(reinterpret_cast<const unsigned char*>(out_int8), sizeof out_int8),
                equal ? "bit-identical (memcmp)" : "DIFFERENT");
    std::printf("  SQNR against the f32 output: %.2f dB\n", 10.0 * std::log10(signal / noise));
    for (int n : {S / 4, S / 2, S}) {
        const double r = latency_us([](auto... a) { return reference_int8.forward(a...); }, input_int8, out_int8_reference, n);
        const double v = latency_us([](auto... a) { return dispatched_forward(a...); }, input_int8, out_int8, n);
        std::printf("  valid_len %3d: reference %9.1f us   default %9.1f us  (%.1fx, %.2f GOP/s)\n", n, r, v, r / v,
                    gflops(n) / (v * 1e-6));
    }
    return equal;
}

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], "--runs") == 0) runs = std::atoi(argv[2]);
    if (argc != 1 && (argc != 3 || runs < 1 || runs > max_runs)) {
        std::printf("usage: %s [--runs 1..%d]\n", argv[0], max_runs);
        return 2;
    }
    make_input(input, 0);

    const int valid_len = S;
    if (reference_encoder.forward(input, out_reference, valid_len) != sf::status::ok ||
        dispatched_forward(input, out_simd, valid_len) != sf::status::ok) {
        std::puts("forward failed");
        return 1;
    }
    const bool equal = std::memcmp(out_reference, out_simd, sizeof out_reference) == 0;
    const std::uint32_t checksum = sf::blob::crc32(reinterpret_cast<const unsigned char*>(out_reference), sizeof out_reference);

    std::printf("staticformer demo: d_model=%d heads=%d d_ff=%d seq_len=%d layers=%d, %s, %s%s\n", D, cfg::heads,
                cfg::d_ff, S, cfg::layers, cfg::norm_first ? "pre-norm" : "post-norm",
                cfg::activation == sf::activation_kind::gelu ? "gelu" : "relu", cfg::has_final_norm ? ", final norm" : "");
    std::printf("default kernels: %s, chosen at run time for this CPU (built for %s)\n",
                sf::isa_name(sf::dispatched_isa()), sf::isa_name(sf::compiled_isa));
    std::printf("output[0][0..3]: %.6f %.6f %.6f %.6f\n", out_reference[0], out_reference[1], out_reference[2], out_reference[3]);
    std::printf("output checksum (CRC-32 of %zu bytes): %08x\n", sizeof out_reference, checksum);
    std::printf("reference vs default backend: %s\n", equal ? "bit-identical (memcmp)" : "DIFFERENT");

    std::printf("latency (median of %d, one thread):\n", runs);
    for (int n : {S / 4, S / 2, S}) {
        const double r = latency_us([](auto... a) { return reference_encoder.forward(a...); }, input, out_reference, n);
        const double v = latency_us([](auto... a) { return dispatched_forward(a...); }, input, out_simd, n);
        std::printf("  valid_len %3d: reference %9.1f us   default %9.1f us  (%.1fx, %.2f GFLOP/s)\n", n, r, v, r / v,
                    gflops(n) / (v * 1e-6));
    }
    std::printf("memory (constexpr):\n");
    using default_encoder = sf::encoder<cfg>;  // this build's default backend
    std::printf("  weights    %8zu bytes (.rodata)\n", default_encoder::weight_bytes);
    std::printf("  workspace  %8zu bytes (inside the encoder object)\n", default_encoder::workspace_bytes);
    std::printf("  encoder    %8zu bytes (sizeof, workspace + weights pointer)\n", sizeof(default_encoder));
    std::printf("  input/out  %8zu bytes each (caller's buffers)\n", sizeof input);
    std::printf("  heap       %8d bytes\n", 0);
    std::printf("per precision (constexpr, this configuration):\n");
    print_memory<sf::f32>("f32");
    print_memory<sf::f16>("f16");
    print_memory<sf::int8>("int8");
    print_memory<sf::a16w8>("a16w8");
    const bool int8_equal = run_int8();
    const digits_data digits{digits_vit,   digits_vit_f16,     digits_vit_int8,    digits_tokens,
                             digits_tokens_f16, digits_tokens_int8, digits_test_images, digits_test_labels,
                             digits_test_count};
    sf::dispatch([&](auto level) { run_digits<level()>(digits); });
    return equal && int8_equal ? 0 : 1;
}
