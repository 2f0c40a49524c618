// staticformer: the integer export tool's C++ half (host side; a program's main, not part of the
// library, hence in the exporter's package rather than in include/). staticformer-export
// --precision int8 (or a16w8) writes the f32 weights as a header, compiles a three-line program
// around tool_main<cfg, P>() (with -I include and -I of this directory: cpp.py) and runs it:
// calibration, quantisation and the header and blob are all this library's own code
// (quant/quantize.hpp), so the scheme exists once. ports/footprint/quantize_weights.cpp uses its
// header writer too.
//
//   tool_main<cfg, P>(w, argc, argv), P int8 (the default) or a16w8, with arguments
//     --calibration FILE  float32 samples, [count][seq_len][d_model] (rows past --valid-len are ignored)
//     --valid-len N       real rows per sample (default seq_len)
//     --lengths FILE      instead: int32 [count], each sample's real rows
//     --masks FILE        key padding masks, one byte per row (nonzero: padding), [count][seq_len]
//     --method min_max|percentile   --percentile P (default 99.99)
//     --name NAME  --config "using NAME_config = ...;"  --header FILE  --blob FILE
// prints the per-layer report (scale, zero point, clipped share of every tensor) and the SQNR
// of the quantised encoder against the f32 encoder on the calibration samples (int8: stage by stage).
//   model_tool_main<model_cfg, P>(w, argc, argv): the same for whole models (quant/model_quantize.hpp),
//     --calibration holding token ids (int32) or features / images (float32), model_cfg::input_values
//     per sample, --valid-len their tokens (or --lengths; --masks [count][input tokens]); also
//     prints the model's own tensors and the arg-max agreement of the quantised and f32 models.
// Both print how many samples and tokens (valid, not masked) the calibration saw.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include <staticformer/blob.hpp>
#include <staticformer/quant/convert.hpp>
#include <staticformer/quant/model_quantize.hpp>
#include <staticformer/quant/quantize.hpp>
#include <staticformer/quant/stages.hpp>

