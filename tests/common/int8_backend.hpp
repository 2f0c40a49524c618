// The int8 vector backend of this build, checked against the reference by the int8 tests: simd
// where it exists, armv7_neon on ARMv7-A with NEON (int8 kernels only); SFTEST_INT8_VECTOR is 0
// where there is none.
#pragma once

#include <staticformer/staticformer.hpp>

#if STATICFORMER_HAS_SIMD
#define SFTEST_INT8_VECTOR 1
#define SFTEST_INT8_VECTOR_NAME "simd"
namespace sftest {
using int8_vector = staticformer::simd;
}
#elif STATICFORMER_HAS_ARMV7_NEON
#define SFTEST_INT8_VECTOR 1
#define SFTEST_INT8_VECTOR_NAME "armv7_neon"
namespace sftest {
using int8_vector = staticformer::armv7_neon;
}
#else
#define SFTEST_INT8_VECTOR 0
#endif
