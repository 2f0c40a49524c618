// Determinism and reentrancy: a forward pass depends on its weights, workspace and input only,
// and a calibration on its own calibrator only.
//   ReentrancyRepeated    one object, every call again in another order: the same bytes
//   ReentrancyThreads     two objects in two threads at once: the same bytes as one at a time
//   ReentrancyCalibration two calibrators in two threads at once: the same int8 weights
//   ReentrancyParallel    one pass of an encoder or a model split across 1-4 workers (std::thread,
//                         OpenMP): the bytes of the pass on one thread, every valid length and mask
//   ReentrancyBatch       batches of encoder and model sequences in one call (mixed lengths and
//                         masks, one worker or several): each sequence's bytes those of its own call
// Built with -fsanitize=thread it also shows that no call shares memory with another.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <limits>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

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
        const std::vector<value> x = input_for<Cfg, P>(c.kind);
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

// ---- one pass on several threads ---------------------------------------------------------------

// The executors (staticformer/parallel.hpp) of the tests, in one type: a thread per task but the
// first, which runs on the caller's; or OpenMP's parallel for, where the build has OpenMP. It
// records the most tasks a stage gave it, to show that the work was split.
struct test_executor {
    bool openmp;
    int* most_tasks;
    const char* name() const { return openmp ? "OpenMP" : "std::thread"; }
    void operator()(int count, sf::parallel_task task) const {
        *most_tasks = count > *most_tasks ? count : *most_tasks;
#ifdef _OPENMP
        if (openmp) {
#pragma omp parallel for num_threads(count) schedule(static, 1)
            for (int i = 0; i < count; ++i) task(i);
            return;
        }
#endif
        std::vector<std::thread> threads;
        for (int i = 1; i < count; ++i) threads.emplace_back([task, i] { task(i); });
        task(0);
        for (std::thread& t : threads) t.join();
    }
};
#ifdef _OPENMP
constexpr bool have_openmp = true;
#else
constexpr bool have_openmp = false;
#endif

template <class Cfg, int Workers, class P, class Backend>
using parallel_workspace_t =
    typename sf::precision_traits<P>::template workspace<Cfg, sf::worker_tile<Cfg, Backend, Cfg::seq_len, Workers>, Workers>;

// One pass of Cfg's encoder on Workers workers through exec: its output bytes, s its status.
template <class Cfg, class P, class Backend, int Workers>
bytes parallel_pass(input_kind kind, int n, const test_executor& exec, sf::status& s) {
    static const auto ws = std::make_unique<parallel_workspace_t<Cfg, Workers, P, Backend>>();
    const std::vector<std::uint8_t> mask = make_mask(kind, Cfg::seq_len, n);
    using value = std::conditional_t<is_integer<P>, stream_t, float>;
    const std::vector<value> x = input_for<Cfg, P>(kind);
    std::vector<value> y(x.size(), is_integer<P> ? value(9999) : value(123));  // as output_bytes fills it
    s = sf::forward<Backend>(weights_for<Cfg, P>(), *ws, x.data(), y.data(), n, as_key_mask(mask), exec);
    return bytes_of(y);
}

// Every valid length (the normal and the masked input; the large one at seq_len) on Workers
// workers gives the bytes and status of the pass on one thread (output_bytes: the workspace an
// encoder holds). With a sequence of at least Workers rows, some stage had Workers tasks.
template <class Cfg, class P, class Backend, int Workers>
void expect_parallel_equals_serial(bool openmp) {
    int most_tasks = 0;
    const test_executor exec{openmp, &most_tasks};
    int mismatches = 0;
    for (input_kind kind : all_input_kinds)
        for (int n = kind == input_kind::large ? Cfg::seq_len : 1; n <= Cfg::seq_len; ++n) {
            sf::status serial_status = sf::status::ok, parallel_status = sf::status::ok;
            const std::vector<unsigned char> expected = output_bytes<Cfg, P, Backend>(kind, n, serial_status);
            const bytes got = parallel_pass<Cfg, P, Backend, Workers>(kind, n, exec, parallel_status);
            if (got != expected || parallel_status != serial_status) ++mismatches;
        }
    EXPECT_EQ(mismatches, 0) << precision_name<P> << ", " << Workers << " workers (" << exec.name() << ")";
    EXPECT_EQ(most_tasks, Cfg::seq_len < Workers ? Cfg::seq_len : Workers) << precision_name<P> << ", " << exec.name();
}

