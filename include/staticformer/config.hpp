// staticformer: encoder_config, option tags, precisions, backends and the static rules a
// configuration must satisfy. A configuration that cannot work does not compile; each
// static_assert message names the rule it enforces.
#pragma once

#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#ifdef __FAST_MATH__
#error "staticformer: -ffast-math (or -Ofast) breaks the bit-exact arithmetic; build without it"
#endif
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0 && FLT_EVAL_METHOD != -1
#error "staticformer: float expressions must be evaluated in float (FLT_EVAL_METHOD == 0); on 32-bit x86 use -msse2 -mfpmath=sse"
#endif

// STATICFORMER_HAS_SIMD: 1 where the simd backend exists and is bit-exact: xsimd is available,
// the target has a hardware FMA and its vector unit follows IEEE 754 like its scalar unit:
// x86-64 with FMA3 or AVX-512, and AArch64. Not ARMv7: its NEON unit flushes subnormals to
// zero while VFP keeps them (an example: bench/PERF_NOTES.md), so there float stays on the
// reference kernels (int8 runs on NEON: armv7_neon below).
// Define STATICFORMER_NO_SIMD to force the reference backend everywhere.
#ifndef STATICFORMER_HAS_SIMD
#if !defined(STATICFORMER_NO_SIMD) && defined(__has_include)
#if __has_include(<xsimd/xsimd.hpp>) && (defined(__FMA__) || defined(__AVX512F__) || defined(__aarch64__))
#define STATICFORMER_HAS_SIMD 1
#endif
#endif
#ifndef STATICFORMER_HAS_SIMD
#define STATICFORMER_HAS_SIMD 0
#endif
#endif

// STATICFORMER_OUT_OF_LINE: one function, never inlined, where the heuristics get it wrong:
// -O3 inlines the int8 reference linear layers into the encoder, where they lose registers to
// the caller (Cortex-M4: 28% more instructions than at -O2).
// STATICFORMER_ALWAYS_INLINE: a building block of a few instructions that must sit in its
// caller's loop at every -O level (-Os leaves even a 4-element widening out of line).
#if defined(__GNUC__)
#define STATICFORMER_OUT_OF_LINE __attribute__((noinline))
#define STATICFORMER_ALWAYS_INLINE inline __attribute__((always_inline))
#define STATICFORMER_FLATTEN __attribute__((flatten))
#else
#define STATICFORMER_OUT_OF_LINE
#define STATICFORMER_ALWAYS_INLINE inline
#define STATICFORMER_FLATTEN
#endif

// STATICFORMER_HAS_CORTEX_M_DSP: 1 on Arm M-profile cores with the DSP extension (Cortex-M4,
// M7, M33, M55), where the cortex_m_dsp backend exists (its int8 kernels use SMLAD / SXTB16 and
// give the reference's bytes). Define STATICFORMER_NO_CORTEX_M_DSP to keep the reference there.
#ifndef STATICFORMER_HAS_CORTEX_M_DSP
#if !defined(STATICFORMER_NO_CORTEX_M_DSP) && defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M' && \
    defined(__ARM_FEATURE_DSP)
#define STATICFORMER_HAS_CORTEX_M_DSP 1
#else
#define STATICFORMER_HAS_CORTEX_M_DSP 0
#endif
#endif

// STATICFORMER_HAS_CORTEX_M_MVE: 1 on Arm M-profile cores with Helium's integer vectors
// (Armv8.1-M MVE: Cortex-M55, M85), where the cortex_m_mve backend exists and is the default.
// Define STATICFORMER_NO_CORTEX_M_MVE to keep cortex_m_dsp the default there.
#ifndef STATICFORMER_HAS_CORTEX_M_MVE
#if !defined(STATICFORMER_NO_CORTEX_M_MVE) && STATICFORMER_HAS_CORTEX_M_DSP && defined(__ARM_FEATURE_MVE)
#define STATICFORMER_HAS_CORTEX_M_MVE 1
#else
#define STATICFORMER_HAS_CORTEX_M_MVE 0
#endif
#endif

