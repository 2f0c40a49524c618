// staticformer Cortex-M timing you can plan on: instructions of one inference over many inputs.
// (Part of footprint_main.cpp's object on Cortex-M; entry point sf_fp_main_timing.)
//
// For valid_len 1, seq_len/4, seq_len/2 and seq_len, sf_fp_run() (sf::forward as a user calls
// it) runs on every input of `inputs` below (random at several scales, all-equal, extreme,
// saturating, one-hot, alternating) and one line reports the fewest and the most instructions
// and which inputs gave them:
//   sf_timing: valid_len=8 inputs=58 min=... max=... min_input=random max_input=one_hot not_ok=0
// Counting: sf_port_counter_start() starts at a SysTick edge; after the call a fixed
// four-instruction loop spins to the next edge, and its iterations say where in the last tick
// (40 instructions on MPS2) the call ended. So a count is exact to within 4 instructions, and
// two calls of equal length give equal counts. A count is relative to an empty call.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "cycle_counter.h"
#include "kernel_profile.hpp"  // spin_to_edge, exact_split

namespace sf_fp_timing {

using config = sf_fp::config;
using value_type = sf_fp::value_type;
constexpr std::size_t io_values = sf_fp::io_values;
// Instructions (virtual ns) from a tick edge to the end of f(), less the spin.
template <class F>
__attribute__((noinline)) std::uint64_t count(F f) {
    sf_port_counter_start();
    f();
    const std::uint32_t spins = sf_fp_profile::spin_to_edge();
    return sf_port_counter_read() - std::uint64_t(spins) * sf_fp_profile::spin_instructions;
}

// The inputs: a name and how to fill x. Floats (f32, f16 encoders) or int8 values (the int8
// encoder's quantised input).
enum class shape { random, constant, extreme, saturating, one_hot, alternating };
const char* const shape_name[] = {"random", "all_equal", "extreme", "saturating", "one_hot", "alternating"};

struct input {
    shape k;
    float a;  // scale (random), the value (constant, one_hot), the magnitude (extreme, saturating, alternating)
    std::uint32_t seed;
};

constexpr bool is_float = std::is_same<value_type, float>::value;

inline value_type as_value(float v) {
    if constexpr (is_float) {
        return v;
    } else {
        const float r = v < -128.0f ? -128.0f : v > 127.0f ? 127.0f : v;
        return value_type(r < 0 ? r - 0.5f : r + 0.5f);
    }
}

inline void fill(const input& in, value_type* x) {
    sf_fp::generator g{in.seed};
    for (std::size_t i = 0; i < io_values; ++i) {
        const float sign = (i % 2 == 0) ? 1.0f : -1.0f;
        float v = 0.0f;
        switch (in.k) {
            case shape::random: v = g.next() * in.a; break;
            case shape::constant: v = in.a; break;
            case shape::extreme: v = g.next() < 0 ? -in.a : in.a; break;
            case shape::saturating: v = sign * in.a; break;
            case shape::one_hot: v = i == in.seed % io_values ? in.a : 0.0f; break;
            case shape::alternating: v = (i / config::d_model) % 2 == 0 ? in.a : -in.a; break;
        }
        x[i] = as_value(v);
    }
}

// 40 random inputs at four scales, then the special ones: 58 in all. Float magnitudes stay
// finite through the encoder (the largest, 3e4, is within binary16); int8 inputs saturate at
// -128 / 127.
constexpr float int8_or(float f, float q) { return is_float ? f : q; }
const input inputs[] = {
#define SF_RANDOM(seed) {shape::random, int8_or(1.0f, 127.0f), seed}, {shape::random, int8_or(0.01f, 3.0f), seed},   \
                        {shape::random, int8_or(30.0f, 60.0f), seed}, {shape::random, int8_or(3000.0f, 200.0f), seed}
    SF_RANDOM(1u), SF_RANDOM(2u), SF_RANDOM(3u), SF_RANDOM(4u), SF_RANDOM(5u),
    SF_RANDOM(6u), SF_RANDOM(7u), SF_RANDOM(8u), SF_RANDOM(9u), SF_RANDOM(10u),
#undef SF_RANDOM
    {shape::constant, 0.0f, 0}, {shape::constant, 1.0f, 0}, {shape::constant, -1.0f, 0},
    {shape::constant, int8_or(30000.0f, 127.0f), 0}, {shape::constant, int8_or(-30000.0f, -128.0f), 0},
    {shape::extreme, int8_or(30000.0f, 128.0f), 11u}, {shape::extreme, int8_or(1e-30f, 1.0f), 12u},
    {shape::extreme, int8_or(1e-5f, 64.0f), 13u},
    {shape::saturating, int8_or(100.0f, 128.0f), 0}, {shape::saturating, int8_or(30000.0f, 100.0f), 0},
    {shape::one_hot, int8_or(30000.0f, 127.0f), 5u}, {shape::one_hot, int8_or(-1.0f, -128.0f), 77u},
    {shape::alternating, int8_or(1000.0f, 127.0f), 0}, {shape::alternating, int8_or(0.5f, 1.0f), 0},
    {shape::alternating, int8_or(30000.0f, 128.0f), 0}, {shape::random, int8_or(65000.0f, 255.0f), 99u},
    {shape::random, int8_or(1e-20f, 1.0f), 98u}, {shape::extreme, int8_or(1.0f, 2.0f), 97u},
};
constexpr int input_count = sizeof inputs / sizeof inputs[0];
static_assert(input_count >= 50, "the timing table promises at least 50 inputs");

}  // namespace sf_fp_timing

