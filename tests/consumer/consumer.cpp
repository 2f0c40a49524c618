// A tiny consumer of staticformer: builds against the library the way a user project would
// (add_subdirectory or find_package) and runs one forward pass per backend.
// Exit status 0 only if both passes return status::ok, the padded rows are zero, the valid
// rows are finite and the consumer's own a*b+c is not fused (it links staticformer::strict_fp).
#include <staticformer/staticformer.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace sf = staticformer;

using cfg = sf::encoder_config<8, 2, 16, 4, 1>;  // d_model, heads, d_ff, seq_len, layers
constexpr int valid_len = 3;                     // the last row is padding

// Static storage, filled at run time (a real model would be a constexpr object in .rodata), on
// the 64-byte boundary the simd kernels read fastest.
alignas(sf::weights_alignment) static sf::encoder_weights<cfg, sf::f32> weights;

namespace {

std::uint32_t lcg_state = 12345u;

// Deterministic values in [-scale, scale).
float next(float scale) {
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return (float(lcg_state >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
}

template <std::size_t N>
void fill(float (&a)[N], float scale) {
    for (float& v : a) v = next(scale);
}
template <std::size_t R, std::size_t C>
void fill(float (&a)[R][C], float scale) {
    for (auto& row : a) fill(row, scale);
}
template <std::size_t N>
void set(float (&a)[N], float value) {
    for (float& v : a) v = value;
}

void fill_weights() {
    for (auto& l : weights.layer) {
        fill(l.qkv_w, 0.35f);
        fill(l.qkv_b, 0.1f);
        fill(l.out_w, 0.35f);
        fill(l.out_b, 0.1f);
        fill(l.ff1_w, 0.35f);
        fill(l.ff1_b, 0.1f);
        fill(l.ff2_w, 0.25f);
        fill(l.ff2_b, 0.1f);
        set(l.norm1_gamma, 1.0f);
        set(l.norm1_beta, 0.0f);
        set(l.norm2_gamma, 1.0f);
        set(l.norm2_beta, 0.0f);
    }
}

template <class Encoder>
bool run(const char* name, Encoder& enc, const float* x, float* y) {
    for (std::size_t i = 0; i < Encoder::io_values; ++i) y[i] = 42.0f;  // stale data to overwrite
    const sf::status s = enc.forward(x, y, valid_len);
    bool padded_zero = true, finite = true;
    for (int r = 0; r < cfg::seq_len; ++r)
        for (int c = 0; c < cfg::d_model; ++c) {
            const float v = y[r * cfg::d_model + c];
            if (r >= valid_len && v != 0.0f) padded_zero = false;
            if (r < valid_len && !std::isfinite(v)) finite = false;
        }
    std::printf("%-9s backend: status %s, padded rows %s, valid rows %s\n", name, sf::to_string(s),
                padded_zero ? "zero" : "NOT ZERO", finite ? "finite" : "NOT FINITE");
    return s == sf::status::ok && padded_zero && finite;
}

// The user's own float code beside the encoder: a*b+c with inputs whose fused result differs
// from two roundings. Built with staticformer::strict_fp it must round twice, as on every target.
volatile float fa = 1.0f + 0x1p-12f, fb = 1.0f + 0x1p-12f, fc = -1.0f;

bool own_code_rounds_twice() {
    const float a = fa, b = fb, c = fc;
    const float mine = a * b + c;  // a compiler contracting it would fuse this
    volatile float product = fa * fb;  // read again: a*b above stays free to fuse
    const float twice = product + fc;
    const float fused = std::fma(a, b, c);
    std::printf("own a*b+c: %.9g (two roundings %.9g, fused %.9g): %s\n", double(mine), double(twice),
                double(fused), mine == twice && fused != twice ? "two roundings" : "NOT TWO ROUNDINGS");
    return mine == twice && fused != twice;
}

}  // namespace

int main() {
    fill_weights();
    float x[cfg::seq_len * cfg::d_model];
    for (float& v : x) v = next(1.0f);

    static sf::encoder<cfg> by_default{weights};
    static sf::encoder<cfg, sf::f32, sf::reference> by_reference{weights};
    float y_default[cfg::seq_len * cfg::d_model], y_reference[cfg::seq_len * cfg::d_model];

    std::printf("staticformer %d.%d.%d consumer: default backend %s (STATICFORMER_HAS_SIMD=%d), "
                "sizeof(void*) = %u\n",
                STATICFORMER_VERSION_MAJOR, STATICFORMER_VERSION_MINOR, STATICFORMER_VERSION_PATCH,
                STATICFORMER_HAS_SIMD         ? "simd"
                : STATICFORMER_HAS_ARMV7_NEON ? "armv7_neon (float: the reference kernels)"
                                              : "reference",
                int(STATICFORMER_HAS_SIMD), unsigned(sizeof(void*)));
    const bool ok_default = run("default", by_default, x, y_default);
    const bool ok_reference = run("reference", by_reference, x, y_reference);
    std::printf("default and reference outputs %s\n",
                std::memcmp(y_default, y_reference, sizeof y_default) == 0 ? "bit-identical" : "DIFFER");
    const bool ok = ok_default && ok_reference && own_code_rounds_twice();
    std::printf("%s\n", ok ? "consumer OK" : "consumer FAILED");
    return ok ? 0 : 1;
}
