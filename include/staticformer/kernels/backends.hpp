// staticformer: every backend's kernel sets that exist on this target (kernel_set.hpp is the
// interface; the reference's sets are always there).
#pragma once

#include "../config.hpp"
#include "armv7_neon/kernel_set.hpp"
#include "cortex_m/dsp/kernel_set.hpp"
#include "cortex_m/mve/kernel_set.hpp"
#include "kernel_set.hpp"
#if STATICFORMER_HAS_SIMD
#include "simd/kernel_set.hpp"
#endif
