// Whole-encoder latency, reference vs simd, at several valid lengths (Google Benchmark).
//   make bench   (or: build/bench/bench_encoder --benchmark_counters_tabular=true)
#include <benchmark/benchmark.h>

#include <staticformer/staticformer.hpp>

#include <vector>

#include "common/cases.hpp"

namespace {

namespace sf = staticformer;
using tiny = sftest::tiny_pre_gelu;  // 64/4/256/32/2

// Multiply-adds of projections and attention for n valid rows, counted as two flops each.
template <class Cfg>
double flops(int n) {
    constexpr double D = Cfg::d_model, F = Cfg::d_ff;
    return 2.0 * (double(n) * (4 * D * D + 2 * D * F) + 2.0 * n * n * D) * Cfg::layers;
}

template <class Cfg, class Backend>
void encoder_forward(benchmark::State& state) {
    static sf::encoder<Cfg, sf::f32, Backend> enc{sftest::weights_for<Cfg>()};
    const int n = int(state.range(0));
    const auto x = sftest::make_input<Cfg>(sftest::input_kind::normal);
    std::vector<float> y(x.size());
    for (auto _ : state) {
        enc.forward(x.data(), y.data(), n);
        benchmark::DoNotOptimize(y.data());
    }
    state.counters["GFLOP/s"] = benchmark::Counter(flops<Cfg>(n) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK_TEMPLATE(encoder_forward, tiny, sf::reference)->Arg(8)->Arg(16)->Arg(32);
#if STATICFORMER_HAS_SIMD
BENCHMARK_TEMPLATE(encoder_forward, tiny, sf::simd)->Arg(8)->Arg(16)->Arg(32);
#endif

}  // namespace

BENCHMARK_MAIN();
