// staticformer: model_weights<model_cfg, int8>, a whole int8 model (normative layout). The rows
// an encoder reads are its int16 residual stream (weights_int8.hpp); the model's own tensors are
// int8 with their own scale and zero point, widened into int16 rows where they join them:
//   input      token ids: an int8 embedding table in the embedding's quantisation; features or
//              image patches: int8 values (quant.input) through an int8 projection into it
//   cls        an int8 row in the embedding's quantisation
//   rows       the embedding (and CLS) rows widened by quant.embed into int16 rows: the embedding
//              LayerNorm's input (its own symmetric scale) or, without it, the encoder's stream
//   positions  learned: an int8 table (quant.positions); sinusoidal: math::sinusoids_int8, the
//              float table times 127, rounded (scale 1/127); added into the rows by
//              quant.add_positions
//   embedding_norm   an int16 -> int16 LayerNorm into the encoder's input quantisation
//   encoder    encoder_weights<encoder_cfg, int8>
//   pooling    cls: row 0; mean: round(sum / n) of the valid rows, in the encoder's output scale
//   head       pooled_norm: a LayerNorm of the pooled row, into int8 for a classifier or into
//              int16 rows in quant.logits without one; a classifier without pooled_norm reads
//              the pooled row narrowed by quant.head_input; the classifier: an int8 linear layer
//              with int32 outputs: rescale(acc) + 0, in quant.logits (symmetric, about 2^15
//              steps over the calibrated range: no int8 saturation)
#pragma once

#include <cstddef>
#include <cstdint>

#include "model_weights.hpp"
#include "weights_int8.hpp"

namespace staticformer {

template <class M, input_kind Kind = M::input>
struct input_weights_int8 {  // tokens
    std::int8_t table[M::vocab][M::d_model];
};
template <class M>
struct input_weights_int8<M, input_kind::features> {
    linear_int8<M::features, M::d_model> projection;
};
template <class M>
struct input_weights_int8<M, input_kind::patches> {
    linear_int8<M::features, M::d_model> projection;
};

template <int D, int Classes, bool Norm>
struct head_weights_int8 {
    layer_norm_int8<D> norm;         // the pooled row's
    linear_int8<D, Classes> linear;  // outputs int32: rescale(acc, multiplier[o], shift) + output_zero_point
};
template <int D, int Classes>
struct head_weights_int8<D, Classes, false> {
    linear_int8<D, Classes> linear;
};
template <int D>
struct head_weights_int8<D, 0, true> {
    layer_norm_int8<D> norm;
};
template <int D>
struct head_weights_int8<D, 0, false> {};

// The scales of the model's own tensors (host code reads the floats; the pass never does).
struct model_quantization {
    quantization input;              // features or image values (the caller quantises with it); tokens: unused
    quantization embedding;          // the input step's output and the CLS token
    quantization positions;          // learned positions; sinusoidal: {1/127, 0}
    quantization logits;             // the head's int32 outputs; without a head, the output's (pooled) rows
    stream_add_int8 embed;           // the embedding and CLS rows into the int16 rows
    stream_add_int8 add_positions;   // the positions added into them (all 0 without positions)
    stream_narrow_int8 head_input;   // a classifier without pooled_norm: its input (else all 0)
};

template <class M>
struct model_weights<M, int8> {
    static_assert(is_model_config<M>::value, "model_weights needs a model_config");
    using config = M;
    using precision = int8;
    using element = std::int8_t;
    static constexpr int D = M::d_model;
    static constexpr bool learned = M::positions == positions_kind::learned;

    encoder_weights<typename M::encoder, int8> encoder;
    input_weights_int8<M> input;
    cls_weights<D, M::has_cls, std::int8_t> cls;
    final_norm_int8<D, M::has_embedding_norm> embedding_norm;
    head_weights_int8<D, M::classes, M::has_pooled_norm> head;
    model_quantization quant;
    position_weights<M::seq_len, D, learned, std::int8_t> positions;  // last: see load_blob
};

// Every parameter in its kernel's range, as for encoders (load_blob checks blobs from outside).
template <class M>
constexpr bool is_valid(const model_weights<M, int8>& w) noexcept {
    const model_quantization& q = w.quant;
    if (!is_valid(w.encoder) || !detail::is_valid(q.embed) || !detail::is_valid(q.embedding) ||
        !detail::is_valid(q.positions) || !detail::is_valid(q.logits))
        return false;
    if (M::positions != positions_kind::none ? !detail::is_valid(q.add_positions) : !detail::is_unused(q.add_positions))
        return false;
    if (M::has_head && !M::has_pooled_norm ? !detail::is_valid(q.head_input) : !detail::is_unused(q.head_input))
        return false;
    if constexpr (M::input != input_kind::tokens)
        if (!detail::is_valid(w.input.projection) || !detail::is_valid(q.input)) return false;
    if constexpr (M::has_embedding_norm)  // int16 rows into the stream
        if (!detail::is_valid(w.embedding_norm.norm) || !detail::is_stream_norm(w.embedding_norm.norm)) return false;
    if constexpr (M::has_pooled_norm)  // from the stream; without a classifier into int16 rows
        if (!detail::is_valid(w.head.norm) || (!M::has_head && !detail::is_stream_norm(w.head.norm))) return false;
    if constexpr (!M::has_head)
        if (q.logits.zero_point != 0) return false;
    if constexpr (M::has_head)
        if (!detail::is_valid(w.head.linear)) return false;
    return true;
}

}  // namespace staticformer
