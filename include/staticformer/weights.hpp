// staticformer: encoder_weights, the weights blob format and its zero-copy loader.
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
#include <cstring>
#include <type_traits>

#include "config.hpp"
#include "math/fp16.hpp"
#include "status.hpp"
#include "weights_int8.hpp"

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
// but 512-bit kernels whose weight rows straddle cache lines run slower (f32 encoder, AVX-512,
// median pass with the weights on a boundary and 4 to 48 bytes past one: mini 8.8 and 9.9..10.3
// ms, wide 28.4 and 31.1..32.0 ms). The exporters' headers declare their objects
// alignas(weights_alignment); a blob's payload starts blob::header_bytes (64) after the blob,
// so a blob at a 64-byte boundary has it too. Declare your own weight objects the same way.
inline constexpr std::size_t weights_alignment = 64;

template <class Cfg, class T>
struct layer_weights {
    static constexpr int D = Cfg::d_model;
    static constexpr int F = Cfg::d_ff;
    T qkv_w[D][3 * D];  // columns [0, D) query, [D, 2D) key, [2D, 3D) value
    T qkv_b[3 * D];
    T out_w[D][D];
    T out_b[D];
    T ff1_w[D][F];
    T ff1_b[F];
    T ff2_w[F][D];
    T ff2_b[D];
    T norm1_gamma[D];
    T norm1_beta[D];
    T norm2_gamma[D];
    T norm2_beta[D];
    // Parameters of one layer.
    static constexpr std::size_t parameter_count =
        std::size_t(D) * 3 * D + 3 * D + std::size_t(D) * D + D + std::size_t(D) * F + F + std::size_t(F) * D + D + 4 * D;
};
template <class Cfg>
using layer_weights_f32 = layer_weights<Cfg, float>;

template <int D, bool Present, class T = float>
struct final_norm_weights {
    T gamma[D];
    T beta[D];
};
template <int D, class T>
struct final_norm_weights<D, false, T> {};

template <class Cfg, class P>
struct encoder_weights {
    static_assert(is_encoder_config<Cfg>::value, "encoder_weights needs an encoder_config");
    static_assert(std::is_same<P, f32>::value || std::is_same<P, f16>::value,
                  "precision must be staticformer::f32, f16 or int8");
    using config = Cfg;
    using precision = P;
    using element = weight_element_t<P>;  // float, or std::uint16_t holding binary16 bits
    // Parameters of the whole encoder; sizeof(encoder_weights) is parameter_count elements, plus
    // one element of padding when there is no final norm (an empty member still takes a byte).
    static constexpr std::size_t parameter_count = std::size_t(Cfg::layers) * layer_weights<Cfg, element>::parameter_count +
                                                   (Cfg::has_final_norm ? 2 * Cfg::d_model : 0);

    layer_weights<Cfg, element> layer[Cfg::layers];
    final_norm_weights<Cfg::d_model, Cfg::has_final_norm, element> final_norm;

    static_assert(sizeof(layer_weights<Cfg, element>) == layer_weights<Cfg, element>::parameter_count * sizeof(element),
                  "layer_weights: parameter_count covers every member, without padding");
};

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
    constexpr std::size_t D = Cfg::d_model, F = Cfg::d_ff;
    for (int l = 0; l < Cfg::layers; ++l) {
        const auto& a = in.layer[l];
        auto& b = out.layer[l];
        detail::convert_array(&a.qkv_w[0][0], &b.qkv_w[0][0], D * 3 * D);
        detail::convert_array(a.qkv_b, b.qkv_b, 3 * D);
        detail::convert_array(&a.out_w[0][0], &b.out_w[0][0], D * D);
        detail::convert_array(a.out_b, b.out_b, D);
        detail::convert_array(&a.ff1_w[0][0], &b.ff1_w[0][0], D * F);
        detail::convert_array(a.ff1_b, b.ff1_b, F);
        detail::convert_array(&a.ff2_w[0][0], &b.ff2_w[0][0], F * D);
        detail::convert_array(a.ff2_b, b.ff2_b, D);
        detail::convert_array(a.norm1_gamma, b.norm1_gamma, D);
        detail::convert_array(a.norm1_beta, b.norm1_beta, D);
        detail::convert_array(a.norm2_gamma, b.norm2_gamma, D);
        detail::convert_array(a.norm2_beta, b.norm2_beta, D);
    }
    if constexpr (Cfg::has_final_norm) {
        detail::convert_array(in.final_norm.gamma, out.final_norm.gamma, D);
        detail::convert_array(in.final_norm.beta, out.final_norm.beta, D);
    }
}

