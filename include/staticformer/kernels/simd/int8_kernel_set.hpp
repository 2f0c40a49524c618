// staticformer: the int8 kernels over the instruction set chosen in isa/int8.hpp, as one kernel
// set (optimised; every kernel bit-identical to its reference counterpart, falling back to it
// where that set has no vector form): int8_kernel_set<simd>, and int8_kernel_set<armv7_neon>
// on ARMv7-A, where the float simd kernels are off; a16w8_kernel_set likewise.
#pragma once

#include "../kernel_set.hpp"
#include "activation_int8.hpp"
#include "attention_a16w8.hpp"
#include "attention_int8.hpp"
#include "layer_norm_int8.hpp"
#include "linear_int8.hpp"
#include "rotary_int8.hpp"
#include "softmax_int8.hpp"
#include "stream_int8.hpp"

namespace staticformer {
namespace kernels {

struct simd_int8_kernels : int8_kernels {
    template <int In, int Out>
    static void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
        simd_int8::linear(x, rows, p, y);
    }
    template <int D, int HeadDim, int S>
    static void store_keys(const std::int8_t* k, int rows, int j0, std::int8_t* kt) noexcept {
        simd_int8::store_keys<D, HeadDim, S>(k, rows, j0, kt);
    }
    template <int D, int HeadDim, int S>
    static void store_values(const std::int8_t* v, int rows, int j0, std::int8_t* values) noexcept {
        simd_int8::store_values<D, HeadDim, S>(v, rows, j0, values);
    }
    template <int HeadDim, int KStride>
    static void attention_scores(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
        simd_int8::attention_scores<HeadDim, KStride>(q, kt, n, s);
    }
    static void softmax(std::int32_t* s, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        simd_int8::softmax(s, n, m, p);
    }
    template <int Stride>
    static void softmax_rows(std::int32_t* s, int rows, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        simd_int8::softmax_rows<Stride>(s, rows, n, m, p);
    }
    template <int HeadDim, int VStride>
    static void attention_context(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier m,
                                  std::int8_t* ctx) noexcept {
        simd_int8::attention_context<HeadDim, VStride>(p, v, n, m, ctx);
    }
    static void activate(std::int8_t* x, int n, const std::int8_t* table) noexcept {
        simd_int8::activate(x, n, table);
    }
    template <int N, bool Rms, class Out>
    static void layer_norm(const std::int16_t* x, int rows, const layer_norm_int8<N, Rms>& p, Out* y) noexcept {
        simd_int8::layer_norm(x, rows, p, y);
    }
    static void add(std::int16_t* x, const std::int8_t* a, int n, const stream_add_int8& p) noexcept {
        simd_int8::add(x, a, n, p);
    }
    static void narrow(const std::int16_t* x, int n, const stream_narrow_int8& p, std::int8_t* y) noexcept {
        simd_int8::narrow(x, n, p, y);
    }
    static void widen(const std::int8_t* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
        simd_int8::widen(a, n, p, y);
    }
    template <int D, int HeadDim, bool Interleaved>
    static void rotate(std::int8_t* x, const std::int16_t* cos, const std::int16_t* sin) noexcept {
        simd_int8::rotate<D, HeadDim, Interleaved>(x, cos, sin);
    }
};

// a16w8: the linear layers through the same tiles (linear16_isa), attention on int16 pairs
// (attention_a16w8.hpp), the interpolated activation, int8's softmax and stream LayerNorm; the
// rest the reference's.
struct simd_a16w8_kernels : a16w8_kernels {
    template <int In, int Out>
    static void linear(const std::int16_t* x, int rows, const linear_a16w8<In, Out>& p, std::int16_t* y) noexcept {
        simd_int8::linear(x, rows, p, y);
    }
    template <int N, bool Rms, class Out>
    static void layer_norm(const std::int16_t* x, int rows, const layer_norm_int8<N, Rms>& p, Out* y) noexcept {
        simd_int8::layer_norm(x, rows, p, y);
    }
    template <int D, int HeadDim, int S>
    static void store_keys(const std::int16_t* k, int rows, int j0, std::int16_t* kt) noexcept {
        simd_a16w8::store_keys<D, HeadDim, S>(k, rows, j0, kt);
    }
    template <int D, int HeadDim, int S>
    static void store_values(const std::int16_t* v, int rows, int j0, std::int16_t* values) noexcept {
        simd_a16w8::store_values<D, HeadDim, S>(v, rows, j0, values);
    }
    template <int HeadDim, int KStride>
    static void attention_scores(const std::int16_t* q, const std::int16_t* kt, int n, std::int32_t* s) noexcept {
        simd_a16w8::attention_scores<HeadDim, KStride>(q, kt, n, s);
    }
    static void softmax(std::int32_t* s, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        simd_int8::softmax(s, n, m, p);
    }
    template <int Stride>
    static void softmax_rows(std::int32_t* s, int rows, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        simd_int8::softmax_rows<Stride>(s, rows, n, m, p);
    }
    template <int HeadDim, int VStride>
    static void attention_context(const std::int16_t* p, const std::int16_t* v, int n, const attention_a16w8& a,
                                  std::int16_t* ctx) noexcept {
        simd_a16w8::attention_context<HeadDim, VStride>(p, v, n, a, ctx);
    }
    static void activate(std::int16_t* x, int n, const activation_a16w8& a) noexcept { simd_int8::activate(x, n, a); }
    // The stream's steps on int16 and (models: embeddings, positions) int8 branches.
    template <class A>
    static void add(std::int16_t* x, const A* a, int n, const stream_add_int8& p) noexcept {
        simd_int8::add(x, a, n, p);
    }
    template <class A>
    static void widen(const A* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
        simd_int8::widen(a, n, p, y);
    }
    static void narrow(const std::int16_t* x, int n, const stream_narrow_a16w8& p, std::int16_t* y) noexcept {
        simd_int8::narrow(x, n, p, y);
    }
};

}  // namespace kernels
}  // namespace staticformer
