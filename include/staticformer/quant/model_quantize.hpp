// staticformer: int8 and a16w8 quantisation of whole models (host side: heap and floating point),
// on top of the encoder's (quantize.hpp). The f32 reference model runs on calibration inputs;
// its input step, positions, encoder and head are recorded, and every tensor of
// model_weights<model_cfg, int8> (model_weights_int8.hpp) gets its range from them:
//
//   model input      features or image values: asymmetric (as the encoder's tensors)
//   embedding        int8: token inputs: the (scaled) table and the CLS token; features and
//                    images: the input step's rows and the CLS row
//   positions        learned: min-max of the table; sinusoidal: 1/127, zero point 0
//   embedded         the int16 rows, embedding + positions: with an embedding LayerNorm its
//                    input (symmetric min-max, as the stream), else the encoder's stream
//   pooled           a classifier's int8 input: the pooled row's LayerNorm output, or the pooled
//                    row narrowed in the range of the encoder's output rows; without a classifier
//                    the LayerNorm's int16 output (else the encoder's)
//   logits           symmetric over 2 x 32767 steps (int32 outputs: no int8 saturation)
// a16w8 (the same tensors): the token table, projections, learned positions and classifier int8
// as above; the model input, the input step's rows and the classifier's input int16,
// symmetric over their consumers' limits with the encoder's headroom (quantize.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "../model.hpp"
#include "quantize.hpp"

namespace staticformer {
namespace quant {

struct model_report {
    report encoder;
    tensor_report input, embedding, positions, embedded, pooled, logits;
};

template <class M>
class model_calibrator {
    using Cfg = typename M::encoder;
    static constexpr int D = M::d_model, S = M::seq_len, T = Cfg::tile;
    using steps = staticformer::detail::model_composition<
        M, staticformer::detail::float_model_steps<M, kernel_set<reference>, f32, T>>;

public:
    explicit model_calibrator(const model_weights<M, f32>& w) : weights_(w), encoder_(w.encoder) {}

    // One calibration input (model_cfg::input_values ids or floats) with valid_tokens tokens and
    // a key padding mask over them, as forward() takes it. Returns forward()'s status for this
    // input; unless ok, nothing is recorded.
    status observe(const model_input_t<M>* in, int valid_tokens, key_padding_mask mask = {}) {
        std::vector<float> rows(std::size_t(S) * D), encoded(rows.size()), out(M::output_values);
        status s = staticformer::detail::check_model_input<M, f32>(in, out.data(), valid_tokens, mask);
        if (s != status::ok) return s;
        const std::vector<std::size_t> before = sizes(), encoder_before = encoder_.pass_->rec.sizes();
        int stage = 0;
        const int n = steps::embed_rows(weights_, in, valid_tokens, rows.data(), *ws_, [&](const float* y, int count) {
            auto& v = stage++ == 0 ? embedding_ : embedded_;
            v.insert(v.end(), y, y + std::size_t(count) * D);
        });
        if constexpr (M::input == input_kind::features)
            input_.insert(input_.end(), in, in + std::size_t(valid_tokens) * M::features);
        else if constexpr (M::input == input_kind::patches)
            input_.insert(input_.end(), in, in + M::input_values);
        // The encoder's mask covers its rows: a CLS row's key kept, then the tokens'.
        std::vector<std::uint8_t> rows_mask(mask.masked ? std::size_t(n) : 0, 0);
        if (mask.masked) std::copy(mask.masked, mask.masked + valid_tokens, rows_mask.begin() + (n - valid_tokens));
        const key_padding_mask encoder_mask = mask.masked ? key_padding_mask{rows_mask.data(), n} : key_padding_mask{};
        s = encoder_.observe(rows.data(), n, encoder_mask, encoded.data());  // non_finite_input: the embedding overflowed
        if constexpr (M::has_head || M::has_pooled_norm) {
            if (s == status::ok) {
                steps::back(weights_, encoded.data(), n, {rows_mask.empty() ? nullptr : rows_mask.data(), 0},
                            out.data(), *ws_);
                const float* pooled = M::has_head ? ws_->pooled : out.data();
                if (!math::all_finite(out.data(), out.size()) || !math::all_finite(pooled, D))
                    s = status::non_finite_output;
                if (M::has_pooled_norm) pooled_.insert(pooled_.end(), pooled, pooled + D);
                if (M::has_head) logits_.insert(logits_.end(), out.begin(), out.end());
            }
        }
        if (s == status::ok) return s;
        truncate(before);
        encoder_.pass_->rec.truncate(encoder_before);
        return status::non_finite_output;  // the input was finite: a step overflowed
    }

