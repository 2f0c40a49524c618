// staticformer: decorated<K, Hook>, the kernel set K with a hook around every op, for whoever
// must observe, time or skip kernels of a pass (sf::forward_with<decorated<K, Hook>>): the
// calibration's recorder, the benchmarks' kernel shares, the Cortex-M per-kernel profile.
//
// Each op of K (float_kernels, int8_kernels or a16w8_kernels, whichever K derives from) becomes
//     Hook::template run<Kind>(call)
// with Kind the op's op_kind and call an op_call: call() performs K's op (a hook calls it once,
// or not at all to leave the op out), call.in and call.out are the rows it reads and writes,
// call.params its weights or parameters. A hook is a type with a static member template run; it
// may keep static state. When everything inlines, a hook that only calls call() leaves K's code
// as it was.
//
// This file and kernel_set.hpp are the only lists of the ops: an op added there is added here.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../config.hpp"
#include "kernel_set.hpp"

// Each op's lambda (the call to K's op) is inlined whatever the heuristics: one more level of
// inlining makes GCC inline the encoder's blocks differently around the kernels, so the
// decorated set's kernels would compile unlike K's own (seen on the Cortex-M profile).
#if defined(__GNUC__)
#define STATICFORMER_INLINE_LAMBDA __attribute__((always_inline))
#else
#define STATICFORMER_INLINE_LAMBDA
#endif

