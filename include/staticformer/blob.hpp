// staticformer: the weights blob (.sfwb): its format, CRC-32, writer and zero-copy loader. The
// weights it carries are encoder_weights<cfg, P> (weights.hpp, weights_int8.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "config.hpp"
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
