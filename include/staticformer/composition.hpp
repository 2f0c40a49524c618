// staticformer: the one composition of an encoder's stages, for every precision (normative: the
// order of the stages and the buffers they use are part of the arithmetic). A precision's steps
// (Steps: detail::float_steps in encoder_float.hpp, detail::int8_steps in encoder_int8.hpp) say
// how each stage runs on its values, weights and kernel set; the order lives here once.
//
//   each layer:  for each tile of valid rows: keys and values (of the block input) of the rows
//       whose keys are kept (mask.hpp), stored one after the other; then for each tile:
//     attention block: queries, attention over every stored key (causal: the kept keys of rows
//       0..i), the output projection added to the stream; post-norm: LayerNorm of the stream;
//     feed-forward block: the hidden layer (activated), its projection added to the stream;
//       post-norm: LayerNorm;
//     after the last layer's: the final LayerNorm.
// The block input is the stream itself (post-norm; int8: the int16 stream narrowed to int8) or
// its LayerNorm (pre-norm). Rotary
// positions turn the keys and queries right after their projections, each by its row's position
// (row_positions: a stored key keeps its row's, whatever the mask compacted).
// Each row's values depend on its own row and the stored keys only, never on the tiles: a stage's
// tiles may run in any order, any number of rows each, on several workers (serial_tiles,
// parallel_tiles), with the same bytes. A batch of sequences runs as one stream of packed rows
// (batch_rows): each sequence's keys are stored apart and each row attends its own sequence's.
#pragma once

#include <cstring>

#include "mask.hpp"
#include "parallel.hpp"

namespace staticformer {
namespace detail {

// Which of a layer's LayerNorms a step takes: before attention (norm1) or before the FFN (norm2).
struct before_attention {};
struct before_feed_forward {};

// f(r0, rows) for the tiles [r0, r0 + rows) of n rows, Tile rows each but the last.
template <int Tile, class F>
inline void each_tile(int n, F&& f) {
    for (int r0 = 0; r0 < n; r0 += Tile) f(r0, n - r0 < Tile ? n - r0 : Tile);
}

// The tiles of a stage on one worker: f(lane, r0, rows) for each tile, lane a workspace view
// (a precision's tile buffers and the shared keys).
template <int Tile, class Lane>
struct serial_tiles {
    Lane lane;
    Lane& first() noexcept { return lane; }
    template <class F>
    void each(int n, F&& f) {
        each_tile<Tile>(n, [&](int r0, int rows) { f(lane, r0, rows); });
    }
};

// The tiles of a stage on up to Workers workers through the caller's executor (parallel.hpp):
// n rows cut into one tile per worker (at most Tile rows each), worker i on lane i.
template <int Tile, class Lane, class Executor>
struct parallel_tiles {
    Lane* lanes;
    int workers;
    Executor& exec;
    template <class F>
    void each(int n, F&& f) {
        const int per_worker = (n + workers - 1) / workers, rows = per_worker < Tile ? per_worker : Tile;
        const int tiles = (n + rows - 1) / rows, tasks = tiles < workers ? tiles : workers;
        const auto task = [&](int i) {
            for (int r0 = i * rows; r0 < n; r0 += tasks * rows) f(lanes[i], r0, n - r0 < rows ? n - r0 : rows);
        };
        exec(tasks, parallel_task(task));
    }
};

// The keys the query rows of a tile [r0, ...) attend. The keys are stored compacted: the kept
// ones among the valid rows, in their order.
struct tile_keys {
    int stored;        // keys stored for the layer
    kept_keys mask;    // whose keys were kept
    int r0;            // the tile's first row
    int kept_before;   // kept keys among rows [0, r0)

    // Keys of query row r0 + r: every stored key; causal: the kept keys of rows 0..r0 + r (none,
    // for a row before the first kept key: its context is zero).
    template <bool Causal>
    int of_row(int r) const noexcept {
        if constexpr (!Causal) return stored;
        if (mask.masked == nullptr) return kept_before + r + 1;
        int keys = kept_before;
        for (int i = r0; i <= r0 + r; ++i) keys += mask.kept(i);
        return keys;
    }
};
// A batch's sequences with their valid rows packed one after the other: sequence b's length[b]
// rows from packed row start[b], its keys kept by mask[b]. One sequence is a batch of one.
struct batch_rows {
    const int* start;
    const int* length;
    const kept_keys* mask;
    int count;

