// staticformer: int8 and a16w8 attention (reference backend, normative): the key and value stores,
// the scores q . k and the context sum_j p[j] v[j], requantised once (params_int8.hpp,
// params_a16w8.hpp).
#pragma once

#include <cstdint>
#include <cstring>

#include "../../math/fixed_point.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

// Keys of rows [j0, j0 + rows) (row-major, D values apart) into the keys buffer of S keys, in
// the layout attention_scores reads: transposed, kt[c * S + j]. The layout is the kernel set's
// (its attention_scores reads what its store_keys writes); head h's keys start at
// kt + h * HeadDim * S in every layout.
template <int D, int HeadDim, int S, class T>
inline void store_keys(const T* k, int rows, int j0, T* kt) noexcept {
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < D; ++c) kt[c * S + j0 + r] = k[r * D + c];
}

// Values of rows [j0, j0 + rows) (row-major, D values apart) into the values buffer, in the
// layout attention_context reads: here row-major, values[j * D + c]. The layout is the kernel
// set's; in every layout head h's values start at values + h * HeadDim, with VStride = D, and
// the buffer has room for an even number of rows (workspace_int8::values).
template <int D, int HeadDim, int S, class T>
inline void store_values(const T* v, int rows, int j0, T* values) noexcept {
    std::memmove(values + j0 * D, v, std::size_t(rows) * D * sizeof(T));  // (forward() links memmove already; memcpy would add its code)
}

// s[j] = sum_d q[d] * kt[d * KStride + j] for the n valid keys (keys stored transposed); int8,
// or a16w8's int16 within score_limit (params_a16w8.hpp).
template <int HeadDim, int KStride, class T>
inline void attention_scores(const T* q, const T* kt, int n, std::int32_t* s) noexcept {
    for (int j = 0; j < n; ++j) {
        std::int32_t acc = 0;
        for (int d = 0; d < HeadDim; ++d) acc += std::int32_t(q[d]) * kt[d * KStride + j];
        s[j] = acc;
    }
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

// a16w8: ctx[d] = clamp(rescale(sum_j p[j] * v[j * VStride + d], context), -limit, limit)
template <int HeadDim, int VStride>
inline void attention_context(const std::int16_t* p, const std::int16_t* v, int n, math::fixed_multiplier context,
                              std::int32_t limit, std::int16_t* ctx) noexcept {
    for (int d = 0; d < HeadDim; ++d) {
        std::int32_t acc = 0;
        for (int j = 0; j < n; ++j) acc += std::int32_t(p[j]) * v[j * VStride + d];
        ctx[d] = math::clamp_to(math::rescale(acc, context.multiplier, context.shift), limit);
    }
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
