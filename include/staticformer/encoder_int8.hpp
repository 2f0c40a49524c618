// staticformer: the int8 encoder's workspace and composition (normative: the order of stages and
// the buffers they use are part of the arithmetic). The same stages as the float composition in
// encoder.hpp, on int8 tensors; every step is integer-only (kernels/reference/*_int8.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "call_checks.hpp"
#include "config.hpp"
#include "kernels/backends.hpp"
#include "status.hpp"
#include "weights_int8.hpp"

namespace staticformer {

// All activation memory of one int8 forward pass; the caller's output buffer holds the stream.
// Tile: rows per tile, as for the float workspace (encoder.hpp).
template <class Cfg, int Tile = Cfg::tile>
struct workspace_int8 {
    static_assert(Tile > 0 && Tile <= Cfg::seq_len, "a tile holds between 1 and seq_len rows");
    static constexpr int D = Cfg::d_model, S = Cfg::seq_len, T = Tile, F = Cfg::d_ff;
    static constexpr int tile = Tile;
    static constexpr int value_rows = S + S % 2;  // even: a kernel set may store values in pairs of rows
    // (query row, head) pairs whose attention runs together, stage by stage: 8 with tiles of at
    // least 8 rows (the simd default), 1 with smaller tiles (firmware RAM).
    static constexpr int attention_batch = Tile >= 8 ? 8 : 1;
    alignas(64) std::int8_t keys_t[D * S];            // keys, in the kernel set's layout (K::store_keys)
    alignas(64) std::int8_t values[value_rows * D];   // values, in the kernel set's layout (K::store_values)
    alignas(64) std::int8_t normed[T * D];            // LayerNorm of a tile (pre-norm)
    alignas(64) std::int8_t query[T * D];             // queries of a tile, overwritten head by head by their context
    alignas(64) std::int8_t proj[T * D];              // keys, then values of a tile; output projection, FFN output
    alignas(64) std::int8_t hidden[T * F];            // FFN hidden layer of a tile
    alignas(64) std::int32_t scores[attention_batch * S];  // rows of attention scores, then their exponentials
    alignas(64) std::int16_t probs[attention_batch * S];   // rows of Q15 attention probabilities
};

template <class Cfg, class Backend = default_backend>
using workspace_int8_for = workspace_int8<Cfg, tile_for<Cfg, Backend>>;

namespace detail {

template <class Cfg, class K, int Tile>
struct composition_int8 {
    static constexpr int D = Cfg::d_model, S = Cfg::seq_len, T = Tile, F = Cfg::d_ff;
    static constexpr int H = Cfg::heads, Dh = Cfg::head_dim;
    using layer = layer_weights_int8<Cfg>;
    using workspace = workspace_int8<Cfg, Tile>;

    static const std::int8_t* block_input(const std::int8_t* x, int rows, const layer_norm_int8<D>& norm,
                                          std::int8_t* normed) noexcept {
        if constexpr (Cfg::norm_first) {
            K::layer_norm(x, rows, norm, normed);
            return normed;
        } else {
            return x;
        }
    }