// STATICFORMER_HAS_ARMV7_NEON: 1 on 32-bit Arm A/R-profile targets with NEON (-mfpu=neon*),
// where the armv7_neon backend exists: the simd backend's int8 kernels on NEON's integer
// instructions (exact: the flush-to-zero above concerns floats only), float on the reference
// kernels. Define STATICFORMER_NO_ARMV7_NEON to keep the reference there.
#ifndef STATICFORMER_HAS_ARMV7_NEON
#if !defined(STATICFORMER_NO_ARMV7_NEON) && defined(__arm__) && !defined(__aarch64__) && defined(__ARM_NEON)
#define STATICFORMER_HAS_ARMV7_NEON 1
#else
#define STATICFORMER_HAS_ARMV7_NEON 0
#endif
#endif

// The target as the backends' compile errors name it.
#if defined(__x86_64__) || defined(_M_X64)
#define STATICFORMER_TARGET_NAME "x86-64"
#elif defined(__aarch64__)
#define STATICFORMER_TARGET_NAME "AArch64"
#elif defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define STATICFORMER_TARGET_NAME "Arm M-profile (Cortex-M)"
#elif defined(__arm__)
#define STATICFORMER_TARGET_NAME "32-bit Arm A/R-profile"
#elif defined(__riscv)
#define STATICFORMER_TARGET_NAME "RISC-V"
#else
#define STATICFORMER_TARGET_NAME "an unnamed target"
#endif

