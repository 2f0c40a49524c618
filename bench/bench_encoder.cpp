// staticformer benchmarks (Google Benchmark): whole encoder and each kernel, reference vs simd,
// an Eigen 3.4 baseline, and this machine's FMA peak. One thread, batch 1.
//   make bench   regenerates bench/RESULTS.md and bench/results.png from these numbers.
// Counters: GFLOP/s (a multiply-add counts as two flops).
#include <benchmark/benchmark.h>

#include <staticformer/staticformer.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/cases.hpp"
#include "configs.hpp"
#include "eigen_encoder.hpp"

namespace {

namespace sf = staticformer;
using namespace sfbench;

void set_rate(benchmark::State& state, double flops) {
    state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// ---- whole encoder ------------------------------------------------------------------------

template <class Cfg, class Backend>
void encoder(benchmark::State& state) {
    static sf::encoder<Cfg, sf::f32, Backend> enc{sftest::weights_for<Cfg>()};
    const int n = Cfg::seq_len / int(state.range(0));  // valid_len = seq_len / divisor
    const auto x = sftest::make_input<Cfg>(sftest::input_kind::normal);
    std::vector<float> y(x.size());
    for (auto _ : state) {
        enc.forward(x.data(), y.data(), n);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_rate(state, encoder_ops<Cfg>(n));
    state.counters["valid_len"] = n;
}

template <class Cfg>
void eigen(benchmark::State& state) {
    static sfbench::eigen_encoder<Cfg> enc{sftest::weights_for<Cfg>()};
    static sf::encoder<Cfg> ours{sftest::weights_for<Cfg>()};
    const int n = Cfg::seq_len / int(state.range(0));
    const auto x = sftest::make_input<Cfg>(sftest::input_kind::normal);
    std::vector<float> y(x.size()), z(x.size());
    // Agreement first: a baseline computing something else would not be a baseline.
    enc.forward(x.data(), y.data(), n);
    ours.forward(x.data(), z.data(), n);
    float scale = 1.0f, err = 0.0f;
    for (std::size_t i = 0; i < y.size(); ++i) {
        scale = std::max(scale, std::fabs(z[i]));
        err = std::max(err, std::fabs(y[i] - z[i]));
    }
    if (!(err <= 1e-4f * scale)) {
        state.SkipWithError("Eigen baseline disagrees with staticformer by more than 1e-4");
        return;
    }
    for (auto _ : state) {
        enc.forward(x.data(), y.data(), n);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_rate(state, encoder_ops<Cfg>(n));
    state.counters["valid_len"] = n;
    state.counters["max_abs_diff"] = err;
}

#define ENCODER_BENCHES(cfg)                                                                     \
    BENCHMARK_TEMPLATE(encoder, cfg, sf::reference)->Arg(1)->Unit(benchmark::kMicrosecond);        \
    BENCHMARK_TEMPLATE(eigen, cfg)->Arg(1)->Arg(2)->Arg(4)->Unit(benchmark::kMicrosecond);         \
    BENCHMARK_TEMPLATE(encoder, cfg, sf::simd)->Arg(1)->Arg(2)->Arg(4)->Unit(benchmark::kMicrosecond);
ENCODER_BENCHES(tiny)
ENCODER_BENCHES(small)
ENCODER_BENCHES(mini)
ENCODER_BENCHES(wide)

// The same configurations with the whole sequence in one tile (tile_rows<seq_len>): each weight
// matrix is read once per layer instead of once per 4 rows, for RAM of the order of Eigen's
// whole-sequence matrices (the FFN hidden layer of every row).
template <class Cfg>
using whole_tile = sf::encoder_config<Cfg::d_model, Cfg::heads, Cfg::d_ff, Cfg::seq_len, Cfg::layers, sf::pre_norm,
                                      sf::gelu, sf::final_norm, sf::tile_rows<Cfg::seq_len>>;
using tiny_seq = whole_tile<tiny>;
using small_seq = whole_tile<small>;
using mini_seq = whole_tile<mini>;
using wide_seq = whole_tile<wide>;
#define WHOLE_TILE_BENCHES(cfg) \
    BENCHMARK_TEMPLATE(encoder, cfg, sf::simd)->Arg(1)->Arg(2)->Arg(4)->Unit(benchmark::kMicrosecond);
WHOLE_TILE_BENCHES(tiny_seq)
WHOLE_TILE_BENCHES(small_seq)
WHOLE_TILE_BENCHES(mini_seq)
WHOLE_TILE_BENCHES(wide_seq)

// ---- kernels, at each configuration's shapes (whole sequence valid) ------------------------

template <class Cfg, class Backend>
void linear_qkv(benchmark::State& state) {
    constexpr int D = Cfg::d_model, S = Cfg::seq_len;
    const auto& l = sftest::weights_for<Cfg>().layer[0];
    const auto x = sftest::make_input<Cfg>(sftest::input_kind::normal);
    static std::vector<float> y(std::size_t(S) * 3 * D);
    for (auto _ : state) {
        sf::kernel_set<Backend>::template linear<D, 3 * D>(x.data(), S, &l.qkv_w[0][0], l.qkv_b, y.data());
        benchmark::DoNotOptimize(y.data());
    }
    set_rate(state, 2.0 * S * D * 3 * D);
}

template <class Cfg, class Backend>
void linear_ffn1(benchmark::State& state) {
    constexpr int D = Cfg::d_model, S = Cfg::seq_len, F = Cfg::d_ff;
    const auto& l = sftest::weights_for<Cfg>().layer[0];
    const auto x = sftest::make_input<Cfg>(sftest::input_kind::normal);
    static std::vector<float> y(std::size_t(S) * F);
    for (auto _ : state) {
        sf::kernel_set<Backend>::template linear<D, F>(x.data(), S, &l.ff1_w[0][0], l.ff1_b, y.data());
        benchmark::DoNotOptimize(y.data());
    }
    set_rate(state, 2.0 * S * D * F);
}

template <class Cfg, class Backend>
void attention(benchmark::State& state) {  // scores, softmax and context: all heads, all rows
    constexpr int D = Cfg::d_model, S = Cfg::seq_len, H = Cfg::heads, Dh = Cfg::head_dim;
    using K = sf::kernel_set<Backend>;
    const auto q = sftest::make_input<Cfg>(sftest::input_kind::normal);
    const auto kt = sftest::make_input<Cfg>(sftest::input_kind::normal);
    const auto v = sftest::make_input<Cfg>(sftest::input_kind::normal);
    std::vector<float> s(S), ctx(std::size_t(S) * D);
    for (auto _ : state) {
        for (int r = 0; r < S; ++r)
            for (int h = 0; h < H; ++h) {
                K::template attention_scores<Dh, S>(q.data() + r * D + h * Dh, kt.data() + h * Dh * S, S, s.data());
                K::softmax(s.data(), S);
                K::template attention_context<Dh, D>(s.data(), v.data() + h * Dh, S, ctx.data() + r * D + h * Dh);
            }
        benchmark::DoNotOptimize(ctx.data());
    }
    set_rate(state, 2.0 * 2.0 * S * S * D);
}

template <class Cfg, class Backend>
void softmax(benchmark::State& state) {  // one row of seq_len scores per head and query
    constexpr int S = Cfg::seq_len;
    std::vector<float> s(S);
    sftest::splitmix64 g{5};
    sftest::fill_uniform(s.data(), S, g, 8.0f);
    for (auto _ : state) {
        for (int r = 0; r < S * Cfg::heads; ++r) sf::kernel_set<Backend>::softmax(s.data(), S);
        benchmark::DoNotOptimize(s.data());
    }
    state.counters["rows/s"] = benchmark::Counter(double(S) * Cfg::heads, benchmark::Counter::kIsIterationInvariantRate);
}

template <class Cfg, class Backend>
void layer_norm(benchmark::State& state) {
    constexpr int D = Cfg::d_model, S = Cfg::seq_len;
    const auto& l = sftest::weights_for<Cfg>().layer[0];
    auto x = sftest::make_input<Cfg>(sftest::input_kind::normal);
    for (auto _ : state) {
        sf::kernel_set<Backend>::template layer_norm<D>(x.data(), S, l.norm1_gamma, l.norm1_beta, Cfg::eps, x.data());
        benchmark::DoNotOptimize(x.data());
    }
    state.counters["rows/s"] = benchmark::Counter(S, benchmark::Counter::kIsIterationInvariantRate);
}

template <class Cfg, class Backend>
void gelu(benchmark::State& state) {
    constexpr int F = Cfg::d_ff, S = Cfg::seq_len;
    std::vector<float> input(std::size_t(S) * F), h(input.size());
    sftest::splitmix64 g{7};
    sftest::fill_uniform(input.data(), input.size(), g, 4.0f);
    for (auto _ : state) {
        // Fresh inputs every time: GELU applied over and over drives negative inputs into
        // subnormals, which no encoder sees and which are slow on x86.
        std::copy(input.begin(), input.end(), h.begin());
        sf::kernel_set<Backend>::template activate<sf::activation_kind::gelu>(h.data(), S * F);
        benchmark::DoNotOptimize(h.data());
    }
    state.counters["Gelem/s"] = benchmark::Counter(double(S) * F * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

#define KERNEL_BENCHES(cfg, backend)                    \
    BENCHMARK_TEMPLATE(linear_qkv, cfg, backend);       \
    BENCHMARK_TEMPLATE(linear_ffn1, cfg, backend);      \
    BENCHMARK_TEMPLATE(attention, cfg, backend);        \
    BENCHMARK_TEMPLATE(softmax, cfg, backend);          \
    BENCHMARK_TEMPLATE(layer_norm, cfg, backend);       \
    BENCHMARK_TEMPLATE(gelu, cfg, backend);
KERNEL_BENCHES(tiny, sf::simd)
KERNEL_BENCHES(mini, sf::simd)
KERNEL_BENCHES(tiny, sf::reference)

// ---- this machine's peak: independent FMA chains on full vectors ----------------------------

void fma_peak(benchmark::State& state) {
    using sf::kernels::simd::batch;
    constexpr int chains = 12;  // enough independent accumulators to cover latency x throughput
    batch acc[chains];
    for (int c = 0; c < chains; ++c) acc[c] = batch(float(c) * 1e-3f);
    const batch a(0.999999f), b(1e-7f);
    constexpr int steps = 1000;
    for (auto _ : state) {
        for (int i = 0; i < steps; ++i)
            for (int c = 0; c < chains; ++c) acc[c] = sf::kernels::simd::fma(acc[c], a, b);
        for (int c = 0; c < chains; ++c) benchmark::DoNotOptimize(acc[c]);
    }
    set_rate(state, 2.0 * steps * chains * sf::kernels::simd::width);
}
BENCHMARK(fma_peak);

}  // namespace

BENCHMARK_MAIN();
