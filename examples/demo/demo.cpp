// staticformer demo: runs the example encoder (examples/demo/demo_model.hpp, made by
// tools/make_demo_model.py) on this host with the reference and simd backends and prints the
// output checksum, whether the backends agree bit for bit, latency and memory footprint.
#include <staticformer/staticformer.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "demo_model.hpp"

namespace sf = staticformer;
using cfg = demo_model_config;

namespace {

constexpr int S = cfg::seq_len, D = cfg::d_model;
float input[S * D];
float out_reference[S * D];
float out_simd[S * D];

sf::encoder<cfg, sf::f32, sf::reference> reference_encoder{demo_model};
sf::encoder<cfg> default_encoder{demo_model};  // simd where this build has it

// Median wall time of one forward pass, in microseconds.
template <class Encoder>
double latency_us(Encoder& enc, float* out, int valid_len) {
    constexpr int runs = 41;
    double t[runs];
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        enc.forward(input, out, valid_len);
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

int main() {
    // A deterministic input: a few sinusoids per feature (positional-encoding-like).
    for (int s = 0; s < S; ++s)
        for (int d = 0; d < D; ++d) input[s * D + d] = std::sin(0.1f * float(s + 1) * float(d % 7 + 1)) + 0.01f * float(d);

    const int valid_len = S;
    if (reference_encoder.forward(input, out_reference, valid_len) != sf::status::ok ||
        default_encoder.forward(input, out_simd, valid_len) != sf::status::ok) {
        std::puts("forward failed");
        return 1;
    }
    const bool equal = std::memcmp(out_reference, out_simd, sizeof out_reference) == 0;
    const std::uint32_t checksum = sf::blob::crc32(reinterpret_cast<const unsigned char*>(out_reference), sizeof out_reference);

    std::printf("staticformer demo: d_model=%d heads=%d d_ff=%d seq_len=%d layers=%d, %s, %s%s\n", D, cfg::heads,
                cfg::d_ff, S, cfg::layers, cfg::norm_first ? "pre-norm" : "post-norm",
                cfg::activation == sf::activation_kind::gelu ? "gelu" : "relu", cfg::has_final_norm ? ", final norm" : "");
    std::printf("default backend: %s\n", STATICFORMER_HAS_SIMD ? "simd (xsimd)" : "reference (no SIMD with FMA in this build)");
    std::printf("output[0][0..3]: %.6f %.6f %.6f %.6f\n", out_reference[0], out_reference[1], out_reference[2], out_reference[3]);
    std::printf("output checksum (CRC-32 of %zu bytes): %08x\n", sizeof out_reference, checksum);
    std::printf("reference vs default backend: %s\n", equal ? "bit-identical (memcmp)" : "DIFFERENT");

    std::printf("latency (median of 41, one thread):\n");
    for (int n : {S / 4, S / 2, S}) {
        const double r = latency_us(reference_encoder, out_reference, n);
        const double v = latency_us(default_encoder, out_simd, n);
        std::printf("  valid_len %3d: reference %9.1f us   default %9.1f us  (%.1fx, %.2f GFLOP/s)\n", n, r, v, r / v,
                    gflops(n) / (v * 1e-6));
    }
    std::printf("memory (constexpr):\n");
    std::printf("  weights    %8zu bytes (.rodata)\n", decltype(default_encoder)::weight_bytes);
    std::printf("  workspace  %8zu bytes (inside the encoder object)\n", decltype(default_encoder)::workspace_bytes);
    std::printf("  encoder    %8zu bytes (sizeof, workspace + weights pointer)\n", sizeof default_encoder);
    std::printf("  input/out  %8zu bytes each (caller's buffers)\n", sizeof input);
    std::printf("  heap       %8d bytes\n", 0);
    return equal ? 0 : 1;
}
