// staticformer: the integer encoders' workspace, steps and forward pass: composition.hpp's stages
// (normative) on int8 tensors (int8) or int16 ones (a16w8, int8 weights); every step is
// integer-only (kernels/reference/*_int8.hpp), the residual stream int16 in both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "batch.hpp"
#include "call_checks.hpp"
#include "composition.hpp"
#include "config.hpp"
#include "kernels/backends.hpp"
#include "math/rotary.hpp"
#include "status.hpp"
#include "weights_a16w8.hpp"
#include "weights_int8.hpp"

namespace staticformer {

namespace detail {
// (query row, head) pairs whose attention runs together, stage by stage: 8 with tiles of at
// least 8 rows (the simd default), 1 with smaller tiles (firmware RAM).
constexpr int int8_attention_batch(int tile) noexcept { return tile >= 8 ? 8 : 1; }
// Rows of values, scores and probabilities an even number apart: a kernel set may store values
// in pairs of rows, and read probabilities two at a time from a 4-byte boundary (LDRD on Cortex-M).
constexpr int int8_even_rows(int seq_len) noexcept { return seq_len + seq_len % 2; }
}  // namespace detail

// All activation memory of one integer forward pass, tensors of type V (int8: std::int8_t,
// a16w8: std::int16_t); the caller's output buffer holds the stream (int16 rows).
// Tile: rows per tile, as for the float workspace (encoder.hpp); Workers: threads a pass may run
// on (parallel.hpp), each with tile buffers of its own; Batch: sequences a call may run
// (forward_batch), each with keys and values of its own.
template <class Cfg, class V, int Tile = Cfg::tile, int Workers = 1, int Batch = 1>
struct workspace_integer {
    static_assert(Tile > 0 && Tile <= Cfg::seq_len * Batch, "a tile holds between 1 and seq_len x batch rows");
    static_assert(Workers >= 1, "a workspace has at least one worker");
    static_assert(Batch >= 1, "a workspace holds at least one sequence");
    static constexpr int D = Cfg::d_model, S = Cfg::seq_len, T = Tile, F = Cfg::d_ff;
    static constexpr int tile = Tile, workers = Workers, batch = Batch;
    static constexpr int value_rows = detail::int8_even_rows(S);
    static constexpr int attention_batch = detail::int8_attention_batch(Tile);
    static constexpr int score_stride = detail::int8_even_rows(S);
    static constexpr int KV = Cfg::kv_dim;  // key and value columns (D without kv_heads)
    struct tile_buffers {
        alignas(64) V normed[T * D];               // a tile's block input: LN(stream), or the stream narrowed
        alignas(64) V query[T * D];                // queries of a tile, overwritten head by head by their context
        alignas(64) V proj[T * D];                 // keys, then values of a tile; output projection, FFN output
        alignas(64) V hidden[T * Cfg::ff1_width];  // FFN hidden layer of a tile (glu: [a | b] rows)
        alignas(64) std::int32_t scores[attention_batch * score_stride];  // rows of attention scores, then their exponentials
        alignas(64) std::int16_t probs[attention_batch * score_stride];   // rows of Q15 attention probabilities
    };
    // Each sequence's keys and values, one sequence after the other:
    alignas(64) V keys_t[Batch * KV * S];           // keys, in the kernel set's layout (K::store_keys)
    alignas(64) V values[Batch * value_rows * KV];  // values, in the kernel set's layout (K::store_values)
    tile_buffers lane[Workers];
};
template <class Cfg, int Tile = Cfg::tile, int Workers = 1, int Batch = 1>
using workspace_int8 = workspace_integer<Cfg, std::int8_t, Tile, Workers, Batch>;
template <class Cfg, int Tile = Cfg::tile, int Workers = 1, int Batch = 1>
using workspace_a16w8 = workspace_integer<Cfg, std::int16_t, Tile, Workers, Batch>;

template <class Cfg, class Backend = default_backend>
using workspace_int8_for = workspace_int8<Cfg, tile_for<Cfg, Backend>>;
template <class Cfg, class Backend = default_backend>
using workspace_a16w8_for = workspace_a16w8<Cfg, tile_for<Cfg, Backend>>;

// The int8 workspaces of a pass on up to Workers threads and of forward_batch (as
// parallel_workspace_for and batch_workspace_for).
template <class Cfg, int Workers, class Backend = default_backend>
using parallel_workspace_int8_for =
    workspace_int8<Cfg, worker_tile<Cfg, Backend, Cfg::seq_len, Workers>, Workers>;
template <class Cfg, int Batch, class Backend = default_backend, int Workers = 1>
using batch_workspace_int8_for =
    workspace_int8<Cfg, worker_tile<Cfg, Backend, Batch * Cfg::seq_len, Workers>, Workers, Batch>;
template <class Cfg, int Workers, class Backend = default_backend>
using parallel_workspace_a16w8_for =
    workspace_a16w8<Cfg, worker_tile<Cfg, Backend, Cfg::seq_len, Workers>, Workers>;
template <class Cfg, int Batch, class Backend = default_backend, int Workers = 1>
using batch_workspace_a16w8_for =
    workspace_a16w8<Cfg, worker_tile<Cfg, Backend, Batch * Cfg::seq_len, Workers>, Workers, Batch>;

namespace detail {

// What one worker's integer steps see of a workspace: the keys and values, and its tile buffers.
template <class V>
struct integer_lane {
    V* keys_t;
    V* values;
    V* normed;
    V* query;
    V* proj;
    V* hidden;
    std::int32_t* scores;
    std::int16_t* probs;
};
using int8_lane = integer_lane<std::int8_t>;

// The context of a head's probabilities p over n values v into ctx (int8: requantised; a16w8:
// clamped to the output projection's limit).
template <class K, int Dh, int KV>
inline void attention_context(const attention_int8& a, const std::int16_t* p, const std::int8_t* v, int n,
                              std::int8_t* ctx) noexcept {
    K::template attention_context<Dh, KV>(p, v, n, a.context, ctx);
}
template <class K, int Dh, int KV>
inline void attention_context(const attention_a16w8& a, const std::int16_t* p, const std::int16_t* v, int n,
                              std::int16_t* ctx) noexcept {
    K::template attention_context<Dh, KV>(p, v, n, a, ctx);
}

}  // namespace detail

namespace detail {

// The int8 attention schedule: query rows [r0, r0 + rows) (at ws.query, D apart) over their
// keys (composition.hpp, tile_keys), their context in place of their queries; a row without
// keys (causal, masked) gets a zero context. With an attention batch of 1 row by row, head by
// head; else (row, head) pairs k = r H + h, B at a time: scores of all B, their softmax (one
// call: a kernel set may overlap the rows' dependent steps), contexts. Pairs of one call share
// their key count: causal calls stay within a row. Out of line: inlined, GCC 12 lays out the
// reference kernels' loops around it less well on Cortex-M.
template <class Cfg, class K, int Tile, class A, class V>
STATICFORMER_OUT_OF_LINE void attention_rows_int8(const A& a, const tile_keys& keys, int rows,
                                                  integer_lane<V>& ws) noexcept {
    constexpr int D = Cfg::d_model, S = Cfg::seq_len, H = Cfg::heads, Dh = Cfg::head_dim, T = Tile;
    constexpr int KV = Cfg::kv_dim, group = Cfg::kv_group;  // query head h reads key and value head h / group
    constexpr int B = int8_attention_batch(Tile), P = int8_even_rows(S);  // (the workspace's batch and stride)
    if constexpr (B == 1) {
        for (int r = 0; r < rows; ++r) {
            const int n = keys.of_row<Cfg::is_causal>(r);
            if (n == 0) std::memset(ws.query + r * D, 0, D * sizeof(V));  // the context's zero point is 0
            for (int h = 0; h < H && n > 0; ++h) {
                V* q = ws.query + r * D + h * Dh;
                K::template attention_scores<Dh, S>(q, ws.keys_t + h / group * Dh * S, n, ws.scores);
                K::softmax(ws.scores, n, a.logits, ws.probs);
                attention_context<K, Dh, KV>(a, ws.probs, ws.values + h / group * Dh, n, q);
            }
        }
    } else {
        const auto query = [&](int k) { return ws.query + (k / H) * D + (k % H) * Dh; };
        constexpr int pairs = Cfg::is_causal ? H : T * H;
        for (int g0 = 0; g0 < rows * H; g0 += pairs) {
            const int g_end = rows * H - g0 < pairs ? rows * H : g0 + pairs, m = keys.of_row<Cfg::is_causal>(g0 / H);
            if (m == 0) std::memset(query(g0), 0, std::size_t(g_end - g0) * Dh * sizeof(V));  // (causal: one row's heads)
            for (int k0 = g0; k0 < g_end && m > 0; k0 += B) {
                const int count = g_end - k0 < B ? g_end - k0 : B;
                for (int b = 0; b < count; ++b)
                    K::template attention_scores<Dh, S>(query(k0 + b), ws.keys_t + (k0 + b) % H / group * Dh * S, m,
                                                        ws.scores + b * P);
                K::template softmax_rows<P>(ws.scores, count, m, a.logits, ws.probs);
                for (int b = 0; b < count; ++b)
                    attention_context<K, Dh, KV>(a, ws.probs + b * P, ws.values + (k0 + b) % H / group * Dh, m,
                                                 query(k0 + b));
            }
        }
    }
}

// The integer steps of the composition (composition.hpp): int8 (V = std::int8_t) or a16w8
// (V = std::int16_t); K's ops take each precision's parameters.
template <class Cfg, class K, int Tile, class V = std::int8_t>
struct int8_steps {
    static constexpr int tile = Tile, D = Cfg::d_model, S = Cfg::seq_len, F = Cfg::d_ff, Dh = Cfg::head_dim;
    static constexpr int KV = Cfg::kv_dim;
    using value = V;
    using stream = std::int16_t;
    using layer = std::conditional_t<std::is_same<V, std::int8_t>::value, layer_weights_int8<Cfg>,
                                     layer_weights_a16w8<Cfg>>;
    using workspace = integer_lane<V>;
    static constexpr int values_rows = int8_even_rows(S);  // (the workspace's value_rows)
    template <int Workers, int Batch>
    static workspace lane(workspace_integer<Cfg, V, Tile, Workers, Batch>& ws, int i) noexcept {
        auto& t = ws.lane[i];
        return {ws.keys_t, ws.values, t.normed, t.query, t.proj, t.hidden, t.scores, t.probs};
    }
    // A lane's view with the keys and values of sequence b of a batch, and its queries from the
    // tile's row `offset` (attention reads the queries from the view).
    static workspace sequence(const workspace& ws, int b, int offset) noexcept {
        return {ws.keys_t + b * KV * S, ws.values + b * values_rows * KV, ws.normed, ws.query + offset * D,
                ws.proj, ws.hidden, ws.scores, ws.probs};
    }

