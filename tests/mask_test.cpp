// Block options checked against the encoder they reduce to: no_bias and no_norm_bias equal the
// biased encoder with zero biases and betas, bit for bit (f32, f16 and int8, whose quantiser
// then gives the same bytes too); RMSNorm equals LayerNorm on rows of mean zero, and its formula;
// glu with a unit gate equals the plain feed-forward; rotary kernels follow their formula, and
// rotary attention depends on relative positions only; grouped-query attention equals
// multi-head attention with repeated key and value heads.
// Key padding masks (mask.hpp), checked against the unmasked encoder: a masked key gets no
// attention, so the rows whose keys are kept give, bit for bit, the output of the sequence of
// those rows alone (causal too: row i's keys are the kept ones of rows 0..i, the compacted
// sequence's 0..rank(i)); a causal row without keys attends nothing; bad masks return their
// status and write nothing. (The golden set's "masked" inputs hold every backend to the
// reference's bytes; the PyTorch goldens left_pad_post_relu and masked_pre_gelu_final hold the
// reference to torch's src_key_padding_mask.)
#include <gtest/gtest.h>

#include <staticformer/staticformer.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "common/cases.hpp"
#include "common/compare.hpp"
#include "common/model_cases.hpp"

namespace {

using namespace sftest;

template <class Cfg, class P>
using value_of = typename sf::precision_traits<P>::value;

template <class Cfg, class P>
std::vector<value_of<Cfg, P>> input_of() {
    if constexpr (std::is_same<P, sf::int8>::value)
        return make_input_int8<Cfg>(input_kind::normal);
    else
        return make_input<Cfg>(input_kind::normal);
}

template <class Cfg, class P, class Backend>
std::vector<value_of<Cfg, P>> run_masked(const std::vector<value_of<Cfg, P>>& x, int n, sf::key_padding_mask mask) {
    static typename sf::encoder<Cfg, P, Backend>::workspace_type ws;
    std::vector<value_of<Cfg, P>> y(x.size(), value_of<Cfg, P>(7));
    EXPECT_EQ(sf::forward<Backend>(weights_for<Cfg, P>(), ws, x.data(), y.data(), n, mask), sf::status::ok);
    return y;
}

// The kept rows of a masked pass equal the pass over the kept rows alone.
template <class Cfg, class P, class Backend>
void check_kept_rows(const char* name) {
    constexpr int D = Cfg::d_model;
    const auto x = input_of<Cfg, P>();
    for (int n : valid_lens<Cfg>()) {
        const std::vector<std::uint8_t> mask = make_mask(input_kind::masked, Cfg::seq_len, n);
        const auto masked = run_masked<Cfg, P, Backend>(x, n, as_key_mask(mask));
        std::vector<value_of<Cfg, P>> kept(x.size(), value_of<Cfg, P>(0));
        std::vector<int> rows;
        for (int r = 0; r < n; ++r)
            if (!mask[std::size_t(r)]) {
                std::memcpy(&kept[rows.size() * D], &x[std::size_t(r) * D], D * sizeof(x[0]));
                rows.push_back(r);
            }
        const auto alone = run_masked<Cfg, P, Backend>(kept, int(rows.size()), {});
        for (std::size_t k = 0; k < rows.size(); ++k)
            EXPECT_EQ(std::memcmp(&masked[std::size_t(rows[k]) * D], &alone[k * D], D * sizeof(x[0])), 0)
                << name << " " << precision_name<P> << " valid_len " << n << ": kept row " << rows[k];
    }
}

template <class Cfg>
void check_kept_rows_all(const char* name) {
    check_kept_rows<Cfg, sf::f32, sf::reference>(name);
    check_kept_rows<Cfg, sf::f32, sf::default_backend>(name);
    check_kept_rows<Cfg, sf::int8, sf::reference>(name);
    check_kept_rows<Cfg, sf::int8, sf::default_backend>(name);
}

TEST(EncoderMask, KeptRowsEqualTheirSequenceAlone) {
    check_kept_rows_all<odd_pre_gelu>("odd_pre_gelu");
    check_kept_rows_all<tanh_post>("tanh_post");
    check_kept_rows_all<tile3_pre_relu>("tile3_pre_relu");
    check_kept_rows_all<causal_pre>("causal_pre");
}

// Causal rows before the first kept key attend nothing: their output does not depend on the
// value projection, which every other row's does.
template <class P>
void check_rows_without_keys() {
    using cfg = causal_pre;
    constexpr int D = cfg::d_model, S = cfg::seq_len;
    const auto x = input_of<cfg, P>();
    std::vector<std::uint8_t> mask(S, 0);
    mask[0] = mask[1] = mask[4] = 1;
    static sf::encoder_weights<cfg, P> other;
    other = weights_for<cfg, P>();
    for (auto& l : other.layer) {
        if constexpr (std::is_same<P, sf::int8>::value) {
            std::int8_t* v = &l.value.w[0][0][0];
            for (std::size_t i = 0; i < sizeof(l.value.w); ++i) v[i] = std::int8_t(-v[i] / 2);
        } else {
            for (int c = 0; c < D; ++c) l.qkv_b[2 * D + c] += 0.5f;
        }
    }
    static typename sf::encoder<cfg, P, sf::reference>::workspace_type ws;
    std::vector<value_of<cfg, P>> a(x.size()), b(x.size());
    const sf::key_padding_mask m{mask.data(), S};
    ASSERT_EQ(sf::forward<sf::reference>(weights_for<cfg, P>(), ws, x.data(), a.data(), S, m), sf::status::ok);
    ASSERT_EQ(sf::forward<sf::reference>(other, ws, x.data(), b.data(), S, m), sf::status::ok);
    for (int r = 0; r < S; ++r)
        EXPECT_EQ(std::memcmp(&a[std::size_t(r) * D], &b[std::size_t(r) * D], D * sizeof(a[0])) == 0, r < 2)
            << precision_name<P> << " row " << r;
    EXPECT_EQ((run_masked<cfg, P, sf::default_backend>(x, S, m)), a);
}

TEST(EncoderMask, CausalRowsWithoutKeysAttendNothing) {
    check_rows_without_keys<sf::f32>();
    check_rows_without_keys<sf::int8>();
}

// Bad masks: their status, and not a byte written.
template <class P>
void check_bad_masks() {
    using cfg = odd_pre_gelu;
    constexpr int S = cfg::seq_len;
    sf::encoder<cfg, P> enc{weights_for<cfg, P>()};
    const auto x = input_of<cfg, P>();
    std::vector<std::uint8_t> all(S + 1, 1), some(S + 1, 0);
    some[2] = 1;
    const struct {
        sf::key_padding_mask mask;
        int valid_len;
        sf::status expected;
    } cases[] = {
        {{static_cast<const std::uint8_t*>(nullptr), S}, S, sf::status::null_pointer},
        {{some.data(), S + 1}, S, sf::status::bad_mask_length},
        {{some.data(), 3}, 4, sf::status::bad_mask_length},
        {{some.data(), -1}, 4, sf::status::bad_mask_length},
        {{all.data(), S}, S, sf::status::all_keys_masked},
        {{all.data(), 2}, 2, sf::status::all_keys_masked},
    };
    const auto untouched = value_of<cfg, P>(42);
    for (const auto& c : cases) {
        std::vector<value_of<cfg, P>> y(x.size(), untouched);
        EXPECT_EQ(enc.forward(x.data(), y.data(), c.valid_len, c.mask), c.expected) << sf::to_string(c.expected);
        for (auto v : y) ASSERT_EQ(v, untouched);
    }
    // Entries from valid_len on are not read; a mask as long as valid_len is enough.
    std::vector<value_of<cfg, P>> y1(x.size()), y2(x.size());
    ASSERT_EQ(enc.forward(x.data(), y1.data(), 4, sf::key_padding_mask{some.data(), 4}), sf::status::ok);
    std::vector<std::uint8_t> tail = some;
    std::fill(tail.begin() + 4, tail.end(), 1);
    ASSERT_EQ(enc.forward(x.data(), y2.data(), 4, sf::key_padding_mask{tail.data(), S}), sf::status::ok);
    EXPECT_EQ(y1, y2);
    // An all-zero mask is no mask; bool arrays are read as torch's True / False.
    std::vector<std::uint8_t> none(S, 0);
    const bool torch_style[S] = {false, false, true};
    std::vector<value_of<cfg, P>> y3(x.size()), y4(x.size()), y5(x.size());
    ASSERT_EQ(enc.forward(x.data(), y3.data(), S, sf::key_padding_mask{none.data(), S}), sf::status::ok);
    ASSERT_EQ(enc.forward(x.data(), y4.data(), S), sf::status::ok);
    EXPECT_EQ(y3, y4);
    ASSERT_EQ(enc.forward(x.data(), y5.data(), 4, sf::key_padding_mask{torch_style, S}), sf::status::ok);
    EXPECT_EQ(y5, y1);
}

TEST(EncoderMask, BadMasksWriteNothing) {
    check_bad_masks<sf::f32>();
    check_bad_masks<sf::f16>();
    check_bad_masks<sf::int8>();
}

// The biased configuration of bias_free_pre, its weights with zero biases and betas.
using biased_pre = sf::encoder_config<24, 4, 40, 9, 2, sf::pre_norm, sf::gelu, sf::final_norm>;

const sf::encoder_weights<biased_pre, sf::f32>& zero_biases() {
    static sf::encoder_weights<biased_pre, sf::f32> w{};  // zero: every bias and beta
    const auto& free = weights_for<bias_free_pre>();
    for (int l = 0; l < biased_pre::layers; ++l) {
        auto &to = w.layer[l];
        const auto& from = free.layer[l];
        std::memcpy(to.qkv_w, from.qkv_w, sizeof to.qkv_w), std::memcpy(to.out_w, from.out_w, sizeof to.out_w);
        std::memcpy(to.ff1_w, from.ff1_w, sizeof to.ff1_w), std::memcpy(to.ff2_w, from.ff2_w, sizeof to.ff2_w);
        std::memcpy(to.norm1_gamma, from.norm1_gamma, sizeof to.norm1_gamma);
        std::memcpy(to.norm2_gamma, from.norm2_gamma, sizeof to.norm2_gamma);
    }
    std::memcpy(w.final_norm.gamma, free.final_norm.gamma, sizeof w.final_norm.gamma);
    return w;
}

template <class Backend>
void check_bias_free() {
    static_assert(!bias_free_pre::has_bias && !bias_free_pre::has_norm_bias && biased_pre::has_bias, "");
    static_assert(sizeof(sf::encoder_weights<bias_free_pre, sf::f32>) < sizeof(sf::encoder_weights<biased_pre, sf::f32>),
                  "no_bias and no_norm_bias store no biases");
    const auto x = make_input<bias_free_pre>(input_kind::normal);
    static sf::encoder_weights<biased_pre, sf::f16> zero16;
    sf::convert_weights(zero_biases(), zero16);
    static sf::workspace_for<bias_free_pre, Backend> ws_free;
    static sf::workspace_for<biased_pre, Backend> ws_biased;
    std::vector<float> a(x.size()), b(x.size());
    for (int n : valid_lens<bias_free_pre>()) {
        ASSERT_EQ(sf::forward<Backend>(weights_for<bias_free_pre>(), ws_free, x.data(), a.data(), n), sf::status::ok);
        ASSERT_EQ(sf::forward<Backend>(zero_biases(), ws_biased, x.data(), b.data(), n), sf::status::ok);
        EXPECT_TRUE(bit_equal(a.data(), b.data(), a.size())) << "f32 valid_len " << n;
        ASSERT_EQ(sf::forward<Backend>(weights_for<bias_free_pre, sf::f16>(), ws_free, x.data(), a.data(), n),
                  sf::status::ok);
        ASSERT_EQ(sf::forward<Backend>(zero16, ws_biased, x.data(), b.data(), n), sf::status::ok);
        EXPECT_TRUE(bit_equal(a.data(), b.data(), a.size())) << "f16 valid_len " << n;
    }
}

TEST(EncoderOptions, BiasFreeEqualsZeroBiases) {
    check_bias_free<sf::reference>();
    check_bias_free<sf::default_backend>();
    // int8: the quantiser reads zeros for the absent arrays, so both quantise to the same bytes.
    sf::quant::calibrator<bias_free_pre> free(weights_for<bias_free_pre>());
    sf::quant::calibrator<biased_pre> biased(zero_biases());
    const auto x = make_input<bias_free_pre>(input_kind::normal);
    ASSERT_EQ(free.observe(x.data(), bias_free_pre::seq_len), sf::status::ok);
    ASSERT_EQ(biased.observe(x.data(), bias_free_pre::seq_len), sf::status::ok);
    static sf::encoder_weights<bias_free_pre, sf::int8> q_free;
    static sf::encoder_weights<biased_pre, sf::int8> q_biased;
    free.quantize(q_free), biased.quantize(q_biased);
    static_assert(sizeof q_free == sizeof q_biased, "int8 biases carry the zero points: kept");
    EXPECT_EQ(std::memcmp(&q_free, &q_biased, sizeof q_free), 0);
}

// glu with a unit gate (W3 = 0, its bias 1) is the plain feed-forward: act(x W1) * 1, bit for bit;
// with a gate of 2 and W2 halved, too.
using plain_causal = sf::encoder_config<20, 4, 26, 10, 2, sf::pre_norm, sf::silu, sf::causal, sf::tile_rows<4>>;

const sf::encoder_weights<swiglu_causal, sf::f32>& unit_gate() {
    static sf::encoder_weights<swiglu_causal, sf::f32> w{};
    const auto& plain = weights_for<plain_causal>();
    constexpr int D = plain_causal::d_model, F = plain_causal::d_ff;
    for (int l = 0; l < plain_causal::layers; ++l) {
        auto& to = w.layer[l];
        const auto& from = plain.layer[l];
        std::memcpy(to.qkv_w, from.qkv_w, sizeof to.qkv_w), std::memcpy(to.qkv_b, from.qkv_b, sizeof to.qkv_b);
        std::memcpy(to.out_w, from.out_w, sizeof to.out_w), std::memcpy(to.out_b, from.out_b, sizeof to.out_b);
        std::memcpy(to.ff2_w, from.ff2_w, sizeof to.ff2_w), std::memcpy(to.ff2_b, from.ff2_b, sizeof to.ff2_b);
        for (int i = 0; i < D; ++i)
            for (int o = 0; o < F; ++o) to.ff1_w[i][o] = from.ff1_w[i][o];  // W3 (columns F..2F): 0
        for (int o = 0; o < F; ++o) to.ff1_b[o] = from.ff1_b[o], to.ff1_b[F + o] = 1.0f;
        std::memcpy(to.norm1_gamma, from.norm1_gamma, sizeof to.norm1_gamma);
        std::memcpy(to.norm1_beta, from.norm1_beta, sizeof to.norm1_beta);
        std::memcpy(to.norm2_gamma, from.norm2_gamma, sizeof to.norm2_gamma);
        std::memcpy(to.norm2_beta, from.norm2_beta, sizeof to.norm2_beta);
    }
    return w;
}

template <class Backend>
void check_unit_gate() {
    static_assert(sizeof(sf::encoder_weights<swiglu_causal, sf::f32>) ==
                      sizeof(sf::encoder_weights<plain_causal, sf::f32>) +
                          sizeof(float) * plain_causal::layers * (plain_causal::d_model + 1) * plain_causal::d_ff,
                  "glu: W3 and its bias beside W1's");
    static sf::encoder_weights<swiglu_causal, sf::f16> gated16;
    static sf::encoder_weights<plain_causal, sf::f16> plain16;
    sf::convert_weights(unit_gate(), gated16);
    sf::convert_weights(weights_for<plain_causal>(), plain16);
    const auto x = make_input<plain_causal>(input_kind::normal);
    static sf::workspace_for<swiglu_causal, Backend> ws_gated;
    static sf::workspace_for<plain_causal, Backend> ws_plain;
    std::vector<float> a(x.size()), b(x.size());
    for (int n : valid_lens<plain_causal>()) {
        ASSERT_EQ(sf::forward<Backend>(unit_gate(), ws_gated, x.data(), a.data(), n), sf::status::ok);
        ASSERT_EQ(sf::forward<Backend>(weights_for<plain_causal>(), ws_plain, x.data(), b.data(), n), sf::status::ok);
        EXPECT_TRUE(bit_equal(a.data(), b.data(), a.size())) << "f32 valid_len " << n;
        ASSERT_EQ(sf::forward<Backend>(gated16, ws_gated, x.data(), a.data(), n), sf::status::ok);
        ASSERT_EQ(sf::forward<Backend>(plain16, ws_plain, x.data(), b.data(), n), sf::status::ok);
        EXPECT_TRUE(bit_equal(a.data(), b.data(), a.size())) << "f16 valid_len " << n;
    }
    // A gate of 2 with W2 halved: (2 h) (W2 / 2) = h W2 exactly (powers of two), so the gate's
    // product must be taken (skipped, the output would differ).
    static sf::encoder_weights<swiglu_causal, sf::f32> twice;
    twice = unit_gate();
    for (auto& l : twice.layer) {
        for (int o = 0; o < swiglu_causal::d_ff; ++o) l.ff1_b[swiglu_causal::d_ff + o] = 2.0f;
        for (auto& row : l.ff2_w)
            for (float& v : row) v *= 0.5f;
    }
    for (int n : valid_lens<plain_causal>()) {
        ASSERT_EQ(sf::forward<Backend>(twice, ws_gated, x.data(), a.data(), n), sf::status::ok);
        ASSERT_EQ(sf::forward<Backend>(weights_for<plain_causal>(), ws_plain, x.data(), b.data(), n), sf::status::ok);
        EXPECT_TRUE(bit_equal(a.data(), b.data(), a.size())) << "f32, gate 2, valid_len " << n;
    }
}

TEST(EncoderOptions, GluWithUnitGateIsThePlainFeedForward) {
    check_unit_gate<sf::reference>();
    check_unit_gate<sf::default_backend>();
}

// RMSNorm is LayerNorm about zero. Rows whose mean is exactly zero (float: multiples of 1/8 that
// sum to 0, every partial sum exact; int8: pairs zero point +- d) give the same bytes through
// both, on the backend's kernels; any row gives x / sqrt(mean(x^2) + eps) * gamma, computed here
// in double (float: within 4 ulp-sized steps; int8: within 1.5 steps of the output scale of the
// float formula on the dequantised input).
template <class Backend>
void check_rms_norm() {
    using K = sf::kernel_set<Backend>;
    using K8 = sf::int8_kernel_set<Backend>;
    constexpr int N = 28, rows = 5;
    splitmix64 g{0x525};
    std::vector<float> x(N * rows), gamma(N), zeros(N, 0.0f), a(x.size()), b(x.size());
    for (int r = 0; r < rows; ++r) {
        float sum = 0.0f;
        for (int c = 0; c + 1 < N; ++c) sum += x[r * N + c] = float(int(g.next() % 81) - 40) / 8.0f;
        x[r * N + N - 1] = -sum;
    }
    for (float& v : gamma) v = 1.0f + g.uniform(0.25f);
    K::template layer_norm<N>(x.data(), rows, gamma.data(), zeros.data(), 1e-6f, a.data());
    K::template layer_norm<N, true>(x.data(), rows, gamma.data(), zeros.data(), 1e-6f, b.data());
    EXPECT_TRUE(bit_equal(a.data(), b.data(), a.size())) << "float, zero-mean rows";
    fill_uniform(x.data(), x.size(), g, 2.0f);
    for (int r = 0; r < rows; ++r) x[r * N] += 3.0f;  // a mean far from 0
    K::template layer_norm<N, true>(x.data(), rows, gamma.data(), zeros.data(), 1e-6f, b.data());
    for (int r = 0; r < rows; ++r) {
        double ms = 0.0;
        for (int c = 0; c < N; ++c) ms += double(x[r * N + c]) * x[r * N + c] / N;
        for (int c = 0; c < N; ++c) {
            const double want = x[r * N + c] / std::sqrt(ms + 1e-6) * gamma[c];
            EXPECT_NEAR(b[r * N + c], want, 4e-7 * (1.0 + std::fabs(want))) << r << "," << c;
        }
    }
    // int8: the int16 stream in (scale 1/4096, zero point 0), int8 out (scale 1/32); gamma 1.25
    // (shift 8 + 4: the input's scale cancels in z), eps 0.
    sf::layer_norm_int8<N> ln{};
    sf::layer_norm_int8<N, true> rms{};
    ln.shift = rms.shift = 12, ln.output_zero_point = rms.output_zero_point = 3;
    ln.eps = rms.eps = 0;
    for (int c = 0; c < N; ++c) ln.gamma[c] = rms.gamma[c] = std::int16_t(1.25 * 32 * 16);
    std::vector<std::int16_t> q(N * rows);
    std::vector<std::int8_t> qa(q.size()), qb(q.size());
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < N; c += 2) {  // pairs +d, -d: rows of mean 0
            const int d = (int(g.next() % 121) - 60) * 256;
            q[r * N + c] = std::int16_t(d), q[r * N + c + 1] = std::int16_t(-d);
        }
    K8::layer_norm(q.data(), rows, ln, qa.data());
    K8::layer_norm(q.data(), rows, rms, qb.data());
    EXPECT_EQ(qa, qb) << "int8, rows whose mean is 0";
    for (auto& v : q) v = std::int16_t(int(g.next() % 65536) - 32768);
    K8::layer_norm(q.data(), rows, rms, qb.data());
    for (int r = 0; r < rows; ++r) {
        double ms = 0.0;
        for (int c = 0; c < N; ++c) ms += std::pow(q[r * N + c] / 4096.0, 2) / N;
        for (int c = 0; c < N; ++c) {
            const double want = q[r * N + c] / 4096.0 / std::sqrt(ms) * 1.25;
            const double got = (qb[r * N + c] - rms.output_zero_point) / 32.0;
            if (std::fabs(want * 32 + 3) < 127) {
                EXPECT_NEAR(got, want, 1.5 / 32) << r << "," << c;
            }
        }
    }
}

