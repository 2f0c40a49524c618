// Cortex-M: the int16 stream's kernels of each Cortex-M backend of the build (LayerNorm into int8
// and into the stream, the add, int8 widened into it and narrowed from it) against the reference's, memcmp, on rows of
// random, saturated, narrow-spread and small values, gammas of +-2^15, eps from 0 to near 2^62,
// every output shift 1..31 and odd row lengths, and the DSP set's 2^48 / d for every d < 2^16; prints the instructions per value of the tiny
// encoder's shapes (64 columns, 32 rows; run.sh: QEMU -icount shift=0). Also the gated
// feed-forward's product (glu), in place, on random and extreme values, tables and zero points,
// every shift 1..62, multipliers 0 and 2^15 - 1, row lengths 7, 16, 33 and 256; and a16w8's
// int16 add, widening, narrowing, activation and glu likewise.
#include <staticformer/staticformer.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "backends.hpp"
#include "cycle_counter.h"
#include "xorshift.hpp"

namespace sf = staticformer;

namespace {

constexpr int rows = 3, max_n = 65;

// kind 0: random, 1: -32768, 2: 32767, 3: 1000 +- 3 (den small), 4: |x| < 64, 5: alternating ends.
void fill(std::int16_t* x, int n, int kind, xorshift32& g) {
    for (int i = 0; i < n; ++i) {
        const std::int32_t r = std::int32_t(g.next() >> 16) - 32768;
        x[i] = std::int16_t(kind == 0 ? r : kind == 1 ? -32768 : kind == 2 ? 32767 : kind == 3 ? 1000 + r % 4
                            : kind == 4 ? r % 64 : (i % 2 ? 32767 : -32768));
    }
}

template <class P>
void norm_params(P& p, int n, int variant, bool stream_output, xorshift32& g) {
    for (int c = 0; c < n; ++c) {
        p.gamma[c] = variant == 1 ? 32767 : variant == 2 ? -32768 : std::int16_t(g.next() >> 16);
        p.beta[c] = std::int32_t(g.next() >> 4) - (1 << 27);
    }
    p.eps = variant == 3 ? 0 : variant == 4 ? (std::int64_t(1) << 62) - std::int64_t(g.next()) : std::int64_t(g.next() >> 8);
    p.shift = 1 + std::int32_t(g.next() % 31);
    p.output_zero_point = stream_output ? std::int32_t(g.next() % 512) - 256 : std::int32_t(g.next() % 256) - 128;
}

template <class K, int N, bool Rms>
bool check_norm(xorshift32& g) {
    static sf::layer_norm_int8<N, Rms> p{};
    static std::int16_t x[rows * N], a16[rows * N], b16[rows * N];
    static std::int8_t a8[rows * N], b8[rows * N];
    using ref = sf::int8_kernel_set<sf::reference>;
    bool ok = true;
    for (int variant = 0; variant < 5; ++variant)
        for (int kind = 0; kind < 6; ++kind) {
            fill(x, rows * N, kind, g);
            norm_params(p, N, variant, false, g);
            ref::layer_norm(x, rows, p, a8);
            K::layer_norm(x, rows, p, b8);
            norm_params(p, N, variant, true, g);
            ref::layer_norm(x, rows, p, a16);
            std::memcpy(b16, x, sizeof x);
            K::layer_norm(b16, rows, p, b16);  // in place
            if (std::memcmp(a8, b8, sizeof a8) != 0 || std::memcmp(a16, b16, sizeof a16) != 0) {
                std::printf("DIFFERENT: LayerNorm N %d rms %d, variant %d, kind %d\n", N, int(Rms), variant, kind);
                ok = false;
            }
        }
    return ok;
}

template <class K>
bool check_add_narrow(xorshift32& g) {
    using ref = sf::int8_kernel_set<sf::reference>;
    static std::int16_t x[max_n], s1[max_n], s2[max_n], w1[max_n], w2[max_n];
    static std::int8_t a[max_n], y1[max_n], y2[max_n];
    bool ok = true;
    for (int n = 1; n <= max_n; n += 8)
        for (int kind = 0; kind < 6; ++kind)
            for (std::int32_t shift = 1; shift <= 30; ++shift) {
                fill(x, n, kind, g);
                for (int i = 0; i < n; ++i) a[i] = g.int8();
                const std::int32_t m = std::int32_t(g.next() % 32768), zp = std::int32_t(g.next() % 256) - 128;
                const sf::stream_add_int8 add{zp, m, shift, 0};
                const sf::stream_narrow_int8 narrow{m, shift, zp, 0};
                std::memcpy(s1, x, sizeof x), std::memcpy(s2, x, sizeof x);
                ref::add(s1, a, n, add), K::add(s2, a, n, add);
                ref::narrow(x, n, narrow, y1), K::narrow(x, n, narrow, y2);
                ref::widen(a, n, add, w1), K::widen(a, n, add, w2);
                if (std::memcmp(s1, s2, sizeof s1) != 0 || std::memcmp(y1, y2, n) != 0 || std::memcmp(w1, w2, 2 * n) != 0) {
                    std::printf("DIFFERENT: add, widen or narrow, n %d, kind %d, shift %ld\n", n, kind, long(shift));
                    ok = false;
                }
            }
    return ok;
}

// kind 0: random; 1: every product -255 x 255; 2: every product 255 x 255; 3: random values,
// zero points at the ends.
template <class K, int F>
bool check_glu(xorshift32& g) {
    using ref = sf::int8_kernel_set<sf::reference>;
    static std::int8_t table[256], h1[2 * rows * F], h2[2 * rows * F];
    bool ok = true;
    for (int kind = 0; kind < 4; ++kind)
        for (std::int32_t shift = 1; shift <= 62; ++shift) {
            for (std::int8_t& t : table) t = kind == 1 ? -128 : kind == 2 ? 127 : g.int8();
            for (std::int8_t& v : h1) v = kind == 1 || kind == 2 ? 127 : g.int8();
            std::memcpy(h2, h1, sizeof h1);
            const std::int32_t m = shift % 3 == 0 ? 32767 : shift % 3 == 1 ? std::int32_t(g.next() % 32768) : 0;
            const std::int32_t random_zp = std::int32_t(g.next() % 256) - 128;
            const std::int32_t a_zp = kind == 0 ? random_zp : kind == 1 ? 127 : kind == 2 ? -128 : (shift % 2 ? 127 : -128);
            const std::int32_t b_zp = kind == 0 ? random_zp / 2 : kind == 3 ? (shift % 4 < 2 ? 127 : -128) : -128;
            const sf::gate_int8 p{a_zp, b_zp, m, shift, std::int32_t(g.next() % 256) - 128, 0};
            ref::glu<F>(h1, rows, table, p);
            K::template glu<F>(h2, rows, table, p);
            if (std::memcmp(h1, h2, sizeof h1) != 0) {
                std::printf("DIFFERENT: glu F %d, kind %d, shift %ld, multiplier %ld\n", F, kind, long(shift), long(m));
                ok = false;
            }
        }
    return ok;
}

// a16w8 (every int16 within +-32767): the add, widening and narrowing of int16 branches, the
// interpolated activation, and glu (shifts 1..62: SMLAWB's 17..47 and the reference's outside).
template <class K>
bool check_a16w8_rows(xorshift32& g) {
    using ref = sf::a16w8_kernel_set<sf::reference>;
    static std::int16_t x[max_n], a[max_n], s1[max_n], s2[max_n], y1[max_n], y2[max_n];
    static sf::activation_a16w8 act{};
    bool ok = true;
    for (int n = 1; n <= max_n; n += 8)
        for (int kind = 0; kind < 6; ++kind)
            for (std::int32_t shift = 1; shift <= 30; ++shift) {
                fill(x, n, kind, g), fill(a, n, (kind + shift) % 6, g);
                for (int i = 0; i < n; ++i) x[i] = x[i] == -32768 ? -32767 : x[i], a[i] = a[i] == -32768 ? -32767 : a[i];
                for (int i = 0; i < act.points; ++i) act.table[i] = std::int16_t(std::int32_t(g.next() % 65535) - 32767);
                const std::int32_t m = shift % 2 ? 32767 : std::int32_t(g.next() % 32768);
                const std::int32_t limit = kind == 5 ? 32767 : 1 + std::int32_t(g.next() % 32767);
                const sf::stream_add_int8 add{0, m, shift, 0};
                const sf::stream_narrow_a16w8 narrow{m, shift, limit, 0};
                std::memcpy(s1, x, sizeof x), std::memcpy(s2, x, sizeof x);
                ref::add(s1, a, n, add), K::add(s2, a, n, add);
                bool same = std::memcmp(s1, s2, sizeof s1) == 0;
                ref::widen(a, n, add, y1), K::widen(a, n, add, y2);
                same = same && std::memcmp(y1, y2, 2 * n) == 0;
                ref::narrow(x, n, narrow, y1), K::narrow(x, n, narrow, y2);
                same = same && std::memcmp(y1, y2, 2 * n) == 0;
                std::memcpy(s1, x, sizeof x), std::memcpy(s2, x, sizeof x);
                ref::activate(s1, n, act), K::activate(s2, n, act);
                if (!same || std::memcmp(s1, s2, sizeof s1) != 0) {
                    std::printf("DIFFERENT: a16w8 add, widen, narrow or activation, n %d, kind %d, shift %ld\n", n, kind, long(shift));
                    ok = false;
                }
            }
    return ok;
}

template <class K, int F>
bool check_a16w8_glu(xorshift32& g) {
    using ref = sf::a16w8_kernel_set<sf::reference>;
    static std::int16_t h1[2 * rows * F], h2[2 * rows * F];
    static sf::activation_a16w8 act{};
    bool ok = true;
    for (int kind = 0; kind < 6; ++kind)
        for (std::int32_t shift = 1; shift <= 62; ++shift) {
            fill(h1, 2 * rows * F, kind, g);
            for (std::int16_t& v : h1) v = v == -32768 ? -32767 : v;
            for (int i = 0; i < act.points; ++i)
                act.table[i] = kind == 2 ? 32767 : kind == 1 ? -32767 : std::int16_t(std::int32_t(g.next() % 65535) - 32767);
            std::memcpy(h2, h1, sizeof h1);
            const std::int32_t m = shift % 3 == 0 ? 32767 : shift % 3 == 1 ? std::int32_t(g.next() % 32768) : 0;
            const sf::gate_a16w8 p{m, shift, kind == 5 ? 32767 : 1 + std::int32_t(g.next() % 32767), 0};
            ref::glu<F>(h1, rows, act, p);
            K::template glu<F>(h2, rows, act, p);
            if (std::memcmp(h1, h2, sizeof h1) != 0) {
                std::printf("DIFFERENT: a16w8 glu F %d, kind %d, shift %ld, multiplier %ld\n", F, kind, long(shift), long(m));
                ok = false;
            }
        }
    return ok;
}

// Instructions per value of the tiny encoder's shapes: LayerNorm of 32 rows of 64 into int8, the
// add and the narrowing of 32 x 64 values.
template <class K>
void count(xorshift32& g) {
    static sf::layer_norm_int8<64> p{};
    static std::int16_t x[32 * 64];
    static std::int8_t y[32 * 64];
    fill(x, 32 * 64, 0, g);
    norm_params(p, 64, 0, false, g);
    p.shift = 20;
    sf_port_counter_start();
    K::layer_norm(x, 32, p, y);
    const std::uint64_t norm = sf_port_counter_read();
    sf_port_counter_start();
    K::add(x, y, 32 * 64, sf::stream_add_int8{3, 20000, 7, 0});
    const std::uint64_t add = sf_port_counter_read();
    sf_port_counter_start();
    K::narrow(x, 32 * 64, sf::stream_narrow_int8{20000, 22, -3, 0}, y);
    const std::uint64_t narrow = sf_port_counter_read();
    static std::int8_t table[256], h[2 * 32 * 256];
    for (std::int8_t& v : h) v = g.int8();
    sf_port_counter_start();
    K::template glu<256>(h, 32, table, sf::gate_int8{3, -5, 20000, 24, -2, 0});
    const std::uint64_t glu = sf_port_counter_read();
    std::printf("instructions per value: LayerNorm %llu, add %llu, narrow %llu, glu %llu\n",
                (unsigned long long)(norm / 2048), (unsigned long long)(add / 2048), (unsigned long long)(narrow / 2048),
                (unsigned long long)(glu / 8192));
}

}  // namespace