    // f(b, r0, offset, rows) for each sequence b that the packed rows [t0, t0 + rows) meet: its
    // rows [r0, r0 + rows), at row `offset` of the tile.
    template <class F>
    void each_segment(int t0, int rows, F&& f) const {
        for (int b = 0; b < count; ++b) {
            const int lo = t0 > start[b] ? t0 : start[b], end = start[b] + length[b];
            const int hi = t0 + rows < end ? t0 + rows : end;
            if (lo < hi) f(b, lo - start[b], lo - t0, hi - lo);
        }
    }
};

// The sequence positions of the rows a step gets, from row r0 on: every row, or where rows were
// gathered (keys of a masked sequence), the kept ones (rotary positions turn each by its own).
// With a batch, r0 is a packed row and each row's position is its own sequence's.
struct row_positions {
    int r0;
    kept_keys rows;  // the rows present (no mask: all)
    const batch_rows* batch = nullptr;

    // f(r, position) for each of the first `count` rows present.
    template <class F>
    void each(int count, F&& f) const {
        if (batch != nullptr) {
            batch->each_segment(r0, count, [&](int, int p0, int offset, int rows) {
                for (int r = 0; r < rows; ++r) f(offset + r, p0 + r);
            });
            return;
        }
        for (int r = 0, p = r0; r < count; ++p)
            if (rows.kept(p)) f(r++, p);
    }
};

// Every one of the n valid rows' keys kept.
inline tile_keys all_keys(int n, int r0) noexcept { return {n, {}, r0, r0}; }

template <class Cfg, class Steps>
struct composition {
    static constexpr int D = Cfg::d_model, T = Steps::tile;
    using value = typename Steps::value;    // a block's input and the tensors inside it
    using stream = typename Steps::stream;  // the residual stream (int8 steps: wider than value)
    using layer = typename Steps::layer;
    using workspace = typename Steps::workspace;

    // Rows of the block input: LN(x) for pre-norm (into the workspace); for post-norm x itself
    // as the block reads it (Steps::post_norm_input: x, or x narrowed into the workspace).
    template <class Norm>
    static const value* block_input(const layer& w, Norm which, const stream* x, int rows, workspace& ws) noexcept {
        if constexpr (Cfg::norm_first) {
            value* normed = Steps::normed(ws);
            Steps::layer_norm(w, which, x, rows, normed);
            return normed;
        } else {
            return Steps::post_norm_input(w, which, x, rows, ws);
        }
    }

    // The block input's rows of the tile [r0, r0 + rows) that the mask keeps, moved (or copied,
    // when the input is the stream itself) to the front of the workspace's block input; returns
    // how many.
    static int gather_kept(const value* in, int r0, int rows, kept_keys mask, workspace& ws) noexcept {
        value* kept = Steps::normed(ws);
        int count = 0;
        for (int r = 0; r < rows; ++r)
            if (mask.kept(r0 + r)) std::memmove(kept + count++ * D, in + r * D, D * sizeof(value));
        return count;
    }

    // Keys and values of rows [r0, r0 + rows) of a sequence (at y) whose keys mask keeps,
    // stored from the count kept before them on.
    static void store_tile(const layer& w, const stream* y, int r0, int rows, kept_keys mask, workspace& ws) noexcept {
        rows = rows < T ? rows : T;  // (a segment of a tile never is longer: said for GCC's -Warray-bounds)
        const value* in = block_input(w, before_attention{}, y + r0 * D, rows, ws);
        if (mask.masked != nullptr) {
            rows = gather_kept(in, r0, rows, mask, ws);
            in = Steps::normed(ws);
        }
        if (rows > 0) Steps::keys_and_values(w, in, rows, {r0, mask}, mask.kept_before(r0), ws);
    }

    // Each sequence's keys and values into its own (Steps::sequence).
    template <class Tiles>
    static void store_keys(const layer& w, stream* y, int n, const batch_rows& batch, Tiles& tiles) noexcept {
        tiles.each(n, [&](workspace& ws, int t0, int rows) {
            batch.each_segment(t0, rows, [&](int b, int r0, int, int count) {
                workspace sequence = Steps::sequence(ws, b, 0);
                store_tile(w, y + batch.start[b] * D, r0, count, batch.mask[b], sequence);
            });
        });
    }

