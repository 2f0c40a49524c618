// Cortex-M: a stream LayerNorm row's statistics by the DSP port (with an FPU: VSQRT and two 32-bit
// divisions) against the reference's digit-by-digit root and long division: floor(sqrt(v)) for
// every v = k^2 - 1, k^2, k^2 + 1 and k^2 + 2k (k < 2^16, the ends of each root's range) and for
// random v; whole statistics of random rows' sums and of constant rows, LayerNorm's and RMSNorm's.
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
    static sf::layer_norm_int8<64> p{};
    static sf::layer_norm_int8<64, true> q{};  // RMSNorm: about the stream's zero, 0
    const auto stats = [&](auto& params, std::int32_t sum, std::int64_t sum_sq) {
        const auto a = dsp::stream_norm_stats(sum, sum_sq, params);
        const auto b = sf::kernels::reference::stream_norm_stats(sum, sum_sq, params);
        if ((a.sum != b.sum || a.reciprocal != b.reciprocal) && wrong++ < 8)
            std::printf("DIFFERENT: stats of sum %ld, sum_sq %lld, eps %ld\n", long(sum), (long long)sum_sq,
                        long(params.eps));
    };
    for (std::int64_t eps : {std::int64_t(0), std::int64_t(1), std::int64_t(1000), std::int64_t(1) << 20,
                             std::int64_t(1) << 40}) {
        p.eps = q.eps = eps;
        for (int i = 0; i < 20000; ++i) {
            // sums of 64 int16 values: |sum| <= 64 * 2^15, sum_sq >= sum^2 / 64 (a constant row: equal)
            const std::int32_t sum = std::int32_t(g.next() % (1u << 22)) - (1 << 21);
            const std::int64_t least = (std::int64_t(sum) * sum + 63) / 64;
            const std::int64_t most = std::int64_t(64) << 30, spread = (std::int64_t(g.next()) << 5) % (most - least + 1);
            const std::int64_t sum_sq = i % 4 == 0 ? least : least + (i % 4 == 1 ? spread >> (g.next() % 30) : spread);
            stats(p, sum, sum_sq);
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
