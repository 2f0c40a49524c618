// staticformer: the int8 quantisation scheme (host side), defined here once: f32 weights plus
// calibration inputs -> encoder_weights<cfg, int8>. tools/export_pytorch.py --precision int8
// drives this code; it does not restate any formula.
//
//   weights      per output channel, symmetric: scale = max |w| / 127, q = round(w / scale)
//   stream       the residual stream (the encoder's input, every residual add and post-norm
//                LayerNorm output, the output): int16, one symmetric min-max range over all of
//                it, 32767 steps each side; the final LayerNorm's output its own int16 range
//   activations  per tensor: queries, keys, values and attention context symmetric (zero point
//                0; rotary: one range over the values before and after the turn, which
//                keeps their scale); every other tensor asymmetric over [min(lo, 0), max(hi, 0)], 255 steps
//   ranges       min-max of the calibration values, or their percentile (symmetric: of |x|;
//                asymmetric: the (100 - p)th and pth); the stream's always min-max
//   multipliers  m * 2^-shift with m < 2^15 (per-channel linear, stream add and narrow, LayerNorm
//                gamma) or m < 2^31 (softmax logits, attention context), rounded to nearest
// Only IEEE-exact double operations are used (+ - * /, sqrt, floor, frexp), so the result is the
// same on every target.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <vector>

#include "../encoder.hpp"
#include "../weights_a16w8.hpp"
#include "calibration.hpp"

