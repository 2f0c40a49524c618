// staticformer: where int8 or a16w8 loses accuracy (host side: heap and floating point). A
// stage_comparison runs the f32 reference encoder and its int8 (or a16w8) quantisation on the same
// inputs, each through a kernel set that records every quantised tensor (the integer ones
// dequantised with the scale the quantiser chose), and gives the SQNR of each against the f32 value, layer by
// layer: the linear outputs, the attention scores and probabilities, the context (the output
// projection's input), the LayerNorms' inputs (the residual stream) and outputs, the activation
// and the gate; then the encoder's output and its branch (output minus input: what the layers add).
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "calibration.hpp"
#include "convert.hpp"
#include "quantize.hpp"

namespace staticformer {
namespace quant {

// Signal and noise energies of a tensor; sqnr() in dB (infinity without noise, NaN if empty).
struct sqnr_sum {
    double signal = 0.0, noise = 0.0;
    std::size_t count = 0;
    void add(double reference, double measured) {
        signal += reference * reference, noise += (reference - measured) * (reference - measured), ++count;
    }
    double sqnr() const { return count == 0 ? NAN : noise > 0 ? 10.0 * std::log10(signal / noise) : INFINITY; }
};

struct stage_table {
    std::vector<std::vector<sqnr_sum>> layer;  // [layer][point]
    std::vector<sqnr_sum> scores, probabilities;  // [layer]: attention's logits (after 1 / sqrt(head_dim)), softmax
    sqnr_sum output, branch;
};

namespace detail {

// The tensors one pass recorded, as floats, in the composition's order, and what identifies
// them: P's layer weights (f32: the matrices and gammas; int8, a16w8: the parameter blocks) and,
// for those, each tensor's quantisation (the report's).
template <class Cfg, class P>
struct stage_recording {
    const encoder_weights<Cfg, P>* weights = nullptr;
    static constexpr bool integer = is_integer_precision<P>;
    const report* rep = nullptr;  // integer only
    std::vector<observations> layer = std::vector<observations>(Cfg::layers);
    int current_layer = 0;
    // A pre-norm encoder normalises the rows twice before attention, for the keys and values, then
    // for the queries: the first LayerNorm's tensors wait for the projection that reads them, and
    // count only before the queries' (so each row counts once, in both passes alike).
    std::vector<float> pending_in, pending_out;
    // Attention runs head by head (float) or row by row (integer): its rows are kept by (layer, row,
    // head), the row from the tile's queries (their buffer, the tile's first row) and q's offset.
    using row_key = std::tuple<int, int, int>;
    std::map<row_key, std::vector<float>> scores, probabilities;
    std::vector<row_key> scored;  // the rows of the scores not yet through the softmax, in order
    const void* queries = nullptr;
    int tile_layer = -1, tile_r0 = 0, tile_rows = 0;

    void start_tile(int l, const void* q, int rows) {
        tile_r0 = l == tile_layer ? tile_r0 + tile_rows : 0;
        tile_layer = l, tile_rows = rows, queries = q;
    }
    // Scores of the queries at q (one head's): kept by row and head, dequantised (integer: the
    // accumulator times the queries' and keys' scales over sqrt(head_dim)).
    template <class Q, class S>
    void add_scores(kernels::rows_view<Q> q, kernels::rows_view<S> s) {
        const auto offset = int(q.data - static_cast<const Q*>(queries));
        const int row = tile_r0 + offset / Cfg::d_model, head = offset % Cfg::d_model / Cfg::head_dim;
        double scale = 1.0;
        if constexpr (integer)
            scale = rep->layer[tile_layer].t[int(point::query)].scale * rep->layer[tile_layer].t[int(point::key)].scale /
                    std::sqrt(double(Cfg::head_dim));
        for (int r = 0; r < s.rows; ++r) {
            std::vector<float>& v = scores[{tile_layer, row + r, head}];
            for (int c = 0; c < s.cols; ++c) v.push_back(float(s.data[r * s.stride + c] * scale));
            scored.push_back({tile_layer, row + r, head});
        }
    }
    // The softmax of the rows scored last (integer: Q15).
    template <class T>
    void add_probabilities(kernels::rows_view<T> p) {
        const double scale = integer ? 1.0 / 32768.0 : 1.0;
        for (int r = 0; r < p.rows && r < int(scored.size()); ++r) {
            std::vector<float>& v = probabilities[scored[std::size_t(r)]];
            for (int c = 0; c < p.cols; ++c) v.push_back(float(p.data[r * p.stride + c] * scale));
        }
        scored.clear();
    }

