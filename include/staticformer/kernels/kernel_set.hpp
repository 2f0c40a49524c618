// staticformer: the kernel-set interface. The encoders compose kernels only through a kernel
// set, kernel_set<Backend> (float activations; f32 or f16 weights), int8_kernel_set<Backend> and
// a16w8_kernel_set<Backend>, so every backend runs the same composition.
//
// float_kernels and int8_kernels below ARE the interface: each line names one op with the
// signature every backend provides, and forwards to the normative reference kernel
// (reference/<op>.hpp, reference/<op>_int8.hpp). A backend's kernel set derives from them and
// redeclares only the ops it optimises (<backend>/<op>.hpp, same file names); every other op
// is the reference's. Adding an op: its reference file, one line here, and the backends that
// specialise it. Whatever the backend, each op must give the reference's bytes.
//
// Layouts: keys and values are written by the set's store_keys / store_values and read by the
// same set's attention_scores / attention_context, so a set may pick its own layout.
#pragma once

#include <cstdint>

#include "../config.hpp"
#include "../math/fixed_point.hpp"
#include "params_a16w8.hpp"
#include "params_int8.hpp"
#include "reference/activation.hpp"
#include "reference/activation_int8.hpp"
#include "reference/add.hpp"
#include "reference/attention.hpp"
#include "reference/attention_int8.hpp"
#include "reference/embedding.hpp"
#include "reference/glu_int8.hpp"
#include "reference/layer_norm.hpp"
#include "reference/layer_norm_int8.hpp"
#include "reference/linear.hpp"
#include "reference/linear_int8.hpp"
#include "reference/rotary.hpp"
#include "reference/rotary_int8.hpp"
#include "reference/softmax.hpp"
#include "reference/softmax_int8.hpp"
#include "reference/stream_int8.hpp"

