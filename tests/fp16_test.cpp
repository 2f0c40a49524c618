// binary16 <-> binary32 conversion.
//
// Fp16.*          the software conversion (math/fp16.hpp), the definition, against values worked
//                 out from IEEE 754 by hand and against an independent model of round-to-nearest-
//                 even written with double arithmetic;
// Fp16Hardware.*  the hardware conversions against the software one, where this build has them:
//                 F16C (x86-64-v3), AVX-512 (x86-64-v4), NEON and scalar FP on AArch64 and
//                 ARMv7, and simd::widen, the one the simd backend uses. half -> float over all
//                 65536 inputs; float -> half over every half, every midpoint between two
//                 neighbouring halves (the ties) and their neighbouring floats, subnormals,
//                 infinities, NaNs and a sweep of float bit patterns.
#include <gtest/gtest.h>

#include <staticformer/staticformer.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__F16C__) || defined(__AVX512F__)
#include <immintrin.h>
#endif
#if defined(__ARM_NEON) && (defined(__aarch64__) || defined(__ARM_FP16_FORMAT_IEEE))
#include <arm_neon.h>
#define SFTEST_NEON_FP16 1
#endif

namespace {

namespace sf = staticformer;
using sf::math::float_bits_to_half_bits;
using sf::math::half_bits_to_float_bits;

#ifndef SFTEST_SWEEP_STEP
#define SFTEST_SWEEP_STEP 97
#endif

// ---- the definition, checked at compile time too -----------------------------------------------

static_assert(half_bits_to_float_bits(0x3c00) == 0x3f800000u, "1");
static_assert(half_bits_to_float_bits(0x7bff) == 0x477fe000u, "65504");
static_assert(half_bits_to_float_bits(0x0001) == 0x33800000u, "2^-24");
static_assert(float_bits_to_half_bits(0x3f801000u) == 0x3c00, "1 + 2^-11 ties to even");
static_assert(float_bits_to_half_bits(0x477ff000u) == 0x7c00, "65520 overflows");

struct half_case {
    std::uint16_t half;
    std::uint32_t float_bits;
    const char* what;
};

// Worked out from the formats: binary16 value = (-1)^s * 2^(e-15) * 1.f  (e in 1..30),
// (-1)^s * 2^-14 * 0.f (e = 0); binary32 likewise with bias 127 and 23 fraction bits.
constexpr half_case half_to_float_cases[] = {
    {0x0000, 0x00000000u, "+0"},
    {0x8000, 0x80000000u, "-0"},
    {0x0001, 0x33800000u, "2^-24, the smallest subnormal"},
    {0x8001, 0xb3800000u, "-2^-24"},
    {0x0002, 0x34000000u, "2^-23"},
    {0x0003, 0x34400000u, "3 * 2^-24"},
    {0x0155, 0x37aa8000u, "341 * 2^-24 = 1.33203125 * 2^-16"},
    {0x03ff, 0x387fc000u, "1023 * 2^-24, the largest subnormal"},
    {0x0400, 0x38800000u, "2^-14, the smallest normal"},
    {0x3555, 0x3eaaa000u, "0.333251953125"},
    {0x3bff, 0x3f7fe000u, "1 - 2^-11"},
    {0x3c00, 0x3f800000u, "1"},
    {0x3c01, 0x3f802000u, "1 + 2^-10"},
    {0x4000, 0x40000000u, "2"},
    {0xc000, 0xc0000000u, "-2"},
    {0x7800, 0x47000000u, "32768"},
    {0x7bff, 0x477fe000u, "65504, the largest half"},
    {0xfbff, 0xc77fe000u, "-65504"},
    {0x7c00, 0x7f800000u, "+infinity"},
    {0xfc00, 0xff800000u, "-infinity"},
    {0x7e00, 0x7fc00000u, "quiet NaN"},
    {0xfe00, 0xffc00000u, "negative quiet NaN"},
    {0x7e01, 0x7fc02000u, "quiet NaN, payload 1"},
    {0x7c01, 0x7fc02000u, "signalling NaN: made quiet, payload kept"},
    {0x7d00, 0x7fe00000u, "signalling NaN, payload 0x100"},
    {0x7fff, 0x7fffe000u, "quiet NaN, full payload"},
};

TEST(Fp16, HalfToFloatKnownValues) {
    for (const half_case& c : half_to_float_cases) {
        EXPECT_EQ(half_bits_to_float_bits(c.half), c.float_bits) << std::hex << "0x" << c.half << ": " << c.what;
        const float f = sf::math::half_to_float(c.half);
        std::uint32_t bits;
        std::memcpy(&bits, &f, 4);
        EXPECT_EQ(bits, c.float_bits) << c.what;
    }
}

constexpr half_case float_to_half_cases[] = {
    {0x0000, 0x00000000u, "+0"},
    {0x8000, 0x80000000u, "-0"},
    {0x3c00, 0x3f800000u, "1"},
    {0x7bff, 0x477fe000u, "65504, the largest half"},
    {0x7bff, 0x477fefffu, "65520 - 2^-8: below the midpoint to 2^16, rounds down"},
    {0x7c00, 0x477ff000u, "65520: the midpoint, ties to even 2^16, overflows to infinity"},
    {0xfc00, 0xc77ff000u, "-65520: -infinity"},
    {0x7c00, 0x47800000u, "65536"},
    {0x7c00, 0x501502f9u, "1e10"},
    {0x7c00, 0x7f7fffffu, "FLT_MAX"},
    {0xfc00, 0xff7fffffu, "-FLT_MAX"},
    {0x7800, 0x47000000u, "32768"},
    {0x3c00, 0x3f801000u, "1 + 2^-11: tie between 0x3c00 and 0x3c01, to even"},
    {0x3c01, 0x3f801001u, "1 + 2^-11 + 2^-23: just above the tie"},
    {0x3c00, 0x3f800fffu, "1 + 2^-11 - 2^-23: just below the tie"},
    {0x3c02, 0x3f803000u, "1 + 3 * 2^-11: tie between 0x3c01 and 0x3c02, to even"},
    {0x3c01, 0x3f802000u, "1 + 2^-10: exact"},
    {0x3c00, 0x3f7ff000u, "1 - 2^-12: tie between 0x3bff and 0x3c00, to even"},
    {0x3555, 0x3eaaaaabu, "1/3"},
    {0x2e66, 0x3dcccccdu, "0.1"},
    {0xae66, 0xbdcccccdu, "-0.1"},
    {0x0400, 0x38800000u, "2^-14, the smallest normal"},
    {0x0400, 0x387fe000u, "2^-14 - 2^-25: tie between 0x03ff and 0x0400, to even"},
    {0x03ff, 0x387fdfffu, "just below that tie"},
    {0x03ff, 0x387fc000u, "1023 * 2^-24, the largest subnormal"},
    {0x0001, 0x33800000u, "2^-24, the smallest subnormal"},
    {0x0000, 0x33000000u, "2^-25: tie between 0 and 2^-24, to even 0"},
    {0x8000, 0xb3000000u, "-2^-25: -0"},
    {0x0001, 0x33000001u, "2^-25 + 2^-48: above the tie"},
    {0x0002, 0x33c00000u, "3 * 2^-25: tie between 1 and 2 units, to even"},
    {0x0002, 0x34200000u, "5 * 2^-25: tie between 2 and 3 units, to even"},
    {0x0000, 0x32ffffffu, "just below 2^-25"},
    {0x0000, 0x00800000u, "FLT_MIN"},
    {0x0000, 0x00000001u, "the smallest float subnormal"},
    {0x8000, 0x80000001u, "the smallest negative float subnormal"},
    {0x7c00, 0x7f800000u, "+infinity"},
    {0xfc00, 0xff800000u, "-infinity"},
    {0x7e00, 0x7fc00000u, "quiet NaN"},
    {0xfe00, 0xffc00000u, "negative quiet NaN"},
    {0x7e89, 0x7fd12345u, "quiet NaN: the top 10 payload bits stay"},
    {0x7e00, 0x7f800001u, "signalling NaN, payload below the kept bits: quiet NaN, not infinity"},
    {0x7f00, 0x7fa00000u, "signalling NaN, payload bit 21: made quiet, bit kept"},
    {0x7fff, 0x7fffffffu, "NaN, every payload bit"},
};

TEST(Fp16, FloatToHalfKnownValues) {
    for (const half_case& c : float_to_half_cases) {
        EXPECT_EQ(float_bits_to_half_bits(c.float_bits), c.half) << std::hex << "0x" << c.float_bits << ": " << c.what;
        float f;
        std::memcpy(&f, &c.float_bits, 4);
        EXPECT_EQ(sf::math::float_to_half(f), c.half) << c.what;
    }
}

TEST(Fp16, Widen) {
    EXPECT_EQ(sf::math::widen(0.1f), 0.1f);
    EXPECT_EQ(sf::math::widen(std::uint16_t(0x3c00)), 1.0f);
    EXPECT_EQ(sf::math::widen(std::uint16_t(0xc000)), -2.0f);
}

// ---- an independent model of the definition -----------------------------------------------------

// The value of a non-NaN half, computed in double from the format's formula (exact). 0x7c00
// gives 2^16: the value the next binade would start at, which is where rounding overflows to
// infinity.
double half_value(std::uint32_t h) {
    const int e = int(h >> 10) & 0x1f, f = int(h & 0x3ff);
    const double magnitude = e == 0 ? std::ldexp(double(f), -24) : std::ldexp(double(1024 + f), e - 25);
    return h & 0x8000 ? -magnitude : magnitude;
}

// Round to nearest, ties to even, by comparing distances to the two halves around |x|.
std::uint16_t nearest_half(float x) {
    const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const double a = std::fabs(double(x));
    if (a >= 65536.0) return sign | 0x7c00;
    std::uint32_t lo = 0, hi = 0x7c00;  // half_value(lo) <= a < half_value(hi)
    while (hi - lo > 1) {
        const std::uint32_t mid = (lo + hi) / 2;
        (half_value(mid) <= a ? lo : hi) = mid;
    }
    const double below = a - half_value(lo), above = half_value(hi) - a;  // exact in double
    const std::uint32_t h = below < above ? lo : above < below ? hi : (lo % 2 == 0 ? lo : hi);
    return std::uint16_t(sign | h);
}

std::uint32_t bits_of(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
float float_of(std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

TEST(Fp16, HalfToFloatAllValuesMatchTheFormula) {
    for (std::uint32_t h = 0; h < 0x10000; ++h) {
        const float f = sf::math::half_to_float(std::uint16_t(h));
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0) {
            ASSERT_TRUE(std::isnan(f)) << std::hex << h;
            ASSERT_EQ(bits_of(f), ((h & 0x8000u) << 16) | 0x7fc00000u | ((h & 0x3ffu) << 13)) << std::hex << h;
        } else if ((h & 0x7fff) == 0x7c00) {
            ASSERT_EQ(f, h & 0x8000 ? -INFINITY : INFINITY);
        } else {
            ASSERT_EQ(double(f), half_value(h)) << std::hex << h;
            ASSERT_EQ(std::signbit(f), (h & 0x8000) != 0) << std::hex << h;
        }
    }
}

// Every half (both signs), every midpoint between neighbours and the floats next to each, NaNs,
// infinities, float subnormals, and every `step`-th float bit pattern.
std::vector<std::uint32_t> float_sweep(std::uint32_t step) {
    std::vector<std::uint32_t> v;
    for (std::uint32_t h = 0; h < 0x7c00; ++h) {
        const float value = float(half_value(h));
        const float midpoint = float((half_value(h) + half_value(h + 1)) / 2);  // 12 bits: exact
        for (std::uint32_t sign : {0u, 0x80000000u}) {
            v.push_back(bits_of(value) | sign);
            for (int d = -2; d <= 2; ++d) v.push_back((bits_of(midpoint) + std::uint32_t(d)) | sign);
        }
    }
    for (std::uint32_t special : {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u,
                                  0x7fbfffffu, 0x7fa00000u, 0x7fd12345u, 0x7fffffffu, 0xffffffffu, 0x7f802000u,
                                  0x7f801fffu, 0x00000001u, 0x80000001u, 0x007fffffu, 0x00800000u, 0x7f7fffffu})
        v.push_back(special);
    for (std::uint64_t u = 0; u <= 0xffffffffu; u += step) v.push_back(std::uint32_t(u));
    while (v.size() % 16 != 0) v.push_back(0x3f800000u);  // whole vectors of any width
    return v;
}

const std::vector<std::uint32_t>& sweep() {
    static const std::vector<std::uint32_t> v = float_sweep(SFTEST_SWEEP_STEP * 3);
    return v;
}

TEST(Fp16, FloatToHalfIsRoundToNearestEven) {
    std::size_t checked = 0;
    for (std::uint32_t u : sweep()) {
        const float x = float_of(u);
        const std::uint16_t got = float_bits_to_half_bits(u);
        if (std::isnan(x)) {  // quiet, sign and top payload bits kept
            ASSERT_EQ(got, ((u >> 16) & 0x8000u) | 0x7e00u | ((u >> 13) & 0x3ffu)) << std::hex << u;
            continue;
        }
        ASSERT_EQ(got, nearest_half(x)) << std::hex << "float bits 0x" << u << " (" << x << ")";
        ++checked;
    }
    std::printf("float -> half: %zu floats equal the nearest-even model\n", checked);
}

TEST(Fp16, RoundTripOfEveryHalf) {
    for (std::uint32_t h = 0; h < 0x10000; ++h) {
        const bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
        const std::uint16_t back = sf::math::float_to_half(sf::math::half_to_float(std::uint16_t(h)));
        ASSERT_EQ(back, nan ? (h | 0x200) : h) << std::hex << h;
    }
}

TEST(Fp16, ConvertWeightsRoundsEveryMember) {
    using cfg = sf::encoder_config<8, 2, 12, 3, 2, sf::final_norm>;
    static sf::encoder_weights<cfg, sf::f32> w32, back;
    static sf::encoder_weights<cfg, sf::f16> w16;
    // Every parameter a distinct value, rounded differently to binary16.
    float* p = &w32.layer[0].qkv_w[0][0];
    const std::size_t n = sizeof(w32) / sizeof(float);
    static_assert(sizeof(w32) == sf::encoder_weights<cfg, sf::f32>::parameter_count * sizeof(float), "no padding");
    for (std::size_t i = 0; i < n; ++i) p[i] = 1.0f + float(i) * 0x1p-13f;
    sf::convert_weights(w32, w16);
    const std::uint16_t* h = &w16.layer[0].qkv_w[0][0];
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(h[i], sf::math::float_to_half(p[i])) << i;
    sf::convert_weights(w16, back);
    const float* q = &back.layer[0].qkv_w[0][0];
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(q[i], sf::math::half_to_float(h[i])) << i;
}

// ---- hardware conversions ------------------------------------------------------------------------

// How a conversion treats NaNs: as the software definition (quiet, sign and payload kept), or
// in "default NaN" mode, where every NaN becomes the positive quiet NaN without payload.
enum class nans { propagated, default_nan };

constexpr bool is_half_nan(std::uint32_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }
constexpr bool is_float_nan(std::uint32_t f) { return (f & 0x7f800000u) == 0x7f800000u && (f & 0x7fffffu) != 0; }

// Runs `convert` (Lanes inputs -> Lanes outputs) over all 65536 halves and compares each output
// with the software conversion.
template <int Lanes, class Convert>
void check_half_to_float(const char* what, Convert convert, nans mode = nans::propagated) {
    alignas(64) std::uint16_t in[Lanes];
    alignas(64) std::uint32_t out[Lanes];
    for (std::uint32_t h0 = 0; h0 < 0x10000; h0 += Lanes) {
        for (int i = 0; i < Lanes; ++i) in[i] = std::uint16_t(h0 + std::uint32_t(i));
        convert(in, out);
        for (int i = 0; i < Lanes; ++i) {
            const bool default_nan = mode == nans::default_nan && is_half_nan(in[i]);
            ASSERT_EQ(out[i], default_nan ? 0x7fc00000u : half_bits_to_float_bits(in[i]))
                << what << std::hex << ": half 0x" << in[i];
        }
    }
    std::printf("%-28s half -> float: all 65536 values equal the software conversion%s\n", what,
                mode == nans::default_nan ? " (NaNs: the default NaN)" : "");
}

template <int Lanes, class Convert>
void check_float_to_half(const char* what, Convert convert, nans mode = nans::propagated) {
    const std::vector<std::uint32_t>& v = sweep();
    alignas(64) std::uint16_t out[Lanes];
    for (std::size_t i = 0; i < v.size(); i += Lanes) {
        convert(v.data() + i, out);
        for (int k = 0; k < Lanes; ++k) {
            const bool default_nan = mode == nans::default_nan && is_float_nan(v[i + k]);
            ASSERT_EQ(out[k], default_nan ? 0x7e00u : float_bits_to_half_bits(v[i + k]))
                << what << std::hex << ": float bits 0x" << v[i + k];
        }
    }
    std::printf("%-28s float -> half: %zu floats equal the software conversion%s\n", what, v.size(),
                mode == nans::default_nan ? " (NaNs: the default NaN)" : "");
}

// math::widen_n, the fma tiles' row of weights (VCVTB / VCVTT pairs on Cortex-M: the firmware
// suite checks that one), at an even and an odd count.
TEST(Fp16Hardware, WidenNIsTheSoftwareConversion) {
    const auto widen_n = [](auto lanes, const std::uint16_t* in, std::uint32_t* out) {
        float f[decltype(lanes)::value];
        sf::math::widen_n(in, f);
        std::memcpy(out, f, sizeof f);
    };
    check_half_to_float<4>("math::widen_n<4>", [&](const std::uint16_t* in, std::uint32_t* out) {
        widen_n(std::integral_constant<int, 4>(), in, out);
    });
    check_half_to_float<2>("math::widen_n<2>", [&](const std::uint16_t* in, std::uint32_t* out) {
        widen_n(std::integral_constant<int, 2>(), in, out);
    });
    check_half_to_float<1>("math::widen_n<1>", [&](const std::uint16_t* in, std::uint32_t* out) {
        widen_n(std::integral_constant<int, 1>(), in, out);
    });
}

#if STATICFORMER_HAS_SIMD
TEST(Fp16Hardware, SimdWidenIsTheSoftwareConversion) {
    namespace simd = sf::kernels::simd;
#ifdef STATICFORMER_SIMD_FP16_HARDWARE
    const char* how = STATICFORMER_SIMD_FP16_HARDWARE;
#else
    const char* how = "software, lane by lane";
#endif
    check_half_to_float<simd::width>("simd::widen", [](const std::uint16_t* in, std::uint32_t* out) {
        alignas(64) float f[simd::width];
        simd::widen(in).store_aligned(f);
        std::memcpy(out, f, sizeof f);
    });
    std::printf("simd::widen uses: %s\n", how);
}
#endif

#if defined(__F16C__)
TEST(Fp16Hardware, F16C) {
    check_half_to_float<4>("F16C _mm_cvtph_ps", [](const std::uint16_t* in, std::uint32_t* out) {
        const __m128 f = _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_castps_si128(f));
    });
    check_half_to_float<8>("F16C _mm256_cvtph_ps", [](const std::uint16_t* in, std::uint32_t* out) {
        const __m256 f = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in)));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_castps_si256(f));
    });
    check_half_to_float<1>("F16C _cvtsh_ss", [](const std::uint16_t* in, std::uint32_t* out) {
        const float f = _cvtsh_ss(in[0]);
        std::memcpy(out, &f, 4);
    });
    check_float_to_half<4>("F16C _mm_cvtps_ph", [](const std::uint32_t* in, std::uint16_t* out) {
        const __m128 f = _mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in)));
        _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    });
    check_float_to_half<8>("F16C _mm256_cvtps_ph", [](const std::uint32_t* in, std::uint16_t* out) {
        const __m256 f = _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in)));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    });
}
#endif

