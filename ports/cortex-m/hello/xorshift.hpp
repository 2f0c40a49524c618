// The port tests' random numbers: xorshift32, the same sequence on every core.
#pragma once

#include <cstdint>

struct xorshift32 {
    std::uint32_t state;
    std::uint32_t next() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        return state;
    }
    std::int8_t int8() { return std::int8_t(next() >> 24); }
};
