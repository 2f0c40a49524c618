// Determinism and reentrancy: a forward pass depends on its weights, workspace and input only,
// and a calibration on its own calibrator only.
//   ReentrancyRepeated    one object, every call again in another order: the same bytes
//   ReentrancyThreads     two objects in two threads at once: the same bytes as one at a time
//   ReentrancyCalibration two calibrators in two threads at once: the same int8 weights
// Built with -fsanitize=thread it also shows that no call shares memory with another.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

#include "common/cases.hpp"
#include "common/model_cases.hpp"

namespace {

using namespace sftest;
using bytes = std::vector<unsigned char>;

constexpr int thread_passes = 200;       // forward passes per thread
constexpr int thread_calibrations = 12;  // calibrations per thread

template <class T>
bytes bytes_of(const std::vector<T>& v) {
    const auto* p = reinterpret_cast<const unsigned char*>(v.data());
    return bytes(p, p + v.size() * sizeof(T));
}

// Runs body(0) and body(1) in two threads released together, so that their work overlaps.
template <class Body>
void in_two_threads(Body&& body) {
    std::atomic<int> ready{0};
    const auto run = [&](int t) {
        ready.fetch_add(1);
        while (ready.load() < 2) std::this_thread::yield();
        body(t);
    };
    std::thread a(run, 0), b(run, 1);
    a.join();
    b.join();
}

// One call of a network: its input kind and valid length.
struct call {
    input_kind kind;
    int valid;
};

// An encoder under test: the object, and one pass returning the output bytes.
template <class Cfg, class P, class Backend>
struct encoder_case {
    using net = sf::encoder<Cfg, P, Backend>;
    static std::unique_ptr<net> make() { return std::make_unique<net>(weights_for<Cfg, P>()); }
    static std::vector<int> lens() { return valid_lens<Cfg>(); }
    static bytes pass(net& e, call c) {
        using value = typename net::value_type;
        std::vector<value> x;
        if constexpr (std::is_same<P, sf::int8>::value)
            x = make_input_int8<Cfg>(c.kind);
        else
            x = make_input<Cfg>(c.kind);
        std::vector<value> y(x.size(), value(99));
        if (e.forward(x.data(), y.data(), c.valid) != sf::status::ok) return {};
        return bytes_of(y);
    }
};

// A model under test, likewise.
template <class M, class P, class Backend>
struct model_case {
    using net = sf::model<M, P, Backend>;
    static std::unique_ptr<net> make() { return std::make_unique<net>(model_weights_for<M, P>()); }
    static std::vector<int> lens() { return model_valid_lens<M>(); }
    static bytes pass(net& m, call c) {
        const auto x = make_model_input_for<M, P>(c.kind);
        std::vector<typename net::output_type> y(net::output_values, typename net::output_type(99));
        if (m.forward(x.data(), y.data(), c.valid) != sf::status::ok) return {};
        return bytes_of(y);
    }
};

template <class U>
std::vector<call> calls_of() {
    std::vector<call> calls;
    for (input_kind kind : {input_kind::normal, input_kind::large})
        for (int n : U::lens()) calls.push_back({kind, n});
    return calls;
}

// Every call's bytes, one call at a time on a fresh object.
template <class U>
std::vector<bytes> one_at_a_time(const std::vector<call>& calls) {
    const auto net = U::make();
    std::vector<bytes> out;
    for (call c : calls) out.push_back(U::pass(*net, c));
    return out;
}

// The same object, called again in reverse and in rotated orders: each call's bytes never
// depend on the calls before it.
template <class U>
void expect_repeatable() {
    const std::vector<call> calls = calls_of<U>();
    const std::vector<bytes> first = one_at_a_time<U>(calls);
    for (const bytes& b : first) ASSERT_FALSE(b.empty()) << "a pass failed";
    const auto net = U::make();
    const std::size_t n = calls.size();
    for (std::size_t round = 0; round < 3; ++round)
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t k = round == 0 ? n - 1 - i : (i + round) % n;
            EXPECT_EQ(U::pass(*net, calls[k]), first[k]) << "round " << round << ", call " << k;
        }
}

