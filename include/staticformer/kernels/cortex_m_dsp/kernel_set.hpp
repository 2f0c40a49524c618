// staticformer: the cortex_m_dsp backend's kernel sets (optimised; bit-identical to the
// reference): the int8 linear layers with SMLAD, every other op the reference's. Float
// encoders on this backend run the reference kernels (the FPU has no vector unit).
#pragma once

#include "../../config.hpp"
#include "../kernel_set.hpp"
#if STATICFORMER_HAS_CORTEX_M_DSP
#include "linear_int8.hpp"
#endif

namespace staticformer {

template <>
struct kernel_set<cortex_m_dsp> : kernels::float_kernels {};

#if STATICFORMER_HAS_CORTEX_M_DSP
template <>
struct int8_kernel_set<cortex_m_dsp> : kernels::int8_kernels {
    template <int In, int Out>
    static void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
        kernels::cortex_m_dsp::linear(x, rows, p, y);
    }
};
#endif

}  // namespace staticformer
