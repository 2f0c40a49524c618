// The baseline a user would otherwise write: the same encoder on Eigen 3.4 matrices mapped over
// staticformer's weights (fixed-size shapes, Eigen's own vectorised products and exp). Not
// bit-exact by design; the benchmark checks it agrees within 1e-4 before timing it.
#pragma once

// The scratch matrices have compile-time maximum sizes and live in a static object, not on the
// stack: lift Eigen's stack-size guard for them.
#define EIGEN_STACK_ALLOCATION_LIMIT 0
#include <Eigen/Dense>
#include <unsupported/Eigen/SpecialFunctions>

#include <cmath>

#include <staticformer/staticformer.hpp>

namespace sfbench {

namespace sf = staticformer;

template <class Cfg>
class eigen_encoder {
    static constexpr int D = Cfg::d_model, F = Cfg::d_ff, S = Cfg::seq_len, H = Cfg::heads, Dh = Cfg::head_dim;
    template <int R, int C>
    using cmap = Eigen::Map<const Eigen::Matrix<float, R, C, (C == 1 ? Eigen::ColMajor : Eigen::RowMajor)>>;
    using rows_t = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor, S, 3 * D>;
    using ffn_t = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor, S, F>;
    using row_vec = Eigen::Matrix<float, 1, D>;

    const sf::encoder_weights<Cfg, sf::f32>& w_;
    // Scratch, sized at compile time as a careful Eigen user would (no allocation in run()).
    rows_t x_, h_, qkv_, ctx_;
    ffn_t ff_;
    Eigen::Matrix<float, 1, Eigen::Dynamic, Eigen::RowMajor, 1, S> scores_;

    template <class M>
    static void layer_norm(M& x, int n, const float* g, const float* b) {
        const auto gamma = cmap<1, D>(g).array();
        const auto beta = cmap<1, D>(b).array();
        for (int r = 0; r < n; ++r) {
            auto row = x.row(r).head(D).array();
            const float mean = row.mean();
            const float var = (row - mean).square().mean();
            row = (row - mean) * (1.0f / std::sqrt(var + Cfg::eps)) * gamma + beta;
        }
    }

public:
    explicit eigen_encoder(const sf::encoder_weights<Cfg, sf::f32>& w) : w_(w) {}

    void forward(const float* in, float* out, int n) {
        x_.resize(n, D);
        h_.resize(n, D);
        qkv_.resize(n, 3 * D);
        ctx_.resize(n, D);
        ff_.resize(n, F);
        x_ = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, D, Eigen::RowMajor>>(in, n, D);
        const float scale = 1.0f / std::sqrt(float(Dh));
        for (const auto& l : w_.layer) {
            // attention
            h_ = x_;
            if (Cfg::norm_first) layer_norm(h_, n, l.norm1_gamma, l.norm1_beta);
            qkv_.noalias() = h_.leftCols(D) * cmap<D, 3 * D>(&l.qkv_w[0][0]);
            qkv_.rowwise() += cmap<1, 3 * D>(l.qkv_b);
            for (int hd = 0; hd < H; ++hd) {
                const auto q = qkv_.middleCols(hd * Dh, Dh);
                const auto k = qkv_.middleCols(D + hd * Dh, Dh);
                const auto v = qkv_.middleCols(2 * D + hd * Dh, Dh);
                for (int r = 0; r < n; ++r) {
                    scores_.resize(1, n);
                    scores_.noalias() = (q.row(r) * scale) * k.transpose();
                    scores_ = (scores_.array() - scores_.maxCoeff()).exp();
                    scores_ /= scores_.sum();
                    ctx_.row(r).segment(hd * Dh, Dh).noalias() = scores_ * v;
                }
            }
            h_.leftCols(D).noalias() = ctx_.leftCols(D) * cmap<D, D>(&l.out_w[0][0]);
            h_.leftCols(D).rowwise() += cmap<1, D>(l.out_b);
            x_.leftCols(D) += h_.leftCols(D);
            if (!Cfg::norm_first) layer_norm(x_, n, l.norm1_gamma, l.norm1_beta);
            // feed-forward
            h_ = x_;
            if (Cfg::norm_first) layer_norm(h_, n, l.norm2_gamma, l.norm2_beta);
            ff_.noalias() = h_.leftCols(D) * cmap<D, F>(&l.ff1_w[0][0]);
            ff_.rowwise() += cmap<1, F>(l.ff1_b);
            if (Cfg::activation == sf::activation_kind::relu) {
                ff_ = ff_.cwiseMax(0.0f);
            } else {
                // exact GELU through erf (Eigen's vectorised erf)
                ff_ = (0.5f * ff_.array() * (1.0f + (ff_.array() * 0.70710678f).erf())).matrix();
            }
            h_.leftCols(D).noalias() = ff_ * cmap<F, D>(&l.ff2_w[0][0]);
            h_.leftCols(D).rowwise() += cmap<1, D>(l.ff2_b);
            x_.leftCols(D) += h_.leftCols(D);
            if (!Cfg::norm_first) layer_norm(x_, n, l.norm2_gamma, l.norm2_beta);
        }
        if constexpr (Cfg::has_final_norm) layer_norm(x_, n, w_.final_norm.gamma, w_.final_norm.beta);
        Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, D, Eigen::RowMajor>>(out, n, D) = x_.leftCols(D);
        for (int i = n * D; i < S * D; ++i) out[i] = 0.0f;
    }
};

}  // namespace sfbench
