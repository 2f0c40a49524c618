// staticformer: the one composition of an encoder's stages, for every precision (normative: the
// order of the stages and the buffers they use are part of the arithmetic). A precision's steps
// (Steps: detail::float_steps in encoder_float.hpp, detail::int8_steps in encoder_int8.hpp) say
// how each stage runs on its values, weights and kernel set; the order lives here once.
//
//   attention block (each layer):  for each tile of valid rows: keys and values (of the block
//       input) of the rows whose keys are kept (mask.hpp), stored one after the other; then for
//       each tile: queries, attention over every stored key (causal: the kept keys of rows
//       0..i), the output projection added to the stream; post-norm: LayerNorm of the stream
//   feed-forward block:  for each tile: the hidden layer (activated), its projection added to
//       the stream; post-norm: LayerNorm
//   then the final LayerNorm, a tile at a time.
// The block input is the stream itself (post-norm) or its LayerNorm (pre-norm). Rotary
// positions turn the keys and queries right after their projections, each by its row's position
// (row_positions: a stored key keeps its row's, whatever the mask compacted).
#pragma once

#include <cstring>

#include "mask.hpp"

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
// The sequence positions of the rows a step gets, from row r0 on: every row, or where rows were
// gathered (keys of a masked sequence), the kept ones (rotary positions turn each by its own).
struct row_positions {
    int r0;
    kept_keys rows;  // the rows present (no mask: all)

    // f(r, position) for each of the first `count` rows present.
    template <class F>
    void each(int count, F&& f) const {
        for (int r = 0, p = r0; r < count; ++p)
            if (rows.kept(p)) f(r++, p);
    }
};

// Every one of the n valid rows' keys kept.
inline tile_keys all_keys(int n, int r0) noexcept { return {n, {}, r0, r0}; }

template <class Cfg, class Steps>
struct composition {
    static constexpr int D = Cfg::d_model, T = Steps::tile;
    using value = typename Steps::value;
    using layer = typename Steps::layer;
    using workspace = typename Steps::workspace;

    // Rows of the block input: LN(x) for pre-norm (into the workspace), x itself for post-norm.
    template <class Norm>
    static const value* block_input(const layer& w, [[maybe_unused]] Norm which, const value* x, int rows,
                                    [[maybe_unused]] workspace& ws) noexcept {
        if constexpr (Cfg::norm_first) {
            value* normed = Steps::normed(ws);
            Steps::layer_norm(w, which, x, rows, normed);
            return normed;
        } else {
            return x;
        }
    }

    // The kept rows of the tile [r0, r0 + rows) copied into the workspace (before the block
    // input: a pre-norm LayerNorm then runs on the kept rows only); returns how many.
    static int gather_kept(const value* x, int r0, int rows, kept_keys mask, workspace& ws) noexcept {
        value* kept = Steps::normed(ws);
        int count = 0;
        for (int r = 0; r < rows; ++r)
            if (mask.kept(r0 + r)) std::memcpy(kept + count++ * D, x + r * D, D * sizeof(value));
        return count;
    }

    // Keys and values of the valid rows whose keys are kept, stored one after the other;
    // returns how many.
    static int store_keys_and_values(const layer& w, value* y, int n, kept_keys mask, workspace& ws) noexcept {
        int stored = 0;
        each_tile<T>(n, [&](int r0, int rows) {
            const value* x = y + r0 * D;
            if (mask.masked != nullptr) {
                rows = gather_kept(x, r0, rows, mask, ws);
                x = Steps::normed(ws);
            }
            const row_positions at{r0, mask};
            if (rows > 0)
                Steps::keys_and_values(w, block_input(w, before_attention{}, x, rows, ws), rows, at, stored, ws);
            stored += rows;
        });
        return stored;
    }

    static void attention_block(const layer& w, value* y, int n, kept_keys mask, workspace& ws) noexcept {
        tile_keys keys{store_keys_and_values(w, y, n, mask, ws), mask, 0, 0};
        each_tile<T>(n, [&](int r0, int rows) {
            value* x = y + r0 * D;
            value* q = Steps::queries(w, block_input(w, before_attention{}, x, rows, ws), rows, {r0, {}}, ws);
            keys.r0 = r0;
            Steps::attend(w, q, keys, rows, ws);  // their context in place of the queries
            for (int r = 0; r < rows; ++r) keys.kept_before += mask.kept(r0 + r);
            Steps::add_output_projection(w, q, rows, x, ws);
            if constexpr (!Cfg::norm_first) Steps::layer_norm(w, before_attention{}, x, rows, x);
        });
    }

    static void feed_forward_block(const layer& w, value* y, int n, workspace& ws) noexcept {
        each_tile<T>(n, [&](int r0, int rows) {
            value* x = y + r0 * D;
            value* hidden = Steps::hidden(w, block_input(w, before_feed_forward{}, x, rows, ws), rows, ws);
            Steps::add_feed_forward_output(w, hidden, rows, x, ws);
            if constexpr (!Cfg::norm_first) Steps::layer_norm(w, before_feed_forward{}, x, rows, x);
        });
    }

    // y holds the input rows [0, n); the stream is updated in place. mask: whose keys attention
    // sees (checked: at least one of the valid rows').
    template <class Weights>
    static void run(const Weights& w, value* y, int n, kept_keys mask, workspace& ws) noexcept {
        for (int l = 0; l < Cfg::layers; ++l) {
            attention_block(w.layer[l], y, n, mask, ws);
            feed_forward_block(w.layer[l], y, n, ws);
        }
        if constexpr (Cfg::has_final_norm)
            each_tile<T>(n, [&](int r0, int rows) { Steps::final_norm(w, y + r0 * D, rows); });
    }
};

}  // namespace detail
}  // namespace staticformer
