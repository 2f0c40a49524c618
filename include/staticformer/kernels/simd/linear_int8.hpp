// staticformer: int8 and a16w8 y = x W + b with intrinsics (optimised; bit-identical to
// reference/linear_int8.hpp).
//
// The weights' layout w[i / 4][o][i % 4] puts, for one group of four inputs, the four weights of
// each output in one 32-bit lane: a vector load covers `lanes` outputs x 4 inputs, the four
// inputs of a row are broadcast to every lane, and one widening dot-product instruction adds
// the four products into each output's int32 accumulator. A register tile of Rows x Vecs
// accumulators reuses each weight load across rows and each broadcast across vectors.
//
// VPDPBUSD multiplies unsigned by signed bytes. The weights are made unsigned, w + 128 (w xor
// 0x80, exact for every int8 including -128), and the accumulator starts at
// bias - 128 * sum_i x[i]: one row sum per call, shared by every output (column sums of w would
// have to be recomputed in every call, the weights being constants in flash). Sums wrap
// modulo 2^32 like the reference's int32 arithmetic, so the result is the same integer.
// Each accumulator then goes through the vector rescale (isa/; on x86 the shorter one for
// int16 multipliers when the shift is at least 17, the usual case, with the zero point in its
// rounding constant). Columns that fill no whole vector use masked loads and stores (AVX-512)
// or the reference's per-output routine. The per-ISA step is linear_isa (isa/int8.hpp).
//
// a16w8 (int16 inputs, int16 outputs) runs the same tiles with linear16_isa: the four inputs of
// a group are four int16 (one 64-bit word), multiplied by the weights widened to int16 (x86
// VPMADDWD / VPDPWSSD, NEON SMLAL), signed: no row sums; outputs rescaled and clamped.
#pragma once

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

#include "../isa/int8.hpp"
#include "../reference/linear_int8.hpp"