namespace staticformer {

// ---- option tags ---------------------------------------------------------------------------
struct post_norm {};   // H = LN(X + MHA(X)), as torch's default norm_first=False
struct pre_norm {};    // H = X + MHA(LN(X)), torch's norm_first=True
struct relu {};
struct gelu {};        // exact GELU, x * Phi(x)
struct gelu_tanh {};   // tanh approximation of GELU
struct silu {};        // x * sigmoid(x) (torch's F.silu, nn.SiLU)
struct final_norm {};  // a LayerNorm after the last layer (TransformerEncoder(norm=...))
// Row i attends to rows 0..i only, as torch's generate_square_subsequent_mask; the masked
// scores are never computed.
struct causal {};
// torch's bias=False, each on its own: no_bias drops the biases of the encoder layers' linear
// layers (attention projections, feed-forward), no_norm_bias the LayerNorms' beta. The weights
// then hold no such arrays (weights.hpp), and the kernels add nothing in their place.
struct no_bias {};
struct no_norm_bias {};
// RMSNorm in place of every LayerNorm (the final one too): y = x / sqrt(mean(x^2) + eps) * gamma,
// with layer_norm_eps as its eps. It has no beta, as no_norm_bias.
struct rms_norm {};
// A gated feed-forward: W2 (act(x W1) * (x W3)), d_ff the width of each of W1 and W3; with silu
// it is SwiGLU, with gelu GeGLU, with relu ReGLU. W1 and W3 are stored side by side as one
// matrix [d_model][2 d_ff], as the attention's projections are (weights.hpp).
struct glu {};
// Grouped-query attention: N key and value heads, each shared by heads / N query heads (query
// head h reads key and value head h / (heads / N)); kv_heads<1> is multi-query attention. The
// key and value projections then have N * head_dim outputs each. Without it, kv_heads = heads.
template <int N>
struct kv_heads {};
// Rotary position embedding on the queries and keys of every layer's attention (before the
// 1 / sqrt(head_dim) scale): each head's dimension pairs turned by the angle pos * Theta^(-2i /
// head_dim), pos the row's index in the sequence. rotary pairs dimension i with i + head_dim / 2
// (rotate-halves: GPT-NeoX, Llama, ModernBERT), rotary_interleaved 2i with 2i + 1 (GPT-J). Theta
// is an integer M * 10^E with M < 4096 (the blob stores it so): 10000, 160000, 500000, 1000000.
template <int Theta = 10000>
struct rotary {};
template <int Theta = 10000>
struct rotary_interleaved {};

// LayerNorm epsilon = Mantissa * 10^Exponent10, e.g. layer_norm_eps<1, -6> is 1e-6.
template <int Mantissa, int Exponent10>
struct layer_norm_eps {};
// The final norm's own epsilon, where it differs from the layers' (a model's LayerNorm at 1e-6
// after torch's layers at 1e-5). Only a model blob records it (blob.hpp).
template <int Mantissa, int Exponent10>
struct final_norm_eps {};

// Rows of the sequence processed together by the row-wise stages (projections, FFN). Larger
// tiles let SIMD kernels reuse each weight load across rows; smaller tiles save RAM. The tile
// never changes a result. Without this option the tile depends on the backend (encoder.hpp,
// tile_for): 4 rows for the reference backend (scalar cores, scarce RAM), up to a whole
// sequence for the simd backend.
template <int Rows>
struct tile_rows {};

// ---- precisions and backends ---------------------------------------------------------------
struct f32 {};
struct f16 {};
struct int8 {};
struct a16w8 {};  // int8 weights, int16 activations (weights_a16w8.hpp)

struct reference {};     // normative scalar kernels
struct simd {};          // xsimd / intrinsics kernels (x86-64, AArch64), bit-identical to reference
struct cortex_m_dsp {};  // Cortex-M DSP extension (SMLAD) int8 kernels, bit-identical to reference
struct cortex_m_mve {};  // Cortex-M Helium (MVE) int8 kernels, bit-identical to reference
struct armv7_neon {};    // ARMv7-A NEON int8 kernels (float: reference), bit-identical to reference

// The fastest bit-exact backend of the target (armv7_neon, cortex_m_mve and cortex_m_dsp: int8
// kernels of their own, float the reference's).
#if STATICFORMER_HAS_SIMD
using default_backend = simd;
#elif STATICFORMER_HAS_CORTEX_M_MVE
using default_backend = cortex_m_mve;
#elif STATICFORMER_HAS_CORTEX_M_DSP
using default_backend = cortex_m_dsp;
#elif STATICFORMER_HAS_ARMV7_NEON
using default_backend = armv7_neon;
#else
using default_backend = reference;
#endif

namespace ports {
using cortex_m_dsp = staticformer::cortex_m_dsp;  // its first name, when it lived in the Cortex-M port
}

enum class activation_kind { relu, gelu, gelu_tanh, silu };  // (the blob's activation codes)
enum class rotary_layout { none, halves, interleaved };         // (the blob's rotary codes)

namespace detail {

template <class T, class... Ts>
constexpr int count_of = (0 + ... + int(std::is_same<T, Ts>::value));

// An epsilon option of kind Kind (layer_norm_eps, final_norm_eps, ...).
template <template <int, int> class Kind, class T>
struct is_eps_of : std::false_type {};
template <template <int, int> class Kind, int M, int E>
struct is_eps_of<Kind, Kind<M, E>> : std::true_type {
    static constexpr int mantissa = M;
    static constexpr int exponent10 = E;
};
template <class T>
using is_eps = is_eps_of<layer_norm_eps, T>;
template <class T>
using is_final_eps = is_eps_of<final_norm_eps, T>;

template <class T>
struct is_rotary : std::false_type {};
template <int Theta>
struct is_rotary<rotary<Theta>> : std::true_type {
    static constexpr rotary_layout layout = rotary_layout::halves;
    static constexpr int theta = Theta;
};
template <int Theta>
struct is_rotary<rotary_interleaved<Theta>> : std::true_type {
    static constexpr rotary_layout layout = rotary_layout::interleaved;
    static constexpr int theta = Theta;
};
template <>
struct is_rotary<void> {
    static constexpr rotary_layout layout = rotary_layout::none;
    static constexpr int theta = 0;
};

// Theta as the blob's 16 bits: mantissa M < 4096 (bits 0..11) and exponent E < 16 (bits 12..15)
// of the smallest E with Theta = M * 10^E; 0 where Theta has no such form.
constexpr std::uint32_t theta_code(int theta) {
    int e = 0;
    while (theta > 0 && theta % 10 == 0 && theta >= 4096) theta /= 10, ++e;
    return theta > 0 && theta < 4096 && e < 16 ? std::uint32_t(theta) | std::uint32_t(e) << 12 : 0u;
}
static_assert(theta_code(10000) == (1000u | 1u << 12) && theta_code(12) == 12u, "");
static_assert(theta_code(1000000) == (1000u | 3u << 12) && theta_code(160000) == (1600u | 2u << 12), "");
static_assert(theta_code(4097) == 0 && theta_code(0) == 0 && theta_code(4095) == 4095u, "");

template <class T>
struct is_kv_heads : std::false_type {};
template <int N>
struct is_kv_heads<kv_heads<N>> : std::true_type {
    static constexpr int count = N;
};

template <class T>
struct is_tile : std::false_type {};
template <int R>
struct is_tile<tile_rows<R>> : std::true_type {
    static constexpr int rows = R;
};

template <class T>
constexpr bool is_known_option =
    std::is_same<T, post_norm>::value || std::is_same<T, pre_norm>::value ||
    std::is_same<T, relu>::value || std::is_same<T, gelu>::value ||
    std::is_same<T, gelu_tanh>::value || std::is_same<T, silu>::value || std::is_same<T, final_norm>::value ||
    std::is_same<T, causal>::value || std::is_same<T, no_bias>::value || std::is_same<T, no_norm_bias>::value ||
    std::is_same<T, rms_norm>::value || std::is_same<T, glu>::value || is_rotary<T>::value || is_kv_heads<T>::value ||
    is_eps<T>::value || is_final_eps<T>::value || is_tile<T>::value;

// The first option satisfying Pred, else Default.
template <template <class> class Pred, class Default, class... Ts>
struct find_option {
    using type = Default;
};
template <template <class> class Pred, class Default, class T, class... Ts>
struct find_option<Pred, Default, T, Ts...> {
    using type = std::conditional_t<Pred<T>::value, T,
                                    typename find_option<Pred, Default, Ts...>::type>;
};

// Mantissa * 10^Exponent10, computed in double then rounded once to float.
constexpr double pow10(int e) {
    double r = 1.0;
    for (int i = 0; i < (e < 0 ? -e : e); ++i) r *= 10.0;
    return e < 0 ? 1.0 / r : r;
}

// The epsilon option of kind Kind among Options: how often it is given, whether it is in range
// (mantissa > 0, exponent in [-30, 0]) and its value, Mantissa * 10^Exponent10 rounded once to
// float (1 when absent).
template <template <int, int> class Kind, class... Options>
struct eps_option {
    template <class T>
    using is = is_eps_of<Kind, T>;
    static constexpr int count = (0 + ... + int(is<Options>::value));
    using option = typename find_option<is, Kind<1, 0>, Options...>::type;
    static constexpr int mantissa = is<option>::mantissa, exponent10 = is<option>::exponent10;
    static constexpr bool in_range = mantissa > 0 && exponent10 >= -30 && exponent10 <= 0;
    static constexpr float value = float(mantissa * pow10(exponent10));
};

constexpr long long max_index = (1LL << 31) - 1;

}  // namespace detail

template <int DModel, int Heads, int DFF, int SeqLen, int Layers, class... Options>
struct encoder_config {
    static_assert(DModel > 0, "d_model must be positive");
    static_assert(Heads > 0, "heads must be positive");
    static_assert(DFF > 0, "d_ff must be positive");
    static_assert(SeqLen > 0, "seq_len must be positive");
    static_assert(Layers > 0, "layers must be positive");
    static_assert(Heads <= 0 || DModel % Heads == 0, "d_model must be divisible by heads");
    static_assert((true && ... && detail::is_known_option<Options>),
                  "unknown encoder option: use pre_norm, post_norm, relu, gelu, gelu_tanh, silu, "
                  "final_norm, causal, no_bias, no_norm_bias, rms_norm, glu, rotary<Theta>, "
                  "rotary_interleaved<Theta>, kv_heads<N>, layer_norm_eps<M, E>, final_norm_eps<M, E> or tile_rows<N>");
    static_assert(detail::count_of<pre_norm, Options...> + detail::count_of<post_norm, Options...> <= 1,
                  "choose at most one of pre_norm and post_norm");
    static_assert(detail::count_of<relu, Options...> + detail::count_of<gelu, Options...> +
                          detail::count_of<gelu_tanh, Options...> + detail::count_of<silu, Options...> <= 1,
                  "choose at most one activation: relu, gelu, gelu_tanh or silu");
    static_assert(detail::count_of<final_norm, Options...> <= 1, "final_norm given twice");
    static_assert(detail::count_of<causal, Options...> <= 1, "causal given twice");
    static_assert(detail::count_of<no_bias, Options...> <= 1, "no_bias given twice");
    static_assert(detail::count_of<no_norm_bias, Options...> <= 1, "no_norm_bias given twice");
    static_assert(detail::count_of<rms_norm, Options...> <= 1, "rms_norm given twice");
    static_assert(detail::count_of<glu, Options...> <= 1, "glu given twice");
    static_assert((0 + ... + int(detail::is_rotary<Options>::value)) <= 1,
                  "choose at most one of rotary<Theta> and rotary_interleaved<Theta>");
    static_assert((0 + ... + int(detail::is_kv_heads<Options>::value)) <= 1, "kv_heads given twice");
    static_assert((0 + ... + int(detail::is_eps<Options>::value)) <= 1,
                  "layer_norm_eps given twice");
    static_assert((0 + ... + int(detail::is_tile<Options>::value)) <= 1, "tile_rows given twice");