TEST(EncoderOptions, RmsNormIsLayerNormAboutZero) {
    check_rms_norm<sf::reference>();
    check_rms_norm<sf::default_backend>();
}

// Rotary positions turn pair (a, b) of each head by angle pos * theta^(-2i / head_dim): the float
// kernel within float rounding of the formula in double, angles from std::cos / std::sin (not the
// library's tables); the int8 kernel exactly round((a C - b S) / 2^14), C and S round(2^14 cos)
// and round(2^14 sin) from the same formula. Both layouts, on the backend's kernels.
template <class Backend, bool Interleaved, int D, int Dh>
void check_rotary_kernels() {
    constexpr int theta = 500000;
    splitmix64 g{0x707};
    for (int pos : {0, 1, 7, 30}) {
        std::vector<float> x(D), y(D), cos(Dh / 2), sin(Dh / 2);
        std::vector<std::int16_t> cq(Dh / 2), sq(Dh / 2);
        std::vector<std::int8_t> q(D), qy(D);
        fill_uniform(x.data(), D, g, 2.0f);
        for (auto& v : q) v = std::int8_t(int(g.next() % 256) - 128);
        for (int i = 0; i < Dh / 2; ++i) {
            const double angle = pos * std::pow(double(theta), -2.0 * i / Dh);
            cos[i] = float(std::cos(angle)), sin[i] = float(std::sin(angle));
            cq[i] = std::int16_t(std::lround(16384 * std::cos(angle)));
            sq[i] = std::int16_t(std::lround(16384 * std::sin(angle)));
        }
        y = x, qy = q;
        sf::kernel_set<Backend>::template rotate<D, Dh, Interleaved>(y.data(), cos.data(), sin.data());
        sf::int8_kernel_set<Backend>::template rotate<D, Dh, Interleaved>(qy.data(), cq.data(), sq.data());
        for (int h = 0; h < D; h += Dh)
            for (int i = 0; i < Dh / 2; ++i) {
                const int a = h + (Interleaved ? 2 * i : i), b = h + (Interleaved ? 2 * i + 1 : i + Dh / 2);
                const double angle = pos * std::pow(double(theta), -2.0 * i / Dh);
                const double c = std::cos(angle), s = std::sin(angle);
                EXPECT_NEAR(y[a], x[a] * c - x[b] * s, 1e-6) << pos << "," << a;
                EXPECT_NEAR(y[b], x[b] * c + x[a] * s, 1e-6) << pos << "," << b;
                const auto rounded = [](int acc) { return std::clamp(int(std::floor(acc / 16384.0 + 0.5)), -128, 127); };
                EXPECT_EQ(qy[a], rounded(q[a] * cq[i] - q[b] * sq[i])) << pos << "," << a;
                EXPECT_EQ(qy[b], rounded(q[b] * cq[i] + q[a] * sq[i])) << pos << "," << b;
            }
    }
}

