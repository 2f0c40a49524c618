// staticformer: x86 AVX-VNNI building blocks of the int8 kernels (optimised): the AVX2 ones,
// and VPDPBUSD on 256-bit vectors for the linear layer's step.
#pragma once

#include "x86_avx2.hpp"

namespace staticformer {
namespace kernels {
namespace simd_int8 {

// ---- linear layer step: VPDPBUSD, weights made unsigned ---------------------------------

// Tiles of 6 rows x 2 vectors: 12 accumulators, 2 weight vectors and a broadcast of 16
// registers (4 x 2 left the two ports waiting on the dot products' latency).
struct linear_avxvnni : unmasked {
    static constexpr int lanes = 8, rows = 6, vecs = 2;
    static constexpr bool row_sum = true;
    using acc = __m256i;
    using wvec = __m256i;
    using xvec = __m256i;
    static acc init(const std::int32_t* bias, std::int32_t row, mask) noexcept {
        return _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(bias)), _mm256_set1_epi32(row));
    }
    static wvec load_w(const std::int8_t* w, mask) noexcept {
        return _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w)), _mm256_set1_epi8(-128));
    }
    static xvec broadcast(std::int32_t x4) noexcept { return _mm256_set1_epi32(x4); }
    static acc dot(acc a, wvec w, xvec x) noexcept { return dpbusd_avx(a, w, x); }
    template <class Params>
    static void store(std::int8_t* y, acc a, const std::int16_t* multiplier, const Params& k, std::int32_t zero_point,
                      mask) noexcept {
        store8_int8(y, requantize8(a, load8_int16(multiplier), k, zero_point));
    }
    using params = rescale8_params;
    static std::int32_t sum(const std::int8_t* x, int n) noexcept {
        __m256i s = _mm256_setzero_si256();
        const __m256i ones = _mm256_set1_epi8(1);
        int i = 0;
        for (; i + 32 <= n; i += 32)
            s = _mm256_dpbusd_avx_epi32(s, ones, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i)));
        std::int32_t total = hsum8(s);
        for (; i < n; ++i) total += x[i];
        return total;
    }
};

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
