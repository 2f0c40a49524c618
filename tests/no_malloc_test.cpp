// forward() never allocates: operator new and malloc are counted (malloc through the linker's
// --wrap, so calls from this program's code are seen) and must not move during forward().
#include <gtest/gtest.h>

#include <staticformer/staticformer.hpp>

#include <cstdlib>
#include <new>
#include <vector>

#include "common/cases.hpp"
#include "common/model_cases.hpp"

namespace {
// volatile: the compiler assumes malloc() touches no visible state and would cache the count.
volatile long allocations = 0;
}

extern "C" {
void* __real_malloc(std::size_t);
void* __real_calloc(std::size_t, std::size_t);
void* __real_realloc(void*, std::size_t);
void* __wrap_malloc(std::size_t n) {
    allocations = allocations + 1;
    return __real_malloc(n);
}
void* __wrap_calloc(std::size_t a, std::size_t b) {
    allocations = allocations + 1;
    return __real_calloc(a, b);
}
void* __wrap_realloc(void* p, std::size_t n) {
    allocations = allocations + 1;
    return __real_realloc(p, n);
}
}

void* operator new(std::size_t n) {
    allocations = allocations + 1;
    if (void* p = __real_malloc(n ? n : 1)) return p;
    std::abort();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    allocations = allocations + 1;
    return __real_malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
// Not inlined: where GCC 12 inlines free() next to a vector's operator new it reports a
// mismatched new/delete pair (-Wmismatched-new-delete), depending on what else got inlined.
__attribute__((noinline)) void operator delete(void* p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete[](void* p) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete(void* p, std::size_t) noexcept { std::free(p); }
__attribute__((noinline)) void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

using namespace sftest;

template <class Cfg, class Backend, class P = sf::f32>
void expect_no_allocation() {
    static sf::encoder<Cfg, P, Backend> enc{weights_for<Cfg, P>()};
    const auto x = make_input<Cfg>(input_kind::normal);
    std::vector<float> y(x.size());
    for (int n : valid_lens<Cfg>()) {
        const long before = allocations;
        const sf::status s = enc.forward(x.data(), y.data(), n);
        const long after = allocations;
        EXPECT_EQ(s, sf::status::ok);
        EXPECT_EQ(after - before, 0) << "forward() allocated";
    }
}

TEST(NoMalloc, CounterSeesAllocations) {  // the check can fail
    const long before = allocations;
    void* volatile p = std::malloc(16);  // volatile: the call may not be elided
    int* volatile q = new int(3);
    EXPECT_EQ(allocations - before, 2);
    delete q;
    std::free(p);
}

TEST(NoMalloc, ForwardReference) {
    expect_no_allocation<tiny_pre_gelu, sf::reference>();
    expect_no_allocation<tanh_post, sf::reference>();
}

TEST(NoMalloc, ForwardReferenceF16) {
    (void)weights_for<tiny_pre_gelu, sf::f16>();  // made (and converted) before counting
    (void)weights_for<tanh_post, sf::f16>();
    expect_no_allocation<tiny_pre_gelu, sf::reference, sf::f16>();
    expect_no_allocation<tanh_post, sf::reference, sf::f16>();
}

// Whole models in every precision, inputs and weights made (and int8 ones quantised) first.
template <class M, class P, class Backend>
void expect_model_no_allocation() {
    static sf::model<M, P, Backend> m{model_weights_for<M, P>()};
    const auto x = make_model_input_for<M, P>(input_kind::normal);
    std::vector<sf::model_output_t<M, P>> y(M::output_values);
    for (int n : model_valid_lens<M>()) {
        const long before = allocations;
        const sf::status s = m.forward(x.data(), y.data(), n);
        const long after = allocations;
        EXPECT_EQ(s, sf::status::ok);
        EXPECT_EQ(after - before, 0) << "model forward() allocated";
    }
}

template <class Backend>
void expect_models_no_allocation() {
#define SF_NO_MALLOC_MODEL(name)                                     \
    expect_model_no_allocation<name, sf::f32, Backend>();            \
    expect_model_no_allocation<name, sf::f16, Backend>();            \
    expect_model_no_allocation<name, sf::int8, Backend>();
    STATICFORMER_MODEL_CASES(SF_NO_MALLOC_MODEL)
#undef SF_NO_MALLOC_MODEL
}

TEST(NoMalloc, ModelsReference) { expect_models_no_allocation<sf::reference>(); }

#if STATICFORMER_HAS_SIMD
TEST(NoMalloc, ModelsSimd) { expect_models_no_allocation<sf::simd>(); }

TEST(NoMalloc, ForwardSimd) {
    expect_no_allocation<tiny_pre_gelu, sf::simd>();
    expect_no_allocation<tanh_post, sf::simd>();
}

TEST(NoMalloc, ForwardSimdF16) {
    expect_no_allocation<tiny_pre_gelu, sf::simd, sf::f16>();
    expect_no_allocation<tanh_post, sf::simd, sf::f16>();
}
#elif STATICFORMER_HAS_ARMV7_NEON
TEST(NoMalloc, ModelsArmv7Neon) { expect_models_no_allocation<sf::armv7_neon>(); }
#endif

}  // namespace