namespace staticformer {

template <class Backend>
struct kernel_set;  // specialised by each backend (reference below, simd/, cortex_m/)
template <class Backend>
struct int8_kernel_set;
template <class Backend>
struct a16w8_kernel_set;  // every backend: the reference's (a16w8_kernels below) until it has its own

namespace kernels {

namespace ref = reference;

// Float activations, row-major. Kernels that read weights (linear, layer_norm) take them as
// float (f32) or binary16 bits (f16): W is deduced.
struct float_kernels {
    // y[r][o] = b[o] + sum_i x[r][i] w[i][o] for r < rows, o < Out; w rows WStride apart.
    template <int In, int Out, int WStride = Out, class W>
    static void linear(const float* x, int rows, const W* w, const W* b, float* y) noexcept {
        ref::linear<In, Out, WStride>(x, rows, w, b, y);
    }
    // Each of `rows` rows of N values normalised, y = gamma (x - mean) / sqrt(var + eps) + beta; y may equal x.
    // Rms: RMSNorm, mean 0.
    template <int N, bool Rms = false, class W>
    static void layer_norm(const float* x, int rows, const W* g, const W* b, float eps, float* y) noexcept {
        ref::layer_norm<N, Rms>(x, rows, g, b, eps, y);
    }
    // Keys of rows [j0, j0 + rows) into the transposed keys buffer (kt[c * S + j]).
    template <int D, int S>
    static void store_keys(const float* k, int rows, int j0, float* kt) noexcept {
        ref::store_keys<D, S>(k, rows, j0, kt);
    }
    // Attention of one head for `rows` query rows: q rows QStride floats apart, ctx rows CStride
    // (= QStride; VStride unless given), kt[d * KStride + j], v[j * VStride + d], score rows
    // KStride floats apart.
    template <int HeadDim, int KStride, int QStride>
    static void attention_scores(const float* q, int rows, const float* kt, int n, float* s) noexcept {
        ref::attention_scores_rows<HeadDim, KStride, QStride>(q, rows, kt, n, s);
    }
    // Each of `rows` rows of n scores (Stride apart) into probabilities, in place.
    template <int Stride>
    static void softmax(float* s, int rows, int n) noexcept { ref::softmax_rows<Stride>(s, rows, n); }
    template <int HeadDim, int VStride, int PStride, int CStride = VStride>
    static void attention_context(const float* p, int rows, const float* v, int n, float* ctx) noexcept {
        ref::attention_context_rows<HeadDim, VStride, PStride, CStride>(p, rows, v, n, ctx);
    }
    template <activation_kind Act>
    static void activate(float* x, int n) noexcept { ref::activate<Act>(x, n); }
    // Residual add (and positions), y = y + x.
    template <class W>
    static void add(float* y, const W* x, int n) noexcept { ref::add(y, x, n); }
    // A gated feed-forward's product, y = a * b (y may equal a or lie before it).
    static void multiply(float* y, const float* a, const float* b, int n) noexcept { ref::multiply(y, a, b, n); }
    // Rotary positions: one row of D queries or keys turned in place by its angles (HeadDim / 2 of each).
    template <int D, int HeadDim, bool Interleaved>
    static void rotate(float* x, const float* cos, const float* sin) noexcept {
        ref::rotate<D, HeadDim, Interleaved>(x, cos, sin);
    }
    // Model steps (reference/embedding.hpp): rows of an embedding table, the mean of n rows.
    template <int D, class W>
    static void embed(const W* table, const std::int32_t* ids, int rows, float* y) noexcept {
        ref::embed<D>(table, ids, rows, y);
    }
    template <int D, class W, class PW>
    static void embed_scaled(const W* table, const std::int32_t* ids, int rows, float scale, const PW* positions,
                             float* y) noexcept {
        ref::embed_scaled<D>(table, ids, rows, scale, positions, y);
    }
    template <int D>
    static void mean_rows(const float* x, int n, float* y) noexcept { ref::mean_rows<D>(x, n, y); }
};

// int8 activations, each tensor in its own scale (weights_int8.hpp documents every formula).
struct int8_kernels {
    template <int In, int Out>
    static void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
        ref::linear(x, rows, p, y);
    }
    template <int D, int HeadDim, int S>
    static void store_keys(const std::int8_t* k, int rows, int j0, std::int8_t* kt) noexcept {
        ref::store_keys<D, HeadDim, S>(k, rows, j0, kt);
    }
    template <int D, int HeadDim, int S>
    static void store_values(const std::int8_t* v, int rows, int j0, std::int8_t* values) noexcept {
        ref::store_values<D, HeadDim, S>(v, rows, j0, values);
    }
    template <int HeadDim, int KStride>
    static void attention_scores(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
        ref::attention_scores<HeadDim, KStride>(q, kt, n, s);
    }
    static void softmax(std::int32_t* s, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        ref::softmax(s, n, m, p);
    }
    // Rows r < rows of scores s + r Stride into probabilities p + r Stride.
    template <int Stride>
    static void softmax_rows(std::int32_t* s, int rows, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        ref::softmax_rows<Stride>(s, rows, n, m, p);
    }
    template <int HeadDim, int VStride>
    static void attention_context(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier m,
                                  std::int8_t* ctx) noexcept {
        ref::attention_context<HeadDim, VStride>(p, v, n, m, ctx);
    }
    static void activate(std::int8_t* x, int n, const std::int8_t* table) noexcept { ref::activate(x, n, table); }
    // A set with fuses_activation = true also has linear_activate(x, rows, p, table, y): linear, then
    // activate on y, in one pass (the encoder calls it for a feed-forward layer's first half).
    static constexpr bool fuses_activation = false;
    // The stream (params_int8.hpp): its LayerNorm into int8 or into itself, its add, int8 from it.
    template <int N, bool Rms, class Out>
    static void layer_norm(const std::int16_t* x, int rows, const layer_norm_int8<N, Rms>& p, Out* y) noexcept {
        ref::layer_norm(x, rows, p, y);
    }
    static void add(std::int16_t* x, const std::int8_t* a, int n, const stream_add_int8& p) noexcept {
        ref::add(x, a, n, p);
    }
    static void narrow(const std::int16_t* x, int n, const stream_narrow_int8& p, std::int8_t* y) noexcept {
        ref::narrow(x, n, p, y);
    }
    static void widen(const std::int8_t* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
        ref::widen(a, n, p, y);
    }
    // Rotary positions: one row of D queries or keys turned in place, cos and sin in Q14.
    template <int D, int HeadDim, bool Interleaved>
    static void rotate(std::int8_t* x, const std::int16_t* cos, const std::int16_t* sin) noexcept {
        ref::rotate<D, HeadDim, Interleaved>(x, cos, sin);
    }
    // A gated feed-forward's hidden rows (reference/glu_int8.hpp): row r's [a | b] (2F values at
    // 2 r F) becomes its F values table(a) * b at r F.
    template <int F>
    static void glu(std::int8_t* h, int rows, const std::int8_t* table, const gate_int8& p) noexcept {
        ref::glu<F>(h, rows, table, p);
    }
    // Model steps (reference/embedding.hpp, linear_int8.hpp): embedding rows, the rounded mean of
    // n rows, a head's int32 outputs.
    template <int D>
    static void embed(const std::int8_t* table, const std::int32_t* ids, int rows, std::int8_t* y) noexcept {
        ref::embed<D>(table, ids, rows, y);
    }
    template <int D>
    static void mean_rows(const std::int8_t* x, int n, std::int8_t* y) noexcept { ref::mean_rows<D>(x, n, y); }
    template <int D>
    static void mean_rows(const std::int16_t* x, int n, std::int16_t* y) noexcept { ref::mean_rows<D>(x, n, y); }
    template <int In, int Out>
    static void linear_wide(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int32_t* y) noexcept {
        ref::linear_wide(x, rows, p, y);
    }
};

// a16w8: int16 activations, each within its consumer's limit (params_a16w8.hpp); the stream's
// LayerNorm and softmax are int8's.
struct a16w8_kernels {
    static constexpr bool fuses_activation = false;
    template <int In, int Out>
    static void linear(const std::int16_t* x, int rows, const linear_a16w8<In, Out>& p, std::int16_t* y) noexcept {
        ref::linear(x, rows, p, y);
    }
    template <int N, bool Rms, class Out>
    static void layer_norm(const std::int16_t* x, int rows, const layer_norm_int8<N, Rms>& p, Out* y) noexcept {
        ref::layer_norm(x, rows, p, y);
    }
    template <int D, int HeadDim, int S>
    static void store_keys(const std::int16_t* k, int rows, int j0, std::int16_t* kt) noexcept {
        ref::store_keys<D, HeadDim, S>(k, rows, j0, kt);
    }
    template <int D, int HeadDim, int S>
    static void store_values(const std::int16_t* v, int rows, int j0, std::int16_t* values) noexcept {
        ref::store_values<D, HeadDim, S>(v, rows, j0, values);
    }
    template <int HeadDim, int KStride>
    static void attention_scores(const std::int16_t* q, const std::int16_t* kt, int n, std::int32_t* s) noexcept {
        ref::attention_scores<HeadDim, KStride>(q, kt, n, s);
    }
    template <int Stride>
    static void softmax_rows(std::int32_t* s, int rows, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        ref::softmax_rows<Stride>(s, rows, n, m, p);
    }
    static void softmax(std::int32_t* s, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        ref::softmax(s, n, m, p);
    }
    template <int HeadDim, int VStride>
    static void attention_context(const std::int16_t* p, const std::int16_t* v, int n, const attention_a16w8& a,
                                  std::int16_t* ctx) noexcept {
        ref::attention_context<HeadDim, VStride>(p, v, n, a.context, a.context_limit, ctx);
    }
    static void activate(std::int16_t* x, int n, const activation_a16w8& a) noexcept { ref::activate(x, n, a); }
    template <int F>
    static void glu(std::int16_t* h, int rows, const activation_a16w8& a, const gate_a16w8& p) noexcept {
        ref::glu<F>(h, rows, a, p);
    }
    static void add(std::int16_t* x, const std::int16_t* a, int n, const stream_add_int8& p) noexcept {
        ref::add(x, a, n, p);
    }
    static void narrow(const std::int16_t* x, int n, const stream_narrow_a16w8& p, std::int16_t* y) noexcept {
        ref::narrow(x, n, p, y);
    }
    template <int D, int HeadDim, bool Interleaved>
    static void rotate(std::int16_t* x, const std::int16_t* cos, const std::int16_t* sin) noexcept {
        ref::rotate<D, HeadDim, Interleaved>(x, cos, sin);
    }
    // Model steps (model_weights_int8.hpp): int8 rows (token tables, CLS, positions) and int16
    // ones (the input step's, features and images) into the stream, the rounded mean of n rows,
    // a classifier's int32 outputs.
    static void add(std::int16_t* x, const std::int8_t* a, int n, const stream_add_int8& p) noexcept {
        ref::add(x, a, n, p);
    }
    static void widen(const std::int8_t* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
        ref::widen(a, n, p, y);
    }
    static void widen(const std::int16_t* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
        ref::widen(a, n, p, y);
    }
    template <int D>
    static void mean_rows(const std::int16_t* x, int n, std::int16_t* y) noexcept { ref::mean_rows<D>(x, n, y); }
    template <int In, int Out>
    static void linear_wide(const std::int16_t* x, int rows, const linear_a16w8<In, Out>& p, std::int32_t* y) noexcept {
        ref::linear_wide(x, rows, p, y);
    }
};

}  // namespace kernels

template <class Backend>
struct a16w8_kernel_set : kernels::a16w8_kernels {};
template <>
struct kernel_set<reference> : kernels::float_kernels {};
template <>
struct int8_kernel_set<reference> : kernels::int8_kernels {};

}  // namespace staticformer