namespace staticformer {
namespace quant {

enum class method { min_max, percentile };

struct options {
    method range = method::min_max;
    double percentile = 99.99;  // for method::percentile
};

// A tensor's chosen quantisation and the share of calibration values outside its range.
struct tensor_report {
    double scale = 1.0;
    int zero_point = 0;
    double clipped = 0.0;
};

struct layer_report {
    tensor_report t[int(point::count)];
};

struct report {
    tensor_report input, output;
    std::vector<layer_report> layer;
    std::size_t saturated_biases = 0;  // biases clamped to +-2^30 (a scale far too small)
};

namespace detail {

constexpr double ln2 = 0.693147180559945309417232121458176568;

inline double round_half_up(double v) { return std::floor(v + 0.5); }

template <class T>
T clamp_to(double v, double lo, double hi) {
    return T(v < lo ? lo : v > hi ? hi : v);
}

// The value at fraction f of the sorted values (index floor(f * (n - 1))).
inline double quantile(std::vector<float> v, double f) {
    if (v.empty()) return 0.0;
    const std::size_t k = std::size_t(f * double(v.size() - 1));
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(k), v.end());
    return v[k];
}

inline tensor_report choose(const std::vector<float>& v, const options& o, bool symmetric) {
    constexpr double smallest = 1.0 / (1 << 20);  // a range no narrower than this
    tensor_report t;
    double lo = 0.0, hi = 0.0;
    if (symmetric) {
        std::vector<float> a(v.size());
        for (std::size_t i = 0; i < v.size(); ++i) a[i] = std::fabs(v[i]);
        double m = 0.0;
        if (o.range == method::min_max)
            for (float x : a) m = std::max(m, double(x));
        else
            m = quantile(a, o.percentile / 100.0);
        m = std::max(m, smallest);
        lo = -m, hi = m;
        t.scale = m / 127.0;
        t.zero_point = 0;
    } else {
        if (o.range == method::min_max) {
            for (float x : v) lo = std::min(lo, double(x)), hi = std::max(hi, double(x));
        } else {
            lo = std::min(0.0, quantile(v, 1.0 - o.percentile / 100.0));
            hi = std::max(0.0, quantile(v, o.percentile / 100.0));
        }
        if (hi - lo < smallest) hi = lo + smallest;
        t.scale = (hi - lo) / 255.0;
        t.zero_point = clamp_to<int>(round_half_up(-128.0 - lo / t.scale), -128, 127);
    }
    std::size_t out = 0;
    for (float x : v) out += (x < lo || x > hi) ? 1 : 0;
    t.clipped = v.empty() ? 0.0 : double(out) / double(v.size());
    return t;
}

// The stream's range: symmetric min-max over every value it held, 32767 steps each side.
inline tensor_report choose_stream(std::initializer_list<const std::vector<float>*> values) {
    double m = 1.0 / (1 << 20);  // a range no narrower than this
    for (const std::vector<float>* v : values)
        for (float x : *v) m = std::max(m, double(std::fabs(x)));
    tensor_report t;
    t.scale = m / 32767.0;
    return t;
}

// real ~ m * 2^-shift with m < 2^bits as large as it can be; shift kept in [1, max_shift].
inline math::fixed_multiplier encode(double real, int bits, int max_shift = 62) {
    if (!(real > 0.0)) return {0, 1};
    int e = 0;
    std::frexp(real, &e);  // real = f * 2^e, f in [0.5, 1)
    int shift = bits - e;
    shift = shift < 1 ? 1 : shift > max_shift ? max_shift : shift;
    const double limit = std::ldexp(1.0, bits) - 1.0;
    return {clamp_to<std::int32_t>(round_half_up(std::ldexp(real, shift)), 0.0, limit), shift};
}

inline std::int8_t quantize_value(double x, const tensor_report& q) {
    return clamp_to<std::int8_t>(round_half_up(x / q.scale) + q.zero_point, -128, 127);
}

// Output o's weights (column o of w, In rows w_stride apart) per channel into q.w: returns their
// scale; sum gets the sum of the int8 weights.
template <class Q>
double quantize_column(const float* w, int w_stride, int o, Q& q, std::int64_t& sum) {
    constexpr int In = Q::inputs;
    double m = 0.0;
    for (int i = 0; i < In; ++i) m = std::max(m, double(std::fabs(w[i * w_stride + o])));
    const double scale = m > 0.0 ? m / 127.0 : 1.0;
    sum = 0;
    for (int g = 0; g < q.in_groups; ++g)
        for (int k = 0; k < 4; ++k) {
            const int i = 4 * g + k;
            const std::int8_t v = i < In ? clamp_to<std::int8_t>(round_half_up(w[i * w_stride + o] / scale), -127, 127) : 0;
            q.w[g][o][k] = v;
            sum += v;
        }
    return scale;
}

// A linear layer's weights, biases, shift and multipliers (linear_int8 or linear_a16w8); out: the
// outputs' range; glu's first linear gives outputs from gate_from on the range `gate`, whose
// multipliers carry its scale.
template <class Q>
void quantize_weights(const float* w, int w_stride, const float* b, const tensor_report& in, const tensor_report& out,
                      Q& q, report& rep, const tensor_report* gate, int gate_from) {
    constexpr int Out = Q::outputs;
    constexpr std::int64_t bound = Q::bias_limit;  // load_blob's range
    constexpr double limit = double(bound < (1 << 30) ? bound : (1 << 30));
    std::vector<double> real(Out);
    for (int o = 0; o < Out; ++o) {
        std::int64_t sum = 0;
        const double scale = quantize_column(w, w_stride, o, q, sum);
        const double bias = round_half_up(double(b[o]) / (in.scale * scale)) - double(in.zero_point) * double(sum);
        if (bias > limit || bias < -limit) ++rep.saturated_biases;
        q.bias[o] = clamp_to<std::int32_t>(bias, -limit, limit);
        real[o] = in.scale * scale / (o < gate_from ? out : *gate).scale;
    }
    const double largest = *std::max_element(real.begin(), real.end());
    q.shift = encode(largest, 15).shift;
    for (int o = 0; o < Out; ++o)
        q.multiplier[o] = clamp_to<std::int16_t>(round_half_up(std::ldexp(real[o], q.shift)), 0, 32767);
    for (int o = Out; o < q.multiplier_count; ++o) q.multiplier[o] = 0;  // the layout's padding
}

// int8: the outputs' zero point; glu's gate outputs' biases also carry the step from out's zero
// point to the gate's.
template <int In, int Out>
void quantize_linear(const float* w, int w_stride, const float* b, const tensor_report& in, const tensor_report& out,
                     linear_int8<In, Out>& q, report& rep, const tensor_report* gate = nullptr, int gate_from = Out) {
    constexpr std::int64_t bound = linear_int8<In, Out>::bias_limit;
    constexpr double limit = double(bound < (1 << 30) ? bound : (1 << 30));
    quantize_weights(w, w_stride, b, in, out, q, rep, gate, gate_from);
    for (int o = gate_from; o < Out; ++o) {  // the zero point's step, in bias units (none at multiplier 0)
        if (q.multiplier[o] == 0) continue;
        const double step = std::ldexp(double(gate->zero_point - out.zero_point), q.shift) / q.multiplier[o];
        q.bias[o] = clamp_to<std::int32_t>(double(q.bias[o]) + round_half_up(step), -limit, limit);
    }
    q.output_zero_point = out.zero_point;
}

template <int N, bool Rms>
void quantize_layer_norm(const float* gamma, const float* beta, float eps, const tensor_report& in,
                         const tensor_report& out, layer_norm_int8<N, Rms>& q) {
    double largest = 0.0;
    for (int c = 0; c < N; ++c) largest = std::max(largest, std::fabs(double(gamma[c])) / out.scale);
    int g = encode(largest, 15).shift;  // gamma * 2^g / s_out < 2^15
    g = g > 14 ? 14 : g < -7 ? -7 : g;  // beta * 2^(8 + g) within 2^29 while it matters; shift >= 1
    q.shift = 8 + g;
    for (int c = 0; c < N; ++c) {
        q.gamma[c] = clamp_to<std::int16_t>(round_half_up(std::ldexp(double(gamma[c]) / out.scale, g)), -32767, 32767);
        q.beta[c] = clamp_to<std::int32_t>(round_half_up(std::ldexp(double(beta[c]) / out.scale, 8 + g)),
                                           -double(1 << 29), double(1 << 29));
    }
    for (int c = N; c < q.gamma_count; ++c) q.gamma[c] = 0;  // the layout's padding
    const double e = round_half_up(double(eps) * double(N) * double(N) / (in.scale * in.scale));
    q.eps = clamp_to<std::int64_t>(e, 0.0, std::ldexp(1.0, 62));
    q.output_zero_point = out.zero_point;
    if constexpr (Rms) q.input_zero_point = in.zero_point, q.reserved = 0;
}

// An int8 tensor a into the stream s: x += rescale(a - za, m, shift), m / 2^shift = s_a / s.
inline stream_add_int8 quantize_stream_add(const tensor_report& a, const tensor_report& stream) {
    const math::fixed_multiplier m = encode(a.scale / stream.scale, 15, 30);
    return {a.zero_point, m.multiplier, m.shift, 0};
}

// The stream s narrowed to the int8 tensor y: m / 2^shift = s / s_y.
inline stream_narrow_int8 quantize_narrow(const tensor_report& stream, const tensor_report& y) {
    const math::fixed_multiplier m = encode(stream.scale / y.scale, 15, 30);
    return {m.multiplier, m.shift, y.zero_point, 0};
}

// glu's product of the activation a and the gate b into the hidden layer's range.
inline gate_int8 quantize_gate(const tensor_report& a, const tensor_report& b, const tensor_report& out) {
    const double real = a.scale * b.scale / out.scale;
    gate_int8 q{};
    q.shift = encode(real, 15).shift;
    q.multiplier = clamp_to<std::int32_t>(round_half_up(std::ldexp(real, q.shift)), 0, 32767);
    q.a_zero_point = a.zero_point;
    q.b_zero_point = b.zero_point;
    q.output_zero_point = out.zero_point;
    return q;
}

template <activation_kind Act>
void activation_table(const tensor_report& in, const tensor_report& out, std::int8_t* table) {
    for (int v = -128; v < 128; ++v) {
        float x = float(double(v - in.zero_point) * in.scale);
        kernels::reference::activate<Act>(&x, 1);
        table[v + 128] = quantize_value(double(x), out);
    }
}

// ---- a16w8: int8 weights as above, every activation int16 and symmetric, scaled to the limit
// its consumers' int32 sums allow (kernels/params_a16w8.hpp) --------------------------------

// Each int16 range (and the stream's) spans this many times the calibrated extent.
constexpr double a16_headroom = 2.0;

// A tensor's symmetric range over `limit` steps each side (min-max or percentile of |x|, with
// the headroom).
inline tensor_report choose_a16(const std::vector<float>& v, const options& o, std::int32_t limit) {
    tensor_report t = choose(v, o, true);
    t.scale = t.scale * 127.0 * a16_headroom / limit;
    return t;
}

// a16w8: the outputs clamped to out_limit (symmetric ranges: no zero points).
template <int In, int Out>
void quantize_linear(const float* w, int w_stride, const float* b, const tensor_report& in, const tensor_report& out,
                     std::int32_t out_limit, linear_a16w8<In, Out>& q, report& rep, const tensor_report* gate = nullptr,
                     int gate_from = Out) {
    quantize_weights(w, w_stride, b, in, out, q, rep, gate, gate_from);
    q.output_limit = out_limit;
}

// A LayerNorm into a block input of `limit` steps: the calibrated range, widened until no input
// can take an output past the limit (weights_a16w8.hpp, norm_output_bound). Returns the range.
template <int N, bool Rms>
tensor_report quantize_block_norm(const float* gamma, const float* beta, float eps, const tensor_report& in,
                                  tensor_report out, std::int32_t limit, layer_norm_int8<N, Rms>& q) {
    double worst = 0.0;  // |z| <= sqrt(N) in real units
    for (int c = 0; c < N; ++c)
        worst = std::max(worst, std::fabs(double(gamma[c])) * std::sqrt(double(N)) + std::fabs(double(beta[c])));
    out.scale = std::max(out.scale, worst / limit);
    for (int step = 0; step < 4096; ++step, out.scale *= 1.01) {  // (1.01^4096 > 10^17: any finite weights)
        quantize_layer_norm(gamma, beta, eps, in, out, q);
        if (staticformer::detail::norm_output_bound(q) <= limit) break;
    }
    return out;  // (non-finite weights: is_valid refuses what is left)
}

// The activation at the table's 513 points, x = (-32768 + 128 k) s_in, into the output's range.
template <activation_kind Act>
void activation_table(const tensor_report& in, const tensor_report& out, std::int32_t limit, activation_a16w8& a) {
    for (int k = 0; k < a.points; ++k) {
        float x = float(double(-32768 + 128 * k) * in.scale);
        kernels::reference::activate<Act>(&x, 1);
        a.table[k] = clamp_to<std::int16_t>(round_half_up(double(x) / out.scale), -limit, limit);
    }
    for (int k = a.points; k < int(sizeof a.table / sizeof a.table[0]); ++k) a.table[k] = 0;
}

inline gate_a16w8 quantize_gate(const tensor_report& a, const tensor_report& b, const tensor_report& out,
                                std::int32_t limit) {
    const gate_int8 g = quantize_gate(a, b, out);
    return {g.multiplier, g.shift, limit, 0};
}

inline stream_narrow_a16w8 quantize_narrow(const tensor_report& stream, const tensor_report& y, std::int32_t limit) {
    const stream_narrow_int8 n = quantize_narrow(stream, y);
    return {n.multiplier, n.shift, limit, 0};
}

}  // namespace detail

// Collects calibration statistics: each observe() runs the f32 reference encoder on one input
// (seq_len * d_model floats, valid_len real rows) and records its tensors.
template <class Cfg>
class calibrator {
public:
    explicit calibrator(const encoder_weights<Cfg, f32>& w) : weights_(w) { pass_->rec.weights = &w; }

