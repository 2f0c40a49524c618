// staticformer Cortex-M speed proxy: instructions of one inference, split by kernel.
// (Part of footprint_main.cpp's object on Cortex-M; entry point sf_fp_main_profile.)
//
// Runs under ports/cortex-m/run.sh (QEMU, -icount shift=0: one instruction = 1 ns of guest
// time, counted by SysTick through ports/cortex-m/cycle_counter.h).
//
//  1. plain:  sf_fp_run(), i.e. sf::forward<backend>() as a user calls it, counted whole.
//  2. split:  the same composition with a kernel set that reads the counter around every kernel
//             call (kernels::decorated with the hook `spans`): f32 / f16
//             sf::forward_with<profiled>(), `profiled` decorating kernel_set<reference>; int8
//             sf::forward_with<profiled_int8<K>>(), K = int8_kernel_set<backend> (reference,
//             or the port's DSP kernels). Each span adds its raw SysTick delta to its kernel;
//             the counter is read free-running (no wait for a tick edge), so the
//             40-instruction quantisation (31.25 on AN547) of a span is unbiased and averages
//             out over the ~1000 spans of an inference.
//  3. empty:  the same span around nothing, many times: the measurement overhead per span,
//             which tools/footprint.py subtracts (calls x overhead) from each kernel.
//  4. masked: the plain forward with a key padding mask that hides nothing and with one that
//             hides every second key, counted whole.
// The time outside kernel spans is the composition's own work ("glue": staging the input,
// scaling queries) and the key and value stores. Both runs' output CRCs are printed: they must
// be equal (instrumentation must not change a bit).
// Included by footprint_main.cpp on Cortex-M (weights header, sf_fp::generator etc. in scope);
// entry point sf_fp_main_profile, argv[1] = valid_len (default seq_len).
#pragma once

#include <cstdint>

#include <staticformer/kernels/decorated.hpp>

#include "cycle_counter.h"

// Not in an anonymous namespace: composition<config, profiled> must have the same (vague)
// linkage as composition<config, kernel_set<reference>>, or GCC inlines every called-once
// block into one function and compiles the kernels' loops differently (measured: +12% in
// linear on the M4 from register spills).
namespace sf_fp_profile {

enum kind { k_linear, k_scores, k_softmax, k_context, k_layer_norm, k_activation, k_add, k_rotary, k_empty, k_count };
const char* const kind_name[k_count] = {"linear",     "scores",     "softmax", "context", "layer_norm",
                                        "activation", "add",        "rotary",  "empty"};

// Raw SysTick ticks per kernel. A span reads only the 24-bit current-value register, twice (no
// 64-bit arithmetic, nothing kept in a register across the kernel: the start goes to memory),
// so the kernel's code is compiled as in the plain build. A span is far shorter than one
// counter period (2^24 ticks, 671 M instructions on MPS2).
std::uint32_t span_ticks[k_count];
std::uint32_t span_calls[k_count];
volatile std::uint32_t span_start;  // volatile: stored and reloaded, never held in a register

inline std::uint32_t systick_value() { return *reinterpret_cast<volatile const std::uint32_t*>(0xE000E018u); }

// Iterations of a four-instruction loop until SysTick's current value changes: where in the
// current tick (40 instructions on MPS2) the caller stands, to within 4 instructions.
constexpr int spin_instructions = 4;
__attribute__((always_inline)) inline std::uint32_t spin_to_edge() {
    const volatile std::uint32_t* cvr = reinterpret_cast<const volatile std::uint32_t*>(0xE000E018u);
    const std::uint32_t start = *cvr;
    std::uint32_t spins = 0, now;
    asm volatile(
        "1: ldr %1, [%2]\n"
        "   add %0, %0, #1\n"
        "   cmp %1, %3\n"
        "   beq 1b\n"
        : "+r"(spins), "=&r"(now)
        : "r"(cvr), "r"(start)
        : "cc", "memory");
    return spins;
}

// Exact spans (timing.hpp's kernel table): the span starts at a tick edge and, after the
// kernel, spins to the next one; ticks x (ns per tick) - 4 spins is the kernel's count plus a
// constant per span, to within 4 instructions.
std::uint32_t exact_ticks[k_count];
std::uint32_t exact_spins[k_count];

template <kind K, bool Exact = false>
struct span {
    __attribute__((always_inline)) span() {
        if (Exact) spin_to_edge();
        span_start = systick_value();
    }
    __attribute__((always_inline)) ~span() {
        const std::uint32_t spins = Exact ? spin_to_edge() : 0;
        const std::uint32_t end = systick_value();
        (Exact ? exact_ticks : span_ticks)[K] += (span_start - end) & 0xFFFFFFu;  // a down-counter
        if (Exact) exact_spins[K] += spins;
        ++span_calls[K];
    }
};

// The span an op kind is counted in; k_count for the ops counted as glue (key and value
// stores; embeddings and mean pooling, which an encoder pass does not call).
constexpr kind span_kind(sf::kernels::op_kind op) {
    using sf::kernels::op_kind;
    switch (op) {
        case op_kind::linear: return k_linear;  // an int8 set's linear_activate too
        case op_kind::scores: return k_scores;
        case op_kind::softmax: return k_softmax;
        case op_kind::context: return k_context;
        case op_kind::layer_norm: return k_layer_norm;
        case op_kind::activation:
        case op_kind::gate: return k_activation;
        case op_kind::add: return k_add;
        case op_kind::rotary: return k_rotary;
        default: return k_count;
    }
}

// The hook of the profiled kernel sets: a span around every kernel call.
template <bool Exact>
struct spans {
    template <sf::kernels::op_kind Op, class Call>
    __attribute__((always_inline)) static void run(const Call& call) {
        if constexpr (span_kind(Op) == k_count) {
            call();
        } else {
            span<span_kind(Op), Exact> s;
            call();
        }
    }
};

// f32 / f16 over kernel_set<reference>; int8 over K = int8_kernel_set<backend>.
template <bool Exact = false>
using profiled_spans = sf::kernels::decorated<sf::kernel_set<sf::reference>, spans<Exact>>;
using profiled = profiled_spans<>;
template <class K, bool Exact = false>
using profiled_int8 = sf::kernels::decorated<K, spans<Exact>>;

// The buffers and workspace of footprint_main.cpp.
using config = sf_fp::config;
using value_type = sf_fp::value_type;
constexpr std::size_t io_values = sf_fp::io_values;
value_type* const x = sf_fp_x;
value_type* const y = sf_fp_y;
auto& workspace = sf_fp_workspace;

// The plain run is sf_fp_run() itself: sf::forward with the measured backend (on Cortex-M
// sf::reference, or for int8 sf::cortex_m_dsp).
template <bool Exact, class P, class Ws, std::enable_if_t<!sf::is_integer_precision<P>, int> = 0>
int run_split(const sf::encoder_weights<config, P>& w, Ws& ws, int n) {  // f32, f16
    static_assert(sizeof(P) == 0 || std::is_same<sf_fp::backend, sf::reference>::value,
                  "float on Cortex-M runs the reference backend");
    return int(sf::forward_with<profiled_spans<Exact>>(w, ws, x, y, n));
}
template <bool Exact, class P, class Ws, std::enable_if_t<sf::is_integer_precision<P>, int> = 0>
int run_split(const sf::encoder_weights<config, P>& w, Ws& ws, int n) {  // int8, a16w8
    using K = typename sf::precision_traits<P>::template kernels<sf_fp::backend>;
    return int(sf::forward_with<profiled_int8<K, Exact>>(w, ws, x, y, n));
}

inline int plain(int n) { return sf_fp_run(x, y, n); }
__attribute__((noinline, noipa)) int split(int n) {
    for (std::uint32_t& t : span_ticks) t = 0;
    for (std::uint32_t& c : span_calls) c = 0;
    return run_split<false>(sf_fp::weights, workspace, n);
}
// The split with exact spans (timing.hpp): exact_ticks and exact_spins per kernel.
__attribute__((noinline, noipa)) int exact_split(int n) {
    for (int k = 0; k < k_count; ++k) exact_ticks[k] = exact_spins[k] = span_calls[k] = 0;
    return run_split<true>(sf_fp::weights, workspace, n);
}

// A varying delay between the spans (outside them) spreads their start over the phases of a
// SysTick tick, so the quantisation of the average is unbiased here too.
__attribute__((noinline, noipa)) void empty_spans(int n) {
    for (int i = 0; i < n; ++i) {
        for (volatile int d = 0; d < i % 23; d = d + 1) {
        }
        span<k_empty> s;
    }
}

// Key padding masks, through the plain forward: a mask that hides nothing, and one that hides
// every second key. A masked key must cost nothing: no key / value row, no attention over it.
std::uint8_t masked_keys[config::seq_len];
void set_mask(int keep_every) {
    for (int j = 0; j < config::seq_len; ++j) masked_keys[j] = j % keep_every != 0;
}
__attribute__((noinline, noipa)) int masked(int n) {
    return int(sf::forward<sf_fp::backend>(sf_fp::weights, workspace, x, y, n,
                                           sf::key_padding_mask{masked_keys, config::seq_len}));
}
std::uint64_t masked_instructions(int n, int keep_every, int& status) {
    set_mask(keep_every);
    sf_port_counter_start();
    status |= masked(n);
    return sf_port_counter_read();
}

}  // namespace sf_fp_profile