namespace staticformer {
namespace quant {

namespace detail {

// ---- the int8 and a16w8 weights as a C++ aggregate initialiser -------------------------------

struct writer {
    std::FILE* f;
    void text(const char* s) { std::fputs(s, f); }
    template <class T>
    void list(const T* v, int n) {
        std::fputs("{", f);
        for (int i = 0; i < n; ++i) std::fprintf(f, "%s%lld", i ? (i % 16 ? ", " : ",\n ") : "", (long long)v[i]);
        std::fputs("}", f);
    }
    // linear_int8 (its last scalar: output_zero_point) or linear_a16w8 (output_limit).
    template <int In, int Out>
    void operator()(const linear_int8<In, Out>& l) {
        linear(l, l.output_zero_point);
    }
    template <int In, int Out>
    void operator()(const linear_a16w8<In, Out>& l) {
        linear(l, l.output_limit);
    }
    template <class L>
    void linear(const L& l, std::int32_t last) {
        constexpr int Out = L::outputs;
        text("{{");
        for (int g = 0; g < l.in_groups; ++g) {
            text(g ? ",\n{" : "{");
            for (int o = 0; o < Out; ++o) {
                if (o) text(", ");
                list(l.w[g][o], 4);
            }
            text("}");
        }
        text("},\n");
        list(l.bias, Out);
        std::fprintf(f, ", %d, %d,\n", int(l.shift), int(last));
        list(l.multiplier, l.multiplier_count);
        text("}");
    }
    template <int N, bool Rms>
    void operator()(const layer_norm_int8<N, Rms>& n) {
        std::fprintf(f, "{%lldLL, %d, %d,\n", (long long)n.eps, int(n.shift), int(n.output_zero_point));
        if constexpr (Rms) std::fprintf(f, "%d, %d,\n", int(n.input_zero_point), int(n.reserved));
        list(n.beta, N);
        text(",\n");
        list(n.gamma, n.gamma_count);
        text("}");
    }
    void operator()(const stream_add_int8& a) {
        std::fprintf(f, "{%d, %d, %d, %d}", int(a.a_zero_point), int(a.multiplier), int(a.shift), int(a.reserved));
    }
    void operator()(const stream_narrow_int8& n) {
        std::fprintf(f, "{%d, %d, %d, %d}", int(n.multiplier), int(n.shift), int(n.zero_point), int(n.reserved));
    }
    void operator()(const gate_int8& g) {
        std::fprintf(f, "{%d, %d, %d, %d, %d, %d}", int(g.a_zero_point), int(g.b_zero_point), int(g.multiplier),
                     int(g.shift), int(g.output_zero_point), int(g.reserved));
    }
    void operator()(const math::fixed_multiplier& m) { std::fprintf(f, "{%d, %d}", int(m.multiplier), int(m.shift)); }
    void operator()(const std::int8_t (&table)[256]) { list(table, 256); }  // int8's activation
    void operator()(const activation_a16w8& a) { text("{"), list(a.table, int(sizeof a.table / 2)), text("}"); }
    void operator()(const attention_int8& a) { text("{"), (*this)(a.logits), text(", "), (*this)(a.context), text("}"); }
    void operator()(const attention_a16w8& a) {
        text("{"), (*this)(a.logits), text(", "), (*this)(a.context);
        std::fprintf(f, ", %d, %d}", int(a.context_limit), int(a.reserved));
    }
    void operator()(const stream_narrow_a16w8& n) {
        std::fprintf(f, "{%d, %d, %d, %d}", int(n.multiplier), int(n.shift), int(n.output_limit), int(n.reserved));
    }
    void operator()(const gate_a16w8& g) {
        std::fprintf(f, "{%d, %d, %d, %d}", int(g.multiplier), int(g.shift), int(g.output_limit), int(g.reserved));
    }
    void operator()(const quantization& q) { std::fprintf(f, "{%af, %d}", double(q.scale), int(q.zero_point)); }
};

// The members of encoder_weights<Cfg, P>'s initialiser, P int8 or a16w8 (layers, final norm,
// input, output).
template <class Cfg, class P>
void write_encoder(writer& out, const encoder_weights<Cfg, P>& w) {
    std::FILE* f = out.f;
    out.text("{\n");
    for (int l = 0; l < Cfg::layers; ++l) {
        const auto& y = w.layer[l];
        std::fprintf(f, "{  // layer %d\n", l);
        out(y.norm1), out.text(",\n"), out(y.query), out.text(",\n"), out(y.key), out.text(",\n"), out(y.value);
        out.text(",\n"), out(y.out), out.text(",\n"), out(y.norm2), out.text(",\n"), out(y.ff1), out.text(",\n");
        out(y.activation), out.text(",\n"), out(y.ff2), out.text(",\n"), out(y.attention), out.text(",\n");
        // The small parameters: every member in every configuration (unused ones 0), braced.
        out(y.residual1), out.text(", "), out(y.residual2), out.text(",\n"), out(y.input1), out.text(", ");
        out(y.input2), out.text(",\n"), out(y.gate), out.text(", "), out.list(y.reserved, 6), out.text("},\n");
    }
    out.text("},\n");
    if constexpr (Cfg::has_final_norm) {
        out.text("{"), out(w.final_norm.norm), out.text("},  // final_norm\n");
    } else {
        out.text("{},  // no final_norm\n");
    }
    out(w.input);
    out.text(",  // input\n");
    out(w.output);
    out.text("  // output\n");
}

template <class P>
constexpr const char* precision_name = std::is_same<P, int8>::value ? "int8" : "a16w8";

template <class P>
void write_preamble(std::FILE* f, const char* name, const char* what, std::size_t bytes, const char* generator,
                    const char* source, const char* config_line, const char* type) {
    const bool model = std::strcmp(what, "model") == 0;
    std::fprintf(f, "// %s: staticformer %s weights (%s), %zu bytes.\n", name, what, precision_name<P>, bytes);
    if (generator != nullptr)
        std::fprintf(f, "// Generated by %s from %s; regenerate rather than edit.\n", generator, source);
    else
        std::fprintf(f, "// Generated by tools/export_pytorch.py --precision %s from %s; regenerate rather than edit.\n",
                     precision_name<P>, source);
    std::fprintf(f,
                 "// Layout and formulas: include/staticformer/weights_%s.hpp%s.\n"
                 "#pragma once\n\n#include <staticformer/staticformer.hpp>\n\n%s\n\n"
                 "alignas(staticformer::weights_alignment) inline constexpr staticformer::%s<%s_config, staticformer::%s> %s = {\n",
                 precision_name<P>, model ? ", model_weights_int8.hpp" : "", config_line, type, name,
                 precision_name<P>, name);
}

template <class Cfg, class P>
void write_header(std::FILE* f, const char* name, const char* config_line, const encoder_weights<Cfg, P>& w,
                  const char* source, const char* generator = nullptr) {
    writer out{f};
    write_preamble<P>(f, name, "encoder", sizeof(w), generator, source, config_line, "encoder_weights");
    write_encoder(out, w);
    out.text("};\n");
}

// model_weights<M, P>, P int8 or a16w8: the encoder, then each part (model_weights_int8.hpp's order).
template <class M, class P>
void write_model_header(std::FILE* f, const char* name, const char* config_lines, const model_weights<M, P>& w,
                        const char* source, const char* generator = nullptr) {
    writer out{f};
    constexpr int D = M::d_model;
    write_preamble<P>(f, name, "model", sizeof(w), generator, source, config_lines, "model_weights");
    out.text("{  // encoder\n");
    write_encoder(out, w.encoder);
    out.text("},\n{");  // input
    if constexpr (M::input == input_kind::tokens) {
        out.text("{");
        for (int v = 0; v < M::vocab; ++v) out.text(v ? ",\n" : ""), out.list(w.input.table[v], D);
        out.text("}");
    } else {
        out(w.input.projection);
    }
    out.text("},  // input\n{");
    if constexpr (M::has_cls) out.list(w.cls.token, D);
    out.text("},  // cls\n{");
    if constexpr (M::has_embedding_norm) out(w.embedding_norm.norm);
    out.text("},  // embedding_norm\n{");
    if constexpr (M::has_pooled_norm) out(w.head.norm), out.text(M::has_head ? ", " : "");
    if constexpr (M::has_head) out(w.head.linear);
    out.text("},  // head\n{");
    const auto& q = w.quant;  // (model_quantization_of's order: the scales, then the stream's steps)
    out(q.input), out.text(", "), out(q.embedding), out.text(", "), out(q.positions), out.text(", "), out(q.logits);
    out.text(",\n"), out(q.embed), out.text(", "), out(q.add_positions), out.text(", "), out(q.head_input);
    out.text("},  // quant\n{");
    if constexpr (M::positions == positions_kind::learned) {
        out.text("{");
        for (int p = 0; p < M::seq_len; ++p) out.text(p ? ",\n" : ""), out.list(w.positions.table[p], D);
        out.text("}");
    }
    out.text("}  // positions\n};\n");
}

inline const char* tensor_name(int p) {
    static const char* const names[] = {"norm1_in", "norm1_out", "query", "key", "value", "context",
                                        "attention_out", "norm2_in", "norm2_out", "ff1", "activation", "gate_in", "gate", "ff2"};
    return names[p];
}

inline void print_report(const report& r) {
    std::printf("%-6s %-14s %12s %5s %9s\n", "layer", "tensor", "scale", "zero", "clipped");
    std::printf("%-6s %-14s %12.6g %5d %8.4f%%\n", "-", "input", r.input.scale, r.input.zero_point, 100 * r.input.clipped);
    for (std::size_t l = 0; l < r.layer.size(); ++l)
        for (int p = 0; p < int(point::count); ++p) {
            const tensor_report& t = r.layer[l].t[p];
            std::printf("%-6zu %-14s %12.6g %5d %8.4f%%\n", l, tensor_name(p), t.scale, t.zero_point, 100 * t.clipped);
        }
    std::printf("%-6s %-14s %12.6g %5d\n", "-", "output", r.output.scale, r.output.zero_point);
    if (r.saturated_biases) std::printf("warning: %zu biases saturated at +-2^30\n", r.saturated_biases);
}

// "calibration: 120 / 256 samples" on stderr as a loop goes (about 20 updates) when stderr is a
// terminal, there is more than a handful of samples and the exporter asks for it
// (STATICFORMER_PROGRESS=1, unless --quiet): a long calibration shows that it runs.
inline void progress(const char* what, int done, int count) {
    static const char* const asked = std::getenv("STATICFORMER_PROGRESS");
    static const bool on = isatty(2) != 0 && asked && std::strcmp(asked, "1") == 0;
    if (!on || count < 32 || (done % (count / 20) != 0 && done != count)) return;
    std::fprintf(stderr, "\r%s: %d / %d samples%s", what, done, count, done == count ? "\n" : "");
    std::fflush(stderr);
}

}  // namespace detail

// Each calibration sample's valid length and key padding mask (tokens entries per sample).
struct sample_extents {
    std::vector<std::int32_t> lengths;
    std::vector<std::uint8_t> masks;  // empty: no masks
    int tokens = 0;

