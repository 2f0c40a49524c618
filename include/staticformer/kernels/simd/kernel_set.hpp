// staticformer: the simd backend's kernel sets (optimised; every kernel bit-identical to its
// reference counterpart). Float kernels over xsimd (ops.hpp); int8 kernels over the instruction
// set chosen in isa/int8.hpp, each falling back to the reference where that set has no vector
// form. The residual adds are the reference's (float) or add_int8.hpp's.
#pragma once

#include "../kernel_set.hpp"
#include "activation.hpp"
#include "activation_int8.hpp"
#include "add_int8.hpp"
#include "attention.hpp"
#include "attention_int8.hpp"
#include "layer_norm.hpp"
#include "layer_norm_int8.hpp"
#include "linear.hpp"
#include "linear_int8.hpp"
#include "softmax.hpp"
#include "softmax_int8.hpp"

namespace staticformer {

template <>
struct kernel_set<simd> : kernels::float_kernels {
    template <int In, int Out, int WStride = Out, class W>
    static void linear(const float* x, int rows, const W* w, const W* b, float* y) noexcept {
        kernels::simd::linear<In, Out, WStride>(x, rows, w, b, y);
    }
    template <int N, class W>
    static void layer_norm(const float* x, int rows, const W* g, const W* b, float eps, float* y) noexcept {
        kernels::simd::layer_norm<N>(x, rows, g, b, eps, y);
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
    template <int HeadDim, int VStride, int PStride>
    static void attention_context(const float* p, int rows, const float* v, int n, float* ctx) noexcept {
        kernels::simd::attention_context_rows<HeadDim, VStride, PStride>(p, rows, v, n, ctx);
    }
    template <activation_kind Act>
    static void activate(float* x, int n) noexcept { kernels::simd::activate<Act>(x, n); }
};

template <>
struct int8_kernel_set<simd> : kernels::int8_kernels {
    template <int In, int Out>
    static void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
        kernels::simd_int8::linear(x, rows, p, y);
    }
    template <int N>
    static void layer_norm(const std::int8_t* x, int rows, const layer_norm_int8<N>& p, std::int8_t* y) noexcept {
        kernels::simd_int8::layer_norm(x, rows, p, y);
    }
    template <int D, int HeadDim, int S>
    static void store_keys(const std::int8_t* k, int rows, int j0, std::int8_t* kt) noexcept {
        kernels::simd_int8::store_keys<D, HeadDim, S>(k, rows, j0, kt);
    }
    template <int D, int HeadDim, int S>
    static void store_values(const std::int8_t* v, int rows, int j0, std::int8_t* values) noexcept {
        kernels::simd_int8::store_values<D, HeadDim, S>(v, rows, j0, values);
    }
    template <int HeadDim, int KStride>
    static void attention_scores(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
        kernels::simd_int8::attention_scores<HeadDim, KStride>(q, kt, n, s);
    }
    static void softmax(std::int32_t* s, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        kernels::simd_int8::softmax(s, n, m, p);
    }
    template <int Stride>
    static void softmax_rows(std::int32_t* s, int rows, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        kernels::simd_int8::softmax_rows<Stride>(s, rows, n, m, p);
    }
    template <int HeadDim, int VStride>
    static void attention_context(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier m,
                                  std::int8_t* ctx) noexcept {
        kernels::simd_int8::attention_context<HeadDim, VStride>(p, v, n, m, ctx);
    }
    static void activate(std::int8_t* x, int n, const std::int8_t* table) noexcept {
        kernels::simd_int8::activate(x, n, table);
    }
    static void add(std::int8_t* x, const std::int8_t* a, int n, const add_int8& p) noexcept {
        kernels::simd_int8::add(x, a, n, p);
    }
};

}  // namespace staticformer
