// staticformer: the cortex_m_mve backend's kernel sets (optimised; bit-identical to the
// reference) for Cortex-M cores with Helium (MVE, Armv8.1-M: M55, M85). It derives from the
// cortex_m_dsp set and replaces the int8 ops that have a vector form: the linear layers (gathers
// and VMLADAVA), attention (scores in the DSP set's key layout, context on the reference's value
// layout), softmax, LayerNorm, the adds, the activation table, the gated feed-forward's product
// and rotary positions. Float encoders run the reference kernels (the M55's float vectors are
// not enabled: -mcpu=cortex-m55+nomve.fp).
#pragma once

#include "../../../config.hpp"
#include "../dsp/kernel_set.hpp"
#if STATICFORMER_HAS_CORTEX_M_MVE
#include "activation_int8.hpp"
#include "attention_int8.hpp"
#include "glu_int8.hpp"
#include "layer_norm_int8.hpp"
#include "linear_int8.hpp"
#include "rotary_int8.hpp"
#include "softmax_int8.hpp"
#include "stream_int8.hpp"
#endif

namespace staticformer {

template <>
struct kernel_set<cortex_m_mve> : kernels::float_kernels {};

#if STATICFORMER_HAS_CORTEX_M_MVE
template <>
struct int8_kernel_set<cortex_m_mve> : kernels::cortex_m_dsp_int8_kernels {
    using dsp = kernels::cortex_m_dsp_int8_kernels;
    template <int In, int Out>
    static void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
        kernels::cortex_m_mve::linear(x, rows, p, y);
    }
    // The linear layer, then the activation's gathers.
    template <int In, int Out>
    static void linear_activate(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, const std::int8_t* table,
                                std::int8_t* y) noexcept {
        linear(x, rows, p, y);
        activate(y, rows * Out, table);
    }
    template <int D, int HeadDim, bool Interleaved>
    static void rotate(std::int8_t* x, const std::int16_t* cos, const std::int16_t* sin) noexcept {
        kernels::cortex_m_mve::rotate<D, HeadDim, Interleaved>(x, cos, sin);
    }
    static void softmax(std::int32_t* s, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        kernels::cortex_m_mve::softmax(s, n, m, p);
    }
    template <int Stride>
    static void softmax_rows(std::int32_t* s, int rows, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        for (int r = 0; r < rows; ++r) softmax(s + r * Stride, n, m, p + r * Stride);
    }
    template <int N, bool Rms, class Out>
    static void layer_norm(const std::int16_t* x, int rows, const layer_norm_int8<N, Rms>& p, Out* y) noexcept {
        kernels::cortex_m_mve::layer_norm(x, rows, p, y);
    }
    static void add(std::int16_t* x, const std::int8_t* a, int n, const stream_add_int8& p) noexcept {
        kernels::cortex_m_mve::add(x, a, n, p);
    }
    static void narrow(const std::int16_t* x, int n, const stream_narrow_int8& p, std::int8_t* y) noexcept {
        kernels::cortex_m_mve::narrow(x, n, p, y);
    }
    static void widen(const std::int8_t* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
        kernels::cortex_m_mve::widen(a, n, p, y);
    }
    static void activate(std::int8_t* x, int n, const std::int8_t* table) noexcept {
        kernels::cortex_m_mve::activate(x, n, table);
    }
    template <int F>
    static void glu(std::int8_t* h, int rows, const std::int8_t* table, const gate_int8& p) noexcept {
        kernels::cortex_m_mve::glu<F>(h, rows, table, p);
    }
    // Keys in the DSP set's layout (store_keys), values in the reference's.
    template <int D, int HeadDim, int S>
    static void store_values(const std::int8_t* v, int rows, int j0, std::int8_t* values) noexcept {
        kernels::int8_kernels::store_values<D, HeadDim, S>(v, rows, j0, values);
    }
    template <int HeadDim, int KStride>
    static void attention_scores(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
        if constexpr (kernels::cortex_m_dsp::dsp_attention<HeadDim>)
            kernels::cortex_m_mve::attention_scores<HeadDim, KStride>(q, kt, n, s);
        else
            dsp::attention_scores<HeadDim, KStride>(q, kt, n, s);
    }
    template <int HeadDim, int VStride>
    static void attention_context(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier m,
                                  std::int8_t* ctx) noexcept {
        kernels::cortex_m_mve::attention_context<HeadDim, VStride>(p, v, n, m, ctx);
    }
};