    // The layer and tensor a linear layer's weights or a LayerNorm's parameters belong to.
    bool find(const void* params, int& l, point& p) const {
        for (l = 0; l < Cfg::layers; ++l) {
            const auto& w = weights->layer[l];
            if constexpr (integer) {
                p = params == &w.query ? point::query : params == &w.key ? point::key : params == &w.value ? point::value
                    : params == &w.out ? point::attention_out : params == &w.ff1 ? point::ff1
                    : params == &w.ff2 ? point::ff2 : params == &w.norm1 ? point::norm1_in
                    : params == &w.norm2 ? point::norm2_in : point::count;
            } else {
                constexpr int D = Cfg::d_model;
                p = params == &w.qkv_w[0][0] ? point::query : params == &w.qkv_w[0][D] ? point::key
                    : params == &w.qkv_w[0][D + Cfg::kv_dim] ? point::value : params == &w.out_w[0][0] ? point::attention_out
                    : params == &w.ff1_w[0][0] ? point::ff1 : params == &w.ff2_w[0][0] ? point::ff2
                    : params == w.norm1_gamma ? point::norm1_in : params == w.norm2_gamma ? point::norm2_in
                                              : point::count;
            }
            if (p != point::count) return true;
        }
        return false;
    }

    // cols columns from column c0 of t's rows, as floats (integer: dequantised as tensor p of layer
    // l), onto v (default: tensor p's own values).
    template <class T>
    void append(int l, point p, kernels::rows_view<T> t, int c0, int cols, std::vector<float>* to = nullptr) {
        std::vector<float>& v = to ? *to : layer[l][p];
        for (int r = 0; r < t.rows; ++r)
            for (int c = c0; c < c0 + cols; ++c) {
                if constexpr (integer) {
                    const tensor_report& q = rep->layer[l].t[int(p)];
                    v.push_back(float((int(t.data[r * t.stride + c]) - q.zero_point) * q.scale));
                } else {
                    v.push_back(float(t.data[r * t.stride + c]));
                }
            }
    }
};

// What stage_comparison's passes occupy: the recording, the workspace, the output rows, aligned
// to a power of two at least their size (the recorder finds its recording from an address it
// writes, as calibration.hpp's recorder does).
template <class Cfg, class P>
struct stage_memory {
    using value = typename precision_traits<P>::value;  // (integer: the stream)
    stage_recording<Cfg, P> rec;
    typename precision_traits<P>::template workspace<Cfg, Cfg::tile> ws;
    alignas(64) value y[Cfg::seq_len * Cfg::d_model];
};
template <class Cfg, class P>
struct alignas(power_of_two_at_least(sizeof(stage_memory<Cfg, P>))) stage_pass : stage_memory<Cfg, P> {};

template <class Cfg, class P>
struct stage_record {
    template <class T>
    static stage_recording<Cfg, P>& of(T* written) noexcept {
        constexpr std::uintptr_t mask = ~std::uintptr_t(alignof(stage_pass<Cfg, P>) - 1);
        return reinterpret_cast<stage_pass<Cfg, P>*>(reinterpret_cast<std::uintptr_t>(written) & mask)->rec;
    }

    template <kernels::op_kind Kind, class Call>
    static void run(const Call& call) noexcept {
        using kernels::op_kind;
        int l = 0;
        point p = point::count;
        if constexpr (Kind == op_kind::layer_norm) {
            auto& rec = of(call.out.data);
            const bool found = rec.find(call.params, l, p), waits = Cfg::norm_first && p == point::norm1_in;
            if (waits) rec.pending_in.clear(), rec.pending_out.clear();
            if (found) rec.append(l, p, call.in, 0, call.in.cols, waits ? &rec.pending_in : nullptr);  // (y may be x)
            call();
            if (found) rec.append(l, point(int(p) + 1), call.out, 0, call.out.cols, waits ? &rec.pending_out : nullptr);
        } else if constexpr (Kind == op_kind::linear) {
            call();
            auto& rec = of(call.out.data);
            if (!rec.find(call.params, l, p)) return;
            rec.current_layer = l;
            if (p == point::query) rec.start_tile(l, call.out.data, call.out.rows);
            if (Cfg::norm_first && p == point::query) {  // the LayerNorm before the queries counts
                for (const auto& [from, to] : {std::pair{&rec.pending_in, point::norm1_in},
                                               std::pair{&rec.pending_out, point::norm1_out}})
                    rec.layer[l][to].insert(rec.layer[l][to].end(), from->begin(), from->end());
            }
            if (p == point::attention_out) rec.append(l, point::context, call.in, 0, call.in.cols);
            const bool halves = Cfg::is_gated && p == point::ff1;  // [a | b]: each half its own tensor
            rec.append(l, p, call.out, 0, halves ? Cfg::d_ff : call.out.cols);
            if (halves) rec.append(l, point::gate_in, call.out, Cfg::d_ff, Cfg::d_ff);
        } else if constexpr (Kind == op_kind::scores) {
            call();
            of(call.out.data).add_scores(call.in, call.out);
        } else if constexpr (Kind == op_kind::softmax) {
            call();
            of(call.out.data).add_probabilities(call.out);
        } else if constexpr (Kind == op_kind::activation || Kind == op_kind::gate) {
            call();
            auto& rec = of(call.out.data);
            rec.append(rec.current_layer, Kind == op_kind::gate ? point::gate : point::activation, call.out, 0,
                       call.out.cols);
        } else {
            call();
        }
    }
};

}  // namespace detail

// The f32 encoder w32 and its quantisation w8 (P: int8 or a16w8, with the quantiser's report
// rep), compared stage by stage on each observed input.
template <class Cfg, class P = int8>
class stage_comparison {
    static_assert(is_integer_precision<P>, "stage_comparison: int8 or a16w8 weights");
    using integer_kernels = typename precision_traits<P>::template kernels<reference>;

public:
    stage_comparison(const encoder_weights<Cfg, f32>& w32, const encoder_weights<Cfg, P>& w8, const report& rep)
        : w32_(w32), w8_(w8) {
        f_->rec.weights = &w32, q_->rec.weights = &w8, q_->rec.rep = &rep;
        table_.layer.assign(Cfg::layers, std::vector<sqnr_sum>(int(point::count)));
        table_.scores.assign(Cfg::layers, sqnr_sum{}), table_.probabilities.assign(Cfg::layers, sqnr_sum{});
    }

