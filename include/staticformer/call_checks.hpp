// staticformer: the checks every forward() makes: the backend, at compile time; the call, before
// it touches anything (on any error the output is left untouched). One place for the float and
// int8 encoders alike.
#pragma once

#include <cstddef>
#include <cstdint>

#include <type_traits>

#include "config.hpp"
#include "status.hpp"

namespace staticformer {
namespace detail {

// x and y hold seq_len * d_model values of `element` bytes; y may equal x but must not partly
// overlap it; 1 <= valid_len <= seq_len.
template <class Cfg>
inline status check_call(const void* x, const void* y, std::size_t element, int valid_len) noexcept {
    if (x == nullptr || y == nullptr) return status::null_pointer;
    if (valid_len <= 0 || valid_len > Cfg::seq_len) return status::bad_valid_len;
    const std::uintptr_t bytes = std::size_t(Cfg::seq_len) * Cfg::d_model * element;
    const auto xa = reinterpret_cast<std::uintptr_t>(x), ya = reinterpret_cast<std::uintptr_t>(y);
    if (xa != ya && xa < ya + bytes && ya < xa + bytes) return status::overlapping_buffers;
    return status::ok;
}

// The backend exists on this target (a compile error naming the target if not).
template <class P, class Backend>
struct backend_check : std::true_type {
    static_assert(std::is_same<Backend, reference>::value || std::is_same<Backend, simd>::value ||
                      std::is_same<Backend, cortex_m_dsp>::value || std::is_same<Backend, cortex_m_mve>::value ||
                      std::is_same<Backend, armv7_neon>::value,
                  "Backend must be staticformer::reference, staticformer::simd, staticformer::cortex_m_dsp, "
                  "staticformer::cortex_m_mve or staticformer::armv7_neon");
#if !STATICFORMER_HAS_SIMD
    static_assert(!std::is_same<Backend, simd>::value,
                  "staticformer::simd is not available in this build for " STATICFORMER_TARGET_NAME ": it needs "
                  "xsimd and hardware FMA (x86-64 with FMA3 or AVX-512, or AArch64) and no STATICFORMER_NO_SIMD; "
                  "use staticformer::reference");
#endif
#if !STATICFORMER_HAS_CORTEX_M_DSP
    static_assert(!std::is_same<Backend, cortex_m_dsp>::value,
                  "staticformer::cortex_m_dsp is not available in this build for " STATICFORMER_TARGET_NAME ": it "
                  "needs a Cortex-M core with the DSP extension (Cortex-M4, M7, M33, M55); use staticformer::reference");
#endif
#if !STATICFORMER_HAS_CORTEX_M_MVE
    static_assert(!std::is_same<Backend, cortex_m_mve>::value,
                  "staticformer::cortex_m_mve is not available in this build for " STATICFORMER_TARGET_NAME ": it "
                  "needs a Cortex-M core with Helium (MVE: Cortex-M55, M85); use staticformer::cortex_m_dsp on "
                  "Cortex-M4, M7, M33, else staticformer::reference");
#endif
#if !STATICFORMER_HAS_ARMV7_NEON
    static_assert(!std::is_same<Backend, armv7_neon>::value,
                  "staticformer::armv7_neon is not available in this build for " STATICFORMER_TARGET_NAME ": it "
                  "needs 32-bit Arm A-profile with NEON (-mfpu=neon*); use staticformer::reference");
#endif
};

}  // namespace detail
}  // namespace staticformer