    // Before a pass: the values zeroed, so that a lone last key's partner in a paired layout
    // (simd/attention_int8.hpp), read times a zero probability, is never undefined memory.
    static void start(const workspace& ws) noexcept {
        std::memset(ws.values, 0, std::size_t(values_rows) * KV * sizeof(V));
    }

    static V* normed(workspace& ws) noexcept { return ws.normed; }
    // Post-norm: a block reads the stream narrowed (into the tile's block input).
    static const V* post_norm_input(const layer& w, before_attention, const stream* x, int rows,
                                    workspace& ws) noexcept {
        K::narrow(x, rows * D, w.input1, ws.normed);
        return ws.normed;
    }
    static const V* post_norm_input(const layer& w, before_feed_forward, const stream* x, int rows,
                                    workspace& ws) noexcept {
        K::narrow(x, rows * D, w.input2, ws.normed);
        return ws.normed;
    }
    // LayerNorm of stream rows: into the block input (pre-norm) or into the stream (post-norm).
    template <class Out>
    static void layer_norm(const layer& w, before_attention, const stream* x, int rows, Out* y) noexcept {
        K::layer_norm(x, rows, w.norm1, y);
    }
    template <class Out>
    static void layer_norm(const layer& w, before_feed_forward, const stream* x, int rows, Out* y) noexcept {
        K::layer_norm(x, rows, w.norm2, y);
    }
    template <class Weights>
    static void final_norm(const Weights& w, stream* y, int rows) noexcept {
        K::layer_norm(y, rows, w.final_norm.norm, y);
    }

