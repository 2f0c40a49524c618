// staticformer: the float encoders' (f32, f16 weights) workspace, steps and forward pass. The
// steps are the same for both: f16 weights are widened to float inside the kernels
// (math::widen), so an f16 encoder computes exactly what the f32 encoder computes on the widened
// weights. The order of the steps is composition.hpp's (normative).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "batch.hpp"
#include "call_checks.hpp"
#include "composition.hpp"
#include "config.hpp"
#include "kernels/backends.hpp"
#include "math/finite.hpp"
#include "math/rotary.hpp"
#include "status.hpp"
#include "weights.hpp"

namespace staticformer {

// All activation memory of one forward pass. The caller's output buffer holds the residual
// stream; attention keeps keys and values for the whole sequence but never a score matrix:
// one row of scores at a time. Everything else lives in two tile buffers, each holding one
// stage's values at a time:
//   narrow: LayerNorm of a tile (pre-norm), then the tile's output projection or FFN output
//   wide:   keys of a tile; or queries of a tile (overwritten head by head by their context)
//           followed by the attention scores of a block of rows; or the FFN hidden layer of a tile
//           (glu: both halves, [a | b] per row)
// Tile is the number of rows of a tile (config.hpp, tile_for): workspace_for<Cfg, Backend> is
// the workspace an encoder<Cfg, P, Backend> holds. Any tile gives the same results. Workers:
// how many threads a pass may run on (parallel.hpp), each with tile buffers of its own. Batch:
// how many sequences one call may run (forward_batch), each with keys and values of its own.
template <class Cfg, int Tile = Cfg::tile, int Workers = 1, int Batch = 1>
struct workspace {
    static_assert(Tile > 0 && Tile <= Cfg::seq_len * Batch, "a tile holds between 1 and seq_len x batch rows");
    static_assert(Workers >= 1, "a workspace has at least one worker");
    static_assert(Batch >= 1, "a workspace holds at least one sequence");
    static constexpr int D = Cfg::d_model, S = Cfg::seq_len, T = Tile, F = Cfg::d_ff;
    static constexpr int tile = Tile, workers = Workers, batch = Batch;
    // Attention runs on blocks of up to attention_rows query rows, a row of scores for each.
    static constexpr int attention_rows = T < 8 ? T : 8;
    static constexpr int F1 = Cfg::ff1_width;  // the FFN's first matrix's outputs (glu: 2 F)
    static constexpr int wide_floats = T * F1 > T * D + attention_rows * S ? T * F1 : T * D + attention_rows * S;
    static constexpr int KV = Cfg::kv_dim;  // key and value columns (D without kv_heads)
    struct tile_buffers {
        alignas(64) float narrow[T * D];
        alignas(64) float wide[wide_floats];
    };
    // Each sequence's keys and values, one sequence after the other:
    alignas(64) float keys_t[Batch * KV * S];  // keys transposed: keys_t[c * S + j], c = key head * head_dim + d
    alignas(64) float values[Batch * S * KV];  // values[j * KV + c]
    tile_buffers lane[Workers];
};

template <class Cfg, class Backend = default_backend>
using workspace_for = workspace<Cfg, tile_for<Cfg, Backend>>;

// The workspace of a pass on up to Workers threads: a tile of seq_len / Workers rows each (at
// most Backend's tile), so that a full sequence gives every worker the same rows.
template <class Cfg, int Workers, class Backend = default_backend>
using parallel_workspace_for =
    workspace<Cfg, worker_tile<Cfg, Backend, Cfg::seq_len, Workers>, Workers>;

// The workspace of forward_batch for up to Batch sequences on Workers threads: the tile of
// Batch x seq_len rows (simd: up to simd_tile_rows rows of any sequences, so that each weight
// matrix streamed serves them all), shared among the workers.
template <class Cfg, int Batch, class Backend = default_backend, int Workers = 1>
using batch_workspace_for =
    workspace<Cfg, worker_tile<Cfg, Backend, Batch * Cfg::seq_len, Workers>, Workers, Batch>;

namespace detail {

// 2^k if n = 4^k, else 0.
constexpr int power_of_two_root(int n) {
    for (int root = 1; root <= n / root; root *= 2)
        if (root * root == n) return root;
    return 0;
}
static_assert(power_of_two_root(1) == 1 && power_of_two_root(16) == 4 && power_of_two_root(64) == 8);
static_assert(power_of_two_root(32) == 0 && power_of_two_root(8) == 0 && power_of_two_root(36) == 0);

// q / sqrt(head_dim). Where sqrt(head_dim) is a power of two (head_dim = 4^k), the product
// with its reciprocal is exact too, so it gives the quotient's bits at a product's cost.
template <int HeadDim>
inline void scale_queries(float* q, int count) noexcept {
    constexpr int root = power_of_two_root(HeadDim);
    if constexpr (root > 0) {
        constexpr float inverse = 1.0f / float(root);
        for (int i = 0; i < count; ++i) q[i] = q[i] * inverse;
    } else {
        const float sqrt_head_dim = std::sqrt(float(HeadDim));
        for (int i = 0; i < count; ++i) q[i] = q[i] / sqrt_head_dim;
    }
}

// The attention schedule of float encoders: query rows [r0, r0 + rows) of the sequence (scaled,
// at q, D apart) over their keys (composition.hpp, tile_keys), each head a block of up to Block
// rows at a time: their scores (into scores, Block rows of S), probabilities, and their context
// in place of their queries. Causal blocks are one row (each its own key count); a row without
// keys gets a zero context.
template <class Cfg, class K, int Block>
inline void attention_rows(float* q, const tile_keys& keys, int rows, const float* keys_t, const float* values,
                           float* scores) noexcept {
    constexpr int D = Cfg::d_model, S = Cfg::seq_len, Dh = Cfg::head_dim, KV = Cfg::kv_dim;
    constexpr int block = Cfg::is_causal ? 1 : Block;
    for (int h = 0; h < Cfg::heads; ++h) {
        const int kv = h / Cfg::kv_group;  // the key and value head of query head h
        for (int b0 = 0; b0 < rows; b0 += block) {
            const int b = rows - b0 < block ? rows - b0 : block, n = keys.of_row<Cfg::is_causal>(b0);
            float* qb = q + b0 * D + h * Dh;
            if (n == 0) {
                std::memset(qb, 0, Dh * sizeof(float));  // (causal: b is 1)
                continue;
            }
            K::template attention_scores<Dh, S, D>(qb, b, keys_t + kv * Dh * S, n, scores);
            K::template softmax<S>(scores, b, n);
            // (three arguments without kv_heads: a kernel set of one's own may take no CStride)
            if constexpr (KV == D)
                K::template attention_context<Dh, D, S>(scores, b, values + kv * Dh, n, qb);
            else
                K::template attention_context<Dh, KV, S, D>(scores, b, values + kv * Dh, n, qb);
        }
    }
}

// The float precisions' steps of the composition (composition.hpp). Element is the weights'
// storage type: float (f32) or std::uint16_t (f16, binary16 bits).
template <class Cfg, class K, class Element, int Tile>
struct float_steps {
    static constexpr int tile = Tile, D = Cfg::d_model, S = Cfg::seq_len, T = Tile, F = Cfg::d_ff;
    static constexpr int KV = Cfg::kv_dim, QKV = Cfg::qkv_width;  // key (and value) columns; all three projections
    using value = float;
    using stream = float;
    using layer = layer_weights<Cfg, Element>;
    static constexpr int attention_block = Tile < 8 ? Tile : 8;  // (the workspace's attention_rows)
    // What one worker's steps see of a workspace: the keys and values, and its tile buffers.
    struct workspace {
        float* keys_t;
        float* values;
        float* narrow;
        float* wide;
    };
    template <int Workers, int Batch>
    static workspace lane(staticformer::workspace<Cfg, Tile, Workers, Batch>& ws, int i) noexcept {
        return {ws.keys_t, ws.values, ws.lane[i].narrow, ws.lane[i].wide};
    }
    // A lane's view with the keys and values of sequence b of a batch (offset: the tile row of
    // the sequence's first; a float step gets its queries' address as an argument).
    static workspace sequence(const workspace& ws, int b, int) noexcept {
        return {ws.keys_t + b * KV * S, ws.values + b * S * KV, ws.narrow, ws.wide};
    }

