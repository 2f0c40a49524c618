// staticformer: model_config, a whole model around an encoder_config: its input (front),
// positions, CLS token, embedding LayerNorm, pooling and classification head, all fixed at
// compile time. A configuration that cannot work does not compile; each static_assert message
// names the rule.
//
//   rows  = [CLS] + front(input)             CLS first when the model has one (torchvision's ViT)
//   rows += positions[row]                   sinusoidal or learned, by row index (CLS is row 0)
//   rows  = LN(rows)                         with embedding_norm (BERT)
//   rows  = encoder(rows)                    the encoder_config's stack, on valid rows only
//   out   = rows | rows[0] | mean(rows)      no pooling, cls_pooling, mean_pooling (valid rows)
//   out   = LN(out)                          with pooled_norm (a norm of the pooled row alone)
//   out   = out W + b                        classifier_head<Classes>: logits (and their arg-max)
#pragma once

#include <cstddef>
#include <type_traits>

#include "config.hpp"
#include "math/fixed_point.hpp"

namespace staticformer {

// ---- inputs (one per model) -----------------------------------------------------------------
// Token ids (std::int32_t, 0 <= id < Vocab) through an embedding table [Vocab][d_model].
template <int Vocab>
struct token_input {};
// Features floats per token through a linear projection (sensor frames, audio features).
template <int Features>
struct feature_input {};
// An image, channels first [Channels][Height][Width], cut into Patch x Patch patches, row by row,
// each projected as torch's Conv2d(Channels, d_model, kernel_size=Patch, stride=Patch) does
// (torchvision VisionTransformer's conv_proj).
template <int Channels, int Height, int Width, int Patch>
struct patch_input {};

// ---- model options --------------------------------------------------------------------------
struct scale_embedding {};       // token embeddings times sqrt(d_model), as the original Transformer
struct sinusoidal_positions {};  // PE(pos, 2i) = sin(pos / 10000^(2i / d_model)), PE(pos, 2i + 1) = cos(...)
struct learned_positions {};     // a learned table [seq_len][d_model] in the weights
struct cls_token {};             // a learned token before the input's (the encoder's row 0)
struct embedding_norm {};        // a LayerNorm (the encoder's epsilon) after positions (BERT)
struct cls_pooling {};           // output: the encoder's row 0 (without cls_token: the first token's, as BERT's [CLS])
struct mean_pooling {};          // output: the mean of the encoder's valid rows (CLS included)
struct pooled_norm {};           // a LayerNorm (the encoder's epsilon) of the pooled row, before the head
// The embedding's and the pooled row's LayerNorm with epsilons of their own (Mantissa *
// 10^Exponent10, as layer_norm_eps): a model's norms at 1e-6 around torch's layers at 1e-5.
template <int Mantissa, int Exponent10>
struct embedding_norm_eps {};
template <int Mantissa, int Exponent10>
struct pooled_norm_eps {};
template <int Classes>
struct classifier_head {};       // output: Classes logits of a linear layer on the pooled row

enum class input_kind { tokens, features, patches };
enum class positions_kind { none, sinusoidal, learned };
enum class pooling_kind { none, cls, mean };

namespace detail {

template <class T>
struct input_traits {
    static constexpr bool valid = false;
};
template <int V>
struct input_traits<token_input<V>> {
    static constexpr bool valid = true;
    static constexpr input_kind kind = input_kind::tokens;
    static constexpr int vocab = V, features = 0, channels = 0, height = 0, width = 0, patch = 0;
    static_assert(V > 0, "token_input: the vocabulary must hold at least one token");
};
template <int F>
struct input_traits<feature_input<F>> {
    static constexpr bool valid = true;
    static constexpr input_kind kind = input_kind::features;
    static constexpr int vocab = 0, features = F, channels = 0, height = 0, width = 0, patch = 0;
    static_assert(F > 0, "feature_input: at least one feature per token");
};
template <int C, int H, int W, int P>
struct input_traits<patch_input<C, H, W, P>> {
    static constexpr bool valid = true;
    static constexpr input_kind kind = input_kind::patches;
    static constexpr int vocab = 0, channels = C, height = H, width = W, patch = P;
    static_assert(C > 0 && H > 0 && W > 0 && P > 0, "patch_input: channels, height, width and patch must be positive");
    static_assert(P <= 0 || (H % P == 0 && W % P == 0), "patch_input: height and width must be multiples of the patch");
    static constexpr int features = C * P * P;  // values of one patch, the projection's inputs
};

template <class T>
struct is_head : std::false_type {};
template <int C>
struct is_head<classifier_head<C>> : std::true_type {
    static constexpr int classes = C;
};

template <class T>
constexpr bool is_known_model_option =
    std::is_same<T, scale_embedding>::value || std::is_same<T, sinusoidal_positions>::value ||
    std::is_same<T, learned_positions>::value || std::is_same<T, cls_token>::value ||
    std::is_same<T, embedding_norm>::value || std::is_same<T, cls_pooling>::value ||
    std::is_same<T, mean_pooling>::value || std::is_same<T, pooled_norm>::value ||
    is_eps_of<embedding_norm_eps, T>::value || is_eps_of<pooled_norm_eps, T>::value || is_head<T>::value;

}  // namespace detail

template <class Encoder, class Input, class... Options>
struct model_config {
    static_assert(is_encoder_config<Encoder>::value, "model_config needs an encoder_config as its first argument");
    static_assert(detail::input_traits<Input>::valid,
                  "model_config's second argument is its input: token_input<Vocab>, feature_input<Features> or "
                  "patch_input<Channels, Height, Width, Patch>");
    static_assert((true && ... && detail::is_known_model_option<Options>),
                  "unknown model option: use scale_embedding, sinusoidal_positions, learned_positions, cls_token, "
                  "embedding_norm, embedding_norm_eps<M, E>, cls_pooling, mean_pooling, pooled_norm, "
                  "pooled_norm_eps<M, E> or classifier_head<Classes>");
    static_assert(detail::count_of<sinusoidal_positions, Options...> + detail::count_of<learned_positions, Options...> <= 1,
                  "choose at most one of sinusoidal_positions and learned_positions");
    static_assert(detail::count_of<cls_pooling, Options...> + detail::count_of<mean_pooling, Options...> <= 1,
                  "choose at most one of cls_pooling and mean_pooling");
    static_assert(detail::count_of<cls_token, Options...> <= 1 && detail::count_of<embedding_norm, Options...> <= 1 &&
                      detail::count_of<scale_embedding, Options...> <= 1 &&
                      detail::count_of<pooled_norm, Options...> <= 1,
                  "a model option given twice");
    static_assert((0 + ... + int(detail::is_head<Options>::value)) <= 1, "classifier_head given twice");

