// Run-time dispatch (staticformer/dispatch.hpp, cmake/staticformer_dispatch.cmake): this file
// is built with baseline flags, levels.cpp once per level. Every level this CPU runs must give
// the reference backend's bytes; dispatch() must pick the best of them. Run also under
// qemu-x86_64 -cpu Nehalem / Haswell (tests/CMakeLists.txt), where an instruction of a higher
// level in a lower level's code would stop the program (SIGILL).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "levels.hpp"

namespace sftest {
namespace {

// The output bytes of the level's forward pass (the default backend of its flags).
template <class Cfg, class P>
std::vector<unsigned char> level_bytes(sf::isa level, input_kind kind, int n, sf::status& s) {
    const auto& w = weights_for<Cfg, P>();
    std::vector<unsigned char> bytes;
    auto keep = [&](const auto& y) {
        const auto* b = reinterpret_cast<const unsigned char*>(y.data());
        bytes.assign(b, b + y.size() * sizeof y[0]);
    };
    if constexpr (std::is_same<P, sf::int8>::value) {
        const std::vector<stream_t> x = make_input_int8<Cfg>(kind);
        std::vector<stream_t> y(x.size(), 9999);
        s = sf::dispatch_to(level, [&](auto l) { return forward_int8<l(), Cfg>(w, x.data(), y.data(), n); });
        keep(y);
    } else {
        const std::vector<float> x = make_input<Cfg>(kind);
        std::vector<float> y(x.size(), 123.0f);
        s = sf::dispatch_to(level, [&](auto l) {
            if constexpr (std::is_same<P, sf::f16>::value) return forward_f16<l(), Cfg>(w, x.data(), y.data(), n);
            else return forward_f32<l(), Cfg>(w, x.data(), y.data(), n);
        });
        keep(y);
    }
    return bytes;
}

template <class Cfg, class P>
void expect_reference_bytes(sf::isa level, const char* name) {
    for (input_kind kind : {input_kind::normal, input_kind::large})
        for (int n : valid_lens<Cfg>()) {
            sf::status expected_status, status;
            const auto expected = output_bytes<Cfg, P, sf::reference>(kind, n, expected_status);
            const auto bytes = level_bytes<Cfg, P>(level, kind, n, status);
            ASSERT_EQ(status, expected_status);
            ASSERT_EQ(bytes.size(), expected.size());
            EXPECT_EQ(std::memcmp(bytes.data(), expected.data(), bytes.size()), 0)
                << name << " " << precision_name<P> << " valid_len " << n << " " << name_of(kind) << " at "
                << sf::isa_name(level);
        }
}

TEST(Dispatch, EveryLevelThisCpuRunsGivesTheReferenceBytes) {
    int levels_run = 0;
    for (sf::isa level : sf::dispatch_levels) {
        if (!sf::cpu_supports(level)) continue;
        std::printf("level %s\n", sf::isa_name(level));
        EXPECT_EQ(sf::dispatch_to(level, [](auto l) { return level_seen_by<l()>(); }), level)
            << "the level's code calls another level's copy of an inline function";
#define SFTEST_CHECK_LEVEL(Cfg)                                 \
    expect_reference_bytes<Cfg, sf::f32>(level, #Cfg);          \
    expect_reference_bytes<Cfg, sf::f16>(level, #Cfg);          \
    expect_reference_bytes<Cfg, sf::int8>(level, #Cfg);
        SFTEST_DISPATCH_CASES(SFTEST_CHECK_LEVEL)
        ++levels_run;
    }
    EXPECT_GE(levels_run, 1);
}

// What "the best level" means, stated as properties (the test environment sets no cap): the
// CPU runs it, and it runs no level of dispatch_levels above it.
void expect_best(sf::isa picked) {
    EXPECT_TRUE(sf::cpu_supports(picked)) << sf::isa_name(picked);
    bool above = false;
    for (sf::isa level : sf::dispatch_levels) {
        if (above) {
            EXPECT_FALSE(sf::cpu_supports(level)) << sf::isa_name(level) << " runs, above " << sf::isa_name(picked);
        }
        above = above || level == picked;
    }
    EXPECT_TRUE(above) << sf::isa_name(picked) << " is not a dispatch level";
}

TEST(Dispatch, PicksTheBestLevelTheCpuRuns) {
    std::printf("dispatched: %s\n", sf::isa_name(sf::dispatched_isa()));
    ASSERT_EQ(std::getenv("STATICFORMER_ISA"), nullptr);
    expect_best(sf::dispatched_isa());
    // SFTEST_EXPECT_ISA: the level the machine the test runs on must give (set for the QEMU CPUs).
    if (const char* expected = std::getenv("SFTEST_EXPECT_ISA")) {
        EXPECT_STREQ(sf::isa_key(sf::dispatched_isa()), expected);
    }
    // dispatch() runs the dispatched level's code.
    EXPECT_EQ(sf::dispatch([](auto level) { return level(); }), sf::dispatched_isa());
}

TEST(Dispatch, EnvironmentCapsTheLevel) {
    const sf::isa lowest = sf::dispatch_levels[0];
    ASSERT_EQ(setenv("STATICFORMER_ISA", sf::isa_key(lowest), 1), 0);
    EXPECT_EQ(sf::detail::detect_isa(), lowest);
    ASSERT_EQ(setenv("STATICFORMER_ISA", "no-such-level", 1), 0);
    expect_best(sf::detail::detect_isa());  // an unknown name caps nothing
    ASSERT_EQ(unsetenv("STATICFORMER_ISA"), 0);
    expect_best(sf::detail::detect_isa());
}

}  // namespace
}  // namespace sftest
