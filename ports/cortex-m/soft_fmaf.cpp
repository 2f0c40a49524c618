// staticformer Cortex-M port: a correctly rounded fmaf for cores without an FPU (Cortex-M3).
//
// The reference backend's multiply-add is std::fma(float): one rounding. Cores with an FPU run
// it as VFMA.F32. A soft-float build calls newlib's fmaf, which (newlib 3.3) returns
// (float)((double)x * y + z): the product is exact but the sum is rounded twice, so
// fmaf(0x1.000002p-24f, 0x1.fffffcp-1f, 0x1.000002p+0f) comes out one ulp high and an M3 would
// not reproduce the other targets' bytes. This definition takes fmaf's place at link time.
#if !defined(__ARM_FP)

#include <cstdint>
#include <cstring>

namespace {

float step_toward(float f, double target) {
    // The float next to f on target's side (f != target).
    std::uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    if (f == 0.0f) {
        b = (target > 0 ? 0u : 0x80000000u) | 1u;  // smallest subnormal
    } else if ((double(f) < target) == (f > 0.0f)) {
        b += 1;  // away from zero
    } else {
        b -= 1;  // toward zero (from infinity: the largest finite float)
    }
    float g;
    std::memcpy(&g, &b, sizeof g);
    return g;
}

}  // namespace

extern "C" float fmaf(float x, float y, float z) {
    const double xy = double(x) * double(y);  // exact: 24 + 24 significant bits fit in 53
    const double s = xy + double(z);          // rounded once, to double
    // Rounding s to float is right unless s lies exactly halfway between two floats (a double
    // can: it has 29 more bits); then the exact sum's side of that midpoint decides. For a
    // float-normal s the midpoint test is on its low 29 bits: the common case costs no more than
    // newlib's version.
    std::uint64_t b;
    std::memcpy(&b, &s, sizeof b);
    const std::uint32_t exponent = std::uint32_t(b >> 52) & 0x7FFu;
    if (exponent >= 1023 - 126 && exponent <= 1023 + 127 && (b & 0x1FFFFFFFu) != 0x10000000u) return float(s);
    if (!(s - s == 0.0)) return float(s);  // infinities and NaN: nothing to correct
    // TwoSum: s + err == xy + z exactly (no overflow is possible with float operands).
    const double t = s - xy;
    const double err = (xy - (s - t)) + (double(z) - t);
    const float f = float(s);
    if (err == 0.0 || double(f) == s) return f;
    // Midpoints in general (subnormal or overflowing results included): f and its neighbour g.
    const float g = step_toward(f, s);
    const double mid = f - f != 0.0f ? (f > 0 ? 0x1.ffffffp+127 : -0x1.ffffffp+127)  // f = inf
                                     : (double(f) + double(g)) * 0.5;                  // exact
    if (s != mid) return f;
    return (err > 0.0) == (g > f) ? g : f;
}

#endif
