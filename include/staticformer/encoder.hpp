// staticformer: encoder<cfg, P, Backend> and the one composition of kernels every backend runs
// (normative: the order of stages and the buffers they use are part of the arithmetic).
// The composition is the same for every floating-point precision: f16 weights are widened to
// float inside the kernels (math::widen), so an f16 encoder computes exactly what the f32
// encoder computes on the widened weights.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "call_checks.hpp"
#include "config.hpp"
#include "encoder_int8.hpp"
#include "kernels/backends.hpp"
#include "math/finite.hpp"
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
// Tile is the number of rows of a tile (config.hpp, tile_for): workspace_for<Cfg, Backend> is
// the workspace an encoder<Cfg, P, Backend> holds. Any tile gives the same results.
template <class Cfg, int Tile = Cfg::tile>
struct workspace {
    static_assert(Tile > 0 && Tile <= Cfg::seq_len, "a tile holds between 1 and seq_len rows");
    static constexpr int D = Cfg::d_model, S = Cfg::seq_len, T = Tile, F = Cfg::d_ff;
    static constexpr int tile = Tile;
    // Attention runs on blocks of up to attention_rows query rows, a row of scores for each.
    static constexpr int attention_rows = T < 8 ? T : 8;
    static constexpr int wide_floats = T * F > T * D + attention_rows * S ? T * F : T * D + attention_rows * S;
    alignas(64) float keys_t[D * S];  // keys transposed: keys_t[c * S + j], c = head * head_dim + d
    alignas(64) float values[S * D];  // values[j * D + c]
    alignas(64) float narrow[T * D];
    alignas(64) float wide[wide_floats];
};

template <class Cfg, class Backend = default_backend>
using workspace_for = workspace<Cfg, tile_for<Cfg, Backend>>;

namespace detail {

// 2^k if n = 4^k, else 0.
constexpr int power_of_two_root(int n) {
    for (int root = 1; root <= n / root; root *= 2)
        if (root * root == n) return root;
    return 0;
}
static_assert(power_of_two_root(1) == 1 && power_of_two_root(16) == 4 && power_of_two_root(64) == 8);
static_assert(power_of_two_root(32) == 0 && power_of_two_root(8) == 0 && power_of_two_root(36) == 0);

// Element is the weights' storage type: float (f32) or std::uint16_t (f16, binary16 bits).
template <class Cfg, class K, class Element, int Tile>
struct composition {
    static constexpr int D = Cfg::d_model, S = Cfg::seq_len, T = Tile, F = Cfg::d_ff;
    static constexpr int H = Cfg::heads, Dh = Cfg::head_dim;
    using layer = layer_weights<Cfg, Element>;

    // Rows [r0, r0 + rows) of the block input: LN(x) for pre-norm, x itself for post-norm.
    static const float* block_input(const float* x, int rows, const Element* gamma, const Element* beta,
                                    float* normed) noexcept {
        if constexpr (Cfg::norm_first) {
            K::template layer_norm<D>(x, rows, gamma, beta, Cfg::eps, normed);
            return normed;
        } else {
            return x;
        }
    }

    // q / sqrt(head_dim). Where sqrt(head_dim) is a power of two (head_dim = 4^k), the product
    // with its reciprocal is exact too, so it gives the quotient's bits at a product's cost.
    static void scale_queries(float* q, int count) noexcept {
        constexpr int root = power_of_two_root(Dh);
        if constexpr (root > 0) {
            constexpr float inverse = 1.0f / float(root);
            for (int i = 0; i < count; ++i) q[i] = q[i] * inverse;
        } else {
            const float sqrt_head_dim = std::sqrt(float(Dh));
            for (int i = 0; i < count; ++i) q[i] = q[i] / sqrt_head_dim;
        }
    }

