// staticformer: building blocks every int8 instruction set shares (optimised kernels only):
// four bytes as one 32-bit word, and the traits of the linear layer's per-ISA step.
#pragma once

#include <cstdint>
#include <cstring>

namespace staticformer {
namespace kernels {
namespace simd_int8 {

inline std::int32_t load4(const std::int8_t* p) noexcept {
    std::int32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// The first n < 4 bytes of p, zero-extended to four (never reads past p + n).
inline std::int32_t load_partial4(const std::int8_t* p, int n) noexcept {
    std::int8_t b[4] = {0, 0, 0, 0};
    for (int i = 0; i < n; ++i) b[i] = p[i];
    return load4(b);
}

// Instruction sets without masked loads: partial vectors go to the reference's per-output routine.
struct unmasked {
    static constexpr bool masked = false;
    using mask = int;
    static mask full() noexcept { return 0; }
    static mask tail(int) noexcept { return 0; }
};

// Instruction sets that multiply signed by signed bytes: no row sums.
struct signed_products {
    static constexpr bool row_sum = false;
    static std::int32_t sum(const std::int8_t*, int) noexcept { return 0; }
};

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
