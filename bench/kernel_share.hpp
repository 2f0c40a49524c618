// Where the time of one forward pass goes: a kernel set wrapped so that every kernel call is an
// rdtsc span adding its ticks to a counter per kind of kernel, shared by bench_encoder.cpp
// (float) and bench_int8.cpp. The encoder composes kernels only through its kernel set, so
// running sf::detail::forward with the wrapped set measures the real encoder, call for call.
#pragma once

#include <benchmark/benchmark.h>
#include <x86intrin.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace sfbench {

enum kernel_kind { k_linear, k_attention, k_softmax, k_layer_norm, k_activation, k_add, kernel_kinds };
inline const char* const kernel_kind_name[kernel_kinds] = {"linear", "attention", "softmax",
                                                           "layer_norm", "activation", "add"};

struct tick_counters {
    static inline std::uint64_t ticks[kernel_kinds];
    static inline std::uint64_t calls[kernel_kinds];
    static void reset() {
        std::fill(ticks, ticks + kernel_kinds, 0);
        std::fill(calls, calls + kernel_kinds, 0);
    }
};

// One timed kernel call. rdtsc is not serialising: a span is exact to a few tens of ticks, which
// the calibration below removes on average.
class span {
public:
    explicit span(kernel_kind k) noexcept : kind_(k), start_(__rdtsc()) {}
    ~span() {
        tick_counters::ticks[kind_] += __rdtsc() - start_;
        ++tick_counters::calls[kind_];
    }
    span(const span&) = delete;
    span& operator=(const span&) = delete;

private:
    kernel_kind kind_;
    std::uint64_t start_;
};

// Ticks an empty span records, on average (the int8 encoder makes a few calls per row and head,
// thousands per pass, so this is worth removing).
inline double span_overhead() {
    static const double ticks = [] {
        constexpr int spans = 10000;
        tick_counters::reset();
        for (int i = 0; i < spans; ++i) const span s(k_add);
        const double t = double(tick_counters::ticks[k_add]) / spans;
        tick_counters::reset();
        return t;
    }();
    return ticks;
}

// Times forward() (one pass) over the benchmark's iterations and reports the share of each kind
// of kernel in it: share_<kind>, share_other (the composition itself: copies, residual adds of
// the float path, the transposition of the keys) and nonlinear_share, the part of the pass in
// the kinds listed in `nonlinear`.
template <class Forward>
void measure_share(benchmark::State& state, Forward forward, std::initializer_list<kernel_kind> kinds,
                   std::initializer_list<kernel_kind> nonlinear) {
    const double overhead = span_overhead();
    tick_counters::reset();
    std::uint64_t total = 0;
    for (auto _ : state) {
        const std::uint64_t t0 = __rdtsc();
        forward();
        total += __rdtsc() - t0;
        benchmark::ClobberMemory();
    }
    double spans = 0, kind_ticks[kernel_kinds] = {};
    for (int k = 0; k < kernel_kinds; ++k) {
        spans += double(tick_counters::calls[k]);
        kind_ticks[k] = std::max(0.0, double(tick_counters::ticks[k]) - overhead * double(tick_counters::calls[k]));
    }
    const double whole = std::max(1.0, double(total) - overhead * spans);
    double covered = 0, nonlinear_ticks = 0;
    for (kernel_kind k : kinds) {
        state.counters[std::string("share_") + kernel_kind_name[k]] = kind_ticks[k] / whole;
        covered += kind_ticks[k];
    }
    for (kernel_kind k : nonlinear) nonlinear_ticks += kind_ticks[k];
    state.counters["share_other"] = std::max(0.0, whole - covered) / whole;
    state.counters["nonlinear_share"] = nonlinear_ticks / whole;
    state.counters["kernel_calls"] = spans / double(state.iterations());
}

}  // namespace sfbench
