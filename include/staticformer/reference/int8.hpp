// staticformer: the int8 kernels of the reference backend (normative) and its int8 kernel set.
// Integer-only: every formula is the one documented beside its parameters in weights_int8.hpp.
// Integer sums are exact, so an optimised kernel may add them in any order; what it must
// reproduce is each rounding step, and those all live in math/fixed_point.hpp.
#pragma once

#include <cstdint>
#include <cstring>

#include "../config.hpp"
#include "../math/fixed_point.hpp"
#include "../weights_int8.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

// acc = bias[o] + sum_i x[i] * w[i][o]
template <int In, int Out>
inline std::int32_t linear_accumulator(const std::int8_t* x, const linear_int8<In, Out>& p, int o) noexcept {
    std::int32_t acc = p.bias[o];
    for (int i = 0; i < In; ++i) acc += std::int32_t(x[i]) * p.w[i / 4][o][i % 4];
    return acc;
}

// Rows rows x Cols consecutive outputs from o, each exactly linear_accumulator()'s sum: the
// tile only saves loads on a scalar core (each weight serves Rows rows, each input Cols
// outputs, the accumulators stay in registers).
template <int In, int Out, int Rows, int Cols>
inline void linear_tile(const std::int8_t* x, const linear_int8<In, Out>& p, int o, std::int8_t* y) noexcept {
    std::int32_t acc[Rows][Cols];
#pragma GCC unroll 16
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 16
        for (int c = 0; c < Cols; ++c) acc[r][c] = p.bias[o + c];
    for (int g = 0; g < p.in_groups; ++g) {
        const std::int8_t(*wg)[4] = &p.w[g][o];  // wg[c][k]: input 4g + k, output o + c
        const int inputs = In - 4 * g < 4 ? In - 4 * g : 4;
#pragma GCC unroll 4
        for (int k = 0; k < inputs; ++k) {
            const int i = 4 * g + k;
#pragma GCC unroll 16
            for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 16
                for (int c = 0; c < Cols; ++c) acc[r][c] += x[r * In + i] * wg[c][k];
        }
    }
#pragma GCC unroll 16
    for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 16
        for (int c = 0; c < Cols; ++c)
            y[r * Out + o + c] = math::requantize(acc[r][c], p.multiplier[o + c], p.shift, p.output_zero_point);
}

// y[r][o] = requantize(linear_accumulator(x + r * In, p, o)) for r < rows, o < Out; rows two at a
// time, outputs four at a time, then the remainders.
template <int In, int Out>
inline void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
    constexpr int cols = 4, tiled_cols = Out - Out % cols;
    const int tiled_rows = rows - rows % 2;
    for (int r = 0; r < rows; r += r < tiled_rows ? 2 : 1) {
        const std::int8_t* xr = x + r * In;
        std::int8_t* yr = y + r * Out;
        if (r < tiled_rows) {
            if constexpr (tiled_cols > 0)  // (no 4-wide tile is even instantiated for Out < 4)
                for (int o = 0; o < tiled_cols; o += cols) linear_tile<In, Out, 2, cols>(xr, p, o, yr);
            for (int o = tiled_cols; o < Out; ++o) linear_tile<In, Out, 2, 1>(xr, p, o, yr);
        } else {
            if constexpr (tiled_cols > 0)
                for (int o = 0; o < tiled_cols; o += cols) linear_tile<In, Out, 1, cols>(xr, p, o, yr);
            for (int o = tiled_cols; o < Out; ++o) linear_tile<In, Out, 1, 1>(xr, p, o, yr);
        }
    }
}

// A row's statistics: the sum of its values and 2^40 / sqrt(N^2 var / scale^2 + eps).
struct norm_stats_int8 {
    std::int32_t sum;
    std::int64_t reciprocal;
};

template <int N>
inline norm_stats_int8 layer_norm_stats(const std::int8_t* x, const layer_norm_int8<N>& p) noexcept {
    std::int32_t sum = 0, sum_sq = 0;
    for (int c = 0; c < N; ++c) {
        sum += x[c];
        sum_sq += std::int32_t(x[c]) * x[c];
    }
    const std::int64_t variance = std::int64_t(N) * sum_sq - std::int64_t(sum) * sum;  // N^2 var / scale^2
    const std::uint32_t den = math::isqrt(std::uint64_t(variance + p.eps));
    return {sum, den == 0 ? 0 : (std::int64_t(1) << 40) / den};
}

