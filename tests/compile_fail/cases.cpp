// Compile-fail cases for the configuration rules of config.hpp and encoder.hpp.
//
// Compiled once per case with -DCASE=N by tests/compile_fail/CMakeLists.txt, which expects
// case 0 to compile and every other case to fail with the static_assert (or #error) message
// registered for it there. Each case breaks exactly one rule; keep the case numbers in step with
// the CMake list (it checks that every case below is registered).
#if defined(CASE) && CASE >= 1 && CASE < 40
#include <staticformer/config.hpp>  // encoder_config's rules: no need to parse the kernels
#else
#include <staticformer/staticformer.hpp>
#endif

#include <cstddef>

namespace sf = staticformer;

// sizeof needs a complete type, so it instantiates the class and runs its static_asserts.
template <class T>
constexpr std::size_t instantiate = sizeof(T);

using ok_cfg = sf::encoder_config<8, 2, 16, 4, 1>;

#if !defined(CASE)
#error "define CASE"

#elif CASE == 0 || CASE == 90 || CASE == 91
// A valid configuration, every option used once, both backends instantiated down to the kernels.
// Cases 90 (-ffast-math) and 91 (x87 float evaluation) compile this same code with flags that
// config.hpp rejects.
using cfg = sf::encoder_config<8, 2, 16, 4, 2, sf::pre_norm, sf::gelu, sf::final_norm,
                               sf::layer_norm_eps<1, -6>, sf::tile_rows<3>>;
using cfg2 = sf::encoder_config<12, 3, 8, 5, 1, sf::post_norm, sf::gelu_tanh, sf::layer_norm_eps<5, 0>>;
using cfg3 = sf::encoder_config<4, 4, 4, 1, 1, sf::relu, sf::tile_rows<8>>;
static_assert(cfg::head_dim == 4 && cfg::norm_first && cfg::has_final_norm && cfg::tile == 3, "");
static_assert(!cfg2::norm_first && cfg2::activation == sf::activation_kind::gelu_tanh, "");
static_assert(cfg3::tile == 1 && cfg3::activation == sf::activation_kind::relu, "");

// Every precision: f32, f16 (float activations) and int8 (the int16 residual stream).
template <class Cfg, class P, class T = float>
sf::status run_all(const sf::encoder_weights<Cfg, P>& w, const T* x, T* y) {
    sf::encoder<Cfg, P> by_default{w};
    sf::encoder<Cfg, P, sf::reference> by_reference{w};
    sf::status s = by_default.forward(x, y, Cfg::seq_len);
    if (s == sf::status::ok) s = by_reference.forward(x, y, Cfg::seq_len);
#if STATICFORMER_HAS_SIMD
    sf::encoder<Cfg, P, sf::simd> by_simd{w};
    if (s == sf::status::ok) s = by_simd.forward(x, y, Cfg::seq_len);
#endif
    return s;
}
template sf::status run_all<cfg, sf::f32>(const sf::encoder_weights<cfg, sf::f32>&, const float*, float*);
template sf::status run_all<cfg2, sf::f32>(const sf::encoder_weights<cfg2, sf::f32>&, const float*, float*);
template sf::status run_all<cfg3, sf::f32>(const sf::encoder_weights<cfg3, sf::f32>&, const float*, float*);
template sf::status run_all<cfg, sf::f16>(const sf::encoder_weights<cfg, sf::f16>&, const float*, float*);
template sf::status run_all<cfg2, sf::f16>(const sf::encoder_weights<cfg2, sf::f16>&, const float*, float*);
template sf::status run_all<cfg3, sf::f16>(const sf::encoder_weights<cfg3, sf::f16>&, const float*, float*);
template sf::status run_all<cfg, sf::int8>(const sf::encoder_weights<cfg, sf::int8>&, const std::int16_t*, std::int16_t*);
template sf::status run_all<cfg2, sf::int8>(const sf::encoder_weights<cfg2, sf::int8>&, const std::int16_t*, std::int16_t*);
template sf::status run_all<cfg3, sf::int8>(const sf::encoder_weights<cfg3, sf::int8>&, const std::int16_t*, std::int16_t*);
using cfg4 = sf::encoder_config<8, 2, 16, 4, 1, sf::rotary_interleaved<160000>>;
using cfg5 = sf::encoder_config<8, 2, 16, 4, 1, sf::rotary<>, sf::glu, sf::rms_norm, sf::kv_heads<1>>;
static_assert(cfg4::is_rotary && cfg4::rotary_theta == 160000 && cfg5::rotary_theta == 10000, "");
template sf::status run_all<cfg4, sf::f32>(const sf::encoder_weights<cfg4, sf::f32>&, const float*, float*);
template sf::status run_all<cfg5, sf::f16>(const sf::encoder_weights<cfg5, sf::f16>&, const float*, float*);
template sf::status run_all<cfg5, sf::int8>(const sf::encoder_weights<cfg5, sf::int8>&, const std::int16_t*, std::int16_t*);
static_assert(2 * sizeof(sf::encoder_weights<cfg, sf::f16>) == sizeof(sf::encoder_weights<cfg, sf::f32>), "");
static_assert(2 * sizeof(sf::encoder_weights<cfg3, sf::f16>) == sizeof(sf::encoder_weights<cfg3, sf::f32>), "");

