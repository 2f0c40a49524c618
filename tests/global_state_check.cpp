// The library's entry points, instantiated into one object file that global_state_check.cmake
// inspects with nm: no symbol may live in writable data (.data, .bss), be thread-local or be a
// guard variable, so no call shares mutable memory with another (the tables are .rodata).
// Compiled only, never linked or run. Build it with the simd backend on (x86-64: -march=x86-64-v3).
// -DSF_GLOBAL_STATE_CONTROL: the negative control, mutable statics of each kind alone (the library
// would add only build time), which the check must name.
#ifndef SF_GLOBAL_STATE_CONTROL
#include <staticformer/quant/convert.hpp>
#include <staticformer/quant/model_quantize.hpp>
#include <staticformer/quant/quantize.hpp>
#include <staticformer/staticformer.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace sf = staticformer;

namespace gsc {

// Between them, every encoder option: pre- and post-norm, final LayerNorm, causal, activations.
using pre = sf::encoder_config<24, 3, 40, 7, 2, sf::pre_norm, sf::gelu, sf::final_norm>;
using post = sf::encoder_config<20, 5, 36, 9, 2, sf::post_norm, sf::gelu_tanh, sf::layer_norm_eps<1, -6>>;
using causal = sf::encoder_config<24, 3, 40, 11, 1, sf::pre_norm, sf::relu, sf::causal>;
// Every input kind, position, CLS, pooling and head option.
using tokens = sf::model_config<sf::encoder_config<20, 2, 36, 9, 2, sf::gelu_tanh, sf::causal>, sf::token_input<13>,
                                sf::scale_embedding, sf::sinusoidal_positions, sf::embedding_norm, sf::mean_pooling,
                                sf::classifier_head<4>>;
using patches = sf::model_config<sf::encoder_config<24, 3, 40, 17, 2, sf::pre_norm, sf::gelu, sf::final_norm>,
                                 sf::patch_input<2, 8, 8, 2>, sf::learned_positions, sf::cls_token, sf::cls_pooling,
                                 sf::classifier_head<5>>;
using features = sf::model_config<sf::encoder_config<33, 3, 70, 11, 1, sf::relu, sf::final_norm>, sf::feature_input<7>,
                                  sf::sinusoidal_positions, sf::cls_token>;

// One forward pass of Net (for the feature model: without a head it has no classify, so its
// class cannot be instantiated whole).
template <class Net>
struct pass {
    static sf::status run(Net& net, const typename Net::input_type* in, typename Net::output_type* out, int n) {
        return net.forward(in, out, n);
    }
};

// The host helpers of an encoder's or a model's weights: conversion, blob writing and zero-copy
// loading, int8 input and output conversions (each called once; results discarded).
template <class W32, class W16, class W8>
struct host {
    static void convert(const W32& w, W16& h) { sf::convert_weights(w, h); }
    template <class W>
    static void blob(const W& w, void* buffer, std::size_t capacity, const W*& loaded) {
        (void)sf::write_blob(w, buffer, capacity);
        (void)sf::load_blob(buffer, capacity, loaded);
    }
    static void blobs(const W32& a, const W16& b, const W8& c, void* buffer, std::size_t capacity, const W32*& la,
                      const W16*& lb, const W8*& lc) {
        blob(a, buffer, capacity, la), blob(b, buffer, capacity, lb), blob(c, buffer, capacity, lc);
    }
};
template <class Cfg>
void encoder_io(const sf::encoder_weights<Cfg, sf::int8>& w, const float* x, std::int16_t* q, float* y, std::size_t n) {
    (void)sf::quantize_input(w, x, q, n);
    sf::dequantize_output(w, q, y, n);
}
template <class M>
void model_io(const sf::model_weights<M, sf::int8>& w, const float* x, std::int8_t* q, const std::int32_t* logits,
              const std::int16_t* rows, float* y, std::size_t n) {
    (void)sf::quantize_model_input(w, x, q, n);
    sf::dequantize_logits(w, logits, y, n);
    sf::dequantize_model_output(w, rows, y, n);
}

// A pass on several workers and a batch, through the library's serial executor (a caller's
// executor is the caller's code): the entry points of parallel.hpp and batch.hpp.
template <class Cfg, class P, class B>
struct parallel_passes {
    using value = std::conditional_t<std::is_same<P, sf::int8>::value, std::int16_t, float>;
    using workspace = std::conditional_t<std::is_same<P, sf::int8>::value, sf::parallel_workspace_int8_for<Cfg, 2, B>,
                                         sf::parallel_workspace_for<Cfg, 2, B>>;
    using batch_workspace = std::conditional_t<std::is_same<P, sf::int8>::value,
                                               sf::batch_workspace_int8_for<Cfg, 3, B, 2>,
                                               sf::batch_workspace_for<Cfg, 3, B, 2>>;
    static sf::status pass(const sf::encoder_weights<Cfg, P>& w, workspace& ws, const value* x, value* y, int n) {
        return sf::forward<B>(w, ws, x, y, n, {}, sf::serial_executor{});
    }
    static sf::status batch(const sf::encoder_weights<Cfg, P>& w, batch_workspace& ws, const value* x, value* y,
                            const int* lens, int count) {
        (void)sf::forward_batch<B>(w, ws, x, y, lens, count);
        return sf::forward_batch<B>(w, ws, x, y, lens, count, nullptr, sf::serial_executor{});
    }
};
template <class M, class P, class B>
sf::status parallel_model_pass(const sf::model_weights<M, P>& w, sf::parallel_model_workspace_for<M, 2, B, P>& ws,
                               const sf::model_input_t<M, P>* in, sf::model_output_t<M, P>* out, int n) {
    return sf::forward<B>(w, ws, in, out, n, {}, sf::serial_executor{});
}

}  // namespace gsc

