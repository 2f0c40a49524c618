// Latency of the reference configurations (valid_len = seq_len, one thread, median of N passes)
// at every instruction-set level this CPU runs: built with staticformer_add_dispatch
// (bench_dispatch, no -march) or with fixed flags (bench_dispatch_native, -march=native: the one
// level the build has). Compare the two for the cost of dispatch. Also checks every level's
// bytes against the first one's.
//   bench_dispatch [--runs N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/cases.hpp"
#include "dispatch_passes.hpp"

namespace sfbench {
namespace {

int runs = 21;

template <class Pass>
double median_us(Pass pass) {
    std::vector<double> t(runs);
    for (double& ti : t) {
        const auto start = std::chrono::steady_clock::now();
        pass();
        ti = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    }
    std::nth_element(t.begin(), t.begin() + runs / 2, t.end());
    return t[runs / 2];
}

bool all_equal = true;

template <class Cfg>
void report(const char* name) {
    const auto x = sftest::make_input<Cfg>(sftest::input_kind::normal);
    const auto x8 = sftest::make_input_int8<Cfg>(sftest::input_kind::normal);
    const auto& w = sftest::weights_for<Cfg, sf::f32>();
    const auto& w8 = sftest::weights_for<Cfg, sf::int8>();
    std::vector<float> y(x.size()), first(x.size());
    std::vector<sftest::stream_t> y8(x8.size()), first8(x8.size());
    bool have_first = false;
    for (sf::isa level : sf::dispatch_levels) {
        // The levels this build has (a fixed build: one) and the CPU runs.
        if (sf::dispatch_to(level, [](auto l) { return l(); }) != level || !sf::cpu_supports(level)) continue;
        auto f32 = [&] { sf::dispatch_to(level, [&](auto l) { return pass_f32<l(), Cfg>(w, x.data(), y.data()); }); };
        auto int8 = [&] { sf::dispatch_to(level, [&](auto l) { return pass_int8<l(), Cfg>(w8, x8.data(), y8.data()); }); };
        const double t32 = median_us(f32), t8 = median_us(int8);
        if (!have_first) first = y, first8 = y8, have_first = true;
        const bool same = std::memcmp(y.data(), first.data(), y.size() * sizeof(float)) == 0 &&
                          std::memcmp(y8.data(), first8.data(), y8.size() * sizeof(y8[0])) == 0;
        all_equal = all_equal && same;
        std::printf("| %s | %s | %.1f | %.1f | %s |\n", name, sf::isa_name(level), t32, t8, same ? "yes" : "NO");
    }
}

}  // namespace
}  // namespace sfbench

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], "--runs") == 0) sfbench::runs = std::max(1, std::atoi(argv[2]));
    std::printf("%s build (compiled for %s), median of %d passes, valid_len = seq_len\n\n",
#if defined(STATICFORMER_DISPATCH)
                "dispatched",
#else
                "fixed",
#endif
                staticformer::isa_name(staticformer::compiled_isa), sfbench::runs);
    std::printf("| config | level | f32 us | int8 us | bytes = first level's |\n|---|---|--:|--:|---|\n");
#define SFBENCH_REPORT(Cfg) sfbench::report<Cfg>(#Cfg + 8);  // the name without "sftest::"
    SFBENCH_DISPATCH_CONFIGS(SFBENCH_REPORT)
    return sfbench::all_equal ? 0 : 1;
}