// Heads of 4, 16 and 20 pairs: narrower than a vector, whole vectors, and a partial last one.
template <class Backend>
void check_rotary_widths() {
    check_rotary_kernels<Backend, false, 24, 8>();
    check_rotary_kernels<Backend, true, 24, 8>();
    check_rotary_kernels<Backend, false, 64, 32>();
    check_rotary_kernels<Backend, true, 64, 32>();
    check_rotary_kernels<Backend, false, 80, 40>();
    check_rotary_kernels<Backend, true, 80, 40>();
}

TEST(EncoderOptions, RotaryTurnsPairsByTheirAngles) {
    check_rotary_widths<sf::reference>();
    check_rotary_widths<sf::default_backend>();
}

// Rotary attention sees relative positions only: rows moved k places on (k masked rows before
// them, whose keys no row attends) give the outputs they give at the start, up to rounding (the
// angles of other positions). Keys of a masked sequence keep their own positions when compacted.
template <class Cfg, class Backend>
void check_rotary_shift(const char* name) {
    constexpr int D = Cfg::d_model, S = Cfg::seq_len, k = 3, n = S - k;
    const auto x = make_input<Cfg>(input_kind::normal);
    std::vector<float> moved(x.size(), 0.0f);
    std::memcpy(&moved[k * D], x.data(), std::size_t(n) * D * sizeof(float));
    splitmix64 junk{9};
    fill_uniform(moved.data(), k * D, junk, 2.0f);
    std::vector<std::uint8_t> mask(S, 0);
    for (int r = 0; r < k; ++r) mask[std::size_t(r)] = 1;
    const auto at_start = run_masked<Cfg, sf::f32, Backend>(x, n, {});
    const auto shifted = run_masked<Cfg, sf::f32, Backend>(moved, S, {mask.data(), S});
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < D; ++c)
            EXPECT_NEAR(shifted[std::size_t(r + k) * D + c], at_start[std::size_t(r) * D + c], 2e-5)
                << name << " row " << r << " column " << c;
}

