// staticformer int8 benchmarks (Google Benchmark): the int8 linear kernel and the whole int8
// encoder, reference vs simd, and this machine's peak of the int8 dot-product instruction the
// simd kernels use. One thread, batch 1. Weights: random f32 weights quantised by
// quant::calibrator (tests/common/cases.hpp). Counters: GOP/s (a multiply-add counts as two).
#include <benchmark/benchmark.h>

#include <staticformer/staticformer.hpp>

#include <cstdint>
#include <memory>
#include <vector>

#include "common/cases.hpp"
#include "configs.hpp"

namespace {

namespace sf = staticformer;
using namespace sfbench;

void set_rate(benchmark::State& state, double ops) {
    state.counters["GOP/s"] = benchmark::Counter(ops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// ---- whole int8 encoder ---------------------------------------------------------------------

template <class Cfg, class Backend>
void encoder_int8(benchmark::State& state) {
    static sf::encoder<Cfg, sf::int8, Backend> enc{sftest::weights_for<Cfg, sf::int8>()};
    const int n = Cfg::seq_len;
    const auto x = sftest::make_input_int8<Cfg>(sftest::input_kind::normal);
    std::vector<std::int8_t> y(x.size());
    for (auto _ : state) {
        enc.forward(x.data(), y.data(), n);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_rate(state, encoder_ops<Cfg>(n));
    state.counters["valid_len"] = n;
}

BENCHMARK_TEMPLATE(encoder_int8, tiny, sf::reference)->Name("int8_encoder/tiny/reference");
BENCHMARK_TEMPLATE(encoder_int8, small, sf::reference)->Name("int8_encoder/small/reference");
BENCHMARK_TEMPLATE(encoder_int8, mini, sf::reference)->Name("int8_encoder/mini/reference");
BENCHMARK_TEMPLATE(encoder_int8, wide, sf::reference)->Name("int8_encoder/wide/reference");
#if STATICFORMER_HAS_SIMD
BENCHMARK_TEMPLATE(encoder_int8, tiny, sf::simd)->Name("int8_encoder/tiny/simd");
BENCHMARK_TEMPLATE(encoder_int8, small, sf::simd)->Name("int8_encoder/small/simd");
BENCHMARK_TEMPLATE(encoder_int8, mini, sf::simd)->Name("int8_encoder/mini/simd");
BENCHMARK_TEMPLATE(encoder_int8, wide, sf::simd)->Name("int8_encoder/wide/simd");
#endif

// ---- int8 kernels (one tile of 4 rows, as the encoder calls them) ----------------------------

template <int In, int Out>
const sf::linear_int8<In, Out>& random_linear() {
    static const auto p = [] {
        auto q = std::make_unique<sf::linear_int8<In, Out>>();
        sftest::splitmix64 g{std::uint64_t(In) * 7919u + Out};
        for (int i = 0; i < In; ++i)
            for (int o = 0; o < Out; ++o) q->w[i / 4][o][i % 4] = std::int8_t(g.next() >> 56);
        for (int o = 0; o < Out; ++o) q->bias[o] = std::int32_t(g.next() >> 48) - 32768, q->multiplier[o] = 20000;
        q->shift = 24;
        q->output_zero_point = 3;
        return q;
    }();
    return *p;
}

template <int In, int Out, class Backend>
void linear_int8(benchmark::State& state) {
    constexpr int rows = 4;
    const auto& p = random_linear<In, Out>();
    std::vector<std::int8_t> x(rows * In), y(rows * Out);
    sftest::splitmix64 g{1};
    for (auto& v : x) v = std::int8_t(g.next() >> 56);
    for (auto _ : state) {
        sf::int8_kernel_set<Backend>::linear(x.data(), rows, p, y.data());
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_rate(state, 2.0 * rows * In * Out);
}

#define LINEAR_ROWS(In, Out)                                                                                 \
    BENCHMARK_TEMPLATE(linear_int8, In, Out, sf::reference)->Name("int8_linear/" #In "x" #Out "/reference"); \
    BENCHMARK_TEMPLATE(linear_int8, In, Out, sf::simd)->Name("int8_linear/" #In "x" #Out "/simd");
LINEAR_ROWS(128, 128)
LINEAR_ROWS(128, 512)
LINEAR_ROWS(512, 128)
LINEAR_ROWS(384, 1536)
LINEAR_ROWS(1536, 384)
#undef LINEAR_ROWS

// Attention of one query row against n keys (one head), scores then context, and the other
// row-wise int8 kernels on one tile of the wide configuration.
template <class Backend>
void attention_int8(benchmark::State& state) {
    constexpr int S = 128, Dh = 32, D = 384;
    const int n = S;
    std::vector<std::int8_t> q(Dh), kt(std::size_t(D) * S), v(std::size_t(S) * D), ctx(Dh);
    std::vector<std::int32_t> s(S);
    std::vector<std::int16_t> p(S);
    sftest::splitmix64 g{2};
    for (auto& e : q) e = std::int8_t(g.next() >> 56);
    for (auto& e : kt) e = std::int8_t(g.next() >> 56);
    for (auto& e : v) e = std::int8_t(g.next() >> 56);
    using K = sf::int8_kernel_set<Backend>;
    for (auto _ : state) {
        K::template attention_scores<Dh, S>(q.data(), kt.data(), n, s.data());
        K::softmax(s.data(), n, {1 << 20, 31}, p.data());
        K::template attention_context<Dh, D>(p.data(), v.data(), n, {1 << 28, 40}, ctx.data());
        benchmark::DoNotOptimize(ctx.data());
        benchmark::ClobberMemory();
    }
    set_rate(state, 2.0 * 2 * n * Dh);
}
BENCHMARK_TEMPLATE(attention_int8, sf::reference)->Name("int8_attention_row/128x32/reference");
BENCHMARK_TEMPLATE(attention_int8, sf::simd)->Name("int8_attention_row/128x32/simd");

template <class Backend>
void rowwise_int8(benchmark::State& state) {
    using Cfg = wide;
    constexpr int D = Cfg::d_model, F = Cfg::d_ff, T = 4;
    const auto& w = sftest::weights_for<Cfg, sf::int8>().layer[0];
    std::vector<std::int8_t> x(T * D), a(T * D), h(T * F);
    sftest::splitmix64 g{3};
    for (auto& e : x) e = std::int8_t(g.next() >> 56);
    for (auto& e : a) e = std::int8_t(g.next() >> 56);
    for (auto& e : h) e = std::int8_t(g.next() >> 56);
    using K = sf::int8_kernel_set<Backend>;
    for (auto _ : state) {
        K::layer_norm(x.data(), T, w.norm1, a.data());
        K::add(x.data(), a.data(), T * D, w.residual1);
        K::activate(h.data(), T * F, w.activation);
        benchmark::DoNotOptimize(x.data());
        benchmark::DoNotOptimize(h.data());
        benchmark::ClobberMemory();
    }
}
BENCHMARK_TEMPLATE(rowwise_int8, sf::reference)->Name("int8_norm_add_act/wide_tile/reference");
BENCHMARK_TEMPLATE(rowwise_int8, sf::simd)->Name("int8_norm_add_act/wide_tile/simd");

// ---- the dot-product instruction's peak ------------------------------------------------------

#if defined(STATICFORMER_INT8_AVX512VNNI) || defined(STATICFORMER_INT8_AVXVNNI) || defined(STATICFORMER_INT8_AVX2)
#if defined(STATICFORMER_INT8_AVX512VNNI)
using vreg = __m512i;
constexpr double macs_per_op = 64;  // VPDPBUSD zmm: 16 lanes x 4 byte products
inline vreg dot(vreg a, vreg b, vreg c) { return _mm512_dpbusd_epi32(a, b, c); }
inline vreg splat(int v) { return _mm512_set1_epi32(v); }
#elif defined(STATICFORMER_INT8_AVXVNNI)
using vreg = __m256i;
constexpr double macs_per_op = 32;  // VPDPBUSD ymm
inline vreg dot(vreg a, vreg b, vreg c) { return _mm256_dpbusd_avx_epi32(a, b, c); }
inline vreg splat(int v) { return _mm256_set1_epi32(v); }
#else
using vreg = __m256i;
constexpr double macs_per_op = 16;  // VPMADDWD ymm + VPADDD: 16 int16 products
inline vreg dot(vreg a, vreg b, vreg c) { return _mm256_add_epi32(a, _mm256_madd_epi16(b, c)); }
inline vreg splat(int v) { return _mm256_set1_epi32(v); }
#endif

// Twelve independent accumulator chains: throughput, not latency.
void dot_peak(benchmark::State& state) {
    constexpr int chains = 12, steps = 1000;
    vreg acc[chains];
    for (int c = 0; c < chains; ++c) acc[c] = splat(c);
    vreg b = splat(0x01020304), x = splat(0x05060708);
    benchmark::DoNotOptimize(b);
    benchmark::DoNotOptimize(x);
    for (auto _ : state) {
        for (int s = 0; s < steps; ++s)
            for (int c = 0; c < chains; ++c) acc[c] = dot(acc[c], b, x);
        for (int c = 0; c < chains; ++c) benchmark::DoNotOptimize(acc[c]);
    }
    set_rate(state, 2.0 * macs_per_op * chains * steps);
    state.SetLabel(STATICFORMER_INT8_ISA);
}
BENCHMARK(dot_peak)->Name("int8_dot_peak");
#endif

}  // namespace

BENCHMARK_MAIN();
