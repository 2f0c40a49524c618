// staticformer: encoder_weights, the weights as a plain aggregate, and conversion between
// precisions. The weights blob (.sfwb: format, CRC-32, writer and zero-copy loader) is blob.hpp.
//
// encoder_weights<cfg, P> is a plain aggregate of arrays: a `constexpr` instance (as
// tools/export_pytorch.py writes it) is constant-initialised and lands in flash (.rodata).
// Matrices are stored input-major, w[in][out], i.e. transposed from torch's Linear.weight.
//
// Precisions: f32 stores every parameter as a float; f16 stores the very same layout with each
// float replaced by its IEEE binary16 bits (std::uint16_t, see math/fp16.hpp): matrices,
// biases and LayerNorm parameters alike, so the weights take half the bytes. Kernels widen each
// f16 weight to float exactly and then compute as for f32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "config.hpp"
#include "math/finite.hpp"
#include "math/fp16.hpp"

namespace staticformer {

// The element type a precision stores its weights in.
template <class P>
struct weight_element {
    using type = float;  // int8 has its own layout (weights_int8.hpp)
};
template <>
struct weight_element<f16> {
    using type = std::uint16_t;  // IEEE binary16 bits
};
template <class P>
using weight_element_t = typename weight_element<P>::type;

// Where weights should start: a 64-byte boundary (a cache line, an AVX-512 vector). The weight
// types ask only for their elements' alignment, so that a blob can be used wherever it lies,
// but 512-bit kernels whose weight rows straddle cache lines then load two lines per vector
// (bench/PERF_NOTES.md). The exporters' headers declare their objects
// alignas(weights_alignment); a blob's payload starts blob::header_bytes (64, blob.hpp) after
// the blob, so a blob at a 64-byte boundary has it too. Declare your own weight objects the
// same way.
inline constexpr std::size_t weights_alignment = 64;

// An array a configuration may leave out (no_bias, no_norm_bias): T[N] when present, else an
// empty member, which takes one element of padding (as an absent final norm does).
template <class T, int N>
struct absent_array {};
template <class T, int N, bool Present>
using optional_array = std::conditional_t<Present, T[N], absent_array<T, N>>;

namespace detail {
template <class T, int N>
struct zero_table {
    T v[N];
};
template <class T, int N>
inline constexpr zero_table<T, N> zeros{};
}  // namespace detail

// What a kernel reads for an optional array: the array, or N zeros (an absent bias adds 0).
template <class T, int N>
constexpr const T* values_of(const T (&present)[N]) noexcept {
    return present;
}
template <class T, int N>
constexpr const T* values_of(const absent_array<T, N>&) noexcept {
    return detail::zeros<T, N>.v;
}

template <class Cfg, class T>
struct layer_weights {
    static constexpr int D = Cfg::d_model, QKV = Cfg::qkv_width;
    static constexpr int F = Cfg::d_ff, F1 = Cfg::ff1_width;
    static constexpr bool B = Cfg::has_bias, NB = Cfg::has_norm_bias;
    // columns [0, D) query, [D, D + K) key, [D + K, D + 2K) value; K = kv_dim (D without kv_heads)
    T qkv_w[D][QKV];
    optional_array<T, QKV, B> qkv_b;
    T out_w[D][D];
    optional_array<T, D, B> out_b;
    T ff1_w[D][F1];  // glu: columns [0, F) W1 (activated), [F, 2F) W3 (the gate)
    optional_array<T, F1, B> ff1_b;
    T ff2_w[F][D];
    optional_array<T, D, B> ff2_b;
    T norm1_gamma[D];
    optional_array<T, D, NB> norm1_beta;
    T norm2_gamma[D];
    optional_array<T, D, NB> norm2_beta;
    // The members in declaration order, the one C++ list of them (python/staticformer_export/encoder_schema.py is
    // Python's): f(element count, the member's first element in each of the layers l...).
    // Absent members (no_bias, no_norm_bias) are left out.
    template <class Fn, class... Layers>
    static void for_each_member(Fn&& f, Layers&... l) {
        f(std::size_t(D) * QKV, &l.qkv_w[0][0]...);
        if constexpr (B) f(std::size_t(QKV), l.qkv_b...);
        f(std::size_t(D) * D, &l.out_w[0][0]...);
        if constexpr (B) f(std::size_t(D), l.out_b...);
        f(std::size_t(D) * F1, &l.ff1_w[0][0]...);
        if constexpr (B) f(std::size_t(F1), l.ff1_b...);
        f(std::size_t(F) * D, &l.ff2_w[0][0]...);
        if constexpr (B) f(std::size_t(D), l.ff2_b...);
        f(std::size_t(D), l.norm1_gamma...);
        if constexpr (NB) f(std::size_t(D), l.norm1_beta...);
        f(std::size_t(D), l.norm2_gamma...);
        if constexpr (NB) f(std::size_t(D), l.norm2_beta...);
    }
    // Parameters of one layer, and the absent members (one element of padding each).
    static constexpr std::size_t parameter_count =
        std::size_t(D) * QKV + std::size_t(D) * D + std::size_t(D) * F1 + std::size_t(F) * D + 2 * D +
        (B ? QKV + D + F1 + D : 0) + (NB ? 2 * D : 0);
    static constexpr std::size_t absent_members = (B ? 0 : 4) + (NB ? 0 : 2);
};
template <class Cfg>
using layer_weights_f32 = layer_weights<Cfg, float>;

template <int D, bool Present, class T = float, bool Beta = true>
struct final_norm_weights {
    T gamma[D];
    optional_array<T, D, Beta> beta;
};
template <int D, class T, bool Beta>
struct final_norm_weights<D, false, T, Beta> {};

template <class Cfg, class P>
struct encoder_weights {
    static_assert(is_encoder_config<Cfg>::value, "encoder_weights needs an encoder_config");
    static_assert(std::is_same<P, f32>::value || std::is_same<P, f16>::value,
                  "precision must be staticformer::f32, f16, int8 or a16w8");
    using config = Cfg;
    using precision = P;
    using element = weight_element_t<P>;  // float, or std::uint16_t holding binary16 bits
    // Parameters of the whole encoder; sizeof(encoder_weights) is parameter_count elements, plus
    // one element of padding when there is no final norm (an empty member still takes a byte).
    // Absent members (no_bias, no_norm_bias) add one element of padding each, too.
    static constexpr std::size_t parameter_count =
        std::size_t(Cfg::layers) * layer_weights<Cfg, element>::parameter_count +
        (Cfg::has_final_norm ? (Cfg::has_norm_bias ? 2 : 1) * Cfg::d_model : 0);