TEST(EncoderOptions, RotarySeesRelativePositionsOnly) {
    check_rotary_shift<rope_neobert, sf::reference>("rope_neobert");
    check_rotary_shift<rope_neobert, sf::default_backend>("rope_neobert");
    check_rotary_shift<rope_interleaved_post, sf::reference>("rope_interleaved_post");
}

// Grouped-query attention is multi-head attention whose key and value heads repeat: a kv_heads
// encoder equals, bit for bit, the plain encoder whose key and value projections hold each of
// its key (value) heads kv_group times (f32, f16, and int8 whose min-max ranges see the same
// values), unmasked and masked, with rotary positions on.
using gqa = sf::encoder_config<24, 4, 40, 9, 2, sf::pre_norm, sf::gelu, sf::rotary<10000>, sf::kv_heads<2>>;
using gqa_as_mha = sf::encoder_config<24, 4, 40, 9, 2, sf::pre_norm, sf::gelu, sf::rotary<10000>>;

const sf::encoder_weights<gqa_as_mha, sf::f32>& repeated_heads() {
    static sf::encoder_weights<gqa_as_mha, sf::f32> w{};
    constexpr int D = 24, Dh = gqa::head_dim, KV = gqa::kv_dim, group = gqa::kv_group;
    const auto& g = weights_for<gqa>();
    for (int l = 0; l < 2; ++l) {
        auto &to = w.layer[l];
        const auto& from = g.layer[l];
        for (int c = 0; c < D; ++c) {  // query columns as they are; key and value head c / Dh / group
            const int k = c / Dh / group * Dh + c % Dh;
            for (int i = 0; i < D; ++i) {
                to.qkv_w[i][c] = from.qkv_w[i][c];
                to.qkv_w[i][D + c] = from.qkv_w[i][D + k];
                to.qkv_w[i][2 * D + c] = from.qkv_w[i][D + KV + k];
            }
            to.qkv_b[c] = from.qkv_b[c], to.qkv_b[D + c] = from.qkv_b[D + k], to.qkv_b[2 * D + c] = from.qkv_b[D + KV + k];
        }
        std::memcpy(to.out_w, from.out_w, sizeof to.out_w), std::memcpy(to.out_b, from.out_b, sizeof to.out_b);
        std::memcpy(to.ff1_w, from.ff1_w, sizeof to.ff1_w), std::memcpy(to.ff1_b, from.ff1_b, sizeof to.ff1_b);
        std::memcpy(to.ff2_w, from.ff2_w, sizeof to.ff2_w), std::memcpy(to.ff2_b, from.ff2_b, sizeof to.ff2_b);
        for (auto [a, b] : {std::pair{to.norm1_gamma, from.norm1_gamma}, std::pair{to.norm1_beta, from.norm1_beta},
                            std::pair{to.norm2_gamma, from.norm2_gamma}, std::pair{to.norm2_beta, from.norm2_beta}})
            std::memcpy(a, b, D * sizeof(float));
    }
    return w;
}