namespace staticformer {
namespace kernels {

// What a hook is told an op is. scores and context are attention's two halves; an int8 set's
// fused linear_activate and the int8 head's linear_wide count as linear; store_keys,
// store_values and mean_rows are other.
enum class op_kind { linear, scores, softmax, context, layer_norm, activation, gate, add, embed, rotary, other };

// Rows of a tensor an op reads or writes: rows x cols values, row r at data + r * stride.
template <class T>
struct rows_view {
    T* data;
    int rows, cols, stride;
};

template <class T>
STATICFORMER_ALWAYS_INLINE rows_view<T> rows_of(T* data, int rows, int cols, int stride) noexcept {
    return {data, rows, cols, stride};
}
template <class T>
STATICFORMER_ALWAYS_INLINE rows_view<T> rows_of(T* data, int rows, int cols) noexcept {
    return {data, rows, cols, cols};
}

// One call of an op, as its hook sees it. in: the operand the op reads first (x; attention's
// queries or probabilities; add's addend; embedding's ids). out: what it writes; the same rows as
// in for the in-place ops (softmax and activation; add's out is its accumulator). store_keys and
// store_values write in the set's own layout: out.data is the buffer, out.rows 0. params: the op's
// weights (linear's w, layer_norm's gamma, embedding's table), its int8 parameter block, the
// int8 activation table or softmax / context multiplier, else nullptr. Valid during run only.
template <class F, class In, class Out, class P>
struct op_call {
    F perform;
    rows_view<In> in;
    rows_view<Out> out;
    const P* params;
    STATICFORMER_ALWAYS_INLINE void operator()() const noexcept { perform(); }
};

namespace detail {

template <op_kind Kind, class Hook, class F, class In, class Out, class P = void>
STATICFORMER_ALWAYS_INLINE void hooked(const F& f, rows_view<In> in, rows_view<Out> out,
                                       const P* params = nullptr) noexcept {
    Hook::template run<Kind>(op_call<const F&, In, Out, P>{f, in, out, params});
}

// The ops of float_kernels, each K's own, inside Hook.
template <class K, class Hook>
struct decorated_float : K {
    template <int In, int Out, int WStride = Out, class W>
    static void linear(const float* x, int rows, const W* w, const W* b, float* y) noexcept {
        hooked<op_kind::linear, Hook>(
            [&]() STATICFORMER_INLINE_LAMBDA { K::template linear<In, Out, WStride>(x, rows, w, b, y); },
            rows_of(x, rows, In), rows_of(y, rows, Out), w);
    }
    template <int N, bool Rms = false, class W>
    static void layer_norm(const float* x, int rows, const W* g, const W* b, float eps, float* y) noexcept {
        hooked<op_kind::layer_norm, Hook>(
            [&]() STATICFORMER_INLINE_LAMBDA {
                if constexpr (Rms) K::template layer_norm<N, true>(x, rows, g, b, eps, y);
                else K::template layer_norm<N>(x, rows, g, b, eps, y);  // a set without RMSNorm too
            },
            rows_of(x, rows, N), rows_of(y, rows, N), g);
    }
    template <int D, int S>
    static void store_keys(const float* k, int rows, int j0, float* kt) noexcept {
        hooked<op_kind::other, Hook>(
            [&]() STATICFORMER_INLINE_LAMBDA { K::template store_keys<D, S>(k, rows, j0, kt); },
            rows_of(k, rows, D), rows_of(kt, 0, 0));
    }
    template <int HeadDim, int KStride, int QStride>
    static void attention_scores(const float* q, int rows, const float* kt, int n, float* s) noexcept {
        hooked<op_kind::scores, Hook>(
            [&]() STATICFORMER_INLINE_LAMBDA {
                K::template attention_scores<HeadDim, KStride, QStride>(q, rows, kt, n, s);
            },
            rows_of(q, rows, HeadDim, QStride), rows_of(s, rows, n, KStride));
    }
    template <int Stride>
    static void softmax(float* s, int rows, int n) noexcept {
        hooked<op_kind::softmax, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::template softmax<Stride>(s, rows, n); },
                                       rows_of(s, rows, n, Stride), rows_of(s, rows, n, Stride));
    }
    template <int HeadDim, int VStride, int PStride, int CStride = VStride>
    static void attention_context(const float* p, int rows, const float* v, int n, float* ctx) noexcept {
        hooked<op_kind::context, Hook>(
            [&]() STATICFORMER_INLINE_LAMBDA {
                // (three arguments where they suffice: a wrapped set of one's own may take no CStride)
                if constexpr (CStride == VStride) K::template attention_context<HeadDim, VStride, PStride>(p, rows, v, n, ctx);
                else K::template attention_context<HeadDim, VStride, PStride, CStride>(p, rows, v, n, ctx);
            },
            rows_of(p, rows, n, PStride), rows_of(ctx, rows, HeadDim, CStride));
    }
    template <activation_kind Act>
    static void activate(float* x, int n) noexcept {
        hooked<op_kind::activation, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::template activate<Act>(x, n); },
                                          rows_of(x, 1, n), rows_of(x, 1, n));
    }
    template <class W>
    static void add(float* y, const W* x, int n) noexcept {
        hooked<op_kind::add, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::add(y, x, n); },
                                   rows_of(x, 1, n), rows_of(y, 1, n));
    }
    static void multiply(float* y, const float* a, const float* b, int n) noexcept {
        hooked<op_kind::gate, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::multiply(y, a, b, n); },
                                    rows_of(b, 1, n), rows_of(y, 1, n));
    }
    template <int D, int HeadDim, bool Interleaved>
    static void rotate(float* x, const float* cos, const float* sin) noexcept {
        hooked<op_kind::rotary, Hook>(
            [&]() STATICFORMER_INLINE_LAMBDA { K::template rotate<D, HeadDim, Interleaved>(x, cos, sin); },
            rows_of(x, 1, D), rows_of(x, 1, D), cos);
    }
    template <int D, class W>
    static void embed(const W* table, const std::int32_t* ids, int rows, float* y) noexcept {
        hooked<op_kind::embed, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::template embed<D>(table, ids, rows, y); },
                                     rows_of(ids, 1, rows), rows_of(y, rows, D), table);
    }
    template <int D, class W, class PW>
    static void embed_scaled(const W* table, const std::int32_t* ids, int rows, float scale, const PW* positions,
                             float* y) noexcept {
        hooked<op_kind::embed, Hook>(
            [&]() STATICFORMER_INLINE_LAMBDA { K::template embed_scaled<D>(table, ids, rows, scale, positions, y); },
            rows_of(ids, 1, rows), rows_of(y, rows, D), table);
    }
    template <int D>
    static void mean_rows(const float* x, int n, float* y) noexcept {
        hooked<op_kind::other, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::template mean_rows<D>(x, n, y); },
                                     rows_of(x, n, D), rows_of(y, 1, D));
    }
};

