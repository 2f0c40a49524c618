// staticformer: model<model_cfg, P, Backend>, a whole model (model_config.hpp) around the one
// encoder composition (normative: the order of the steps below is part of the arithmetic).
//   1. rows [CLS, front(input)...]: the CLS token, then embeddings / projected features / patches
//   2. positions added row by row (scaled token embeddings take theirs in step 1, in one FMA);
//      the embedding LayerNorm; padded rows set to zero
//   3. the encoder's composition on the valid rows, in place
//   4. pooling (row 0, or the mean of the valid rows whose keys the mask keeps), the pooled row's
//      LayerNorm and the head's logits
// Every step runs through the kernel set, so each backend gives the reference's bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "encoder.hpp"
#include "math/sinusoid.hpp"
#include "model_config.hpp"
#include "model_weights.hpp"
#include "model_weights_int8.hpp"

namespace staticformer {

// What a model reads: token ids (std::int32_t), or features / an image: floats (f32, f16), or
// values quantised with weights.quant.input: int8 (int8), int16 (a16w8).
template <class M, class P = f32>
using model_input_t =
    std::conditional_t<M::input == input_kind::tokens, std::int32_t,
                       std::conditional_t<is_integer_precision<P>, integer_activation<P>, float>>;
// What a model writes: floats (f32, f16); int8 and a16w8: int32 logits with a head, else int16
// rows (the encoder's stream, or the pooled row's LayerNorm), in weights.quant.logits.
template <class M, class P = f32>
using model_output_t = std::conditional_t<!is_integer_precision<P>, float,
                                          std::conditional_t<M::has_head, std::int32_t, std::int16_t>>;

// The precision of a model's activations: float for f32 and f16 weights, else the weights' own.
template <class P>
using activation_precision = std::conditional_t<is_integer_precision<P>, P, f32>;

// An integer model's tensors between its int16 rows (int8; a16w8: int16): a tile of the input
// step's outputs (features, patches), the classifier's input. Float models have none.
template <class M, int Tile, class P, bool Integer = is_integer_precision<P>>
struct int8_model_buffers {};
template <class M, int Tile, class P>
struct int8_model_buffers<M, Tile, P, true> {
    alignas(64) integer_activation<P> front[M::input != input_kind::tokens ? Tile * M::d_model : 1];
    alignas(64) integer_activation<P> head_input[M::has_head ? M::d_model : 1];
};

// The model's buffers of one sequence at a time: a tile of image patches, the pooled row (with
// a head). Absent parts are one value.
template <class M, int Tile, class P = f32>
struct model_buffers : int8_model_buffers<M, Tile, P> {
    static constexpr int D = M::d_model, S = M::seq_len;
    static constexpr bool pooled_output = M::pooling != pooling_kind::none;
    using value = typename precision_traits<P>::value;  // the rows: float, or the int8 encoder's int16 stream
    alignas(64) model_input_t<M, P> patches[M::input == input_kind::patches ? Tile * M::features : 1];
    alignas(64) value pooled[M::has_head ? D : 1];
};

// All activation memory of one model call: the sequences' rows (unless the output is the
// sequence: then they are the caller's buffer), the buffers above and the encoder's workspace.
// Workers: threads a call may run its encoder on (parallel.hpp); Batch: sequences a call may run
// (forward_batch).
template <class M, int Tile, class P = f32, int Workers = 1, int Batch = 1>
struct model_workspace : model_buffers<M, Tile, P> {
    using base = model_buffers<M, Tile, P>;
    static constexpr int tile_rows = Tile, workers = Workers, batch = Batch;
    alignas(64) typename base::value sequence[base::pooled_output ? Batch * base::S * base::D : 1];
    typename precision_traits<P>::template workspace<typename M::encoder, Tile, Workers, Batch> encoder;
};

// P: the weights' precision (f32 and f16 models share one float workspace).
template <class M, class Backend = default_backend, class P = f32>
using model_workspace_for = model_workspace<M, tile_for<typename M::encoder, Backend>, activation_precision<P>>;

// The model workspace of a pass on up to Workers threads (as parallel_workspace_for).
template <class M, int Workers, class Backend = default_backend, class P = f32>
using parallel_model_workspace_for =
    model_workspace<M, worker_tile<typename M::encoder, Backend, M::seq_len, Workers>, activation_precision<P>, Workers>;

// The model workspace of forward_batch for up to Batch sequences on Workers threads (as
// batch_workspace_for: tiles of rows of any of the sequences).
template <class M, int Batch, class Backend = default_backend, class P = f32, int Workers = 1>
using batch_model_workspace_for = model_workspace<M, worker_tile<typename M::encoder, Backend, Batch * M::seq_len, Workers>,
                                                  activation_precision<P>, Workers, Batch>;

namespace detail {

template <class M, class P>
inline status check_model_call(const void* in, const void* out, int valid_tokens) noexcept {
    if (in == nullptr || out == nullptr) return status::null_pointer;
    if (valid_tokens <= 0 || valid_tokens > M::input_tokens ||
        (M::input == input_kind::patches && valid_tokens != M::input_tokens))
        return status::bad_valid_len;
    const std::uintptr_t in_bytes = M::input_values * sizeof(model_input_t<M, P>),
                         out_bytes = M::output_values * sizeof(model_output_t<M, P>);
    const auto ia = reinterpret_cast<std::uintptr_t>(in), oa = reinterpret_cast<std::uintptr_t>(out);
    if (ia < oa + out_bytes && oa < ia + in_bytes) return status::overlapping_buffers;
    return status::ok;
}

// The image's patches [0, n), Tile at a time: gathered into buffer, then project(t0, count).
template <class M, int Tile, class V, class Project>
inline void patch_tiles(const V* image, int n, V* buffer, Project&& project) noexcept {
    using in = typename M::input_traits;
    for (int t0 = 0; t0 < n; t0 += Tile) {
        const int count = n - t0 < Tile ? n - t0 : Tile;
        kernels::reference::patch_rows<in::channels, in::height, in::width, in::patch>(image, t0, count, buffer);
        project(t0, count);
    }
}

// The float precisions' model steps (f32, f16 weights; float rows).
template <class M, class K, class P, int Tile>
struct float_model_steps {
    using Cfg = typename M::encoder;
    using value = float;
    using weights = model_weights<M, P>;
    using workspace = model_buffers<M, Tile, f32>;
    using encoder_steps = float_steps<Cfg, K, weight_element_t<P>, Tile>;
    static constexpr int D = M::d_model, S = M::seq_len, T = Tile, first = M::has_cls ? 1 : 0;

