// Host throughput, shared by bench_encoder.cpp (f32) and bench_int8.cpp (int8): whole-encoder
// passes split across worker threads (staticformer/parallel.hpp) through an OpenMP executor,
// batches of sequences in one call (forward_batch), and the time of one pass at every valid
// length. The threaded rows time the wall clock (the workers' CPU time adds up). Names:
//   threads/<cfg>/<f32|int8>/<workers>/real_time    one sequence on 1 or 2 workers
//   batch/<cfg>/<f32|int8>/<batch>/<workers>/real_time   a batch of full sequences
//   sweep/<cfg>/<f32|int8>/<valid_len>              one pass, one thread, valid_len rows
#pragma once

#include <benchmark/benchmark.h>

#include <staticformer/staticformer.hpp>

#include <memory>
#include <type_traits>
#include <vector>

#include "common/cases.hpp"
#include "configs.hpp"

namespace sfbench {

// The tasks of a stage on OpenMP's threads (libgomp keeps them between calls).
struct openmp_executor {
    void operator()(int count, sf::parallel_task task) const noexcept {
#pragma omp parallel for num_threads(count) schedule(static, 1)
        for (int i = 0; i < count; ++i) task(i);
    }
};

template <class Cfg, class P, int Workers>
using threads_workspace = std::conditional_t<std::is_same<P, sf::int8>::value,
                                             sf::parallel_workspace_int8_for<Cfg, Workers, sf::simd>,
                                             sf::parallel_workspace_for<Cfg, Workers, sf::simd>>;

template <class Cfg, class P, int Workers>
void threads(benchmark::State& state) {
    static const auto ws = std::make_unique<threads_workspace<Cfg, P, Workers>>();
    using value = std::conditional_t<std::is_same<P, sf::int8>::value, std::int16_t, float>;
    const std::vector<value> x = sftest::input_for<Cfg, P>(sftest::input_kind::normal);
    std::vector<value> y(x.size());
    const auto& w = sftest::weights_for<Cfg, P>();
    for (auto _ : state) {
        sf::forward<sf::simd>(w, *ws, x.data(), y.data(), Cfg::seq_len, {}, openmp_executor{});
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    state.counters["GFLOP/s"] = benchmark::Counter(encoder_ops<Cfg>(Cfg::seq_len) * 1e-9,
                                                   benchmark::Counter::kIsIterationInvariantRate);
    state.counters["workers"] = Workers;
    state.counters["tile"] = threads_workspace<Cfg, P, Workers>::tile;
}

template <class Cfg, class P, int Batch, int Workers>
using batch_workspace = std::conditional_t<std::is_same<P, sf::int8>::value,
                                           sf::batch_workspace_int8_for<Cfg, Batch, sf::simd, Workers>,
                                           sf::batch_workspace_for<Cfg, Batch, sf::simd, Workers>>;

template <class Cfg, class P, int Batch, int Workers>
void batch(benchmark::State& state) {
    static const auto ws = std::make_unique<batch_workspace<Cfg, P, Batch, Workers>>();
    using value = std::conditional_t<std::is_same<P, sf::int8>::value, std::int16_t, float>;
    const std::vector<value> one = sftest::input_for<Cfg, P>(sftest::input_kind::normal);
    std::vector<value> x, y(one.size() * Batch);
    for (int b = 0; b < Batch; ++b) x.insert(x.end(), one.begin(), one.end());
    const std::vector<int> lens(Batch, Cfg::seq_len);
    const auto& w = sftest::weights_for<Cfg, P>();
    for (auto _ : state) {
        if constexpr (Workers == 1)
            sf::forward_batch<sf::simd>(w, *ws, x.data(), y.data(), lens.data(), Batch);
        else
            sf::forward_batch<sf::simd>(w, *ws, x.data(), y.data(), lens.data(), Batch, nullptr, openmp_executor{});
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    state.counters["GFLOP/s"] = benchmark::Counter(Batch * encoder_ops<Cfg>(Cfg::seq_len) * 1e-9,
                                                   benchmark::Counter::kIsIterationInvariantRate);
    state.counters["tile"] = batch_workspace<Cfg, P, Batch, Workers>::tile;
}

// One pass on one thread with valid_len = the argument: make_results.py fits a + b n + c n^2
// (rows x weights, rows^2 of attention) to these and shows where a length costs more than its work.
template <class Cfg, class P>
void sweep(benchmark::State& state) {
    static const auto ws = std::make_unique<threads_workspace<Cfg, P, 1>>();
    using value = std::conditional_t<std::is_same<P, sf::int8>::value, std::int16_t, float>;
    const std::vector<value> x = sftest::input_for<Cfg, P>(sftest::input_kind::normal);
    std::vector<value> y(x.size());
    const auto& w = sftest::weights_for<Cfg, P>();
    const int n = int(state.range(0));
    for (auto _ : state) {
        sf::forward<sf::simd>(w, *ws, x.data(), y.data(), n);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    state.counters["GFLOP/s"] =
        benchmark::Counter(encoder_ops<Cfg>(n) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["valid_len"] = n;
}

}  // namespace sfbench

// (in a file that uses namespace sfbench: the macros take an unqualified name)
#define STATICFORMER_THREADS_ROWS(cfg, prec)                                                                  \
    BENCHMARK_TEMPLATE(threads, cfg, sf::prec, 1)->Name("threads/" #cfg "/" #prec "/1")->UseRealTime() \
        ->Unit(benchmark::kMicrosecond);                                                                      \
    BENCHMARK_TEMPLATE(threads, cfg, sf::prec, 2)->Name("threads/" #cfg "/" #prec "/2")->UseRealTime() \
        ->Unit(benchmark::kMicrosecond);                                                                      \
    BENCHMARK_TEMPLATE(batch, cfg, sf::prec, 8, 1)->Name("batch/" #cfg "/" #prec "/8/1")->UseRealTime()     \
        ->Unit(benchmark::kMicrosecond);                                                                      \
    BENCHMARK_TEMPLATE(batch, cfg, sf::prec, 8, 2)->Name("batch/" #cfg "/" #prec "/8/2")->UseRealTime()     \
        ->Unit(benchmark::kMicrosecond);
#define STATICFORMER_SWEEP_ROWS(cfg, prec)                                                           \
    BENCHMARK_TEMPLATE(sweep, cfg, sf::prec)->Name("sweep/" #cfg "/" #prec)->DenseRange(1, cfg::seq_len) \
        ->Unit(benchmark::kMicrosecond);
