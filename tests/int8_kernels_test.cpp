// Each simd int8 kernel against its reference, memcmp, on shapes that are multiples of no vector
// width (In = 1, 3, 5, 7, 33, 70, 257; Out = 1, 3, 17, 40, 65; 1 to 8 rows) and on saturating
// inputs: all -128, all 127, alternating, random; biases of +-2^30; multipliers 0 and 32767;
// shifts from 1 to 62; all-equal score rows; probabilities of 32767.
#include <gtest/gtest.h>

#include <staticformer/staticformer.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "common/int8_backend.hpp"
#include "common/random.hpp"

namespace {

namespace sf = staticformer;
using sftest::splitmix64;

#if !SFTEST_INT8_VECTOR
TEST(Int8SimdKernels, SimdBackend) { GTEST_SKIP() << "no int8 vector backend in this build"; }
#else
using ref = sf::int8_kernel_set<sf::reference>;
using vec = sf::int8_kernel_set<sftest::int8_vector>;

// ARMv7-A with NEON: the int8 kernels are NEON's, and the default backend runs them.
#if defined(__arm__) && defined(__ARM_NEON) && !defined(STATICFORMER_NO_ARMV7_NEON)
static_assert(std::is_same<sf::default_backend, sf::armv7_neon>::value, "armv7_neon is ARMv7 NEON's default");
#if !defined(STATICFORMER_INT8_NEON)
#error "ARMv7 NEON: the int8 kernels must use the NEON building blocks"
#endif
#endif

TEST(Int8SimdKernels, InstructionSet) {
    std::printf("int8 vector kernels: %s, backend %s\n", STATICFORMER_INT8_ISA, SFTEST_INT8_VECTOR_NAME);
#if defined(STATICFORMER_INT8_X86) && defined(__AVX512VBMI__)
    std::printf("int8 activation: vector table lookup\n");
#endif
}

enum class fill { random, min, max, alternating, min_max, narrow };
constexpr fill fills[] = {fill::random, fill::min, fill::max, fill::alternating, fill::min_max, fill::narrow};
constexpr int fill_count = int(sizeof fills / sizeof fills[0]);

// Values of one pattern; min_max: the first half -128, the rest 127; narrow: 37 +- 3 (a small
// spread: with a small eps, LayerNorm's den is at most 512 and its reciprocal 2^31 or more).
std::int8_t value(fill f, std::size_t i, std::size_t n, splitmix64& g) {
    switch (f) {
        case fill::min:
            return -128;
        case fill::max:
            return 127;
        case fill::alternating:
            return i % 2 ? 127 : -128;
        case fill::min_max:
            return i < n / 2 ? -128 : 127;
        case fill::narrow:
            return std::int8_t(34 + int(g.next() % 7));
        default:
            return std::int8_t(g.next() >> 56);
    }
}

std::vector<std::int8_t> values(fill f, std::size_t n, splitmix64& g) {
    std::vector<std::int8_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = value(f, i, n, g);
    return v;
}

// ---- linear ---------------------------------------------------------------------------------

template <int In, int Out>
void check_linear(std::uint64_t seed) {
    splitmix64 g{seed};
    auto p = std::make_unique<sf::linear_int8<In, Out> >();  // zero: the padding of the last group
    const int shifts[] = {1, 12, 16, 17, 20, 31, 39, 40, 45, 46, 47, 48, 62};  // x86: 17 and up a shorter rescale
    for (fill wf : fills) {
        for (int i = 0; i < In; ++i)
            for (int o = 0; o < Out; ++o) p->w[i / 4][o][i % 4] = value(wf, std::size_t(i) * Out + o, In * Out, g);
        for (int o = 0; o < Out; ++o) {
            const std::int32_t edges[] = {1 << 30, -(1 << 30), 0, std::int32_t(g.next() >> 34) - (1 << 29)};
            p->bias[o] = edges[(o + int(wf)) % 4];
            const std::int16_t multipliers[] = {0, 32767, std::int16_t(g.next() >> 49), 1};
            p->multiplier[o] = multipliers[(o + 2 * int(wf)) % 4];
        }
        for (int shift : shifts) {
            p->shift = shift;
            p->output_zero_point = std::int32_t(g.next() % 256) - 128;
            // Every tail of the 8-row tiles, whole tiles with a tail, a second 64-row chunk, and (AMX)
            // blocks of 32 and 16 rows and a second 128-row chunk.
            for (int rows : {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 23, 32, 48, 70, 150}) {
                const fill xf = fills[(int(wf) + shift + rows) % fill_count];
                const std::vector<std::int8_t> x = values(xf, std::size_t(rows) * In, g);  // exactly rows x In
                std::vector<std::int8_t> a(std::size_t(rows) * Out, 1), b(a.size(), 2);
                ref::linear(x.data(), rows, *p, a.data());
                vec::linear(x.data(), rows, *p, b.data());
                ASSERT_EQ(std::memcmp(a.data(), b.data(), a.size()), 0)
                    << "In " << In << " Out " << Out << " rows " << rows << " shift " << shift << " weights " << int(wf)
                    << " inputs " << int(xf);
            }
        }
    }
}

template <int In>
void check_linear_outs(std::uint64_t seed) {
    check_linear<In, 1>(seed);
    check_linear<In, 3>(seed + 1);
    check_linear<In, 17>(seed + 2);
    check_linear<In, 40>(seed + 3);
    check_linear<In, 65>(seed + 4);
}

TEST(Int8SimdKernels, LinearOddShapes) {
    check_linear_outs<1>(1);
    check_linear_outs<3>(10);
    check_linear_outs<5>(20);
    check_linear_outs<7>(30);
    check_linear_outs<33>(40);
    check_linear_outs<70>(50);
    check_linear_outs<257>(60);
}

// Weights built by hand (In = 64, Out = 48, random weights): the simd kernel on 5 random rows
// must give the reference's bytes.
using hand_built_linear = sf::linear_int8<64, 48>;

std::unique_ptr<hand_built_linear> random_linear_weights(splitmix64& g) {
    auto p = std::make_unique<hand_built_linear>();
    for (int i = 0; i < 64; ++i)
        for (int o = 0; o < 48; ++o) p->w[i / 4][o][i % 4] = std::int8_t(g.next() >> 56);
    return p;
}

::testing::AssertionResult linear_matches_reference(const hand_built_linear& p, splitmix64& g) {
    constexpr int rows = 5;
    const std::vector<std::int8_t> x = values(fill::random, std::size_t(rows) * 64, g);
    std::vector<std::int8_t> a(std::size_t(rows) * 48, 1), b(a.size(), 2);
    ref::linear(x.data(), rows, p, a.data());
    vec::linear(x.data(), rows, p, b.data());
    if (std::memcmp(a.data(), b.data(), a.size()) == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "simd output differs from the reference";
}

// A negative multiplier is invalid (is_valid rejects it), but weights built by hand can hold
// one: the simd kernel must still give the reference's bytes (x86 then skips its rescale for
// multipliers >= 0).
TEST(Int8SimdKernels, LinearNegativeMultiplier) {
    splitmix64 g{80};
    auto p = random_linear_weights(g);
    for (int o = 0; o < 48; ++o) {
        p->bias[o] = std::int32_t(g.next() >> 40) - (1 << 23);
        p->multiplier[o] = std::int16_t(g.next() >> 49);
    }
    p->multiplier[24] = -12345;
    for (int shift : {17, 20, 31}) {
        p->shift = shift;
        ASSERT_TRUE(linear_matches_reference(*p, g)) << "shift " << shift;
    }
}

// Zero points outside int8 are invalid too (is_valid), but weights built by hand can hold them:
// x86 folds the zero point into its shorter rescale only where the sum cannot overflow
// (|zp| 2^t + 2^(t - 1) <= 2^30, t = shift - 16 <= 31), and takes the general rescale elsewhere.
TEST(Int8SimdKernels, LinearLargeZeroPoint) {
    splitmix64 g{81};
    auto p = random_linear_weights(g);
    for (int o = 0; o < 48; ++o) {
        // accumulators near +-2^31 (x w adds at most 2^20): A = acc m / 2^16 near +-2^30
        p->bias[o] = o % 2 ? std::numeric_limits<std::int32_t>::max() - (1 << 21) - o
                           : std::numeric_limits<std::int32_t>::min() + (1 << 21) + o;
        p->multiplier[o] = std::int16_t(32767 - o);
    }
    for (int shift : {17, 30, 38, 39, 40, 46, 47, 48})
        for (std::int32_t zero_point : {0, 1, -1, 127, -128, 255, -255, 256, -256, 4095, 4096, -4097, 1 << 20, -(1 << 20)}) {
            p->shift = shift;
            p->output_zero_point = zero_point;
            ASSERT_TRUE(linear_matches_reference(*p, g)) << "shift " << shift << " zero point " << zero_point;
        }
}

TEST(Int8SimdKernels, LinearEncoderShapes) {
    check_linear<64, 64>(70);
    check_linear<64, 256>(71);
    check_linear<256, 64>(72);
    check_linear<128, 130>(73);
}

// Shapes the AMX tiles take where the CPU has them (at least 64 inputs, outputs in blocks of 16):
// the rows in blocks of 32, a last block of 16 and the VNNI tiles' leftover rows after them;
// inputs in whole steps of 64 and with a last step of 32, 6 (a partial group) and 8; a last
// column block of 16.
TEST(Int8SimdKernels, LinearTileBlocks) {
#if defined(STATICFORMER_INT8_AMX)
    std::printf("AMX tiles: %s\n", sf::kernels::simd_int8::amx::usable() ? "used" : "not used (no AMX here, or STATICFORMER_AMX=0)");
#endif
    check_linear<64, 32>(74);
    check_linear<192, 96>(75);
    check_linear<384, 64>(76);
    check_linear<160, 96>(77);
    check_linear<96, 48>(78);
    check_linear<70, 32>(79);
    check_linear<200, 16>(80);
}

// ---- a16w8 linear ----------------------------------------------------------------------------

using ref16 = sf::a16w8_kernel_set<sf::reference>;
using vec16 = sf::a16w8_kernel_set<sftest::int8_vector>;

// An int16 input within l = input_limit(In): the pattern's extremes are -l and l, random ones
// anywhere between.
std::int16_t value16(fill f, std::size_t i, std::size_t n, std::int32_t l, splitmix64& g) {
    const std::int32_t v = value(f, i, n, g);
    if (f == fill::random) return std::int16_t(std::int64_t(g.next() % std::uint64_t(2 * l + 1)) - l);
    return std::int16_t(v == -128 ? -l : v == 127 ? l : v);
}

// The a16w8 linear layer (int16 rows, int8 weights) against the reference, memcmp: the same
// shapes, weights and shifts as int8's, inputs at their limit, biases at +-bias_limit, output
// limits 1, 32767 and between, and one negative multiplier (x86: the general rescale).
template <int In, int Out>
void check_linear_a16w8(std::uint64_t seed) {
    splitmix64 g{seed};
    auto p = std::make_unique<sf::linear_a16w8<In, Out> >();
    constexpr std::int32_t l = sf::linear_a16w8<In, Out>::input_limit;
    for (fill wf : fills) {
        for (int i = 0; i < In; ++i)
            for (int o = 0; o < Out; ++o) p->w[i / 4][o][i % 4] = value(wf, std::size_t(i) * Out + o, In * Out, g);
        for (int o = 0; o < Out; ++o) {
            const std::int32_t edges[] = {1 << 30, -(1 << 30), 0, std::int32_t(g.next() >> 34) - (1 << 29)};
            p->bias[o] = edges[(o + int(wf)) % 4];
            const std::int16_t multipliers[] = {0, 32767, std::int16_t(g.next() >> 49), 1};
            p->multiplier[o] = multipliers[(o + 2 * int(wf)) % 4];
        }
        if (wf == fill::alternating) p->multiplier[Out / 2] = -12345;
        for (int shift : {1, 16, 17, 20, 31, 40, 47, 48, 62}) {
            p->shift = shift;
            const std::int32_t limits[] = {1, 32767, std::int32_t(g.next() % 32767) + 1};
            p->output_limit = limits[shift % 3];
            // Every tail of the 8-row tiles, whole tiles with a tail, and a second 64-row chunk.
            for (int rows : {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 23, 70}) {
                const fill xf = fills[(int(wf) + shift + rows) % fill_count];
                std::vector<std::int16_t> x(std::size_t(rows) * In);  // exactly rows x In
                for (std::size_t i = 0; i < x.size(); ++i) x[i] = value16(xf, i, x.size(), l, g);
                std::vector<std::int16_t> a(std::size_t(rows) * Out, 1), b(a.size(), 2);
                ref16::linear(x.data(), rows, *p, a.data());
                vec16::linear(x.data(), rows, *p, b.data());
                ASSERT_EQ(std::memcmp(a.data(), b.data(), a.size() * 2), 0)
                    << "In " << In << " Out " << Out << " rows " << rows << " shift " << shift << " weights " << int(wf)
                    << " inputs " << int(xf);
            }
        }
    }
}

template <int In>
void check_linear_a16w8_outs(std::uint64_t seed) {
    check_linear_a16w8<In, 1>(seed);
    check_linear_a16w8<In, 3>(seed + 1);
    check_linear_a16w8<In, 17>(seed + 2);
    check_linear_a16w8<In, 40>(seed + 3);
    check_linear_a16w8<In, 65>(seed + 4);
}

TEST(A16w8SimdKernels, LinearOddShapes) {
    check_linear_a16w8_outs<1>(101);
    check_linear_a16w8_outs<3>(110);
    check_linear_a16w8_outs<7>(130);
    check_linear_a16w8_outs<70>(150);
    check_linear_a16w8_outs<257>(160);
    check_linear_a16w8<64, 256>(171);
    check_linear_a16w8<256, 64>(172);
}

// ---- attention --------------------------------------------------------------------------------

// Scores of one query against n keys of each of two heads, compared over [0, n). Each kernel
// set's keys buffer is filled by its own store_keys (in tiles of up to 5 rows, as the
// composition does), so a kernel set that stores keys in its own layout is checked with it.
template <int HeadDim, int S>
void check_scores(std::uint64_t seed) {
    constexpr int D = 2 * HeadDim;
    splitmix64 g{seed};
    for (fill f : fills) {
        const std::vector<std::int8_t> q = values(fills[(int(f) + 1) % fill_count], HeadDim, g);
        const std::vector<std::int8_t> keys = values(f, std::size_t(S) * D, g);  // row-major [S][D]
        std::vector<std::int8_t> kt_ref(std::size_t(D) * S), kt_vec(kt_ref.size());
        for (int j0 = 0; j0 < S; j0 += 5) {
            const int rows = S - j0 < 5 ? S - j0 : 5;
            ref::store_keys<D, HeadDim, S>(keys.data() + j0 * D, rows, j0, kt_ref.data());
            vec::store_keys<D, HeadDim, S>(keys.data() + j0 * D, rows, j0, kt_vec.data());
        }
        for (int h = 0; h < 2; ++h)
            for (int n = 1; n <= S; n += n < 20 ? 1 : 7) {
                std::vector<std::int32_t> a(S, 5), b(S, 5);
                ref::attention_scores<HeadDim, S>(q.data(), kt_ref.data() + h * HeadDim * S, n, a.data());
                vec::attention_scores<HeadDim, S>(q.data(), kt_vec.data() + h * HeadDim * S, n, b.data());
                ASSERT_EQ(std::memcmp(a.data(), b.data(), sizeof(std::int32_t) * S), 0)
                    << "HeadDim " << HeadDim << " S " << S << " head " << h << " n " << n << " fill " << int(f);
            }
    }
}

TEST(Int8SimdKernels, AttentionScores) {
    check_scores<1, 1>(1);
    check_scores<3, 17>(2);
    check_scores<5, 33>(3);
    check_scores<7, 70>(4);
    check_scores<16, 32>(5);
    check_scores<32, 128>(6);
    check_scores<33, 65>(7);
    check_scores<64, 130>(8);
}

// Values of rows [0, stored) into each set's own layout (its store_values, in tiles of up to 5
// rows, as the composition does), over a buffer of stale bytes.
template <class K, int D, int HeadDim, int S>
std::vector<std::int8_t> stored_values(const std::vector<std::int8_t>& v, int stored) {
    std::vector<std::int8_t> buffer(std::size_t(S + S % 2) * D, std::int8_t(0x5a));
    for (int j0 = 0; j0 < stored; j0 += 5)
        K::template store_values<D, HeadDim, S>(v.data() + j0 * D, stored - j0 < 5 ? stored - j0 : 5, j0, buffer.data());
    return buffer;
}

// Context of n probability rows for each head of HeadDim channels in rows of D (a D that is no
// multiple of HeadDim leaves its last channels unread), with values stored by each set's
// store_values: the first n rows (as the encoder stores them for n valid rows), and all S rows
// (so that a kernel reading past key n - 1 meets real values).
template <int HeadDim, int D, int S = 70>
void check_context(std::uint64_t seed) {
    splitmix64 g{seed};
    const sf::math::fixed_multiplier ms[] = {{0, 1},        {1, 1},           {2147483647, 62}, {1 << 30, 40},
                                             {1 << 20, 31}, {2147483647, 20}, {12345, 5}};
    for (fill f : fills) {
        const std::vector<std::int8_t> v = values(f, std::size_t(S) * D, g);  // row-major [S][D]
        const std::vector<std::int8_t> all_ref = stored_values<ref, D, HeadDim, S>(v, S),
                                       all_vec = stored_values<vec, D, HeadDim, S>(v, S);
        for (int pf = 0; pf < 3; ++pf) {
            std::vector<std::int16_t> p(S);
            for (int j = 0; j < S; ++j)
                p[j] = pf == 0 ? 32767 : pf == 1 ? std::int16_t(g.next() >> 49) : std::int16_t(j % 3 ? 0 : 32767);
            for (int n = 1; n <= S; n += n < 10 ? 1 : 9) {
                const std::vector<std::int8_t> first_ref = stored_values<ref, D, HeadDim, S>(v, n),
                                               first_vec = stored_values<vec, D, HeadDim, S>(v, n);
                for (const auto& m : ms)
                    for (int h = 0; (h + 1) * HeadDim <= D; ++h)
                        for (int stored_all = 0; stored_all < 2; ++stored_all) {
                            const std::int8_t* vr = (stored_all ? all_ref : first_ref).data() + h * HeadDim;
                            const std::int8_t* vv = (stored_all ? all_vec : first_vec).data() + h * HeadDim;
                            std::vector<std::int8_t> a(HeadDim, 7), b(HeadDim, 9);
                            ref::attention_context<HeadDim, D>(p.data(), vr, n, m, a.data());
                            vec::attention_context<HeadDim, D>(p.data(), vv, n, m, b.data());
                            ASSERT_EQ(std::memcmp(a.data(), b.data(), HeadDim), 0)
                                << "HeadDim " << HeadDim << " D " << D << " S " << S << " head " << h << " n " << n
                                << " m " << m.multiplier << " shift " << m.shift << " fill " << int(f)
                                << " probabilities " << pf << " rows stored " << (stored_all ? S : n);
                        }
            }
        }
    }
}

TEST(Int8SimdKernels, AttentionContext) {
    check_context<1, 1>(11);
    check_context<3, 5>(12);
    check_context<7, 7>(13);
    check_context<16, 64>(14);
    check_context<17, 40>(15);
    check_context<32, 384>(16);
    check_context<33, 65>(17);
    check_context<64, 257>(18);
    check_context<32, 64>(19);
    check_context<64, 256>(20);
    check_context<96, 192>(21);
    check_context<128, 256>(22);
    check_context<32, 96, 69>(23);  // an odd number of rows
    check_context<16, 48, 69>(24);
    check_context<48, 96>(25);
}

// a16w8's activation: every int16 input (each table segment at each of its 128 offsets) through
// tables of extreme points, at every length up to 70 (the tails).
TEST(A16w8SimdKernels, ActivateEveryInput) {
    splitmix64 g{221};
    static sf::activation_a16w8 a{};
    for (int variant = 0; variant < 3; ++variant) {
        for (int i = 0; i < sf::activation_a16w8::points; ++i)
            a.table[i] = variant == 0 ? std::int16_t(std::int64_t(g.next() % 65535) - 32767)
                         : variant == 1 ? std::int16_t(i % 2 ? 32767 : -32767)
                                        : std::int16_t(i * 64 - 16384);
        std::vector<std::int16_t> x(65536), y(x.size());
        for (int v = 0; v < 65536; ++v) x[std::size_t(v)] = std::int16_t(v - 32768);
        y = x;
        ref16::activate(x.data(), int(x.size()), a);
        vec16::activate(y.data(), int(y.size()), a);
        ASSERT_EQ(x, y) << "table " << variant;
        for (int n = 1; n <= 70; ++n) {
            std::vector<std::int16_t> u(static_cast<std::size_t>(n)), w;
            for (auto& e : u) e = std::int16_t(g.next() >> 48);
            w = u;
            ref16::activate(u.data(), n, a);
            vec16::activate(w.data(), n, a);
            ASSERT_EQ(u, w) << "table " << variant << " n " << n;
        }
    }
}

// a16w8 attention: int16 queries and keys within score_limit(HeadDim), any int16 values; each
// set's keys and values in its own layout (its store_keys / store_values in tiles of 5 rows).
template <int HeadDim, int S>
void check_scores_a16w8(std::uint64_t seed) {
    constexpr int D = 2 * HeadDim;
    constexpr std::int32_t l = sf::a16w8_limits::score_limit(HeadDim);
    splitmix64 g{seed};
    for (fill f : fills) {
        std::vector<std::int16_t> q(HeadDim), keys(static_cast<std::size_t>(S) * D);
        for (std::size_t i = 0; i < q.size(); ++i) q[i] = value16(fills[(int(f) + 1) % fill_count], i, q.size(), l, g);
        for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = value16(f, i, keys.size(), l, g);
        std::vector<std::int16_t> kt_ref(std::size_t(D) * S), kt_vec(kt_ref.size());
        for (int j0 = 0; j0 < S; j0 += 5) {
            const int rows = S - j0 < 5 ? S - j0 : 5;
            ref16::store_keys<D, HeadDim, S>(keys.data() + j0 * D, rows, j0, kt_ref.data());
            vec16::store_keys<D, HeadDim, S>(keys.data() + j0 * D, rows, j0, kt_vec.data());
        }
        for (int h = 0; h < 2; ++h)
            for (int n = 1; n <= S; n += n < 20 ? 1 : 7) {
                std::vector<std::int32_t> a(S, 5), b(S, 5);
                ref16::attention_scores<HeadDim, S>(q.data(), kt_ref.data() + h * HeadDim * S, n, a.data());
                vec16::attention_scores<HeadDim, S>(q.data(), kt_vec.data() + h * HeadDim * S, n, b.data());
                ASSERT_EQ(std::memcmp(a.data(), b.data(), sizeof(std::int32_t) * S), 0)
                    << "HeadDim " << HeadDim << " S " << S << " head " << h << " n " << n << " fill " << int(f);
            }
    }
}

TEST(A16w8SimdKernels, AttentionScores) {
    check_scores_a16w8<1, 1>(201);
    check_scores_a16w8<3, 17>(202);
    check_scores_a16w8<8, 33>(203);
    check_scores_a16w8<16, 70>(204);
    check_scores_a16w8<32, 128>(205);
    check_scores_a16w8<64, 130>(206);
}

template <class K, int D, int HeadDim, int S>
std::vector<std::int16_t> stored_values16(const std::vector<std::int16_t>& v, int stored) {
    std::vector<std::int16_t> buffer(std::size_t(S + S % 2) * D, std::int16_t(0x5a5a));
    for (int j0 = 0; j0 < stored; j0 += 5)
        K::template store_values<D, HeadDim, S>(v.data() + j0 * D, stored - j0 < 5 ? stored - j0 : 5, j0, buffer.data());
    return buffer;
}

// Probabilities of n keys as a softmax gives them, whose sum stays within 2^15 + n / 2 (the
// bound that keeps a16w8's context sums in int32 for any int16 value): pattern 0 all on the last
// key (32767), 1 random shares of 32767, 2 equal shares; S - n zeros after them.
std::vector<std::int16_t> probabilities16(int pattern, int n, int S, splitmix64& g) {
    std::vector<std::int16_t> p(std::size_t(S), 0);
    std::vector<std::uint64_t> share(std::size_t(n), 1);
    if (pattern == 1)
        for (auto& r : share) r = g.next() >> 48;
    std::uint64_t total = 0;
    for (std::uint64_t r : share) total += r;
    for (int j = 0; j < n; ++j)
        p[std::size_t(j)] = pattern == 0 ? std::int16_t(j == n - 1 ? 32767 : 0)
                                         : std::int16_t(total == 0 ? 0 : share[std::size_t(j)] * 32767 / total);
    return p;
}

template <int HeadDim, int D, int S = 70>
void check_context_a16w8(std::uint64_t seed) {
    splitmix64 g{seed};
    const sf::math::fixed_multiplier ms[] = {{0, 1}, {1, 1}, {2147483647, 62}, {1 << 30, 40}, {1 << 20, 31}, {12345, 5}};
    for (fill f : fills) {
        std::vector<std::int16_t> v(static_cast<std::size_t>(S) * D);  // row-major [S][D], the whole int16 range
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = value16(f, i, v.size(), 32767, g);
        if (f == fill::min) std::fill(v.begin(), v.end(), std::int16_t(-32768));
        for (int pf = 0; pf < 3; ++pf) {
            for (int n = 1; n <= S; n += n < 10 ? 1 : 9) {
                const std::vector<std::int16_t> p = probabilities16(pf, n, S, g);
                const std::vector<std::int16_t> vr = stored_values16<ref16, D, HeadDim, S>(v, n),
                                                vv = stored_values16<vec16, D, HeadDim, S>(v, n);
                for (const auto& m : ms)
                    for (int h = 0; (h + 1) * HeadDim <= D; ++h) {
                        const sf::attention_a16w8 a{{0, 1}, m, std::int32_t(m.shift % 2 ? 32767 : 1000), 0};
                        std::vector<std::int16_t> x(HeadDim, 7), y(HeadDim, 9);
                        ref16::attention_context<HeadDim, D>(p.data(), vr.data() + h * HeadDim, n, a, x.data());
                        vec16::attention_context<HeadDim, D>(p.data(), vv.data() + h * HeadDim, n, a, y.data());
                        ASSERT_EQ(std::memcmp(x.data(), y.data(), 2 * HeadDim), 0)
                            << "HeadDim " << HeadDim << " D " << D << " S " << S << " head " << h << " n " << n
                            << " shift " << m.shift << " fill " << int(f) << " probabilities " << pf;
                    }
            }
        }
    }
}

TEST(A16w8SimdKernels, AttentionContext) {
    check_context_a16w8<1, 1>(211);
    check_context_a16w8<7, 7>(212);
    check_context_a16w8<16, 64>(213);
    check_context_a16w8<17, 40>(214);
    check_context_a16w8<32, 96, 69>(215);  // an odd number of rows
    check_context_a16w8<64, 256>(216);
    check_context_a16w8<48, 96>(217);
}

// The composition's sequence: scores, the reference softmax of an all-equal row, context.
TEST(Int8SimdKernels, AttentionAllEqualScores) {
    constexpr int Dh = 32, S = 40;
    std::vector<std::int8_t> q(Dh, 1), keys(std::size_t(S) * Dh, 3), v(std::size_t(S) * Dh, -128), a(Dh), b(Dh);
    const std::vector<std::int8_t> v1 = stored_values<ref, Dh, Dh, S>(v, S), v2 = stored_values<vec, Dh, Dh, S>(v, S);
    std::vector<std::int8_t> kt1(keys.size()), kt2(keys.size());
    ref::store_keys<Dh, Dh, S>(keys.data(), S, 0, kt1.data());
    vec::store_keys<Dh, Dh, S>(keys.data(), S, 0, kt2.data());
    std::vector<std::int32_t> s1(S), s2(S);
    std::vector<std::int16_t> p1(S), p2(S);
    for (int n : {1, 2, 17, 40}) {
        ref::attention_scores<Dh, S>(q.data(), kt1.data(), n, s1.data());
        vec::attention_scores<Dh, S>(q.data(), kt2.data(), n, s2.data());
        ASSERT_EQ(std::memcmp(s1.data(), s2.data(), sizeof(std::int32_t) * n), 0);
        ref::softmax(s1.data(), n, {1 << 30, 40}, p1.data());
        vec::softmax(s2.data(), n, {1 << 30, 40}, p2.data());
        ASSERT_EQ(std::memcmp(p1.data(), p2.data(), sizeof(std::int16_t) * n), 0);
        ref::attention_context<Dh, Dh>(p1.data(), v1.data(), n, {1 << 28, 29}, a.data());
        vec::attention_context<Dh, Dh>(p2.data(), v2.data(), n, {1 << 28, 29}, b.data());
        ASSERT_EQ(a, b) << n;
    }
}

// ---- softmax --------------------------------------------------------------------------------

// Score rows of every length 1..70 and some long ones, narrow and wide ranges (the exponential's
// table, interpolation and rounding shifts, and its cut-off at 2^-16), multipliers from 0 to
// 2^31 - 1: the exponentials left in s and the probabilities, byte for byte.
TEST(Int8SimdKernels, Softmax) {
    splitmix64 g{31};
    const sf::math::fixed_multiplier ms[] = {{1 << 30, 40}, {1 << 30, 30}, {2147483647, 20}, {12345, 5},
                                             {1, 1},        {0, 10},       {1 << 20, 31},    {2147483647, 62}};
    std::vector<int> lengths;
    for (int n = 1; n <= 70; ++n) lengths.push_back(n);
    for (int n : {127, 128, 129, 255, 256, 257, 1000}) lengths.push_back(n);
    for (int n : lengths)
        for (int range : {0, 4, 12, 20, 28}) {
            std::vector<std::int32_t> s(std::size_t(n) + 3);
            for (auto& e : s) e = range == 0 ? -7 : std::int32_t(g.next() >> (64 - range)) - (1 << (range - 1));
            for (const auto& m : ms) {
                std::vector<std::int32_t> s1(s), s2(s);
                std::vector<std::int16_t> p1(std::size_t(n) + 3, 5), p2(p1);
                ref::softmax(s1.data(), n, m, p1.data());
                vec::softmax(s2.data(), n, m, p2.data());
                ASSERT_EQ(s1, s2) << "exponentials: n " << n << " range 2^" << range << " m " << m.multiplier << " shift " << m.shift;
                ASSERT_EQ(p1, p2) << "probabilities: n " << n << " range 2^" << range << " m " << m.multiplier << " shift " << m.shift;
            }
        }
}

// Blocks of rows (as the encoder's attention batches them): 1 to 11 rows of different ranges,
// Stride beyond n, against the reference row by row; entries past n in each row stay as they were.
TEST(Int8SimdKernels, SoftmaxRows) {
    splitmix64 g{37};
    constexpr int Stride = 80;
    const sf::math::fixed_multiplier ms[] = {{1 << 30, 30}, {2147483647, 20}, {12345, 5}};
    for (int rows = 1; rows <= 11; ++rows)
        for (int n : {1, 7, 16, 33, 80}) {
            std::vector<std::int32_t> s(std::size_t(rows) * Stride);
            for (std::size_t i = 0; i < s.size(); ++i) s[i] = std::int32_t(g.next() >> (64 - 4 - 2 * (i / Stride))) - 3;
            for (const auto& m : ms) {
                std::vector<std::int32_t> s1(s), s2(s);
                std::vector<std::int16_t> p1(s.size(), 5), p2(p1);
                ref::softmax_rows<Stride>(s1.data(), rows, n, m, p1.data());
                vec::softmax_rows<Stride>(s2.data(), rows, n, m, p2.data());
                ASSERT_EQ(s1, s2) << "exponentials: rows " << rows << " n " << n << " m " << m.multiplier;
                ASSERT_EQ(p1, p2) << "probabilities: rows " << rows << " n " << n << " m " << m.multiplier;
                std::vector<std::int32_t> s3(s);
                std::vector<std::int16_t> p3(s.size(), 5);
                for (int r = 0; r < rows; ++r) ref::softmax(s3.data() + r * Stride, n, m, p3.data() + r * Stride);
                ASSERT_EQ(p1, p3) << "reference rows: rows " << rows << " n " << n;
            }
        }
}

// The reciprocal of a row's sum, by a double division, against the reference's integer long
// division: every sum up to 2^20 (a softmax's sum is at least 2^15), the 2^20 below 2^31, and
// a million random ones between.
#if defined(STATICFORMER_INT8_X86)
TEST(Int8SimdKernels, SoftmaxReciprocal) {
    splitmix64 g{41};
    const auto check = [](std::int32_t sum) {
        ASSERT_EQ(sf::kernels::simd_int8::softmax_reciprocal(sum), sf::kernels::reference::softmax_reciprocal(sum))
            << "sum " << sum;
    };
    for (std::int32_t sum = 1; sum <= (1 << 20); ++sum) check(sum);
    constexpr std::int32_t top = std::numeric_limits<std::int32_t>::max();
    for (std::int32_t sum = top; sum > top - (1 << 20); --sum) check(sum);
    for (int i = 0; i < 1000000; ++i) check(std::int32_t(1 + g.next() % ((std::uint64_t(1) << 31) - 1)));
}
#endif

// Every interval of the exponential's table, both its end points and interpolations, for each
// integer part 0..16: rescale by 2^30 / 2^30 keeps u = max - s exact, so row k, element j has
// u = 2^16 whole + 256 i + r with i = 4 k + (j - 1) / 16 (element 0 is the maximum, u = 0).
TEST(Int8SimdKernels, SoftmaxEveryTableInterval) {
    const sf::math::fixed_multiplier identity{1 << 30, 30};
    for (int whole = 0; whole <= 16; ++whole)
        for (int row = 0; row < 64; ++row) {
            std::vector<std::int32_t> s(65, 1000000);
            for (int j = 1; j < 65; ++j) {
                const int i = 4 * row + (j - 1) / 16, r = (j % 4 == 0) ? 0 : (j % 4 == 1) ? 255 : (37 * j) & 255;
                s[j] = 1000000 - (whole << 16) - 256 * i - r;
            }
            std::vector<std::int32_t> s1(s), s2(s);
            std::vector<std::int16_t> p1(65, 5), p2(p1);
            ref::softmax(s1.data(), 65, identity, p1.data());
            vec::softmax(s2.data(), 65, identity, p2.data());
            ASSERT_EQ(s1, s2) << "exponentials: whole " << whole << " row " << row;
            ASSERT_EQ(p1, p2) << "probabilities: whole " << whole << " row " << row;
        }
}

// ---- LayerNorm statistics -----------------------------------------------------------------

#if defined(STATICFORMER_INT8_X86)
// The stream LayerNorm's floor(sqrt(v)) and 2^48 / den in double arithmetic against the integer ones:
// v within 3 of r^2 (near a rounding boundary of the root) for every r up to 70000 and about
// every thousandth up to 2^27, around the 2^52 switch, random v and den, every den to 70000.
TEST(Int8SimdKernels, LayerNormStatistics) {
    namespace v = sf::kernels::simd_int8;
    for (std::uint64_t r = 0; r <= (std::uint64_t(1) << 27); r += r < 70000 ? 1 : 997 + (r & 255)) {
        for (std::uint64_t d = 0; d <= 6; ++d) {
            const std::uint64_t x = r * r + d - (r * r >= 3 ? 3 : 0);
            ASSERT_EQ(v::layer_norm_den(x), sf::math::isqrt(x)) << x;
        }
    }
    for (std::uint64_t x = (std::uint64_t(1) << 52) - 4; x <= (std::uint64_t(1) << 52) + 4; ++x)
        ASSERT_EQ(v::layer_norm_den(x), sf::math::isqrt(x)) << x;
    splitmix64 g{57};
    for (int i = 0; i < 200000; ++i) {
        const std::uint64_t x = g.next() >> (g.next() % 64);
        ASSERT_EQ(v::layer_norm_den(x), sf::math::isqrt(x)) << x;
        const std::uint32_t den = 1 + std::uint32_t(g.next() >> (33 + g.next() % 31));
        ASSERT_EQ(v::layer_norm_reciprocal(den), (std::int64_t(1) << 48) / den) << den;
    }
    for (std::uint32_t den = 1; den <= 70000; ++den)
        ASSERT_EQ(v::layer_norm_reciprocal(den), (std::int64_t(1) << 48) / den) << den;
    for (std::uint32_t den : {0xffffffffu, 0xfffffffeu, 0x80000000u, 0x80000001u, 0x7fffffffu, 1048576u, 1048577u})
        ASSERT_EQ(v::layer_norm_reciprocal(den), (std::int64_t(1) << 48) / den) << den;
}
#endif

#if defined(STATICFORMER_INT8_AVX512VNNI) || defined(STATICFORMER_INT8_AVXVNNI)
// The x86 assembly blocks (isa/x86_avx512.hpp, isa/x86_avx2.hpp) against their twins, the
// intrinsics: random vectors with the bytes' and int16's ends mixed in, accumulators that wrap
// past the int32 ends. (The kernels reach the blocks' bytes through every linear layer test;
// this checks that a twin build computes the same.)
template <class Vec, class Block, class Twin>
void expect_block_equals_twin(const char* name, Block block, Twin twin) {
    constexpr int n = sizeof(Vec);
    splitmix64 g{61};
    const std::uint8_t ends[] = {0x00, 0x7f, 0x80, 0xff};
    for (int t = 0; t < 20000; ++t) {
        std::uint8_t bytes[3][n];
        for (auto& vec : bytes)
            for (std::uint8_t& b : vec) b = g.next() % 4 == 0 ? ends[g.next() % 4] : std::uint8_t(g.next() >> 56);
        if (t % 3 == 0)  // accumulators near the int32 ends
            for (int l = 0; l < n / 4; ++l) bytes[0][4 * l + 3] = (l & 1) ? 0x7f : 0x80;
        Vec acc, a, b;
        std::memcpy(&acc, bytes[0], n);
        std::memcpy(&a, bytes[1], n);
        std::memcpy(&b, bytes[2], n);
        const Vec by_asm = block(acc, a, b), by_twin = twin(acc, a, b);
        ASSERT_EQ(std::memcmp(&by_asm, &by_twin, n), 0) << name << ", case " << t;
    }
}

TEST(Int8SimdKernels, AssemblyBlocksEqualTheirTwins) {
    namespace v = sf::kernels::simd_int8;
#if defined(STATICFORMER_INT8_AVX512VNNI)
    using V = __m512i;
    expect_block_equals_twin<V>("dpwssd", v::dpwssd, v::twin::dpwssd);
    expect_block_equals_twin<V>("dpbusd", v::dpbusd, v::twin::dpbusd);
#else
    using V = __m256i;
    expect_block_equals_twin<V>("dpwssd_avx", v::dpwssd_avx, v::twin::dpwssd_avx);
    expect_block_equals_twin<V>("dpbusd_avx", v::dpbusd_avx, v::twin::dpbusd_avx);
#endif
}
#endif

// ---- activation table -----------------------------------------------------------------------

// Every int8 value through random tables and an identity-like one, at lengths around the vector
// widths; the bytes after n must stay untouched.
TEST(Int8SimdKernels, Activate) {
    splitmix64 g{31};
    std::int8_t table[256];
    for (int variant = 0; variant < 3; ++variant) {
        for (int i = 0; i < 256; ++i)
            table[i] = variant == 0 ? std::int8_t(i - 128) : variant == 1 ? std::int8_t(255 - i) : std::int8_t(g.next() >> 56);
        for (int n : {1, 7, 16, 31, 63, 64, 65, 127, 128, 200, 256, 263, 1000}) {
            std::vector<std::int8_t> x(std::size_t(n) + 64);
            for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::int8_t(i < 256 ? i : g.next() >> 56);
            std::vector<std::int8_t> a(x), b(x);
            ref::activate(a.data(), n, table);
            vec::activate(b.data(), n, table);
            ASSERT_EQ(a, b) << "n " << n << " variant " << variant;
            for (std::size_t i = std::size_t(n); i < x.size(); ++i) ASSERT_EQ(b[i], x[i]) << "past n: " << i;
        }
    }
}

#endif

// ---- the stream (int16) ---------------------------------------------------------------------
// Its LayerNorm, add, widening, narrowing and mean: the reference against the formulas in
// doubles (exact but for LayerNorm, within the rounding its integer steps allow), then
// the vector kernels against the reference, memcmp, on saturating and narrow rows.

enum class stream_fill { random, min, max, alternating, min_max, narrow, small };
constexpr stream_fill stream_fills[] = {stream_fill::random,  stream_fill::min,    stream_fill::max,  stream_fill::alternating,
                                        stream_fill::min_max, stream_fill::narrow, stream_fill::small};

// narrow: 1000 +- 3 (den small, the reciprocal above 2^31); small: |x| < 64.
std::vector<std::int16_t> stream_values(stream_fill f, std::size_t n, splitmix64& g) {
    std::vector<std::int16_t> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        const int r = int(g.next() >> 48) - 32768;
        v[i] = std::int16_t(f == stream_fill::min           ? -32768
                            : f == stream_fill::max         ? 32767
                            : f == stream_fill::alternating ? (i % 2 ? 32767 : -32768)
                            : f == stream_fill::min_max     ? (i < n / 2 ? -32768 : 32767)
                            : f == stream_fill::narrow      ? 1000 + r % 4
                            : f == stream_fill::small       ? r % 64
                                                            : r);
    }
    return v;
}

// Parameters of variant 0..5: gammas random, +32767 or -32768; eps random, 0, near 2^52 (where
// the x86 statistics leave double arithmetic) or near 2^62.
template <int N, bool Rms>
void stream_norm_params(sf::layer_norm_int8<N, Rms>& p, int variant, bool int8_output, splitmix64& g) {
    for (int c = 0; c < N; ++c) {
        p.gamma[c] = variant == 1 ? std::int16_t(32767) : variant == 2 ? std::int16_t(-32768) : std::int16_t(g.next() >> 48);
        p.beta[c] = std::int32_t(g.next() >> 36) - (1 << 27);
    }
    p.eps = variant == 3   ? 0
            : variant == 4 ? (std::int64_t(1) << 52) - std::int64_t(g.next() % (std::uint64_t(N) * N * 16384 + 1))
            : variant == 5 ? (std::int64_t(1) << 62) - std::int64_t(g.next() >> 40)
                           : std::int64_t(g.next() >> 40);
    p.shift = 1 + int(g.next() % 30);
    p.output_zero_point = int8_output ? int(g.next() % 256) - 128 : int(g.next() % 512) - 256;
}

// The LayerNorm formula in doubles: y = z gamma / 2^shift + beta / 2^shift + zero point with the
// real z = 2^8 (N x - C) / sqrt(radicand). The integer z is within 1.5 + |z| (1 / den + 2^-14)
// of it (its rounding, den's root of the radicand's top 32 bits, within 2^-15, and the
// reciprocal's floor), each unit worth |gamma| / 2^shift, plus the output's rounding.
template <int N, bool Rms, class Out>
void check_stream_norm_formula(const std::int16_t* x, const sf::layer_norm_int8<N, Rms>& p, const Out* y) {
    double sum = 0, sum_sq = 0;
    for (int c = 0; c < N; ++c) {
        sum += x[c];
        sum_sq += double(x[c]) * x[c];
    }
    const double centre = Rms ? 0 : sum, radicand = N * sum_sq - (Rms ? 0 : sum * sum) + double(p.eps);
    const double den = std::floor(std::sqrt(radicand)), unit = std::ldexp(1.0, -p.shift);
    for (int c = 0; c < N; ++c) {
        const double z = radicand > 0 ? 256 * (N * double(x[c]) - centre) / std::sqrt(radicand) : 0;
        const double expected = z * p.gamma[c] * unit + p.beta[c] * unit + p.output_zero_point;
        const double lo = std::numeric_limits<Out>::min(), hi = std::numeric_limits<Out>::max();
        const double slack = (1.5 + std::fabs(z) * (den > 0 ? 1 / den + 1.0 / 16384 : 0)) * std::abs(p.gamma[c]) * unit + 1;
        const double clamped = expected < lo ? lo : expected > hi ? hi : expected;
        ASSERT_LE(std::fabs(y[c] - clamped), slack) << "N " << N << " column " << c << " expected " << expected;
    }
}

template <int N, bool Rms>
void check_stream_norm_reference(std::uint64_t seed) {
    using ref_set = sf::int8_kernel_set<sf::reference>;
    splitmix64 g{seed};
    auto p = std::make_unique<sf::layer_norm_int8<N, Rms>>();
    for (int variant = 0; variant < 6; ++variant) {
        if (variant == 5) continue;  // (eps near 2^62: beyond a double's exact radicand)
        for (stream_fill f : stream_fills) {
            const std::vector<std::int16_t> x = stream_values(f, 3 * N, g);
            std::vector<std::int8_t> a(x.size());
            std::vector<std::int16_t> b(x.size());
            stream_norm_params(*p, variant, true, g);
            ref_set::layer_norm(x.data(), 3, *p, a.data());
            for (int r = 0; r < 3; ++r) check_stream_norm_formula(x.data() + r * N, *p, a.data() + r * N);
            stream_norm_params(*p, variant, false, g);
            ref_set::layer_norm(x.data(), 3, *p, b.data());
            for (int r = 0; r < 3; ++r) check_stream_norm_formula(x.data() + r * N, *p, b.data() + r * N);
        }
    }
}

TEST(Int8Stream, LayerNormFormula) {
    check_stream_norm_reference<1, false>(61);
    check_stream_norm_reference<9, false>(62);
    check_stream_norm_reference<64, false>(63);
    check_stream_norm_reference<384, false>(64);
    check_stream_norm_reference<9, true>(65);
    check_stream_norm_reference<256, true>(66);
}

const sf::stream_add_int8 stream_adds[] = {{0, 16384, 14, 0}, {-128, 32767, 1, 0}, {127, 32767, 30, 0},
                                           {5, 23456, 9, 0},  {0, 0, 1, 0},        {-3, 1, 2, 0}};
const sf::stream_narrow_int8 stream_narrows[] = {{16384, 22, 0, 0}, {32767, 30, 127, 0}, {32767, 1, -128, 0},
                                                 {12345, 17, -5, 0}, {0, 5, 3, 0},       {1, 8, 0, 0}};

// rescale(v, m, shift) as a real quotient rounded half up (exact in doubles: |v m| < 2^31).
double rounded(double v, std::int32_t m, std::int32_t shift) { return std::floor(v * m * std::ldexp(1.0, -shift) + 0.5); }

TEST(Int8Stream, AddWidenAndNarrowFormulas) {
    using ref_set = sf::int8_kernel_set<sf::reference>;
    splitmix64 g{67};
    for (stream_fill f : stream_fills) {
        const std::vector<std::int16_t> x = stream_values(f, 300, g);
        std::vector<std::int8_t> a(x.size()), y(x.size());
        for (auto& v : a) v = std::int8_t(g.next() >> 56);
        for (const auto& p : stream_adds) {
            std::vector<std::int16_t> s(x), w(x.size());
            ref_set::add(s.data(), a.data(), int(s.size()), p);
            ref_set::widen(a.data(), int(a.size()), p, w.data());
            for (std::size_t i = 0; i < s.size(); ++i) {
                const double branch = rounded(a[i] - p.a_zero_point, p.multiplier, p.shift), v = x[i] + branch;
                ASSERT_EQ(s[i], v < -32768 ? -32768 : v > 32767 ? 32767 : v) << i;
                ASSERT_EQ(w[i], branch < -32768 ? -32768 : branch > 32767 ? 32767 : branch) << "widen " << i;
            }
        }
        for (const auto& p : stream_narrows) {
            ref_set::narrow(x.data(), int(x.size()), p, y.data());
            for (std::size_t i = 0; i < y.size(); ++i) {
                const double v = rounded(x[i], p.multiplier, p.shift) + p.zero_point;
                ASSERT_EQ(y[i], v < -128 ? -128 : v > 127 ? 127 : v) << i;
            }
        }
    }
}

// The rounded mean of stream rows: floor(sum / n + 1/2) for 1..300 rows of each fill.
TEST(Int8Stream, MeanRowsFormula) {
    using ref_set = sf::int8_kernel_set<sf::reference>;
    constexpr int D = 5;
    splitmix64 g{68};
    for (stream_fill f : stream_fills)
        for (int n = 1; n <= 300; n += n < 8 ? 1 : 37) {
            const std::vector<std::int16_t> x = stream_values(f, std::size_t(n) * D, g);
            std::int16_t y[D];
            ref_set::mean_rows<D>(x.data(), n, y);
            for (int c = 0; c < D; ++c) {
                double sum = 0;
                for (int r = 0; r < n; ++r) sum += x[r * D + c];
                ASSERT_EQ(y[c], std::floor((2 * sum + n) / (2.0 * n))) << "n " << n << " column " << c;
            }
        }
}

#if SFTEST_INT8_VECTOR
template <int N, bool Rms>
void check_stream_norm(std::uint64_t seed) {
    splitmix64 g{seed};
    auto p = std::make_unique<sf::layer_norm_int8<N, Rms>>();
    for (int variant = 0; variant < 6; ++variant)
        for (stream_fill f : stream_fills)
            for (int rows = 1; rows <= 11; rows += 5) {  // the simd kernels take blocks of 8 rows
                const std::vector<std::int16_t> x = stream_values(f, std::size_t(rows) * N, g);
                std::vector<std::int8_t> a(x.size(), 1), b(x.size(), 2);
                stream_norm_params(*p, variant, true, g);
                ref::layer_norm(x.data(), rows, *p, a.data());
                vec::layer_norm(x.data(), rows, *p, b.data());
                ASSERT_EQ(a, b) << "int8: N " << N << " rows " << rows << " fill " << int(f) << " variant " << variant;
                std::vector<std::int16_t> c(x.size(), 1), d(x);
                stream_norm_params(*p, variant, false, g);
                ref::layer_norm(x.data(), rows, *p, c.data());
                vec::layer_norm(d.data(), rows, *p, d.data());  // in place
                ASSERT_EQ(c, d) << "stream: N " << N << " rows " << rows << " fill " << int(f) << " variant " << variant;
            }
}

TEST(Int8Stream, LayerNormKernels) {
    check_stream_norm<1, false>(71);
    check_stream_norm<3, false>(72);
    check_stream_norm<9, false>(73);
    check_stream_norm<33, false>(74);
    check_stream_norm<64, false>(75);
    check_stream_norm<100, false>(76);
    check_stream_norm<384, false>(77);
    check_stream_norm<4096, false>(78);
    check_stream_norm<9, true>(79);
    check_stream_norm<257, true>(80);
    check_stream_norm<4096, true>(81);
}

TEST(Int8Stream, AddWidenAndNarrowKernels) {
    splitmix64 g{82};
    for (int n : {1, 3, 7, 15, 16, 17, 40, 65, 257})
        for (stream_fill f : stream_fills) {
            const std::vector<std::int16_t> x = stream_values(f, n, g);
            std::vector<std::int8_t> a(x.size());
            for (auto& v : a) v = std::int8_t(g.next() >> 56);
            for (const auto& p : stream_adds) {
                std::vector<std::int16_t> s1(x), s2(x), w1(x.size(), 1), w2(x.size(), 2);
                ref::add(s1.data(), a.data(), n, p);
                vec::add(s2.data(), a.data(), n, p);
                ASSERT_EQ(s1, s2) << "add: n " << n << " fill " << int(f) << " shift " << p.shift;
                ref::widen(a.data(), n, p, w1.data());
                vec::widen(a.data(), n, p, w2.data());
                ASSERT_EQ(w1, w2) << "widen: n " << n << " fill " << int(f) << " shift " << p.shift;
            }
            for (const auto& p : stream_narrows) {
                std::vector<std::int8_t> y1(x.size(), 1), y2(x.size(), 2);
                ref::narrow(x.data(), n, p, y1.data());
                vec::narrow(x.data(), n, p, y2.data());
                ASSERT_EQ(y1, y2) << "narrow: n " << n << " fill " << int(f) << " shift " << p.shift;
            }
        }
}

// a16w8's: int16 branches over the whole range (the stream's fills), zero point 0; narrowing to
// limits from 1 to 32767.
TEST(A16w8Stream, AddWidenAndNarrowKernels) {
    splitmix64 g{83};
    const sf::stream_narrow_a16w8 narrows[] = {{16384, 15, 32767, 0}, {32767, 30, 1, 0}, {32767, 1, 32767, 0},
                                               {12345, 17, 700, 0},   {0, 5, 3, 0},      {1, 8, 20000, 0}};
    for (int n : {1, 3, 7, 15, 16, 17, 40, 65, 257})
        for (stream_fill f : stream_fills)
            for (stream_fill fa : {stream_fill::random, stream_fill::min_max, stream_fill::alternating}) {
                const std::vector<std::int16_t> x = stream_values(f, n, g), a = stream_values(fa, n, g);
                for (sf::stream_add_int8 p : stream_adds) {
                    p.a_zero_point = 0;
                    std::vector<std::int16_t> s1(x), s2(x), w1(x.size(), 1), w2(x.size(), 2);
                    ref16::add(s1.data(), a.data(), n, p);
                    vec16::add(s2.data(), a.data(), n, p);
                    ASSERT_EQ(s1, s2) << "add: n " << n << " fill " << int(f) << " shift " << p.shift;
                    ref16::widen(a.data(), n, p, w1.data());
                    vec16::widen(a.data(), n, p, w2.data());
                    ASSERT_EQ(w1, w2) << "widen: n " << n << " fill " << int(f) << " shift " << p.shift;
                }
                for (const auto& p : narrows) {
                    std::vector<std::int16_t> y1(x.size(), 1), y2(x.size(), 2);
                    ref16::narrow(x.data(), n, p, y1.data());
                    vec16::narrow(x.data(), n, p, y2.data());
                    ASSERT_EQ(y1, y2) << "narrow: n " << n << " fill " << int(f) << " shift " << p.shift;
                }
            }
}
#endif

}  // namespace
