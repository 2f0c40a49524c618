// staticformer footprint: the minimal programs whose linked images tools/footprint.py measures.
// Compiled once per (configuration, precision) into one object; entry.cpp's main() calls one of
// these entry points, so each image links only what its entry reaches (--gc-sections):
//
//   sf_fp_main_base     the program without the forward() call: fills the input, keeps the
//                       weights object (so both images hold it) and returns. Nothing else.
//   sf_fp_main_fwd      base + one sf::forward() call through sf_fp_run(). No I/O at all: the
//                       status is the exit code. Its image is the one measured (code, .rodata,
//                       RAM, call graph, no heap).
//   sf_fp_main_probe    forward() with the stack painted below the caller's SP, then one line:
//                       backend, status, output CRC-32, stack high-water mark.
//   sf_fp_main_profile  Cortex-M only: instructions per inference by kernel (kernel_profile.hpp).
//   sf_fp_main_timing   Cortex-M only: fewest and most instructions over 58 inputs (timing.hpp).
//
// SF_FP_WEIGHTS_HEADER names the generated header (build/footprint/gen, written by
// tools/footprint.py): namespace sf_fp { using config = ...; using precision = ...;
// inline constexpr staticformer::encoder_weights<config, precision> weights = {...}; }
// so the weights are constant-initialised into .rodata, as tools/export_pytorch.py's headers are.
// A header may also define SF_FP_BACKEND and SF_FP_BACKEND_NAME: a backend other than the
// measured default (simd where it exists, else reference), e.g. sf::cortex_m_dsp.
#include SF_FP_WEIGHTS_HEADER

#include <cstdint>
#include <type_traits>

#include <staticformer/quant/convert.hpp>

#include "platform.hpp"

namespace sf = staticformer;

namespace sf_fp {
#if defined(SF_FP_BACKEND)
using backend = SF_FP_BACKEND;
#elif defined(SF_FP_FORCE_REFERENCE) || !STATICFORMER_HAS_SIMD
using backend = sf::reference;  // (on Cortex-M the reference rows; cortex_m_dsp is its own row)
#else
using backend = sf::simd;
#endif
using encoder_type = sf::encoder<config, precision, backend>;
// float for f32 and f16, std::int16_t for int8 (its residual stream).
using value_type = encoder_type::value_type;
constexpr std::size_t io_values = encoder_type::io_values;

inline const char* backend_name() {
#ifdef SF_FP_BACKEND_NAME
    return SF_FP_BACKEND_NAME;
#else
    return std::is_same<backend, sf::reference>::value ? "reference" : "simd";
#endif
}

// The input: xorshift values in [-1, 1), as floats, or quantised with the weights' input
// quantisation (int8: into the stream; the same values the int8 weights were calibrated on).
template <class W>
void fill(const W& w, value_type* x, std::size_t n) {
    generator g{0x9E3779B9u};
    for (std::size_t i = 0; i < n; ++i) {
        if constexpr (std::is_same<value_type, float>::value)
            x[i] = g.next();
        else
            x[i] = sf::quantize_stream_value(g.next(), w.input);
    }
}
}  // namespace sf_fp

// The caller's buffers (not part of the encoder's RAM) and the caller-owned workspace, in the
// section the Cortex-M linker script places first in .bss.
extern "C" {
sf_fp::value_type sf_fp_x[sf_fp::io_values];
sf_fp::value_type sf_fp_y[sf_fp::io_values];
}
__attribute__((section(".bss.staticformer_workspace"))) sf_fp::encoder_type::workspace_type sf_fp_workspace;

// The encoder call, out of line and opaque to IPA (valid_len stays a run-time value): the root
// of the call graph whose stack tools/footprint.py sums, and the function the probe measures.
extern "C" __attribute__((noinline, noipa)) int sf_fp_run(const sf_fp::value_type* x, sf_fp::value_type* y,
                                                         int valid_len) {
    return int(sf::forward<sf_fp::backend>(sf_fp::weights, sf_fp_workspace, x, y, valid_len));
}

namespace {

// The number of valid rows, a run-time value: seq_len (the probe takes another on its command line).
volatile int valid_len_source = sf_fp::config::seq_len;

void fill_input() { sf_fp::fill(sf_fp::weights, sf_fp_x, sf_fp::io_values); }

constexpr std::size_t paint_bytes = 16 * 1024;

__attribute__((noinline)) int measure(std::size_t& stack) {
    const int n = valid_len_source;
#if SF_FP_BARE_METAL
    // No SysTick interrupt (the port's instruction counter) during the call: its exception
    // frame would land in the painted area.
    volatile std::uint32_t& syst_csr = *reinterpret_cast<volatile std::uint32_t*>(0xE000E010u);
    const std::uint32_t csr = syst_csr;
    syst_csr = csr & ~2u;
#endif
    const std::uintptr_t top = sf_fp::paint_stack(paint_bytes);
    const int status = sf_fp_run(sf_fp_x, sf_fp_y, n);
    stack = sf_fp::stack_used(top, paint_bytes);
#if SF_FP_BARE_METAL
    syst_csr = csr;
#endif
    return status;
}

// Touches the stack below main's frame once, so that painting it is an ordinary access (a
// Linux main thread's stack grows on demand).
__attribute__((noinline)) void touch_stack() {
    volatile unsigned char area[paint_bytes + 4096];
    for (std::size_t i = 0; i < sizeof area; i += 64) area[i] = 0;
}

}  // namespace

extern "C" int sf_fp_main_base(int, char**) {
    fill_input();
    // Keep the weights and the buffers in the image, as the forward build does.
    asm volatile("" : : "r"(&sf_fp::weights), "r"(sf_fp_x), "r"(sf_fp_y) : "memory");
    return 0;
}

extern "C" int sf_fp_main_fwd(int, char**) {
    fill_input();
    return sf_fp_run(sf_fp_x, sf_fp_y, valid_len_source);
}

extern "C" int sf_fp_main_probe(int argc, char** argv) {
    fill_input();
    valid_len_source = sf_fp::valid_len_argument(argc, argv, sf_fp::config::seq_len);
    touch_stack();
    std::size_t stack = 0;
    const int status = measure(stack);
    sf_fp::line l;
    l.text("sf_fp:")
        .kv("backend", sf_fp::backend_name())
        .kv("status", std::uint64_t(status))
        .kv("valid_len", std::uint64_t(valid_len_source))
        .kv("weight_bytes", std::uint64_t(sf_fp::encoder_type::weight_bytes))
        .kv("workspace_bytes", std::uint64_t(sf_fp::encoder_type::workspace_bytes))
        .kv("stack_painted", std::uint64_t(stack))
        .kv("paint_bytes", std::uint64_t(paint_bytes));
    l.text(" crc32=").hex(sf_fp::crc32(sf_fp_y, sizeof sf_fp_y));
    l.write();
    return status;
}

#if SF_FP_BARE_METAL
#include "timing.hpp"  // and kernel_profile.hpp
#endif
