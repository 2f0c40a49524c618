// staticformer: the cortex_m_dsp backend's kernel sets (optimised; bit-identical to the
// reference) for Cortex-M cores with the DSP extension (M4, M7, M33; M55 and M85 too, though
// there cortex_m_mve is the default): the int8 linear layers and attention with SMLAD / SMUAD,
// the stream's LayerNorm and adds, the softmax and the gated feed-forward's product in 32-bit
// steps, the activation table four lookups per word. Float encoders on this backend run the
// reference kernels (no vector unit).
#pragma once

#include "../../../config.hpp"
#include "../../kernel_set.hpp"
#if STATICFORMER_HAS_CORTEX_M_DSP
#include "activation_int8.hpp"
#include "attention_a16w8.hpp"
#include "attention_int8.hpp"
#include "glu_int8.hpp"
#include "layer_norm_int8.hpp"
#include "linear_int8.hpp"
#include "softmax_int8.hpp"
#include "stream_int8.hpp"
#endif

namespace staticformer {

template <>
struct kernel_set<cortex_m_dsp> : kernels::float_kernels {};

#if STATICFORMER_HAS_CORTEX_M_DSP
namespace kernels {

struct cortex_m_dsp_int8_kernels : int8_kernels {
    template <int In, int Out>
    static void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
        cortex_m_dsp::linear(x, rows, p, y);
    }
    // The feed-forward layer's activation in its first linear layer's requantisation.
    static constexpr bool fuses_activation = true;
    template <int In, int Out>
    static void linear_activate(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, const std::int8_t* table,
                                std::int8_t* y) noexcept {
        cortex_m_dsp::linear_activate(x, rows, p, table, y);
    }
    static void softmax(std::int32_t* s, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        cortex_m_dsp::softmax(s, n, m, p);
    }
    template <int Stride>
    static void softmax_rows(std::int32_t* s, int rows, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        for (int r = 0; r < rows; ++r) softmax(s + r * Stride, n, m, p + r * Stride);
    }
    template <int N, bool Rms, class Out>
    static void layer_norm(const std::int16_t* x, int rows, const layer_norm_int8<N, Rms>& p, Out* y) noexcept {
        cortex_m_dsp::layer_norm(x, rows, p, y);
    }
    static void add(std::int16_t* x, const std::int8_t* a, int n, const stream_add_int8& p) noexcept {
        cortex_m_dsp::add(x, a, n, p);
    }
    static void narrow(const std::int16_t* x, int n, const stream_narrow_int8& p, std::int8_t* y) noexcept {
        cortex_m_dsp::narrow(x, n, p, y);
    }
    static void widen(const std::int8_t* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
        cortex_m_dsp::widen(a, n, p, y);
    }
    static void activate(std::int8_t* x, int n, const std::int8_t* table) noexcept { cortex_m_dsp::activate(x, n, table); }
    template <int F>
    static void glu(std::int8_t* h, int rows, const std::int8_t* table, const gate_int8& p) noexcept {
        cortex_m_dsp::glu<F>(h, rows, table, p);
    }
    // Attention in this set's key and value layouts when the head dimension is a multiple of 4
    // (attention_int8.hpp), else the reference's kernels and layouts.
    template <int D, int HeadDim, int S>
    static void store_keys(const std::int8_t* k, int rows, int j0, std::int8_t* kt) noexcept {
        if constexpr (cortex_m_dsp::dsp_attention<HeadDim>)
            cortex_m_dsp::store_keys<D, HeadDim, S>(k, rows, j0, kt);
        else
            int8_kernels::store_keys<D, HeadDim, S>(k, rows, j0, kt);
    }
    template <int D, int HeadDim, int S>
    static void store_values(const std::int8_t* v, int rows, int j0, std::int8_t* values) noexcept {
        if constexpr (cortex_m_dsp::dsp_attention<HeadDim>)
            cortex_m_dsp::store_values<D, HeadDim, S>(v, rows, j0, values);
        else
            int8_kernels::store_values<D, HeadDim, S>(v, rows, j0, values);
    }
    template <int HeadDim, int KStride>
    static void attention_scores(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
        if constexpr (cortex_m_dsp::dsp_attention<HeadDim>)
            cortex_m_dsp::attention_scores<HeadDim, KStride>(q, kt, n, s);
        else
            int8_kernels::attention_scores<HeadDim, KStride>(q, kt, n, s);
    }
    template <int HeadDim, int VStride>
    static void attention_context(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier m,
                                  std::int8_t* ctx) noexcept {
        if constexpr (cortex_m_dsp::dsp_attention<HeadDim>)
            cortex_m_dsp::attention_context<HeadDim, VStride>(p, v, n, m, ctx);
        else
            int8_kernels::attention_context<HeadDim, VStride>(p, v, n, m, ctx);
    }
};

// a16w8: the linear layers through the int8 tiles (int16 inputs paired by half-word packs),
// attention by SMLAD on int16 pairs (even head dimensions), int8's softmax and stream
// LayerNorm, the stream's steps and the gated product in 32 bits; the rest the reference's.
struct cortex_m_dsp_a16w8_kernels : a16w8_kernels {
    template <int In, int Out>
    static void linear(const std::int16_t* x, int rows, const linear_a16w8<In, Out>& p, std::int16_t* y) noexcept {
        cortex_m_dsp::linear(x, rows, p, y);
    }
    static void softmax(std::int32_t* s, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        cortex_m_dsp_int8_kernels::softmax(s, n, m, p);
    }
    template <int Stride>
    static void softmax_rows(std::int32_t* s, int rows, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        cortex_m_dsp_int8_kernels::softmax_rows<Stride>(s, rows, n, m, p);
    }
    template <int N, bool Rms, class Out>
    static void layer_norm(const std::int16_t* x, int rows, const layer_norm_int8<N, Rms>& p, Out* y) noexcept {
        cortex_m_dsp_int8_kernels::layer_norm(x, rows, p, y);
    }
    template <int F>
    static void glu(std::int16_t* h, int rows, const activation_a16w8& a, const gate_a16w8& p) noexcept {
        cortex_m_dsp::glu<F>(h, rows, a, p);
    }
    // int16 branches in 32 bits; the model's int8 rows (token tables, positions) keep the
    // reference's add and widening (the using-declarations; the int16 overloads below hide theirs).
    using a16w8_kernels::add;
    using a16w8_kernels::widen;
    static void add(std::int16_t* x, const std::int16_t* a, int n, const stream_add_int8& p) noexcept {
        cortex_m_dsp::add(x, a, n, p);
    }
    static void widen(const std::int16_t* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
        cortex_m_dsp::widen(a, n, p, y);
    }
    static void narrow(const std::int16_t* x, int n, const stream_narrow_a16w8& p, std::int16_t* y) noexcept {
        cortex_m_dsp::narrow(x, n, p, y);
    }
    // Keys in this set's layout when the head dimension is even (attention_a16w8.hpp), else the
    // reference's; values in the reference's layout.
    template <int D, int HeadDim, int S>
    static void store_keys(const std::int16_t* k, int rows, int j0, std::int16_t* kt) noexcept {
        if constexpr (cortex_m_dsp::dsp_attention_a16w8<HeadDim>)
            cortex_m_dsp::store_keys<D, HeadDim, S>(k, rows, j0, kt);
        else
            a16w8_kernels::store_keys<D, HeadDim, S>(k, rows, j0, kt);
    }
    template <int HeadDim, int KStride>
    static void attention_scores(const std::int16_t* q, const std::int16_t* kt, int n, std::int32_t* s) noexcept {
        if constexpr (cortex_m_dsp::dsp_attention_a16w8<HeadDim>)
            cortex_m_dsp::attention_scores<HeadDim, KStride>(q, kt, n, s);
        else
            a16w8_kernels::attention_scores<HeadDim, KStride>(q, kt, n, s);
    }
    template <int HeadDim, int VStride>
    static void attention_context(const std::int16_t* p, const std::int16_t* v, int n, const attention_a16w8& a,
                                  std::int16_t* ctx) noexcept {
        if constexpr (cortex_m_dsp::dsp_attention_a16w8<HeadDim>)
            cortex_m_dsp::attention_context<HeadDim, VStride>(p, v, n, a.context, a.context_limit, ctx);
        else
            a16w8_kernels::attention_context<HeadDim, VStride>(p, v, n, a, ctx);
    }
};

}  // namespace kernels

template <>
struct int8_kernel_set<cortex_m_dsp> : kernels::cortex_m_dsp_int8_kernels {};
template <>
struct a16w8_kernel_set<cortex_m_dsp> : kernels::cortex_m_dsp_a16w8_kernels {};
#endif

}  // namespace staticformer
