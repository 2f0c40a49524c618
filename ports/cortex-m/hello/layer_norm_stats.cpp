// Cortex-M: a LayerNorm row's statistics by the DSP port (with an FPU: VSQRT and two 32-bit
// divisions) against the reference's digit-by-digit root and long division: floor(sqrt(v)) for
// every v = k^2 - 1, k^2, k^2 + 1 and k^2 + 2k (k < 2^16, the ends of each root's range) and for
// random v; 2^40 / d for every d < 2^16; whole statistics of random rows' sums and of constant rows,
// LayerNorm's and RMSNorm's.
#include <staticformer/staticformer.hpp>

#include <cstdint>
#include <cstdio>
#include <initializer_list>

#include "xorshift.hpp"

namespace sf = staticformer;

int main() {
#if STATICFORMER_HAS_CORTEX_M_DSP && defined(__ARM_FP) && (__ARM_FP & 4)
    namespace dsp = sf::kernels::cortex_m_dsp;
    long wrong = 0;
    const auto root = [&](std::uint32_t v) {
        if (sf::kernels::arm_dsp::isqrt32_fpu(v) != sf::math::isqrt32(v) && wrong++ < 8)
            std::printf("DIFFERENT: isqrt32(%lu)\n", (unsigned long)v);
    };
    for (std::uint32_t k = 0; k < 65536; ++k) {
        const std::uint32_t sq = k * k;
        root(sq), root(sq + 1), root(sq + 2 * k), root(sq - 1);
    }
    root(0xffffffffu);
    xorshift32 g{0x1357u};
    for (int i = 0; i < 200000; ++i) root(g.next() >> (g.next() % 32));
    for (std::uint32_t d = 1; d < 65536; ++d)
        if (dsp::power_of_two_40_over(d) != sf::math::power_of_two_over<40>(d) && wrong++ < 8)
            std::printf("DIFFERENT: 2^40 / %lu\n", (unsigned long)d);
    static sf::layer_norm_int8<64> p{};
    static sf::layer_norm_int8<64, true> q{};  // RMSNorm: about the input's zero point
    const auto stats = [&](auto& params, std::int32_t sum, std::int32_t sum_sq) {
        const auto a = dsp::layer_norm_stats(sum, sum_sq, params);
        const auto b = sf::kernels::reference::layer_norm_stats(sum, sum_sq, params);
        if ((a.sum != b.sum || a.reciprocal != b.reciprocal) && wrong++ < 8)
            std::printf("DIFFERENT: stats of sum %ld, sum_sq %ld, eps %ld\n", long(sum), long(sum_sq), long(params.eps));
    };
    for (std::int64_t eps : {0, 1, 1000, 1 << 20}) {
        p.eps = q.eps = eps;
        for (int i = 0; i < 20000; ++i) {
            // sums of 64 int8 values: |sum| <= 64 * 128, sum_sq >= sum^2 / 64 (a constant row: equal)
            const std::int32_t sum = std::int32_t(g.next() % 16385) - 8192;
            const std::int32_t least = std::int32_t((std::int64_t(sum) * sum + 63) / 64);
            const std::int32_t sum_sq = i % 4 == 0 ? least : least + std::int32_t(g.next() % (64 * 16384 - least + 1));
            stats(p, sum, sum_sq);
            q.input_zero_point = i % 8 == 0 ? sum / 64 : std::int32_t(g.next() % 256) - 128;
            stats(q, sum, sum_sq);
        }
    }
    std::printf("layer norm stats: %s (%ld different)\n", wrong ? "FAILED" : "ok", wrong);
    return wrong ? 1 : 0;
#else
    std::puts("layer norm stats: the reference's here (no DSP extension or no FPU): ok");
    return 0;
#endif
}
