// libFuzzer target for one weight precision: blob loading (raw and resealed, encoder and model
// blobs) and forward() on whatever loads, reference backend against the default (simd) backend.
// Built once per precision: -DSFFUZZ_PRECISION=f32, f16, int8 or a16w8 (fuzz/run.sh). The input layout
// is in fuzz_cases.hpp.
#include "fuzz_cases.hpp"

#include <cstdio>
#include <cstdlib>
#include <vector>

#ifndef SFFUZZ_PRECISION
#error "define SFFUZZ_PRECISION as f32, f16, int8 or a16w8"
#endif

namespace sffuzz {
namespace {

using precision = sf::SFFUZZ_PRECISION;
// The backend checked against the reference: simd where the build has it (AVX2 with
// -march=x86-64-v3), else the reference itself (the comparison is then trivially equal).
using other_backend = sf::default_backend;

[[noreturn]] void fail(const char* what, int c, sf::status a, sf::status b) {
    std::fprintf(stderr, "sffuzz: %s (case %d; status: reference %s, other backend %s)\n", what, c, sf::to_string(a),
                 sf::to_string(b));
    __builtin_trap();
}

// SFFUZZ_VERBOSE=1 prints what loaded and what ran, to read a reproducer.
bool verbose() {
    static const bool v = std::getenv("SFFUZZ_VERBOSE") != nullptr;
    return v;
}

std::uint32_t read_u32(const unsigned char* p) {
    return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}
void write_u32(unsigned char* p, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

// Rewrites the payload CRC and the header CRC of a blob whose header has `header` bytes (both
// CRCs end the header), so that mutated fields and weights reach the checks behind the CRCs.
void reseal(unsigned char* b, std::size_t n, std::size_t header) {
    if (n < header) return;
    const std::uint64_t announced = read_u32(b + 48) | std::uint64_t(read_u32(b + 52)) << 32;  // payload size
    const std::size_t payload = announced < n - header ? std::size_t(announced) : n - header;
    write_u32(b + header - 8, sf::blob::crc32(b + header, payload));
    write_u32(b + header - 4, sf::blob::crc32(b, header - 4));
}

// A fixed input for a case: values in [-2, 2) (int8, int16: any code), token ids in the vocabulary.
template <class Case>
const std::vector<typename Case::input>& fixed_input() {
    static const std::vector<typename Case::input> x = [] {
        std::vector<typename Case::input> v(Case::input_values);
        std::uint64_t s = 0x5eedu;
        for (auto& e : v) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;  // an LCG: any fixed sequence will do
            const std::uint32_t r = std::uint32_t(s >> 33);
            if constexpr (Case::vocab > 0)
                e = typename Case::input(r % Case::vocab);
            else if constexpr (std::is_same<typename Case::input, float>::value)
                e = float(std::int32_t(r % 65536) - 32768) / 16384.0f;
            else if constexpr (std::is_same<typename Case::input, std::int16_t>::value)
                e = std::int16_t(r);
            else
                e = typename Case::input(std::int8_t(r));
        }
        return v;
    }();
    return x;
}

// Float outputs (status.hpp): ok means every value is finite; non_finite_output means every
// valid value is the canonical NaN (padded rows stay +0), never a NaN with another payload.
void check_float_output(int c, sf::status s, const std::vector<float>& y) {
    for (const float v : y) {
        std::uint32_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        if (s == sf::status::ok && (bits & 0x7f800000u) == 0x7f800000u) fail("ok with a non-finite output", c, s, s);
        if (s == sf::status::non_finite_output && bits != sf::math::canonical_nan_bits && bits != 0)
            fail("non_finite_output with a value neither the canonical NaN nor a padded zero", c, s, s);
    }
}

// A key padding mask of n entries drawn from the input's bytes (FNV-1a): none for a quarter of
// the inputs, else any pattern, every key masked included (all_keys_masked). None either where
// valid_len is out of range (bad_valid_len comes first; a fuzzed n must not size an allocation).
template <class T>
std::vector<std::uint8_t> mask_from(const T* x, std::size_t count, int n, int max_len) {
    std::uint64_t h = 1469598103934665603u;
    const auto* bytes = reinterpret_cast<const unsigned char*>(x);
    for (std::size_t i = 0; i < count * sizeof(T); ++i) h = (h ^ bytes[i]) * 1099511628211u;
    if (h % 4 == 0 || n <= 0 || n > max_len) return {};
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) mask[std::size_t(j)] = std::uint8_t(h >> (2 + j % 62) & 1);
    return mask;
}

// Runs w on x (valid_len n, a mask from x: mask_from) with the reference and the other backend
// and traps unless both give the same status and the same output bytes; both outputs start from
// the same bytes. in_place:
// the other backend runs with y == x. Workspaces start from different junk: a result must not
// depend on what a workspace held before (firmware places it in uninitialised RAM).
template <class Case>
void compare_backends(int c, const typename Case::weights& w, const typename Case::input* x, int n, bool in_place) {
    using out_t = typename Case::output;
    static typename Case::template workspace<sf::reference> ws_ref;
    static typename Case::template workspace<other_backend> ws_other;
    std::memset(static_cast<void*>(&ws_ref), 0x00, sizeof ws_ref);
    std::memset(static_cast<void*>(&ws_other), 0xff, sizeof ws_other);
    // Exact-size heap buffers: ASan sees any write past the outputs or read past the input.
    const std::vector<typename Case::input> x_copy(x, x + Case::input_values);
    std::vector<out_t> y_ref(Case::output_values), y_other(Case::output_values);
    if constexpr (Case::runs_in_place) {
        if (in_place) {
            std::memcpy(y_ref.data(), x, Case::output_values * sizeof(out_t));
        } else {
            std::memset(static_cast<void*>(y_ref.data()), 0x5a, Case::output_values * sizeof(out_t));
        }
    } else {
        std::memset(static_cast<void*>(y_ref.data()), 0x5a, Case::output_values * sizeof(out_t));
    }
    y_other = y_ref;
    const std::vector<out_t> before = y_ref;
    const std::vector<std::uint8_t> bits = mask_from(x, Case::input_values, n, Case::full_len);
    const sf::key_padding_mask mask = bits.empty() ? sf::key_padding_mask{} : sf::key_padding_mask{bits.data(), n};
    const sf::status s_ref = sf::forward<sf::reference>(w, ws_ref, x_copy.data(), y_ref.data(), n, mask);
    sf::status s_other;
    if constexpr (Case::runs_in_place) {
        s_other = in_place ? sf::forward<other_backend>(w, ws_other, y_other.data(), y_other.data(), n, mask)
                           : sf::forward<other_backend>(w, ws_other, x_copy.data(), y_other.data(), n, mask);
    } else {
        s_other = sf::forward<other_backend>(w, ws_other, x_copy.data(), y_other.data(), n, mask);
    }
    if (verbose())
        std::fprintf(stderr, "sffuzz:   forward valid_len %d%s%s: %s\n", n, in_place ? " in place" : "",
                     bits.empty() ? "" : " masked", sf::to_string(s_ref));
    if (s_ref != s_other) fail("backends return different statuses", c, s_ref, s_other);
    // A refused call leaves the output untouched (README); only a pass that overflowed
    // (non_finite_output: canonical NaNs) writes and fails.
    const bool written = std::memcmp(y_ref.data(), before.data(), before.size() * sizeof(out_t)) != 0;
    if (s_ref != sf::status::ok && s_ref != sf::status::non_finite_output && written)
        fail("a failed forward wrote its output", c, s_ref, s_other);
    if constexpr (std::is_same<out_t, float>::value) check_float_output(c, s_ref, y_ref);
    if (std::memcmp(y_ref.data(), y_other.data(), y_ref.size() * sizeof(out_t)) != 0) {
        for (std::size_t i = 0; i < y_ref.size(); ++i)
            if (std::memcmp(&y_ref[i], &y_other[i], sizeof(out_t)) != 0) {
                std::fprintf(stderr, "sffuzz: first difference at output %zu of %zu, valid_len %d\n", i,
                             y_ref.size(), n);
                break;
            }
        fail("backends write different bytes", c, s_ref, s_other);
    }
}

// One fuzz input of case c: take the forward prefix if the mode has one, load the blob (resealed
// unless raw) from its own exact-size heap buffer, and on success run both backends.
struct run_case {
    int c;
    mode m;
    bool misaligned;
    bool raw_values;
    const unsigned char* data;
    std::size_t size;

