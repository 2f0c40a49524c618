// staticformer: run-time choice of instruction set on x86-64 and AArch64 hosts.
//
// The kernels are chosen at compile time, by the flags a translation unit is built with. To run
// the best kernels a CPU has from one binary, build the code that calls the encoder once per
// level (CMake: staticformer_add_dispatch, which also keeps the copies apart at link time) and
// pick one at run time:
//
//   // my_model.hpp, seen by every copy and by the caller
//   template <sf::isa Level> sf::status classify(const float* x, int* label);
//   // my_model_kernels.cpp, built once per level of sf::dispatch_levels
//   template <> sf::status classify<sf::compiled_isa>(const float* x, int* label) { ... }
//   // the caller
//   sf::status s = sf::dispatch([&](auto level) { return classify<level()>(x, &label); });
//
// Every level gives the same bytes (the kernels are bit-exact by design); only speed differs.
// Without staticformer_add_dispatch (STATICFORMER_DISPATCH undefined) dispatch() calls the one
// level this build has, so the same source serves fixed-ISA builds and firmware.
#pragma once

#include <cstdlib>
#include <cstring>
#include <type_traits>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace staticformer {

// The levels, each a set of compiler flags (cmake/staticformer_dispatch.cmake) and the CPU
// features they need. A level's kernels: x86_64 the reference (no FMA in baseline x86-64),
// x86_64_v3 the simd backend on AVX2 + FMA, x86_64_v4 on AVX-512 with VNNI int8 dot products;
// aarch64 the simd backend on NEON, aarch64_dotprod with SDOT int8 dot products.
enum class isa { x86_64, x86_64_v3, x86_64_v4, aarch64, aarch64_dotprod, other };

constexpr const char* isa_name(isa level) {
    switch (level) {
    case isa::x86_64: return "x86-64 (SSE2: reference kernels)";
    case isa::x86_64_v3: return "x86-64-v3 (AVX2 + FMA)";
    case isa::x86_64_v4: return "x86-64-v4 (AVX-512, VNNI)";
    case isa::aarch64: return "armv8-a (NEON)";
    case isa::aarch64_dotprod: return "armv8.2-a (NEON + dotprod)";
    case isa::other: break;
    }
    return "this target's fixed kernels";
}

// The short name STATICFORMER_ISA accepts and the CMake helper uses.
constexpr const char* isa_key(isa level) {
    switch (level) {
    case isa::x86_64: return "x86-64";
    case isa::x86_64_v3: return "x86-64-v3";
    case isa::x86_64_v4: return "x86-64-v4";
    case isa::aarch64: return "armv8-a";
    case isa::aarch64_dotprod: return "armv8.2-a+dotprod";
    case isa::other: break;
    }
    return "other";
}

// The level this translation unit's flags give.
constexpr isa compiled_isa =
#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && \
    defined(__AVX512VNNI__)
    isa::x86_64_v4;
#elif defined(__x86_64__) && defined(__AVX2__) && defined(__FMA__)
    isa::x86_64_v3;
#elif defined(__x86_64__)
    isa::x86_64;
#elif defined(__aarch64__) && defined(__ARM_FEATURE_DOTPROD)
    isa::aarch64_dotprod;
#elif defined(__aarch64__)
    isa::aarch64;
#else
    isa::other;
#endif

// The levels staticformer_add_dispatch builds on this architecture, lowest first.
#if defined(__x86_64__)
constexpr isa dispatch_levels[] = {isa::x86_64, isa::x86_64_v3, isa::x86_64_v4};
#elif defined(__aarch64__)
constexpr isa dispatch_levels[] = {isa::aarch64, isa::aarch64_dotprod};
#else
constexpr isa dispatch_levels[] = {isa::other};
#endif

// Whether this CPU (and its operating system, for the AVX register state) runs a level's code.
inline bool cpu_supports(isa level) {
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    const bool v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("f16c");
    switch (level) {
    case isa::x86_64: return true;
    case isa::x86_64_v3: return v3;
    case isa::x86_64_v4:
        return v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512vnni");
    default: return false;
    }
#elif defined(__aarch64__) && defined(__linux__)
    switch (level) {
    case isa::aarch64: return true;
    case isa::aarch64_dotprod: return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0;
    default: return false;
    }
#else
    return level == compiled_isa;
#endif
}

namespace detail {
// The highest dispatch level the CPU runs, at most the one the environment variable
// STATICFORMER_ISA names (for testing and for pinning a level; unknown names are ignored).
inline isa detect_isa() {
    const char* cap = std::getenv("STATICFORMER_ISA");
    isa best = dispatch_levels[0];
    for (isa level : dispatch_levels) {
        if (!cpu_supports(level)) break;
        best = level;
        if (cap && std::strcmp(cap, isa_key(level)) == 0) break;
    }
    return best;
}
}  // namespace detail

// The level dispatch() runs: decided once, on first use.
inline isa dispatched_isa() {
#if defined(STATICFORMER_DISPATCH)
    static const isa level = detail::detect_isa();
    return level;
#else
    return compiled_isa;
#endif
}

template <isa Level>
using isa_constant = std::integral_constant<isa, Level>;

// Calls pick(isa_constant<L>{}) for the level L given (one of dispatch_levels when built with
// staticformer_add_dispatch, else compiled_isa) and returns what it returns.
template <class Pick>
decltype(auto) dispatch_to(isa level, Pick&& pick) {
#if defined(STATICFORMER_DISPATCH) && defined(__x86_64__)
    if (level == isa::x86_64_v4) return pick(isa_constant<isa::x86_64_v4>{});
    if (level == isa::x86_64_v3) return pick(isa_constant<isa::x86_64_v3>{});
    return pick(isa_constant<isa::x86_64>{});
#elif defined(STATICFORMER_DISPATCH) && defined(__aarch64__)
    if (level == isa::aarch64_dotprod) return pick(isa_constant<isa::aarch64_dotprod>{});
    return pick(isa_constant<isa::aarch64>{});
#else
    (void)level;
    return pick(isa_constant<compiled_isa>{});
#endif
}

// Calls pick with the best level this CPU runs (see dispatched_isa).
template <class Pick>
decltype(auto) dispatch(Pick&& pick) {
    return dispatch_to(dispatched_isa(), static_cast<Pick&&>(pick));
}

}  // namespace staticformer
