// staticformer: the model's input and output steps around the encoder (normative).
//   embed:       y[r][c] = table[id[r]][c]; scaled: fma(table[id[r]][c], scale, position)
//   patch rows:  row t of patches = image[ch][py P + dy][px P + dx] in (ch, dy, dx) order, for
//                patch t = py (Width / P) + px: the input order of a Conv2d kernel's weights
//   mean_rows:   y[c] = (sum_r x[r][c]) / n, the sum from row 0 up; int8 and the int16 stream:
//                floor((2 sum + n) / 2n), the rounded mean of the codes (the scale and zero
//                point stay those of x)
//   arg_max:     the first index of the largest value
// Tables are float (f32) or binary16 bits (f16), widened exactly (math::widen).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "../../math/fp16.hpp"

namespace staticformer {
namespace kernels {
namespace reference {

// ids are already checked (0 <= id < vocab).
template <int D, class W>
inline void embed(const W* table, const std::int32_t* ids, int rows, float* y) noexcept {
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < D; ++c) y[r * D + c] = math::widen(table[std::size_t(ids[r]) * D + c]);
}
// Scaled: y = fma(table[id][c], scale, positions[r][c]), one rounding, with the rows of
// positions (or -0, which keeps the rounded product, where a model has none). The product never
// stands alone before an addition: a compiler contracting a*b+c cannot change it.
template <int D, class W, class PW>
inline void embed_scaled(const W* table, const std::int32_t* ids, int rows, float scale, const PW* positions,
                         float* y) noexcept {
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < D; ++c)
            y[r * D + c] = std::fma(math::widen(table[std::size_t(ids[r]) * D + c]), scale,
                                    positions ? math::widen(positions[r * D + c]) : -0.0f);
}

// Patches [t0, t0 + rows) of a [C][H][W] image, each as C P P consecutive values.
template <int C, int H, int W, int P, class T>
inline void patch_rows(const T* image, int t0, int rows, T* out) noexcept {
    constexpr int across = W / P;
    for (int r = 0; r < rows; ++r) {
        const int py = (t0 + r) / across, px = (t0 + r) % across;
        for (int ch = 0; ch < C; ++ch)
            for (int dy = 0; dy < P; ++dy)
                for (int dx = 0; dx < P; ++dx)
                    *out++ = image[(std::size_t(ch) * H + py * P + dy) * W + px * P + dx];
    }
}

// int8 tables: the rows as they are.
template <int D>
inline void embed(const std::int8_t* table, const std::int32_t* ids, int rows, std::int8_t* y) noexcept {
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < D; ++c) y[r * D + c] = table[std::size_t(ids[r]) * D + c];
}

template <int D>
inline void mean_rows(const std::int8_t* x, int n, std::int8_t* y) noexcept {
    for (int c = 0; c < D; ++c) {
        std::int32_t sum = 0;  // |sum| <= 128 n < 2^31 for n <= 65535 (int8 seq_len bound)
        for (int r = 0; r < n; ++r) sum += x[r * D + c];
        const std::int32_t num = 2 * sum + n, den = 2 * n;
        y[c] = std::int8_t(num >= 0 ? num / den : -((-num + den - 1) / den));  // floor division
    }
}

// The stream's rows: the same rounded mean, its sum in 64 bits (2 sum + n passes 2^31).
template <int D>
inline void mean_rows(const std::int16_t* x, int n, std::int16_t* y) noexcept {
    for (int c = 0; c < D; ++c) {
        std::int64_t sum = 0;
        for (int r = 0; r < n; ++r) sum += x[r * D + c];
        const std::int64_t num = 2 * sum + n, den = 2 * std::int64_t(n);
        y[c] = std::int16_t(num >= 0 ? num / den : -((-num + den - 1) / den));  // floor division
    }
}

template <int D>
inline void mean_rows(const float* x, int n, float* y) noexcept {
    for (int c = 0; c < D; ++c) {
        float sum = 0.0f;
        for (int r = 0; r < n; ++r) sum = sum + x[r * D + c];
        y[c] = sum / float(n);
    }
}

template <class T>
inline int arg_max(const T* x, int n) noexcept {
    int best = 0;
    for (int i = 1; i < n; ++i)
        if (x[i] > x[best]) best = i;
    return best;
}

}  // namespace reference
}  // namespace kernels
}  // namespace staticformer