    // Chooses every tensor's range and quantises the weights into q.
    model_report quantize(model_weights<M, int8>& q, const options& o = {}) const {
        using detail::choose;
        model_report rep;
        rep.encoder = encoder_.quantize(q.encoder, o);
        const tensor_report& encoder_in = rep.encoder.input;
        constexpr bool positions = M::positions != positions_kind::none;
        rep.embedding = choose(embedding_values(), o, false);
        rep.positions = positions_range();
        rep.embedded = M::has_embedding_norm ? detail::choose_stream({&embedded_}) : encoder_in;
        q.quant.embed = detail::quantize_stream_add(rep.embedding, rep.embedded);
        q.quant.add_positions = positions ? detail::quantize_stream_add(rep.positions, rep.embedded) : stream_add_int8{};
        q.quant.head_input = {};
        if constexpr (M::has_embedding_norm)
            detail::quantize_layer_norm(weights_.embedding_norm.gamma, weights_.embedding_norm.beta, M::embedding_eps,
                                        rep.embedded, encoder_in, q.embedding_norm.norm);

        // The input step, the CLS token and learned positions.
        if constexpr (M::input != input_kind::tokens) {
            rep.input = choose(input_, o, false);
            detail::quantize_linear(&weights_.input.w[0][0], D, weights_.input.b, rep.input, rep.embedding,
                                    q.input.projection, rep.encoder);
        }
        quantize_tables(q, rep);

        // The head: from the pooled row (the encoder's output scale) through its LayerNorm, or
        // narrowed, to int32 logits. Narrowed, it takes the range of the encoder's output rows:
        // a mean of fewer rows than calibrated spreads wider than the calibrated means, never
        // beyond the rows.
        const std::vector<float>& encoded = encoder_.rec_.output;
        rep.pooled = M::has_pooled_norm ? (M::has_head ? choose(pooled_, o, false) : detail::choose_stream({&pooled_}))
                     : M::has_head      ? choose(encoded, o, false)
                                        : rep.encoder.output;
        if constexpr (M::has_pooled_norm)
            detail::quantize_layer_norm(weights_.head.norm_gamma, weights_.head.norm_beta, M::pooled_eps,
                                        rep.encoder.output, rep.pooled, q.head.norm);
        else if constexpr (M::has_head)
            q.quant.head_input = detail::quantize_narrow(rep.encoder.output, rep.pooled);
        if constexpr (M::has_head) {
            rep.logits = logits_range(o);
            detail::quantize_linear(&weights_.head.w[0][0], M::classes, weights_.head.b, rep.pooled, rep.logits,
                                    q.head.linear, rep.encoder);
        } else {
            rep.logits = rep.pooled;
        }
        set_scales(q, rep);
        return rep;
    }