    int count() const { return int(lengths.size()); }
    key_padding_mask mask(int s) const {
        return masks.empty() ? key_padding_mask{} : key_padding_mask{masks.data() + std::size_t(s) * tokens, tokens};
    }
    // The tokens calibrated on: valid and not masked.
    long long seen() const {
        long long n = 0;
        for (int s = 0; s < count(); ++s)
            for (int t = 0; t < lengths[s]; ++t) n += masks.empty() || !masks[std::size_t(s) * tokens + t];
        return n;
    }
};

// A stage comparison's table (quant/stages.hpp): the SQNR of each quantised tensor per layer,
// then of the output and of its branch (output - input).
inline void print_stage_table(const stage_table& t, int samples, const char* output, const char* precision) {
    const int layers = int(t.layer.size());
    std::printf("%s against f32, stage by stage (SQNR in dB, the calibration samples):\n%-14s", precision, "tensor");
    for (int l = 0; l < layers; ++l) std::printf(" %7s%-2d", "layer ", l);
    const auto row = [&](const char* name, auto&& sum) {
        std::printf("\n%-14s", name);
        for (int l = 0; l < layers; ++l) std::printf(" %9.2f", sum(l).sqnr());
    };
    for (int p = 0; p < int(point::count); ++p) {
        if (t.layer[0][p].count == 0) continue;  // (glu's tensors without glu)
        row(detail::tensor_name(p), [&](int l) { return t.layer[l][p]; });
        if (p == int(point::value)) {
            row("scores", [&](int l) { return t.scores[l]; });
            row("probabilities", [&](int l) { return t.probabilities[l]; });
        }
    }
    std::printf("\n%s vs f32 SQNR on the %d calibration samples: %s %.2f dB, branch (output - input) %.2f dB\n",
                precision, samples, output, t.output.sqnr(), t.branch.sqnr());
}

// The int8 or a16w8 encoder against the f32 one on the samples, stage by stage.
template <class Cfg, class P>
void print_stages(const encoder_weights<Cfg, f32>& w32, const encoder_weights<Cfg, P>& w8, const report& r,
                  const float* samples, const sample_extents& e) {
    constexpr std::size_t n = std::size_t(Cfg::seq_len) * Cfg::d_model;
    stage_comparison<Cfg, P> c(w32, w8, r);
    for (int s = 0; s < e.count(); ++s) {
        detail::progress("quantised against f32", s + 1, e.count());
        c.observe(samples + std::size_t(s) * n, e.lengths[s], e.mask(s));  // (ok: calibration took every sample)
    }
    print_stage_table(c.table(), e.count(), "output", detail::precision_name<P>);
}

// A model's encoder the same way, from the f32 model's rows after its input, positions and
// embedding LayerNorm (quantised with the encoder's input scale: the front's own noise is left
// out; the model's output follows, print_model_agreement).
template <class M, class P>
void print_model_stages(const model_weights<M, f32>& w32, const model_weights<M, P>& w8, const report& r,
                        const std::vector<model_input_t<M>>& samples, const sample_extents& e) {
    using Cfg = typename M::encoder;
    using steps = staticformer::detail::model_composition<
        M, staticformer::detail::float_model_steps<M, kernel_set<reference>, f32, Cfg::tile>>;
    constexpr int first = M::has_cls ? 1 : 0;
    static model_workspace<M, Cfg::tile, f32> ws;
    stage_comparison<Cfg, P> c(w32.encoder, w8.encoder, r);
    std::vector<float> rows(std::size_t(Cfg::seq_len) * Cfg::d_model);
    std::vector<std::uint8_t> hidden(Cfg::seq_len);
    for (int s = 0; s < e.count(); ++s) {
        std::fill(rows.begin(), rows.end(), 0.0f);
        const int n = steps::embed_rows(w32, samples.data() + std::size_t(s) * M::input_values, e.lengths[s],
                                        rows.data(), ws, [](const float*, int) {});
        const key_padding_mask m = e.mask(s);  // the encoder's rows: the CLS row's key kept, then the tokens'
        if (m.masked) std::fill(hidden.begin(), hidden.end(), 0), std::copy(m.masked, m.masked + e.lengths[s], hidden.begin() + first);
        c.observe(rows.data(), n, m.masked ? key_padding_mask{hidden.data(), n} : key_padding_mask{});
    }
    print_stage_table(c.table(), e.count(), "the encoder's output", detail::precision_name<P>);
}

// The tools' command line (header comment above).
struct tool_args {
    std::string calibration, lengths, masks, name = "model", config, header, blob, source = "f32 weights";
    int valid_len = 0;  // 0: every row / token of a sample
    options o;
    // 0 when parsed, else the exit status after a message
    int parse(int argc, char** argv) {
        for (int i = 1; i + 1 < argc; i += 2) {
            const std::string k = argv[i], v = argv[i + 1];
            if (k == "--calibration") calibration = v;
            else if (k == "--valid-len") valid_len = std::atoi(v.c_str());
            else if (k == "--lengths") lengths = v;
            else if (k == "--masks") masks = v;
            else if (k == "--method") o.range = v == "percentile" ? method::percentile : method::min_max;
            else if (k == "--percentile") o.percentile = std::atof(v.c_str());
            else if (k == "--name") name = v;
            else if (k == "--config") config = v;
            else if (k == "--header") header = v;
            else if (k == "--blob") blob = v;
            else if (k == "--source") source = v;
            else return std::fprintf(stderr, "unknown argument %s\n", k.c_str()), 2;
        }
        if (o.percentile <= 50.0 || o.percentile > 100.0) return std::fprintf(stderr, "bad --percentile\n"), 2;
        return 0;
    }
};

// A calibration sample forward() refuses (NaN or infinity, a token id out of range, overflow):
// the data needs fixing, so the tool names it and writes nothing.
inline int refused_sample(const tool_args& a, int sample, status st) {
    std::fprintf(stderr, "calibration file %s: sample %d refused: %s\n", a.calibration.c_str(), sample, to_string(st));
    return 2;
}

// Whole samples of `per_sample` little-endian values of T from path (empty if there are none).
template <class T>
std::vector<T> read_samples(const std::string& path, std::size_t per_sample) {
    std::vector<T> v;
    if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
        T buf[4096];
        std::size_t got;
        while ((got = std::fread(buf, sizeof(T), 4096, f)) > 0) v.insert(v.end(), buf, buf + got);
        std::fclose(f);
    }
    if (v.size() % per_sample != 0) v.clear();
    return v;
}

// The extents of `count` samples of `tokens` rows or tokens each, from --lengths / --masks or
// --valid-len (0: all); 0, or the exit status after a message.
inline int read_extents(const tool_args& a, int count, int tokens, sample_extents& e) {
    e.tokens = tokens;
    e.lengths.assign(std::size_t(count), a.valid_len ? a.valid_len : tokens);
    if (!a.lengths.empty()) e.lengths = read_samples<std::int32_t>(a.lengths, 1);
    if (!a.masks.empty()) e.masks = read_samples<std::uint8_t>(a.masks, std::size_t(tokens));
    if (e.count() != count || (!a.masks.empty() && e.masks.size() != std::size_t(count) * tokens))
        return std::fprintf(stderr, "--lengths / --masks: need one length and %d mask bytes per sample\n", tokens), 2;
    for (const std::int32_t n : e.lengths)
        if (n < 1 || n > tokens) return std::fprintf(stderr, "a valid length %d outside 1..%d\n", int(n), tokens), 2;
    return 0;
}

inline void print_seen(const sample_extents& e) {
    std::printf("calibrated on %d samples, %lld tokens (valid%s)\n", e.count(), e.seen(),
                e.masks.empty() ? "" : ", not masked");
}

// The int8 header (write(FILE*)) and blob (the bytes of `blob_bytes`) the arguments ask for.
template <class WriteHeader, class W>
int write_outputs(const tool_args& a, WriteHeader&& write_header_to, const W& w8, std::size_t blob_bytes) {
    if (!a.header.empty()) {
        std::FILE* f = std::fopen(a.header.c_str(), "w");
        if (!f) return std::fprintf(stderr, "cannot write %s\n", a.header.c_str()), 1;
        write_header_to(f);
        std::fclose(f);
    }
    if (!a.blob.empty()) {
        std::vector<unsigned char> bytes(blob_bytes);
        write_blob(w8, bytes.data(), bytes.size());
        std::FILE* f = std::fopen(a.blob.c_str(), "wb");
        if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size())
            return std::fprintf(stderr, "cannot write %s\n", a.blob.c_str()), 1;
        std::fclose(f);
    }
    return 0;
}

