// Cortex-M: int8 and a16w8 attention of each Cortex-M backend of the build (backends.hpp; their
// own key and value layouts) against the reference kernel set's (memcmp): keys and values stored
// in tiles of 3 rows (odd first rows), every key count 1..40, head dimensions 16 (value blocks of
// 8), 12 (pairs of 4) and 8; a16w8 16, 6 and 7 (odd: the reference's kernels); every context shift
// 1..62 with several multipliers and probabilities.
#include <staticformer/staticformer.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "backends.hpp"
#include "xorshift.hpp"

namespace sf = staticformer;

namespace {

constexpr int S = 40;

template <class Backend, int D, int HeadDim>
bool check(std::uint32_t seed) {
    using fast = sf::int8_kernel_set<Backend>;
    using ref = sf::int8_kernel_set<sf::reference>;
    static std::int8_t k[S * D], v[S * D], q[D];
    static std::int8_t kt_fast[S * D], kt_ref[S * D], values_fast[S * D], values_ref[S * D];
    xorshift32 g{seed};
    for (auto& x : k) x = g.int8();
    for (auto& x : v) x = g.int8();
    for (auto& x : q) x = g.int8();
    v[0] = -128, v[D + 1] = 127, q[0] = -128;  // the extremes
    std::memset(kt_fast, 0, sizeof kt_fast), std::memset(kt_ref, 0, sizeof kt_ref);
    std::memset(values_fast, 0, sizeof values_fast), std::memset(values_ref, 0, sizeof values_ref);
    for (int j0 = 0; j0 < S; j0 += 3) {
        const int rows = S - j0 < 3 ? S - j0 : 3;
        fast::template store_keys<D, HeadDim, S>(k + j0 * D, rows, j0, kt_fast);
        ref::store_keys<D, HeadDim, S>(k + j0 * D, rows, j0, kt_ref);
        fast::template store_values<D, HeadDim, S>(v + j0 * D, rows, j0, values_fast);
        ref::store_values<D, HeadDim, S>(v + j0 * D, rows, j0, values_ref);
    }
    bool ok = true;
    for (int h = 0; h < D / HeadDim; ++h)
        for (int n = 1; n <= S; ++n) {
            std::int32_t s_fast[S], s_ref[S];
            fast::template attention_scores<HeadDim, S>(q + h * HeadDim, kt_fast + h * HeadDim * S, n, s_fast);
            ref::attention_scores<HeadDim, S>(q + h * HeadDim, kt_ref + h * HeadDim * S, n, s_ref);
            if (std::memcmp(s_fast, s_ref, n * sizeof(std::int32_t)) != 0) {
                std::printf("DIFFERENT scores: head dim %d, head %d, n %d\n", HeadDim, h, n);
                ok = false;
            }
            std::int16_t p[S];
            for (int j = 0; j < n; ++j) p[j] = std::int16_t(n % 3 == 0 ? 32767 : g.next() % 32768u);
            for (std::int32_t shift = 1; shift <= 62; ++shift)
                for (std::int32_t m : {std::int32_t(1) << 30, std::int32_t(2147483647), std::int32_t(g.next() >> 1)}) {
                    std::int8_t c_fast[HeadDim], c_ref[HeadDim];
                    fast::template attention_context<HeadDim, D>(p, values_fast + h * HeadDim, n, {m, shift}, c_fast);
                    ref::attention_context<HeadDim, D>(p, values_ref + h * HeadDim, n, {m, shift}, c_ref);
                    if (std::memcmp(c_fast, c_ref, sizeof c_fast) != 0) {
                        std::printf("DIFFERENT context: head dim %d, head %d, n %d, shift %ld\n", HeadDim, h, n,
                                    long(shift));
                        ok = false;
                    }
                }
        }
    return ok;
}

// a16w8: int16 queries and keys within the score limit, values over all of int16, probabilities
// that a softmax gives (their sum within 2^15 + n / 2: one near 32767, or spread), output limits.
template <class Backend, int D, int HeadDim>
bool check_a16w8(std::uint32_t seed) {
    using fast = sf::a16w8_kernel_set<Backend>;
    using ref = sf::a16w8_kernel_set<sf::reference>;
    static std::int16_t k[S * D], v[S * D], q[D], kt_fast[S * D], kt_ref[S * D], values_fast[S * D], values_ref[S * D];
    xorshift32 g{seed};
    const std::int32_t limit = sf::a16w8_limits::score_limit(HeadDim);
    const auto within = [&] { return std::int16_t(std::int32_t(g.next() % std::uint32_t(2 * limit + 1)) - limit); };
    for (auto& x : k) x = within();
    for (auto& x : q) x = within();
    for (auto& x : v) x = std::int16_t(g.next() >> 16);
    k[0] = std::int16_t(-limit), q[0] = std::int16_t(-limit), v[0] = -32768, v[D + 1] = 32767;  // the extremes
    std::memset(kt_fast, 0, sizeof kt_fast), std::memset(kt_ref, 0, sizeof kt_ref);
    std::memset(values_fast, 0, sizeof values_fast), std::memset(values_ref, 0, sizeof values_ref);
    for (int j0 = 0; j0 < S; j0 += 3) {
        const int rows = S - j0 < 3 ? S - j0 : 3;
        fast::template store_keys<D, HeadDim, S>(k + j0 * D, rows, j0, kt_fast);
        ref::store_keys<D, HeadDim, S>(k + j0 * D, rows, j0, kt_ref);
        fast::template store_values<D, HeadDim, S>(v + j0 * D, rows, j0, values_fast);
        ref::store_values<D, HeadDim, S>(v + j0 * D, rows, j0, values_ref);
    }
    bool ok = true;
    for (int h = 0; h < D / HeadDim; ++h)
        for (int n = 1; n <= S; ++n) {
            std::int32_t s_fast[S], s_ref[S];
            fast::template attention_scores<HeadDim, S>(q + h * HeadDim, kt_fast + h * HeadDim * S, n, s_fast);
            ref::attention_scores<HeadDim, S>(q + h * HeadDim, kt_ref + h * HeadDim * S, n, s_ref);
            ok = ok && std::memcmp(s_fast, s_ref, n * sizeof(std::int32_t)) == 0;
            std::int16_t p[S];
            // Spread (each below 2^15 / n), or one key taking nearly everything: the sum stays
            // within the softmax's 2^15, so no int32 sum overflows.
            for (int j = 0; j < n; ++j)
                p[j] = std::int16_t(n % 3 == 0 ? (j == n / 2 ? 32767 - (n - 1) : 1) : g.next() % std::uint32_t(32768 / n));
            for (std::int32_t shift = 1; shift <= 62; ++shift)
                for (std::int32_t m : {std::int32_t(1) << 30, std::int32_t(2147483647), std::int32_t(g.next() >> 1)}) {
                    const sf::attention_a16w8 a{{}, {m, shift}, shift % 2 ? 32767 : 1000 + shift, 0};
                    std::int16_t c_fast[HeadDim], c_ref[HeadDim];
                    fast::template attention_context<HeadDim, D>(p, values_fast + h * HeadDim, n, a, c_fast);
                    ref::template attention_context<HeadDim, D>(p, values_ref + h * HeadDim, n, a, c_ref);
                    ok = ok && std::memcmp(c_fast, c_ref, sizeof c_fast) == 0;
                }
            if (!ok) return std::printf("DIFFERENT a16w8 attention: head dim %d, head %d, n %d\n", HeadDim, h, n), false;
        }
    return ok;
}

}  // namespace

int main() {
    const bool ok = each_cortex_m_backend([](auto tag, const char* backend) {
        using B = decltype(tag);
        std::printf("int8 attention, backend %s\n", backend);
        const bool int8 = check<B, 64, 16>(0x1111u) && check<B, 48, 12>(0x2222u) && check<B, 32, 8>(0x3333u);
        std::printf("a16w8 attention, backend %s\n", backend);
        return check_a16w8<B, 64, 16>(0x4444u) && check_a16w8<B, 30, 6>(0x5555u) && check_a16w8<B, 21, 7>(0x6666u) &&
               int8;
    });
    std::puts(ok ? "attention rows: ok" : "attention rows: FAILED");
    return ok ? 0 : 1;
}