    // The position table (sinusoidal: float; learned: the weights' element), or null.
    static auto positions(const weights& w) noexcept {
        if constexpr (M::positions == positions_kind::sinusoidal)
            return &math::sinusoids<S, D>.v[0][0];
        else if constexpr (M::positions == positions_kind::learned)
            return &w.positions.table[0][0];
        else
            return static_cast<const float*>(nullptr);
    }
    // Scaled token embeddings take their positions in the input step; the CLS row still needs its own.
    static constexpr bool fused_positions = M::input == input_kind::tokens && M::scales_embedding;

    // n rows from the input into rows.
    static void front(const weights& w, const model_input_t<M, P>* in, int n, float* rows, workspace& ws) noexcept {
        if constexpr (M::input == input_kind::tokens) {
            if constexpr (M::scales_embedding)  // the positions of these rows fused in (embed_scaled)
                K::template embed_scaled<D>(&w.input.table[0][0], in, n, M::embedding_scale,
                                            positions(w) ? positions(w) + first * D : positions(w), rows);
            else
                K::template embed<D>(&w.input.table[0][0], in, n, rows);
        } else if constexpr (M::input == input_kind::features) {
            K::template linear<M::features, D>(in, n, &w.input.w[0][0], w.input.b, rows);
        } else {
            patch_tiles<M, T>(in, n, ws.patches, [&](int t0, int count) {
                K::template linear<M::features, D>(ws.patches, count, &w.input.w[0][0], w.input.b, rows + t0 * D);
            });
        }
    }
    static void cls(const weights& w, float* y) noexcept {
        for (int c = 0; c < D; ++c) y[c] = math::widen(w.cls.token[c]);
    }
    static void add_positions(const weights& w, float* y, int n) noexcept {
        K::add(y, positions(w), (fused_positions ? first : n) * D);
    }
    static void embedding_norm(const weights& w, float* y, int rows) noexcept {
        K::template layer_norm<D>(y, rows, w.embedding_norm.gamma, w.embedding_norm.beta, M::embedding_eps, y);
    }
    static void pooled_norm(const weights& w, float* pooled, workspace&) noexcept {
        K::template layer_norm<D>(pooled, 1, w.head.norm_gamma, w.head.norm_beta, M::pooled_eps, pooled);
    }
    static void mean_rows(const float* y, int n, float* pooled) noexcept { K::template mean_rows<D>(y, n, pooled); }
    static void head(const weights& w, const float* pooled, float* out, workspace&) noexcept {
        K::template linear<D, M::classes>(pooled, 1, &w.head.w[0][0], w.head.b, out);
    }
    static void pad(const weights&, float* y, int n) noexcept {  // padded rows: zero
        std::memset(y + std::size_t(n) * D, 0, std::size_t(S - n) * D * sizeof(float));
    }
};

// The integer model steps (model_weights_int8.hpp), P int8 or a16w8: int16 rows, the model's
// own tensors widened into them, int32 logits.
template <class M, class K, int Tile, class P>
struct int8_model_steps {
    using Cfg = typename M::encoder;
    using value = std::int16_t;
    using weights = model_weights<M, P>;
    using workspace = model_buffers<M, Tile, P>;
    using encoder_steps = int8_steps<Cfg, K, Tile, integer_activation<P>>;
    static constexpr int D = M::d_model, S = M::seq_len, T = Tile;

