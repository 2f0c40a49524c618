// The weights blob: a round trip is zero-copy, and every corruption is refused with its status;
// f16 blobs (precision 1) likewise, and a blob of one precision is refused as the other.
#include <gtest/gtest.h>

#include <staticformer/staticformer.hpp>

#include <cstring>
#include <vector>

#include "common/cases.hpp"
#include "common/compare.hpp"

namespace {

using namespace sftest;
using cfg = odd_pre_gelu;
using weights = sf::encoder_weights<cfg, sf::f32>;
constexpr std::size_t blob_size = sf::blob::size<cfg, sf::f32>;

// Recomputes a blob's header checksum after an edit of its header.
void reseal_header(unsigned char* bytes) {
    const std::uint32_t crc = sf::blob::crc32(bytes, offsetof(sf::blob::header, header_crc));
    std::memcpy(bytes + offsetof(sf::blob::header, header_crc), &crc, sizeof crc);
}

// An aligned buffer holding a valid blob of cfg's test weights.
struct blob_buffer {
    alignas(64) unsigned char bytes[blob_size + 64];
    blob_buffer() { EXPECT_EQ(sf::write_blob(weights_for<cfg>(), bytes, blob_size), sf::status::ok); }
    sf::status load(std::size_t size = blob_size, std::size_t offset = 0) {
        const weights* w = nullptr;
        const sf::status s = sf::load_blob<cfg, sf::f32>(bytes + offset, size, w);
        EXPECT_EQ(s == sf::status::ok, w != nullptr);
        return s;
    }
    template <class T>
    void set(std::size_t offset, T value) {
        std::memcpy(bytes + offset, &value, sizeof value);
        reseal_header(bytes);
    }
};

sf::status load_as_f32(const unsigned char* bytes, std::size_t size) {
    const weights* w = nullptr;
    return sf::load_blob<cfg, sf::f32>(bytes, size, w);
}

TEST(Blob, RoundTripIsZeroCopy) {
    static blob_buffer b;
    const weights* w = nullptr;
    ASSERT_EQ((sf::load_blob<cfg, sf::f32>(b.bytes, blob_size, w)), sf::status::ok);
    EXPECT_EQ(static_cast<const void*>(w), static_cast<const void*>(b.bytes + sf::blob::header_bytes));
    EXPECT_EQ(std::memcmp(w, &weights_for<cfg>(), sizeof(weights)), 0);
}

TEST(Blob, Crc32MatchesTheStandardCheckValue) {
    const char* s = "123456789";
    EXPECT_EQ(sf::blob::crc32(reinterpret_cast<const unsigned char*>(s), 9), 0xCBF43926u);
}

TEST(Blob, TruncatedIsTooSmall) {
    static blob_buffer b;
    for (std::size_t size : {std::size_t(0), std::size_t(1), std::size_t(63), std::size_t(64), blob_size / 2, blob_size - 1})
        EXPECT_EQ(b.load(size), sf::status::blob_too_small) << size;
    EXPECT_EQ(b.load(blob_size + 10), sf::status::ok);  // trailing bytes are allowed
}

TEST(Blob, EveryHeaderByteIsChecked) {
    static blob_buffer b;
    for (std::size_t i = 0; i < sf::blob::header_bytes; ++i) {
        b.bytes[i] ^= 0x10;
        EXPECT_NE(b.load(), sf::status::ok) << "header byte " << i;
        b.bytes[i] ^= 0x10;
    }
    EXPECT_EQ(b.load(), sf::status::ok);
}

TEST(Blob, PayloadCorruptionFailsTheChecksum) {
    static blob_buffer b;
    for (std::size_t i : {sf::blob::header_bytes, sf::blob::header_bytes + 1000, blob_size - 1}) {
        b.bytes[i] ^= 0x01;
        EXPECT_EQ(b.load(), sf::status::blob_bad_checksum) << i;
        b.bytes[i] ^= 0x01;
    }
}

TEST(Blob, EachFieldHasItsStatus) {
    {
        blob_buffer b;
        b.bytes[0] = 'X';
        EXPECT_EQ(b.load(), sf::status::blob_bad_magic);
    }
    {
        blob_buffer b;
        b.set<std::uint32_t>(4, 4);
        EXPECT_EQ(b.load(), sf::status::blob_bad_version);
        b.set<std::uint32_t>(4, 0);
        EXPECT_EQ(b.load(), sf::status::blob_bad_version);
    }
    {
        blob_buffer b;
        b.set<std::uint32_t>(12, 0x04030201u);
        EXPECT_EQ(b.load(), sf::status::blob_bad_endianness);
    }
    for (std::size_t field = 16; field <= 40; field += 4) {  // dims, options, eps
        blob_buffer b;
        std::uint32_t v;
        std::memcpy(&v, b.bytes + field, 4);
        b.set<std::uint32_t>(field, v + 1);
        // No encoder weight depends on seq_len (offset 28): any length but 0 loads.
        EXPECT_EQ(b.load(), field == 28 ? sf::status::ok : sf::status::blob_config_mismatch) << "field at " << field;
        if (field == 28) {
            b.set<std::uint32_t>(field, 0);
            EXPECT_EQ(b.load(), sf::status::blob_config_mismatch);
        }
    }
    {
        blob_buffer b;
        b.set<std::uint32_t>(44, 2);
        EXPECT_EQ(b.load(), sf::status::blob_precision_mismatch);
    }
    {
        blob_buffer b;
        b.set<std::uint64_t>(48, sizeof(weights) + 4);
        EXPECT_EQ(b.load(), sf::status::blob_bad_size);
    }
}

// The blob of cfg's test weights in precision P, its version field set to `version`, loaded.
template <class P>
sf::status load_with_version(std::uint32_t version) {
    constexpr std::size_t n = sf::blob::size<cfg, P>;
    alignas(64) static unsigned char bytes[n];
    EXPECT_EQ(sf::write_blob(weights_for<cfg, P>(), bytes, n), sf::status::ok);
    std::uint32_t written;
    std::memcpy(&written, bytes + offsetof(sf::blob::header, version), 4);
    EXPECT_EQ(written, sf::blob::version);
    std::memcpy(bytes + offsetof(sf::blob::header, version), &version, 4);
    reseal_header(bytes);
    const sf::encoder_weights<cfg, P>* w = nullptr;
    const sf::status s = sf::load_blob<cfg, P>(bytes, n, w);
    EXPECT_EQ(s == sf::status::ok, w != nullptr);
    return s;
}

// Versions 2 and 3 changed only the int8 payload's layout: f32 and f16 blobs of versions 1 and
// 2 hold the same bytes and still load; an int8 blob of an older version is refused (its layout
// is not this one).
TEST(Blob, OlderVersionsAreReadForFloatsOnly) {
    EXPECT_EQ(sf::blob::version, 3u);
    EXPECT_EQ(load_with_version<sf::f32>(3), sf::status::ok);
    EXPECT_EQ(load_with_version<sf::f16>(3), sf::status::ok);
    EXPECT_EQ(load_with_version<sf::int8>(3), sf::status::ok);
    for (std::uint32_t old : {1u, 2u}) {
        EXPECT_EQ(load_with_version<sf::f32>(old), sf::status::ok);
        EXPECT_EQ(load_with_version<sf::f16>(old), sf::status::ok);
        EXPECT_EQ(load_with_version<sf::int8>(old), sf::status::blob_bad_version);
    }
    EXPECT_EQ(load_with_version<sf::f32>(4), sf::status::blob_bad_version);
    EXPECT_EQ(load_with_version<sf::int8>(4), sf::status::blob_bad_version);
}

// a16w8 blobs (precision 3, new in version 3): they load as a16w8 only, any other precision's
// blob is refused as a16w8, and a parameter out of its kernel's range is blob_bad_quantization.
TEST(Blob, A16w8RoundTripAndPrecisionChecks) {
    EXPECT_EQ(load_with_version<sf::a16w8>(3), sf::status::ok);
    for (std::uint32_t old : {1u, 2u, 4u}) EXPECT_EQ(load_with_version<sf::a16w8>(old), sf::status::blob_bad_version);
    constexpr std::size_t n = sf::blob::size<cfg, sf::a16w8>;
    alignas(64) static unsigned char bytes[n];
    ASSERT_EQ(sf::write_blob(weights_for<cfg, sf::a16w8>(), bytes, n), sf::status::ok);
    EXPECT_EQ(bytes[44], 3);
    const sf::encoder_weights<cfg, sf::a16w8>* w = nullptr;
    ASSERT_EQ((sf::load_blob<cfg, sf::a16w8>(bytes, n, w)), sf::status::ok);
    EXPECT_EQ(std::memcmp(w, &weights_for<cfg, sf::a16w8>(), sizeof *w), 0);
    const sf::encoder_weights<cfg, sf::int8>* w8 = nullptr;
    EXPECT_EQ((sf::load_blob<cfg, sf::int8>(bytes, n, w8)), sf::status::blob_precision_mismatch);
    constexpr std::size_t n8 = sf::blob::size<cfg, sf::int8>;
    alignas(64) static unsigned char bytes8[n8];
    ASSERT_EQ(sf::write_blob(weights_for<cfg, sf::int8>(), bytes8, n8), sf::status::ok);
    EXPECT_EQ((sf::load_blob<cfg, sf::a16w8>(bytes8, n8, w)), sf::status::blob_precision_mismatch);
    // A query's output limit past score_limit: its sums could overflow.
    static sf::encoder_weights<cfg, sf::a16w8> bad;
    bad = weights_for<cfg, sf::a16w8>();
    bad.layer[0].query.output_limit = sf::a16w8_limits::score_limit(cfg::head_dim) + 1;
    ASSERT_EQ(sf::write_blob(bad, bytes, n), sf::status::ok);
    EXPECT_EQ((sf::load_blob<cfg, sf::a16w8>(bytes, n, w)), sf::status::blob_bad_quantization);
}

TEST(Blob, WrongConfigurationIsRefused) {
    static blob_buffer b;
    using other = sf::encoder_config<24, 3, 40, 7, 2, sf::pre_norm, sf::relu, sf::final_norm>;
    const sf::encoder_weights<other, sf::f32>* w = nullptr;
    EXPECT_EQ((sf::load_blob<other, sf::f32>(b.bytes, blob_size, w)), sf::status::blob_config_mismatch);
    using causal = sf::encoder_config<24, 3, 40, 7, 2, sf::pre_norm, sf::gelu, sf::final_norm, sf::causal>;
    const sf::encoder_weights<causal, sf::f32>* w2 = nullptr;
    EXPECT_EQ((sf::load_blob<causal, sf::f32>(b.bytes, blob_size, w2)), sf::status::blob_config_mismatch);
}

// Rotary positions change no weight, only what the encoder computes: a blob says its layout and
// theta, and an encoder of another layout or theta (or none) refuses it.
template <class Cfg, class Other>
sf::status load_as() {
    constexpr std::size_t n = sf::blob::size<Cfg, sf::f32>;
    alignas(64) static unsigned char bytes[n];
    static sf::encoder_weights<Cfg, sf::f32> w{};
    EXPECT_EQ(sf::write_blob(w, bytes, n), sf::status::ok);
    const sf::encoder_weights<Other, sf::f32>* loaded = nullptr;
    return sf::load_blob<Other, sf::f32>(bytes, n, loaded);
}

TEST(Blob, RotaryLayoutAndThetaMustMatch) {
    using plain = sf::encoder_config<24, 3, 40, 7, 2>;
    using halves = sf::encoder_config<24, 3, 40, 7, 2, sf::rotary<10000>>;
    using halves_big = sf::encoder_config<24, 3, 40, 7, 2, sf::rotary<500000>>;
    using pairs = sf::encoder_config<24, 3, 40, 7, 2, sf::rotary_interleaved<10000>>;
    EXPECT_EQ((load_as<halves, halves>()), sf::status::ok);
    EXPECT_EQ((load_as<pairs, pairs>()), sf::status::ok);
    EXPECT_EQ((load_as<halves, plain>()), sf::status::blob_config_mismatch);
    EXPECT_EQ((load_as<plain, halves>()), sf::status::blob_config_mismatch);
    EXPECT_EQ((load_as<halves, pairs>()), sf::status::blob_config_mismatch);
    EXPECT_EQ((load_as<halves, halves_big>()), sf::status::blob_config_mismatch);
    EXPECT_EQ((load_as<halves_big, halves>()), sf::status::blob_config_mismatch);
    EXPECT_EQ(sf::blob::options_code<halves_big> >> 12, 1u | (500u | 3u << 12) << 4);  // 500 * 10^3
}

// Grouped-query attention's key heads sit in the heads field's high half; any other count of key
// heads (all of them too) refuses the blob.
TEST(Blob, KeyHeadsMustMatch) {
    using plain = sf::encoder_config<24, 3, 40, 7, 2>;
    using mqa = sf::encoder_config<24, 3, 40, 7, 2, sf::kv_heads<1>>;
    using all = sf::encoder_config<24, 3, 40, 7, 2, sf::kv_heads<3>>;  // = plain
    EXPECT_EQ((load_as<mqa, mqa>()), sf::status::ok);
    EXPECT_EQ((load_as<all, plain>()), sf::status::ok);
    EXPECT_EQ((load_as<mqa, plain>()), sf::status::blob_config_mismatch);
    EXPECT_EQ((load_as<plain, mqa>()), sf::status::blob_config_mismatch);
    EXPECT_EQ(sf::blob::heads_code<mqa>, 3u | 1u << 16);
    EXPECT_EQ(sf::blob::heads_code<all>, 3u);
}

// The weights do not depend on seq_len: a blob exported for one length runs a build with
// another, and gives the same rows for the same valid input.
TEST(Blob, AnySequenceLengthLoads) {
    static blob_buffer b;
    using longer = sf::encoder_config<24, 3, 40, 12, 2, sf::pre_norm, sf::gelu, sf::final_norm>;
    const sf::encoder_weights<longer, sf::f32>* w = nullptr;
    ASSERT_EQ((sf::load_blob<longer, sf::f32>(b.bytes, blob_size, w)), sf::status::ok);
    static sf::workspace<cfg> ws;
    static sf::workspace<longer> ws_long;
    const std::vector<float> x = make_input<cfg>(input_kind::normal);
    std::vector<float> x_long(std::size_t(longer::seq_len) * longer::d_model, 0.0f), y(x.size()), y_long(x_long.size());
    std::copy(x.begin(), x.end(), x_long.begin());
    ASSERT_EQ(sf::forward<sf::reference>(weights_for<cfg>(), ws, x.data(), y.data(), 5), sf::status::ok);
    ASSERT_EQ(sf::forward<sf::reference>(*w, ws_long, x_long.data(), y_long.data(), 5), sf::status::ok);
    EXPECT_TRUE(bit_equal(y.data(), y_long.data(), std::size_t(5) * cfg::d_model));
}

TEST(Blob, MisalignedIsRefusedNotCopied) {
    static blob_buffer b;
    std::memmove(b.bytes + 1, b.bytes, blob_size);
    EXPECT_EQ(b.load(blob_size, 1), sf::status::blob_misaligned);
}

TEST(Blob, NullAndTooSmallDestination) {
    const weights* w = nullptr;
    EXPECT_EQ((sf::load_blob<cfg, sf::f32>(nullptr, 100, w)), sf::status::null_pointer);
    std::vector<unsigned char> small(blob_size - 1);
    EXPECT_EQ(sf::write_blob(weights_for<cfg>(), small.data(), small.size()), sf::status::blob_too_small);
}

TEST(Blob, LoadedWeightsRunTheSameEncoder) {
    static blob_buffer b;
    const weights* w = nullptr;
    ASSERT_EQ((sf::load_blob<cfg, sf::f32>(b.bytes, blob_size, w)), sf::status::ok);
    sf::encoder<cfg> from_blob{*w}, direct{weights_for<cfg>()};
    const auto x = make_input<cfg>(input_kind::normal);
    std::vector<float> y1(x.size()), y2(x.size());
    ASSERT_EQ(from_blob.forward(x.data(), y1.data(), 5), sf::status::ok);
    ASSERT_EQ(direct.forward(x.data(), y2.data(), 5), sf::status::ok);
    EXPECT_EQ(std::memcmp(y1.data(), y2.data(), y1.size() * 4), 0);
}

// ---- f16 blobs (precision 1) ------------------------------------------------------------------

using weights16 = sf::encoder_weights<cfg, sf::f16>;
constexpr std::size_t blob16_size = sf::blob::size<cfg, sf::f16>;

TEST(Blob, F16RoundTripIsZeroCopyAndHalfTheSize) {
    static_assert(blob16_size - sf::blob::header_bytes == (blob_size - sf::blob::header_bytes) / 2, "");
    alignas(64) static unsigned char bytes[blob16_size];
    ASSERT_EQ(sf::write_blob(weights_for<cfg, sf::f16>(), bytes, blob16_size), sf::status::ok);
    std::uint32_t precision;
    std::memcpy(&precision, bytes + 44, 4);
    EXPECT_EQ(precision, 1u);
    const weights16* w = nullptr;
    ASSERT_EQ((sf::load_blob<cfg, sf::f16>(bytes, blob16_size, w)), sf::status::ok);
    EXPECT_EQ(static_cast<const void*>(w), static_cast<const void*>(bytes + sf::blob::header_bytes));
    EXPECT_EQ(std::memcmp(w, &weights_for<cfg, sf::f16>(), sizeof(weights16)), 0);
    EXPECT_EQ(load_as_f32(bytes, blob16_size), sf::status::blob_precision_mismatch);
    // The encoder runs from the loaded blob exactly as from the weights it was written from.
    sf::encoder<cfg, sf::f16> from_blob{*w}, direct{weights_for<cfg, sf::f16>()};
    const auto x = make_input<cfg>(input_kind::normal);
    std::vector<float> y1(x.size()), y2(x.size());
    ASSERT_EQ(from_blob.forward(x.data(), y1.data(), 5), sf::status::ok);
    ASSERT_EQ(direct.forward(x.data(), y2.data(), 5), sf::status::ok);
    EXPECT_EQ(std::memcmp(y1.data(), y2.data(), y1.size() * 4), 0);
}

TEST(Blob, F32BlobIsNotAnF16Blob) {
    static blob_buffer b;
    const weights16* w = nullptr;
    EXPECT_EQ((sf::load_blob<cfg, sf::f16>(b.bytes, blob_size, w)), sf::status::blob_precision_mismatch);
    EXPECT_EQ(w, nullptr);
}

TEST(Blob, F16CorruptionAndMisalignment) {
    alignas(64) static unsigned char bytes[blob16_size + 2];
    ASSERT_EQ(sf::write_blob(weights_for<cfg, sf::f16>(), bytes, blob16_size), sf::status::ok);
    const weights16* w = nullptr;
    bytes[blob16_size - 1] ^= 0x40;
    EXPECT_EQ((sf::load_blob<cfg, sf::f16>(bytes, blob16_size, w)), sf::status::blob_bad_checksum);
    bytes[blob16_size - 1] ^= 0x40;
    EXPECT_EQ((sf::load_blob<cfg, sf::f16>(bytes, blob16_size - 2, w)), sf::status::blob_too_small);
    std::memmove(bytes + 1, bytes, blob16_size);  // binary16 needs 2-byte alignment
    EXPECT_EQ((sf::load_blob<cfg, sf::f16>(bytes + 1, blob16_size, w)), sf::status::blob_misaligned);
    EXPECT_EQ(w, nullptr);
}

}  // namespace