    static void attention_block(const layer& w, float* y, int n, workspace<Cfg, Tile>& ws) noexcept {
        // Keys and values of every valid row.
        for (int r0 = 0; r0 < n; r0 += T) {
            const int rows = n - r0 < T ? n - r0 : T;
            const float* src = block_input(y + r0 * D, rows, w.norm1_gamma, w.norm1_beta, ws.narrow);
            float* keys = ws.wide;
            K::template linear<D, D, 3 * D>(src, rows, &w.qkv_w[0][D], &w.qkv_b[D], keys);
            K::template store_keys<D, S>(keys, rows, r0, ws.keys_t);
            K::template linear<D, D, 3 * D>(src, rows, &w.qkv_w[0][2 * D], &w.qkv_b[2 * D], ws.values + r0 * D);
        }
        // Queries, one tile at a time: attend, project, add the residual.
        for (int r0 = 0; r0 < n; r0 += T) {
            const int rows = n - r0 < T ? n - r0 : T;
            float* x = y + r0 * D;
            const float* src = block_input(x, rows, w.norm1_gamma, w.norm1_beta, ws.narrow);
            float* query = ws.wide;
            float* scores = ws.wide + T * D;  // attention_rows rows of S
            K::template linear<D, D, 3 * D>(src, rows, &w.qkv_w[0][0], &w.qkv_b[0], query);
            scale_queries(query, rows * D);
            // Each head, a block of rows at a time: their scores, probabilities, and their
            // context in place of their queries.
            // Causal: row i attends to keys 0..i, one row at a time (its own key count).
            constexpr int block = Cfg::is_causal ? 1 : workspace<Cfg, Tile>::attention_rows;
            for (int h = 0; h < H; ++h)
                for (int b0 = 0; b0 < rows; b0 += block) {
                    const int b = rows - b0 < block ? rows - b0 : block;
                    const int keys = Cfg::is_causal ? r0 + b0 + 1 : n;
                    float* q = query + b0 * D + h * Dh;
                    K::template attention_scores<Dh, S, D>(q, b, ws.keys_t + h * Dh * S, keys, scores);
                    K::template softmax<S>(scores, b, keys);
                    K::template attention_context<Dh, D, S>(scores, b, ws.values + h * Dh, keys, q);
                }
            K::template linear<D, D>(query, rows, &w.out_w[0][0], w.out_b, ws.narrow);  // the LayerNorm is spent
            K::add(x, ws.narrow, rows * D);
            if constexpr (!Cfg::norm_first) K::template layer_norm<D>(x, rows, w.norm1_gamma, w.norm1_beta, Cfg::eps, x);
        }
    }

    static void feed_forward_block(const layer& w, float* y, int n, workspace<Cfg, Tile>& ws) noexcept {
        for (int r0 = 0; r0 < n; r0 += T) {
            const int rows = n - r0 < T ? n - r0 : T;
            float* x = y + r0 * D;
            const float* src = block_input(x, rows, w.norm2_gamma, w.norm2_beta, ws.narrow);
            float* hidden = ws.wide;
            K::template linear<D, F>(src, rows, &w.ff1_w[0][0], w.ff1_b, hidden);
            K::template activate<Cfg::activation>(hidden, rows * F);
            K::template linear<F, D>(hidden, rows, &w.ff2_w[0][0], w.ff2_b, ws.narrow);  // the LayerNorm is spent
            K::add(x, ws.narrow, rows * D);
            if constexpr (!Cfg::norm_first) K::template layer_norm<D>(x, rows, w.norm2_gamma, w.norm2_beta, Cfg::eps, x);
        }
    }

    // y already holds the input rows [0, n) and zeros after them.
    template <class P>
    static void run(const encoder_weights<Cfg, P>& w, float* y, int n, workspace<Cfg, Tile>& ws) noexcept {
        for (int l = 0; l < Cfg::layers; ++l) {
            attention_block(w.layer[l], y, n, ws);
            feed_forward_block(w.layer[l], y, n, ws);
        }
        if constexpr (Cfg::has_final_norm)
            for (int r0 = 0; r0 < n; r0 += T) {
                const int rows = n - r0 < T ? n - r0 : T;
                K::template layer_norm<D>(y + r0 * D, rows, w.final_norm.gamma, w.final_norm.beta, Cfg::eps, y + r0 * D);
            }
    }
};

// Validates the call and the input values, stages the input into y, and runs the composition
// with kernel set K. NaN and infinity: refused in the input (nothing written); a pass that
// overflows returns non_finite_output with every valid value the canonical NaN, so every
// backend gives the same bytes and no caller reads a silent NaN as a result.
template <class Cfg, class K, class P, int Tile>
inline status forward(const encoder_weights<Cfg, P>& w, workspace<Cfg, Tile>& ws, const float* x, float* y,
                      int valid_len) noexcept {
    const status s = check_call<Cfg>(x, y, sizeof(float), valid_len);
    if (s != status::ok) return s;
    const std::size_t count = std::size_t(Cfg::seq_len) * Cfg::d_model;
    const std::size_t valid = std::size_t(valid_len) * Cfg::d_model;
    if (!math::all_finite(x, valid)) return status::non_finite_input;
    if (x != y) std::memmove(y, x, valid * sizeof(float));  // (no overlap here; memmove keeps GCC's -Wrestrict quiet)
    std::memset(y + valid, 0, (count - valid) * sizeof(float));  // padded rows: zero, no work
    composition<Cfg, K, weight_element_t<P>, Tile>::run(w, y, valid_len, ws);
    return math::canonicalize_non_finite(y, valid) ? status::ok : status::non_finite_output;
}

}  // namespace detail

