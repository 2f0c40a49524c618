// Cortex-M bring-up: the reference encoder on the target. Weights and input come from a fixed
// generator at run time, so every core must produce the bytes the host produces: the CRC-32 of
// each output is checked against the host's (x86-64, g++ -O2 -ffp-contract=off, this file with
// SF_PORT_HOST: see README.md). Prints the instruction count of each forward().
#include <staticformer/staticformer.hpp>

#include <cstdint>
#include <cstdio>

#ifdef SF_PORT_HOST
inline void sf_port_counter_start() {}
inline std::uint64_t sf_port_counter_read() { return 0; }
#else
#include "cycle_counter.h"
#endif

namespace sf = staticformer;

namespace {

// The defaults (post-norm, ReLU), then the other paths: pre-norm, GELU (through the portable
// exp), a final LayerNorm.
using cfg_a = sf::encoder_config<16, 2, 32, 8, 1>;
using cfg_b = sf::encoder_config<16, 2, 32, 8, 2, sf::pre_norm, sf::gelu, sf::final_norm>;

// xorshift32; values are multiples of scale / 2^15 in [-scale, scale): exact in float.
struct generator {
    std::uint32_t state;
    float next(float scale) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        return float(std::int32_t(state >> 16) - 32768) * (scale / 32768.0f);
    }
    template <class Array>
    void fill(Array& a, float scale, float offset = 0.0f) {
        float* p = reinterpret_cast<float*>(&a);
        for (std::size_t i = 0; i < sizeof a / sizeof(float); ++i) p[i] = offset + next(scale);
    }
};

template <class Cfg>
void fill_weights(sf::encoder_weights<Cfg, sf::f32>& w, generator& g) {
    for (auto& l : w.layer) {
        g.fill(l.qkv_w, 0.25f);
        g.fill(l.qkv_b, 0.125f);
        g.fill(l.out_w, 0.25f);
        g.fill(l.out_b, 0.125f);
        g.fill(l.ff1_w, 0.25f);
        g.fill(l.ff1_b, 0.125f);
        g.fill(l.ff2_w, 0.125f);
        g.fill(l.ff2_b, 0.125f);
        g.fill(l.norm1_gamma, 0.125f, 1.0f);
        g.fill(l.norm1_beta, 0.125f);
        g.fill(l.norm2_gamma, 0.125f, 1.0f);
        g.fill(l.norm2_beta, 0.125f);
    }
    if constexpr (Cfg::has_final_norm) {
        g.fill(w.final_norm.gamma, 0.125f, 1.0f);
        g.fill(w.final_norm.beta, 0.125f);
    }
}

sf::encoder_weights<cfg_a, sf::f32> weights_a;
sf::encoder_weights<cfg_b, sf::f32> weights_b;
// a: the encoder object, which owns its workspace. b: a caller-owned workspace in the section the
// linker script places first in .bss, 64-byte aligned. Only the all-zero workspace goes there:
// an encoder object holds a pointer, and clang refuses a relocation in a NOBITS section.
sf::encoder<cfg_a, sf::f32, sf::reference> encoder_a{weights_a};
__attribute__((section(".bss.staticformer_workspace"))) sf::workspace<cfg_b> workspace_b;

template <class Cfg, class Forward>
int run(const char* name, Forward forward, generator& g, int valid_len, std::uint32_t expected_crc) {
    constexpr std::size_t count = std::size_t(Cfg::seq_len) * Cfg::d_model;
    static float x[count], y[count];
    g.fill(x, 1.0f);
    sf_port_counter_start();
    const sf::status s = forward(x, y, valid_len);
    const std::uint64_t instructions = sf_port_counter_read();
    bool padding_zero = true;
    for (std::size_t i = std::size_t(valid_len) * Cfg::d_model; i < count; ++i) padding_zero = padding_zero && y[i] == 0.0f;
    const std::uint32_t crc = sf::blob::crc32(reinterpret_cast<const unsigned char*>(y), sizeof y);
    const bool ok = s == sf::status::ok && padding_zero && crc == expected_crc;
    std::printf("encoder %s: forward(valid_len %d) %llu instructions, output crc32 %08lx (%s)\n", name, valid_len,
                (unsigned long long)instructions, (unsigned long)crc, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}

}  // namespace

int main() {
    generator g{0x2545F491u};
    fill_weights(weights_a, g);
    fill_weights(weights_b, g);
    std::printf("encoder: weights %u + %u B, workspace %u + %u B, workspace b at %p\n", unsigned(sizeof weights_a),
                unsigned(sizeof weights_b), unsigned(decltype(encoder_a)::workspace_bytes),
                unsigned(sizeof workspace_b), static_cast<void*>(&workspace_b));
    int failures = 0;
    failures += run<cfg_a>("a <16,2,32,8,1> post-norm relu",
                           [](const float* x, float* y, int n) { return encoder_a.forward(x, y, n); }, g, 6, 0x6859a174u);
    failures += run<cfg_b>("b <16,2,32,8,2> pre-norm gelu final-norm",
                           [](const float* x, float* y, int n) { return sf::forward<sf::reference>(weights_b, workspace_b, x, y, n); },
                           g, 7, 0x9dd0e5d2u);
    return failures;
}