// a16w8: Helium's linear layers and attention (VMLADAVA.S16, VMLA), rotary turn, softmax, stream
// LayerNorm and element-wise steps.
template <>
struct a16w8_kernel_set<cortex_m_mve> : kernels::cortex_m_dsp_a16w8_kernels {
    template <int In, int Out>
    static void linear(const std::int16_t* x, int rows, const linear_a16w8<In, Out>& p, std::int16_t* y) noexcept {
        kernels::cortex_m_mve::linear(x, rows, p, y);
    }
    template <int D, int HeadDim, int S>
    static void store_keys(const std::int16_t* k, int rows, int j0, std::int16_t* kt) noexcept {
        kernels::cortex_m_mve::store_keys<D, HeadDim, S>(k, rows, j0, kt);
    }
    template <int HeadDim, int KStride>
    static void attention_scores(const std::int16_t* q, const std::int16_t* kt, int n, std::int32_t* s) noexcept {
        kernels::cortex_m_mve::attention_scores<HeadDim, KStride>(q, kt, n, s);
    }
    template <int D, int HeadDim, bool Interleaved>
    static void rotate(std::int16_t* x, const std::int16_t* cos, const std::int16_t* sin) noexcept {
        kernels::cortex_m_mve::rotate<D, HeadDim, Interleaved>(x, cos, sin);
    }
    template <int HeadDim, int VStride>
    static void attention_context(const std::int16_t* p, const std::int16_t* v, int n, const attention_a16w8& a,
                                  std::int16_t* ctx) noexcept {
        kernels::cortex_m_mve::attention_context<HeadDim, VStride>(p, v, n, a.context, a.context_limit, ctx);
    }
    // The element-wise steps four values a step (activation_int8.hpp, glu_int8.hpp, stream_int8.hpp).
    static void activate(std::int16_t* x, int n, const activation_a16w8& a) noexcept {
        kernels::cortex_m_mve::activate(x, n, a);
    }
    template <int F>
    static void glu(std::int16_t* h, int rows, const activation_a16w8& a, const gate_a16w8& p) noexcept {
        kernels::cortex_m_mve::glu<F>(h, rows, a, p);
    }
    static void add(std::int16_t* x, const std::int16_t* a, int n, const stream_add_int8& p) noexcept {
        kernels::cortex_m_mve::add(x, a, n, p);
    }
    static void add(std::int16_t* x, const std::int8_t* a, int n, const stream_add_int8& p) noexcept {
        kernels::cortex_m_mve::add(x, a, n, p);
    }
    static void widen(const std::int16_t* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
        kernels::cortex_m_mve::widen(a, n, p, y);
    }
    static void widen(const std::int8_t* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
        kernels::cortex_m_mve::widen(a, n, p, y);
    }
    static void narrow(const std::int16_t* x, int n, const stream_narrow_a16w8& p, std::int16_t* y) noexcept {
        kernels::cortex_m_mve::narrow(x, n, p, y);
    }
    // int8's softmax and stream LayerNorm
    using int8_set = int8_kernel_set<cortex_m_mve>;
    static void softmax(std::int32_t* s, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        int8_set::softmax(s, n, m, p);
    }
    template <int Stride>
    static void softmax_rows(std::int32_t* s, int rows, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        int8_set::softmax_rows<Stride>(s, rows, n, m, p);
    }
    template <int N, bool Rms, class Out>
    static void layer_norm(const std::int16_t* x, int rows, const layer_norm_int8<N, Rms>& p, Out* y) noexcept {
        int8_set::layer_norm(x, rows, p, y);
    }
};
#endif

}  // namespace staticformer
