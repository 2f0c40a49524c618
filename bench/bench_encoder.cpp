// staticformer benchmarks (Google Benchmark), f32 and f16: the whole encoder and each kernel,
// reference vs simd, an Eigen 3.4 baseline, where the time of a pass goes (kernel share), and
// this machine's FMA peak. One thread, batch 1.
//   make bench   regenerates bench/RESULTS.md and bench/results.png from these numbers.
// Names (parsed by make_results.py):
//   encoder/<cfg>/<f32|f16>/<backend>/<d>   whole encoder at valid_len = seq_len / d
//   encoder/<cfg>_tile4/f32/simd/1          the same model with tile_rows<4> (less RAM)
//   masked/<cfg>/f32/simd/<d>               valid_len = seq_len, all but seq_len / d keys masked
//                                           (every row computed; attention over the kept keys)
//   eigen/<cfg>/f32/<d>                     the Eigen baseline, checked against staticformer
//   share/<cfg>/f32/simd                    share of each kind of kernel in a whole pass
//   kernel/<cfg>/<kernel>/<f32|f16>/<backend>   one kernel at the whole-sequence shapes
//   fma_peak/<chains>                       FMA throughput with that many independent chains
//   sweep/<cfg>/f32/<valid_len>              one pass at every valid length (tiny, sensor)
//   threads/<cfg>/f32/<workers>/real_time   whole encoder on 1 or 2 OpenMP workers (wall time)
// Counters: GFLOP/s (a multiply-add counts as two flops), Gelem/s for element-wise kernels.
#include <benchmark/benchmark.h>

#include <staticformer/staticformer.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "common/cases.hpp"
#include "configs.hpp"
#include "eigen_encoder.hpp"
#include "kernel_share.hpp"
#include "throughput.hpp"

