// staticformer: the reference backend's kernel set (normative). The encoder composes kernels
// only through a kernel set, so every backend runs the same composition. Kernels that read
// weights (linear, layer_norm) take them as float (f32) or binary16 bits (f16): W is deduced.
#pragma once

#include "../config.hpp"
#include "activation.hpp"
#include "attention.hpp"
#include "layer_norm.hpp"
#include "linear.hpp"
#include "softmax.hpp"

namespace staticformer {

template <class Backend>
struct kernel_set;

template <>
struct kernel_set<reference> {
    template <int In, int Out, int WStride = Out, class W>
    static void linear(const float* x, int rows, const W* w, const W* b, float* y) noexcept {
        kernels::reference::linear<In, Out, WStride>(x, rows, w, b, y);
    }
    template <int N, class W>
    static void layer_norm(const float* x, int rows, const W* g, const W* b, float eps, float* y) noexcept {
        kernels::reference::layer_norm<N>(x, rows, g, b, eps, y);
    }
    // Keys of rows [j0, j0 + rows) into the transposed keys buffer (kt[c * S + j]).
    template <int D, int S>
    static void store_keys(const float* k, int rows, int j0, float* kt) noexcept {
        kernels::reference::store_keys<D, S>(k, rows, j0, kt);
    }
    // Attention of one head for `rows` query rows (reference/attention.hpp, softmax.hpp): q and
    // ctx rows QStride = VStride floats apart, kt[d * KStride + j], v[j * VStride + d], score
    // rows KStride floats apart.
    template <int HeadDim, int KStride, int QStride>
    static void attention_scores(const float* q, int rows, const float* kt, int n, float* s) noexcept {
        kernels::reference::attention_scores_rows<HeadDim, KStride, QStride>(q, rows, kt, n, s);
    }
    template <int Stride>
    static void softmax(float* s, int rows, int n) noexcept { kernels::reference::softmax_rows<Stride>(s, rows, n); }
    template <int HeadDim, int VStride, int PStride>
    static void attention_context(const float* p, int rows, const float* v, int n, float* ctx) noexcept {
        kernels::reference::attention_context_rows<HeadDim, VStride, PStride>(p, rows, v, n, ctx);
    }
    template <activation_kind Act>
    static void activate(float* x, int n) noexcept { kernels::reference::activate<Act>(x, n); }
};

}  // namespace staticformer