// P: int8 (--precision int8) or a16w8.
template <class Cfg, class P = int8>
int tool_main(const encoder_weights<Cfg, f32>& w32, int argc, char** argv) {
    tool_args a;
    if (const int bad = a.parse(argc, argv)) return bad;
    constexpr std::size_t n = std::size_t(Cfg::seq_len) * Cfg::d_model;
    const std::vector<float> samples = read_samples<float>(a.calibration, n);
    if (samples.empty())
        return std::fprintf(stderr, "calibration file %s: need a whole number of [%d][%d] float32 samples\n",
                            a.calibration.c_str(), Cfg::seq_len, Cfg::d_model), 2;
    const int count = int(samples.size() / n);
    sample_extents e;
    if (const int bad = read_extents(a, count, Cfg::seq_len, e)) return bad;

    calibrator<Cfg> c(w32);
    for (int s = 0; s < count; ++s) {
        if (const status st = c.observe(samples.data() + std::size_t(s) * n, e.lengths[s], e.mask(s));
            st != status::ok)
            return refused_sample(a, s, st);
        detail::progress("calibration", s + 1, count);
    }
    static encoder_weights<Cfg, P> w8;
    const report r = c.quantize(w8, a.o);
    detail::print_report(r);
    print_seen(e);
    print_stages(w32, w8, r, samples.data(), e);
    std::printf("weights: f32 %zu B, %s %zu B (%.4f x)\n", sizeof(w32), detail::precision_name<P>, sizeof(w8),
                double(sizeof(w8)) / double(sizeof(w32)));
    return write_outputs(
        a, [&](std::FILE* f) { detail::write_header(f, a.name.c_str(), a.config.c_str(), w8, a.source.c_str()); }, w8,
        blob::size<Cfg, P>);
}