template <class P, class Backend>
void check_grouped_heads() {
    using W = sf::encoder_weights<gqa_as_mha, P>;
    static W mha;
    if constexpr (std::is_same<P, sf::f32>::value) {
        mha = repeated_heads();
    } else if constexpr (std::is_same<P, sf::f16>::value) {
        sf::convert_weights(repeated_heads(), mha);
    } else {
        sf::quant::calibrator<gqa_as_mha> c(repeated_heads());
        sf::quant::calibrator<gqa> cg(weights_for<gqa>());
        for (int k = 0; k < 4; ++k) {
            std::vector<float> x(std::size_t(gqa::seq_len) * gqa::d_model);
            splitmix64 g{0x6a0u + std::uint64_t(k)};
            fill_uniform(x.data(), x.size(), g, 2.0f);
            ASSERT_EQ(c.observe(x.data(), gqa::seq_len), sf::status::ok);
            ASSERT_EQ(cg.observe(x.data(), gqa::seq_len), sf::status::ok);
        }
        c.quantize(mha);
        static sf::encoder_weights<gqa, sf::int8> grouped;
        cg.quantize(grouped);
        static typename sf::encoder<gqa, P, Backend>::workspace_type ws;
        static typename sf::encoder<gqa_as_mha, P, Backend>::workspace_type ws_mha;
        const auto x = make_input_int8<gqa>(input_kind::normal);
        std::vector<stream_t> a(x.size()), b(x.size());
        ASSERT_EQ(sf::forward<Backend>(grouped, ws, x.data(), a.data(), gqa::seq_len), sf::status::ok);
        ASSERT_EQ(sf::forward<Backend>(mha, ws_mha, x.data(), b.data(), gqa::seq_len), sf::status::ok);
        EXPECT_EQ(a, b) << "int8";
    }
    if constexpr (!std::is_same<P, sf::int8>::value) {
        static typename sf::encoder<gqa, P, Backend>::workspace_type ws;
        static typename sf::encoder<gqa_as_mha, P, Backend>::workspace_type ws_mha;
        const auto x = make_input<gqa>(input_kind::normal);
        for (int n : valid_lens<gqa>()) {
            const std::vector<std::uint8_t> mask = make_mask(input_kind::masked, gqa::seq_len, n);
            for (const sf::key_padding_mask m : {sf::key_padding_mask{}, as_key_mask(mask)}) {
                std::vector<float> a(x.size()), b(x.size());
                ASSERT_EQ(sf::forward<Backend>(weights_for<gqa, P>(), ws, x.data(), a.data(), n, m), sf::status::ok);
                ASSERT_EQ(sf::forward<Backend>(mha, ws_mha, x.data(), b.data(), n, m), sf::status::ok);
                EXPECT_TRUE(bit_equal(a.data(), b.data(), a.size())) << precision_name<P> << " valid_len " << n;
            }
        }
    }
}