    template <class Case>
    int operator()() const {
        const unsigned char* p = data;
        std::size_t n = size;
        const bool forward = m == mode::forward || m == mode::in_place;
        std::vector<typename Case::input> x = fixed_input<Case>();
        int valid_len = Case::full_len;
        if (forward) {
            const std::size_t prefix = forward_prefix<Case>::bytes(raw_values);
            if (n < prefix) return 0;
            forward_prefix<Case>::decode(p, raw_values, valid_len, x.data());
            p += prefix;
            n -= prefix;
        }
        // The blob in a buffer that ends where it ends (ASan catches reads past it), at a 16-byte
        // boundary (operator new), or one byte past it: every weight type then is misaligned.
        std::vector<unsigned char> buffer(n + (misaligned ? 1 : 0));
        unsigned char* blob = buffer.data() + (misaligned ? 1 : 0);
        if (n > 0) std::memcpy(blob, p, n);
        if (m != mode::raw) reseal(blob, n, Case::header_bytes);
        const typename Case::weights* w = nullptr;
        const sf::status s = sf::load_blob(blob, n, w);  // (an empty aligned buffer: null)
        if (verbose())
            std::fprintf(stderr, "sffuzz: case %d mode %d%s blob %zu bytes: %s\n", c, int(m),
                         misaligned ? " misaligned" : "", n, sf::to_string(s));
        // A failed load leaves the pointer untouched; a successful one points into the blob (zero copy).
        if (s != sf::status::ok) {
            if (w != nullptr) fail("load_blob failed but set its pointer", c, s, s);
            return 0;
        }
        if (reinterpret_cast<const unsigned char*>(w) != blob + Case::header_bytes)
            fail("load_blob points outside the payload", c, s, s);
        if (misaligned) fail("load_blob took a misaligned blob", c, s, s);  // zero copy needs aligned weights
        if (forward) {
            compare_backends<Case>(c, *w, x.data(), valid_len, m == mode::in_place);
        } else {
            compare_backends<Case>(c, *w, x.data(), Case::full_len, false);
            compare_backends<Case>(c, *w, x.data(), (Case::full_len + 1) / 2, false);
        }
        return 0;
    }
};

}  // namespace
}  // namespace sffuzz

// Says once what is compared (run.sh's summary quotes it).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
#if STATICFORMER_HAS_SIMD
    std::fprintf(stderr, "sffuzz: backends: reference vs simd (int8 kernels: %s)\n", STATICFORMER_INT8_ISA);
#else
    std::fprintf(stderr, "sffuzz: backends: reference vs reference (no simd backend in this build)\n");
#endif
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace sffuzz;
    if (size < 1) return 0;
    const int c = (data[0] & case_mode_bits) % case_count;
    const mode m = mode((data[0] & case_mode_bits) / case_count % mode_count);
    const bool misaligned = (data[0] & misaligned_bit) != 0, raw_values = (data[0] & raw_values_bit) != 0;
    return with_case<precision>(c, run_case{c, m, misaligned, raw_values, data + 1, size - 1});
}