// ---- encoder_config: dimensions -------------------------------------------------------------
#elif CASE == 1
constexpr auto probe = instantiate<sf::encoder_config<0, 2, 16, 4, 1>>;
#elif CASE == 2
constexpr auto probe = instantiate<sf::encoder_config<-8, 2, 16, 4, 1>>;
#elif CASE == 3
constexpr auto probe = instantiate<sf::encoder_config<8, 0, 16, 4, 1>>;
#elif CASE == 4
constexpr auto probe = instantiate<sf::encoder_config<8, -2, 16, 4, 1>>;
#elif CASE == 5
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 0, 4, 1>>;
#elif CASE == 6
constexpr auto probe = instantiate<sf::encoder_config<8, 2, -16, 4, 1>>;
#elif CASE == 7
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 0, 1>>;
#elif CASE == 8
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, -4, 1>>;
#elif CASE == 9
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 0>>;
#elif CASE == 10
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, -1>>;
#elif CASE == 11
constexpr auto probe = instantiate<sf::encoder_config<10, 3, 16, 4, 1>>;
#elif CASE == 12  // 3 * d_model * d_model >= 2^31
constexpr auto probe = instantiate<sf::encoder_config<32768, 1, 16, 4, 1>>;
#elif CASE == 13  // d_model * d_ff >= 2^31
constexpr auto probe = instantiate<sf::encoder_config<8, 2, (1 << 28), 4, 1>>;
#elif CASE == 14  // seq_len * 3 * d_model >= 2^31
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, (1 << 27), 1>>;
#elif CASE == 15  // seq_len * d_ff >= 2^31
constexpr auto probe = instantiate<sf::encoder_config<8, 2, (1 << 16), (1 << 15), 1>>;

// ---- encoder_config: options ----------------------------------------------------------------
#elif CASE == 20
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, int>>;
#elif CASE == 21  // a precision is not an option
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::pre_norm, sf::f32>>;
#elif CASE == 22
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::pre_norm, sf::post_norm>>;
#elif CASE == 23
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::pre_norm, sf::pre_norm>>;
#elif CASE == 24
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::relu, sf::gelu>>;
#elif CASE == 25
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::gelu, sf::gelu_tanh>>;
#elif CASE == 26
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::final_norm, sf::final_norm>>;
#elif CASE == 27
constexpr auto probe =
    instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::layer_norm_eps<1, -5>, sf::layer_norm_eps<1, -6>>>;
#elif CASE == 28
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::layer_norm_eps<0, -5>>>;
#elif CASE == 29
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::layer_norm_eps<-1, -5>>>;
#elif CASE == 30
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::layer_norm_eps<1, 1>>>;
#elif CASE == 31
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::layer_norm_eps<1, -31>>>;
#elif CASE == 32
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::tile_rows<2>, sf::tile_rows<4>>>;
#elif CASE == 33
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::tile_rows<0>>>;
#elif CASE == 34
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::tile_rows<-2>>>;
#elif CASE == 35
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::rotary<>, sf::rotary_interleaved<>>>;
#elif CASE == 36
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::rotary<1>>>;
#elif CASE == 37
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::rotary_interleaved<10001>>>;
#elif CASE == 38  // head_dim 3
constexpr auto probe = instantiate<sf::encoder_config<6, 2, 16, 4, 1, sf::rotary<10000>>>;
#elif CASE == 39
constexpr auto probe = instantiate<sf::encoder_config<12, 4, 16, 4, 1, sf::kv_heads<3>>>;
#elif CASE == 53
constexpr auto probe = instantiate<sf::encoder_config<12, 4, 16, 4, 1, sf::kv_heads<0>>>;
#elif CASE == 54
constexpr auto probe = instantiate<sf::encoder_config<12, 4, 16, 4, 1, sf::kv_heads<2>, sf::kv_heads<1>>>;

