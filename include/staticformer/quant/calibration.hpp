// staticformer: calibration of the int8 path (host side: uses the heap and floating point).
//
// The f32 reference encoder runs on the user's calibration inputs through an observing kernel
// set: the very composition of encoder.hpp, with each kernel's output (and each LayerNorm's
// input) recorded. The recorded values give every int8 tensor its range, by min-max or by
// percentile.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "../encoder.hpp"

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
    ff1,            // before the activation
    activation,
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

    static void append(std::vector<float>& v, const float* p, std::size_t n) { v.insert(v.end(), p, p + n); }
};

namespace detail {

// The reference kernel set, recording what it computes into recorder<Cfg>::active. It finds the
// layer and tensor of each call from the weights' addresses.
template <class Cfg>
struct recorder : kernel_set<reference> {
    static inline recording<Cfg>* active = nullptr;
    using base = kernel_set<reference>;
    static constexpr int D = Cfg::d_model;

    template <int In, int Out, int WStride = Out>
    static void linear(const float* x, int rows, const float* w, const float* b, float* y) noexcept {
        base::linear<In, Out, WStride>(x, rows, w, b, y);
        for (int l = 0; l < Cfg::layers; ++l) {
            const auto& lw = active->weights->layer[l];
            auto& obs = active->layer[l];
            const point p = w == &lw.qkv_w[0][0]       ? point::query
                            : w == &lw.qkv_w[0][D]     ? point::key
                            : w == &lw.qkv_w[0][2 * D] ? point::value
                            : w == &lw.out_w[0][0]     ? point::attention_out
                            : w == &lw.ff1_w[0][0]     ? point::ff1
                            : w == &lw.ff2_w[0][0]     ? point::ff2
                                                       : point::count;
            if (p == point::count) continue;
            recording<Cfg>::append(obs[p], y, std::size_t(rows) * Out);
            active->current_layer = l;
        }
    }
    template <int N>
    static void layer_norm(const float* x, int rows, const float* g, const float* b, float eps, float* y) noexcept {
        const std::size_t n = std::size_t(rows) * N;
        std::vector<float>*in = nullptr, *out = nullptr;
        for (int l = 0; l < Cfg::layers; ++l) {
            const auto& lw = active->weights->layer[l];
            auto& obs = active->layer[l];
            if (g == lw.norm1_gamma) in = &obs[point::norm1_in], out = &obs[point::norm1_out];
            if (g == lw.norm2_gamma) in = &obs[point::norm2_in], out = &obs[point::norm2_out];
        }
        if (in == nullptr) in = &active->final_in, out = &active->final_out;
        recording<Cfg>::append(*in, x, n);
        base::layer_norm<N>(x, rows, g, b, eps, y);
        recording<Cfg>::append(*out, y, n);
    }
    template <int HeadDim, int VStride, int PStride>
    static void attention_context(const float* p, int rows, const float* v, int n, float* ctx) noexcept {
        base::attention_context<HeadDim, VStride, PStride>(p, rows, v, n, ctx);
        for (int r = 0; r < rows; ++r)
            recording<Cfg>::append(active->layer[active->current_layer][point::context], ctx + r * VStride, HeadDim);
    }
    template <activation_kind Act>
    static void activate(float* x, int n) noexcept {
        base::activate<Act>(x, n);
        recording<Cfg>::append(active->layer[active->current_layer][point::activation], x, std::size_t(n));
    }
};

}  // namespace detail

}  // namespace quant
}  // namespace staticformer