// Two objects, each in its own thread, both working at once: every pass gives the bytes of the
// same call made alone. The threads go through the calls from different starting points.
template <class U>
void expect_thread_independent() {
    const std::vector<call> calls = calls_of<U>();
    const std::vector<bytes> expected = one_at_a_time<U>(calls);
    const std::unique_ptr<typename U::net> nets[2] = {U::make(), U::make()};
    int mismatches[2] = {0, 0};
    in_two_threads([&](int t) {
        for (int i = 0; i < thread_passes; ++i) {
            const std::size_t k = std::size_t(i + 3 * t) % calls.size();
            if (U::pass(*nets[t], calls[k]) != expected[k]) ++mismatches[t];
        }
    });
    for (int t : {0, 1})
        EXPECT_EQ(mismatches[t], 0) << "passes of thread " << t << " that differ from the same call alone";
}

// An encoder and a model calibration (weights_for / model_weights_for's int8 weights).
template <class Cfg>
struct encoder_calibration {
    using weights = sf::encoder_weights<Cfg, sf::int8>;
    static void run(weights& q) { calibrate<Cfg>(q); }
};
template <class M>
struct model_calibration {
    using weights = sf::model_weights<M, sf::int8>;
    static void run(weights& q) { calibrate_model<M>(q); }
};

// Two calibrators, each in its own thread, both calibrating at once, again and again: every
// result equals, byte for byte, the same calibration run alone.
template <class C>
void expect_calibration_thread_independent() {
    using weights = typename C::weights;
    const auto alone = std::make_unique<weights>();  // value-initialised: padding bytes are zero
    C::run(*alone);
    int mismatches[2] = {0, 0};
    in_two_threads([&](int t) {
        for (int i = 0; i < thread_calibrations; ++i) {
            const auto q = std::make_unique<weights>();
            C::run(*q);
            if (std::memcmp(q.get(), alone.get(), sizeof(weights)) != 0) ++mismatches[t];
        }
    });
    for (int t : {0, 1})
        EXPECT_EQ(mismatches[t], 0) << "calibrations of thread " << t << " that differ from the calibration alone";
}

// Pre-norm with a final LayerNorm, and post-norm (its LayerNorms write the caller's rows).
using pre = odd_pre_gelu;
using post = tanh_post;
using ref = sf::reference;
using dflt = sf::default_backend;  // simd where this build has it, else the reference again

#define REENTRANCY_TESTS(Suite, check)                                                            \
    TEST(Suite, F32Reference) { check<encoder_case<pre, sf::f32, ref>>(); }                       \
    TEST(Suite, F32Default) { check<encoder_case<pre, sf::f32, dflt>>(); }                        \
    TEST(Suite, F32PostNorm) { check<encoder_case<post, sf::f32, dflt>>(); }                      \
    TEST(Suite, F16Reference) { check<encoder_case<pre, sf::f16, ref>>(); }                       \
    TEST(Suite, F16Default) { check<encoder_case<post, sf::f16, dflt>>(); }                       \
    TEST(Suite, Int8Reference) { check<encoder_case<pre, sf::int8, ref>>(); }                     \
    TEST(Suite, Int8Default) { check<encoder_case<pre, sf::int8, dflt>>(); }                      \
    TEST(Suite, Int8PostNorm) { check<encoder_case<post, sf::int8, dflt>>(); }                    \
    TEST(Suite, ModelTokensF32) { check<model_case<token_model, sf::f32, dflt>>(); }              \
    TEST(Suite, ModelTokensInt8) { check<model_case<token_model, sf::int8, ref>>(); }             \
    TEST(Suite, ModelPatchesF16) { check<model_case<vit_model, sf::f16, dflt>>(); }               \
    TEST(Suite, ModelPatchesInt8) { check<model_case<vit_model, sf::int8, dflt>>(); }             \
    TEST(Suite, ModelFeaturesF32) { check<model_case<feature_model, sf::f32, ref>>(); }           \
    TEST(Suite, ModelFeaturesInt8) { check<model_case<feature_model, sf::int8, dflt>>(); }

REENTRANCY_TESTS(ReentrancyRepeated, expect_repeatable)
REENTRANCY_TESTS(ReentrancyThreads, expect_thread_independent)
#undef REENTRANCY_TESTS

TEST(ReentrancyCalibration, EncoderPreNorm) { expect_calibration_thread_independent<encoder_calibration<pre>>(); }
TEST(ReentrancyCalibration, EncoderPostNorm) { expect_calibration_thread_independent<encoder_calibration<post>>(); }
TEST(ReentrancyCalibration, ModelTokens) { expect_calibration_thread_independent<model_calibration<token_model>>(); }
TEST(ReentrancyCalibration, ModelPatches) { expect_calibration_thread_independent<model_calibration<vit_model>>(); }
TEST(ReentrancyCalibration, ModelFeatures) {
    expect_calibration_thread_independent<model_calibration<feature_model>>();
}

}  // namespace