    // n rows from the input into rows: the embedding's rows widened (features and patches
    // projected a tile at a time).
    static void front(const weights& w, const model_input_t<M, P>* in, int n, std::int16_t* rows,
                      workspace& ws) noexcept {
        const auto widen = [&](int t0, int count) { K::widen(ws.front, count * D, w.quant.embed, rows + t0 * D); };
        if constexpr (M::input == input_kind::tokens) {
            for (int r = 0; r < n; ++r) K::widen(w.input.table[in[r]], D, w.quant.embed, rows + r * D);
        } else if constexpr (M::input == input_kind::features) {
            each_tile<T>(n, [&](int t0, int count) {
                K::linear(in + t0 * M::features, count, w.input.projection, ws.front);
                widen(t0, count);
            });
        } else {
            patch_tiles<M, T>(in, n, ws.patches, [&](int t0, int count) {
                K::linear(ws.patches, count, w.input.projection, ws.front);
                widen(t0, count);
            });
        }
    }
    static void cls(const weights& w, std::int16_t* y) noexcept { K::widen(w.cls.token, D, w.quant.embed, y); }
    static void add_positions(const weights& w, std::int16_t* y, int n) noexcept {
        if constexpr (M::positions == positions_kind::sinusoidal)
            K::add(y, &math::sinusoids_int8<S, D>.v[0][0], n * D, w.quant.add_positions);
        else
            K::add(y, &w.positions.table[0][0], n * D, w.quant.add_positions);
    }
    static void embedding_norm(const weights& w, std::int16_t* y, int rows) noexcept {
        K::layer_norm(y, rows, w.embedding_norm.norm, y);
    }
    // The pooled row's LayerNorm: into the classifier's input, or in place (the output).
    static void pooled_norm(const weights& w, std::int16_t* pooled, workspace& ws) noexcept {
        if constexpr (M::has_head)
            K::layer_norm(pooled, 1, w.head.norm, ws.head_input);
        else
            K::layer_norm(pooled, 1, w.head.norm, pooled);
    }
    static void mean_rows(const std::int16_t* y, int n, std::int16_t* pooled) noexcept {
        K::template mean_rows<D>(y, n, pooled);
    }
    static void head(const weights& w, const std::int16_t* pooled, std::int32_t* out, workspace& ws) noexcept {
        if constexpr (!M::has_pooled_norm) K::narrow(pooled, D, w.quant.head_input, ws.head_input);
        K::linear_wide(ws.head_input, 1, w.head.linear, out);
    }
    static void pad(const weights&, std::int16_t* y, int n) noexcept {  // padded rows: zero
        std::memset(y + std::size_t(n) * D, 0, std::size_t(S - n) * D * sizeof(std::int16_t));
    }
};

// A precision's model steps with kernel set K.
template <class M, class K, class P, int Tile>
struct model_steps_for {
    using type = float_model_steps<M, K, P, Tile>;
};
template <class M, class K, int Tile>
struct model_steps_for<M, K, int8, Tile> {
    using type = int8_model_steps<M, K, Tile, int8>;
};
template <class M, class K, int Tile>
struct model_steps_for<M, K, a16w8, Tile> {
    using type = int8_model_steps<M, K, Tile, a16w8>;
};

// The one model composition (the steps of this file's header comment), for every precision.
template <class M, class Steps>
struct model_composition {
    using Cfg = typename M::encoder;
    using value = typename Steps::value;
    using weights = typename Steps::weights;
    using workspace = typename Steps::workspace;
    static constexpr int D = M::d_model, T = Steps::T, first = M::has_cls ? 1 : 0;

