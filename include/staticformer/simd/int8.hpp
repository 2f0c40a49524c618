// staticformer: the simd backend's int8 kernel set (optimised; bit-identical to reference/int8.hpp).
// The instruction set is chosen at compile time (int8_ops.hpp); where there is none, and for
// kernels without a vector version, the kernels are the reference ones.
#pragma once

#include "../reference/int8.hpp"
#include "int8_attention.hpp"
#include "int8_elementwise.hpp"
#include "int8_linear.hpp"
#include "int8_ops.hpp"
#include "int8_softmax.hpp"

namespace staticformer {

#if defined(STATICFORMER_INT8_X86) || defined(STATICFORMER_INT8_ARM)

template <>
struct int8_kernel_set<simd> : int8_kernel_set<reference> {
    template <int In, int Out>
    static void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
        kernels::simd_int8::linear(x, rows, p, y);
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
    template <int HeadDim, int VStride>
    static void attention_context(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier m,
                                  std::int8_t* ctx) noexcept {
        kernels::simd_int8::attention_context<HeadDim, VStride>(p, v, n, m, ctx);
    }
    static void add(std::int8_t* x, const std::int8_t* a, int n, const add_int8& p) noexcept {
        kernels::simd_int8::add(x, a, n, p);
    }
#if defined(STATICFORMER_INT8_SIMD_LAYER_NORM)
    template <int N>
    static void layer_norm(const std::int8_t* x, int rows, const layer_norm_int8<N>& p, std::int8_t* y) noexcept {
        kernels::simd_int8::layer_norm(x, rows, p, y);
    }
#endif
#if defined(STATICFORMER_INT8_SIMD_ACTIVATE)
    static void activate(std::int8_t* x, int n, const std::int8_t* table) noexcept {
        kernels::simd_int8::activate(x, n, table);
    }
#endif
#if defined(STATICFORMER_INT8_SIMD_SOFTMAX)
    static void softmax(std::int32_t* s, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        kernels::simd_int8::softmax(s, n, m, p);
    }
    template <int Stride>
    static void softmax_rows(std::int32_t* s, int rows, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        kernels::simd_int8::softmax_rows<Stride>(s, rows, n, m, p);
    }
#endif
};

#else

template <>
struct int8_kernel_set<simd> : int8_kernel_set<reference> {};

#endif

}  // namespace staticformer
