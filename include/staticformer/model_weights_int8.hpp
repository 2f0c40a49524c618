// staticformer: model_weights<model_cfg, int8> and <model_cfg, a16w8>, whole integer models
// (normative layout). The rows an encoder reads are its int16 residual stream (weights_int8.hpp,
// weights_a16w8.hpp); the model's own tensors have their own scale and zero point and are widened
// into int16 rows where they join them. int8 models: every tensor int8; a16w8 models: int8 weights
// (tables, projections, the classifier) and int16 activations (symmetric, zero point 0: features
// and images, the input step's rows, the classifier's input), as their encoder's.
//   input      token ids: an int8 embedding table in the embedding's quantisation; features or
//              image patches: values in quant.input (int8; a16w8: int16 within the projection's
//              input_limit) through a projection (linear_int8 / linear_a16w8) into it
//   cls        a row in the embedding's quantisation and element (int8, or a16w8's int16 for
//              features and images)
//   rows       the embedding (and CLS) rows widened by quant.embed into int16 rows: the embedding
//              LayerNorm's input (its own symmetric scale) or, without it, the encoder's stream
//   positions  learned: an int8 table (quant.positions); sinusoidal: math::sinusoids_int8, the
//              float table times 127, rounded (scale 1/127); added into the rows by
//              quant.add_positions
//   embedding_norm   an int16 -> int16 LayerNorm into the encoder's input quantisation
//   encoder    encoder_weights<encoder_cfg, P>
//   pooling    cls: row 0; mean: round(sum / n) of the valid rows, in the encoder's output scale
//   head       pooled_norm: a LayerNorm of the pooled row, into the classifier's input (int8;
//              a16w8: int16 within its input_limit) or into int16 rows in quant.logits without
//              one; a classifier without pooled_norm reads the pooled row narrowed by
//              quant.head_input; the classifier: a linear layer with int32 outputs:
//              rescale(acc) + output zero point (a16w8: 0), in quant.logits (symmetric, about
//              2^15 steps over the calibrated range: no int8 saturation)
#pragma once

#include <cstddef>
#include <cstdint>

#include "model_weights.hpp"
#include "weights_a16w8.hpp"
#include "weights_int8.hpp"

namespace staticformer {

// The integer precisions' model parts: a linear layer, the activations' element.
template <class V, int In, int Out>
using integer_linear = std::conditional_t<std::is_same<V, int8>::value, linear_int8<In, Out>, linear_a16w8<In, Out>>;
template <class V>
using integer_activation = std::conditional_t<std::is_same<V, int8>::value, std::int8_t, std::int16_t>;
// The embedding's element: the int8 table's for token ids, else the input step's output.
template <class M, class V>
using embedding_element = std::conditional_t<M::input == input_kind::tokens, std::int8_t, integer_activation<V>>;

template <class M, class V, input_kind Kind = M::input>
struct input_weights_integer {  // tokens
    std::int8_t table[M::vocab][M::d_model];
};
template <class M, class V>
struct input_weights_integer<M, V, input_kind::features> {
    integer_linear<V, M::features, M::d_model> projection;
};
template <class M, class V>
struct input_weights_integer<M, V, input_kind::patches> {
    integer_linear<V, M::features, M::d_model> projection;
};

template <int D, int Classes, bool Norm, class V>
struct head_weights_integer {
    layer_norm_int8<D> norm;                    // the pooled row's
    integer_linear<V, D, Classes> linear;       // outputs int32: rescale(acc, multiplier[o], shift) + zero point
};
template <int D, int Classes, class V>
struct head_weights_integer<D, Classes, false, V> {
    integer_linear<V, D, Classes> linear;
};
template <int D, class V>
struct head_weights_integer<D, 0, true, V> {
    layer_norm_int8<D> norm;
};
template <int D, class V>
struct head_weights_integer<D, 0, false, V> {};

// The scales of the model's own tensors (host code reads the floats; the pass never does).
// Narrow: a classifier's input from the pooled row, stream_narrow_int8 or stream_narrow_a16w8.
template <class Narrow>
struct model_quantization_of {
    quantization input;              // features or image values (the caller quantises with it); tokens: unused
    quantization embedding;          // the input step's output and the CLS token
    quantization positions;          // learned positions; sinusoidal: {1/127, 0}
    quantization logits;             // the head's int32 outputs; without a head, the output's (pooled) rows
    stream_add_int8 embed;           // the embedding and CLS rows into the int16 rows
    stream_add_int8 add_positions;   // the positions added into them (all 0 without positions)
    Narrow head_input;               // a classifier without pooled_norm: its input (else all 0)
};
using model_quantization = model_quantization_of<stream_narrow_int8>;

// The layout of both integer precisions (V: int8 or a16w8).
template <class M, class V>
struct model_weights<M, V, std::enable_if_t<is_integer_precision<V>>> {
    static_assert(is_model_config<M>::value, "model_weights needs a model_config");
    using config = M;
    using precision = V;
    using element = std::int8_t;
    static constexpr int D = M::d_model;
    static constexpr bool learned = M::positions == positions_kind::learned;

    encoder_weights<typename M::encoder, V> encoder;
    input_weights_integer<M, V> input;
    cls_weights<D, M::has_cls, embedding_element<M, V>> cls;
    final_norm_int8<D, M::has_embedding_norm> embedding_norm;
    head_weights_integer<D, M::classes, M::has_pooled_norm, V> head;
    model_quantization_of<std::conditional_t<std::is_same<V, int8>::value, stream_narrow_int8, stream_narrow_a16w8>>
        quant;
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

// a16w8: the same, with each int16 producer within its consumer's limit (weights_a16w8.hpp):
// the caller's input and the classifier's within their linear layers' input_limit, every int16
// tensor symmetric.
template <class M>
constexpr bool is_valid(const model_weights<M, a16w8>& w) noexcept {
    constexpr std::int32_t in_d = a16w8_limits::input_limit(M::d_model);
    const auto& q = w.quant;
    constexpr bool int16_embedding = M::input != input_kind::tokens;
    if (!is_valid(w.encoder) || !detail::is_valid(q.embed) || !detail::is_valid(q.embedding) ||
        !detail::is_valid(q.positions) || !detail::is_valid(q.logits) || q.logits.zero_point != 0)
        return false;
    if (int16_embedding && (q.embedding.zero_point != 0 || !detail::is_branch_add(q.embed))) return false;
    if (M::positions != positions_kind::none ? !detail::is_valid(q.add_positions) : !detail::is_unused(q.add_positions))
        return false;
    if (M::has_head && !M::has_pooled_norm ? !detail::is_valid(q.head_input, in_d) : !detail::is_unused(q.head_input))
        return false;
    if constexpr (int16_embedding)
        if (!detail::is_valid(w.input.projection) || !detail::is_valid(q.input) || q.input.zero_point != 0) return false;
    if constexpr (M::has_embedding_norm)
        if (!detail::is_valid(w.embedding_norm.norm) || !detail::is_stream_norm(w.embedding_norm.norm)) return false;
    if constexpr (M::has_pooled_norm)  // into the classifier's input, or into int16 rows
        if (!detail::is_valid(w.head.norm) ||
            !(M::has_head ? detail::is_block_norm(w.head.norm, in_d) : detail::is_stream_norm(w.head.norm)))
            return false;
    if constexpr (M::has_head)
        if (!detail::is_valid(w.head.linear)) return false;
    return true;
}

}  // namespace staticformer