    // Steps 1 and 2 into y; returns the valid rows. observe(y, n) sees the rows after the input
    // step and after the positions (the int8 calibration).
    template <class Input, class Observe>
    static int embed_rows(const weights& w, const Input* in, int valid_tokens, value* y, workspace& ws,
                          Observe&& observe) noexcept {
        const int n = first + valid_tokens;
        Steps::front(w, in, valid_tokens, y + first * D, ws);
        if constexpr (M::has_cls) Steps::cls(w, y);
        observe(static_cast<const value*>(y), n);
        if constexpr (M::positions != positions_kind::none) Steps::add_positions(w, y, n);
        observe(static_cast<const value*>(y), n);
        if constexpr (M::has_embedding_norm)
            each_tile<T>(n, [&](int r0, int rows) { Steps::embedding_norm(w, y + r0 * D, rows); });
        return n;
    }

    // The kept rows of y's first n moved to its front (in order); returns how many.
    static int compact_kept(value* y, int n, kept_keys mask) noexcept {
        int kept = 0;
        for (int r = 0; r < n; ++r)
            if (mask.kept(r)) std::memmove(y + kept++ * D, y + r * D, D * sizeof(value));
        return kept;
    }

    // Step 4: the output of a pass whose encoder output is in y (n valid rows; the mean pools
    // the rows the mask keeps, moving them to y's front).
    template <class Output>
    static void back(const weights& w, value* y, int n, kept_keys mask, Output* out, workspace& ws) noexcept {
        if constexpr (M::pooling != pooling_kind::none) {
            value* pooled = M::has_head ? ws.pooled : reinterpret_cast<value*>(out);
            if constexpr (M::pooling == pooling_kind::cls)
                std::memcpy(pooled, y, D * sizeof(value));
            else
                Steps::mean_rows(y, mask.masked ? compact_kept(y, n, mask) : n, pooled);
            if constexpr (M::has_pooled_norm) Steps::pooled_norm(w, pooled, ws);
            if constexpr (M::has_head) Steps::head(w, pooled, out, ws);
        }
    }