    using encoder = Encoder;
    using input_traits = detail::input_traits<Input>;
    static constexpr int d_model = Encoder::d_model;
    static constexpr int seq_len = Encoder::seq_len;

    static constexpr enum input_kind input = input_traits::kind;
    static constexpr int vocab = input_traits::vocab;
    static constexpr int features = input_traits::features;  // per token (patches: channels * patch^2)
    static constexpr bool scales_embedding = detail::count_of<scale_embedding, Options...> == 1;
    static_assert(!scales_embedding || input_traits::kind == input_kind::tokens,
                  "scale_embedding applies to token_input only");
    // sqrt(d_model) rounded to float, at compile time (the compiler's double arithmetic; for every
    // d_model up to 65536 the same float as std::sqrt's correctly rounded double, so PyTorch's
    // embedding(x) * math.sqrt(d_model) scales by the same number).
    static constexpr float embedding_scale =
        scales_embedding ? float(math::detail::sqrt_newton(double(Encoder::d_model))) : 1.0f;

    static constexpr positions_kind positions = detail::count_of<sinusoidal_positions, Options...> ? positions_kind::sinusoidal
                                                : detail::count_of<learned_positions, Options...> ? positions_kind::learned
                                                                                                   : positions_kind::none;
    static constexpr bool has_cls = detail::count_of<cls_token, Options...> == 1;
    static constexpr bool has_embedding_norm = detail::count_of<embedding_norm, Options...> == 1;
    static constexpr pooling_kind pooling = detail::count_of<cls_pooling, Options...>    ? pooling_kind::cls
                                            : detail::count_of<mean_pooling, Options...> ? pooling_kind::mean
                                                                                         : pooling_kind::none;
    static constexpr int classes =
        detail::is_head<typename detail::find_option<detail::is_head, classifier_head<0>, Options...>::type>::classes;
    static constexpr bool has_head = classes > 0;
    static_assert((0 + ... + int(detail::is_head<Options>::value)) == 0 || classes > 0,
                  "classifier_head needs at least one class");
    static_assert(!has_head || pooling != pooling_kind::none,
                  "classifier_head needs a pooled row: add cls_pooling or mean_pooling");
    static constexpr bool has_pooled_norm = detail::count_of<pooled_norm, Options...> == 1;
    static_assert(!has_pooled_norm || pooling != pooling_kind::none,
                  "pooled_norm needs a pooled row: add cls_pooling or mean_pooling");

