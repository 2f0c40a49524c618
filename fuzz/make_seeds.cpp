// Writes the fuzz targets' seed corpus: make_seeds DIR writes DIR/fuzz_f32, DIR/fuzz_f16 and
// DIR/fuzz_int8, each holding valid blobs of every case (the test suite's seeded weights: f16
// converted, int8 quantised by the library) behind each mode's selector, and forward inputs.
// fuzz/corpus is this program's output; fuzz/run.sh rebuilds it to tell when that went stale.
#include "fuzz_cases.hpp"

#include "common/model_cases.hpp"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace sffuzz {
namespace {

using bytes = std::vector<unsigned char>;

void append(bytes& b, const void* p, std::size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    b.insert(b.end(), c, c + n);
}

void write_file(const std::string& path, const bytes& b) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr || std::fwrite(b.data(), 1, b.size(), f) != b.size() || std::fclose(f) != 0) {
        std::fprintf(stderr, "make_seeds: cannot write %s\n", path.c_str());
        std::exit(1);
    }
}

// The blob of weights w (encoder or model).
template <class W>
bytes blob_of(const W& w) {
    bytes b(sizeof(sf::blob::model_header) + sizeof(W));
    if (sf::write_blob(w, b.data(), b.size()) != sf::status::ok) std::exit(1);
    const std::size_t header = sf::is_model_config<typename W::config>::value ? sf::blob::model_header_bytes
                                                                               : sf::blob::header_bytes;
    b.resize(header + sizeof(W));
    return b;
}

// The seeded weights and inputs of a case, from the test suite's helpers.
template <class Case>
struct case_data;
template <class Cfg, class P>
struct case_data<encoder_case<Cfg, P>> {
    static const auto& weights() { return sftest::weights_for<Cfg, P>(); }
    static auto input(sftest::input_kind k) {
        if constexpr (is_integer<P>)
            return sftest::make_input_int8<Cfg, P>(k);
        else
            return sftest::make_input<Cfg>(k);
    }
};
template <class M, class P>
struct case_data<model_case<M, P>> {
    static const auto& weights() { return sftest::model_weights_for<M, P>(); }
    static auto input(sftest::input_kind k) { return sftest::make_model_input_for<M, P>(k); }
};

// selector, valid_len, the input values (raw or scaled), the blob: a forward-mode seed.
template <class Case>
bytes forward_seed(int c, mode m, bool raw, int valid_len, const std::vector<typename Case::input>& x,
                   const bytes& blob) {
    bytes b{selector(c, m, raw)};
    forward_prefix<Case>::encode(b, raw, valid_len, x.data());
    append(b, blob.data(), blob.size());
    return b;
}

// Values no trained model sees, in an input whose first `valid` values are read: floats at the
// edges of the finite range among the valid ones (a pass may overflow), NaN and infinities past
// them (forward reads no padded row); int8 codes at both ends; token ids: invalid ones past the
// valid tokens.
template <class T>
void add_specials(std::vector<T>& x, std::size_t valid) {
    if constexpr (std::is_same<T, float>::value) {
        const float finite[] = {FLT_MAX, -FLT_MAX, 1e-40f, -0.0f, 1e30f, 65504.0f, -1e20f, FLT_MIN};
        const float non_finite[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                                    -std::numeric_limits<float>::infinity()};
        for (std::size_t i = 0; i < x.size(); ++i)
            if (i >= valid) x[i] = non_finite[i % 3];
            else if (i % 3 == 1) x[i] = finite[i / 3 % 8];
    } else if constexpr (std::is_same<T, std::int8_t>::value) {
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::int8_t(i % 2 ? 127 : -128);
    } else if constexpr (std::is_same<T, std::int16_t>::value) {
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::int16_t(i % 2 ? 32767 : -32768);
    } else {
        for (std::size_t i = valid; i < x.size(); ++i) x[i] = std::numeric_limits<T>::min() + T(i);
    }
}

struct write_case {
    std::string dir;
    int c;
    const char* name;