extern "C" int sf_fp_main_profile(int argc, char** argv) {
    using namespace sf_fp_profile;
    sf_fp::fill(sf_fp::weights, x, io_values);
    const int n = sf_fp::valid_len_argument(argc, argv, config::seq_len);  // argv[1], default seq_len
    sf_fp::line l;

    sf_port_counter_start();
    const int status_plain = plain(n);
    const std::uint64_t plain_instructions = sf_port_counter_read();
    const std::uint32_t crc_plain = sf_fp::crc32(y, sizeof sf_fp_y);

    for (std::size_t i = 0; i < io_values; ++i) y[i] = 0;
    const std::uint64_t t0 = sf_port_ticks();
    const int status_split = split(n);
    const std::uint64_t split_ticks = sf_port_ticks() - t0;
    const std::uint32_t crc_split = sf_fp::crc32(y, sizeof sf_fp_y);

    constexpr int empty_reps = 4600;
    empty_spans(empty_reps);

    int status_masked = 0;
    const std::uint64_t mask_nothing = masked_instructions(n, 1, status_masked);
    const std::uint64_t mask_half = masked_instructions(n, 2, status_masked);

    l.text("sf_prof:").kv("valid_len", std::uint64_t(n)).kv("hz", std::uint64_t(sf_port_systick_hz));
    l.kv("plain_instructions", plain_instructions).kv("split_ticks", split_ticks);
    l.text(" crc_plain=").hex(crc_plain).text(" crc_split=").hex(crc_split);
    l.write();
    for (int k = 0; k < k_count; ++k) {
        l.text("sf_prof_kernel:").kv("name", kind_name[k]).kv("ticks", span_ticks[k]).kv("calls", span_calls[k]);
        l.write();
    }
    l.text("sf_prof_mask:").kv("nothing", mask_nothing).kv("every_second", mask_half);
    l.write();
    return status_plain | status_split | status_masked | (crc_plain != crc_split ? 64 : 0);
}