// Runs one forward pass with caller-owned workspace (for firmware that places it in a chosen
// RAM section). x and y hold seq_len * d_model floats, row-major; y may equal x (in place) but
// must not partly overlap it. Rows >= valid_len of y are zero on return. The weights are f32 or
// f16 (encoder_weights<Cfg, f32> or <Cfg, f16>); activations are float either way. A NaN or
// infinity in the valid input rows returns non_finite_input (y untouched); a pass that overflows,
// non_finite_output (every valid value of y the canonical NaN, math/finite.hpp).
template <class Backend = default_backend, class Cfg, class P, int Tile>
inline status forward(const encoder_weights<Cfg, P>& w, workspace<Cfg, Tile>& ws, const float* x, float* y,
                      int valid_len) noexcept {
    static_assert(detail::backend_check<P, Backend>::value, "");
    return detail::forward<Cfg, kernel_set<Backend>>(w, ws, x, y, valid_len);
}

// Runs one forward pass through the encoders' one composition with kernel set K: a backend's
// kernel_set<B> / int8_kernel_set<B>, or a type derived from one that observes or replaces some
// kernels (profilers, calibration, benchmarks). The same checks and results as forward<B>().
template <class K, class Cfg, class P, int Tile>
inline status forward_with(const encoder_weights<Cfg, P>& w, workspace<Cfg, Tile>& ws, const float* x, float* y,
                           int valid_len) noexcept {
    return detail::forward<Cfg, K>(w, ws, x, y, valid_len);
}
template <class K, class Cfg, int Tile>
inline status forward_with(const encoder_weights<Cfg, int8>& w, workspace_int8<Cfg, Tile>& ws, const std::int8_t* x,
                           std::int8_t* y, int valid_len) noexcept {
    return detail::forward_int8<Cfg, K, Tile>(w, ws, x, y, valid_len);
}

template <class Cfg, class P = f32, class Backend = default_backend>
class encoder {
    static_assert(is_encoder_config<Cfg>::value, "encoder needs an encoder_config as its first argument");
    static_assert(is_precision<P>, "precision must be staticformer::f32, f16 or int8");
    static_assert(detail::backend_check<P, Backend>::value, "");
    static constexpr bool is_int8 = std::is_same<P, int8>::value;

public:
    using config = Cfg;
    using precision = P;
    using backend = Backend;
    using weights_type = encoder_weights<Cfg, P>;
    static constexpr int tile = tile_for<Cfg, Backend>;
    using workspace_type = std::conditional_t<is_int8, workspace_int8<Cfg, tile>, workspace<Cfg, tile>>;
    static_assert(sizeof(weights_type) > 0, "");  // the weights' own rules (int8 bounds) apply here
    // float for f32 and f16 (float activations), std::int8_t for int8 (quantised with
    // weights().input and weights().output).
    using value_type = std::conditional_t<is_int8, std::int8_t, float>;

    static constexpr int seq_len = Cfg::seq_len;
    static constexpr int d_model = Cfg::d_model;
    static constexpr std::size_t io_values = std::size_t(Cfg::seq_len) * Cfg::d_model;
    // Bytes of the weights (flash) and of the workspace (RAM). f16 weights take half the bytes
    // of f32 ones with the same float workspace; int8 weights and workspace are about a quarter.
    static constexpr std::size_t weight_bytes = sizeof(weights_type);
    static constexpr std::size_t workspace_bytes = sizeof(workspace_type);

    explicit encoder(const weights_type& w) noexcept : weights_(&w) {}

    status forward(const value_type* x, value_type* y, int valid_len) noexcept {
        return staticformer::forward<Backend>(*weights_, workspace_, x, y, valid_len);
    }

    const weights_type& weights() const noexcept { return *weights_; }

private:
    const weights_type* weights_;
    workspace_type workspace_;
};

}  // namespace staticformer
