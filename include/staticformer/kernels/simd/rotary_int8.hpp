// staticformer: int8 rotary positions on vector lanes (optimised; bit-identical to
// reference/rotary_int8.hpp). Rotate-halves pairs (i, i + HeadDim / 2), a vector of i at a time
// in 32-bit lanes: a C - b S and b C + a S, plus 2^13, shifted right by 14 and stored saturated:
// the reference's turn(). Interleaved pairs (2i, 2i + 1) go through a copy in halves; heads of
// fewer pairs than a vector's lanes stay on the reference kernel.
#pragma once

#include "../isa/int8.hpp"
#include "../reference/rotary_int8.hpp"

namespace staticformer {
namespace kernels {
namespace simd_int8 {

#if defined(STATICFORMER_INT8_X86) || defined(STATICFORMER_INT8_ARM)

// P pairs (a[i], b[i]) turned in place.
template <int P, class V>
inline void turn_pairs(std::int8_t* a, std::int8_t* b, const std::int16_t* cos, const std::int16_t* sin) noexcept {
    const auto half = V::set1(1 << 13);
    each_block<V>(P, [&](int i, typename V::mask m) {
        const auto av = V::load_i8(a + i, m), bv = V::load_i8(b + i, m);
        const auto c = V::load_i16(cos + i, m), s = V::load_i16(sin + i, m);
        V::store_i8(a + i, V::template srai<14>(V::add(V::sub(V::mullo(av, c), V::mullo(bv, s)), half)), m);
        V::store_i8(b + i, V::template srai<14>(V::add(V::add(V::mullo(bv, c), V::mullo(av, s)), half)), m);
    });
    constexpr int done = V::masked ? P : P - P % V::lanes;  // where each_block stopped
    for (int i = done; i < P; ++i) {
        const std::int32_t a0 = a[i], b0 = b[i];
        a[i] = reference::turn(a0 * cos[i] - b0 * sin[i]);
        b[i] = reference::turn(b0 * cos[i] + a0 * sin[i]);
    }
}

// Interleaved heads are split into their halves first (a copy) and joined after.
template <int D, int HeadDim, bool Interleaved, class V = lanes>
inline void rotate(std::int8_t* x, const std::int16_t* cos, const std::int16_t* sin) noexcept {
    constexpr int P = HeadDim / 2;
    if constexpr (P < V::lanes) {
        reference::rotate<D, HeadDim, Interleaved>(x, cos, sin);
    } else {
        for (int h = 0; h < D; h += HeadDim) {
            if constexpr (Interleaved) {
                std::int8_t halves[HeadDim];
                for (int i = 0; i < P; ++i) halves[i] = x[h + 2 * i], halves[P + i] = x[h + 2 * i + 1];
                turn_pairs<P, V>(halves, halves + P, cos, sin);
                for (int i = 0; i < P; ++i) x[h + 2 * i] = halves[i], x[h + 2 * i + 1] = halves[P + i];
            } else {
                turn_pairs<P, V>(x + h, x + h + P, cos, sin);
            }
        }
    }
}

#else

using reference::rotate;  // no vector lanes on this target

#endif

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