namespace staticformer {
namespace kernels {
namespace simd_int8 {

#if defined(STATICFORMER_INT8_X86) || defined(STATICFORMER_INT8_ARM)

// The step of a precision's linear layer (int8 inputs: linear_isa; a16w8's int16: linear16_isa)
// and the constant its store takes: int8's output zero point, a16w8's output limit.
template <int In, int Out>
linear_isa step_of(const linear_int8<In, Out>&);
template <int In, int Out>
linear16_isa step_of(const linear_a16w8<In, Out>&);
template <class P>
using step_for = decltype(step_of(std::declval<const P&>()));

template <int In, int Out>
std::int32_t store_constant(const linear_int8<In, Out>& p) noexcept { return p.output_zero_point; }
template <int In, int Out>
std::int32_t store_constant(const linear_a16w8<In, Out>& p) noexcept { return p.output_limit; }
template <int In, int Out>
std::int32_t zero_point_of(const linear_int8<In, Out>& p) noexcept { return p.output_zero_point; }
template <int In, int Out>
std::int32_t zero_point_of(const linear_a16w8<In, Out>&) noexcept { return 0; }

// Rows x Vecs vectors of outputs from column c; with Tail, the last vector is masked by tail.
template <int Rows, int Vecs, bool Tail, class P, class X, class Y, class Params, class I = step_for<P>>
inline void linear_tile(const X* x, const P& p, const std::int32_t* row_init, Y* y, int c, typename I::mask tail,
                        const Params& k) noexcept {
    constexpr int In = P::inputs, Out = P::outputs, L = I::lanes;
    typename I::mask m[Vecs];
#pragma GCC unroll 8
    for (int v = 0; v < Vecs; ++v) m[v] = Tail && v == Vecs - 1 ? tail : I::full();
    typename I::acc acc[Rows][Vecs];
#pragma GCC unroll 8
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 8
        for (int v = 0; v < Vecs; ++v) acc[r][v] = I::init(p.bias + c + v * L, row_init[r], m[v]);
    constexpr int whole = In / 4;
    for (int g = 0; g < whole; ++g) {
        typename I::wvec wv[Vecs];
#pragma GCC unroll 8
        for (int v = 0; v < Vecs; ++v) wv[v] = I::load_w(&p.w[g][c + v * L][0], m[v]);
#pragma GCC unroll 8
        for (int r = 0; r < Rows; ++r) {
            const typename I::xvec xb = I::broadcast(load4(x + r * In + 4 * g));
#pragma GCC unroll 8
            for (int v = 0; v < Vecs; ++v) acc[r][v] = I::dot(acc[r][v], wv[v], xb);
        }
    }
    if constexpr (In % 4 != 0) {  // the last group: In % 4 inputs, zero weights beyond
        typename I::wvec wv[Vecs];
#pragma GCC unroll 8
        for (int v = 0; v < Vecs; ++v) wv[v] = I::load_w(&p.w[whole][c + v * L][0], m[v]);
#pragma GCC unroll 8
        for (int r = 0; r < Rows; ++r) {
            const typename I::xvec xb = I::broadcast(load_partial4(x + r * In + 4 * whole, In % 4));
#pragma GCC unroll 8
            for (int v = 0; v < Vecs; ++v) acc[r][v] = I::dot(acc[r][v], wv[v], xb);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 8
        for (int v = 0; v < Vecs; ++v)
            I::store(y + r * Out + c + v * L, acc[r][v], p.multiplier + c + v * L, k, store_constant(p), m[v]);
}

// One tile of `height` rows, 1 <= height <= Rows (each height its own instantiation).
template <int Vecs, bool Tail, int Rows, class P, class X, class Y, class Params, class I = step_for<P>>
inline void linear_tile_of_height(int height, const X* x, const std::int32_t* row_init, const P& p, Y* y, int c,
                                  typename I::mask tail, const Params& k) noexcept {
    if constexpr (Rows > 0) {
        if (height == Rows) linear_tile<Rows, Vecs, Tail>(x, p, row_init, y, c, tail, k);
        else linear_tile_of_height<Vecs, Tail, Rows - 1>(height, x, row_init, p, y, c, tail, k);
    }
}

// Every row of one column block in as few tiles of at most I::rows rows as will do, of
// near-equal heights: 32 rows in tiles of 6 as 5, 5, 5, 5, 6, 6 rather than 6 x 5 + 2, whose
// 2-row tile has too few chains to hide the dot products' latency.
template <int Vecs, bool Tail, class P, class X, class Y, class Params, class I = step_for<P>>
inline void linear_column_block(const X* x, int rows, const std::int32_t* row_init, const P& p, Y* y, int c,
                                typename I::mask tail, const Params& k) noexcept {
    constexpr int In = P::inputs, Out = P::outputs, R = I::rows;
    for (int r = 0, height; r < rows; r += height) {
        height = first_tile_rows<R>(r, rows);
        linear_tile_of_height<Vecs, Tail, R>(height, x + r * In, row_init + r, p, y + r * Out, c, tail, k);
    }
}

// Every column of a chunk of rows, each output requantised with k.
template <class P, class X, class Y, class Params, class I = step_for<P>>
inline void linear_columns(const X* x, int rows, const std::int32_t* row_init, const P& p, Y* y,
                           const Params& k) noexcept {
    constexpr int In = P::inputs, Out = P::outputs, L = I::lanes, V = I::vecs;
    constexpr int tiled = Out / (V * L) * (V * L);  // columns in blocks of V vectors
    constexpr int vectored = Out / L * L;           // then one block of the rest
    constexpr int rest = (vectored - tiled) / L;
    for (int c = 0; c < tiled; c += V * L) linear_column_block<V, false>(x, rows, row_init, p, y, c, I::full(), k);
    if constexpr (I::masked && vectored < Out) {
        linear_column_block<rest + 1, true>(x, rows, row_init, p, y, tiled, I::tail(Out - vectored), k);
    } else {
        if constexpr (rest > 0) linear_column_block<rest, false>(x, rows, row_init, p, y, tiled, I::full(), k);
        for (int c = vectored; c < Out; ++c)
            for (int r = 0; r < rows; ++r)
                y[r * Out + c] = reference::linear_output(reference::linear_accumulator(x + r * In, p, c), p, c);
    }
}

inline bool nonnegative(const std::int16_t* v, int n) noexcept {
    std::int16_t any_sign = 0;
    for (int i = 0; i < n; ++i) any_sign |= v[i];
    return any_sign >= 0;
}

// Column blocks outermost (linear_columns), over a chunk of at most linear_chunk rows: a block's
// weights (In x Vecs vectors) are read from memory once per chunk and reused from cache by each
// row tile.
constexpr int linear_chunk = 64;

#if defined(STATICFORMER_INT8_AMX)
// AMX tiles take int8 layers of at least 64 inputs whose outputs come in whole blocks of 16
// (x86_amx.hpp); others, and a16w8, run the VNNI tiles.
template <class P>
struct amx_fits : std::false_type {};
template <int In, int Out>
struct amx_fits<linear_int8<In, Out>> : std::bool_constant<In >= 64 && Out % 16 == 0> {};

// ... and calls of at least 32 rows and 2^18 multiply-adds: smaller ones, alone faster on tiles,
// made whole encoders slower (a d_model-32 encoder by 10-20%, tiny at 17-31 rows by up to 15%;
// bench/PERF_NOTES.md), for a cost of switching to the tiles that was not pinned down.
inline bool amx_pays(int rows, int in, int out) noexcept {
    return rows >= 32 && std::int64_t(rows) * in * out >= (std::int64_t(1) << 18);
}

// The int32 sums of a block of Cols outputs from c (rows 32 apart) plus the bias, requantised by
// the VNNI tiles' store. Inlined: out of line, GCC 12 -Os judged it free of side effects (its
// stores are the store builtins) and dropped the calls.
template <int Cols, int In, int Out, class Params>
STATICFORMER_ALWAYS_INLINE void store_block(const std::int32_t* acc, int height, const linear_int8<In, Out>& p,
                                             std::int8_t* y, int c, const Params& k) noexcept {
    using I = linear_isa;
    for (int i = 0; i < height; ++i)
        for (int v = 0; v < Cols / I::lanes; ++v) {
            const int o = c + v * I::lanes;
            const __m512i sum = _mm512_add_epi32(_mm512_load_si512(acc + i * 32 + v * I::lanes),
                                                 _mm512_loadu_si512(p.bias + o));
            I::store(y + i * Out + o, sum, p.multiplier + o, k, p.output_zero_point, I::full());
        }
}

// The last In % 64 inputs of each row, then zeros: 64 bytes a row, the x of a block's last step.
template <int In>
inline void copy_x_tail(const std::int8_t* x, int rows, std::int8_t* tail) noexcept {
    constexpr int whole = In / 64 * 64;
    for (int r = 0; r < rows; ++r) {
        std::memset(tail + r * 64, 0, 64);
        std::memcpy(tail + r * 64, x + r * In + whole, In - whole);
    }
}

// Those inputs' groups of weights for outputs [c, c + Cols), then zero groups: 16 rows of 128 bytes.
template <int Cols, int In, int Out>
inline void copy_w_tail(const linear_int8<In, Out>& p, int c, std::int8_t* tail) noexcept {
    constexpr int first = In / 64 * 16, groups = linear_int8<In, Out>::in_groups - first;
    std::memset(tail, 0, 16 * 128);
    for (int g = 0; g < groups; ++g) std::memcpy(tail + g * 128, &p.w[first + g][c][0], 4 * Cols);
}

// Outputs [c, c + Cols) of rows [0, rows) (rows % 16 == 0): rows in blocks of 32 (the last of
// 16), each block's sums requantised as soon as they are made. (Requantising a block after
// issuing the next block's tile products measured the same.)
template <int Cols, int In, int Out, class Params>
STATICFORMER_AMX_TARGET inline void amx_column_block(const std::int8_t* x, int rows, const linear_int8<In, Out>& p,
                                                     std::int8_t* y, int c, const Params& k,
                                                     const std::int8_t* x_tail, std::int8_t* w_tail) noexcept {
    alignas(64) std::int32_t acc[32 * 32];
    if constexpr (In % 64 != 0) copy_w_tail<Cols>(p, c, w_tail);
    const std::int8_t* w = &p.w[0][c][0];
    for (int r = 0; r < rows; r += 32) {
        const std::int8_t* xt = In % 64 != 0 ? x_tail + r * 64 : nullptr;  // (no tail: no copy)
        if (rows - r >= 32) {
            amx::accumulate<32, Cols, In>(x + r * In, In, w, 4L * Out, xt, w_tail);
            amx::store_sums<32, Cols>(acc);
            store_block<Cols>(acc, 32, p, y + r * Out, c, k);
        } else {
            amx::accumulate<16, Cols, In>(x + r * In, In, w, 4L * Out, xt, w_tail);
            amx::store_sums<16, Cols>(acc);
            store_block<Cols>(acc, 16, p, y + r * Out, c, k);
        }
    }
}

// Rows [0, rows) of an int8 layer (rows % 16 == 0, rows <= amx_chunk) through AMX, column blocks
// of 32 outermost (the last of 16): each block's weights are read from memory once a call, the
// rows from L1 by every block. (128 rows a call, whose rows no longer stay in L1, were slower.)
constexpr int amx_chunk = 64;

template <int In, int Out, class Params>
STATICFORMER_AMX_TARGET inline void linear_amx_rows(const std::int8_t* x, int rows, const linear_int8<In, Out>& p,
                                                    std::int8_t* y, const Params& k) noexcept {
    constexpr bool tail = In % 64 != 0;
    alignas(64) std::int8_t x_copy[tail ? amx_chunk * 64 : 1], w_copy[tail ? 16 * 128 : 1];
    std::int8_t *x_tail = nullptr, *w_tail = nullptr;
    if constexpr (tail) {
        x_tail = x_copy, w_tail = w_copy;
        copy_x_tail<In>(x, rows, x_tail);
    }
    amx::load_config();
    int c = 0;
    for (; c + 32 <= Out; c += 32) amx_column_block<32>(x, rows, p, y, c, k, x_tail, w_tail);
    if constexpr (Out % 32 != 0) amx_column_block<16>(x, rows, p, y, c, k, x_tail, w_tail);
    amx::release();
}
#endif

// The VNNI tiles over a chunk of at most linear_chunk rows, each output requantised with k.
template <class P, class X, class Y, class Params, class I = step_for<P>>
inline void linear_chunk_tiles(const X* x, int rows, const P& p, Y* y, const Params& k) noexcept {
    std::int32_t row_init[linear_chunk] = {};
    if constexpr (I::row_sum)
        for (int r = 0; r < rows; ++r) row_init[r] = -128 * I::sum(x + r * P::inputs, P::inputs);
    linear_columns(x, rows, row_init, p, y, k);
}

// f(k) with the layer's requantisation parameters k. On x86 the int16 multipliers' shorter exact
// requantisation where the shift and the zero point allow it (isa/x86_avx2.hpp). It takes
// multipliers >= 0, as valid weights have (is_valid); weights built by hand with a negative one
// take the general rescale, so the output still equals the reference's.
template <class P, class F, class I = step_for<P>>
inline void with_requantize_params(const P& p, const F& f) noexcept {
#if defined(STATICFORMER_INT8_X86)
    if (requantize_narrow_params::fits(p.shift, zero_point_of(p)) && nonnegative(p.multiplier, P::outputs)) {
        f(requantize_narrow_params(p.shift, zero_point_of(p)));
        return;
    }
#endif
    f(typename I::params(p.shift));
}

// int8 (int8 rows in and out) and a16w8 (int16 rows in and out) through the same tiles, in
// chunks of linear_chunk rows; with AMX, an int8 layer's rows in blocks of 16 through the tiles,
// amx_chunk rows a call, and the rows % 16 left through the VNNI tiles (a tile layout of fewer
// rows for them, loaded and unloaded per column block, was slower: bench/PERF_NOTES.md).
template <class P, class X, class Y>
inline void linear_rows(const X* x, int rows, const P& p, Y* y) noexcept {
    constexpr int In = P::inputs, Out = P::outputs;
    with_requantize_params(p, [&](const auto& k) {
#if defined(STATICFORMER_INT8_AMX)
        if constexpr (amx_fits<P>::value)
            if (amx_pays(rows, In, Out) && amx::usable()) {
                const int blocks = rows / 16 * 16;
                for (int r = 0; r < blocks; r += amx_chunk)
                    linear_amx_rows(x + r * In, std::min(amx_chunk, blocks - r), p, y + r * Out, k);
                x += blocks * In, y += blocks * Out, rows -= blocks;
            }
#endif
        for (int r = 0; r < rows; r += linear_chunk)
            linear_chunk_tiles(x + r * In, std::min(linear_chunk, rows - r), p, y + r * Out, k);
    });
}
template <int In, int Out>
inline void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
    linear_rows(x, rows, p, y);
}
template <int In, int Out>
inline void linear(const std::int16_t* x, int rows, const linear_a16w8<In, Out>& p, std::int16_t* y) noexcept {
    linear_rows(x, rows, p, y);
}

#else

using reference::linear;  // no vector form on this target

#endif

}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