// Workers... workers, each with threads and with OpenMP.
template <class Cfg, class P, class Backend, int... Workers>
void expect_parallel_for_workers() {
    for (bool openmp : {false, true})
        if (!openmp || have_openmp) (expect_parallel_equals_serial<Cfg, P, Backend, Workers>(openmp), ...);
}

// Every test case in f32 and int8 on the default backend on 3 workers (uneven tiles); 1, 2 and 4
// workers, f16 and the reference backend (tiles of 4 rows: several tiles a worker) on the cases
// whose tiles and attention the tests' configurations vary most.
template <class Cfg>
void expect_parallel_passes() {
    expect_parallel_for_workers<Cfg, sf::f32, dflt, 3>();
    expect_parallel_for_workers<Cfg, sf::int8, dflt, 3>();
}
template <class Cfg>
void expect_parallel_passes_everywhere() {
#ifdef REENTRANCY_RACES_ONLY
    expect_parallel_for_workers<Cfg, sf::f32, dflt, 3>();
    expect_parallel_for_workers<Cfg, sf::int8, dflt, 2, 3>();
#else
    expect_parallel_for_workers<Cfg, sf::f32, dflt, 1, 2, 4>();
    expect_parallel_for_workers<Cfg, sf::int8, dflt, 1, 2, 4>();
    expect_parallel_for_workers<Cfg, sf::f16, dflt, 2>();
    expect_parallel_for_workers<Cfg, sf::f32, ref, 2>();
    expect_parallel_for_workers<Cfg, sf::int8, ref, 3>();
#endif
}

// Under ThreadSanitizer (reentrancy_tsan.sh defines REENTRANCY_RACES_ONLY) the split passes run
// on the four cases below only: a race shows wherever two tiles meet, and the instrumented build
// of every case took 4 minutes of the suite. The plain build checks every case's bytes.
#ifndef REENTRANCY_RACES_ONLY
#define PARALLEL_TEST(name) \
    TEST(ReentrancyParallel, name) { expect_parallel_passes<name>(); }
STATICFORMER_TEST_CASES(PARALLEL_TEST)
#undef PARALLEL_TEST
#endif
TEST(ReentrancyParallel, EveryBackendPreNorm) { expect_parallel_passes_everywhere<odd_pre_gelu>(); }
TEST(ReentrancyParallel, EveryBackendPostNorm) { expect_parallel_passes_everywhere<tanh_post>(); }
TEST(ReentrancyParallel, EveryBackendCausalSwiGlu) { expect_parallel_passes_everywhere<swiglu_causal>(); }
TEST(ReentrancyParallel, EveryBackendRotaryGrouped) { expect_parallel_passes_everywhere<rope_neobert>(); }
#ifndef REENTRANCY_RACES_ONLY
// a16w8 shares int8's composition and workspace layout: one case (rotary, grouped queries), 2 and 3 workers.
TEST(ReentrancyParallel, A16w8RotaryGrouped) { expect_parallel_for_workers<rope_neobert, sf::a16w8, dflt, 2, 3>(); }
#endif