    static constexpr int d_model = DModel;
    static constexpr int heads = Heads;
    static constexpr int d_ff = DFF;
    static constexpr int seq_len = SeqLen;
    static constexpr int layers = Layers;
    static constexpr int head_dim = Heads > 0 ? DModel / Heads : 1;
    using kv_heads_option = typename detail::find_option<detail::is_kv_heads, staticformer::kv_heads<Heads>, Options...>::type;
    static constexpr int kv_heads = detail::is_kv_heads<kv_heads_option>::count;
    static_assert(Heads < 65536, "heads must be below 65536 (the blob stores it in 16 bits)");
    static_assert(kv_heads > 0, "kv_heads must be positive");
    static_assert(kv_heads <= 0 || Heads % kv_heads == 0, "kv_heads must divide heads");
    static constexpr int kv_group = kv_heads > 0 && Heads % kv_heads == 0 ? Heads / kv_heads : 1;  // query heads a key head serves
    static constexpr int kv_dim = kv_heads * head_dim;     // outputs of the key and of the value projection
    static constexpr int qkv_width = DModel + 2 * kv_dim;  // outputs of the three projections

    static constexpr bool norm_first = detail::count_of<pre_norm, Options...> == 1;
    static constexpr bool has_final_norm = detail::count_of<final_norm, Options...> == 1;
    static constexpr bool is_causal = detail::count_of<causal, Options...> == 1;
    static constexpr bool has_bias = detail::count_of<no_bias, Options...> == 0;
    static constexpr bool is_rms_norm = detail::count_of<rms_norm, Options...> == 1;
    static constexpr bool is_gated = detail::count_of<glu, Options...> == 1;
    static constexpr int ff1_width = (is_gated ? 2 : 1) * DFF;  // outputs of the first FFN matrix
    static constexpr bool has_norm_bias = detail::count_of<no_norm_bias, Options...> == 0 && !is_rms_norm;
    static constexpr activation_kind activation =
        detail::count_of<gelu, Options...>        ? activation_kind::gelu
        : detail::count_of<gelu_tanh, Options...> ? activation_kind::gelu_tanh
        : detail::count_of<silu, Options...>      ? activation_kind::silu
                                                  : activation_kind::relu;

