// staticformer: the simd backend's kernel sets (optimised; every kernel bit-identical to its
// reference counterpart). Float kernels over xsimd (ops.hpp); int8 kernels over the instruction
// set chosen in isa/int8.hpp (int8_kernel_set.hpp, each falling back to the reference where that
// set has no vector form). The float residual adds are the reference's.
#pragma once

#include "../kernel_set.hpp"
#include "activation.hpp"
#include "attention.hpp"
#include "int8_kernel_set.hpp"
#include "layer_norm.hpp"
#include "linear.hpp"
#include "softmax.hpp"

namespace staticformer {

template <>
struct kernel_set<simd> : kernels::float_kernels {
    template <int In, int Out, int WStride = Out, class W>
    static void linear(const float* x, int rows, const W* w, const W* b, float* y) noexcept {
        kernels::simd::linear<In, Out, WStride>(x, rows, w, b, y);
    }
    template <int N, bool Rms = false, class W>
    static void layer_norm(const float* x, int rows, const W* g, const W* b, float eps, float* y) noexcept {
        kernels::simd::layer_norm<N, Rms>(x, rows, g, b, eps, y);
    }
    template <int D, int S>
    static void store_keys(const float* k, int rows, int j0, float* kt) noexcept {
        kernels::simd::store_keys<D, S>(k, rows, j0, kt);
    }
    template <int HeadDim, int KStride, int QStride>
    static void attention_scores(const float* q, int rows, const float* kt, int n, float* s) noexcept {
        kernels::simd::attention_scores_rows<HeadDim, KStride, QStride>(q, rows, kt, n, s);
    }
    template <int Stride>
    static void softmax(float* s, int rows, int n) noexcept { kernels::simd::softmax_rows<Stride>(s, rows, n); }
    template <int HeadDim, int VStride, int PStride, int CStride = VStride>
    static void attention_context(const float* p, int rows, const float* v, int n, float* ctx) noexcept {
        kernels::simd::attention_context_rows<HeadDim, VStride, PStride, CStride>(p, rows, v, n, ctx);
    }
    template <activation_kind Act>
    static void activate(float* x, int n) noexcept { kernels::simd::activate<Act>(x, n); }
};

template <>
struct int8_kernel_set<simd> : kernels::simd_int8_kernels {};
template <>
struct a16w8_kernel_set<simd> : kernels::simd_a16w8_kernels {};

}  // namespace staticformer
