// staticformer: encoder<cfg, P, Backend>, the class around one forward pass of any precision
// (encoder_float.hpp: f32, f16; encoder_int8.hpp: int8; both run composition.hpp's stages).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "call_checks.hpp"
#include "config.hpp"
#include "encoder_float.hpp"
#include "encoder_int8.hpp"
#include "status.hpp"

namespace staticformer {

// What a precision is made of: its activations' type, its workspace, its kernel sets and its
// steps of the one composition (composition.hpp). f32 and f16 share everything but the weights'
// element; int8 and a16w8 share the integer steps, each with its tensors' type.
template <class P>
struct precision_traits {
    using value = float;
    template <class Cfg, int Tile, int Workers = 1, int Batch = 1>
    using workspace = staticformer::workspace<Cfg, Tile, Workers, Batch>;
    template <class Backend>
    using kernels = kernel_set<Backend>;
    template <class Cfg, class K, int Tile>
    using steps = detail::float_steps<Cfg, K, weight_element_t<P>, Tile>;
};
template <class P>
struct integer_precision_traits {
    using value = std::int16_t;  // the encoder's input and output: the residual stream
    template <class Cfg, int Tile, int Workers = 1, int Batch = 1>
    using workspace = workspace_integer<Cfg, typename detail::integer_precision<P>::value, Tile, Workers, Batch>;
    template <class Backend>
    using kernels = typename detail::integer_precision<P>::template kernels<Backend>;
    template <class Cfg, class K, int Tile>
    using steps = detail::int8_steps<Cfg, K, Tile, typename detail::integer_precision<P>::value>;
};
template <>
struct precision_traits<int8> : integer_precision_traits<int8> {};
template <>
struct precision_traits<a16w8> : integer_precision_traits<a16w8> {};

// Runs one forward pass through the encoders' one composition with kernel set K: a backend's
// kernel_set<B> / int8_kernel_set<B>, or a type derived from one that observes or replaces some
// kernels (profilers, calibration, benchmarks). The same checks and results as forward<B>().
template <class K, class Cfg, class P, int Tile, int Workers>
inline status forward_with(const encoder_weights<Cfg, P>& w, workspace<Cfg, Tile, Workers>& ws, const float* x,
                           float* y, int valid_len, key_padding_mask mask = {}) noexcept {
    return detail::forward<Cfg, K>(w, ws, x, y, valid_len, mask, detail::on_one_worker{});
}
template <class K, class Cfg, class P, class V, int Tile, int Workers>
inline status forward_with(const encoder_weights<Cfg, P>& w, workspace_integer<Cfg, V, Tile, Workers>& ws,
                           const std::int16_t* x, std::int16_t* y, int valid_len, key_padding_mask mask = {}) noexcept {
    return detail::forward_int8<Cfg, K>(w, ws, x, y, valid_len, mask, detail::on_one_worker{});
}

template <class Cfg, class P = f32, class Backend = default_backend>
class encoder {
    static_assert(is_encoder_config<Cfg>::value, "encoder needs an encoder_config as its first argument");
    static_assert(is_precision<P>, "precision must be staticformer::f32, f16, int8 or a16w8");
    static_assert(detail::backend_check<P, Backend>::value, "");

public:
    using config = Cfg;
    using precision = P;
    using backend = Backend;
    using weights_type = encoder_weights<Cfg, P>;
    static constexpr int tile = tile_for<Cfg, Backend>;
    using workspace_type = typename precision_traits<P>::template workspace<Cfg, tile>;
    static_assert(sizeof(weights_type) > 0, "");  // the weights' own rules (int8 bounds) apply here
    // float for f32 and f16 (float activations), std::int16_t for int8 and a16w8 (the residual
    // stream, quantised with weights().input and weights().output).
    using value_type = typename precision_traits<P>::value;

    static constexpr int seq_len = Cfg::seq_len;
    static constexpr int d_model = Cfg::d_model;
    static constexpr std::size_t io_values = std::size_t(Cfg::seq_len) * Cfg::d_model;
    // Bytes of the weights (flash) and of the workspace (RAM). f16 weights take half the bytes
    // of f32 ones with the same float workspace; int8 weights and workspace are about a quarter.
    static constexpr std::size_t weight_bytes = sizeof(weights_type);
    static constexpr std::size_t workspace_bytes = sizeof(workspace_type);

    explicit encoder(const weights_type& w) noexcept : weights_(&w) {}

    // mask: the keys no row attends (mask.hpp); by default none.
    status forward(const value_type* x, value_type* y, int valid_len, key_padding_mask mask = {}) noexcept {
        return staticformer::forward<Backend>(*weights_, workspace_, x, y, valid_len, mask);
    }

    const weights_type& weights() const noexcept { return *weights_; }

private:
    const weights_type* weights_;
    workspace_type workspace_;
};

}  // namespace staticformer
