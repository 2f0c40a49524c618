// realtime_window: a Linux real-time loop (AArch64 or x86-64) that classifies a sliding window of
// sensor frames at a fixed period. Everything is allocated before the loop: the weights are
// constant, the workspace and the window are static, the stack is touched once, and memory is
// locked where the process may (mlockall). Each period waits for an absolute deadline
// (clock_nanosleep TIMER_ABSTIME: no drift), reads one frame, runs the model on the last
// `window` frames and records the latency. Prints median and worst-case latency and the number
// of missed deadlines.
//
//   realtime_window [periods] [period_us]      (default 200 periods of 2000 us)
//
// The model: 24 features per frame, 16 frames, d_model 32, two layers, CLS pooling, 5 classes;
// its weights are drawn here from a fixed seed (a trained model would come from
// tools/export_pytorch.py the same way), so every run computes the same classes.
#include <staticformer/staticformer.hpp>

#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace sf = staticformer;

using encoder_cfg = sf::encoder_config<32, 4, 64, 17, 2, sf::pre_norm, sf::gelu, sf::final_norm>;
using cfg = sf::model_config<encoder_cfg, sf::feature_input<24>, sf::sinusoidal_positions, sf::cls_token,
                             sf::cls_pooling, sf::classifier_head<5>>;
constexpr int frames = cfg::input_tokens, features = cfg::features;
constexpr int max_periods = 100000;

namespace {

sf::model_weights<cfg, sf::f32> weights;  // filled once at start-up (a flash image would hold them)
sf::model<cfg, sf::f32> net{weights};
float history[2 * frames][features];      // the last frames, twice: a window is always contiguous
int latency_ns[max_periods];

// Deterministic weights: a 64-bit LCG's top bits, uniform in [-scale, scale).
void fill(float* p, std::size_t n, float scale, std::uint64_t& state) {
    for (std::size_t i = 0; i < n; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = scale * (float(std::int32_t(state >> 40) - (1 << 23)) / 8388608.0f);
    }
}

template <class T>
void fill_all(T& object, float scale, std::uint64_t& state) {  // every float of a weights part
    fill(reinterpret_cast<float*>(&object), sizeof object / sizeof(float), scale, state);
}

// One sensor frame at time t: a few sines (a stand-in for an IMU or microphone front end).
void read_frame(int t, float* frame) {
    for (int f = 0; f < features; ++f) frame[f] = float((t * (f + 3)) % 17) / 8.0f - 1.0f;
}

std::int64_t ns(const timespec& t) { return std::int64_t(t.tv_sec) * 1000000000 + t.tv_nsec; }

}  // namespace

int main(int argc, char** argv) {
    const int periods = std::min(argc > 1 ? std::atoi(argv[1]) : 200, max_periods);
    const long period_ns = 1000L * (argc > 2 ? std::atol(argv[2]) : 2000);
    if (periods < 1 || period_ns <= 0) return std::fprintf(stderr, "usage: realtime_window [periods] [period_us]\n"), 2;

    std::uint64_t seed = 42;
    fill_all(weights, 0.125f, seed);  // then sensible LayerNorm gains
    for (auto& l : weights.encoder.layer)
        for (int c = 0; c < cfg::d_model; ++c) l.norm1_gamma[c] = l.norm2_gamma[c] = 1.0f;
    for (int c = 0; c < cfg::d_model; ++c) weights.encoder.final_norm.gamma[c] = 1.0f;

    // Start-up: lock memory (needs CAP_IPC_LOCK or a memlock limit; without it the loop still
    // runs, only page faults may then add latency) and run once so every page is touched.
    const bool locked = mlockall(MCL_CURRENT | MCL_FUTURE) == 0;
    float logits[cfg::classes];
    int label = 0, histogram[cfg::classes] = {};
    for (int t = 0; t < frames; ++t) read_frame(t, history[t]), std::memcpy(history[t + frames], history[t], sizeof history[t]);
    if (net.classify(&history[0][0], logits, &label) != sf::status::ok) return 1;

    timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    int missed = 0;
    for (int p = 0; p < periods; ++p) {
        next.tv_nsec += period_ns;
        while (next.tv_nsec >= 1000000000) next.tv_nsec -= 1000000000, ++next.tv_sec;
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
        timespec start, end;
        clock_gettime(CLOCK_MONOTONIC, &start);
        const int t = frames + p, slot = t % frames;  // the newest frame replaces the oldest
        read_frame(t, history[slot]);
        std::memcpy(history[slot + frames], history[slot], sizeof history[slot]);
        if (net.classify(&history[slot + 1][0], logits, &label) != sf::status::ok) return 1;
        ++histogram[label];
        clock_gettime(CLOCK_MONOTONIC, &end);
        latency_ns[p] = int(ns(end) - ns(start));
        if (ns(end) > ns(next) + period_ns) ++missed;  // not done before the next deadline
    }
    std::sort(latency_ns, latency_ns + periods);
    std::printf("realtime_window: %d periods of %ld us, window %d frames x %d features, memory %s\n", periods,
                period_ns / 1000, frames, features, locked ? "locked" : "not locked (no permission)");
    std::printf("latency median %d us, worst %d us, deadline misses %d\n", latency_ns[periods / 2] / 1000,
                latency_ns[periods - 1] / 1000, missed);
    std::printf("classes:");
    for (int c = 0; c < cfg::classes; ++c) std::printf(" %d", histogram[c]);
    std::printf("\n");
    return 0;
}