// Output c of a row with statistics s.
template <int N>
inline std::int8_t layer_norm_output(std::int8_t x, norm_stats_int8 s, const layer_norm_int8<N>& p, int c) noexcept {
    const std::int64_t centred = std::int64_t(N) * x - s.sum;
    const std::int32_t z = std::int32_t((centred * s.reciprocal + (std::int64_t(1) << 31)) >> 32);  // Q8
    return math::requantize(z * p.gamma[c] + p.beta[c], 1, p.shift, p.output_zero_point);
}

// One row; y may equal x.
template <int N>
inline void layer_norm_row(const std::int8_t* x, const layer_norm_int8<N>& p, std::int8_t* y) noexcept {
    const norm_stats_int8 s = layer_norm_stats(x, p);
    for (int c = 0; c < N; ++c) y[c] = layer_norm_output(x[c], s, p, c);
}

template <int N>
inline void layer_norm(const std::int8_t* x, int rows, const layer_norm_int8<N>& p, std::int8_t* y) noexcept {
    for (int r = 0; r < rows; ++r) layer_norm_row(x + r * N, p, y + r * N);
}

// Keys of rows [j0, j0 + rows) (row-major, D values apart) into the keys buffer of S keys, in
// the layout attention_scores reads: transposed, kt[c * S + j]. The layout is the kernel set's
// (its attention_scores reads what its store_keys writes); head h's keys start at
// kt + h * HeadDim * S in every layout.
template <int D, int HeadDim, int S>
inline void store_keys(const std::int8_t* k, int rows, int j0, std::int8_t* kt) noexcept {
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < D; ++c) kt[c * S + j0 + r] = k[r * D + c];
}

// Values of rows [j0, j0 + rows) (row-major, D values apart) into the values buffer, in the
// layout attention_context reads: here row-major, values[j * D + c]. The layout is the kernel
// set's; in every layout head h's values start at values + h * HeadDim, with VStride = D, and
// the buffer has room for an even number of rows (workspace_int8::values).
template <int D, int HeadDim, int S>
inline void store_values(const std::int8_t* v, int rows, int j0, std::int8_t* values) noexcept {
    std::memmove(values + j0 * D, v, std::size_t(rows) * D);  // (forward() links memmove already; memcpy would add its code)
}

// s[j] = sum_d q[d] * kt[d * KStride + j] for the n valid keys (keys stored transposed).
template <int HeadDim, int KStride>
inline void attention_scores(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
    for (int j = 0; j < n; ++j) {
        std::int32_t acc = 0;
        for (int d = 0; d < HeadDim; ++d) acc += std::int32_t(q[d]) * kt[d * KStride + j];
        s[j] = acc;
    }
}

// The softmax's three element steps (optimised kernels call them for their tails).
inline std::int32_t softmax_exp(std::int32_t max, std::int32_t score, math::fixed_multiplier logits) noexcept {
    return math::exp2_neg_q16(math::rescale(max - score, logits.multiplier, logits.shift));
}
inline std::int64_t softmax_reciprocal(std::int32_t sum) noexcept {
    return (std::int64_t(1) << 46) / sum;  // sum >= 2^15 (the maximum's term): at most 2^31
}
inline std::int16_t softmax_probability(std::int32_t e, std::int64_t reciprocal) noexcept {
    const std::int64_t q = (e * reciprocal + (std::int64_t(1) << 30)) >> 31;
    return std::int16_t(q > 32767 ? 32767 : q);
}

// Scores s[0..n) (overwritten by the exponentials) -> Q15 probabilities p.
inline void softmax(std::int32_t* s, int n, math::fixed_multiplier logits, std::int16_t* p) noexcept {
    std::int32_t max = s[0];
    for (int j = 1; j < n; ++j) max = s[j] > max ? s[j] : max;
    std::int32_t sum = 0;
    for (int j = 0; j < n; ++j) {
        s[j] = softmax_exp(max, s[j], logits);
        sum += s[j];
    }
    const std::int64_t reciprocal = softmax_reciprocal(sum);
    for (int j = 0; j < n; ++j) p[j] = softmax_probability(s[j], reciprocal);
}