// The integer model against the f32 one on the calibration samples: the SQNR of the logits (or
// output rows), printed, and how often the arg-max agrees.
template <class M, class P>
void print_model_agreement(const model_weights<M, f32>& w32, const model_weights<M, P>& w8,
                           const std::vector<model_input_t<M>>& samples, const sample_extents& e) {
    static model_workspace_for<M, reference, f32> ws;
    static model_workspace_for<M, reference, P> ws8;
    std::vector<float> y(M::output_values), yq(M::output_values);
    std::vector<model_output_t<M, P>> q(M::output_values);
    std::vector<model_input_t<M, P>> x8(M::input_values);
    double signal = 0, noise = 0;
    int agree = 0;
    for (int s = 0; s < e.count(); ++s) {
        detail::progress("quantised against f32", s + 1, e.count());
        const model_input_t<M>* in = samples.data() + std::size_t(s) * M::input_values;
        forward<reference>(w32, ws, in, y.data(), e.lengths[s], e.mask(s));
        if constexpr (M::input == input_kind::tokens) {
            forward<reference>(w8, ws8, in, q.data(), e.lengths[s], e.mask(s));
        } else {
            quantize_model_input(w8, in, x8.data(), M::input_values);  // (ok: calibration took every sample)
            forward<reference>(w8, ws8, x8.data(), q.data(), e.lengths[s], e.mask(s));
        }
        if constexpr (M::has_head) {
            dequantize_logits(w8, q.data(), yq.data(), M::output_values);
            agree += arg_max(y.data(), M::classes) == arg_max(yq.data(), M::classes);
        } else {
            dequantize_model_output(w8, q.data(), yq.data(), M::output_values);
        }
        for (std::size_t i = 0; i < y.size(); ++i) signal += double(y[i]) * y[i], noise += double(y[i] - yq[i]) * (y[i] - yq[i]);
    }
    std::printf("%s vs f32 on the %d calibration samples: SQNR %.2f dB", detail::precision_name<P>, e.count(),
                noise > 0 ? 10.0 * std::log10(signal / noise) : INFINITY);
    if (M::has_head) std::printf(", arg-max agrees on %d", agree);
    std::printf("\n");
}

