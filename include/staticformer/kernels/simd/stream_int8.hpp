// staticformer: the int16 stream's steps on vector lanes (optimised; bit-identical to
// reference/stream_int8.hpp): the products in 32-bit lanes, each rescale by round_shift. int8
// branches and block inputs, and a16w8's int16 ones.
#pragma once

#include "../isa/int8.hpp"
#include "../reference/stream_int8.hpp"

namespace staticformer {
namespace kernels {
namespace simd_int8 {

#if defined(STATICFORMER_INT8_X86) || defined(STATICFORMER_INT8_ARM)

// stream += a: the rescale of (a - a_zero_point) m (round_shift), the sum clamped to int16.
template <class V = lanes>
inline void add(std::int16_t* x, const std::int8_t* a, int n, const stream_add_int8& p) noexcept {
    const typename V::shift_params k(p.shift);
    const auto az = V::set1(p.a_zero_point), m = V::set1(p.multiplier);
    const auto low = V::set1(-32768), high = V::set1(32767);
    const int done = each_block<V>(n, [&](int i, typename V::mask mask) {
        const auto branch = V::round_shift(V::mullo(V::sub(V::load_i8(a + i, mask), az), m), k);
        V::store_i16(x + i, V::min(V::max(V::add(V::load_i16(x + i, mask), branch), low), high), mask);
    });
    if (done < n) reference::add(x + done, a + done, n - done, p);
}

// An int8 tensor widened into the stream: the add's branch alone, clamped.
template <class V = lanes>
inline void widen(const std::int8_t* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
    const typename V::shift_params k(p.shift);
    const auto az = V::set1(p.a_zero_point), m = V::set1(p.multiplier);
    const auto low = V::set1(-32768), high = V::set1(32767);
    const int done = each_block<V>(n, [&](int i, typename V::mask mask) {
        const auto v = V::round_shift(V::mullo(V::sub(V::load_i8(a + i, mask), az), m), k);
        V::store_i16(y + i, V::min(V::max(v, low), high), mask);
    });
    if (done < n) reference::widen(a + done, n - done, p, y + done);
}

// int8 from the stream: x m, its rescale (round_shift), the zero point, saturated.
template <class V = lanes>
inline void narrow(const std::int16_t* x, int n, const stream_narrow_int8& p, std::int8_t* y) noexcept {
    const typename V::shift_params k(p.shift);
    const auto m = V::set1(p.multiplier), zero_point = V::set1(p.zero_point);
    const int done = each_block<V>(n, [&](int i, typename V::mask mask) {
        V::store_i8(y + i, V::add(V::round_shift(V::mullo(V::load_i16(x + i, mask), m), k), zero_point), mask);
    });
    if (done < n) reference::narrow(x + done, n - done, p, y + done);
}

// a16w8: stream += a for an int16 branch (a_zero_point 0: |a m| < 2^30, 32-bit lanes).
template <class V = lanes>
inline void add(std::int16_t* x, const std::int16_t* a, int n, const stream_add_int8& p) noexcept {
    const typename V::shift_params k(p.shift);
    const auto m = V::set1(p.multiplier), low = V::set1(-32768), high = V::set1(32767);
    const int done = each_block<V>(n, [&](int i, typename V::mask mask) {
        const auto branch = V::round_shift(V::mullo(V::load_i16(a + i, mask), m), k);
        V::store_i16(x + i, V::min(V::max(V::add(V::load_i16(x + i, mask), branch), low), high), mask);
    });
    if (done < n) reference::add(x + done, a + done, n - done, p);
}

// a16w8: an int16 tensor widened into the stream.
template <class V = lanes>
inline void widen(const std::int16_t* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
    const typename V::shift_params k(p.shift);
    const auto m = V::set1(p.multiplier), low = V::set1(-32768), high = V::set1(32767);
    const int done = each_block<V>(n, [&](int i, typename V::mask mask) {
        V::store_i16(y + i, V::min(V::max(V::round_shift(V::mullo(V::load_i16(a + i, mask), m), k), low), high), mask);
    });
    if (done < n) reference::widen(a + done, n - done, p, y + done);
}

// a16w8: a block's int16 input from the stream, clamped to its limit.
template <class V = lanes>
inline void narrow(const std::int16_t* x, int n, const stream_narrow_a16w8& p, std::int16_t* y) noexcept {
    const typename V::shift_params k(p.shift);
    const auto m = V::set1(p.multiplier), low = V::set1(-p.output_limit), high = V::set1(p.output_limit);
    const int done = each_block<V>(n, [&](int i, typename V::mask mask) {
        V::store_i16(y + i, V::min(V::max(V::round_shift(V::mullo(V::load_i16(x + i, mask), m), k), low), high), mask);
    });
    if (done < n) reference::narrow(x + done, n - done, p, y + done);
}

#else

using reference::add;  // no vector lanes on this target
using reference::narrow;
using reference::widen;

#endif

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