    // The whole pass of `count` sequences (in: count x input_values, out: count x output_values):
    // each one's rows embedded after the previous one's (batch.hpp), the encoder on all of them
    // through its tiles (composition.hpp: one worker or several), then each one's output.
    template <class Input, class Output, class Workspace, class EncoderTiles>
    static void run(const weights& w, const Input* in, const int* valid_tokens, const key_padding_mask* masks,
                    int count, Output* out, Workspace& ws, EncoderTiles&& encoder) noexcept {
        constexpr std::size_t sequence = std::size_t(M::seq_len) * D;
        value* y = workspace::pooled_output ? ws.sequence : reinterpret_cast<value*>(out);
        int start[Workspace::batch], length[Workspace::batch];
        kept_keys kept[Workspace::batch];
        int rows = 0;
        for (int b = 0; b < count; ++b) {
            start[b] = rows;
            length[b] = embed_rows(w, in + b * M::input_values, valid_tokens[b], y + rows * D, ws, [](const value*, int) {});
            kept[b] = {masks != nullptr ? masks[b].masked : nullptr, first};  // the CLS row's key is kept
            rows += length[b];
        }
        composition<Cfg, typename Steps::encoder_steps>::run(w.encoder, y, rows, batch_rows{start, length, kept, count},
                                                             encoder);
        if constexpr (M::pooling == pooling_kind::none) {  // the output is the sequence: back to its place, padded
            for (int b = count - 1; b >= 0; --b) std::memmove(y + b * sequence, y + start[b] * D, length[b] * D * sizeof(value));
            for (int b = 0; b < count; ++b) Steps::pad(w, y + b * sequence, length[b]);
        } else {
            for (int b = 0; b < count; ++b) back(w, y + start[b] * D, length[b], kept[b], out + b * M::output_values, ws);
        }
    }
};

// The call and every token id and float input value, before anything is written: float models
// refuse NaN and infinity as encoders do (forward in encoder.hpp).
template <class M, class P>
inline status check_model_input(const model_input_t<M, P>* in, const void* out, int valid_tokens,
                                key_padding_mask mask) noexcept {
    status s = check_model_call<M, P>(in, out, valid_tokens);
    if (s == status::ok) s = check_mask<M::input_tokens>(mask, valid_tokens, M::has_cls);
    if (s != status::ok) return s;
    if constexpr (M::input == input_kind::tokens) {
        for (int t = 0; t < valid_tokens; ++t)
            if (in[t] < 0 || in[t] >= M::vocab) return status::bad_token_id;
    } else {
        const std::size_t values = M::input == input_kind::patches ? M::input_values
                                                                   : std::size_t(valid_tokens) * M::features;
        if constexpr (std::is_same<P, a16w8>::value) {  // within the projection's sums (params_a16w8.hpp)
            constexpr std::int32_t limit = a16w8_limits::input_limit(M::features);
            for (std::size_t i = 0; i < values; ++i)
                if (in[i] > limit || in[i] < -limit) return status::input_out_of_range;
        } else if constexpr (!is_integer_precision<P>) {
            if (!math::all_finite(in, values)) return status::non_finite_input;
        }
    }
    return status::ok;
}

// A batch call (x count): every sequence's call, tokens, input values and mask as for one call,
// and the whole input apart from the whole output.
template <class M, class P, int Batch>
inline status check_model_batch(const model_input_t<M, P>* in, const model_output_t<M, P>* out,
                                const int* valid_tokens, int count, const key_padding_mask* masks) noexcept {
    if (in == nullptr || out == nullptr || valid_tokens == nullptr) return status::null_pointer;
    if (count < 1 || count > Batch) return status::bad_batch_size;
    const std::uintptr_t in_bytes = count * M::input_values * sizeof(model_input_t<M, P>),
                         out_bytes = count * M::output_values * sizeof(model_output_t<M, P>);
    const auto ia = reinterpret_cast<std::uintptr_t>(in), oa = reinterpret_cast<std::uintptr_t>(out);
    if (ia < oa + out_bytes && oa < ia + in_bytes) return status::overlapping_buffers;
    for (int b = 0; b < count; ++b) {
        const status s = check_model_input<M, P>(in + b * M::input_values, out + b * M::output_values, valid_tokens[b],
                                                 masks != nullptr ? masks[b] : key_padding_mask{});
        if (s != status::ok) return s;
    }
    return status::ok;
}

// Runs a checked call of `count` sequences, the encoder on tiles(the workspace's encoder) (one
// worker or all); a float sequence that overflows gets canonical NaNs.
template <class M, class K, class P, class Workspace, class EncoderTiles>
inline status run_model(const model_weights<M, P>& w, Workspace& ws, const model_input_t<M, P>* in,
                        model_output_t<M, P>* out, const int* valid_tokens, const key_padding_mask* masks, int count,
                        EncoderTiles&& tiles) noexcept {
    using steps = typename model_steps_for<M, K, P, Workspace::tile_rows>::type;
    using encoder_composition = composition<typename M::encoder, typename steps::encoder_steps>;
    model_composition<M, steps>::run(w, in, valid_tokens, masks, count, out, ws,
                                     tiles(ws.encoder, encoder_composition{}));
    if constexpr (is_integer_precision<P>) {
        return status::ok;
    } else {
        bool finite = true;
        for (int b = 0; b < count; ++b) {
            const std::size_t outputs = M::pooling == pooling_kind::none
                                            ? std::size_t(valid_tokens[b] + (M::has_cls ? 1 : 0)) * M::d_model
                                            : M::output_values;
            finite = math::canonicalize_non_finite(out + b * M::output_values, outputs) && finite;
        }
        return finite ? status::ok : status::non_finite_output;
    }
}

// Validates one call and runs it.
template <class M, class K, class P, int Tile, int Workers, class EncoderTiles>
inline status checked_model_pass(const model_weights<M, P>& w,
                                 model_workspace<M, Tile, activation_precision<P>, Workers>& ws,
                                 const model_input_t<M, P>* in, model_output_t<M, P>* out, int valid_tokens,
                                 key_padding_mask mask, EncoderTiles&& tiles) noexcept {
    const status s = check_model_input<M, P>(in, out, valid_tokens, mask);
    return s != status::ok ? s : run_model<M, K, P>(w, ws, in, out, &valid_tokens, &mask, 1, tiles);
}
// Validates a batch call and runs it.
template <class M, class K, class P, int Tile, int Workers, int Batch, class EncoderTiles>
inline status checked_model_batch(const model_weights<M, P>& w,
                                  model_workspace<M, Tile, activation_precision<P>, Workers, Batch>& ws,
                                  const model_input_t<M, P>* in, model_output_t<M, P>* out, const int* valid_tokens,
                                  int count, const key_padding_mask* masks, EncoderTiles&& tiles) noexcept {
    const status s = check_model_batch<M, P, Batch>(in, out, valid_tokens, count, masks);
    return s != status::ok ? s : run_model<M, K, P>(w, ws, in, out, valid_tokens, masks, count, tiles);
}

// The kernel set of a backend for precision P.
template <class P, class Backend>
using kernel_set_for = typename precision_traits<P>::template kernels<Backend>;

}  // namespace detail

// One model pass with caller-owned workspace. `in` holds model_cfg::input_values values (ids,
// features [input_tokens][features], or the image [C][H][W]) of which the first valid_tokens
// tokens are read (an image: all of them); `out` receives model_cfg::output_values values: the
// encoded sequence (padded rows zero), the pooled row, or the logits (int8: std::int32_t logits
// or std::int16_t rows, in weights.quant.logits; a16w8 likewise). in and out must not overlap. Float
// inputs with a NaN or infinity return non_finite_input (nothing written); a pass that overflows
// returns non_finite_output with every output value (valid rows) the canonical NaN.
// mask: torch's src_key_padding_mask over the input tokens (mask.hpp; a CLS row's key is always
// kept): the masked tokens' keys get no attention and mean pooling leaves their rows out.
template <class Backend = default_backend, class M, class P, int Tile, int Workers>
inline status forward(const model_weights<M, P>& w, model_workspace<M, Tile, activation_precision<P>, Workers>& ws,
                      const model_input_t<M, P>* in, model_output_t<M, P>* out, int valid_tokens = M::input_tokens,
                      key_padding_mask mask = {}) noexcept {
    static_assert(detail::backend_check<P, Backend>::value, "");
    return detail::checked_model_pass<M, detail::kernel_set_for<P, Backend>>(w, ws, in, out, valid_tokens, mask,
                                                                            detail::on_one_worker{});
}
// The same pass, its encoder split across the workspace's Workers threads by the caller's
// executor (parallel.hpp; parallel_model_workspace_for sizes the workspace): the same bytes.
template <class Backend = default_backend, class M, class P, int Tile, int Workers, class Executor>
inline status forward(const model_weights<M, P>& w, model_workspace<M, Tile, activation_precision<P>, Workers>& ws,
                      const model_input_t<M, P>* in, model_output_t<M, P>* out, int valid_tokens,
                      key_padding_mask mask, Executor&& exec) noexcept {
    static_assert(detail::backend_check<P, Backend>::value, "");
    return detail::checked_model_pass<M, detail::kernel_set_for<P, Backend>>(
        w, ws, in, out, valid_tokens, mask, detail::on_workers<std::remove_reference_t<Executor>>{exec});
}

// A batch of `count` sequences in one call: in holds count x input_values values (sequence b from
// b x input_values), out count x output_values; valid_tokens[b] and masks[b] (masks may be null:
// none) as for one call; the workspace holds up to Batch sequences (batch_model_workspace_for).
// Each sequence's output bytes are those of its own forward(). Any invalid sequence's status is
// returned before anything is written; a float sequence that overflows returns non_finite_output
// (its values canonical NaNs, the others' exact).
template <class Backend = default_backend, class M, class P, int Tile, int Workers, int Batch>
inline status forward_batch(const model_weights<M, P>& w,
                            model_workspace<M, Tile, activation_precision<P>, Workers, Batch>& ws,
                            const model_input_t<M, P>* in, model_output_t<M, P>* out, const int* valid_tokens,
                            int count, const key_padding_mask* masks = nullptr) noexcept {
    static_assert(detail::backend_check<P, Backend>::value, "");
    return detail::checked_model_batch<M, detail::kernel_set_for<P, Backend>>(w, ws, in, out, valid_tokens, count,
                                                                             masks, detail::on_one_worker{});
}
// The same batch, its encoder split across the workspace's Workers threads by the caller's executor.
template <class Backend = default_backend, class M, class P, int Tile, int Workers, int Batch, class Executor>
inline status forward_batch(const model_weights<M, P>& w,
                            model_workspace<M, Tile, activation_precision<P>, Workers, Batch>& ws,
                            const model_input_t<M, P>* in, model_output_t<M, P>* out, const int* valid_tokens,
                            int count, const key_padding_mask* masks, Executor&& exec) noexcept {
    static_assert(detail::backend_check<P, Backend>::value, "");
    return detail::checked_model_batch<M, detail::kernel_set_for<P, Backend>>(
        w, ws, in, out, valid_tokens, count, masks, detail::on_workers<std::remove_reference_t<Executor>>{exec});
}

// The same with any kernel set K (profilers, tests): see forward_with for encoders.
template <class K, class M, class P, int Tile, int Workers>
inline status forward_with(const model_weights<M, P>& w, model_workspace<M, Tile, activation_precision<P>, Workers>& ws,
                           const model_input_t<M, P>* in, model_output_t<M, P>* out,
                           int valid_tokens = M::input_tokens, key_padding_mask mask = {}) noexcept {
    return detail::checked_model_pass<M, K>(w, ws, in, out, valid_tokens, mask, detail::on_one_worker{});
}

// The first index of the largest of n values (a classifier's label).
template <class T>
inline int arg_max(const T* values, int n) noexcept {
    return kernels::reference::arg_max(values, n);
}

template <class M, class P = f32, class Backend = default_backend>
class model {
    static_assert(is_model_config<M>::value, "model needs a model_config as its first argument");
    static_assert(is_precision<P>, "precision must be staticformer::f32, f16, int8 or a16w8");
    static_assert(detail::backend_check<P, Backend>::value, "");

public:
    using config = M;
    using precision = P;
    using backend = Backend;
    using weights_type = model_weights<M, P>;
    using workspace_type = model_workspace_for<M, Backend, P>;
    using input_type = model_input_t<M, P>;    // std::int32_t token ids, or float (int8: std::int8_t; a16w8: std::int16_t)
    using output_type = model_output_t<M, P>;  // float (int8, a16w8: std::int32_t logits, or std::int16_t rows)