TEST(EncoderOptions, GroupedQueryAttentionIsRepeatedKeyHeads) {
    static_assert(sizeof(sf::encoder_weights<gqa, sf::f32>) < sizeof(sf::encoder_weights<gqa_as_mha, sf::f32>), "");
    static_assert(sizeof(sf::workspace<gqa>) < sizeof(sf::workspace<gqa_as_mha>), "");
    check_grouped_heads<sf::f32, sf::reference>();
    check_grouped_heads<sf::f32, sf::default_backend>();
    check_grouped_heads<sf::f16, sf::default_backend>();
    check_grouped_heads<sf::int8, sf::reference>();
    check_grouped_heads<sf::int8, sf::default_backend>();
}

// Models take the mask over their input tokens: a CLS row's key is always kept, so a mask hiding
// every token is fine there; lengths are checked against the input tokens.
TEST(EncoderMask, ModelsCheckTheirMasks) {
    using M = feature_model;  // a CLS token, the sequence as output
    static sf::model<M, sf::f32> net{model_weights_for<M>()};
    const auto x = make_model_input<M>(input_kind::normal);
    const std::vector<std::uint8_t> all(M::input_tokens + 1, 1);
    std::vector<float> y(M::output_values, 42.0f);
    EXPECT_EQ(net.forward(x.data(), y.data(), M::input_tokens, {all.data(), M::input_tokens + 1}),
              sf::status::bad_mask_length);
    EXPECT_EQ(net.forward(x.data(), y.data(), 3, {all.data(), 2}), sf::status::bad_mask_length);
    EXPECT_EQ(net.forward(x.data(), y.data(), 3, {static_cast<const std::uint8_t*>(nullptr), 3}),
              sf::status::null_pointer);
    for (float v : y) ASSERT_EQ(v, 42.0f);
    // Every token masked: every row attends the CLS row alone; fine, and not the unmasked pass.
    std::vector<float> unmasked(M::output_values);
    ASSERT_EQ(net.forward(x.data(), y.data(), M::input_tokens, {all.data(), M::input_tokens}), sf::status::ok);
    ASSERT_EQ(net.forward(x.data(), unmasked.data(), M::input_tokens), sf::status::ok);
    EXPECT_FALSE(bit_equal(y.data(), unmasked.data(), y.size()));
}

