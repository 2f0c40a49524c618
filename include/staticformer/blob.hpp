// staticformer: the weights blob (.sfwb): its format, CRC-32, writer and zero-copy loader. The
// weights it carries are encoder_weights<cfg, P> (weights.hpp, weights_int8.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "config.hpp"
#include "model_weights.hpp"
#include "model_weights_int8.hpp"
#include "status.hpp"
#include "weights.hpp"
#include "weights_int8.hpp"

namespace staticformer {

// Little-endian, 64-byte header followed by the payload: the bytes of encoder_weights<cfg, P>
// exactly as this library lays them out, so a loaded blob is used in place (zero copy).
//
//   off  size  field
//     0     4  magic "SFWB"
//     4     4  format version (2; version 1 f32 and f16 blobs, whose payloads are the same,
//              are read too)
//     8     4  header size in bytes (64)
//    12     4  byte-order mark 0x01020304 as written by the producer
//    16    20  d_model, heads, d_ff, seq_len, layers (uint32 each); heads holds kv_heads in its
//              bits 16..31 where the configuration has kv_heads<N> with N < heads (heads_code)
//    36     4  options: bit 0 pre_norm, bit 1 final_norm, bit 2 causal, bits 4..7 activation,
//              bit 8 no_bias, bit 9 no_norm_bias, bit 10 rms_norm (which sets bit 9 too),
//              bit 11 glu, bits 12..13 rotary (0 none, 1 rotate-halves, 2 interleaved),
//              bits 16..31 rotary theta = M * 10^E as M (bits 16..27) and E (bits 28..31)
//              (activation: 0 relu, 1 gelu, 2 gelu_tanh, 3 silu)
//    40     4  LayerNorm epsilon (IEEE binary32 bits); an encoder blob holds one, so an
//              encoder whose final_norm_eps differs travels in a model blob
//    44     4  precision (0 f32, 1 f16, 2 int8, 3 a16w8); the payload holds float32 (f32) or
//              binary16 (f16) values, or the integer layout of weights_int8.hpp (weights_a16w8.hpp),
//              little-endian
//    48     8  payload size in bytes
//    56     4  CRC-32 (IEEE 802.3, as zlib.crc32) of the payload
//    60     4  CRC-32 of header bytes [0, 60)
namespace blob {

// Versions 2 and 3 changed the int8 payload only (weights_int8.hpp: 2, every matrix on a
// 64-byte unit; 3, the int16 residual stream's parameters); a16w8 is new in 3.
constexpr std::uint32_t version = 3;
template <class P>
constexpr bool reads_version(std::uint32_t v) noexcept {
    return v == version || (v >= 1 && v < version && !is_integer_precision<P>);
}
constexpr std::size_t header_bytes = 64;
constexpr std::uint32_t byte_order_mark = 0x01020304u;
constexpr char magic[4] = {'S', 'F', 'W', 'B'};
constexpr char model_magic[4] = {'S', 'F', 'W', 'M'};  // a model blob (model_header below)

template <class P>
constexpr std::uint32_t precision_code = std::is_same<P, f32>::value   ? 0u
                                         : std::is_same<P, f16>::value ? 1u
                                         : std::is_same<P, int8>::value ? 2u
                                                                        : 3u;

// The heads field: heads, and a grouped-query attention's key heads above (0: as many as heads).
template <class Cfg>
constexpr std::uint32_t heads_code =
    std::uint32_t(Cfg::heads) | (Cfg::kv_heads != Cfg::heads ? std::uint32_t(Cfg::kv_heads) << 16 : 0u);

template <class Cfg>
constexpr std::uint32_t options_code =
    (Cfg::norm_first ? 1u : 0u) | (Cfg::has_final_norm ? 2u : 0u) | (Cfg::is_causal ? 4u : 0u) |
    (std::uint32_t(Cfg::activation) << 4) | (Cfg::has_bias ? 0u : 0x100u) | (Cfg::has_norm_bias ? 0u : 0x200u) |
    (Cfg::is_rms_norm ? 0x400u : 0u) | (Cfg::is_gated ? 0x800u : 0u) | (std::uint32_t(Cfg::rotary_kind) << 12) |
    (Cfg::is_rotary ? detail::theta_code(Cfg::rotary_theta) << 16 : 0u);

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

// The fields both headers share (bytes [0, 56)), for an encoder Cfg with P weights of `bytes`.
template <class Cfg, class P, class Header>
inline void fill_common(Header& h, const char (&kind)[4], std::uint32_t v, std::size_t bytes) noexcept {
    std::memcpy(h.magic, kind, 4);
    h.version = v;
    h.header_bytes = sizeof(Header);
    h.byte_order = byte_order_mark;
    h.d_model = Cfg::d_model;
    h.heads = heads_code<Cfg>;
    h.d_ff = Cfg::d_ff;
    h.seq_len = Cfg::seq_len;
    h.layers = Cfg::layers;
    h.options = options_code<Cfg>;
    std::memcpy(&h.eps_bits, &Cfg::eps, 4);
    h.precision = precision_code<P>;
    h.payload_bytes = bytes;
}

// Checks of the shared fields after the magic: byte order, header CRC, version, encoder,
// precision. seq_len is not compared: no encoder weight depends on it, so a blob exported for
// one sequence length serves a build with any other (learned positions: load_blob of models).
template <class Cfg, class P, class Header>
inline status check_common(const Header& h, const unsigned char* bytes, bool version_read) noexcept {
    if (h.byte_order != byte_order_mark) {
        const std::uint32_t swapped = 0x04030201u;
        return h.byte_order == swapped ? status::blob_bad_endianness : status::blob_bad_magic;
    }
    if (h.header_crc != crc32(bytes, offsetof(Header, header_crc))) return status::blob_bad_checksum;
    if (!version_read || h.header_bytes != sizeof(Header)) return status::blob_bad_version;
    std::uint32_t eps_bits;
    std::memcpy(&eps_bits, &Cfg::eps, 4);
    if (h.d_model != std::uint32_t(Cfg::d_model) || h.heads != heads_code<Cfg> ||
        h.d_ff != std::uint32_t(Cfg::d_ff) || h.seq_len == 0 || h.layers != std::uint32_t(Cfg::layers) ||
        h.options != options_code<Cfg> || h.eps_bits != eps_bits)
        return status::blob_config_mismatch;
    if (h.precision != precision_code<P>) return status::blob_precision_mismatch;
    return status::ok;
}

// h with the CRCs of the payload w and of itself.
template <class Header, class W>
inline Header sealed(Header h, const W& w) noexcept {
    h.payload_crc = crc32(reinterpret_cast<const unsigned char*>(&w), sizeof(w));
    h.header_crc = crc32(reinterpret_cast<const unsigned char*>(&h), offsetof(Header, header_crc));
    return h;
}

// The header h, then the bytes of w, into dst (capacity bytes).
template <class Header, class W>
inline status write(const Header& h, const W& w, void* dst, std::size_t capacity) noexcept {
    if (dst == nullptr) return status::null_pointer;
    if (capacity < sizeof h + sizeof w) return status::blob_too_small;
    std::memcpy(dst, &h, sizeof h);
    std::memcpy(static_cast<unsigned char*>(dst) + sizeof h, &w, sizeof w);
    return status::ok;
}

template <class Cfg, class P>
inline header make_header(const encoder_weights<Cfg, P>& w) noexcept {
    static_assert(Cfg::final_eps == Cfg::eps, "an encoder blob records one LayerNorm epsilon: with final_norm_eps "
                                              "of its own the encoder travels in a model blob (or a header)");
    header h{};
    fill_common<Cfg, P>(h, magic, version, sizeof(w));
    return sealed(h, w);
}

}  // namespace blob

// The checks load_blob makes on the weights themselves, for weights that reach a device another
// way (their own flash partition, a DMA from a host): ok, or blob_non_finite (f32 / f16: a NaN or
// an infinity), or blob_bad_quantization (int8, a16w8: a parameter out of its kernel's range,
// weights_int8.hpp, weights_a16w8.hpp). Weights that pass give every backend the same bytes,
// with no overflow.
template <class W>
inline status check_weights(const W& w) noexcept {
    if (is_valid(w)) return status::ok;
    return is_integer_precision<typename W::precision> ? status::blob_bad_quantization : status::blob_non_finite;
}

// Writes the blob of `w` into dst (capacity bytes). Returns blob_too_small if it does not fit.
template <class Cfg, class P>
inline status write_blob(const encoder_weights<Cfg, P>& w, void* dst, std::size_t capacity) noexcept {
    return blob::write(blob::make_header(w), w, dst, capacity);
}

// Validates a blob against Cfg and P (header, size, CRC, alignment, then check_weights: every
// value in the range its kernel handles) and, on success, points `out` at the weights inside it
// (no copy: the blob must outlive the encoder). On failure `out` is left untouched.
template <class Cfg, class P>
inline status load_blob(const void* data, std::size_t size, const encoder_weights<Cfg, P>*& out) noexcept {
    using weights = encoder_weights<Cfg, P>;
    static_assert(std::is_trivially_copyable<weights>::value && std::is_standard_layout<weights>::value,
                  "weights must be plain data to be used in place");
    static_assert(Cfg::final_eps == Cfg::eps, "an encoder blob records one LayerNorm epsilon: with final_norm_eps "
                                              "of its own the encoder travels in a model blob (or a header)");
    if (data == nullptr) return status::null_pointer;
    if (size < blob::header_bytes) return status::blob_too_small;
    const auto* bytes = static_cast<const unsigned char*>(data);
    blob::header h;
    std::memcpy(&h, bytes, sizeof h);
    if (std::memcmp(h.magic, blob::model_magic, 4) == 0) return status::blob_kind_mismatch;
    if (std::memcmp(h.magic, blob::magic, 4) != 0) return status::blob_bad_magic;
    const status common = blob::check_common<Cfg, P>(h, bytes, blob::reads_version<P>(h.version));
    if (common != status::ok) return common;
    if (h.payload_bytes != sizeof(weights)) return status::blob_bad_size;
    if (size - blob::header_bytes < sizeof(weights)) return status::blob_too_small;
    const unsigned char* payload = bytes + blob::header_bytes;
    if (h.payload_crc != blob::crc32(payload, sizeof(weights))) return status::blob_bad_checksum;
    if (reinterpret_cast<std::uintptr_t>(payload) % alignof(weights) != 0) return status::blob_misaligned;
    const weights* loaded = reinterpret_cast<const weights*>(payload);
    const status values = check_weights(*loaded);
    if (values != status::ok) return values;
    out = loaded;
    return status::ok;
}

// ---- model blobs (.sfwm) -------------------------------------------------------------------
// A model_weights<model_cfg, P> (model_weights.hpp) behind a 128-byte header, little-endian:
//
//   off  size  field
//     0    56  as the encoder blob's header above, with magic "SFWM" and version 1
//    56     4  input kind (0 tokens, 1 features, 2 patches)
//    60    24  vocab, features per token (patches: channels * patch^2), channels, height, width, patch
//    84     4  model options: bit 0 scale_embedding, bit 1 cls_token, bit 2 embedding_norm,
//              bit 3 pooled_norm, bits 4..5 positions (0 none, 1 sinusoidal, 2 learned),
//              bits 8..9 pooling (0 none, 1 cls, 2 mean)
//    88     4  classes (0: no head)
//    92     4  rows of learned positions in the payload (0 without them)
//    96    12  the epsilons of the final, the embedding and the pooled row's norm (binary32 bits),
//              each 0 where the norm is absent or has the layers' epsilon (offset 40)
//   108    12  reserved, zero
//   120     4  CRC-32 of the payload
//   124     4  CRC-32 of header bytes [0, 124)
//
// The payload is model_weights' bytes, the learned position table last with all its rows: a
// blob with more rows than seq_len serves a build with a shorter sequence. Without learned
// positions no weight depends on seq_len, and any seq_len loads.
namespace blob {

constexpr std::uint32_t model_version = 1;
constexpr std::size_t model_header_bytes = 128;

struct model_header {
    char magic[4];
    std::uint32_t version;
    std::uint32_t header_bytes;
    std::uint32_t byte_order;
    std::uint32_t d_model, heads, d_ff, seq_len, layers;
    std::uint32_t options;
    std::uint32_t eps_bits;
    std::uint32_t precision;
    std::uint64_t payload_bytes;
    std::uint32_t input_kind;
    std::uint32_t vocab, features, channels, height, width, patch;
    std::uint32_t model_options;
    std::uint32_t classes;
    std::uint32_t position_rows;
    std::uint32_t final_eps_bits, embedding_eps_bits, pooled_eps_bits;
    std::uint8_t reserved[12];
    std::uint32_t payload_crc;
    std::uint32_t header_crc;
};
static_assert(sizeof(model_header) == model_header_bytes, "model blob header layout");

template <class M>
constexpr std::uint32_t model_options_code = (M::scales_embedding ? 1u : 0u) | (M::has_cls ? 2u : 0u) |
                                             (M::has_embedding_norm ? 4u : 0u) | (M::has_pooled_norm ? 8u : 0u) |
                                             (std::uint32_t(M::positions) << 4) | (std::uint32_t(M::pooling) << 8);

// A norm's epsilon field: its binary32 bits, or 0 where it is the layers' (or the norm absent).
template <class M>
inline std::uint32_t eps_field(bool present, float eps) noexcept {
    std::uint32_t bits = 0;
    if (present && eps != M::encoder::eps) std::memcpy(&bits, &eps, 4);
    return bits;
}

template <class M, class P>
constexpr std::size_t model_size = model_header_bytes + sizeof(model_weights<M, P>);

template <class M, class P>
inline model_header make_model_header(const model_weights<M, P>& w) noexcept {
    using Cfg = typename M::encoder;
    using in = typename M::input_traits;
    model_header h{};
    fill_common<Cfg, P>(h, model_magic, model_version, sizeof(w));
    h.input_kind = std::uint32_t(M::input);
    h.vocab = in::vocab;
    h.features = in::features;
    h.channels = in::channels;
    h.height = in::height;
    h.width = in::width;
    h.patch = in::patch;
    h.model_options = model_options_code<M>;
    h.classes = M::classes;
    h.position_rows = M::positions == positions_kind::learned ? M::seq_len : 0;
    h.final_eps_bits = eps_field<M>(Cfg::has_final_norm, Cfg::final_eps);
    h.embedding_eps_bits = eps_field<M>(M::has_embedding_norm, M::embedding_eps);
    h.pooled_eps_bits = eps_field<M>(M::has_pooled_norm, M::pooled_eps);
    return sealed(h, w);
}

}  // namespace blob

// Writes the model blob of `w` into dst (capacity bytes).
template <class M, class P>
inline status write_blob(const model_weights<M, P>& w, void* dst, std::size_t capacity) noexcept {
    return blob::write(blob::make_model_header(w), w, dst, capacity);
}

// Validates a model blob against M and P and, on success, points `out` at the weights inside it
// (zero copy). On failure `out` is left untouched. Checks in order: the header (kind, magic, byte
// order, CRC, version), the encoder (its final norm's epsilon too), the precision, the input, the
// embedding (positions, CLS, LayerNorm and its epsilon, scaling), the head (pooling, the pooled
// row's norm and its epsilon, classes), the payload's size, CRC and alignment, the weights' values
// (check_weights).
template <class M, class P>
inline status load_blob(const void* data, std::size_t size, const model_weights<M, P>*& out) noexcept {
    using weights = model_weights<M, P>;
    using Cfg = typename M::encoder;
    using in = typename M::input_traits;
    static_assert(std::is_trivially_copyable<weights>::value && std::is_standard_layout<weights>::value,
                  "weights must be plain data to be used in place");
    constexpr bool learned = M::positions == positions_kind::learned;
    if (data == nullptr) return status::null_pointer;
    const auto* bytes = static_cast<const unsigned char*>(data);
    if (size >= 4 && std::memcmp(bytes, blob::magic, 4) == 0) return status::blob_kind_mismatch;
    if (size < blob::model_header_bytes) return status::blob_too_small;
    blob::model_header h;
    std::memcpy(&h, bytes, sizeof h);
    if (std::memcmp(h.magic, blob::model_magic, 4) != 0) return status::blob_bad_magic;
    bool reserved_zero = true;
    for (unsigned char b : h.reserved) reserved_zero = reserved_zero && b == 0;
    const status common = blob::check_common<Cfg, P>(h, bytes, h.version == blob::model_version && reserved_zero);
    if (common != status::ok) return common;
    if (h.final_eps_bits != blob::eps_field<M>(Cfg::has_final_norm, Cfg::final_eps)) return status::blob_config_mismatch;
    if (h.input_kind != std::uint32_t(M::input) || h.vocab != std::uint32_t(in::vocab) ||
        h.features != std::uint32_t(in::features) || h.channels != std::uint32_t(in::channels) ||
        h.height != std::uint32_t(in::height) || h.width != std::uint32_t(in::width) || h.patch != std::uint32_t(in::patch))
        return status::blob_input_mismatch;
    constexpr std::uint32_t expected = blob::model_options_code<M>, pooling_bits = 0x308u;  // pooling, pooled_norm
    if ((h.model_options & ~pooling_bits) != (expected & ~pooling_bits) ||
        (learned ? h.position_rows < std::uint32_t(M::seq_len) : h.position_rows != 0) ||
        h.embedding_eps_bits != blob::eps_field<M>(M::has_embedding_norm, M::embedding_eps))
        return status::blob_embedding_mismatch;
    if ((h.model_options & pooling_bits) != (expected & pooling_bits) || h.classes != std::uint32_t(M::classes) ||
        h.pooled_eps_bits != blob::eps_field<M>(M::has_pooled_norm, M::pooled_eps))
        return status::blob_head_mismatch;
    // Learned positions end the weights: the rows beyond seq_len follow, unused (over the
    // struct's tail padding, if it has any).
    std::uint64_t expected_bytes = sizeof(weights);
    if constexpr (learned) {
        const std::uint64_t end = offsetof(weights, positions) +
                                  std::uint64_t(h.position_rows) * M::d_model * sizeof(typename weights::element);
        expected_bytes = end > expected_bytes ? end : expected_bytes;
    }
    if (h.payload_bytes != expected_bytes) return status::blob_bad_size;
    if (size - blob::model_header_bytes < h.payload_bytes) return status::blob_too_small;
    const unsigned char* payload = bytes + blob::model_header_bytes;
    if (h.payload_crc != blob::crc32(payload, std::size_t(h.payload_bytes))) return status::blob_bad_checksum;
    if (reinterpret_cast<std::uintptr_t>(payload) % alignof(weights) != 0) return status::blob_misaligned;
    const weights* loaded = reinterpret_cast<const weights*>(payload);
    const status values = check_weights(*loaded);
    if (values != status::ok) return values;
    out = loaded;
    return status::ok;
}

}  // namespace staticformer