namespace {

namespace sf = staticformer;
using namespace sfbench;

void set_rate(benchmark::State& state, double flops) {
    state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void set_element_rate(benchmark::State& state, double elements) {
    state.counters["Gelem/s"] = benchmark::Counter(elements * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// ---- whole encoder ------------------------------------------------------------------------

template <class Cfg, class P, class Backend>
void encoder(benchmark::State& state) {
    using encoder_type = sf::encoder<Cfg, P, Backend>;
    static encoder_type enc{sftest::weights_for<Cfg, P>()};
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
    state.counters["tile"] = encoder_type::tile;
    state.counters["workspace_bytes"] = double(encoder_type::workspace_bytes);
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
    // Its scratch matrices, sized at compile time for the whole sequence.
    state.counters["workspace_bytes"] = double(sizeof(sfbench::eigen_encoder<Cfg>));
}

// The same configurations with tile_rows<4>, the reference backend's and a firmware's tile:
// each weight matrix is streamed once per 4 rows instead of once per sequence, for a workspace
// of 4 rows instead of the whole sequence's FFN hidden layer. Same weights (same seed).
// A key padding mask that keeps seq_len / divisor keys, spread over the sequence (every d-th).
template <class Cfg>
void masked(benchmark::State& state) {
    static sf::encoder<Cfg, sf::f32, sf::simd> enc{sftest::weights_for<Cfg>()};
    const int d = int(state.range(0));
    std::vector<std::uint8_t> mask(Cfg::seq_len);
    for (int j = 0; j < Cfg::seq_len; ++j) mask[std::size_t(j)] = j % d != 0;
    const auto x = sftest::make_input<Cfg>(sftest::input_kind::normal);
    std::vector<float> y(x.size());
    for (auto _ : state) {
        enc.forward(x.data(), y.data(), Cfg::seq_len, {mask.data(), Cfg::seq_len});
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    state.counters["kept_keys"] = (Cfg::seq_len + d - 1) / d;
}

template <class Cfg>
using tile4 = sf::encoder_config<Cfg::d_model, Cfg::heads, Cfg::d_ff, Cfg::seq_len, Cfg::layers, sf::pre_norm,
                                 sf::gelu, sf::final_norm, sf::tile_rows<4>>;
using tiny_tile4 = tile4<tiny>;
using small_tile4 = tile4<small>;
using mini_tile4 = tile4<mini>;
using wide_tile4 = tile4<wide>;

// Reference rows at full length only: they are slow (wide: about 0.15 s a pass) and latency
// versus valid_len is a property of the composition, shown by the simd rows.
#define ENCODER_ROWS(cfg, prec)                                                                   \
    BENCHMARK_TEMPLATE(encoder, cfg, sf::prec, sf::reference)                                     \
        ->Name("encoder/" #cfg "/" #prec "/reference")                                            \
        ->Arg(1)                                                                                  \
        ->Unit(benchmark::kMicrosecond);                                                          \
    BENCHMARK_TEMPLATE(encoder, cfg, sf::prec, sf::simd)                                          \
        ->Name("encoder/" #cfg "/" #prec "/simd")                                                 \
        ->Arg(1)                                                                                  \
        ->Arg(2)                                                                                  \
        ->Arg(4)                                                                                  \
        ->Unit(benchmark::kMicrosecond);
#define CONFIG_ROWS(cfg)                                                                                      \
    ENCODER_ROWS(cfg, f32)                                                                                    \
    ENCODER_ROWS(cfg, f16)                                                                                    \
    BENCHMARK_TEMPLATE(eigen, cfg)->Name("eigen/" #cfg "/f32")->Arg(1)->Arg(2)->Arg(4)->Unit(benchmark::kMicrosecond); \
    BENCHMARK_TEMPLATE(encoder, cfg##_tile4, sf::f32, sf::simd)                                               \
        ->Name("encoder/" #cfg "_tile4/f32/simd")                                                             \
        ->Arg(1)                                                                                              \
        ->Unit(benchmark::kMicrosecond);                                                                      \
    BENCHMARK_TEMPLATE(masked, cfg)->Name("masked/" #cfg "/f32/simd")->Arg(2)->Arg(4)->Unit(benchmark::kMicrosecond);
CONFIG_ROWS(tiny)
CONFIG_ROWS(small)
CONFIG_ROWS(mini)
CONFIG_ROWS(wide)

// ---- one pass on 1 and 2 workers (throughput.hpp) -------------------------------------------------
STATICFORMER_THREADS_ROWS(tiny, f32)
STATICFORMER_THREADS_ROWS(small, f32)
STATICFORMER_THREADS_ROWS(mini, f32)
STATICFORMER_THREADS_ROWS(wide, f32)
STATICFORMER_SWEEP_ROWS(tiny, f32)
STATICFORMER_SWEEP_ROWS(sensor, f32)

// ---- where the time goes ---------------------------------------------------------------------

// The encoder's own composition (sf::forward_with) on leaving_out<kernel_set<Backend>>
// (kernel_share.hpp), whole sequence, with the workspace an encoder on Backend holds.
// nonlinear_share: softmax + LayerNorm + GELU.
template <class Cfg, class Backend>
void share(benchmark::State& state) {
    static sf::workspace_for<Cfg, Backend> ws;
    const auto& w = sftest::weights_for<Cfg>();
    const auto x = sftest::make_input<Cfg>(sftest::input_kind::normal);
    std::vector<float> y(x.size());
    // valid_len as the encoder gets it, at run time (a constant let GCC 12 inline the whole pass
    // into the timing loop and warn about a tail loop it then could not bound).
    volatile int valid_len = Cfg::seq_len;
    const int n = valid_len;
    measure_share(
        state, [&] { sf::forward_with<leaving_out<sf::kernel_set<Backend>>>(w, ws, x.data(), y.data(), n); },
        {k_linear, k_attention, k_softmax, k_layer_norm, k_activation}, {k_softmax, k_layer_norm, k_activation});
}
BENCHMARK_TEMPLATE(share, tiny, sf::simd)->Name("share/tiny/f32/simd")->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(share, small, sf::simd)->Name("share/small/f32/simd")->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(share, mini, sf::simd)->Name("share/mini/f32/simd")->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(share, wide, sf::simd)->Name("share/wide/f32/simd")->Unit(benchmark::kMicrosecond);

// ---- kernels, at each configuration's whole-sequence shapes ----------------------------------

// Layer 0's real tensors for the whole sequence, computed once with the reference kernels, so
// that each kernel runs on the values it sees in the encoder.
template <class Cfg>
struct layer_data {
    std::vector<float> normed;  // LayerNorm of the input rows [S][D]
    std::vector<float> q;       // queries, already divided by sqrt(head_dim) [S][D]
    std::vector<float> kt;      // keys transposed [D][S]
    std::vector<float> v;       // values [S][D]
    std::vector<float> hidden;  // FFN hidden layer before the activation [S][F]
    std::vector<float> active;  // and after it
};

template <class Cfg>
const layer_data<Cfg>& layer_data_for() {
    static const layer_data<Cfg> data = [] {
        constexpr int D = Cfg::d_model, S = Cfg::seq_len, F = Cfg::d_ff;
        using K = sf::kernel_set<sf::reference>;
        const auto& l = sftest::weights_for<Cfg>().layer[0];
        const auto x = sftest::make_input<Cfg>(sftest::input_kind::normal);
        layer_data<Cfg> d;
        d.normed.resize(std::size_t(S) * D);
        K::template layer_norm<D>(x.data(), S, l.norm1_gamma, l.norm1_beta, Cfg::eps, d.normed.data());
        std::vector<float> qkv(std::size_t(S) * 3 * D);
        K::template linear<D, 3 * D>(d.normed.data(), S, &l.qkv_w[0][0], l.qkv_b, qkv.data());
        d.q.resize(std::size_t(S) * D);
        d.kt.resize(std::size_t(D) * S);
        d.v.resize(std::size_t(S) * D);
        const float sqrt_head_dim = std::sqrt(float(Cfg::head_dim));
        for (int r = 0; r < S; ++r)
            for (int c = 0; c < D; ++c) {
                d.q[r * D + c] = qkv[r * 3 * D + c] / sqrt_head_dim;
                d.kt[c * S + r] = qkv[r * 3 * D + D + c];
                d.v[r * D + c] = qkv[r * 3 * D + 2 * D + c];
            }
        d.hidden.resize(std::size_t(S) * F);
        K::template linear<D, F>(d.normed.data(), S, &l.ff1_w[0][0], l.ff1_b, d.hidden.data());
        d.active = d.hidden;
        K::template activate<Cfg::activation>(d.active.data(), S * F);
        return d;
    }();
    return data;
}

// One projection of a layer on all seq_len rows (the simd encoder's tile is the whole sequence).
template <int In, int Out, class Backend, class W>
void run_linear(benchmark::State& state, const float* x, int rows, const W* w, const W* b) {
    std::vector<float> y(std::size_t(rows) * Out);
    for (auto _ : state) {
        sf::kernel_set<Backend>::template linear<In, Out>(x, rows, w, b, y.data());
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_rate(state, 2.0 * rows * In * Out);
}

template <class Cfg, class P, class Backend>
void linear_qkv(benchmark::State& state) {  // [D -> 3D]
    constexpr int D = Cfg::d_model;
    const auto& l = sftest::weights_for<Cfg, P>().layer[0];
    run_linear<D, 3 * D, Backend>(state, layer_data_for<Cfg>().normed.data(), Cfg::seq_len, &l.qkv_w[0][0], l.qkv_b);
}

template <class Cfg, class P, class Backend>
void linear_out(benchmark::State& state) {  // [D -> D], on the attention context (queries stand in)
    constexpr int D = Cfg::d_model;
    const auto& l = sftest::weights_for<Cfg, P>().layer[0];
    run_linear<D, D, Backend>(state, layer_data_for<Cfg>().q.data(), Cfg::seq_len, &l.out_w[0][0], l.out_b);
}

template <class Cfg, class P, class Backend>
void linear_ff1(benchmark::State& state) {  // [D -> F]
    constexpr int D = Cfg::d_model, F = Cfg::d_ff;
    const auto& l = sftest::weights_for<Cfg, P>().layer[0];
    run_linear<D, F, Backend>(state, layer_data_for<Cfg>().normed.data(), Cfg::seq_len, &l.ff1_w[0][0], l.ff1_b);
}

template <class Cfg, class P, class Backend>
void linear_ff2(benchmark::State& state) {  // [F -> D]
    constexpr int D = Cfg::d_model, F = Cfg::d_ff;
    const auto& l = sftest::weights_for<Cfg, P>().layer[0];
    run_linear<F, D, Backend>(state, layer_data_for<Cfg>().active.data(), Cfg::seq_len, &l.ff2_w[0][0], l.ff2_b);
}

constexpr int attention_block_rows = 8;  // query rows per kernel call, as in the encoder

// All heads, all rows, as the encoder calls them: its attention schedule (attention_rows: per
// head, blocks of 8 query rows, scores then softmax then context), on a copy of the queries that
// it overwrites with their context (bounded values: each pass sees queries of the same size).
template <class Cfg, class Backend>
void attention(benchmark::State& state) {
    constexpr int D = Cfg::d_model, S = Cfg::seq_len, B = attention_block_rows;
    using K = sf::kernel_set<Backend>;
    const auto& d = layer_data_for<Cfg>();
    std::vector<float> scores(std::size_t(B) * S), q(d.q.begin(), d.q.end());
    // Valid keys: a run-time value in the encoder, so hidden from the compiler here too, by a
    // volatile read. (With benchmark::DoNotOptimize(n) instead, GCC 12 -O3 once built the int8
    // version into code that ran the loops with a wrong n and crashed.)
    volatile int valid_keys = S;
    const int n = valid_keys;
    for (auto _ : state) {
        sf::detail::attention_rows<Cfg, K, B>(q.data(), sf::detail::all_keys(n, 0), n, d.kt.data(), d.v.data(), scores.data());
        benchmark::DoNotOptimize(q.data());
        benchmark::ClobberMemory();
    }
    set_rate(state, 2.0 * 2.0 * S * S * D);  // scores and context: S x S x head_dim per head
}

// The softmax calls of attention() alone: seq_len x heads rows, 8 per call, on one block of real
// scores (head 0, rows 0..7). Applied again to its own output: softmax has no data-dependent
// branch and its exponentials stay normal numbers (inputs in [-1, 0] after the first pass).
template <class Cfg, class Backend>
void softmax(benchmark::State& state) {
    constexpr int S = Cfg::seq_len, H = Cfg::heads, D = Cfg::d_model, B = attention_block_rows;
    const auto& d = layer_data_for<Cfg>();
    std::vector<float> s(std::size_t(B) * S);
    sf::kernel_set<sf::reference>::template attention_scores<Cfg::head_dim, S, D>(d.q.data(), B, d.kt.data(), S, s.data());
    volatile int valid_keys = S;  // (as in attention())
    const int n = valid_keys;
    for (auto _ : state) {
        for (int h = 0; h < H; ++h)
            for (int r0 = 0; r0 < n; r0 += B) sf::kernel_set<Backend>::template softmax<S>(s.data(), std::min(B, n - r0), n);
        benchmark::DoNotOptimize(s.data());
        benchmark::ClobberMemory();
    }
    set_element_rate(state, double(S) * S * H);
}

// All seq_len rows, gamma and beta in precision P; Rms: RMSNorm (beta then zeros, as an
// encoder's without bias reads).
template <class Cfg, class P, class Backend, bool Rms = false>
void layer_norm(benchmark::State& state) {
    constexpr int D = Cfg::d_model, S = Cfg::seq_len;
    const auto& l = sftest::weights_for<Cfg, P>().layer[0];
    const auto x = sftest::make_input<Cfg>(sftest::input_kind::normal);
    std::vector<float> y(x.size());
    for (auto _ : state) {
        sf::kernel_set<Backend>::template layer_norm<D, Rms>(x.data(), S, l.norm1_gamma, l.norm1_beta, Cfg::eps,
                                                              y.data());
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_element_rate(state, double(S) * D);
}

// GELU over the FFN hidden layer of all seq_len rows, on fresh real inputs every time: GELU
// applied over and over drives negative inputs into subnormals, which no encoder sees and which
// are slow on x86. Manual time: the copy that restores the inputs is not timed.
template <class Cfg, class Backend>
void gelu(benchmark::State& state) {
    constexpr int F = Cfg::d_ff, S = Cfg::seq_len;
    const auto& input = layer_data_for<Cfg>().hidden;
    std::vector<float> h(input.size());
    for (auto _ : state) {
        std::copy(input.begin(), input.end(), h.begin());
        benchmark::ClobberMemory();
        const auto t0 = std::chrono::steady_clock::now();
        sf::kernel_set<Backend>::template activate<sf::activation_kind::gelu>(h.data(), S * F);
        benchmark::DoNotOptimize(h.data());
        benchmark::ClobberMemory();
        state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    set_element_rate(state, double(S) * F);
}

#define KERNEL_ROWS(cfg, backend)                                                                                   \
    BENCHMARK_TEMPLATE(linear_qkv, cfg, sf::f32, sf::backend)->Name("kernel/" #cfg "/linear_qkv/f32/" #backend);    \
    BENCHMARK_TEMPLATE(linear_out, cfg, sf::f32, sf::backend)->Name("kernel/" #cfg "/linear_out/f32/" #backend);    \
    BENCHMARK_TEMPLATE(linear_ff1, cfg, sf::f32, sf::backend)->Name("kernel/" #cfg "/linear_ff1/f32/" #backend);    \
    BENCHMARK_TEMPLATE(linear_ff2, cfg, sf::f32, sf::backend)->Name("kernel/" #cfg "/linear_ff2/f32/" #backend);    \
    BENCHMARK_TEMPLATE(linear_qkv, cfg, sf::f16, sf::backend)->Name("kernel/" #cfg "/linear_qkv/f16/" #backend);    \
    BENCHMARK_TEMPLATE(linear_out, cfg, sf::f16, sf::backend)->Name("kernel/" #cfg "/linear_out/f16/" #backend);    \
    BENCHMARK_TEMPLATE(linear_ff1, cfg, sf::f16, sf::backend)->Name("kernel/" #cfg "/linear_ff1/f16/" #backend);    \
    BENCHMARK_TEMPLATE(linear_ff2, cfg, sf::f16, sf::backend)->Name("kernel/" #cfg "/linear_ff2/f16/" #backend);    \
    BENCHMARK_TEMPLATE(attention, cfg, sf::backend)->Name("kernel/" #cfg "/attention/f32/" #backend);               \
    BENCHMARK_TEMPLATE(softmax, cfg, sf::backend)->Name("kernel/" #cfg "/softmax/f32/" #backend);                   \
    BENCHMARK_TEMPLATE(layer_norm, cfg, sf::f32, sf::backend)->Name("kernel/" #cfg "/layer_norm/f32/" #backend);    \
    BENCHMARK_TEMPLATE(layer_norm, cfg, sf::f16, sf::backend)->Name("kernel/" #cfg "/layer_norm/f16/" #backend);    \
    BENCHMARK_TEMPLATE(layer_norm, cfg, sf::f32, sf::backend, true)->Name("kernel/" #cfg "/rms_norm/f32/" #backend); \
    BENCHMARK_TEMPLATE(gelu, cfg, sf::backend)->Name("kernel/" #cfg "/gelu/f32/" #backend)->UseManualTime();
KERNEL_ROWS(tiny, reference)
KERNEL_ROWS(tiny, simd)
KERNEL_ROWS(small, reference)
KERNEL_ROWS(small, simd)
KERNEL_ROWS(mini, reference)
KERNEL_ROWS(mini, simd)
KERNEL_ROWS(wide, reference)
KERNEL_ROWS(wide, simd)

// ---- this machine's peak: independent FMA chains on full vectors ----------------------------

// Each chain waits for its previous FMA, so Chains must cover latency x throughput (4 x 2 on
// most cores: 8); more chains also hide the loop. With 16 ymm registers (AVX2) 16 chains spill:
// make_results.py keeps the best of 8, 12 and 16.
template <int Chains>
void fma_peak(benchmark::State& state) {
    using sf::kernels::simd::batch;
    batch acc[Chains];
    for (int c = 0; c < Chains; ++c) acc[c] = batch(float(c) * 1e-3f);
    const batch a(0.999999f), b(1e-7f);
    constexpr int steps = 1000;
    for (auto _ : state) {
        for (int i = 0; i < steps; ++i)
#pragma GCC unroll 16
            for (int c = 0; c < Chains; ++c) acc[c] = sf::kernels::simd::fma(acc[c], a, b);
        for (int c = 0; c < Chains; ++c) benchmark::DoNotOptimize(acc[c]);
    }
    set_rate(state, 2.0 * steps * Chains * sf::kernels::simd::width);
}
BENCHMARK_TEMPLATE(fma_peak, 8)->Name("fma_peak/8");
BENCHMARK_TEMPLATE(fma_peak, 12)->Name("fma_peak/12");
BENCHMARK_TEMPLATE(fma_peak, 16)->Name("fma_peak/16");

}  // namespace

BENCHMARK_MAIN();