#if defined(__AVX512F__)
TEST(Fp16Hardware, Avx512) {
    check_half_to_float<16>("AVX-512 _mm512_maskz_cvtph_ps", [](const std::uint16_t* in, std::uint32_t* out) {
        // (The zero-masking forms with every lane selected: GCC 12 warns about the plain ones'
        // _mm512_undefined_*.)
        const __m512 f = _mm512_maskz_cvtph_ps(__mmask16(0xffff), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in)));
        _mm512_storeu_si512(out, _mm512_castps_si512(f));
    });
    check_float_to_half<16>("AVX-512 _mm512_maskz_cvtps_ph", [](const std::uint32_t* in, std::uint16_t* out) {
        const __m512 f = _mm512_castsi512_ps(_mm512_loadu_si512(in));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                            _mm512_maskz_cvtps_ph(__mmask16(0xffff), f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    });
}
#endif

#if defined(SFTEST_NEON_FP16)
// AArch64 NEON follows FPCR (default NaN off on Linux): the same bits for every input. ARMv7
// Advanced SIMD always runs with the "standard FPSCR value", default NaN on: every NaN comes
// out as 0x7fc00000 / 0x7e00 (measured here: half 0x7c01 gives 0x7fc00000, float 0xffc00000
// gives 0x7e00). Every other input, subnormals included, converts as the software definition.
// (ARMv7 has no simd backend; weights are never NaN, the exporter refuses them.)
TEST(Fp16Hardware, Neon) {
#if defined(__aarch64__)
    constexpr nans mode = nans::propagated;
#else
    constexpr nans mode = nans::default_nan;
#endif
    check_half_to_float<4>("NEON vcvt_f32_f16", [](const std::uint16_t* in, std::uint32_t* out) {
        vst1q_u32(out, vreinterpretq_u32_f32(vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(in)))));
    }, mode);
    check_float_to_half<4>("NEON vcvt_f16_f32", [](const std::uint32_t* in, std::uint16_t* out) {
        vst1_u16(out, vreinterpret_u16_f16(vcvt_f16_f32(vreinterpretq_f32_u32(vld1q_u32(in)))));
    }, mode);
}
#endif

