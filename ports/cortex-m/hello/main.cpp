// Cortex-M bring-up: semihosting printf, the startup code's promises (.data copied, .bss zeroed,
// SP in our stack), float arithmetic with std::fma, and the instruction counter.
// Floats are printed as their bits: the same bits are expected on every core.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "cycle_counter.h"

extern "C" char __stack_top[], __stack_limit[];

namespace {

std::uint32_t bits(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}
float from_bits(std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

int data_word = 0x5F3759DF;  // .data: copied from flash by the reset handler
int bss_words[64];           // .bss: zeroed by crt0

// A few float operations per step and an std::fma; returns a checksum of every value.
__attribute__((noinline)) std::uint32_t float_loop(int n) {
    float x = 0.75f, acc = 0.0f;
    std::uint32_t sum = 0;
    for (int i = 0; i < n; ++i) {
        x = std::fma(x, 1.0009765625f, -0.00048828125f * x * x);
        acc = std::fma(x, x, acc) / 1.0001f + std::sqrt(acc + 1.0f) * 0.001f;
        sum = sum * 31u + bits(acc);
    }
    return sum ^ bits(x);
}

// A loop the compiler may vectorise: vector units that flush subnormals to zero (MVE float on
// QEMU's M55, NEON) would turn 2^-127 + 0 into 0.
__attribute__((noinline)) void add_into(float* __restrict y, const float* __restrict x, int n) {
    for (int i = 0; i < n; ++i) y[i] = y[i] + x[i];
}

}  // namespace

int main() {
    int failures = 0;
    const std::uint32_t cpuid = *reinterpret_cast<volatile std::uint32_t*>(0xE000ED00u);
    const std::uint32_t mvfr0 = *reinterpret_cast<volatile std::uint32_t*>(0xE000EF40u);
    std::printf("hello: cpuid %08lx mvfr0 %08lx (FPU: %s), core clock %lu Hz\n", (unsigned long)cpuid,
                (unsigned long)mvfr0, (mvfr0 & 0xF00u) ? "sp+dp" : (mvfr0 & 0xF0u) ? "sp" : "none",
                (unsigned long)sf_port_systick_hz);

    char here;
    const bool sp_ok = &here > __stack_limit && &here < __stack_top;
    bool bss_ok = true;
    for (int w : bss_words) bss_ok = bss_ok && w == 0;
    std::printf("hello: sp %p in [%p, %p): %s, .data %s, .bss %s\n", static_cast<void*>(&here),
                static_cast<void*>(__stack_limit), static_cast<void*>(__stack_top), sp_ok ? "ok" : "WRONG",
                data_word == 0x5F3759DF ? "ok" : "WRONG", bss_ok ? "ok" : "WRONG");
    failures += !sp_ok + (data_word != 0x5F3759DF) + !bss_ok;

    // One rounding: the exact sum lies just below a float midpoint that rounding via double hits.
    volatile std::uint32_t xb = 0x33800001u, yb = 0x3F7FFFFEu, zb = 0x3F800001u;
    const std::uint32_t fma_bits = bits(std::fma(from_bits(xb), from_bits(yb), from_bits(zb)));
    std::printf("hello: fmaf(0x1.000002p-24, 0x1.fffffcp-1, 0x1.000002p+0) = %08lx (%s)\n",
                (unsigned long)fma_bits, fma_bits == 0x3F800001u ? "correctly rounded" : "WRONG, want 3f800001");
    failures += fma_bits != 0x3F800001u;

    static float tiny[64], zeros[64];
    volatile std::uint32_t subnormal = 0x00400000u;  // 2^-127
    for (float& t : tiny) t = from_bits(subnormal);
    add_into(tiny, zeros, 64);
    bool subnormals_kept = true;
    for (float t : tiny) subnormals_kept = subnormals_kept && bits(t) == 0x00400000u;
    std::printf("hello: subnormals %s\n", subnormals_kept ? "kept" : "FLUSHED TO ZERO");
    failures += !subnormals_kept;

    // The counter: an empty span, the loop twice at one length (same count, to a tick), then at
    // twice the length (twice the count; not exactly: soft float's cost depends on the data).
    sf_port_counter_start();
    const std::uint64_t empty = sf_port_counter_read();
    std::uint64_t n[3];
    std::uint32_t sum[3];
    const int length[3] = {1000, 1000, 2000};
    for (int i = 0; i < 3; ++i) {
        sf_port_counter_start();
        sum[i] = float_loop(length[i]);
        n[i] = sf_port_counter_read();
        std::printf("hello: float_loop(%d) checksum %08lx, %llu instructions\n", length[i], (unsigned long)sum[i],
                    (unsigned long long)n[i]);
    }
    // Same checksums on every core and on the host (x86-64, g++ -ffp-contract=off).
    const bool sums_ok = sum[0] == 0xfad78bc1u && sum[1] == 0xfad78bc1u && sum[2] == 0x62602debu;
    const std::int64_t tick = 1000000000 / sf_port_systick_hz + 1;
    const std::int64_t again = std::int64_t(n[1]) - std::int64_t(n[0]);
    const std::int64_t excess = std::int64_t(n[2]) - 2 * std::int64_t(n[0]);
    const bool repeats = again <= tick && again >= -tick;
    const bool scales = n[0] > 1000 && excess < std::int64_t(n[0] / 20) && excess > -std::int64_t(n[0] / 20);
    std::printf("hello: empty span %llu; checksums %s; count %s, %s\n", (unsigned long long)empty,
                sums_ok ? "ok" : "WRONG", repeats ? "repeats" : "DOES NOT REPEAT", scales ? "scales" : "DOES NOT SCALE");
    failures += !sums_ok + !repeats + !scales;
    return failures == 0 ? 0 : 1;
}