    using rotary_option = typename detail::find_option<detail::is_rotary, void, Options...>::type;
    static constexpr rotary_layout rotary_kind = detail::is_rotary<rotary_option>::layout;
    static constexpr bool is_rotary = rotary_kind != rotary_layout::none;
    static constexpr int rotary_theta = detail::is_rotary<rotary_option>::theta;  // 0 without rotary
    static_assert(!is_rotary || rotary_theta > 1, "rotary theta must be greater than 1");
    static_assert(!is_rotary || detail::theta_code(rotary_theta) != 0,
                  "rotary theta must be M * 10^E with M < 4096 (the blob stores it so)");
    static_assert(!is_rotary || (DModel / (Heads > 0 ? Heads : 1)) % 2 == 0,
                  "rotary positions turn pairs of dimensions: head_dim (d_model / heads) must be even");

    using eps_option = typename detail::find_option<detail::is_eps, layer_norm_eps<1, -5>, Options...>::type;
    static constexpr int eps_mantissa = detail::is_eps<eps_option>::mantissa;
    static constexpr int eps_exponent10 = detail::is_eps<eps_option>::exponent10;
    static_assert(eps_mantissa > 0, "layer_norm_eps must be positive");
    static_assert(eps_exponent10 >= -30 && eps_exponent10 <= 0,
                  "layer_norm_eps exponent must lie in [-30, 0]");
    static constexpr float eps = float(eps_mantissa * detail::pow10(eps_exponent10));
    using final_eps_option = detail::eps_option<final_norm_eps, Options...>;
    static_assert(final_eps_option::count <= 1, "final_norm_eps given twice");
    static_assert(final_eps_option::count == 0 || has_final_norm, "final_norm_eps needs final_norm");
    static_assert(final_eps_option::in_range, "final_norm_eps must be positive, its exponent in [-30, 0]");
    // The final norm's epsilon: the layers' unless final_norm_eps gives its own.
    static constexpr float final_eps = final_eps_option::count ? final_eps_option::value : eps;

