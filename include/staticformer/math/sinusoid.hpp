// staticformer: the sinusoidal position table (normative), computed by the compiler:
//   PE(pos, 2i) = sin(pos / 10000^(2i / D)),  PE(pos, 2i + 1) = cos(pos / 10000^(2i / D))
// in double precision, then rounded once to float. Constant evaluation is exact IEEE double
// arithmetic on every compiler, so every target gets the same table, in .rodata.
#pragma once

#include <cstdint>

namespace staticformer {
namespace math {
namespace constexpr_double {

// exp(x) for |x| < 700: x = k ln 2 + r with |r| <= ln 2 / 2, a Taylor series for exp(r).
constexpr double exp(double x) {
    constexpr double ln2 = 0.6931471805599453094;
    const int k = int(x / ln2 + (x < 0 ? -0.5 : 0.5));
    const double r = x - k * ln2;
    double term = 1.0, sum = 1.0;
    for (int n = 1; n < 24; ++n) {
        term = term * r / n;
        sum = sum + term;
    }
    for (int i = 0; i < (k < 0 ? -k : k); ++i) sum = k < 0 ? sum / 2 : sum * 2;
    return sum;
}

// ln(x) for x >= 1: x = m 2^k with 1 <= m < 2, ln m = 2 atanh(z), z = (m - 1) / (m + 1) <= 1/3.
constexpr double log(double x) {
    constexpr double ln2 = 0.6931471805599453094;
    int k = 0;
    while (x >= 2.0) x = x / 2, ++k;
    const double z = (x - 1) / (x + 1), z2 = z * z;
    double term = z, sum = 0.0;
    for (int n = 0; n < 40; ++n) {
        sum = sum + term / (2 * n + 1);
        term = term * z2;
    }
    return k * ln2 + 2 * sum;
}

// sin and cos of |x| <= 1 by their Taylor series (terms below 2^-60 after 13 steps).
struct sin_cos {
    double sin, cos;
};
constexpr sin_cos sin_cos_small(double x) {
    double s = x, c = 1.0, term_s = x, term_c = 1.0;
    for (int n = 1; n < 14; ++n) {
        term_s = -term_s * x * x / ((2 * n) * (2 * n + 1));
        term_c = -term_c * x * x / ((2 * n - 1) * (2 * n));
        s = s + term_s;
        c = c + term_c;
    }
    return {s, c};
}

}  // namespace constexpr_double

template <int Rows, int D>
struct sinusoid_table {
    float v[Rows][D];
};

// Column pair (2i, 2i + 1) at frequency w = exp(-(2i / D) ln 10000) <= 1: row p + 1 from row p
// by the angle-addition formulas (the error grows by about 2^-53 per row: far below a float's).
template <int Rows, int D>
constexpr sinusoid_table<Rows, D> make_sinusoid_table() {
    constexpr double ln_10000 = 9.210340371976182736;
    sinusoid_table<Rows, D> t{};
    for (int i = 0; 2 * i < D; ++i) {
        const double w = constexpr_double::exp(-(2.0 * i / D) * ln_10000);
        const constexpr_double::sin_cos step = constexpr_double::sin_cos_small(w);
        double s = 0.0, c = 1.0;
        for (int p = 0; p < Rows; ++p) {
            t.v[p][2 * i] = float(s);
            if (2 * i + 1 < D) t.v[p][2 * i + 1] = float(c);
            const double next_s = s * step.cos + c * step.sin;
            c = c * step.cos - s * step.sin;
            s = next_s;
        }
    }
    return t;
}

template <int Rows, int D>
inline constexpr sinusoid_table<Rows, D> sinusoids = make_sinusoid_table<Rows, D>();

// int8 models: the same table at scale 1/127, round(127 PE) (ties away from zero).
template <int Rows, int D>
struct sinusoid_table_int8 {
    std::int8_t v[Rows][D];
};
template <int Rows, int D>
constexpr sinusoid_table_int8<Rows, D> make_sinusoid_table_int8() {
    sinusoid_table_int8<Rows, D> t{};
    for (int p = 0; p < Rows; ++p)
        for (int c = 0; c < D; ++c) {
            const double x = 127.0 * double(sinusoids<Rows, D>.v[p][c]);
            t.v[p][c] = static_cast<std::int8_t>(x < 0 ? -int(-x + 0.5) : int(x + 0.5));
        }
    return t;
}
template <int Rows, int D>
inline constexpr sinusoid_table_int8<Rows, D> sinusoids_int8 = make_sinusoid_table_int8<Rows, D>();

}  // namespace math
}  // namespace staticformer