    // One input (seq_len * d_model floats, valid_len rows, a key padding mask) through both.
    status observe(const float* x, int valid_len, key_padding_mask mask = {}) {
        constexpr std::size_t n = std::size_t(Cfg::seq_len) * Cfg::d_model;
        std::vector<std::int16_t> x8(n);
        status s = quantize_input(w8_, x, x8.data(), n);
        if (s == status::ok)
            s = forward_with<kernels::decorated<kernel_set<reference>, detail::stage_record<Cfg, f32>>>(
                w32_, f_->ws, x, f_->y, valid_len, mask);
        if (s == status::ok)
            s = forward_with<kernels::decorated<integer_kernels, detail::stage_record<Cfg, P>>>(
                w8_, q_->ws, x8.data(), q_->y, valid_len, mask);
        if (s == status::ok) compare(x, valid_len);
        for (auto* rec : {&f_->rec.layer, &q_->rec.layer})
            for (observations& o : *rec)
                for (std::vector<float>& v : o.value) v.clear();
        f_->rec.scores.clear(), f_->rec.probabilities.clear(), q_->rec.scores.clear(), q_->rec.probabilities.clear();
        f_->rec.tile_layer = q_->rec.tile_layer = -1;
        return s;
    }

    const stage_table& table() const { return table_; }

private:
    void compare(const float* x, int valid_len) {
        for (int l = 0; l < Cfg::layers; ++l)
            for (int p = 0; p < int(point::count); ++p) {
                const std::vector<float>&a = f_->rec.layer[l].value[p], &b = q_->rec.layer[l].value[p];
                for (std::size_t i = 0; i < a.size() && a.size() == b.size(); ++i) table_.layer[l][p].add(a[i], b[i]);
            }
        compare_rows(f_->rec.scores, q_->rec.scores, table_.scores);
        compare_rows(f_->rec.probabilities, q_->rec.probabilities, table_.probabilities);
        const std::size_t n = std::size_t(valid_len) * Cfg::d_model;
        std::vector<float> yq(n);
        dequantize_output(w8_, q_->y, yq.data(), n);
        for (std::size_t i = 0; i < n; ++i) {
            table_.output.add(f_->y[i], yq[i]);
            table_.branch.add(double(f_->y[i]) - x[i], double(yq[i]) - x[i]);
        }
    }

    // Attention rows of both passes by (layer, row, head), into sums per layer.
    template <class Rows>
    static void compare_rows(const Rows& a, const Rows& b, std::vector<sqnr_sum>& sums) {
        for (const auto& [key, v] : a) {
            const auto it = b.find(key);
            if (it == b.end() || it->second.size() != v.size()) continue;
            for (std::size_t i = 0; i < v.size(); ++i) sums[std::size_t(std::get<0>(key))].add(v[i], it->second[i]);
        }
    }

    const encoder_weights<Cfg, f32>& w32_;
    const encoder_weights<Cfg, P>& w8_;
    std::unique_ptr<detail::stage_pass<Cfg, f32>> f_ = std::make_unique<detail::stage_pass<Cfg, f32>>();
    std::unique_ptr<detail::stage_pass<Cfg, P>> q_ = std::make_unique<detail::stage_pass<Cfg, P>>();
    stage_table table_;
};

}  // namespace quant
}  // namespace staticformer