#if defined(__ARM_FP16_FORMAT_IEEE)
// The scalar FP unit's conversions (AArch64 FCVT, ARMv7 VFP VCVTB), through __fp16.
TEST(Fp16Hardware, ScalarFp16Type) {
    check_half_to_float<1>("__fp16 -> float", [](const std::uint16_t* in, std::uint32_t* out) {
        __fp16 h;
        std::memcpy(&h, in, 2);
        const volatile float f = h;
        const float g = f;
        std::memcpy(out, &g, 4);
    });
    check_float_to_half<1>("float -> __fp16", [](const std::uint32_t* in, std::uint16_t* out) {
        float f;
        std::memcpy(&f, in, 4);
        const volatile __fp16 h = __fp16(f);
        const __fp16 g = h;
        std::memcpy(out, &g, 2);
    });
}
#endif

TEST(Fp16Hardware, WhatThisBuildChecks) {
    std::printf("hardware conversions in this build:%s%s%s%s%s\n",
#if STATICFORMER_HAS_SIMD
                " simd::widen",
#else
                "",
#endif
#if defined(__F16C__)
                " F16C",
#else
                "",
#endif
#if defined(__AVX512F__)
                " AVX-512",
#else
                "",
#endif
#if defined(SFTEST_NEON_FP16)
                " NEON",
#else
                "",
#endif
#if defined(__ARM_FP16_FORMAT_IEEE)
                " __fp16"
#else
                ""
#endif
    );
}

}  // namespace