    // output: where to leave the f32 encoder's output (seq_len * d_model floats), if wanted.
    // Returns forward()'s status for this input; unless ok, nothing is recorded (a NaN input or an
    // overflowing pass would otherwise set ranges) and output is untouched.
    status observe(const float* x, int valid_len, float* output = nullptr) { return observe(x, valid_len, {}, output); }
    // The same for an input with a key padding mask (mask.hpp), as forward() takes it.
    status observe(const float* x, int valid_len, key_padding_mask mask, float* output = nullptr) {
        float* y = pass_->y;  // in the pass: the recorder finds the recording from what it writes
        const std::vector<std::size_t> before = pass_->rec.sizes();
        const status s =
            staticformer::forward_with<detail::recorder<Cfg>>(weights_, pass_->ws, x, y, valid_len, mask);
        if (s != status::ok) {
            pass_->rec.truncate(before);
            return s;
        }
        const std::size_t valid = std::size_t(valid_len) * Cfg::d_model;
        recording<Cfg>::append(pass_->rec.input, x, valid);
        recording<Cfg>::append(pass_->rec.output, y, valid);
        if (output != nullptr) std::copy(y, y + std::size_t(Cfg::seq_len) * Cfg::d_model, output);
        return status::ok;
    }

    // Chooses every tensor's range and quantises the weights into q (int8 or a16w8).
    template <class P>
    report quantize(encoder_weights<Cfg, P>& q, const options& o = {}) const {
        static_assert(std::is_same<P, int8>::value || std::is_same<P, a16w8>::value, "quantize: int8 or a16w8 weights");
        // a16w8's int16 ranges keep twice the calibrated extent: inputs the calibration never saw
        // reach past it (the output projection's by 30% on the reference configurations), and
        // 15 bits leave room to spare.
        constexpr double headroom = std::is_same<P, a16w8>::value ? detail::a16_headroom : 1.0;
        report rep;
        rep.layer.resize(Cfg::layers);
        tensor_report stream = stream_range();
        stream.scale *= headroom;
        rep.input = stream;
        for (int l = 0; l < Cfg::layers; ++l) quantize_layer(l, stream, o, q.layer[l], rep);
        rep.output = stream;
        if constexpr (Cfg::has_final_norm) {
            rep.output = detail::choose_stream({&rec_.final_out});
            rep.output.scale *= headroom;
            detail::quantize_layer_norm(weights_.final_norm.gamma, values_of(weights_.final_norm.beta), Cfg::final_eps,
                                        stream, rep.output, q.final_norm.norm);
        }
        q.input = {float(rep.input.scale), 0};
        q.output = {float(rep.output.scale), 0};
        return rep;
    }

private:
    template <class>
    friend class model_calibrator;  // rolls a model pass back when its head overflows