int main() {
    xorshift32 g{0x2468u};
    bool quotients = true;
#if STATICFORMER_HAS_CORTEX_M_DSP
    for (std::uint32_t d = 1; d < 65536; ++d)  // the statistics' 2^48 / root by two divisions
        if (sf::kernels::cortex_m_dsp::power_of_two_48_over(d) != sf::math::power_of_two_over<48>(d) && quotients) {
            std::printf("DIFFERENT: 2^48 / %lu\n", (unsigned long)d);
            quotients = false;
        }
#endif
    const bool ok = quotients && each_cortex_m_backend([&](auto backend, const char* name) {
        using K = sf::int8_kernel_set<decltype(backend)>;
        std::printf("stream kernels, backend %s\n", name);
        bool good = check_norm<K, 64, false>(g) & check_norm<K, 9, false>(g) & check_norm<K, 65, true>(g);
        good = check_norm<K, 384, false>(g) & check_add_narrow<K>(g) & good;
        good = check_glu<K, 7>(g) & check_glu<K, 16>(g) & check_glu<K, 33>(g) & check_glu<K, 256>(g) & good;
        using K16 = sf::a16w8_kernel_set<decltype(backend)>;
        good = check_a16w8_rows<K16>(g) & check_a16w8_glu<K16, 7>(g) & check_a16w8_glu<K16, 33>(g) & good;
        good = check_a16w8_glu<K16, 256>(g) & good;
        count<K>(g);
        return good;
    });
    std::printf("stream kernels: %s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
