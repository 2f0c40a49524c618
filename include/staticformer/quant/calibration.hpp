// staticformer: calibration of the int8 path (host side: uses the heap and floating point).
//
// The f32 reference encoder runs on the user's calibration inputs through an observing kernel
// set: the very composition of encoder.hpp, with each kernel's output (and each LayerNorm's
// input) recorded. The recorded values give every int8 tensor its range, by min-max or by
// percentile. No static or thread-local state: each calibrator records into its own memory
// (observed_pass below), so calibrators in different threads never meet.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../encoder.hpp"
#include "../kernels/decorated.hpp"

namespace staticformer {
namespace quant {

// The float tensors of one layer that become int8 tensors.
enum class point : int {
    norm1_in,       // post-norm: stream + attention; pre-norm: the stream entering the layer
    norm1_out,
    query,
    key,
    value,
    context,
    attention_out,  // output projection
    norm2_in,       // post-norm: stream + feed-forward; pre-norm: stream + attention
    norm2_out,
    ff1,            // before the activation (glu: the activated half, a)
    activation,
    gate_in,        // glu: the first linear's other half, the gate b
    gate,           // glu: activation * b, the hidden layer
    ff2,
    count
};

struct observations {
    std::vector<float> value[int(point::count)];
    std::vector<float>& operator[](point p) { return value[int(p)]; }
    const std::vector<float>& operator[](point p) const { return value[int(p)]; }
};

template <class Cfg>
struct recording {
    const encoder_weights<Cfg, f32>* weights = nullptr;
    std::vector<observations> layer = std::vector<observations>(Cfg::layers);
    std::vector<float> input, final_in, final_out, output;
    int current_layer = 0;  // the layer of the last projection: attention and activation belong to it
    point current = point::count;  // and its tensor: a rotary turn's belongs to it

    static void append(std::vector<float>& v, const float* p, std::size_t n) { v.insert(v.end(), p, p + n); }

    // Every recorded tensor, in one fixed order (a refused pass is rolled back through it).
    template <class F>
    void each(F f) {
        for (observations& o : layer)
            for (std::vector<float>& v : o.value) f(v);
        for (std::vector<float>* v : {&input, &final_in, &final_out, &output}) f(*v);
    }
    std::vector<std::size_t> sizes() {
        std::vector<std::size_t> n;
        each([&](std::vector<float>& v) { n.push_back(v.size()); });
        return n;
    }
    void truncate(const std::vector<std::size_t>& n) {
        std::size_t i = 0;
        each([&](std::vector<float>& v) { v.resize(n[i++]); });
    }
};

namespace detail {

constexpr std::size_t power_of_two_at_least(std::size_t n) {
    std::size_t p = 1;
    while (p < n) p *= 2;
    return p;
}

// All memory one observed pass writes: the workspace and the output rows (forward_with writes
// nothing else), beside the recording its kernels append to.
template <class Cfg>
struct pass_memory {
    recording<Cfg> rec;
    workspace<Cfg> ws;
    alignas(64) float y[Cfg::seq_len * Cfg::d_model];
};

// pass_memory aligned to its own size rounded up to a power of two: masking the address of any
// buffer a kernel writes gives the start of its pass, hence its recording (the kernels are static
// functions: this is how they reach per-calibrator state without a static or thread-local).
template <class Cfg>
struct alignas(power_of_two_at_least(sizeof(pass_memory<Cfg>))) observed_pass : pass_memory<Cfg> {};

// What the recorder's kernels record into the recording of the pass whose memory they write
// (each linear layer's output, each LayerNorm's input and output, attention's context, the
// activation's output). It finds the layer and tensor of each call from the weights' addresses.
template <class Cfg>
struct record {
    static constexpr int D = Cfg::d_model;

    // The recording of the pass that owns `written` (a buffer inside an observed_pass<Cfg>).
    static recording<Cfg>& of(const float* written) noexcept {
        constexpr std::uintptr_t mask = ~std::uintptr_t(alignof(observed_pass<Cfg>) - 1);
        return reinterpret_cast<observed_pass<Cfg>*>(reinterpret_cast<std::uintptr_t>(written) & mask)->rec;
    }
    template <class T>  // float or const float
    static void append(std::vector<float>& v, kernels::rows_view<T> t) {
        if (t.stride == t.cols) return recording<Cfg>::append(v, t.data, std::size_t(t.rows) * t.cols);
        for (int r = 0; r < t.rows; ++r) recording<Cfg>::append(v, t.data + r * t.stride, std::size_t(t.cols));
    }

    template <kernels::op_kind Kind, class Call>
    static void run(const Call& call) noexcept {
        using kernels::op_kind;
        if constexpr (Kind == op_kind::linear) {
            call();
            recording<Cfg>& rec = of(call.out.data);
            const float* w = call.params;  // f32 weights
            for (int l = 0; l < Cfg::layers; ++l) {
                const auto& lw = rec.weights->layer[l];
                const point p = w == &lw.qkv_w[0][0]                ? point::query
                                : w == &lw.qkv_w[0][D]              ? point::key
                                : w == &lw.qkv_w[0][D + Cfg::kv_dim] ? point::value
                                : w == &lw.out_w[0][0]              ? point::attention_out
                                : w == &lw.ff1_w[0][0]              ? point::ff1
                                : w == &lw.ff2_w[0][0]              ? point::ff2
                                                                    : point::count;
                if (p == point::count) continue;
                if (Cfg::is_gated && p == point::ff1) {  // each half its own range
                    const kernels::rows_view<float> o = call.out;
                    append(rec.layer[l][point::ff1], kernels::rows_view<float>{o.data, o.rows, Cfg::d_ff, o.stride});
                    append(rec.layer[l][point::gate_in],
                           kernels::rows_view<float>{o.data + Cfg::d_ff, o.rows, Cfg::d_ff, o.stride});
                } else {
                    append(rec.layer[l][p], call.out);
                }
                rec.current_layer = l;
                rec.current = p;
            }
        } else if constexpr (Kind == op_kind::layer_norm) {
            recording<Cfg>& rec = of(call.out.data);
            std::vector<float>*in = nullptr, *out = nullptr;
            for (int l = 0; l < Cfg::layers; ++l) {
                const auto& lw = rec.weights->layer[l];
                auto& obs = rec.layer[l];
                if (call.params == lw.norm1_gamma) in = &obs[point::norm1_in], out = &obs[point::norm1_out];
                if (call.params == lw.norm2_gamma) in = &obs[point::norm2_in], out = &obs[point::norm2_out];
            }
            if (in == nullptr) in = &rec.final_in, out = &rec.final_out;
            append(*in, call.in);  // before the call: y may be x
            call();
            append(*out, call.out);
        } else if constexpr (Kind == op_kind::rotary) {
            // The turned queries or keys join their projection's values: their int8 scale covers both.
            call();
            recording<Cfg>& rec = of(call.out.data);
            append(rec.layer[rec.current_layer][rec.current], call.out);
        } else if constexpr (Kind == op_kind::context || Kind == op_kind::activation || Kind == op_kind::gate) {
            call();
            recording<Cfg>& rec = of(call.out.data);
            const point p = Kind == op_kind::context ? point::context
                            : Kind == op_kind::gate  ? point::gate
                                                     : point::activation;
            append(rec.layer[rec.current_layer][p], call.out);
        } else {
            call();
        }
    }
};

// The reference kernel set, recording what it computes (record above).
template <class Cfg>
using recorder = kernels::decorated<kernel_set<reference>, record<Cfg>>;

}  // namespace detail

}  // namespace quant
}  // namespace staticformer
