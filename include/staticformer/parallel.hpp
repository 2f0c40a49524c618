// staticformer: running one forward pass on several of the caller's threads. The library has
// no thread pool, allocates nothing and keeps no global state: the caller passes an executor,
// any callable `exec(int count, staticformer::parallel_task task)` that runs task(0) ..
// task(count - 1), in any order and on any threads, and returns when all have returned (an
// OpenMP parallel for, a pool of std::threads, a job system's parallel-for). Each task works on
// rows of its own and its own tile buffers of the workspace (workspace<Cfg, Tile, Workers>),
// so the output bytes are the same for every executor and every worker count.
#pragma once

namespace staticformer {

// One unit of work of a parallel stage, task(i) for i in [0, count): a function and the state it
// reads, two pointers, so that an executor needs no template (and a C one can run it). Valid
// until the executor returns.
class parallel_task {
public:
    template <class F>
    explicit parallel_task(const F& f) noexcept : run_(&call<F>), state_(&f) {}
    void operator()(int i) const noexcept { run_(state_, i); }

    // The same as a C function and its argument: run(state, i).
    using function = void (*)(const void* state, int i);
    function run() const noexcept { return run_; }
    const void* state() const noexcept { return state_; }

private:
    template <class F>
    static void call(const void* f, int i) noexcept {
        (*static_cast<const F*>(f))(i);
    }
    function run_;
    const void* state_;
};

// The executor of one thread: the tasks one after the other, in order.
struct serial_executor {
    void operator()(int count, parallel_task task) const noexcept {
        for (int i = 0; i < count; ++i) task(i);
    }
};

}  // namespace staticformer