// A model's pass on Workers workers: every valid token count (all input kinds; an image: all its
// patches) gives the bytes and status of the pass on one thread.
template <class M, class P, class Backend, int Workers>
void expect_parallel_model_equals_serial(bool openmp) {
    static const auto ws = std::make_unique<sf::parallel_model_workspace_for<M, Workers, Backend, P>>();
    int most_tasks = 0;
    const test_executor exec{openmp, &most_tasks};
    int mismatches = 0;
    const int fewest = M::input == sf::input_kind::patches ? M::input_tokens : 1;
    for (input_kind kind : all_input_kinds)
        for (int n = fewest; n <= M::input_tokens; ++n) {
            sf::status serial_status = sf::status::ok;
            const std::vector<unsigned char> expected = model_output_bytes<M, P, Backend>(kind, n, serial_status);
            const auto x = make_model_input_for<M, P>(kind);
            const std::vector<std::uint8_t> mask = make_mask(kind, M::input_tokens, n);
            std::vector<sf::model_output_t<M, P>> y(M::output_values, sf::model_output_t<M, P>(99));
            const sf::status s =
                sf::forward<Backend>(model_weights_for<M, P>(), *ws, x.data(), y.data(), n, as_key_mask(mask), exec);
            if (bytes_of(y) != expected || s != serial_status) ++mismatches;
        }
    EXPECT_EQ(mismatches, 0) << precision_name<P> << ", " << Workers << " workers (" << exec.name() << ")";
    EXPECT_EQ(most_tasks, Workers) << precision_name<P> << ", " << exec.name();
}

#define PARALLEL_MODEL_TEST(name)                                                  \
    TEST(ReentrancyParallel, Model_##name) {                                       \
        for (bool openmp : {false, true}) {                                        \
            if (openmp && !have_openmp) continue;                                  \
            expect_parallel_model_equals_serial<name, sf::f32, dflt, 2>(openmp);  \
            expect_parallel_model_equals_serial<name, sf::int8, dflt, 3>(openmp); \
        }                                                                          \
    }
#ifdef REENTRANCY_RACES_ONLY
PARALLEL_MODEL_TEST(token_model)
#else
STATICFORMER_MODEL_CASES(PARALLEL_MODEL_TEST)
#endif
#undef PARALLEL_MODEL_TEST

// ---- a batch of sequences in one call ------------------------------------------------------------

template <class Cfg, int Batch, int Workers, class P, class Backend>
using batch_workspace_t = typename sf::precision_traits<P>::template workspace<
    Cfg, sf::worker_tile<Cfg, Backend, Batch * Cfg::seq_len, Workers>, Workers, Batch>;

// Sequence b of a batch of `count`: its input kind (normal, large or masked, in turn) and a valid
// length that differs from its neighbours'.
inline input_kind batch_kind(int b, int count) { return all_input_kinds[(b + count) % 3]; }
inline int batch_len(int b, int count, int most) { return 1 + (b * 7 + count * 3) % most; }

// A batch of `count` sequences' lengths and masks, and the bytes and status of their own calls.
struct batch_parts {
    std::vector<int> lens;
    std::vector<std::vector<std::uint8_t>> mask_bytes;
    std::vector<sf::key_padding_mask> masks;
    bytes expected;
    sf::status expected_status = sf::status::ok;
};
// Sequence b has batch_kind's input and batch_len's length of `tokens` (whole: all of them);
// add(b, kind, len, status) appends its input and returns its own call's bytes.
template <class Add>
batch_parts make_batch(int count, int tokens, bool whole, Add&& add) {
    batch_parts p{std::vector<int>(count), std::vector<std::vector<std::uint8_t>>(count),
                  std::vector<sf::key_padding_mask>(count), {}, sf::status::ok};
    for (int b = 0; b < count; ++b) {
        const input_kind kind = batch_kind(b, count);
        p.lens[b] = whole ? tokens : batch_len(b, count, tokens);
        p.mask_bytes[b] = make_mask(kind, tokens, p.lens[b]);
        p.masks[b] = as_key_mask(p.mask_bytes[b]);
        sf::status s = sf::status::ok;
        const std::vector<unsigned char> one = add(b, kind, p.lens[b], s);
        p.expected.insert(p.expected.end(), one.begin(), one.end());
        if (s != sf::status::ok) p.expected_status = s;
    }
    return p;
}