extern "C" int sf_fp_main_timing(int, char**) {
    using namespace sf_fp_timing;
    const std::uint64_t empty = count([] { asm volatile("" ::: "memory"); });
    const int lens[] = {1, config::seq_len / 4, config::seq_len / 2, config::seq_len};
    for (int n : lens) {
        if (n < 1) continue;
        std::uint64_t lo = ~std::uint64_t(0), hi = 0;
        int lo_at = 0, hi_at = 0, not_ok = 0;
        for (int i = 0; i < input_count; ++i) {
            fill(inputs[i], sf_fp_x);
            int status = 0;
            const std::uint64_t c = count([&] { status = sf_fp_run(sf_fp_x, sf_fp_y, n); }) - empty;
            not_ok += status != 0;
            if (c < lo) lo = c, lo_at = i;
            if (c > hi) hi = c, hi_at = i;
        }
        sf_fp::line l;
        l.text("sf_timing:").kv("valid_len", std::uint64_t(n)).kv("inputs", std::uint64_t(input_count));
        l.kv("min", lo).kv("max", hi).kv("min_input", shape_name[int(inputs[lo_at].k)]);
        l.kv("max_input", shape_name[int(inputs[hi_at].k)]).kv("not_ok", std::uint64_t(not_ok));
        l.kv("resolution", std::uint64_t(sf_fp_profile::spin_instructions));
        l.write();
    }

    // The float activation's own spread (GCC may compile its selects as branches): the
    // instructions of one row of d_ff equal values, for values from the tails to zero, so the
    // table can bound an inference by min + valid_len x layers x (slowest row - fastest row).
    if constexpr (is_float) {
        static float row[config::d_ff];
        std::uint64_t fastest = ~std::uint64_t(0), slowest = 0;
        for (float v : {-1e30f, -100.0f, -13.0f, -12.0f, -3.0f, -1.0f, -1e-3f, -1e-30f, -0.0f, 0.0f, 1e-30f, 1e-3f,
                        1.0f, 3.0f, 12.0f, 13.0f, 100.0f, 1e30f}) {
            for (float& r : row) r = v;
            const std::uint64_t c = count([&] {
                sf::kernel_set<sf_fp::backend>::activate<config::activation>(row, config::d_ff);
            }) - empty;
            if (c < fastest) fastest = c;
            if (c > slowest) slowest = c;
        }
        sf_fp::line l;
        l.text("sf_timing_activation:").kv("elements", std::uint64_t(config::d_ff));
        l.kv("fastest", fastest).kv("slowest", slowest).kv("layers", std::uint64_t(config::layers));
        l.write();
    }

    // Where the spread comes from: at valid_len = seq_len, each kernel's instructions (exact
    // spans, kernel_profile.hpp) over the same inputs, fewest and most.
    using namespace sf_fp_profile;
    std::uint64_t lo[k_count], hi[k_count];
    int hi_at[k_count] = {};
    for (int k = 0; k < k_count; ++k) lo[k] = ~std::uint64_t(0), hi[k] = 0;
    for (int i = 0; i < input_count; ++i) {
        fill(inputs[i], sf_fp_x);
        exact_split(config::seq_len);
        for (int k = 0; k < k_count; ++k) {
            const std::uint64_t c = sf_port_ticks_to_ns(exact_ticks[k]) - std::uint64_t(exact_spins[k]) * spin_instructions;
            if (c < lo[k]) lo[k] = c;
            if (c > hi[k]) hi[k] = c, hi_at[k] = i;
        }
    }
    for (int k = 0; k < k_count; ++k) {
        if (span_calls[k] == 0) continue;
        sf_fp::line l;
        l.text("sf_timing_kernel:").kv("name", kind_name[k]).kv("calls", std::uint64_t(span_calls[k]));
        l.kv("spread", hi[k] - lo[k]).kv("max_input", shape_name[int(inputs[hi_at[k]].k)]);
        l.write();
    }
    return 0;
}
