// Writes the reference backend's outputs for every test case and weight precision (f32; f16:
// the same weights rounded to binary16; int8, and a16w8 for the encoders: the same weights
// quantised), one file per case, precision, valid_len and input: <case>_<precision>_<valid_len>_<input>.bin. Built once with
// the baseline flags (no -march, -ffp-contract=off); every other build and target must
// reproduce these bytes exactly.
#include <cstdio>

#include "common/cases.hpp"
#include "common/files.hpp"
#include "common/model_cases.hpp"

namespace {

using namespace sftest;

int failures = 0;

template <class Cfg, class P>
void write_case(const std::string& dir, const char* name) {
    for (input_kind kind : all_input_kinds) {
        for (int n : valid_lens<Cfg>()) {
            sf::status s;
            const std::vector<unsigned char> y = output_bytes<Cfg, P, sf::reference>(kind, n, s);
            const std::string path = output_file(dir, name, precision_name<P>, n, kind);
            if (s != sf::status::ok || !write_file(path, y.data(), y.size())) {
                std::fprintf(stderr, "failed: %s (%s)\n", path.c_str(), sf::to_string(s));
                ++failures;
            }
        }
    }
}

template <class M, class P>
void write_model_case(const std::string& dir, const char* name) {
    for (input_kind kind : all_input_kinds) {
        for (int n : model_valid_lens<M>()) {
            sf::status s;
            const std::vector<unsigned char> y = model_output_bytes<M, P, sf::reference>(kind, n, s);
            const std::string path = output_file(dir, name, precision_name<P>, n, kind);
            if (s != sf::status::ok || !write_file(path, y.data(), y.size())) {
                std::fprintf(stderr, "failed: %s (%s)\n", path.c_str(), sf::to_string(s));
                ++failures;
            }
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
        return 2;
    }
#define WRITE_CASE(name)                        \
    write_case<name, sf::f32>(argv[1], #name);  \
    write_case<name, sf::f16>(argv[1], #name);  \
    write_case<name, sf::int8>(argv[1], #name); \
    write_case<name, sf::a16w8>(argv[1], #name);
    STATICFORMER_TEST_CASES(WRITE_CASE)
#undef WRITE_CASE
#define WRITE_MODEL_CASE(name)                       \
    write_model_case<name, sf::f32>(argv[1], #name); \
    write_model_case<name, sf::f16>(argv[1], #name); \
    write_model_case<name, sf::int8>(argv[1], #name); \
    write_model_case<name, sf::a16w8>(argv[1], #name);
    STATICFORMER_MODEL_CASES(WRITE_MODEL_CASE)
#undef WRITE_MODEL_CASE
    std::printf("reference outputs written to %s (%d failures)\n", argv[1], failures);
    return failures == 0 ? 0 : 1;
}