    using tile_option = typename detail::find_option<detail::is_tile, tile_rows<4>, Options...>::type;
    static_assert(detail::is_tile<tile_option>::rows > 0, "tile_rows must be positive");
    static constexpr bool tile_chosen = (0 + ... + int(detail::is_tile<Options>::value)) == 1;
    // tile_rows<N> if given, else 4 (the reference backend's tile). A tile never exceeds the
    // sequence.
    static constexpr int tile = detail::is_tile<tile_option>::rows < SeqLen
                                    ? detail::is_tile<tile_option>::rows : SeqLen;

    static_assert(3LL * DModel * DModel <= detail::max_index &&
                      (is_gated ? 2LL : 1LL) * DModel * DFF <= detail::max_index &&
                      1LL * SeqLen * 3 * DModel <= detail::max_index &&
                      (is_gated ? 2LL : 1LL) * SeqLen * DFF <= detail::max_index,
                  "dimensions too large: every weight matrix and activation must have fewer than 2^31 elements");
};

template <class T>
struct is_encoder_config : std::false_type {};
template <int D, int H, int F, int S, int L, class... O>
struct is_encoder_config<encoder_config<D, H, F, S, L, O...>> : std::true_type {};

// Rows per tile of an encoder of configuration Cfg on Backend: the configuration's tile_rows<N>
// if it names one; else 4 for the reference backend, and for the simd backend up to
// simd_tile_rows rows, so that every weight matrix streamed from memory serves that many rows
// (bench/RESULTS.md, "Tile: RAM against speed"; it costs tile x d_ff floats of workspace).
constexpr int simd_tile_rows = 128;
// The same for passes of up to Rows rows (a batch's, or a worker's share: parallel.hpp).
template <class Cfg, class Backend, int Rows>
constexpr int tile_for_rows = Cfg::tile_chosen || !std::is_same<Backend, simd>::value
                                  ? (Cfg::tile < Rows ? Cfg::tile : Rows)
                                  : (Rows < simd_tile_rows ? Rows : simd_tile_rows);
template <class Cfg, class Backend>
constexpr int tile_for = tile_for_rows<Cfg, Backend, Cfg::seq_len>;
// The tile of each of Workers workers sharing Rows rows (parallel.hpp).
template <class Cfg, class Backend, int Rows, int Workers>
constexpr int worker_tile = tile_for_rows<Cfg, Backend, (Rows + Workers - 1) / Workers>;

template <class P>
constexpr bool is_precision =
    std::is_same<P, f32>::value || std::is_same<P, f16>::value || std::is_same<P, int8>::value ||
    std::is_same<P, a16w8>::value;
// The integer precisions: integer weights and activations, an int16 residual stream.
template <class P>
constexpr bool is_integer_precision = std::is_same<P, int8>::value || std::is_same<P, a16w8>::value;

}  // namespace staticformer
