// staticformer: the export's self-check, its C++ half (host side; a program's main like
// quantize_tool.hpp, hence in the exporter's package). export_verify.py compiles a program around
// verify_main<Net>() for the configuration just exported, runs it on samples and compares its
// outputs with the torch module's: the numbers come from the library's normative arithmetic (the
// reference backend) reading the blob the exporter wrote.
//
//   verify_main<Net>(argc, argv), Net an encoder<cfg, P, reference> or model<cfg, P, reference>,
//   with arguments
//     --blob FILE     the exported blob
//     --inputs FILE   raw samples, Net's input values each: int32 token ids, else float32
//                     (int8 nets quantise them with the blob's input scale: an encoder's into
//                     its int16 stream, a model's features or image into int8)
//     --lengths FILE  int32, the valid length of each sample (tokens, the CLS row not counted)
//     --outputs FILE  written: float32, Net's output values per sample (int8 ones dequantised)
// Exit 0, or 1 with the reason on stderr.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include <staticformer/blob.hpp>
#include <staticformer/quant/convert.hpp>
#include <staticformer/staticformer.hpp>

namespace staticformer {
namespace verify {

template <class T>
bool read_file(const char* path, std::vector<T>& out) {
    std::FILE* f = path ? std::fopen(path, "rb") : nullptr;
    if (!f) return false;
    std::vector<unsigned char> bytes;
    unsigned char chunk[4096];
    for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;) bytes.insert(bytes.end(), chunk, chunk + n);
    std::fclose(f);
    if (bytes.size() % sizeof(T)) return false;
    out.resize(bytes.size() / sizeof(T));
    std::memcpy(out.data(), bytes.data(), bytes.size());
    return true;
}

// The value the net takes for one sample value: as it is (floats, token ids) or quantised (int8
// nets: an encoder reads int16 stream rows, a model int8 features or images; a16w8: int16 ones).
template <class W, class In>
status to_input(const W& w, const std::vector<In>& x, std::size_t at, std::size_t n, std::vector<In>& in) {
    (void)w;
    in.assign(x.begin() + at, x.begin() + at + n);
    return status::ok;
}
// (int8 and a16w8: P, each with its own input element.)
template <class Cfg, class P, class = std::enable_if_t<is_integer_precision<P>>>
status to_input(const encoder_weights<Cfg, P>& w, const std::vector<float>& x, std::size_t at, std::size_t n,
                std::vector<std::int16_t>& in) {
    in.resize(n);
    return quantize_input(w, x.data() + at, in.data(), n);
}
template <class M, class P, class = std::enable_if_t<is_integer_precision<P>>>
status to_input(const model_weights<M, P>& w, const std::vector<float>& x, std::size_t at, std::size_t n,
                std::vector<model_input_t<M, P>>& in) {
    in.resize(n);
    return quantize_model_input(w, x.data() + at, in.data(), n);
}

// The net's outputs as floats (int8 and a16w8 nets: an encoder's or a headless model's int16
// rows, a classifier's int32 logits).
template <class W>
void to_float(const W&, const std::vector<float>& out, float* y) {
    std::copy(out.begin(), out.end(), y);
}
template <class Cfg, class P, class = std::enable_if_t<is_integer_precision<P>>>
void to_float(const encoder_weights<Cfg, P>& w, const std::vector<std::int16_t>& out, float* y) {
    dequantize_output(w, out.data(), y, out.size());
}
template <class M, class P, class = std::enable_if_t<is_integer_precision<P>>>
void to_float(const model_weights<M, P>& w, const std::vector<std::int16_t>& out, float* y) {
    dequantize_model_output(w, out.data(), y, out.size());
}
template <class M, class P, class = std::enable_if_t<is_integer_precision<P>>>
void to_float(const model_weights<M, P>& w, const std::vector<std::int32_t>& out, float* y) {
    dequantize_logits(w, out.data(), y, out.size());
}

template <class Net>
struct traits {  // encoders: value_type in and out, io_values of each
    using input = typename Net::value_type;
    using output = typename Net::value_type;
    static constexpr std::size_t in_values = Net::io_values, out_values = Net::io_values;
};
template <class M, class P, class B>
struct traits<model<M, P, B>> {
    using input = typename model<M, P, B>::input_type;
    using output = typename model<M, P, B>::output_type;
    static constexpr std::size_t in_values = M::input_values, out_values = M::output_values;
};

inline const char* argument(int argc, char** argv, const char* name) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
    return nullptr;
}

inline int fail(const std::string& why) {
    std::fprintf(stderr, "verify: %s\n", why.c_str());
    return 1;
}

template <class Net>
int verify_main(int argc, char** argv) {
    using T = traits<Net>;
    using sample = typename std::conditional<std::is_same<typename T::input, std::int32_t>::value, std::int32_t,
                                             float>::type;
    std::vector<unsigned char> bytes;
    std::vector<sample> x;
    std::vector<std::int32_t> lengths;
    if (!read_file(argument(argc, argv, "--blob"), bytes)) return fail("cannot read --blob");
    if (!read_file(argument(argc, argv, "--inputs"), x) || !read_file(argument(argc, argv, "--lengths"), lengths) ||
        x.size() != lengths.size() * T::in_values)
        return fail("--inputs and --lengths must hold the same number of samples");
    // load_blob uses the weights in place: aligned storage, as a firmware's flash section is.
    std::unique_ptr<unsigned char[]> aligned(new (std::align_val_t(weights_alignment)) unsigned char[bytes.size()]);
    std::memcpy(aligned.get(), bytes.data(), bytes.size());
    const typename Net::weights_type* w = nullptr;
    if (status s = load_blob(aligned.get(), bytes.size(), w); s != status::ok)
        return fail(std::string("the blob does not load: ") + to_string(s));
    static Net net{*w};  // static: the workspace may be large
    std::vector<float> y(lengths.size() * T::out_values);
    std::vector<typename T::input> in;
    std::vector<typename T::output> out(T::out_values);
    for (std::size_t i = 0; i < lengths.size(); ++i) {
        status s = to_input(*w, x, i * T::in_values, T::in_values, in);
        if (s == status::ok) s = net.forward(in.data(), out.data(), lengths[i]);
        if (s != status::ok) return fail("sample " + std::to_string(i) + ": " + to_string(s));
        to_float(*w, out, y.data() + i * T::out_values);
    }
    std::FILE* f = std::fopen(argument(argc, argv, "--outputs") ? argument(argc, argv, "--outputs") : "", "wb");
    if (!f || std::fwrite(y.data(), sizeof(float), y.size(), f) != y.size()) return fail("cannot write --outputs");
    return std::fclose(f) == 0 ? 0 : fail("cannot write --outputs");
}

}  // namespace verify
}  // namespace staticformer