    template <class Case>
    int operator()() const {
        using data = case_data<Case>;
        const bytes blob = blob_of(data::weights());
        const std::string base = dir + "/" + name;
        bytes reseal{selector(c, mode::reseal)};
        append(reseal, blob.data(), blob.size());
        write_file(base + "_reseal", reseal);
        const auto normal = data::input(sftest::input_kind::normal);
        write_file(base + "_forward", forward_seed<Case>(c, mode::forward, false, Case::full_len, normal, blob));
        auto special = data::input(sftest::input_kind::large);
        // Half the tokens valid, so that non-finite values sit in the unread rows; an image takes
        // all its patches only (it refuses any other valid_len), so it gets finite extremes only.
        const int len = Case::any_len ? (Case::full_len + 1) / 2 : Case::full_len;
        add_specials(special, len * (Case::input_values / Case::full_len));
        const mode m = Case::runs_in_place ? mode::in_place : mode::forward;
        write_file(base + "_forward_special", forward_seed<Case>(c, m, true, len, special, blob));
        if (c == 0) {  // one raw seed: raw mutations rarely get past the CRCs, one is enough
            bytes raw{selector(c, mode::raw)};
            append(raw, blob.data(), blob.size());
            write_file(base + "_raw", raw);
            // one misaligned blob: mutations seldom set that bit on a blob that would load
            bytes misaligned{static_cast<unsigned char>(selector(c, mode::reseal) | misaligned_bit)};
            append(misaligned, blob.data(), blob.size());
            write_file(base + "_misaligned", misaligned);
        }
        if constexpr (!Case::runs_in_place) write_longer_positions<Case>(base, blob);
        return 0;
    }

    // A model blob with two learned position rows more than the build needs (load_blob takes
    // it: the rows beyond seq_len are unused), sealed so that every mode loads it.
    template <class Case>
    void write_longer_positions(const std::string& base, bytes blob) const {
        sf::blob::model_header h;
        std::memcpy(&h, blob.data(), sizeof h);
        if (h.position_rows == 0) return;
        using W = typename Case::weights;
        h.position_rows += 2;
        const std::size_t end =
            offsetof(W, positions) + std::size_t(h.position_rows) * h.d_model * sizeof(typename W::element);
        blob.resize(sizeof h + (end > sizeof(W) ? end : sizeof(W)), 0x11);  // the extra rows: small values
        h.payload_bytes = blob.size() - sizeof h;
        h.payload_crc = sf::blob::crc32(blob.data() + sizeof h, blob.size() - sizeof h);
        h.header_crc =
            sf::blob::crc32(reinterpret_cast<const unsigned char*>(&h), offsetof(sf::blob::model_header, header_crc));
        std::memcpy(blob.data(), &h, sizeof h);
        bytes seed{selector(c, mode::raw)};
        append(seed, blob.data(), blob.size());
        write_file(base + "_longer_positions", seed);
    }
};

template <class P>
void write_precision(const std::string& root, const char* name) {
    const std::string dir = root + "/" + name;
    std::filesystem::create_directories(dir);
    const char* names[case_count] = {"enc_a", "enc_b", "token_model", "feature_model", "patch_model"};
    for (int c = 0; c < case_count; ++c) with_case<P>(c, write_case{dir, c, names[c]});
}

}  // namespace
}  // namespace sffuzz

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_seeds DIR (writes DIR/fuzz_f32, DIR/fuzz_f16, DIR/fuzz_int8, DIR/fuzz_a16w8)\n");
        return 2;
    }
    sffuzz::write_precision<sffuzz::sf::f32>(argv[1], "fuzz_f32");
    sffuzz::write_precision<sffuzz::sf::f16>(argv[1], "fuzz_f16");
    sffuzz::write_precision<sffuzz::sf::int8>(argv[1], "fuzz_int8");
    sffuzz::write_precision<sffuzz::sf::a16w8>(argv[1], "fuzz_a16w8");
    return 0;
}