// ---- encoder ----------------------------------------------------------------------------------
#elif CASE == 40
constexpr auto probe = instantiate<sf::encoder<int>>;
#elif CASE == 41
constexpr auto probe = instantiate<sf::encoder<ok_cfg, double>>;
#elif CASE == 43  // int8 accumulators bound d_model
constexpr auto probe = instantiate<sf::encoder<sf::encoder_config<8192, 1, 8, 1, 1>, sf::int8>>;
#elif CASE == 44
constexpr auto probe = instantiate<sf::encoder<ok_cfg, sf::f32, int>>;
#elif CASE == 45  // the precision where the backend goes
constexpr auto probe = instantiate<sf::encoder<ok_cfg, sf::f32, sf::f32>>;
#elif CASE == 46  // compiled with -DSTATICFORMER_NO_SIMD
constexpr auto probe = instantiate<sf::encoder<ok_cfg, sf::f32, sf::simd>>;
#elif CASE == 47  // compiled with -DSTATICFORMER_NO_SIMD: the free function checks the backend too
sf::status run(const sf::encoder_weights<ok_cfg, sf::f32>& w, sf::workspace<ok_cfg>& ws, const float* x,
               float* y) {
    return sf::forward<sf::simd>(w, ws, x, y, ok_cfg::seq_len);
}
#elif CASE == 49  // on the host: no Cortex-M DSP extension
constexpr auto probe = instantiate<sf::encoder<ok_cfg, sf::int8, sf::cortex_m_dsp>>;
#elif CASE == 50  // its former name, through the free function
sf::status run(const sf::encoder_weights<ok_cfg, sf::int8>& w, sf::workspace_int8<ok_cfg>& ws, const std::int16_t* x,
               std::int16_t* y) {
    return sf::forward<sf::ports::cortex_m_dsp>(w, ws, x, y, ok_cfg::seq_len);
}
#elif CASE == 52  // on the host: no Helium
constexpr auto probe = instantiate<sf::encoder<ok_cfg, sf::int8, sf::cortex_m_mve>>;
#elif CASE == 51  // on the host: no ARMv7 NEON
constexpr auto probe = instantiate<sf::encoder<ok_cfg, sf::int8, sf::armv7_neon>>;
#elif CASE == 48  // the int8 softmax sum bounds seq_len
constexpr auto probe = instantiate<sf::encoder_weights<sf::encoder_config<8, 1, 8, 70000, 1>, sf::int8>>;

// ---- model_config and model -------------------------------------------------------------------
#elif CASE == 60
constexpr auto probe = instantiate<sf::model_config<int, sf::token_input<4>>>;
#elif CASE == 61
constexpr auto probe = instantiate<sf::model_config<ok_cfg, sf::relu>>;
#elif CASE == 62
constexpr auto probe = instantiate<sf::model_config<ok_cfg, sf::token_input<4>, sf::relu>>;
#elif CASE == 63
constexpr auto probe =
    instantiate<sf::model_config<ok_cfg, sf::token_input<4>, sf::sinusoidal_positions, sf::learned_positions>>;
#elif CASE == 64
constexpr auto probe = instantiate<sf::model_config<ok_cfg, sf::token_input<4>, sf::cls_token, sf::cls_pooling,
                                                    sf::mean_pooling>>;
#elif CASE == 65
constexpr auto probe = instantiate<sf::model_config<ok_cfg, sf::token_input<4>, sf::classifier_head<3>>>;
#elif CASE == 66
constexpr auto probe = instantiate<sf::model_config<ok_cfg, sf::token_input<4>, sf::pooled_norm>>;
#elif CASE == 74
constexpr auto probe =
    instantiate<sf::model_config<ok_cfg, sf::token_input<4>, sf::mean_pooling, sf::pooled_norm_eps<1, -6>>>;
#elif CASE == 75
constexpr auto probe = instantiate<sf::model_config<ok_cfg, sf::token_input<4>, sf::embedding_norm_eps<1, -6>>>;
#elif CASE == 76
constexpr auto probe = instantiate<sf::encoder_config<8, 2, 16, 4, 1, sf::final_norm_eps<1, -6>>>;
#elif CASE == 77
constexpr auto probe = instantiate<sf::model_config<ok_cfg, sf::token_input<4>, sf::embedding_norm,
                                                    sf::embedding_norm_eps<1, 2>>>;
#elif CASE == 78  // an encoder blob has one epsilon field
using own_final = sf::encoder_config<8, 2, 16, 4, 1, sf::final_norm, sf::final_norm_eps<1, -6>>;
sf::status run(const sf::encoder_weights<own_final, sf::f32>& w, void* blob) { return sf::write_blob(w, blob, 1); }
#elif CASE == 67  // ok_cfg has 4 rows: a 4x4 image in 2x2 patches has 4, plus the CLS token 5
constexpr auto probe = instantiate<sf::model_config<ok_cfg, sf::patch_input<1, 4, 4, 2>, sf::cls_token>>;
#elif CASE == 68
constexpr auto probe = instantiate<sf::model_config<ok_cfg, sf::patch_input<1, 5, 4, 2>>>;
#elif CASE == 69
constexpr auto probe = instantiate<sf::model_config<ok_cfg, sf::feature_input<3>, sf::scale_embedding>>;
#elif CASE == 70
constexpr auto probe = instantiate<sf::model_config<ok_cfg, sf::token_input<0>>>;
#elif CASE == 71  // classify() on a model without a head
using m = sf::model_config<ok_cfg, sf::token_input<4>, sf::mean_pooling>;
sf::status run(sf::model<m, sf::f32, sf::reference>& model, const std::int32_t* ids, float* out) {
    return model.classify(ids, out, nullptr);
}
#elif CASE == 72
constexpr auto probe = instantiate<sf::model<sf::model_config<ok_cfg, sf::token_input<4>>, double>>;
#elif CASE == 73
constexpr auto probe = instantiate<sf::model<ok_cfg>>;

#else
#error "unknown CASE"
#endif