// The ops of int8_kernels and a16w8_kernels, each K's own, inside Hook: V is the block tensors'
// type (int8 or a16w8's int16), the stream int16 in both. The parameters' types are K's (int8's
// or a16w8's blocks); members K lacks (int8's linear_activate and embed) are only instantiated
// where K has them.
template <class K, class Hook>
struct decorated_integer : K {
    using V = std::conditional_t<std::is_base_of<a16w8_kernels, K>::value, std::int16_t, std::int8_t>;

    template <class L>
    static void linear(const V* x, int rows, const L& p, V* y) noexcept {
        hooked<op_kind::linear, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::linear(x, rows, p, y); },
                                      rows_of(x, rows, L::inputs), rows_of(y, rows, L::outputs), &p);
    }
    template <class L, class T>
    static void linear_activate(const V* x, int rows, const L& p, const T* table, V* y) noexcept {
        hooked<op_kind::linear, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::linear_activate(x, rows, p, table, y); },
                                      rows_of(x, rows, L::inputs), rows_of(y, rows, L::outputs), &p);
    }
    template <class L>
    static void linear_wide(const V* x, int rows, const L& p, std::int32_t* y) noexcept {
        hooked<op_kind::linear, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::linear_wide(x, rows, p, y); },
                                      rows_of(x, rows, L::inputs), rows_of(y, rows, L::outputs), &p);
    }
    template <int D, int HeadDim, int S>
    static void store_keys(const V* k, int rows, int j0, V* kt) noexcept {
        hooked<op_kind::other, Hook>(
            [&]() STATICFORMER_INLINE_LAMBDA { K::template store_keys<D, HeadDim, S>(k, rows, j0, kt); },
            rows_of(k, rows, D), rows_of(kt, 0, 0));
    }
    template <int D, int HeadDim, int S>
    static void store_values(const V* v, int rows, int j0, V* values) noexcept {
        hooked<op_kind::other, Hook>(
            [&]() STATICFORMER_INLINE_LAMBDA { K::template store_values<D, HeadDim, S>(v, rows, j0, values); },
            rows_of(v, rows, D), rows_of(values, 0, 0));
    }
    template <int HeadDim, int KStride>
    static void attention_scores(const V* q, const V* kt, int n, std::int32_t* s) noexcept {
        hooked<op_kind::scores, Hook>(
            [&]() STATICFORMER_INLINE_LAMBDA { K::template attention_scores<HeadDim, KStride>(q, kt, n, s); },
            rows_of(q, 1, HeadDim), rows_of(s, 1, n));
    }
    static void softmax(std::int32_t* s, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        hooked<op_kind::softmax, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::softmax(s, n, m, p); },
                                       rows_of(s, 1, n), rows_of(p, 1, n), &m);
    }
    template <int Stride>
    static void softmax_rows(std::int32_t* s, int rows, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        hooked<op_kind::softmax, Hook>(
            [&]() STATICFORMER_INLINE_LAMBDA { K::template softmax_rows<Stride>(s, rows, n, m, p); },
            rows_of(s, rows, n, Stride), rows_of(p, rows, n, Stride), &m);
    }
    // A: int8's context multiplier, a16w8's attention block.
    template <int HeadDim, int VStride, class A>
    static void attention_context(const std::int16_t* p, const V* v, int n, const A& a, V* ctx) noexcept {
        hooked<op_kind::context, Hook>(
            [&]() STATICFORMER_INLINE_LAMBDA { K::template attention_context<HeadDim, VStride>(p, v, n, a, ctx); },
            rows_of(p, 1, n), rows_of(ctx, 1, HeadDim), &a);
    }
    // The activation and the gate: int8's table, a16w8's activation block (each used by its own set only).
    static void activate(V* x, int n, const std::int8_t* table) noexcept {
        hooked<op_kind::activation, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::activate(x, n, table); },
                                          rows_of(x, 1, n), rows_of(x, 1, n), table);
    }
    static void activate(V* x, int n, const activation_a16w8& a) noexcept {
        hooked<op_kind::activation, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::activate(x, n, a); },
                                          rows_of(x, 1, n), rows_of(x, 1, n), &a);
    }
    template <int F>
    static void glu(V* h, int rows, const std::int8_t* table, const gate_int8& p) noexcept {
        hooked<op_kind::gate, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::template glu<F>(h, rows, table, p); },
                                    rows_of(h, rows, 2 * F), rows_of(h, rows, F), &p);
    }
    template <int F>
    static void glu(V* h, int rows, const activation_a16w8& a, const gate_a16w8& p) noexcept {
        hooked<op_kind::gate, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::template glu<F>(h, rows, a, p); },
                                    rows_of(h, rows, 2 * F), rows_of(h, rows, F), &p);
    }
    template <int D, int HeadDim, bool Interleaved>
    static void rotate(V* x, const std::int16_t* cos, const std::int16_t* sin) noexcept {
        hooked<op_kind::rotary, Hook>(
            [&]() STATICFORMER_INLINE_LAMBDA { K::template rotate<D, HeadDim, Interleaved>(x, cos, sin); },
            rows_of(x, 1, D), rows_of(x, 1, D), cos);
    }
    // The stream's ops: a LayerNorm from it, a tensor added into it, read from it (narrowed), widened.
    template <int N, bool Rms, class Out>
    static void layer_norm(const std::int16_t* x, int rows, const layer_norm_int8<N, Rms>& p, Out* y) noexcept {
        hooked<op_kind::layer_norm, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::layer_norm(x, rows, p, y); },
                                          rows_of(x, rows, N), rows_of(y, rows, N), &p);
    }
    template <class A>
    static void add(std::int16_t* x, const A* a, int n, const stream_add_int8& p) noexcept {
        hooked<op_kind::add, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::add(x, a, n, p); },
                                   rows_of(a, 1, n), rows_of(x, 1, n), &p);
    }
    template <class N>
    static void narrow(const std::int16_t* x, int n, const N& p, V* y) noexcept {
        hooked<op_kind::other, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::narrow(x, n, p, y); },
                                     rows_of(x, 1, n), rows_of(y, 1, n), &p);
    }
    template <class A>
    static void widen(const A* a, int n, const stream_add_int8& p, std::int16_t* y) noexcept {
        hooked<op_kind::other, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::widen(a, n, p, y); },
                                     rows_of(a, 1, n), rows_of(y, 1, n), &p);
    }
    template <int D, class T>
    static void mean_rows(const T* x, int n, T* y) noexcept {
        hooked<op_kind::other, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::template mean_rows<D>(x, n, y); },
                                     rows_of(x, n, D), rows_of(y, 1, D));
    }
    template <int D>
    static void embed(const V* table, const std::int32_t* ids, int rows, V* y) noexcept {
        hooked<op_kind::embed, Hook>([&]() STATICFORMER_INLINE_LAMBDA { K::template embed<D>(table, ids, rows, y); },
                                     rows_of(ids, 1, rows), rows_of(y, rows, D), table);
    }
};

}  // namespace detail

// K with Hook around each of its ops; K's ops and members otherwise, so decorated sets nest.
template <class K, class Hook>
using decorated = std::conditional_t<std::is_base_of<int8_kernels, K>::value || std::is_base_of<a16w8_kernels, K>::value,
                                     detail::decorated_integer<K, Hook>, detail::decorated_float<K, Hook>>;

}  // namespace kernels
}  // namespace staticformer

#undef STATICFORMER_INLINE_LAMBDA