    // a16w8: int8 tables, projections and classifier; int16 activations, symmetric, each over its
    // consumer's limit (kernels/params_a16w8.hpp) with the encoder's headroom.
    model_report quantize(model_weights<M, a16w8>& q, const options& o = {}) const {
        using detail::choose;
        using detail::choose_a16;
        constexpr std::int32_t in_d = a16w8_limits::input_limit(D), whole = 32767;
        constexpr bool tokens = M::input == input_kind::tokens;
        model_report rep;
        rep.encoder = encoder_.quantize(q.encoder, o);
        rep.embedding = tokens ? choose(embedding_values(), o, false) : choose_a16(embedding_values(), o, whole);
        rep.positions = positions_range();
        rep.embedded = rep.encoder.input;
        if constexpr (M::has_embedding_norm) {
            rep.embedded = detail::choose_stream({&embedded_});
            rep.embedded.scale *= detail::a16_headroom;
            detail::quantize_layer_norm(weights_.embedding_norm.gamma, weights_.embedding_norm.beta, M::embedding_eps,
                                        rep.embedded, rep.encoder.input, q.embedding_norm.norm);
        }
        q.quant.embed = detail::quantize_stream_add(rep.embedding, rep.embedded);
        q.quant.add_positions =
            M::positions != positions_kind::none ? detail::quantize_stream_add(rep.positions, rep.embedded) : stream_add_int8{};
        if constexpr (!tokens) {
            rep.input = choose_a16(input_, o, a16w8_limits::input_limit(M::features));
            detail::quantize_linear(&weights_.input.w[0][0], D, weights_.input.b, rep.input, rep.embedding, whole,
                                    q.input.projection, rep.encoder);
        }
        quantize_tables(q, rep);

        // The head, as int8's: the classifier's input over its input limit.
        q.quant.head_input = {};
        if constexpr (M::has_pooled_norm && M::has_head) {
            rep.pooled = detail::quantize_block_norm(weights_.head.norm_gamma, weights_.head.norm_beta, M::pooled_eps,
                                                     rep.encoder.output, choose_a16(pooled_, o, in_d), in_d, q.head.norm);
        } else if constexpr (M::has_pooled_norm) {
            rep.pooled = detail::choose_stream({&pooled_});
            rep.pooled.scale *= detail::a16_headroom;
            detail::quantize_layer_norm(weights_.head.norm_gamma, weights_.head.norm_beta, M::pooled_eps,
                                        rep.encoder.output, rep.pooled, q.head.norm);
        } else if constexpr (M::has_head) {
            rep.pooled = choose_a16(encoder_.rec_.output, o, in_d);
            q.quant.head_input = detail::quantize_narrow(rep.encoder.output, rep.pooled, in_d);
        } else {
            rep.pooled = rep.encoder.output;
        }
        rep.logits = rep.pooled;
        if constexpr (M::has_head) {
            rep.logits = logits_range(o);
            detail::quantize_linear(&weights_.head.w[0][0], M::classes, weights_.head.b, rep.pooled, rep.logits, whole,
                                    q.head.linear, rep.encoder);
        }
        set_scales(q, rep);
        return rep;
    }

private:
    // Learned positions: their table's range; sinusoidal: math::sinusoids_int8's 1/127.
    tensor_report positions_range() const {
        tensor_report t;
        t.scale = 1.0 / 127.0;
        if constexpr (M::positions == positions_kind::learned) {
            const float* table = &weights_.positions.table[0][0];
            t = detail::choose(std::vector<float>(table, table + std::size_t(S) * D), options{}, false);
        }
        return t;
    }
    // The logits: symmetric, about 2 x 32767 steps over the calibrated range.
    tensor_report logits_range(const options& o) const {
        const tensor_report wide = detail::choose(logits_, o, true);
        tensor_report t;
        t.scale = wide.scale * 127.0 / 32767.0;
        t.clipped = wide.clipped;
        return t;
    }
    // The int8 token table, the CLS token (the embedding's element) and learned positions.
    template <class Q>
    void quantize_tables(Q& q, const model_report& rep) const {
        if constexpr (M::input == input_kind::tokens)
            for (int v = 0; v < M::vocab; ++v)
                for (int c = 0; c < D; ++c)
                    q.input.table[v][c] = detail::quantize_value(
                        double(weights_.input.table[v][c] * M::embedding_scale), rep.embedding);
        if constexpr (M::has_cls)
            for (int c = 0; c < D; ++c) q.cls.token[c] = embedding_value(weights_.cls.token[c], rep.embedding, q.cls.token[c]);
        if constexpr (M::positions == positions_kind::learned)
            for (int p = 0; p < S; ++p)
                for (int c = 0; c < D; ++c)
                    q.positions.table[p][c] = detail::quantize_value(weights_.positions.table[p][c], rep.positions);
    }
    static std::int8_t embedding_value(float x, const tensor_report& t, std::int8_t) {
        return detail::quantize_value(x, t);
    }
    static std::int16_t embedding_value(float x, const tensor_report& t, std::int16_t) {  // symmetric
        return detail::clamp_to<std::int16_t>(detail::round_half_up(x / t.scale), -32767, 32767);
    }
    template <class Q>
    static void set_scales(Q& q, const model_report& rep) {
        const auto as_quantization = [](const tensor_report& t) { return quantization{float(t.scale), t.zero_point}; };
        q.quant.input = as_quantization(rep.input);
        q.quant.embedding = as_quantization(rep.embedding);
        q.quant.positions = as_quantization(rep.positions);
        q.quant.logits = as_quantization(rep.logits);
    }

    // The embedding's values: for token inputs every (scaled) table entry and the CLS token, the
    // values its int8 table holds; else the recorded rows of the input step.
    std::vector<float> embedding_values() const {
        if constexpr (M::input != input_kind::tokens) {
            return embedding_;
        } else {
            std::vector<float> v;
            for (int t = 0; t < M::vocab; ++t)
                for (int c = 0; c < D; ++c)
                    v.push_back(weights_.input.table[t][c] * M::embedding_scale);  // (x 1 when unscaled: exact)
            if constexpr (M::has_cls) v.insert(v.end(), weights_.cls.token, weights_.cls.token + D);
            return v;
        }
    }

    std::vector<std::size_t> sizes() const {
        return {input_.size(), embedding_.size(), embedded_.size(), pooled_.size(), logits_.size()};
    }
    void truncate(const std::vector<std::size_t>& n) {
        input_.resize(n[0]), embedding_.resize(n[1]), embedded_.resize(n[2]), pooled_.resize(n[3]);
        logits_.resize(n[4]);
    }

    const model_weights<M, f32>& weights_;
    calibrator<Cfg> encoder_;
    std::vector<float> input_, embedding_, embedded_, pooled_, logits_;
    std::unique_ptr<model_workspace<M, T, f32>> ws_ = std::make_unique<model_workspace<M, T, f32>>();
};

}  // namespace quant
}  // namespace staticformer