    // The stream's one range: the input, each layer's stream values (the LayerNorms' inputs, and
    // post-norm their outputs), the stream leaving the last layer.
    tensor_report stream_range() const {
        std::initializer_list<const std::vector<float>*> ends = {&rec_.input, &rec_.final_in, &rec_.output};
        tensor_report t = detail::choose_stream(ends);
        for (const observations& obs : rec_.layer) {
            const tensor_report inner = Cfg::norm_first
                ? detail::choose_stream({&obs[point::norm1_in], &obs[point::norm2_in]})
                : detail::choose_stream({&obs[point::norm1_in], &obs[point::norm1_out], &obs[point::norm2_in],
                                         &obs[point::norm2_out]});
            t.scale = std::max(t.scale, inner.scale);
        }
        return t;
    }

    // The int8 tensor a post-norm layer's attention block reads: the stream entering it.
    const std::vector<float>& entering(int l) const {
        return l == 0 ? rec_.input : rec_.layer[l - 1][point::norm2_out];
    }

    // Layer l's tensors and parameters; the stream's values are in its one range.
    void quantize_layer(int l, const tensor_report& stream, const options& o, layer_weights_int8<Cfg>& lq,
                        report& rep) const {
        using detail::choose;
        constexpr int D = Cfg::d_model;
        const auto& w = weights_.layer[l];
        const observations& obs = rec_.layer[l];
        tensor_report* t = rep.layer[l].t;
        auto pick = [&](point p, bool symmetric) -> tensor_report& {
            return t[int(p)] = choose(obs[p], o, symmetric);
        };
        // The LayerNorms read the stream; post-norm they write it, pre-norm an int8 block input.
        t[int(point::norm1_in)] = t[int(point::norm2_in)] = stream;
        const tensor_report& norm1_out = Cfg::norm_first ? pick(point::norm1_out, false) : (t[int(point::norm1_out)] = stream);
        const tensor_report& norm2_out = Cfg::norm_first ? pick(point::norm2_out, false) : (t[int(point::norm2_out)] = stream);
        const tensor_report& query = pick(point::query, true);
        const tensor_report& key = pick(point::key, true);
        const tensor_report& value = pick(point::value, true);
        const tensor_report& context = pick(point::context, true);
        const tensor_report& attention_out = pick(point::attention_out, false);
        const tensor_report& ff1 = pick(point::ff1, false);
        const tensor_report& activation = pick(point::activation, false);
        const tensor_report& gate_in = Cfg::is_gated ? pick(point::gate_in, false) : ff1;
        const tensor_report& hidden = Cfg::is_gated ? pick(point::gate, false) : activation;
        const tensor_report& ff2 = pick(point::ff2, false);

        // Each block's int8 input: pre-norm LN(stream); post-norm the stream narrowed to int8.
        const tensor_report attention_in = Cfg::norm_first ? norm1_out : choose(entering(l), o, false);
        const tensor_report ffn_in = Cfg::norm_first ? norm2_out : choose(obs[point::norm1_out], o, false);
        lq.input1 = lq.input2 = {};  // (the parts a configuration does not use stay 0)
        lq.gate = {};
        for (std::int32_t& r : lq.reserved) r = 0;
        if constexpr (!Cfg::norm_first) {
            lq.input1 = detail::quantize_narrow(stream, attention_in);
            lq.input2 = detail::quantize_narrow(stream, ffn_in);
        }

        constexpr int KV = Cfg::kv_dim, QKV = Cfg::qkv_width;
        const float* b = values_of(w.qkv_b);
        detail::quantize_linear(&w.qkv_w[0][0], QKV, b, attention_in, query, lq.query, rep);
        detail::quantize_linear(&w.qkv_w[0][D], QKV, b + D, attention_in, key, lq.key, rep);
        detail::quantize_linear(&w.qkv_w[0][D + KV], QKV, b + D + KV, attention_in, value, lq.value, rep);
        lq.attention.logits = detail::encode(
            65536.0 * query.scale * key.scale / (std::sqrt(double(Cfg::head_dim)) * detail::ln2), 31);
        lq.attention.context = detail::encode(value.scale / (32768.0 * context.scale), 31);
        detail::quantize_linear(&w.out_w[0][0], D, values_of(w.out_b), context, attention_out, lq.out, rep);
        lq.residual1 = detail::quantize_stream_add(attention_out, stream);
        detail::quantize_layer_norm(w.norm1_gamma, values_of(w.norm1_beta), Cfg::eps, stream, norm1_out, lq.norm1);

        detail::quantize_linear(&w.ff1_w[0][0], Cfg::ff1_width, values_of(w.ff1_b), ffn_in, ff1, lq.ff1, rep,
                                &gate_in, Cfg::d_ff);
        detail::activation_table<Cfg::activation>(ff1, activation, lq.activation);
        if constexpr (Cfg::is_gated) lq.gate = detail::quantize_gate(activation, gate_in, hidden);
        detail::quantize_linear(&w.ff2_w[0][0], D, values_of(w.ff2_b), hidden, ff2, lq.ff2, rep);
        lq.residual2 = detail::quantize_stream_add(ff2, stream);
        detail::quantize_layer_norm(w.norm2_gamma, values_of(w.norm2_beta), Cfg::eps, stream, norm2_out, lq.norm2);
    }

