// staticformer int8 benchmarks (Google Benchmark): the whole int8 encoder and each int8 kernel,
// reference vs simd, where the time of a pass goes (kernel share), and this machine's peak of
// the int8 dot-product instruction the simd kernels use. One thread, batch 1. Weights: the f32
// benchmark weights quantised by quant::calibrator (tests/common/cases.hpp, weights_for).
// Names (parsed by make_results.py, alongside bench_encoder.cpp's):
//   encoder/<cfg>/int8/<backend>/<d>        whole encoder at valid_len = seq_len / d
//   encoder/<cfg>/a16w8/<backend>/1         whole a16w8 encoder (int16 activations)
//   share/<cfg>/int8/simd                   share of each kind of kernel in a whole pass
//   kernel/<cfg>/<kernel>/int8/<backend>    one kernel at the whole-sequence shapes
//   int8_dot_peak/<chains>                  dot-product throughput, that many chains
//   int8_amx_peak/4                         AMX tiles' throughput, four accumulator tiles (AMX CPUs)
//   sweep/<cfg>/int8/<valid_len>              one pass at every valid length (tiny, sensor)
//   threads/<cfg>/int8/<workers>/real_time   whole encoder on 1 or 2 OpenMP workers (wall time)
// Counters: GOP/s (a multiply-add counts as two operations), Gelem/s for element-wise kernels.
#include <benchmark/benchmark.h>

#include <staticformer/staticformer.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "common/cases.hpp"
#include "configs.hpp"
#include "kernel_share.hpp"
#include "throughput.hpp"