    layer_weights<Cfg, element> layer[Cfg::layers];
    final_norm_weights<Cfg::d_model, Cfg::has_final_norm, element, Cfg::has_norm_bias> final_norm;

    static_assert(sizeof(layer_weights<Cfg, element>) ==
                      (layer_weights<Cfg, element>::parameter_count + layer_weights<Cfg, element>::absent_members) *
                          sizeof(element),
                  "layer_weights: parameter_count covers every member, absent ones one element each");
};

// f32 / f16 weights a pass can use: every parameter finite (load_blob checks blobs from outside).
// A NaN or infinity in the weights would reach the outputs with backend-dependent NaN payloads.
template <class Cfg, class P>
inline bool is_valid(const encoder_weights<Cfg, P>& w) noexcept {
    using element = weight_element_t<P>;
    bool finite = true;
    const auto check = [&finite](std::size_t n, const element* a) { finite &= math::all_finite(a, n); };
    for (const auto& l : w.layer) layer_weights<Cfg, element>::for_each_member(check, l);
    if constexpr (Cfg::has_final_norm) {
        check(Cfg::d_model, w.final_norm.gamma);
        if constexpr (Cfg::has_norm_bias) check(Cfg::d_model, w.final_norm.beta);
    }
    return finite;
}

// ---- precision conversion (host or start-up code) -------------------------------------------
namespace detail {

inline float convert_element(float w, float) noexcept { return w; }
inline std::uint16_t convert_element(float w, std::uint16_t) noexcept { return math::float_to_half(w); }
inline float convert_element(std::uint16_t w, float) noexcept { return math::half_to_float(w); }
inline std::uint16_t convert_element(std::uint16_t w, std::uint16_t) noexcept { return w; }

template <class In, class Out>
inline void convert_array(const In* in, Out* out, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) out[i] = convert_element(in[i], Out{});
}

}  // namespace detail

// Converts weights between precisions, member by member: f32 -> f16 rounds each parameter to
// the nearest binary16 (ties to even; beyond +-65504 it becomes infinity, so check the range
// of your model first), f16 -> f32 is exact. The f16 encoder on converted weights computes
// exactly what the f32 encoder computes on their f16 -> f32 conversion.
template <class Cfg, class PIn, class POut>
inline void convert_weights(const encoder_weights<Cfg, PIn>& in, encoder_weights<Cfg, POut>& out) noexcept {
    constexpr std::size_t D = Cfg::d_model;
    const auto convert = [](std::size_t n, const auto* a, auto* b) { detail::convert_array(a, b, n); };
    for (int l = 0; l < Cfg::layers; ++l)
        layer_weights<Cfg, weight_element_t<PIn>>::for_each_member(convert, in.layer[l], out.layer[l]);
    if constexpr (Cfg::has_final_norm) {
        detail::convert_array(in.final_norm.gamma, out.final_norm.gamma, D);
        if constexpr (Cfg::has_norm_bias) detail::convert_array(in.final_norm.beta, out.final_norm.beta, D);
    }
}

}  // namespace staticformer
