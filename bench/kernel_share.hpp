// Where the time of one forward pass goes, shared by bench_encoder.cpp (float) and
// bench_int8.cpp: the encoder's own composition (sf::forward_with) runs on a kernel set whose
// kernels of chosen kinds are left out (the wrapped call returns at once), and a kind's share is
// the time a pass saves without it, over the whole pass's time.
//
// Why not time each call: an int8 pass makes thousands of calls of ~50 ns (a softmax row, a head's
// context); timestamps around each one stop it overlapping its neighbours, and what a timed call
// costs is not what it costs in place (per call rdtsc spans gave the tiny int8 softmax 7% of a
// pass where a profiler's samples give it 18-26%). Left-out kernels cost exactly nothing in
// place, so the difference is what they cost there, overlap and cache effects included.
//
// A left-out kernel's outputs keep the values of the previous pass, so every other kernel still
// runs on real data, and the kernels' times hardly depend on their data (branch-free vector
// code, fixed loop counts). Passes with and without each kind alternate within every iteration,
// so drift in the machine's speed (a shared VM) falls on all of them alike.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <staticformer/kernels/decorated.hpp>

namespace sfbench {

enum kernel_kind { k_linear, k_attention, k_softmax, k_layer_norm, k_activation, k_add, kernel_kinds };
inline const char* const kernel_kind_name[kernel_kinds] = {"linear", "attention", "softmax",
                                                           "layer_norm", "activation", "add"};

// The kernel_kind an op counts as; kernel_kinds for the ops never left out (key and value
// stores, embeddings, mean pooling).
constexpr kernel_kind kind_of(staticformer::kernels::op_kind op) noexcept {
    using staticformer::kernels::op_kind;
    switch (op) {
        case op_kind::linear: return k_linear;
        case op_kind::scores:
        case op_kind::context: return k_attention;
        case op_kind::softmax: return k_softmax;
        case op_kind::layer_norm: return k_layer_norm;
        case op_kind::activation:
        case op_kind::gate: return k_activation;
        case op_kind::add: return k_add;
        default: return kernel_kinds;
    }
}

// The kinds of kernel leaving_out<K> leaves out, one bit per kernel_kind; the hook that does it.
struct left_out {
    static inline unsigned kinds = 0;
    static bool has(kernel_kind k) noexcept { return (kinds >> k & 1u) != 0; }

    template <staticformer::kernels::op_kind Op, class Call>
    static void run(const Call& call) noexcept {
        if constexpr (kind_of(Op) == kernel_kinds)
            call();
        else if (!has(kind_of(Op)))
            call();
    }
};

// Kernel set K (float or int8) whose kernels of the kinds in left_out return at once; the
// kernels themselves are K's.
template <class K>
using leaving_out = staticformer::kernels::decorated<K, left_out>;

// Times forward() (one pass) with every kind in `kinds` left out in turn, with all of
// `nonlinear` left out together, and with both multiply-add kinds (linear, attention) left out,
// and reports: share_<kind>, the time saved without that kind over the whole pass (median times
// of each variant's passes); nonlinear_share, the time saved without all of `nonlinear` (one
// measurement, not a sum); share_other, what no kind's share covers (the composition itself:
// copies, the float residual adds); pass_us, the whole pass; rest_us, the pass without its
// multiply-adds: what every other step costs in place, the time no faster linear layer or
// attention can take away.
template <class Forward>
void measure_share(benchmark::State& state, Forward forward, std::initializer_list<kernel_kind> kinds,
                   std::initializer_list<kernel_kind> nonlinear) {
    // The whole pass first, then one kind at a time, then nonlinear, then the multiply-adds.
    std::vector<unsigned> masks = {0u};
    for (kernel_kind k : kinds) masks.push_back(1u << k);
    unsigned nonlinear_mask = 0;
    for (kernel_kind k : nonlinear) nonlinear_mask |= 1u << k;
    masks.push_back(nonlinear_mask);
    masks.push_back(1u << k_linear | 1u << k_attention);
    using clock = std::chrono::steady_clock;
    const auto elapsed = [](clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); };
    // Rounds of all variants per iteration: about a second, so that even the largest
    // configuration gets a dozen passes of each variant; each variant's time is the median of
    // its passes (a pass the machine interrupts does not count).
    const clock::time_point w0 = clock::now();
    forward();
    const double one_pass = elapsed(w0);
    const int rounds = std::max(4, int(1.0 / (one_pass * double(masks.size()))));
    std::vector<std::vector<double>> passes(masks.size());
    for (auto _ : state) {
        for (int round = 0; round < rounds; ++round) {
            for (std::size_t v = 0; v < masks.size(); ++v) {
                left_out::kinds = masks[v];
                const clock::time_point t0 = clock::now();
                forward();
                passes[v].push_back(elapsed(t0));
                benchmark::ClobberMemory();
            }
        }
    }
    left_out::kinds = 0;
    std::vector<double> median(masks.size());
    for (std::size_t v = 0; v < masks.size(); ++v) {
        std::vector<double>& p = passes[v];
        std::nth_element(p.begin(), p.begin() + p.size() / 2, p.end());
        median[v] = p[p.size() / 2];
    }
    const double whole = median[0];
    double covered = 0;
    std::size_t v = 1;
    for (kernel_kind k : kinds) {
        const double saved = whole - median[v++];
        state.counters[std::string("share_") + kernel_kind_name[k]] = saved / whole;
        covered += saved;
    }
    state.counters["nonlinear_share"] = (whole - median[v]) / whole;
    state.counters["rest_us"] = 1e6 * median[v + 1];
    state.counters["share_other"] = (whole - covered) / whole;
    state.counters["pass_us"] = 1e6 * whole;
}

}  // namespace sfbench