// Encoders and models in every precision on one backend (explicit instantiation: every member).
#define GSC_BACKEND(B)                                                                                              \
    template class sf::encoder<gsc::pre, sf::f32, B>;                                                              \
    template class sf::encoder<gsc::pre, sf::f16, B>;                                                              \
    template class sf::encoder<gsc::pre, sf::int8, B>;                                                             \
    template class sf::encoder<gsc::post, sf::f32, B>;                                                             \
    template class sf::encoder<gsc::post, sf::f16, B>;                                                             \
    template class sf::encoder<gsc::post, sf::int8, B>;                                                            \
    template class sf::encoder<gsc::causal, sf::f32, B>;                                                           \
    template class sf::encoder<gsc::causal, sf::int8, B>;                                                          \
    template class sf::encoder<gsc::pre, sf::a16w8, B>;                                                            \
    template class sf::model<gsc::tokens, sf::a16w8, B>;                                                           \
    template class sf::model<gsc::patches, sf::a16w8, B>;                                                          \
    template class sf::model<gsc::tokens, sf::f32, B>;                                                             \
    template class sf::model<gsc::tokens, sf::f16, B>;                                                             \
    template class sf::model<gsc::tokens, sf::int8, B>;                                                            \
    template class sf::model<gsc::patches, sf::f32, B>;                                                            \
    template class sf::model<gsc::patches, sf::f16, B>;                                                            \
    template class sf::model<gsc::patches, sf::int8, B>;                                                           \
    template struct gsc::pass<sf::model<gsc::features, sf::f32, B>>;                                               \
    template struct gsc::pass<sf::model<gsc::features, sf::f16, B>>;                                               \
    template struct gsc::pass<sf::model<gsc::features, sf::int8, B>>;                                              \
    template struct gsc::parallel_passes<gsc::pre, sf::f32, B>;                                                    \
    template struct gsc::parallel_passes<gsc::causal, sf::int8, B>;                                                \
    template sf::status gsc::parallel_model_pass<gsc::tokens, sf::int8, B>(                                        \
        const sf::model_weights<gsc::tokens, sf::int8>&, sf::parallel_model_workspace_for<gsc::tokens, 2, B, sf::int8>&, \
        const std::int32_t*, std::int32_t*, int);

GSC_BACKEND(sf::reference)
#if STATICFORMER_HAS_SIMD
GSC_BACKEND(sf::simd)
#endif
#undef GSC_BACKEND

// The calibrators (host side).
template class sf::quant::calibrator<gsc::pre>;
template class sf::quant::calibrator<gsc::post>;
template class sf::quant::calibrator<gsc::causal>;
template class sf::quant::model_calibrator<gsc::tokens>;
template class sf::quant::model_calibrator<gsc::patches>;
template class sf::quant::model_calibrator<gsc::features>;

// Conversions and blobs (host side).
template struct gsc::host<sf::encoder_weights<gsc::pre, sf::f32>, sf::encoder_weights<gsc::pre, sf::f16>,
                          sf::encoder_weights<gsc::pre, sf::int8>>;
template struct gsc::host<sf::model_weights<gsc::patches, sf::f32>, sf::model_weights<gsc::patches, sf::f16>,
                          sf::model_weights<gsc::patches, sf::int8>>;
template struct gsc::host<sf::model_weights<gsc::tokens, sf::f32>, sf::model_weights<gsc::tokens, sf::f16>,
                          sf::model_weights<gsc::tokens, sf::int8>>;
template void gsc::encoder_io(const sf::encoder_weights<gsc::pre, sf::int8>&, const float*, std::int16_t*, float*,
                              std::size_t);
template void gsc::model_io(const sf::model_weights<gsc::patches, sf::int8>&, const float*, std::int8_t*,
                            const std::int32_t*, const std::int16_t*, float*, std::size_t);

#else
// The negative control: a counter, a function-local static with a guard, a thread-local.
static int sf_control_counter;
int sf_control_count() { return ++sf_control_counter; }
int sf_control_lazy(int v) {
    static const int first = v;
    return first;
}
thread_local int sf_control_thread_local;
int sf_control_thread() { return ++sf_control_thread_local; }
#endif
