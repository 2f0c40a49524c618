// staticformer: the one set of exp / erf / GELU approximations (normative).
//
// Each function is written once over an operation set Ops (math::scalar_ops for float,
// simd ops for xsimd batches), so scalar and vector code perform the same IEEE operations in
// the same order and give the same bits. No std::exp/erf/tanh: libm differs between targets.
//
// Division is Ops::div (some SIMD libraries divide approximately).
// Contraction rule: every multiply-add is an explicit Ops::fma. A plain product never feeds an
// addition unless it is exact (a multiplication by a power of two), so a compiler contracting
// a*b+c into an FMA (-ffp-contract=fast, GCC's default in GNU mode) cannot change a result.
#pragma once

namespace staticformer {
namespace math {

// e^x for x <= 88, relative error about 2 ulp. Inputs below -87 return e^-87 (~1.6e-38): never a
// subnormal, since some targets (armv7 NEON) flush those to zero.
template <class Ops, class T>
inline T exp(T x) noexcept {
    const T log2e(1.44269504088896341f);
    const T ln2_hi(0.693359375f);       // ln 2 split so that n * ln2_hi is exact for |n| <= 127
    const T ln2_lo(-2.12194440e-4f);
    const T round_magic(12582912.0f);   // 1.5 * 2^23: adding it rounds to an integer
    x = Ops::min(Ops::max(x, T(-87.0f)), T(88.0f));
    const T n = Ops::fma(x, log2e, round_magic) - round_magic;  // round(x / ln 2)
    T r = Ops::fma(n, -ln2_hi, x);
    r = Ops::fma(n, -ln2_lo, r);                              // r in [-0.35, 0.35]
    // Taylor series of e^r to degree 7, Horner form.
    T p(1.0f / 5040.0f);
    p = Ops::fma(p, r, T(1.0f / 720.0f));
    p = Ops::fma(p, r, T(1.0f / 120.0f));
    p = Ops::fma(p, r, T(1.0f / 24.0f));
    p = Ops::fma(p, r, T(1.0f / 6.0f));
    p = Ops::fma(p, r, T(0.5f));
    p = Ops::fma(p, r, T(1.0f));
    p = Ops::fma(p, r, T(1.0f));
    return p * Ops::pow2i(n);  // exact: a power-of-two scaling of a normal number
}

// Phi(x) = (1 + erf(x / sqrt 2)) / 2, the standard normal CDF, through erfc(z) for z = |x|/sqrt 2
// (Abramowitz & Stegun 7.1.26, |error| <= 1.5e-7), so the lower tail keeps its relative accuracy.
template <class Ops, class T>
inline T normal_cdf(T x) noexcept {
    // Beyond z = 9 (|x| > 12.7) Phi is 0 or 1 to float precision; clamping keeps every
    // intermediate a normal number.
    const T z_full = Ops::abs(x) * T(0.70710678118654752f);
    const T z = Ops::min(z_full, T(9.0f));
    const T t = Ops::div(T(1.0f), Ops::fma(T(0.3275911f), z, T(1.0f)));
    T p(1.061405429f);
    p = Ops::fma(p, t, T(-1.453152027f));
    p = Ops::fma(p, t, T(1.421413741f));
    p = Ops::fma(p, t, T(-0.284496736f));
    p = Ops::fma(p, t, T(0.254829592f));
    const T erfc = (t * p) * exp<Ops>(-(z * z));
    const T upper = Ops::fma(T(-0.5f), erfc, T(1.0f));  // x >= 0: 1 - erfc/2
    const T lower = Ops::select(z_full < T(9.0f), T(0.5f) * erfc, T(0.0f));  // x < 0: erfc/2
    return Ops::select(x < T(0.0f), lower, upper);
}

template <class Ops, class T>
inline T relu(T x) noexcept {
    return Ops::max(x, T(0.0f));
}

// GELU(x) = x * Phi(x), the exact form (torch's approximate='none').
template <class Ops, class T>
inline T gelu(T x) noexcept {
    return x * normal_cdf<Ops>(x);
}

// torch's approximate='tanh': x/2 (1 + tanh(y)) with y = sqrt(2/pi)(x + 0.044715 x^3),
// computed as x / (1 + e^(-2y)), the same function without a tanh.
template <class Ops, class T>
inline T gelu_tanh(T x) noexcept {
    const T x2 = x * x;
    const T inner = Ops::fma(T(0.044715f) * x2, x, x);    // x + 0.044715 x^3
    const T minus_2y = inner * T(-1.5957691216057308f);   // -2 sqrt(2/pi)
    return Ops::div(x, T(1.0f) + exp<Ops>(minus_2y));
}

// SiLU(x) = x * sigmoid(x) (torch's F.silu), computed as x / (1 + e^-x). Below x = -88 the
// exponential clamps at e^88 (exp above): the result x / (1 + e^88) is then within 6e-39 |x|
// of the true value, which is nearly 0.
template <class Ops, class T>
inline T silu(T x) noexcept {
    return Ops::div(x, T(1.0f) + exp<Ops>(-x));
}

}  // namespace math
}  // namespace staticformer
