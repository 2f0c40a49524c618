// staticformer: the rotary position tables (normative), computed by the compiler as the
// sinusoid table is (sinusoid.hpp): for row pos and pair i < HeadDim / 2,
//   angle = pos * w_i,  w_i = Theta^(-2i / HeadDim) = exp(-(2i / HeadDim) ln Theta) <= 1,
// cos and sin in double precision, then rounded once: to float (float encoders) and to Q14
// int16, round(2^14 x) (int8 encoders). Every target gets the same tables, in .rodata.
#pragma once

#include <cstdint>

#include "sinusoid.hpp"

namespace staticformer {
namespace math {
namespace constexpr_double {

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

}  // namespace constexpr_double

template <int Rows, int Pairs>
struct rotary_table {
    float cos[Rows][Pairs];
    float sin[Rows][Pairs];
};
template <int Rows, int Pairs>
struct rotary_table_q14 {
    std::int16_t cos[Rows][Pairs];
    std::int16_t sin[Rows][Pairs];
};

// The angles' cos and sin in double, row p + 1 from row p by the angle-addition formulas (as the
// sinusoid table: an error of about 2^-53 per row). f(p, i, cos, sin) stores one entry.
template <int Rows, int Pairs, int Theta, class Store>
constexpr void each_rotary_angle(Store store) {
    const double ln_theta = constexpr_double::log(double(Theta));
    for (int i = 0; i < Pairs; ++i) {
        const double w = constexpr_double::exp(-(double(i) / Pairs) * ln_theta);
        const constexpr_double::sin_cos step = constexpr_double::sin_cos_small(w);
        double s = 0.0, c = 1.0;
        for (int p = 0; p < Rows; ++p) {
            store(p, i, c, s);
            const double next_s = s * step.cos + c * step.sin;
            c = c * step.cos - s * step.sin;
            s = next_s;
        }
    }
}

template <int Rows, int Pairs, int Theta>
constexpr rotary_table<Rows, Pairs> make_rotary_table() {
    rotary_table<Rows, Pairs> t{};
    each_rotary_angle<Rows, Pairs, Theta>([&t](int p, int i, double c, double s) {
        t.cos[p][i] = float(c);
        t.sin[p][i] = float(s);
    });
    return t;
}

// round(2^14 x), ties away from zero; |x| <= 1, so within int16.
constexpr std::int16_t q14(double x) {
    const double scaled = 16384.0 * x;
    return std::int16_t(scaled < 0 ? -int(-scaled + 0.5) : int(scaled + 0.5));
}

template <int Rows, int Pairs, int Theta>
constexpr rotary_table_q14<Rows, Pairs> make_rotary_table_q14() {
    rotary_table_q14<Rows, Pairs> t{};
    each_rotary_angle<Rows, Pairs, Theta>([&t](int p, int i, double c, double s) {
        t.cos[p][i] = q14(c);
        t.sin[p][i] = q14(s);
    });
    return t;
}

// Rows rows of HeadDim / 2 pairs (Pairs = HeadDim / 2).
template <int Rows, int Pairs, int Theta>
inline constexpr rotary_table<Rows, Pairs> rotary_angles = make_rotary_table<Rows, Pairs, Theta>();
template <int Rows, int Pairs, int Theta>
inline constexpr rotary_table_q14<Rows, Pairs> rotary_angles_q14 = make_rotary_table_q14<Rows, Pairs, Theta>();

}  // namespace math
}  // namespace staticformer