// Whole models: --calibration holds samples of model_cfg::input_values values each, int32 token
// ids or float32 features / images; --valid-len: the tokens of each sample (default: all), or
// --lengths and --masks. Prints the encoder's report, the model's own tensors, and the int8
// model against the f32 one on the samples.
template <class M, class P = int8>
int model_tool_main(const model_weights<M, f32>& w32, int argc, char** argv) {
    tool_args a;
    if (const int bad = a.parse(argc, argv)) return bad;
    using in_t = model_input_t<M>;
    const std::vector<in_t> samples = read_samples<in_t>(a.calibration, M::input_values);
    if (samples.empty())
        return std::fprintf(stderr, "calibration file %s: need whole samples of %zu %s values\n", a.calibration.c_str(),
                            M::input_values, M::input == input_kind::tokens ? "int32" : "float32"), 2;
    const int count = int(samples.size() / M::input_values);
    sample_extents e;
    if (const int bad = read_extents(a, count, M::input_tokens, e)) return bad;

    model_calibrator<M> c(w32);
    for (int s = 0; s < count; ++s) {
        if (const status st = c.observe(samples.data() + std::size_t(s) * M::input_values, e.lengths[s], e.mask(s));
            st != status::ok)
            return refused_sample(a, s, st);
        detail::progress("calibration", s + 1, count);
    }
    static model_weights<M, P> w8;
    const model_report r = c.quantize(w8, a.o);
    detail::print_report(r.encoder);
    const auto row = [](const char* what, const tensor_report& t) {
        std::printf("%-6s %-14s %12.6g %5d %8.4f%%\n", "-", what, t.scale, t.zero_point, 100 * t.clipped);
    };
    if (M::input != input_kind::tokens) row("input", r.input);
    row("embedding", r.embedding), row("positions", r.positions), row("embedded", r.embedded);
    if (M::has_pooled_norm || M::has_head) row("pooled", r.pooled);  // (a classifier's int8 input)
    row("logits", r.logits);
    print_seen(e);
    print_model_stages(w32, w8, r.encoder, samples, e);
    print_model_agreement(w32, w8, samples, e);
    std::printf("weights: f32 %zu B, %s %zu B (%.4f x)\n", sizeof(w32), detail::precision_name<P>, sizeof(w8),
                double(sizeof(w8)) / double(sizeof(w32)));
    return write_outputs(
        a, [&](std::FILE* f) { detail::write_model_header(f, a.name.c_str(), a.config.c_str(), w8, a.source.c_str()); },
        w8, blob::model_size<M, P>);
}

}  // namespace quant
}  // namespace staticformer
