// staticformer: xsimd batch operations for the portable approximations (optimised).
// Lane for lane the same IEEE operations as math::scalar_ops.
#pragma once

#include <cstdint>

// GCC 12 reports -Wmaybe-uninitialized inside its own AVX-512 intrinsic headers (the
// _mm512_undefined_* idiom); silence it for those headers only, where they are first included.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <xsimd/xsimd.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace staticformer {
namespace kernels {
namespace simd {

using batch = xsimd::batch<float>;
constexpr int width = int(batch::size);

struct batch_ops {
    using value = batch;
    using mask = xsimd::batch_bool<float>;

    static batch fma(const batch& a, const batch& b, const batch& c) noexcept { return xsimd::fma(a, b, c); }
    static batch max(const batch& a, const batch& b) noexcept { return xsimd::select(a > b, a, b); }
    static batch min(const batch& a, const batch& b) noexcept { return xsimd::select(a < b, a, b); }
    static batch abs(const batch& a) noexcept { return xsimd::abs(a); }
    static batch select(const mask& c, const batch& a, const batch& b) noexcept { return xsimd::select(c, a, b); }
    static batch pow2i(const batch& n) noexcept {
        const xsimd::batch<std::int32_t> e = (xsimd::to_int(n) + 127) << 23;
        return xsimd::bitwise_cast<batch>(e);
    }
};

inline batch load(const float* p) noexcept { return batch::load_unaligned(p); }
inline void store(float* p, const batch& v) noexcept { v.store_unaligned(p); }

}  // namespace simd
}  // namespace kernels
}  // namespace staticformer
