// staticformer example: one forward pass on several threads. The library has no thread pool:
// the caller passes an executor (staticformer/parallel.hpp), here a small pool of std::threads
// and OpenMP's parallel for. The output bytes equal the one-thread pass's, for every count.
//   build/demo/examples/threads_example
#include <staticformer/staticformer.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "../demo/demo_model.hpp"

namespace sf = staticformer;
using cfg = demo_model_config;

// An executor on threads that live as long as it does: worker j runs task j of each stage, the
// caller's thread task 0 and any beyond the pool; operator() returns when every worker has
// finished the stage (with a task or without), so none can read the next stage's too early.
// A stage lasts microseconds, so the threads spin a while (yielding) before they sleep.
class thread_pool_executor {
public:
    explicit thread_pool_executor(int threads) : threads_(threads) {
        for (int j = 1; j < threads; ++j) workers_.emplace_back([this, j] { work(j); });
    }
    ~thread_pool_executor() {
        stopping_ = true;
        publish();
        for (std::thread& t : workers_) t.join();
    }
    thread_pool_executor(const thread_pool_executor&) = delete;
    thread_pool_executor& operator=(const thread_pool_executor&) = delete;

    void operator()(int count, sf::parallel_task task) {
        task_ = &task;
        count_ = count;
        done_.store(0);
        publish();  // (the stage's release makes task_ and count_ visible to the workers)
        task(0);
        for (int i = threads_; i < count; ++i) task(i);
        wait_for([&] { return done_.load() == threads_ - 1; });
    }

private:
    static constexpr int spins = 20000;
    template <class Ready>
    void wait_for(Ready ready) {
        for (int i = 0; i < spins; ++i) {
            if (ready()) return;
            std::this_thread::yield();
        }
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, ready);
    }
    // A new stage (or the end), and its notification to sleepers.
    void publish() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stage_.fetch_add(1);
        }
        changed_.notify_all();
    }
    void work(int j) {
        for (long seen = 0;;) {
            wait_for([&] { return stage_.load() != seen; });
            seen = stage_.load();
            if (stopping_) return;
            if (j < count_) (*task_)(j);
            {
                std::lock_guard<std::mutex> lock(mutex_);
                done_.fetch_add(1);
            }
            changed_.notify_all();
        }
    }

    const int threads_;
    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::atomic<long> stage_{0};
    std::atomic<int> done_{0};
    const sf::parallel_task* task_ = nullptr;  // written before stage_ changes, read after
    int count_ = 0;
    bool stopping_ = false;
};

// OpenMP's parallel for as an executor (its threads are kept between calls by libgomp).
struct openmp_executor {
    void operator()(int count, sf::parallel_task task) const {
#pragma omp parallel for num_threads(count) schedule(static, 1)
        for (int i = 0; i < count; ++i) task(i);
    }
};

// Microseconds per pass of f(), the best of a few rounds of `passes` passes.
template <class F>
double microseconds(F&& f) {
    constexpr int rounds = 3, passes = 20;
    double best = 1e30;
    for (int round = 0; round < rounds; ++round) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < passes; ++i) f();
        const std::chrono::duration<double, std::micro> t = std::chrono::steady_clock::now() - t0;
        best = t.count() / passes < best ? t.count() / passes : best;
    }
    return best;
}

template <int Workers>
bool run_on(const char* name, const std::vector<float>& x, const std::vector<float>& expected, double serial_us) {
    static sf::parallel_workspace_for<cfg, Workers> ws;  // tile buffers for each worker
    std::vector<float> y(x.size());
    thread_pool_executor pool(Workers);
    openmp_executor openmp;
    bool same = true;
    for (int executor = 0; executor < 2; ++executor) {
        const auto pass = [&] {
            return executor == 0 ? sf::forward(demo_model, ws, x.data(), y.data(), cfg::seq_len, {}, pool)
                                 : sf::forward(demo_model, ws, x.data(), y.data(), cfg::seq_len, {}, openmp);
        };
        if (pass() != sf::status::ok) return false;
        const bool equal = std::memcmp(y.data(), expected.data(), y.size() * sizeof(float)) == 0;
        const double us = microseconds(pass);
        std::printf("%-12s %d workers (%s): %8.1f us a pass, %.2fx; bytes %s\n", name, Workers,
                    executor == 0 ? "std::thread pool" : "OpenMP", us, serial_us / us,
                    equal ? "identical" : "DIFFERENT");
        same = same && equal;
    }
    return same;
}

int main() {
    std::vector<float> x(std::size_t(cfg::seq_len) * cfg::d_model), expected(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(i % 17) / 8.0f - 1.0f;

    static sf::workspace_for<cfg> ws;  // one thread
    if (sf::forward(demo_model, ws, x.data(), expected.data(), cfg::seq_len) != sf::status::ok) return 1;
    const double serial_us = microseconds([&] { sf::forward(demo_model, ws, x.data(), expected.data(), cfg::seq_len); });
    std::printf("demo model   1 thread:                %8.1f us a pass (this machine has %u hardware threads)\n",
                serial_us, std::thread::hardware_concurrency());
    const bool same = run_on<2>("demo model", x, expected, serial_us) && run_on<3>("demo model", x, expected, serial_us) &&
                      run_on<4>("demo model", x, expected, serial_us);
    return same ? 0 : 1;
}
