// Bit-exact comparison: memcmp, with the first differing element reported.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace sftest {

inline std::uint32_t bits_of(float f) {
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

inline testing::AssertionResult bit_equal(const float* a, const float* b, std::size_t n) {
    if (std::memcmp(a, b, n * sizeof(float)) == 0) return testing::AssertionSuccess();
    std::size_t i = 0;
    while (bits_of(a[i]) == bits_of(b[i])) ++i;
    return testing::AssertionFailure() << "first difference at element " << i << " of " << n << ": "
                                       << a[i] << " (0x" << std::hex << bits_of(a[i]) << ") vs " << std::dec
                                       << b[i] << " (0x" << std::hex << bits_of(b[i]) << ")";
}

}  // namespace sftest