// Batches of 1 .. Batch sequences with mixed lengths, inputs and masks, on one worker and
// through exec on Workers: each sequence's bytes (and the status) are those of its own call.
template <class Cfg, class P, class Backend, int Batch, int Workers>
void expect_batch_equals_single_calls(bool openmp) {
    using value = std::conditional_t<is_integer<P>, stream_t, float>;
    constexpr std::size_t sequence = std::size_t(Cfg::seq_len) * Cfg::d_model;
    static const auto ws = std::make_unique<batch_workspace_t<Cfg, Batch, Workers, P, Backend>>();
    int most_tasks = 0;
    const test_executor exec{openmp, &most_tasks};
    int mismatches = 0;
    for (int count = 1; count <= Batch; ++count) {
        std::vector<value> x(count * sequence);
        const batch_parts p = make_batch(count, Cfg::seq_len, false, [&](int b, input_kind kind, int len, sf::status& s) {
            const std::vector<value> in = input_for<Cfg, P>(kind);
            std::copy(in.begin(), in.end(), x.begin() + b * sequence);
            return output_bytes<Cfg, P, Backend>(kind, len, s);
        });
        const auto run = [&](value* y, const auto&... exec_arg) {
            return sf::forward_batch<Backend>(weights_for<Cfg, P>(), *ws, x.data(), y, p.lens.data(), count,
                                              p.masks.data(), exec_arg...);
        };
        std::vector<value> y(x.size(), value(99));
        const sf::status serial = run(y.data());
        if (bytes_of(y) != p.expected || serial != p.expected_status) ++mismatches;
        std::fill(y.begin(), y.end(), value(99));
        const sf::status parallel = run(y.data(), exec);
        if (bytes_of(y) != p.expected || parallel != p.expected_status) ++mismatches;
        const sf::status in_place = run(x.data());
        if (bytes_of(x) != p.expected || in_place != p.expected_status) ++mismatches;
    }
    EXPECT_EQ(most_tasks, Workers) << precision_name<P> << ", " << exec.name();
    EXPECT_EQ(mismatches, 0) << precision_name<P> << ", batches of 1.." << Batch << ", " << Workers << " workers ("
                             << exec.name() << ")";
}

template <class Cfg, class P, class Backend>
void expect_batches() {
    for (bool openmp : {false, true}) {
        if (openmp && !have_openmp) continue;
#ifndef REENTRANCY_RACES_ONLY
        expect_batch_equals_single_calls<Cfg, P, Backend, 5, 2>(openmp);
#endif
        expect_batch_equals_single_calls<Cfg, P, Backend, 4, 3>(openmp);
    }
}

#define BATCH_TEST(name)                              \
    TEST(ReentrancyBatch, name) {                     \
        expect_batches<name, sf::f32, dflt>();        \
        expect_batches<name, sf::int8, dflt>();       \
    }
BATCH_TEST(odd_pre_gelu)
BATCH_TEST(rope_neobert)
#ifndef REENTRANCY_RACES_ONLY
BATCH_TEST(tanh_post)
BATCH_TEST(tiny_pre_gelu)
BATCH_TEST(causal_pre)
BATCH_TEST(swiglu_causal)
BATCH_TEST(rope_interleaved_post)
BATCH_TEST(single)
#endif
#undef BATCH_TEST
#ifndef REENTRANCY_RACES_ONLY
TEST(ReentrancyBatch, OtherBackendsAndF16) {
    expect_batches<odd_pre_gelu, sf::f16, dflt>();
    expect_batches<rope_neobert, sf::f32, ref>();
    expect_batches<swiglu_causal, sf::int8, ref>();
    expect_batches<rope_neobert, sf::a16w8, dflt>();
}
#endif