    static void start(const workspace&) noexcept {}
    static float* normed(workspace& ws) noexcept { return ws.narrow; }
    template <class Norm>
    static const float* post_norm_input(const layer&, Norm, const float* x, int, workspace&) noexcept {
        return x;
    }
    // LayerNorm, or RMSNorm (a kernel set's layer_norm<N, true>; one without it runs LayerNorm configurations).
    static void norm(const float* x, int rows, const Element* gamma, const Element* beta, float* y,
                     float eps = Cfg::eps) noexcept {
        if constexpr (Cfg::is_rms_norm) K::template layer_norm<D, true>(x, rows, gamma, beta, eps, y);
        else K::template layer_norm<D>(x, rows, gamma, beta, eps, y);
    }
    static void layer_norm(const layer& w, before_attention, const float* x, int rows, float* y) noexcept {
        norm(x, rows, w.norm1_gamma, values_of(w.norm1_beta), y);
    }
    static void layer_norm(const layer& w, before_feed_forward, const float* x, int rows, float* y) noexcept {
        norm(x, rows, w.norm2_gamma, values_of(w.norm2_beta), y);
    }
    template <class Weights>
    static void final_norm(const Weights& w, float* y, int rows) noexcept {
        norm(y, rows, w.final_norm.gamma, values_of(w.final_norm.beta), y, Cfg::final_eps);
    }

