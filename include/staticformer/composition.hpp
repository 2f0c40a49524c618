// staticformer: the one composition of an encoder's stages, for every precision (normative: the
// order of the stages and the buffers they use are part of the arithmetic). A precision's steps
// (Steps: detail::float_steps in encoder_float.hpp, detail::int8_steps in encoder_int8.hpp) say
// how each stage runs on its values, weights and kernel set; the order lives here once.
//
//   attention block (each layer):  for each tile of valid rows: keys and values (of the block
//       input); then for each tile: queries, attention over every valid key (or keys 0..i,
//       causal), the output projection added to the stream; post-norm: LayerNorm of the stream
//   feed-forward block:  for each tile: the hidden layer (activated), its projection added to
//       the stream; post-norm: LayerNorm
//   then the final LayerNorm, a tile at a time.
// The block input is the stream itself (post-norm) or its LayerNorm (pre-norm).
#pragma once

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

    static void attention_block(const layer& w, value* y, int n, workspace& ws) noexcept {
        each_tile<T>(n, [&](int r0, int rows) {
            Steps::keys_and_values(w, block_input(w, before_attention{}, y + r0 * D, rows, ws), rows, r0, ws);
        });
        each_tile<T>(n, [&](int r0, int rows) {
            value* x = y + r0 * D;
            value* q = Steps::queries(w, block_input(w, before_attention{}, x, rows, ws), rows, ws);
            Steps::attend(w, q, r0, rows, n, ws);  // their context in place of the queries
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

    // y holds the input rows [0, n); the stream is updated in place.
    template <class Weights>
    static void run(const Weights& w, value* y, int n, workspace& ws) noexcept {
        for (int l = 0; l < Cfg::layers; ++l) {
            attention_block(w.layer[l], y, n, ws);
            feed_forward_block(w.layer[l], y, n, ws);
        }
        if constexpr (Cfg::has_final_norm)
            each_tile<T>(n, [&](int r0, int rows) { Steps::final_norm(w, y + r0 * D, rows); });
    }
};

}  // namespace detail
}  // namespace staticformer