// Calibration sees what forward() computes with the mask: the calibrator's f32 pass is the
// masked pass, and the model calibrator takes and checks masks as forward() does.
TEST(EncoderMask, CalibratorsTakeTheMask) {
    using cfg = causal_pre;
    const auto x = make_input<cfg>(input_kind::normal);
    const auto mask = make_mask(input_kind::masked, cfg::seq_len, cfg::seq_len);
    sf::quant::calibrator<cfg> c(weights_for<cfg>());
    std::vector<float> seen(x.size());
    ASSERT_EQ(c.observe(x.data(), cfg::seq_len, as_key_mask(mask), seen.data()), sf::status::ok);
    const auto expected = run_masked<cfg, sf::f32, sf::reference>(x, cfg::seq_len, as_key_mask(mask));
    EXPECT_TRUE(bit_equal(seen.data(), expected.data(), seen.size()));
    EXPECT_FALSE(bit_equal(seen.data(), run_masked<cfg, sf::f32, sf::reference>(x, cfg::seq_len, {}).data(),
                           seen.size()));

    using M = token_model;  // no CLS: a mask can hide every token
    const auto ids = make_model_input<M>(input_kind::normal);
    const auto model_mask = make_mask(input_kind::masked, M::input_tokens, M::input_tokens);
    const std::vector<std::uint8_t> all(M::input_tokens, 1);
    sf::quant::model_calibrator<M> masked(model_weights_for<M>()), plain(model_weights_for<M>());
    EXPECT_EQ(masked.observe(ids.data(), M::input_tokens, {all.data(), M::input_tokens}), sf::status::all_keys_masked);
    EXPECT_EQ(masked.observe(ids.data(), M::input_tokens, {all.data(), 2}), sf::status::bad_mask_length);
    ASSERT_EQ(masked.observe(ids.data(), M::input_tokens, as_key_mask(model_mask)), sf::status::ok);
    ASSERT_EQ(plain.observe(ids.data(), M::input_tokens), sf::status::ok);
    static sf::model_weights<M, sf::int8> from_masked, from_plain;
    masked.quantize(from_masked);
    plain.quantize(from_plain);
    EXPECT_NE(std::memcmp(&from_masked, &from_plain, sizeof from_plain), 0) << "the mask changed no range";
}

}  // namespace