    // Rotary positions: each row of Width queries or keys turned by its position's angles.
    template <int Width>
    static void rotate(float* x, int rows, row_positions at) noexcept {
        if constexpr (Cfg::is_rotary) {
            constexpr int Dh = Cfg::head_dim;
            constexpr bool interleaved = Cfg::rotary_kind == rotary_layout::interleaved;
            constexpr auto& angles = math::rotary_angles<S, Dh / 2, Cfg::rotary_theta>;
            at.each(rows, [&](int r, int p) {
                K::template rotate<Width, Dh, interleaved>(x + r * Width, angles.cos[p], angles.sin[p]);
            });
        }
    }
    // Keys through the wide buffer (turned: rotary) into the transposed keys, stored from index
    // `stored` on; values straight into theirs.
    static void keys_and_values(const layer& w, const float* src, int rows, row_positions at, int stored,
                                workspace& ws) noexcept {
        K::template linear<D, KV, QKV>(src, rows, &w.qkv_w[0][D], values_of(w.qkv_b) + D, ws.wide);
        rotate<KV>(ws.wide, rows, at);
        K::template store_keys<KV, S>(ws.wide, rows, stored, ws.keys_t);
        K::template linear<D, KV, QKV>(src, rows, &w.qkv_w[0][D + KV], values_of(w.qkv_b) + D + KV,
                                       ws.values + stored * KV);
    }
    // Queries of a tile in the wide buffer (turned: rotary), scaled by 1 / sqrt(head_dim).
    static float* queries(const layer& w, const float* src, int rows, row_positions at, workspace& ws) noexcept {
        K::template linear<D, D, QKV>(src, rows, &w.qkv_w[0][0], values_of(w.qkv_b), ws.wide);
        rotate<D>(ws.wide, rows, at);
        scale_queries<Cfg::head_dim>(ws.wide, rows * D);
        return ws.wide;
    }
    static void attend(const layer&, float* q, const tile_keys& keys, int rows, workspace& ws) noexcept {
        attention_rows<Cfg, K, attention_block>(q, keys, rows, ws.keys_t, ws.values, ws.wide + T * D);
    }
    static void add_output_projection(const layer& w, const float* q, int rows, float* x, workspace& ws) noexcept {
        K::template linear<D, D>(q, rows, &w.out_w[0][0], values_of(w.out_b), ws.narrow);  // the LayerNorm is spent
        K::add(x, ws.narrow, rows * D);
    }
    // The hidden layer act(x W1); glu: act(x W1) * (x W3), row r's [a | b] (2F values at 2 r F)
    // becoming its F products at r F (in place: row r's products end before its own values).
    static float* hidden(const layer& w, const float* src, int rows, workspace& ws) noexcept {
        K::template linear<D, Cfg::ff1_width>(src, rows, &w.ff1_w[0][0], values_of(w.ff1_b), ws.wide);
        if constexpr (!Cfg::is_gated) {
            K::template activate<Cfg::activation>(ws.wide, rows * F);
        } else {
            for (int r = 0; r < rows; ++r) {
                float* ab = ws.wide + 2 * r * F;
                K::template activate<Cfg::activation>(ab, F);
                K::multiply(ws.wide + r * F, ab, ab + F, F);
            }
        }
        return ws.wide;
    }
    static void add_feed_forward_output(const layer& w, const float* hidden, int rows, float* x,
                                        workspace& ws) noexcept {
        K::template linear<F, D>(hidden, rows, &w.ff2_w[0][0], values_of(w.ff2_b), ws.narrow);  // the LayerNorm is spent
        K::add(x, ws.narrow, rows * D);
    }
};

// Validates the call and the input values, stages the input into y, and runs the composition
// (run(y, valid_len, kept_keys)). NaN and infinity: refused in the input (nothing written); a
// pass that overflows returns non_finite_output with every valid value the canonical NaN, so
// every backend gives the same bytes and no caller reads a silent NaN as a result.
template <class Cfg, class Run>
inline status checked_pass_float(const float* x, float* y, int valid_len, key_padding_mask mask, Run&& run) noexcept {
    status s = check_call<Cfg>(x, y, sizeof(float), valid_len);
    if (s == status::ok) s = check_mask<Cfg::seq_len>(mask, valid_len);
    if (s != status::ok) return s;
    const std::size_t count = std::size_t(Cfg::seq_len) * Cfg::d_model;
    const std::size_t valid = std::size_t(valid_len) * Cfg::d_model;
    if (!math::all_finite(x, valid)) return status::non_finite_input;
    if (x != y) std::memmove(y, x, valid * sizeof(float));  // (no overlap here; memmove keeps GCC's -Wrestrict quiet)
    std::memset(y + valid, 0, (count - valid) * sizeof(float));  // padded rows: zero, no work
    run(y, valid_len, kept_keys{mask.masked, 0});
    return math::canonicalize_non_finite(y, valid) ? status::ok : status::non_finite_output;
}

// One pass with kernel set K, its composition on tiles(ws): on_one_worker or on_workers.
template <class Cfg, class K, class P, int Tile, int Workers, class MakeTiles>
inline status forward(const encoder_weights<Cfg, P>& w, workspace<Cfg, Tile, Workers>& ws, const float* x, float* y,
                      int valid_len, key_padding_mask mask, MakeTiles&& tiles) noexcept {
    using C = composition<Cfg, float_steps<Cfg, K, weight_element_t<P>, Tile>>;
    return checked_pass_float<Cfg>(x, y, valid_len, mask,
                                   [&](float* s, int n, kept_keys m) { C::run(w, s, n, m, tiles(ws, C{})); });
}

// A batch (batch.hpp) with kernel set K, its encoder on tiles(ws): the checks and the input
// values of every sequence first; each sequence that overflows gets canonical NaNs.
template <class Cfg, class K, class P, int Tile, int Workers, int Batch, class MakeTiles>
inline status checked_batch_float(const encoder_weights<Cfg, P>& w, workspace<Cfg, Tile, Workers, Batch>& ws,
                                  const float* x, float* y, const int* valid_lens, int count,
                                  const key_padding_mask* masks, MakeTiles&& tiles) noexcept {
    constexpr std::size_t D = Cfg::d_model, sequence = std::size_t(Cfg::seq_len) * D;
    const status s = check_batch<Cfg, Batch>(x, y, sizeof(float), valid_lens, count, masks);
    if (s != status::ok) return s;
    for (int b = 0; b < count; ++b)
        if (!math::all_finite(x + b * sequence, valid_lens[b] * D)) return status::non_finite_input;
    using C = composition<Cfg, float_steps<Cfg, K, weight_element_t<P>, Tile>>;
    run_packed<Cfg, Batch>(x, y, valid_lens, count, masks, 0, [&](float* rows, int n, const batch_rows& batch) {
        C::run(w, rows, n, batch, tiles(ws, C{}));
    });
    bool finite = true;
    for (int b = 0; b < count; ++b) finite = math::canonicalize_non_finite(y + b * sequence, valid_lens[b] * D) && finite;
    return finite ? status::ok : status::non_finite_output;
}

}  // namespace detail

// Runs one forward pass with caller-owned workspace (for firmware that places it in a chosen
// RAM section). x and y hold seq_len * d_model floats, row-major; y may equal x (in place) but
// must not partly overlap it. Rows >= valid_len of y are zero on return. mask: the keys no row
// attends (mask.hpp). The weights are f32 or
// f16 (encoder_weights<Cfg, f32> or <Cfg, f16>); activations are float either way. A NaN or
// infinity in the valid input rows returns non_finite_input (y untouched); a pass that overflows,
// non_finite_output (every valid value of y the canonical NaN, math/finite.hpp).
template <class Backend = default_backend, class Cfg, class P, int Tile, int Workers>
inline status forward(const encoder_weights<Cfg, P>& w, workspace<Cfg, Tile, Workers>& ws, const float* x, float* y,
                      int valid_len, key_padding_mask mask = {}) noexcept {
    static_assert(detail::backend_check<P, Backend>::value, "");
    return detail::forward<Cfg, kernel_set<Backend>>(w, ws, x, y, valid_len, mask, detail::on_one_worker{});
}
// The same pass split across the workspace's Workers threads by the caller's executor
// (parallel.hpp; parallel_workspace_for sizes the workspace): the same bytes as forward above.
template <class Backend = default_backend, class Cfg, class P, int Tile, int Workers, class Executor>
inline status forward(const encoder_weights<Cfg, P>& w, workspace<Cfg, Tile, Workers>& ws, const float* x, float* y,
                      int valid_len, key_padding_mask mask, Executor&& exec) noexcept {
    static_assert(detail::backend_check<P, Backend>::value, "");
    return detail::forward<Cfg, kernel_set<Backend>>(w, ws, x, y, valid_len, mask,
                                                     detail::on_workers<std::remove_reference_t<Executor>>{exec});
}

// A batch of `count` sequences in one call: x and y hold count x seq_len x d_model floats
// (sequence b from b x seq_len rows), valid_lens[b] and masks[b] (masks may be null: none) as for
// one call; the workspace holds up to Batch sequences (batch_workspace_for). Each sequence's
// output bytes are those of its own forward(). Any invalid sequence's status is returned before
// anything is written; non_finite_output when a sequence overflows (its values canonical NaNs,
// the others' exact).
template <class Backend = default_backend, class Cfg, class P, int Tile, int Workers, int Batch>
inline status forward_batch(const encoder_weights<Cfg, P>& w, workspace<Cfg, Tile, Workers, Batch>& ws, const float* x,
                            float* y, const int* valid_lens, int count,
                            const key_padding_mask* masks = nullptr) noexcept {
    static_assert(detail::backend_check<P, Backend>::value, "");
    return detail::checked_batch_float<Cfg, kernel_set<Backend>>(
        w, ws, x, y, valid_lens, count, masks, detail::on_one_worker{});
}
// The same batch split across the workspace's Workers threads by the caller's executor.
template <class Backend = default_backend, class Cfg, class P, int Tile, int Workers, int Batch, class Executor>
inline status forward_batch(const encoder_weights<Cfg, P>& w, workspace<Cfg, Tile, Workers, Batch>& ws, const float* x,
                            float* y, const int* valid_lens, int count, const key_padding_mask* masks,
                            Executor&& exec) noexcept {
    static_assert(detail::backend_check<P, Backend>::value, "");
    return detail::checked_batch_float<Cfg, kernel_set<Backend>>(
        w, ws, x, y, valid_lens, count, masks, detail::on_workers<std::remove_reference_t<Executor>>{exec});
}

}  // namespace staticformer