// A model's batches of 1 .. Batch sequences with mixed token counts (an image: all its patches),
// inputs and masks, on one worker and through exec on Workers: each sequence's bytes (and the
// status) are those of its own call.
template <class M, class P, class Backend, int Batch, int Workers>
void expect_model_batch_equals_single_calls(bool openmp) {
    using output = sf::model_output_t<M, P>;
    static const auto ws = std::make_unique<sf::batch_model_workspace_for<M, Batch, Backend, P, Workers>>();
    int most_tasks = 0;
    const test_executor exec{openmp, &most_tasks};
    int mismatches = 0;
    for (int count = 1; count <= Batch; ++count) {
        std::vector<sf::model_input_t<M, P>> x;
        const bool whole = M::input == sf::input_kind::patches;  // an image: all its patches
        const batch_parts p = make_batch(count, M::input_tokens, whole, [&](int, input_kind kind, int len, sf::status& s) {
            const auto in = make_model_input_for<M, P>(kind);
            x.insert(x.end(), in.begin(), in.end());
            return model_output_bytes<M, P, Backend>(kind, len, s);
        });
        std::vector<output> y(count * M::output_values, output(99));
        const auto& w = model_weights_for<M, P>();
        const sf::status serial = sf::forward_batch<Backend>(w, *ws, x.data(), y.data(), p.lens.data(), count, p.masks.data());
        if (bytes_of(y) != p.expected || serial != p.expected_status) ++mismatches;
        std::fill(y.begin(), y.end(), output(99));
        const sf::status parallel =
            sf::forward_batch<Backend>(w, *ws, x.data(), y.data(), p.lens.data(), count, p.masks.data(), exec);
        if (bytes_of(y) != p.expected || parallel != p.expected_status) ++mismatches;
    }
    EXPECT_EQ(most_tasks, Workers) << precision_name<P> << ", " << exec.name();
    EXPECT_EQ(mismatches, 0) << precision_name<P> << ", batches of 1.." << Batch << ", " << Workers << " workers ("
                             << exec.name() << ")";
}

#define MODEL_BATCH_TEST(name)                                                           \
    TEST(ReentrancyBatch, Model_##name) {                                                \
        for (bool openmp : {false, true}) {                                              \
            if (openmp && !have_openmp) continue;                                        \
            expect_model_batch_equals_single_calls<name, sf::f32, dflt, 4, 3>(openmp);   \
            expect_model_batch_equals_single_calls<name, sf::int8, dflt, 3, 2>(openmp);  \
        }                                                                                \
    }
#ifdef REENTRANCY_RACES_ONLY
MODEL_BATCH_TEST(feature_model)
#else
STATICFORMER_MODEL_CASES(MODEL_BATCH_TEST)
TEST(ReentrancyBatch, ModelOtherBackendsAndF16) {
    expect_model_batch_equals_single_calls<vit_model, sf::f16, dflt, 3, 2>(false);
    expect_model_batch_equals_single_calls<token_model, sf::f32, ref, 3, 2>(false);
    expect_model_batch_equals_single_calls<pooled_model, sf::int8, ref, 3, 2>(false);
    expect_model_batch_equals_single_calls<feature_model, sf::a16w8, dflt, 3, 2>(have_openmp);
}
#endif
#undef MODEL_BATCH_TEST