    static void attention_block(const layer& w, std::int8_t* y, int n, workspace& ws) noexcept {
        for (int r0 = 0; r0 < n; r0 += T) {
            const int rows = n - r0 < T ? n - r0 : T;
            const std::int8_t* src = block_input(y + r0 * D, rows, w.norm1, ws.normed);
            K::linear(src, rows, w.key, ws.proj);
            K::template store_keys<D, Dh, S>(ws.proj, rows, r0, ws.keys_t);
            K::linear(src, rows, w.value, ws.proj);
            K::template store_values<D, Dh, S>(ws.proj, rows, r0, ws.values);
        }
        for (int r0 = 0; r0 < n; r0 += T) {
            const int rows = n - r0 < T ? n - r0 : T;
            std::int8_t* x = y + r0 * D;
            const std::int8_t* src = block_input(x, rows, w.norm1, ws.normed);
            K::linear(src, rows, w.query, ws.query);
            constexpr int B = workspace::attention_batch;
            // Keys each query row attends to: all n, or rows 0..i for row i (causal).
            const auto keys = [&](int r) { return Cfg::is_causal ? r0 + r + 1 : n; };
            if constexpr (B == 1) {  // row by row, head by head
                for (int r = 0; r < rows; ++r) {
                    for (int h = 0; h < H; ++h) {
                        std::int8_t* q = ws.query + r * D + h * Dh;
                        K::template attention_scores<Dh, S>(q, ws.keys_t + h * Dh * S, keys(r), ws.scores);
                        K::softmax(ws.scores, keys(r), w.attention.logits, ws.probs);
                        K::template attention_context<Dh, D>(ws.probs, ws.values + h * Dh, keys(r), w.attention.context,
                                                             q);
                    }
                }
            } else {  // (row, head) pairs k = r H + h, B at a time: scores of all B, their softmax
                      // (one call: a kernel set may overlap the rows' dependent steps), contexts.
                      // Pairs of one call share their key count: causal calls stay within a row.
                const auto query = [&](int k) { return ws.query + (k / H) * D + (k % H) * Dh; };
                constexpr int group = Cfg::is_causal ? H : T * H;
                for (int g0 = 0; g0 < rows * H; g0 += group) {
                    const int g_end = rows * H - g0 < group ? rows * H : g0 + group, m = keys(g0 / H);
                    for (int k0 = g0; k0 < g_end; k0 += B) {
                        const int count = g_end - k0 < B ? g_end - k0 : B;
                        for (int b = 0; b < count; ++b)
                            K::template attention_scores<Dh, S>(query(k0 + b), ws.keys_t + (k0 + b) % H * Dh * S, m,
                                                                ws.scores + b * S);
                        K::template softmax_rows<S>(ws.scores, count, m, w.attention.logits, ws.probs);
                        for (int b = 0; b < count; ++b)
                            K::template attention_context<Dh, D>(ws.probs + b * S, ws.values + (k0 + b) % H * Dh, m,
                                                                 w.attention.context, query(k0 + b));
                    }
                }
            }
            K::linear(ws.query, rows, w.out, ws.proj);
            K::add(x, ws.proj, rows * D, w.residual1);
            if constexpr (!Cfg::norm_first) K::layer_norm(x, rows, w.norm1, x);
        }
    }

    static void feed_forward_block(const layer& w, std::int8_t* y, int n, workspace& ws) noexcept {
        for (int r0 = 0; r0 < n; r0 += T) {
            const int rows = n - r0 < T ? n - r0 : T;
            std::int8_t* x = y + r0 * D;
            const std::int8_t* src = block_input(x, rows, w.norm2, ws.normed);
            if constexpr (K::fuses_activation) {
                K::linear_activate(src, rows, w.ff1, w.activation, ws.hidden);
            } else {
                K::linear(src, rows, w.ff1, ws.hidden);
                K::activate(ws.hidden, rows * F, w.activation);
            }
            K::linear(ws.hidden, rows, w.ff2, ws.proj);
            K::add(x, ws.proj, rows * D, w.residual2);
            if constexpr (!Cfg::norm_first) K::layer_norm(x, rows, w.norm2, x);
        }
    }

    static void run(const encoder_weights<Cfg, int8>& w, std::int8_t* y, int n, workspace& ws) noexcept {
        for (int l = 0; l < Cfg::layers; ++l) {
            attention_block(w.layer[l], y, n, ws);
            feed_forward_block(w.layer[l], y, n, ws);
        }
        if constexpr (Cfg::has_final_norm) K::layer_norm(y, n, w.final_norm.norm, y);
    }
};

// Validates the call, stages the input into y, runs the composition with kernel set K and
// sets the padded rows to the output's zero point (the int8 code of 0.0).
template <class Cfg, class K, int Tile>
inline status forward_int8(const encoder_weights<Cfg, int8>& w, workspace_int8<Cfg, Tile>& ws, const std::int8_t* x,
                           std::int8_t* y, int valid_len) noexcept {
    const status s = check_call<Cfg>(x, y, sizeof(std::int8_t), valid_len);
    if (s != status::ok) return s;
    const std::size_t count = std::size_t(Cfg::seq_len) * Cfg::d_model, valid = std::size_t(valid_len) * Cfg::d_model;
    if (x != y) std::memmove(y, x, valid);  // (no overlap here; memmove keeps -Wrestrict quiet)
    composition_int8<Cfg, K, Tile>::run(w, y, valid_len, ws);
    std::memset(y + valid, static_cast<unsigned char>(w.output.zero_point), count - valid);
    return status::ok;
}

}  // namespace detail

// Runs one int8 forward pass with caller-owned workspace. x and y hold seq_len * d_model int8
// values, row-major, quantised with w.input and w.output (quant/convert.hpp converts floats on
// the host); y may equal x but must not partly overlap it.
template <class Backend = default_backend, class Cfg, int Tile>
inline status forward(const encoder_weights<Cfg, int8>& w, workspace_int8<Cfg, Tile>& ws, const std::int8_t* x,
                      std::int8_t* y, int valid_len) noexcept {
    static_assert(detail::backend_check<int8, Backend>::value, "");
    return detail::forward_int8<Cfg, int8_kernel_set<Backend>, Tile>(w, ws, x, y, valid_len);
}

}  // namespace staticformer