namespace {

namespace sf = staticformer;
using namespace sfbench;

void set_rate(benchmark::State& state, double ops) {
    state.counters["GOP/s"] = benchmark::Counter(ops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void set_element_rate(benchmark::State& state, double elements) {
    state.counters["Gelem/s"] = benchmark::Counter(elements * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// ---- whole int8 (and a16w8) encoder -----------------------------------------------------------

template <class Cfg, class Backend, class P = sf::int8>
void encoder_int8(benchmark::State& state) {
    using encoder_type = sf::encoder<Cfg, P, Backend>;
    static encoder_type enc{sftest::weights_for<Cfg, P>()};
    const int n = Cfg::seq_len / int(state.range(0));  // valid_len = seq_len / divisor
    const auto x = sftest::make_input_int8<Cfg, P>(sftest::input_kind::normal);
    std::vector<sftest::stream_t> y(x.size());
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

// Reference at full length only (slow, and valid_len scaling is shown by the simd rows).
#define ENCODER_ROWS(cfg)                                                                                          \
    BENCHMARK_TEMPLATE(encoder_int8, cfg, sf::reference)                                                           \
        ->Name("encoder/" #cfg "/int8/reference")                                                                  \
        ->Arg(1)                                                                                                   \
        ->Unit(benchmark::kMicrosecond);                                                                           \
    BENCHMARK_TEMPLATE(encoder_int8, cfg, sf::simd)->Name("encoder/" #cfg "/int8/simd")->Arg(1)->Arg(2)->Arg(4)->Unit( \
        benchmark::kMicrosecond);                                                                                  \
    BENCHMARK_TEMPLATE(encoder_int8, cfg, sf::reference, sf::a16w8)                                                \
        ->Name("encoder/" #cfg "/a16w8/reference")                                                                 \
        ->Arg(1)                                                                                                   \
        ->Unit(benchmark::kMicrosecond);                                                                           \
    BENCHMARK_TEMPLATE(encoder_int8, cfg, sf::simd, sf::a16w8)                                                     \
        ->Name("encoder/" #cfg "/a16w8/simd")                                                                      \
        ->Arg(1)                                                                                                   \
        ->Unit(benchmark::kMicrosecond);
ENCODER_ROWS(tiny)
ENCODER_ROWS(small)
ENCODER_ROWS(mini)
ENCODER_ROWS(wide)

// ---- where the time goes ---------------------------------------------------------------------

// The encoder's own composition (sf::forward_with) on leaving_out<int8_kernel_set<Backend>>
// (kernel_share.hpp), whole sequence, with the workspace an encoder on Backend holds. The
// requantisation of the linear layers and of attention's context happens inside those kernels,
// so it counts as linear and attention; nonlinear_share is softmax + LayerNorm + activation +
// the requantising residual adds.
template <class Cfg, class Backend>
void share_int8(benchmark::State& state) {
    static sf::workspace_int8_for<Cfg, Backend> ws;
    const auto& w = sftest::weights_for<Cfg, sf::int8>();
    const auto x = sftest::make_input_int8<Cfg>(sftest::input_kind::normal);
    std::vector<sftest::stream_t> y(x.size());
    measure_share(
        state,
        [&] {
            sf::forward_with<leaving_out<sf::int8_kernel_set<Backend>>>(w, ws, x.data(), y.data(), Cfg::seq_len);
        },
        {k_linear, k_attention, k_softmax, k_layer_norm, k_activation, k_add},
        {k_softmax, k_layer_norm, k_activation, k_add});
}
BENCHMARK_TEMPLATE(share_int8, tiny, sf::simd)->Name("share/tiny/int8/simd")->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(share_int8, small, sf::simd)->Name("share/small/int8/simd")->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(share_int8, mini, sf::simd)->Name("share/mini/int8/simd")->Unit(benchmark::kMicrosecond);
BENCHMARK_TEMPLATE(share_int8, wide, sf::simd)->Name("share/wide/int8/simd")->Unit(benchmark::kMicrosecond);

// ---- one pass on 1 and 2 workers (threads.hpp) -------------------------------------------------
STATICFORMER_THREADS_ROWS(tiny, int8)
STATICFORMER_THREADS_ROWS(small, int8)
STATICFORMER_THREADS_ROWS(mini, int8)
STATICFORMER_THREADS_ROWS(wide, int8)
STATICFORMER_SWEEP_ROWS(tiny, int8)
STATICFORMER_SWEEP_ROWS(sensor, int8)

// ---- int8 kernels, at each configuration's whole-sequence shapes -----------------------------

// Layer 0's real int8 tensors for the whole sequence, computed once with the reference kernels
// from the quantised input, so that each kernel runs on the values it sees in the encoder.
template <class Cfg>
struct layer_data {
    std::vector<std::int16_t> x;       // input rows [S][D]: the int16 stream
    std::vector<std::int8_t> normed;   // LayerNorm 1 of them [S][D]
    std::vector<std::int8_t> q, keys, v;  // queries, keys, values [S][D]
    std::vector<std::int8_t> hidden;   // FFN hidden layer before the activation [S][F]
    std::vector<std::int8_t> active;   // and after it
    std::vector<std::int32_t> acc;     // the FFN's first layer before requantisation [S][F]
    std::vector<std::int32_t> scores;  // head 0's scores of query rows 0..7 [8][S]
};

template <class Cfg>
const layer_data<Cfg>& layer_data_for() {
    static const layer_data<Cfg> data = [] {
        constexpr int D = Cfg::d_model, S = Cfg::seq_len, F = Cfg::d_ff;
        using K = sf::int8_kernel_set<sf::reference>;
        const auto& l = sftest::weights_for<Cfg, sf::int8>().layer[0];
        layer_data<Cfg> d;
        d.x = sftest::make_input_int8<Cfg>(sftest::input_kind::normal);
        d.normed.resize(std::size_t(S) * D);
        K::layer_norm(d.x.data(), S, l.norm1, d.normed.data());
        d.q.resize(std::size_t(S) * D);
        d.v.resize(std::size_t(S) * D);
        d.keys.resize(std::size_t(S) * D);
        K::linear(d.normed.data(), S, l.query, d.q.data());
        K::linear(d.normed.data(), S, l.key, d.keys.data());
        K::linear(d.normed.data(), S, l.value, d.v.data());
        std::vector<std::int8_t> kt(std::size_t(D) * S);
        K::store_keys<D, Cfg::head_dim, S>(d.keys.data(), S, 0, kt.data());
        d.hidden.resize(std::size_t(S) * F);
        K::linear(d.normed.data(), S, l.ff1, d.hidden.data());
        d.active = d.hidden;
        K::activate(d.active.data(), S * F, l.activation);
        d.acc.resize(std::size_t(S) * F);
        for (int r = 0; r < S; ++r)
            for (int o = 0; o < F; ++o)
                d.acc[r * F + o] = sf::kernels::reference::linear_accumulator(d.normed.data() + r * D, l.ff1, o);
        d.scores.resize(std::size_t(8) * S);
        for (int r = 0; r < 8; ++r)
            K::attention_scores<Cfg::head_dim, S>(d.q.data() + r * D, kt.data(), S, d.scores.data() + r * S);
        return d;
    }();
    return data;
}

template <class Cfg>
const sf::layer_weights_int8<Cfg>& layer0() {
    return sftest::weights_for<Cfg, sf::int8>().layer[0];
}

// Projections on all seq_len rows (the simd encoder's tile is the whole sequence), with the
// layer's real quantised weights. The int8 layer keeps query, key and value apart: one row times
// the three.
template <class Cfg, class Backend>
void linear_qkv(benchmark::State& state) {
    constexpr int D = Cfg::d_model, S = Cfg::seq_len;
    const auto& l = layer0<Cfg>();
    const auto& x = layer_data_for<Cfg>().normed;
    std::vector<std::int8_t> y(std::size_t(3) * S * D);
    for (auto _ : state) {
        sf::int8_kernel_set<Backend>::linear(x.data(), S, l.query, y.data());
        sf::int8_kernel_set<Backend>::linear(x.data(), S, l.key, y.data() + S * D);
        sf::int8_kernel_set<Backend>::linear(x.data(), S, l.value, y.data() + 2 * S * D);
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_rate(state, 2.0 * S * D * 3 * D);
}

template <class Backend, int In, int Out>
void run_linear(benchmark::State& state, const std::int8_t* x, int rows, const sf::linear_int8<In, Out>& p) {
    std::vector<std::int8_t> y(std::size_t(rows) * Out);
    for (auto _ : state) {
        sf::int8_kernel_set<Backend>::linear(x, rows, p, y.data());
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_rate(state, 2.0 * rows * In * Out);
}

template <class Cfg, class Backend>
void linear_out(benchmark::State& state) {  // on the attention context (queries stand in)
    run_linear<Backend>(state, layer_data_for<Cfg>().q.data(), Cfg::seq_len, layer0<Cfg>().out);
}
template <class Cfg, class Backend>
void linear_ff1(benchmark::State& state) {
    run_linear<Backend>(state, layer_data_for<Cfg>().normed.data(), Cfg::seq_len, layer0<Cfg>().ff1);
}
template <class Cfg, class Backend>
void linear_ff2(benchmark::State& state) {
    run_linear<Backend>(state, layer_data_for<Cfg>().active.data(), Cfg::seq_len, layer0<Cfg>().ff2);
}

// All rows and heads as the int8 encoder calls them: its attention schedule
// (attention_rows_int8, with Backend's workspace) a tile of query rows at a time. The contexts
// overwrite their queries (int8: each pass sees queries of the same range); where a tile is
// shorter than the sequence, each tile's queries are copied in first (T x d_model bytes).
template <class Cfg, class Backend>
void attention(benchmark::State& state) {
    constexpr int D = Cfg::d_model, S = Cfg::seq_len, Dh = Cfg::head_dim;
    using K = sf::int8_kernel_set<Backend>;
    using workspace = sf::workspace_int8_for<Cfg, Backend>;
    constexpr int T = workspace::tile;
    static workspace storage;
    sf::detail::int8_lane ws = sf::detail::int8_steps<Cfg, K, T>::lane(storage, 0);  // the view the steps see
    const auto& d = layer_data_for<Cfg>();
    const auto& a = layer0<Cfg>().attention;
    K::template store_keys<D, Dh, S>(d.keys.data(), S, 0, ws.keys_t);  // in K's layouts
    K::template store_values<D, Dh, S>(d.v.data(), S, 0, ws.values);
    std::memcpy(ws.query, d.q.data(), std::size_t(T) * D);
    // Valid keys: a run-time value in the encoder, so hidden from the compiler here too, by a
    // volatile read. (With benchmark::DoNotOptimize(n) instead, GCC 12 -O3 once built the int8
    // version into code that ran the loops with a wrong n and crashed.)
    volatile int valid_keys = S;
    const int n = valid_keys;
    for (auto _ : state) {
        for (int r0 = 0; r0 < n; r0 += T) {
            const int rows = n - r0 < T ? n - r0 : T;
            if (T < n) std::memcpy(ws.query, d.q.data() + r0 * D, std::size_t(rows) * D);
            sf::detail::attention_rows_int8<Cfg, K, T>(a, sf::detail::all_keys(n, r0), rows, ws);
        }
        benchmark::DoNotOptimize(ws.query);
        benchmark::ClobberMemory();
    }
    set_rate(state, 2.0 * 2.0 * S * S * D);  // scores and context: S x S x head_dim per head
}

// The softmax calls of attention() alone: seq_len x heads rows of real scores (head 0, rows
// 0..7, in turn), attention_batch rows per call as the encoder makes them. The kernel
// overwrites its scores with their exponentials, whose cost differs (a table step or none, by
// magnitude), so each call gets its rows back first: a copy of seq_len int32 per row from L1, a
// few percent of a row's softmax.
template <class Cfg, class Backend>
void softmax(benchmark::State& state) {
    constexpr int S = Cfg::seq_len, H = Cfg::heads;
    constexpr int B = sf::workspace_int8_for<Cfg, Backend>::attention_batch;
    static_assert((S * H) % B == 0, "whole batches");
    const auto& d = layer_data_for<Cfg>();
    const auto logits = layer0<Cfg>().attention.logits;
    std::vector<std::int32_t> s(std::size_t(B) * S);
    std::vector<std::int16_t> p(std::size_t(B) * S);
    volatile int valid_keys = S;  // (as in attention())
    const int n = valid_keys;
    for (auto _ : state) {
        for (int i = 0; i < S * H; i += B) {
            for (int b = 0; b < B; ++b)
                std::memcpy(s.data() + b * S, d.scores.data() + ((i + b) % 8) * S, sizeof(std::int32_t) * S);
            if constexpr (B == 1) sf::int8_kernel_set<Backend>::softmax(s.data(), n, logits, p.data());
            else sf::int8_kernel_set<Backend>::template softmax_rows<S>(s.data(), B, n, logits, p.data());
        }
        benchmark::DoNotOptimize(p.data());
        benchmark::ClobberMemory();
    }
    set_element_rate(state, double(S) * S * H);
}

// LayerNorm of all seq_len rows x of the int16 stream into int8.
template <class Cfg, class Backend, class Row>
void layer_norm_of(benchmark::State& state, const std::vector<Row>& x) {
    constexpr int D = Cfg::d_model, S = Cfg::seq_len;
    std::vector<std::int8_t> y(x.size());
    for (auto _ : state) {
        sf::int8_kernel_set<Backend>::layer_norm(x.data(), S, layer0<Cfg>().norm1, y.data());
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_element_rate(state, double(S) * D);
}
template <class Cfg, class Backend>
void layer_norm(benchmark::State& state) {
    layer_norm_of<Cfg, Backend>(state, layer_data_for<Cfg>().x);
}

// The activation table over the FFN hidden layer, in place: a lookup costs the same whatever the
// byte, so applying it again to its own output measures the same work.
template <class Cfg, class Backend>
void activation(benchmark::State& state) {
    constexpr int S = Cfg::seq_len, F = Cfg::d_ff;
    std::vector<std::int8_t> h = layer_data_for<Cfg>().hidden;
    for (auto _ : state) {
        sf::int8_kernel_set<Backend>::activate(h.data(), S * F, layer0<Cfg>().activation);
        benchmark::DoNotOptimize(h.data());
        benchmark::ClobberMemory();
    }
    set_element_rate(state, double(S) * F);
}

// The residual add of all seq_len rows, in place: an int8 branch (the layer's queries) into the
// int16 stream x with parameters p (integer, branch-free: same cost on its own output).
template <class Cfg, class Backend, class Row, class Params>
void add_of(benchmark::State& state, std::vector<Row> x, const Params& p) {
    constexpr int S = Cfg::seq_len, D = Cfg::d_model;
    for (auto _ : state) {
        sf::int8_kernel_set<Backend>::add(x.data(), layer_data_for<Cfg>().q.data(), S * D, p);
        benchmark::DoNotOptimize(x.data());
        benchmark::ClobberMemory();
    }
    set_element_rate(state, double(S) * D);
}
template <class Cfg, class Backend>
void add(benchmark::State& state) {
    add_of<Cfg, Backend>(state, layer_data_for<Cfg>().x, layer0<Cfg>().residual1);
}

// Requantisation alone, on the int32 accumulators of the FFN's first layer (seq_len x d_ff, each
// with its column's multiplier): math::requantize one value at a time (what the reference kernels
// do), and the vector rescale the simd kernels apply to their accumulator registers
// (kernels/isa/, rescale16 / rescale8), here over a buffer.
template <int In, int Out>
void requantize_scalar(const std::int32_t* acc, int rows, const sf::linear_int8<In, Out>& p, std::int8_t* y) {
    for (int r = 0; r < rows; ++r)
        for (int o = 0; o < Out; ++o)
            y[r * Out + o] = sf::math::requantize(acc[r * Out + o], p.multiplier[o], p.shift, p.output_zero_point);
}

#if defined(STATICFORMER_INT8_X86)
template <int In, int Out>
void requantize_vector(const std::int32_t* acc, int rows, const sf::linear_int8<In, Out>& p, std::int8_t* y) {
    namespace k8 = sf::kernels::simd_int8;
#if defined(STATICFORMER_INT8_AVX512VNNI)
    // The simd linear's own store: rescale16, the zero point, saturation to int8.
    using isa = k8::linear_isa;
    static_assert(Out % isa::lanes == 0, "whole vectors only");
    const isa::params k(p.shift);
    for (int r = 0; r < rows; ++r)
        for (int o = 0; o < Out; o += isa::lanes)
            isa::store(y + r * Out + o, _mm512_loadu_si512(acc + r * Out + o), p.multiplier + o, k,
                       p.output_zero_point, isa::full());
#else
    // AVX2 and AVX-VNNI: rescale8 then the zero point and saturation, as their linear's store.
    static_assert(Out % 8 == 0, "whole vectors only");
    const k8::rescale8_params k(p.shift);
    const __m256i zero_point = _mm256_set1_epi32(p.output_zero_point);
    for (int r = 0; r < rows; ++r)
        for (int o = 0; o < Out; o += 8) {
            const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + r * Out + o));
            k8::store8_int8(y + r * Out + o,
                            _mm256_add_epi32(k8::rescale8(a, k8::load8_int16(p.multiplier + o), k), zero_point));
        }
#endif
}
#endif

template <class Cfg, class Backend>
void requantize(benchmark::State& state) {
    constexpr int S = Cfg::seq_len, F = Cfg::d_ff;
    const auto& acc = layer_data_for<Cfg>().acc;
    const auto& p = layer0<Cfg>().ff1;
    std::vector<std::int8_t> y(acc.size());
    for (auto _ : state) {
#if defined(STATICFORMER_INT8_X86)
        if constexpr (std::is_same<Backend, sf::simd>::value)
            requantize_vector(acc.data(), S, p, y.data());
        else
#endif
            requantize_scalar(acc.data(), S, p, y.data());
        benchmark::DoNotOptimize(y.data());
        benchmark::ClobberMemory();
    }
    set_element_rate(state, double(S) * F);
}

#define KERNEL_ROWS(cfg, backend)                                                                           \
    BENCHMARK_TEMPLATE(linear_qkv, cfg, sf::backend)->Name("kernel/" #cfg "/linear_qkv/int8/" #backend);    \
    BENCHMARK_TEMPLATE(linear_out, cfg, sf::backend)->Name("kernel/" #cfg "/linear_out/int8/" #backend);    \
    BENCHMARK_TEMPLATE(linear_ff1, cfg, sf::backend)->Name("kernel/" #cfg "/linear_ff1/int8/" #backend);    \
    BENCHMARK_TEMPLATE(linear_ff2, cfg, sf::backend)->Name("kernel/" #cfg "/linear_ff2/int8/" #backend);    \
    BENCHMARK_TEMPLATE(attention, cfg, sf::backend)->Name("kernel/" #cfg "/attention/int8/" #backend);      \
    BENCHMARK_TEMPLATE(softmax, cfg, sf::backend)->Name("kernel/" #cfg "/softmax/int8/" #backend);          \
    BENCHMARK_TEMPLATE(layer_norm, cfg, sf::backend)->Name("kernel/" #cfg "/layer_norm/int8/" #backend);    \
    BENCHMARK_TEMPLATE(activation, cfg, sf::backend)->Name("kernel/" #cfg "/activation/int8/" #backend);    \
    BENCHMARK_TEMPLATE(add, cfg, sf::backend)->Name("kernel/" #cfg "/add/int8/" #backend);                  \
    BENCHMARK_TEMPLATE(requantize, cfg, sf::backend)->Name("kernel/" #cfg "/requantize/int8/" #backend);
KERNEL_ROWS(tiny, reference)
KERNEL_ROWS(tiny, simd)
KERNEL_ROWS(small, reference)
KERNEL_ROWS(small, simd)
KERNEL_ROWS(mini, reference)
KERNEL_ROWS(mini, simd)
KERNEL_ROWS(wide, reference)
KERNEL_ROWS(wide, simd)

// ---- the dot-product instruction's peak ------------------------------------------------------

#if defined(STATICFORMER_INT8_X86)
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
constexpr double macs_per_op = 16;  // VPMADDWD ymm + VPADDD: 16 int16 products, as the AVX2 kernels
inline vreg dot(vreg a, vreg b, vreg c) { return _mm256_add_epi32(a, _mm256_madd_epi16(b, c)); }
inline vreg splat(int v) { return _mm256_set1_epi32(v); }
#endif

// Independent accumulator chains: throughput, not latency. How many cover latency x throughput
// depends on the core (and 16 chains spill with 16 ymm registers): make_results.py keeps the best.
template <int Chains>
void dot_peak(benchmark::State& state) {
    constexpr int steps = 1000;
    vreg acc[Chains];
    for (int c = 0; c < Chains; ++c) acc[c] = splat(c);
    vreg b = splat(0x01020304), x = splat(0x05060708);
    benchmark::DoNotOptimize(b);
    benchmark::DoNotOptimize(x);
    for (auto _ : state) {
        for (int s = 0; s < steps; ++s)
#pragma GCC unroll 16
            for (int c = 0; c < Chains; ++c) acc[c] = dot(acc[c], b, x);
        for (int c = 0; c < Chains; ++c) benchmark::DoNotOptimize(acc[c]);
    }
    set_rate(state, 2.0 * macs_per_op * Chains * steps);
    state.SetLabel(STATICFORMER_INT8_ISA);
}
BENCHMARK_TEMPLATE(dot_peak, 8)->Name("int8_dot_peak/8");
BENCHMARK_TEMPLATE(dot_peak, 12)->Name("int8_dot_peak/12");
BENCHMARK_TEMPLATE(dot_peak, 16)->Name("int8_dot_peak/16");

#if defined(STATICFORMER_INT8_AMX)
// The AMX tiles' peak (where the CPU and the OS allow them): TDPBSSD into four independent
// accumulator tiles (16 x 16 int32, 64 products each) from two x and two weight tiles, the step
// of the int8 linear layer's 32 x 32 blocks (kernels/isa/x86_amx.hpp), operands in registers.
STATICFORMER_AMX_TARGET void amx_steps(int steps) {
    namespace amx = sf::kernels::simd_int8::amx;
    alignas(64) static std::int8_t operand[16 * 64] = {1, 2, 3};
    alignas(64) static std::int32_t sink[16 * 16];
    amx::load_config();
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    _tile_loadd(4, operand, 64);
    _tile_loadd(5, operand, 64);
    _tile_loadd(6, operand, 64);
    _tile_loadd(7, operand, 64);
    for (int s = 0; s < steps; ++s) {
        _tile_dpbssd(0, 4, 6);
        _tile_dpbssd(1, 4, 7);
        _tile_dpbssd(2, 5, 6);
        _tile_dpbssd(3, 5, 7);
    }
    _tile_stored(0, sink, 64);
    _tile_stored(1, sink, 64);
    _tile_stored(2, sink, 64);
    _tile_stored(3, sink, 64);
    amx::release();
    benchmark::DoNotOptimize(sink);
}

void amx_peak(benchmark::State& state) {
    if (!sf::kernels::simd_int8::amx::usable()) {
        state.SkipWithError("no AMX tiles on this CPU or OS");
        return;
    }
    constexpr int steps = 1000;
    for (auto _ : state) amx_steps(steps);
    set_rate(state, 2.0 * 4 * 16 * 16 * 64 * steps);
    state.SetLabel("amx-int8");
}
BENCHMARK(amx_peak)->Name("int8_amx_peak/4");
#endif
#endif

}  // namespace

BENCHMARK_MAIN();