    // The epsilons of the embedding's and the pooled row's LayerNorms: the encoder's unless given.
    using embedding_eps_option = detail::eps_option<embedding_norm_eps, Options...>;
    using pooled_eps_option = detail::eps_option<pooled_norm_eps, Options...>;
    static_assert(embedding_eps_option::count <= 1 && pooled_eps_option::count <= 1, "a norm epsilon given twice");
    static_assert(embedding_eps_option::count == 0 || has_embedding_norm, "embedding_norm_eps needs embedding_norm");
    static_assert(pooled_eps_option::count == 0 || has_pooled_norm, "pooled_norm_eps needs pooled_norm");
    static_assert(embedding_eps_option::in_range && pooled_eps_option::in_range,
                  "a norm epsilon must be positive, its exponent in [-30, 0]");
    static constexpr float embedding_eps = embedding_eps_option::count ? embedding_eps_option::value : Encoder::eps;
    static constexpr float pooled_eps = pooled_eps_option::count ? pooled_eps_option::value : Encoder::eps;

    // Input tokens: at most seq_len (seq_len - 1 with a CLS token); an image has exactly its
    // patches.
    static constexpr int input_tokens = seq_len - (has_cls ? 1 : 0);
    static_assert(input_tokens > 0, "seq_len must leave room for one input token after the CLS token");
    static_assert(input_traits::kind != input_kind::patches ||
                      input_tokens == (input_traits::height / input_traits::patch) * (input_traits::width / input_traits::patch),
                  "patch_input: seq_len must be the number of patches (plus one with cls_token)");
    static_assert(1LL * input_traits::vocab * Encoder::d_model <= detail::max_index &&
                      1LL * input_traits::features * Encoder::d_model <= detail::max_index &&
                      1LL * input_traits::channels * input_traits::height * input_traits::width <= detail::max_index,
                  "model input too large: every table and image must have fewer than 2^31 elements");

    // Values of one input: token ids, features per token, or the whole image.
    static constexpr std::size_t input_values = input_traits::kind == input_kind::tokens ? std::size_t(input_tokens)
                                                : input_traits::kind == input_kind::features
                                                    ? std::size_t(input_tokens) * input_traits::features
                                                    : std::size_t(input_traits::channels) * input_traits::height * input_traits::width;
    // Values forward() writes: the encoded sequence, the pooled row, or the logits.
    static constexpr std::size_t output_values = has_head                      ? std::size_t(classes)
                                                 : pooling != pooling_kind::none ? std::size_t(d_model)
                                                                                 : std::size_t(seq_len) * d_model;
};

template <class T>
struct is_model_config : std::false_type {};
template <class E, class I, class... O>
struct is_model_config<model_config<E, I, O...>> : std::true_type {};

}  // namespace staticformer