// ctx[d] = requantize(sum_j p[j] * v[j * VStride + d], context, 0)
template <int HeadDim, int VStride>
inline void attention_context(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier context,
                              std::int8_t* ctx) noexcept {
    for (int d = 0; d < HeadDim; ++d) {
        std::int32_t acc = 0;
        for (int j = 0; j < n; ++j) acc += std::int32_t(p[j]) * v[j * VStride + d];
        ctx[d] = math::requantize(acc, context.multiplier, context.shift, 0);
    }
}

// 16 at a time through a local block: x and the table are both int8, so without it every
// store to x could change the table for the next lookup, and the lookups would be serialised.
inline void activate(std::int8_t* x, int n, const std::int8_t* table) noexcept {
    int i = 0;
    for (; i + 16 <= n; i += 16) {
        std::int8_t block[16];
        for (int k = 0; k < 16; ++k) block[k] = table[x[i + k] + 128];
        for (int k = 0; k < 16; ++k) x[i + k] = block[k];
    }
    for (; i < n; ++i) x[i] = table[x[i] + 128];
}

// x = x + a, each in its own scale, into the output's scale.
inline void add(std::int8_t* x, const std::int8_t* a, int n, const add_int8& p) noexcept {
    for (int i = 0; i < n; ++i) {
        const std::int32_t acc = (x[i] - p.x_zero_point) * p.x_multiplier + (a[i] - p.a_zero_point) * p.a_multiplier;
        x[i] = math::requantize(acc, 1, p.shift, p.output_zero_point);
    }
}

}  // namespace reference
}  // namespace kernels

template <class Backend>
struct int8_kernel_set;

template <>
struct int8_kernel_set<reference> {
    template <int In, int Out>
    static void linear(const std::int8_t* x, int rows, const linear_int8<In, Out>& p, std::int8_t* y) noexcept {
        kernels::reference::linear(x, rows, p, y);
    }
    template <int N>
    static void layer_norm(const std::int8_t* x, int rows, const layer_norm_int8<N>& p, std::int8_t* y) noexcept {
        kernels::reference::layer_norm(x, rows, p, y);
    }
    template <int D, int HeadDim, int S>
    static void store_keys(const std::int8_t* k, int rows, int j0, std::int8_t* kt) noexcept {
        kernels::reference::store_keys<D, HeadDim, S>(k, rows, j0, kt);
    }
    template <int D, int HeadDim, int S>
    static void store_values(const std::int8_t* v, int rows, int j0, std::int8_t* values) noexcept {
        kernels::reference::store_values<D, HeadDim, S>(v, rows, j0, values);
    }
    template <int HeadDim, int KStride>
    static void attention_scores(const std::int8_t* q, const std::int8_t* kt, int n, std::int32_t* s) noexcept {
        kernels::reference::attention_scores<HeadDim, KStride>(q, kt, n, s);
    }
    static void softmax(std::int32_t* s, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        kernels::reference::softmax(s, n, m, p);
    }
    // Rows r < rows of scores s + r Stride into probabilities p + r Stride.
    template <int Stride>
    static void softmax_rows(std::int32_t* s, int rows, int n, math::fixed_multiplier m, std::int16_t* p) noexcept {
        for (int r = 0; r < rows; ++r) kernels::reference::softmax(s + r * Stride, n, m, p + r * Stride);
    }
    template <int HeadDim, int VStride>
    static void attention_context(const std::int16_t* p, const std::int8_t* v, int n, math::fixed_multiplier m,
                                  std::int8_t* ctx) noexcept {
        kernels::reference::attention_context<HeadDim, VStride>(p, v, n, m, ctx);
    }
    static void activate(std::int8_t* x, int n, const std::int8_t* table) noexcept {
        kernels::reference::activate(x, n, table);
    }
    static void add(std::int8_t* x, const std::int8_t* a, int n, const add_int8& p) noexcept {
        kernels::reference::add(x, a, n, p);
    }
};

}  // namespace staticformer