// A bad batch call writes nothing and names the fault: the batch size, a null pointer, any
// sequence's length, mask or input values, overlapping buffers.
TEST(ReentrancyBatch, BadCallsWriteNothing) {
    using Cfg = odd_pre_gelu;
    constexpr std::size_t sequence = std::size_t(Cfg::seq_len) * Cfg::d_model;
    static sf::batch_workspace_for<Cfg, 3, dflt> ws;
    const auto& w = weights_for<Cfg, sf::f32>();
    const std::vector<float> one = make_input<Cfg>(input_kind::normal);
    std::vector<float> x;
    for (int b = 0; b < 3; ++b) x.insert(x.end(), one.begin(), one.end());
    std::vector<float> y(x.size(), 5.0f);
    const std::vector<float> untouched = y;
    int lens[3] = {Cfg::seq_len, 2, 1};
    const auto call = [&](int count, const sf::key_padding_mask* masks = nullptr) {
        return sf::forward_batch<dflt>(w, ws, x.data(), y.data(), lens, count, masks);
    };
    EXPECT_EQ(call(0), sf::status::bad_batch_size);
    EXPECT_EQ(call(4), sf::status::bad_batch_size);
    EXPECT_EQ(sf::forward_batch<dflt>(w, ws, x.data(), y.data(), nullptr, 2), sf::status::null_pointer);
    EXPECT_EQ(sf::forward_batch<dflt>(w, ws, x.data(), x.data() + 1, lens, 3), sf::status::overlapping_buffers);
    lens[2] = Cfg::seq_len + 1;
    EXPECT_EQ(call(3), sf::status::bad_valid_len);
    lens[2] = 0;
    EXPECT_EQ(call(3), sf::status::bad_valid_len);
    lens[2] = 1;
    const std::uint8_t all[Cfg::seq_len] = {1, 1, 1, 1, 1, 1, 1};
    const sf::key_padding_mask masks[3] = {{}, {}, {all, Cfg::seq_len}};
    EXPECT_EQ(call(3, masks), sf::status::all_keys_masked);
    const sf::key_padding_mask short_mask[3] = {{all, 1}, {}, {}};
    EXPECT_EQ(call(3, short_mask), sf::status::bad_mask_length);
    x[2 * sequence] = std::numeric_limits<float>::infinity();  // the last sequence's first value
    EXPECT_EQ(call(3), sf::status::non_finite_input);
    EXPECT_EQ(y, untouched);
    EXPECT_EQ(call(2), sf::status::ok);  // the first two do not read it
}

// A bad model batch call writes nothing and names the fault: the batch size, a null pointer, a
// token id or length of one sequence, overlapping buffers.
TEST(ReentrancyBatch, ModelBadCallsWriteNothing) {
    using M = token_model;
    static sf::batch_model_workspace_for<M, 3, dflt> ws;
    const auto& w = model_weights_for<M, sf::f32>();
    const auto one = make_model_input_for<M, sf::f32>(input_kind::normal);
    std::vector<std::int32_t> x;
    for (int b = 0; b < 3; ++b) x.insert(x.end(), one.begin(), one.end());
    std::vector<float> y(3 * M::output_values, 5.0f);
    const std::vector<float> untouched = y;
    int lens[3] = {M::input_tokens, 2, 1};
    const auto call = [&](int count) { return sf::forward_batch<dflt>(w, ws, x.data(), y.data(), lens, count); };
    EXPECT_EQ(call(0), sf::status::bad_batch_size);
    EXPECT_EQ(call(4), sf::status::bad_batch_size);
    EXPECT_EQ(sf::forward_batch<dflt>(w, ws, x.data(), y.data(), nullptr, 2), sf::status::null_pointer);
    EXPECT_EQ(sf::forward_batch<dflt>(w, ws, x.data(), static_cast<float*>(nullptr), lens, 2), sf::status::null_pointer);
    EXPECT_EQ(sf::forward_batch<dflt>(w, ws, x.data(), reinterpret_cast<float*>(x.data() + 1), lens, 3),
              sf::status::overlapping_buffers);
    lens[1] = M::input_tokens + 1;
    EXPECT_EQ(call(3), sf::status::bad_valid_len);
    lens[1] = 2;
    x[2 * M::input_values] = M::vocab;  // the last sequence's first token
    EXPECT_EQ(call(3), sf::status::bad_token_id);
    EXPECT_EQ(y, untouched);
    EXPECT_EQ(call(2), sf::status::ok);  // the first two do not read it
}