    static constexpr int input_tokens = M::input_tokens;
    static constexpr std::size_t input_values = M::input_values;
    static constexpr std::size_t output_values = M::output_values;
    static constexpr int classes = M::classes;
    static constexpr std::size_t weight_bytes = sizeof(weights_type);
    static constexpr std::size_t workspace_bytes = sizeof(workspace_type);
    // The sinusoidal table, in .rodata beside the weights (0 without it).
    static constexpr std::size_t table_bytes =
        M::positions != positions_kind::sinusoidal ? 0
        : is_integer_precision<P>                  ? sizeof(math::sinusoid_table_int8<M::seq_len, M::d_model>)
                                                   : sizeof(math::sinusoid_table<M::seq_len, M::d_model>);

    explicit model(const weights_type& w) noexcept : weights_(&w) {}

    status forward(const input_type* in, output_type* out, int valid_tokens = input_tokens,
                   key_padding_mask mask = {}) noexcept {
        return staticformer::forward<Backend>(*weights_, workspace_, in, out, valid_tokens, mask);
    }

    // Logits (classes floats) and their arg-max; label may be null. On error the label is not
    // written, nor the logits (except non_finite_output: canonical NaNs, see forward).
    status classify(const input_type* in, output_type* logits, int* label, int valid_tokens = input_tokens,
                    key_padding_mask mask = {}) noexcept {
        static_assert(M::has_head, "classify needs a model with classifier_head<Classes>");
        const status s = forward(in, logits, valid_tokens, mask);
        if (s == status::ok && label != nullptr) *label = arg_max(logits, M::classes);
        return s;
    }

    const weights_type& weights() const noexcept { return *weights_; }

private:
    const weights_type* weights_;
    workspace_type workspace_;
};

}  // namespace staticformer
