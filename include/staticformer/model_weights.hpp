// staticformer: model_weights<model_cfg, P>, a whole model's weights as one plain aggregate: the
// encoder's, then the input's, the CLS token, the embedding LayerNorm, the head (the pooled row's
// LayerNorm and the classifier) and the learned positions (last, so that a blob with more rows
// serves a shorter sequence). Parts a model does not have are empty members. Same storage as encoder_weights: float (f32) or binary16 bits (f16);
// matrices w[in][out].
#pragma once

#include <cstddef>
#include <type_traits>

#include "model_config.hpp"
#include "weights.hpp"

namespace staticformer {

template <class M, class T, input_kind Kind = M::input>
struct input_weights {  // tokens: the embedding table
    T table[M::vocab][M::d_model];
};
template <class M, class T>
struct input_weights<M, T, input_kind::features> {
    T w[M::features][M::d_model];
    T b[M::d_model];
};
template <class M, class T>
struct input_weights<M, T, input_kind::patches> {  // conv_proj: w[(ch P + dy) P + dx][out]
    T w[M::features][M::d_model];
    T b[M::d_model];
};

template <int D, bool Present, class T>
struct cls_weights {
    T token[D];
};
template <int D, class T>
struct cls_weights<D, false, T> {};

// The pooled row's LayerNorm (pooled_norm), then the classifier: one member, so that a model
// without pooled_norm keeps its layout.
template <int D, int Classes, bool Norm, class T>
struct head_weights {
    T norm_gamma[D];
    T norm_beta[D];
    T w[D][Classes];
    T b[Classes];
};
template <int D, int Classes, class T>
struct head_weights<D, Classes, false, T> {
    T w[D][Classes];
    T b[Classes];
};
template <int D, class T>
struct head_weights<D, 0, true, T> {
    T norm_gamma[D];
    T norm_beta[D];
};
template <int D, class T>
struct head_weights<D, 0, false, T> {};

template <int Rows, int D, bool Present, class T>
struct position_weights {
    T table[Rows][D];
};
template <int Rows, int D, class T>
struct position_weights<Rows, D, false, T> {};

// (Enable: the integer precisions' layout is a partial specialisation, model_weights_int8.hpp.)
template <class M, class P, class Enable = void>
struct model_weights {
    static_assert(is_model_config<M>::value, "model_weights needs a model_config");
    static_assert(std::is_same<P, f32>::value || std::is_same<P, f16>::value,
                  "precision must be staticformer::f32, f16, int8 or a16w8 (model_weights_int8.hpp)");
    using config = M;
    using precision = P;
    using element = weight_element_t<P>;
    static constexpr int D = M::d_model;
    static constexpr bool learned = M::positions == positions_kind::learned;

    encoder_weights<typename M::encoder, P> encoder;
    input_weights<M, element> input;
    cls_weights<D, M::has_cls, element> cls;
    final_norm_weights<D, M::has_embedding_norm, element> embedding_norm;
    head_weights<D, M::classes, M::has_pooled_norm, element> head;
    position_weights<M::seq_len, D, learned, element> positions;  // last: see load_model_blob
};

// Bytes each part adds to the encoder's weights (flash).
template <class M, class P>
struct model_weight_bytes {
    using w = model_weights<M, P>;
    static constexpr std::size_t encoder = sizeof(encoder_weights<typename M::encoder, P>);
    static constexpr std::size_t input = sizeof(w::input);
    static constexpr std::size_t total = sizeof(w);
};

namespace detail {
// The arrays of a model's parts after the encoder, in declaration order, the one list of them:
// f(the array in each of the weights w...) for every part model M has.
template <class M, class Fn, class... Weights>
inline void for_each_model_part(Fn&& f, Weights&... w) {
    if constexpr (M::input == input_kind::tokens) {
        f(w.input.table...);
    } else {
        f(w.input.w...);
        f(w.input.b...);
    }
    if constexpr (M::has_cls) f(w.cls.token...);
    if constexpr (M::has_embedding_norm) {
        f(w.embedding_norm.gamma...);
        f(w.embedding_norm.beta...);
    }
    if constexpr (M::has_pooled_norm) {
        f(w.head.norm_gamma...);
        f(w.head.norm_beta...);
    }
    if constexpr (M::has_head) {
        f(w.head.w...);
        f(w.head.b...);
    }
    if constexpr (M::positions == positions_kind::learned) f(w.positions.table...);
}
}  // namespace detail

// Every parameter finite, as for encoders (load_blob checks blobs from outside).
template <class M, class P>
inline bool is_valid(const model_weights<M, P>& w) noexcept {
    using element = weight_element_t<P>;
    bool finite = is_valid(w.encoder);
    // Every array of a part, as one run of elements (parts hold arrays only).
    detail::for_each_model_part<M>(
        [&finite](const auto& a) {
            finite &= math::all_finite(reinterpret_cast<const element*>(&a), sizeof(a) / sizeof(element));
        },
        w);
    return finite;
}

// Converts a model's weights between f32 and f16, as convert_weights does an encoder's.
template <class M, class PIn, class POut>
inline void convert_weights(const model_weights<M, PIn>& in, model_weights<M, POut>& out) noexcept {
    convert_weights(in.encoder, out.encoder);
    // Every array of a part, as one run of elements (parts hold arrays only).
    detail::for_each_model_part<M>(
        [](const auto& a, auto& b) {
            using in_t = std::remove_all_extents_t<std::remove_reference_t<decltype(a)>>;
            using out_t = std::remove_all_extents_t<std::remove_reference_t<decltype(b)>>;
            detail::convert_array(reinterpret_cast<const in_t*>(&a), reinterpret_cast<out_t*>(&b),
                                  sizeof(a) / sizeof(in_t));
        },
        in, out);
}

}  // namespace staticformer
