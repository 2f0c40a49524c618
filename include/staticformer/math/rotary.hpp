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

// cos[p][i] and sin[p][i] of row p's pair i, as T.
template <int Rows, int Pairs, class T>
struct rotary_table {
    T cos[Rows][Pairs];
    T sin[Rows][Pairs];
};

// The angles' cos and sin in double, row p + 1 from row p by the angle-addition formulas (as the
// sinusoid table: an error of about 2^-53 per row), each stored as round(value).
template <class T, int Rows, int Pairs, int Theta, class Round>
constexpr rotary_table<Rows, Pairs, T> make_rotary_table(Round round) {
    rotary_table<Rows, Pairs, T> t{};
    const double ln_theta = constexpr_double::log(double(Theta));
    for (int i = 0; i < Pairs; ++i) {
        const double w = constexpr_double::exp(-(double(i) / Pairs) * ln_theta);
        const constexpr_double::sin_cos step = constexpr_double::sin_cos_small(w);
        double s = 0.0, c = 1.0;
        for (int p = 0; p < Rows; ++p) {
            t.cos[p][i] = round(c);
            t.sin[p][i] = round(s);
            const double next_s = s * step.cos + c * step.sin;
            c = c * step.cos - s * step.sin;
            s = next_s;
        }
    }
    return t;
}

// round(2^14 x), ties away from zero; |x| <= 1, so within int16.
constexpr std::int16_t q14(double x) {
    const double scaled = 16384.0 * x;
    return std::int16_t(scaled < 0 ? -int(-scaled + 0.5) : int(scaled + 0.5));
}
constexpr float to_float(double x) { return float(x); }

// Rows rows of Pairs = HeadDim / 2 pairs: float, and Q14 for int8 encoders.
template <int Rows, int Pairs, int Theta>
inline constexpr rotary_table<Rows, Pairs, float> rotary_angles =
    make_rotary_table<float, Rows, Pairs, Theta>(to_float);
template <int Rows, int Pairs, int Theta>
inline constexpr rotary_table<Rows, Pairs, std::int16_t> rotary_angles_q14 =
    make_rotary_table<std::int16_t, Rows, Pairs, Theta>(q14);

}  // namespace math
}  // namespace staticformer