    // a16w8's layer l: every tensor symmetric over its consumers' limit (params_a16w8.hpp).
    void quantize_layer(int l, const tensor_report& stream, const options& o, layer_weights_a16w8<Cfg>& lq,
                        report& rep) const {
        constexpr int D = Cfg::d_model, KV = Cfg::kv_dim, QKV = Cfg::qkv_width;
        constexpr std::int32_t in_d = a16w8_limits::input_limit(D), whole = 32767;
        constexpr std::int32_t scores = a16w8_limits::score_limit(Cfg::head_dim);
        const auto& w = weights_.layer[l];
        const observations& obs = rec_.layer[l];
        tensor_report* t = rep.layer[l].t;
        auto pick = [&](point p, std::int32_t limit) -> tensor_report& {
            return t[int(p)] = detail::choose_a16(obs[p], o, limit);
        };
        t[int(point::norm1_in)] = t[int(point::norm2_in)] = stream;
        lq.input1 = lq.input2 = {};  // (the parts a configuration does not use stay 0)
        lq.gate = {};
        for (std::int32_t& r : lq.reserved) r = 0;
        // Each block's input: pre-norm LN(stream), its range widened to the LayerNorm's bound;
        // post-norm the stream narrowed.
        tensor_report attention_in, ffn_in;
        if constexpr (Cfg::norm_first) {
            attention_in = t[int(point::norm1_out)] = detail::quantize_block_norm(
                w.norm1_gamma, values_of(w.norm1_beta), Cfg::eps, stream, pick(point::norm1_out, in_d), in_d, lq.norm1);
            ffn_in = t[int(point::norm2_out)] = detail::quantize_block_norm(
                w.norm2_gamma, values_of(w.norm2_beta), Cfg::eps, stream, pick(point::norm2_out, in_d), in_d, lq.norm2);
        } else {
            t[int(point::norm1_out)] = t[int(point::norm2_out)] = stream;
            attention_in = detail::choose_a16(entering(l), o, in_d);
            ffn_in = detail::choose_a16(obs[point::norm1_out], o, in_d);
            lq.input1 = detail::quantize_narrow(stream, attention_in, in_d);
            lq.input2 = detail::quantize_narrow(stream, ffn_in, in_d);
            detail::quantize_layer_norm(w.norm1_gamma, values_of(w.norm1_beta), Cfg::eps, stream, stream, lq.norm1);
            detail::quantize_layer_norm(w.norm2_gamma, values_of(w.norm2_beta), Cfg::eps, stream, stream, lq.norm2);
        }
        const tensor_report& query = pick(point::query, scores);
        const tensor_report& key = pick(point::key, scores);
        const tensor_report& value = pick(point::value, whole);
        const tensor_report& context = pick(point::context, in_d);
        const tensor_report& attention_out = pick(point::attention_out, whole);
        const float* b = values_of(w.qkv_b);
        detail::quantize_linear(&w.qkv_w[0][0], QKV, b, attention_in, query, scores, lq.query, rep);
        detail::quantize_linear(&w.qkv_w[0][D], QKV, b + D, attention_in, key, scores, lq.key, rep);
        detail::quantize_linear(&w.qkv_w[0][D + KV], QKV, b + D + KV, attention_in, value, whole, lq.value, rep);
        lq.attention.logits = detail::encode(
            65536.0 * query.scale * key.scale / (std::sqrt(double(Cfg::head_dim)) * detail::ln2), 31);
        lq.attention.context = detail::encode(value.scale / (32768.0 * context.scale), 31);
        lq.attention.context_limit = in_d;
        lq.attention.reserved = 0;
        detail::quantize_linear(&w.out_w[0][0], D, values_of(w.out_b), context, attention_out, whole, lq.out, rep);
        lq.residual1 = detail::quantize_stream_add(attention_out, stream);
        quantize_feed_forward(l, ffn_in, stream, o, lq, rep);
    }
    // a16w8's feed-forward block: ff1 (glu: [a | gate]) over the whole int16 range, the hidden
    // layer within ff2's input limit.
    void quantize_feed_forward(int l, const tensor_report& ffn_in, const tensor_report& stream, const options& o,
                               layer_weights_a16w8<Cfg>& lq, report& rep) const {
        constexpr int D = Cfg::d_model, F = Cfg::d_ff;
        constexpr std::int32_t in_f = a16w8_limits::input_limit(F), whole = 32767;
        const auto& w = weights_.layer[l];
        const observations& obs = rec_.layer[l];
        tensor_report* t = rep.layer[l].t;
        auto pick = [&](point p, std::int32_t limit) -> tensor_report& {
            return t[int(p)] = detail::choose_a16(obs[p], o, limit);
        };
        const tensor_report& ff1 = pick(point::ff1, whole);
        const tensor_report& activation = pick(point::activation, Cfg::is_gated ? whole : in_f);
        const tensor_report& gate_in = Cfg::is_gated ? pick(point::gate_in, whole) : ff1;
        const tensor_report& hidden = Cfg::is_gated ? pick(point::gate, in_f) : activation;
        const tensor_report& ff2 = pick(point::ff2, whole);
        detail::quantize_linear(&w.ff1_w[0][0], Cfg::ff1_width, values_of(w.ff1_b), ffn_in, ff1, whole, lq.ff1, rep,
                                &gate_in, F);
        detail::activation_table<Cfg::activation>(ff1, activation, Cfg::is_gated ? whole : in_f, lq.activation);
        if constexpr (Cfg::is_gated) lq.gate = detail::quantize_gate(activation, gate_in, hidden, in_f);
        detail::quantize_linear(&w.ff2_w[0][0], D, values_of(w.ff2_b), hidden, ff2, whole, lq.ff2, rep);
        lq.residual2 = detail::quantize_stream_add(ff2, stream);
    }

    const encoder_weights<Cfg, f32>& weights_;
    std::unique_ptr<detail::observed_pass<Cfg>> pass_ = std::make_unique<detail::observed_pass<Cfg>>();
    const recording<Cfg>& rec_ = pass_->rec;  // (the pass stays where it is when the calibrator moves)
};

}  // namespace quant
}  // namespace staticformer
