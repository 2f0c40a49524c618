// ARMv7-A: instructions executed by the int8 kernels of the reference and armv7_neon backends,
// counted by tools/armv7_int8_count.sh (qemu-arm, one instruction per translation block, exec
// log). Each measured call runs between sf_count_begin() and sf_count_end(); stdout names the
// spans in order, then whether both backends gave the same bytes (memcmp). Shapes: the tiny
// encoder's linear layers (32 rows) and one forward pass of the tiny int8 encoder.
#include <staticformer/staticformer.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/cases.hpp"

namespace sf = staticformer;

#if !STATICFORMER_HAS_ARMV7_NEON
#error "build for ARMv7-A with NEON (-march=armv7-a -mfpu=neon-vfpv4)"
#endif

// The span markers: out of line and opaque, so that each call is one bl and one return.
extern "C" __attribute__((noinline, noipa)) void sf_count_begin() { asm volatile(""); }
extern "C" __attribute__((noinline, noipa)) void sf_count_end() { asm volatile(""); }

namespace {

constexpr int rows = 32;
bool all_equal = true;

std::uint32_t next(std::uint32_t& s) {
    s ^= s << 13, s ^= s >> 17, s ^= s << 5;
    return s;
}

// f() once unmeasured (first-call effects), then once in a span named label.
template <class F>
void span(const char* label, const char* backend, F f) {
    f();
    std::printf("%s\t%s\n", label, backend);
    std::fflush(stdout);
    sf_count_begin();
    f();
    sf_count_end();
}

template <int In, int Out>
void linear_shape(const char* label, std::uint32_t seed) {
    static sf::linear_int8<In, Out> p;
    static std::int8_t x[rows * In], y_ref[rows * Out], y_neon[rows * Out];
    for (int g = 0; g < (In + 3) / 4; ++g)
        for (int o = 0; o < Out; ++o)
            for (int k = 0; k < 4; ++k) p.w[g][o][k] = 4 * g + k < In ? std::int8_t(next(seed) >> 24) : 0;
    for (int o = 0; o < Out; ++o) {
        p.bias[o] = std::int32_t(next(seed) % 2000001u) - 1000000;
        p.multiplier[o] = std::int16_t(next(seed) % 32768u);
    }
    p.shift = 22, p.output_zero_point = std::int8_t(next(seed) >> 24);
    for (auto& v : x) v = std::int8_t(next(seed) >> 24);
    span(label, "reference", [&] { sf::int8_kernel_set<sf::reference>::linear(x, rows, p, y_ref); });
    span(label, "armv7_neon", [&] { sf::int8_kernel_set<sf::armv7_neon>::linear(x, rows, p, y_neon); });
    all_equal = all_equal && std::memcmp(y_ref, y_neon, sizeof y_ref) == 0;
}

template <class Backend>
std::vector<std::int16_t> encoder_pass(const char* label, const char* backend, int valid_len) {
    using cfg = sftest::tiny;
    static sf::workspace_int8_for<cfg, Backend> ws;
    const auto& w = sftest::weights_for<cfg, sf::int8>();
    const std::vector<std::int16_t> x = sftest::make_input_int8<cfg>(sftest::input_kind::normal);
    std::vector<std::int16_t> y(x.size());
    span(label, backend, [&] { sftest::require_ok(sf::forward<Backend>(w, ws, x.data(), y.data(), valid_len), "forward"); });
    return y;
}

void encoder(const char* label, int valid_len) {
    const auto ref = encoder_pass<sf::reference>(label, "reference", valid_len);
    const auto neon = encoder_pass<sf::armv7_neon>(label, "armv7_neon", valid_len);
    all_equal = all_equal && ref == neon;
}

}  // namespace

int main() {
    std::printf("empty\tnone\n");  // the markers' own cost, subtracted from every span
    std::fflush(stdout);
    sf_count_begin();
    sf_count_end();
    linear_shape<64, 192>("linear 64->192", 0x1234u);
    linear_shape<64, 64>("linear 64->64", 0x2345u);
    linear_shape<64, 256>("linear 64->256", 0x3456u);
    linear_shape<256, 64>("linear 256->64", 0x5678u);
    encoder("tiny int8 encoder, valid_len 32", 32);
    encoder("tiny int8 encoder, valid_len 1", 1);
    std::printf("bytes\t%s\n", all_equal ? "equal" : "DIFFERENT");
    return all_equal ? 0 : 1;
}