    // The tile's queries, the attention of each of its sequences' rows over their own keys, the
    // output projection.
    static void attend_tile(const layer& w, stream* x, int t0, int rows, const batch_rows& batch, workspace& ws) noexcept {
        const row_positions at{t0, {}, &batch};
        value* q = Steps::queries(w, block_input(w, before_attention{}, x, rows, ws), rows, at, ws);
        batch.each_segment(t0, rows, [&](int b, int r0, int offset, int count) {
            const kept_keys mask = batch.mask[b];
            const tile_keys keys{mask.kept_before(batch.length[b]), mask, r0, mask.kept_before(r0)};
            workspace sequence = Steps::sequence(ws, b, offset);
            Steps::attend(w, q + offset * D, keys, count, sequence);  // context in place of q
        });
        Steps::add_output_projection(w, q, rows, x, ws);
        if constexpr (!Cfg::norm_first) Steps::layer_norm(w, before_attention{}, x, rows, x);
    }

    static void feed_forward_tile(const layer& w, stream* x, int rows, workspace& ws) noexcept {
        value* hidden = Steps::hidden(w, block_input(w, before_feed_forward{}, x, rows, ws), rows, ws);
        Steps::add_feed_forward_output(w, hidden, rows, x, ws);
        if constexpr (!Cfg::norm_first) Steps::layer_norm(w, before_feed_forward{}, x, rows, x);
    }

    // The batch's packed rows (n of them) are in y, the stream updated in place. Each
    // sequence's mask: whose keys attention sees (checked: at least one of its valid rows').
    // tiles: serial_tiles or parallel_tiles.
    // A layer is two stages: every row's keys, then each tile's attention and feed-forward block
    // (a row's rest of the layer needs its own row and the stored keys only; the last layer's
    // tiles end with the final LayerNorm), so a layer on several workers waits twice.
    template <class Weights, class Tiles>
    static void run(const Weights& w, stream* y, int n, const batch_rows& batch, Tiles&& tiles) noexcept {
        for (int b = 0; b < batch.count; ++b) Steps::start(Steps::sequence(tiles.first(), b, 0));
        for (int l = 0; l < Cfg::layers; ++l) {
            store_keys(w.layer[l], y, n, batch, tiles);
            tiles.each(n, [&](workspace& ws, int t0, int rows) {
                stream* x = y + t0 * D;
                attend_tile(w.layer[l], x, t0, rows, batch, ws);
                feed_forward_tile(w.layer[l], x, rows, ws);
                if constexpr (Cfg::has_final_norm)
                    if (l == Cfg::layers - 1) Steps::final_norm(w, x, rows);
            });
        }
    }
    // One sequence: y holds its n valid rows.
    template <class Weights, class Tiles>
    static void run(const Weights& w, stream* y, int n, kept_keys mask, Tiles&& tiles) noexcept {
        const int start = 0;
        run(w, y, n, batch_rows{&start, &n, &mask, 1}, tiles);
    }
    // The tiles of one worker, on the first lane of a workspace.
    template <class Storage>
    static serial_tiles<T, workspace> one_worker(Storage& ws) noexcept {
        return {Steps::lane(ws, 0)};
    }
    // The tiles of every worker of a workspace, through the caller's executor.
    template <class Storage, class Executor>
    struct all_workers {
        workspace lanes[Storage::workers];
        parallel_tiles<T, workspace, Executor> tiles;
        all_workers(Storage& ws, Executor& exec) noexcept : tiles{lanes, Storage::workers, exec} {
            for (int i = 0; i < Storage::workers; ++i) lanes[i] = Steps::lane(ws, i);
        }
        all_workers(const all_workers&) = delete;
        workspace& first() noexcept { return lanes[0]; }
        template <class F>
        void each(int n, F&& f) { tiles.each(n, f); }
    };
    template <class Storage, class Executor>
    static all_workers<Storage, Executor> workers(Storage& ws, Executor& exec) noexcept {
        return {ws, exec};
    }
};

// What a pass runs its composition's tiles on (C::one_worker, C::workers): the workspace's first
// worker, or all of them through exec.
struct on_one_worker {
    template <class Storage, class C>
    auto operator()(Storage& storage, C) const noexcept {
        return C::one_worker(storage);
    }
};
template <class Executor>
struct on_workers {
    Executor& exec;
    template <class Storage, class C>
    auto operator()(Storage& storage, C) const noexcept {
        return C::workers(storage, exec);
    }
};

}  // namespace detail
}  // namespace staticformer