    // Rotary positions: each row of Width queries or keys turned by its position's Q14 angles.
    template <int Width>
    static void rotate(V* x, int rows, row_positions at) noexcept {
        if constexpr (Cfg::is_rotary) {
            constexpr bool interleaved = Cfg::rotary_kind == rotary_layout::interleaved;
            constexpr auto& angles = math::rotary_angles_q14<S, Dh / 2, Cfg::rotary_theta>;
            at.each(rows, [&](int r, int p) {
                K::template rotate<Width, Dh, interleaved>(x + r * Width, angles.cos[p], angles.sin[p]);
            });
        }
    }
    // Keys (turned: rotary), then values, of a tile through proj into the set's layouts, stored
    // from index `stored` on.
    static void keys_and_values(const layer& w, const V* src, int rows, row_positions at, int stored,
                                workspace& ws) noexcept {
        K::linear(src, rows, w.key, ws.proj);
        rotate<KV>(ws.proj, rows, at);
        K::template store_keys<KV, Dh, S>(ws.proj, rows, stored, ws.keys_t);
        K::linear(src, rows, w.value, ws.proj);
        K::template store_values<KV, Dh, S>(ws.proj, rows, stored, ws.values);
    }
    // (The queries' scale holds 1 / sqrt(head_dim): no step of its own.)
    static V* queries(const layer& w, const V* src, int rows, row_positions at, workspace& ws) noexcept {
        K::linear(src, rows, w.query, ws.query);
        rotate<D>(ws.query, rows, at);
        return ws.query;
    }
    static void attend(const layer& w, V*, const tile_keys& keys, int rows, workspace& ws) noexcept {
        attention_rows_int8<Cfg, K, Tile>(w.attention, keys, rows, ws);
    }
    static void add_output_projection(const layer& w, const V* q, int rows, stream* x, workspace& ws) noexcept {
        K::linear(q, rows, w.out, ws.proj);
        K::add(x, ws.proj, rows * D, w.residual1);
    }
    static V* hidden(const layer& w, const V* src, int rows, workspace& ws) noexcept {
        if constexpr (Cfg::is_gated) {
            K::linear(src, rows, w.ff1, ws.hidden);  // rows of [a | b]
            K::template glu<F>(ws.hidden, rows, w.activation, w.gate);
        } else if constexpr (K::fuses_activation) {
            K::linear_activate(src, rows, w.ff1, w.activation, ws.hidden);
        } else {
            K::linear(src, rows, w.ff1, ws.hidden);
            K::activate(ws.hidden, rows * F, w.activation);
        }
        return ws.hidden;
    }
    static void add_feed_forward_output(const layer& w, const V* hidden, int rows, stream* x,
                                        workspace& ws) noexcept {
        K::linear(hidden, rows, w.ff2, ws.proj);
        K::add(x, ws.proj, rows * D, w.residual2);
    }
};

// Validates the call, stages the input into y, runs the composition (run(y, valid_len,
// kept_keys)) and sets the padded rows to 0 (the stream's zero point).
template <class Cfg, class Run>
inline status checked_pass_int8(const std::int16_t* x, std::int16_t* y, int valid_len, key_padding_mask mask,
                                Run&& run) noexcept {
    status s = check_call<Cfg>(x, y, sizeof(std::int16_t), valid_len);
    if (s == status::ok) s = check_mask<Cfg::seq_len>(mask, valid_len);
    if (s != status::ok) return s;
    const std::size_t count = std::size_t(Cfg::seq_len) * Cfg::d_model, valid = std::size_t(valid_len) * Cfg::d_model;
    if (x != y) std::memmove(y, x, valid * sizeof(std::int16_t));  // (no overlap here; memmove keeps -Wrestrict quiet)
    run(y, valid_len, kept_keys{mask.masked, 0});
    std::memset(y + valid, 0, (count - valid) * sizeof(std::int16_t));
    return status::ok;
}
// The integer precisions: their tensors' type and their kernel sets.
template <class P>
struct integer_precision;  // int8, a16w8
template <>
struct integer_precision<int8> {
    using value = std::int8_t;
    template <class Backend>
    using kernels = int8_kernel_set<Backend>;
};
template <>
struct integer_precision<a16w8> {
    using value = std::int16_t;
    template <class Backend>
    using kernels = a16w8_kernel_set<Backend>;
};
template <class P, class V>
constexpr bool workspace_of =
    std::is_same<V, typename integer_precision<P>::value>::value;  // (else: a workspace of another precision)

// One integer pass with kernel set K, its composition on tiles(ws): on_one_worker or on_workers.
template <class Cfg, class K, class P, class V, int Tile, int Workers, class MakeTiles>
inline status forward_int8(const encoder_weights<Cfg, P>& w, workspace_integer<Cfg, V, Tile, Workers>& ws,
                           const std::int16_t* x, std::int16_t* y, int valid_len, key_padding_mask mask,
                           MakeTiles&& tiles) noexcept {
    static_assert(workspace_of<P, V>, "the workspace is another precision's (workspace_int8 / workspace_a16w8)");
    using C = composition<Cfg, int8_steps<Cfg, K, Tile, V>>;
    return checked_pass_int8<Cfg>(x, y, valid_len, mask,
                                  [&](std::int16_t* s, int n, kept_keys m) { C::run(w, s, n, m, tiles(ws, C{})); });
}

// An integer batch (batch.hpp) with kernel set K, its encoder on tiles(ws).
template <class Cfg, class K, class P, class V, int Tile, int Workers, int Batch, class MakeTiles>
inline status checked_batch_int8(const encoder_weights<Cfg, P>& w, workspace_integer<Cfg, V, Tile, Workers, Batch>& ws,
                                 const std::int16_t* x, std::int16_t* y, const int* valid_lens, int count,
                                 const key_padding_mask* masks, MakeTiles&& tiles) noexcept {
    static_assert(workspace_of<P, V>, "the workspace is another precision's (workspace_int8 / workspace_a16w8)");
    const status s = check_batch<Cfg, Batch>(x, y, sizeof(std::int16_t), valid_lens, count, masks);
    if (s != status::ok) return s;
    using C = composition<Cfg, int8_steps<Cfg, K, Tile, V>>;
    run_packed<Cfg, Batch>(x, y, valid_lens, count, masks, 0, [&](std::int16_t* rows, int n, const batch_rows& batch) {
                               C::run(w, rows, n, batch, tiles(ws, C{}));
                           });
    return status::ok;
}

}  // namespace detail

// Runs one int8 or a16w8 forward pass with caller-owned workspace (workspace_int8 /
// workspace_a16w8). x and y hold seq_len * d_model int16 values (the residual stream),
// row-major, quantised with w.input and w.output (quant/convert.hpp converts floats on the
// host); y may equal x but must not partly overlap it. mask: as for float encoders.
template <class Backend = default_backend, class Cfg, class P, class V, int Tile, int Workers>
inline status forward(const encoder_weights<Cfg, P>& w, workspace_integer<Cfg, V, Tile, Workers>& ws,
                      const std::int16_t* x, std::int16_t* y, int valid_len, key_padding_mask mask = {}) noexcept {
    static_assert(detail::backend_check<P, Backend>::value, "");
    using K = typename detail::integer_precision<P>::template kernels<Backend>;
    return detail::forward_int8<Cfg, K>(w, ws, x, y, valid_len, mask, detail::on_one_worker{});
}
// The same pass split across the workspace's Workers threads by the caller's executor
// (parallel.hpp): the same bytes.
template <class Backend = default_backend, class Cfg, class P, class V, int Tile, int Workers, class Executor>
inline status forward(const encoder_weights<Cfg, P>& w, workspace_integer<Cfg, V, Tile, Workers>& ws,
                      const std::int16_t* x, std::int16_t* y, int valid_len, key_padding_mask mask,
                      Executor&& exec) noexcept {
    static_assert(detail::backend_check<P, Backend>::value, "");
    using K = typename detail::integer_precision<P>::template kernels<Backend>;
    return detail::forward_int8<Cfg, K>(w, ws, x, y, valid_len, mask,
                                        detail::on_workers<std::remove_reference_t<Executor>>{exec});
}

// A batch of integer sequences in one call, as the float forward_batch (batch_workspace_int8_for).
template <class Backend = default_backend, class Cfg, class P, class V, int Tile, int Workers, int Batch>
inline status forward_batch(const encoder_weights<Cfg, P>& w, workspace_integer<Cfg, V, Tile, Workers, Batch>& ws,
                            const std::int16_t* x, std::int16_t* y, const int* valid_lens, int count,
                            const key_padding_mask* masks = nullptr) noexcept {
    static_assert(detail::backend_check<P, Backend>::value, "");
    using K = typename detail::integer_precision<P>::template kernels<Backend>;
    return detail::checked_batch_int8<Cfg, K>(w, ws, x, y, valid_lens, count, masks, detail::on_one_worker{});
}
// The same batch split across the workspace's Workers threads by the caller's executor.
template <class Backend = default_backend, class Cfg, class P, class V, int Tile, int Workers, int Batch,
          class Executor>
inline status forward_batch(const encoder_weights<Cfg, P>& w, workspace_integer<Cfg, V, Tile, Workers, Batch>& ws,
                            const std::int16_t* x, std::int16_t* y, const int* valid_lens, int count,
                            const key_padding_mask* masks, Executor&& exec) noexcept {
    static_assert(detail::backend_check<P, Backend>::value, "");
    using K = typename detail::integer_precision<P>::template kernels<Backend>;
    return detail::checked_batch_int8<Cfg, K>(w, ws, x, y, valid_lens, count, masks,
                                              detail::on_workers<std::remove_reference_t<Executor>>{exec});
}

}  // namespace staticformer