// ---- blob ----------------------------------------------------------------------------------
//
// Little-endian, 64-byte header followed by the payload: the bytes of encoder_weights<cfg, P>
// exactly as this library lays them out, so a loaded blob is used in place (zero copy).
//
//   off  size  field
//     0     4  magic "SFWB"
//     4     4  format version (2; version 1 f32 and f16 blobs, whose payloads are the same,
//              are read too)
//     8     4  header size in bytes (64)
//    12     4  byte-order mark 0x01020304 as written by the producer
//    16    20  d_model, heads, d_ff, seq_len, layers (uint32 each)
//    36     4  options: bit 0 pre_norm, bit 1 final_norm, bits 4..7 activation (0 relu,
//              1 gelu, 2 gelu_tanh)
//    40     4  LayerNorm epsilon (IEEE binary32 bits)
//    44     4  precision (0 f32, 1 f16, 2 int8); the payload holds float32 (f32) or binary16
//              (f16) values, or the int8 layout of weights_int8.hpp, little-endian
//    48     8  payload size in bytes
//    56     4  CRC-32 (IEEE 802.3, as zlib.crc32) of the payload
//    60     4  CRC-32 of header bytes [0, 60)
namespace blob {

// Version 2 changed the int8 payload only (weights_int8.hpp: every matrix on a 64-byte unit).
constexpr std::uint32_t version = 2;
template <class P>
constexpr bool reads_version(std::uint32_t v) noexcept {
    return v == version || (v == 1 && !std::is_same<P, int8>::value);
}
constexpr std::size_t header_bytes = 64;
constexpr std::uint32_t byte_order_mark = 0x01020304u;
constexpr char magic[4] = {'S', 'F', 'W', 'B'};

template <class P>
constexpr std::uint32_t precision_code = std::is_same<P, f32>::value ? 0u : std::is_same<P, f16>::value ? 1u : 2u;

template <class Cfg>
constexpr std::uint32_t options_code =
    (Cfg::norm_first ? 1u : 0u) | (Cfg::has_final_norm ? 2u : 0u) | (std::uint32_t(Cfg::activation) << 4);

inline std::uint32_t crc32(const unsigned char* p, std::size_t n, std::uint32_t crc = 0) noexcept {
    crc = ~crc;
    for (std::size_t i = 0; i < n; ++i) {
        crc ^= p[i];
        for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

struct header {
    char magic[4];
    std::uint32_t version;
    std::uint32_t header_bytes;
    std::uint32_t byte_order;
    std::uint32_t d_model, heads, d_ff, seq_len, layers;
    std::uint32_t options;
    std::uint32_t eps_bits;
    std::uint32_t precision;
    std::uint64_t payload_bytes;
    std::uint32_t payload_crc;
    std::uint32_t header_crc;
};
static_assert(sizeof(header) == header_bytes, "blob header layout");

template <class Cfg, class P>
constexpr std::size_t size = header_bytes + sizeof(encoder_weights<Cfg, P>);

template <class Cfg, class P>
inline header make_header(const encoder_weights<Cfg, P>& w) noexcept {
    header h{};
    std::memcpy(h.magic, magic, 4);
    h.version = version;
    h.header_bytes = header_bytes;
    h.byte_order = byte_order_mark;
    h.d_model = Cfg::d_model;
    h.heads = Cfg::heads;
    h.d_ff = Cfg::d_ff;
    h.seq_len = Cfg::seq_len;
    h.layers = Cfg::layers;
    h.options = options_code<Cfg>;
    std::memcpy(&h.eps_bits, &Cfg::eps, 4);
    h.precision = precision_code<P>;
    h.payload_bytes = sizeof(w);
    h.payload_crc = crc32(reinterpret_cast<const unsigned char*>(&w), sizeof(w));
    h.header_crc = crc32(reinterpret_cast<const unsigned char*>(&h), offsetof(header, header_crc));
    return h;
}

}  // namespace blob

// Writes the blob of `w` into dst (capacity bytes). Returns blob_too_small if it does not fit.
template <class Cfg, class P>
inline status write_blob(const encoder_weights<Cfg, P>& w, void* dst, std::size_t capacity) noexcept {
    if (dst == nullptr) return status::null_pointer;
    if (capacity < blob::size<Cfg, P>) return status::blob_too_small;
    const blob::header h = blob::make_header(w);
    std::memcpy(dst, &h, sizeof h);
    std::memcpy(static_cast<unsigned char*>(dst) + blob::header_bytes, &w, sizeof w);
    return status::ok;
}

// Validates a blob against Cfg and P and, on success, points `out` at the weights inside it
// (no copy: the blob must outlive the encoder). On failure `out` is left untouched.
template <class Cfg, class P>
inline status load_blob(const void* data, std::size_t size, const encoder_weights<Cfg, P>*& out) noexcept {
    using weights = encoder_weights<Cfg, P>;
    static_assert(std::is_trivially_copyable<weights>::value && std::is_standard_layout<weights>::value,
                  "weights must be plain data to be used in place");
    if (data == nullptr) return status::null_pointer;
    if (size < blob::header_bytes) return status::blob_too_small;
    const auto* bytes = static_cast<const unsigned char*>(data);
    blob::header h;
    std::memcpy(&h, bytes, sizeof h);
    if (std::memcmp(h.magic, blob::magic, 4) != 0) return status::blob_bad_magic;
    if (h.byte_order != blob::byte_order_mark) {
        const std::uint32_t swapped = 0x04030201u;
        return h.byte_order == swapped ? status::blob_bad_endianness : status::blob_bad_magic;
    }
    if (h.header_crc != blob::crc32(bytes, offsetof(blob::header, header_crc))) return status::blob_bad_checksum;
    if (!blob::reads_version<P>(h.version) || h.header_bytes != blob::header_bytes) return status::blob_bad_version;
    std::uint32_t eps_bits;
    std::memcpy(&eps_bits, &Cfg::eps, 4);
    if (h.d_model != std::uint32_t(Cfg::d_model) || h.heads != std::uint32_t(Cfg::heads) ||
        h.d_ff != std::uint32_t(Cfg::d_ff) || h.seq_len != std::uint32_t(Cfg::seq_len) ||
        h.layers != std::uint32_t(Cfg::layers) || h.options != blob::options_code<Cfg> || h.eps_bits != eps_bits)
        return status::blob_config_mismatch;
    if (h.precision != blob::precision_code<P>) return status::blob_precision_mismatch;
    if (h.payload_bytes != sizeof(weights)) return status::blob_bad_size;
    if (size - blob::header_bytes < sizeof(weights)) return status::blob_too_small;
    const unsigned char* payload = bytes + blob::header_bytes;
    if (h.payload_crc != blob::crc32(payload, sizeof(weights))) return status::blob_bad_checksum;
    if (reinterpret_cast<std::uintptr_t>(payload) % alignof(weights) != 0) return status::blob_misaligned;
    if constexpr (std::is_same<P, int8>::value)
        if (!is_valid(*reinterpret_cast<const weights*>(payload))) return status::blob_bad_quantization;
    out = reinterpret_cast<const weights*>(payload);
    return status::ok;
}

}  // namespace staticformer
