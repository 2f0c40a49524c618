// STATICFORMER_GUARD_GCC12_MVE_MEMORY_SIZES, reproduced: arm-none-eabi-g++ 12.2 at -O2 for a
// Cortex-M55 describes a narrowing predicated store (vstrbq_p_s32: four bytes) as one byte's
// memory, and its scheduler (sched1) moves the scalar loads of bytes 1..3 above the store. The
// shape of an int8 model's head: rows averaged by scalar code, narrowed by Helium, read by a
// scalar classifier. Prints "MISORDERED" while the unfenced head differs from the scalar one
// (ports/cortex-m expects it while the guard is needed, "in order" once a compiler gets it
// right), then whether the fenced head (arm_mve::memory_fence, as the library's kernels) is exact.
#include <staticformer/staticformer.hpp>

#include <arm_mve.h>

#include <cstdint>
#include <cstdio>

namespace {

constexpr int D = 16, C = 10;
struct workspace {
    alignas(64) std::int8_t head_input[D];
    alignas(64) std::int16_t pooled[D];
};
workspace ws_unfenced, ws_fenced, ws_scalar;
struct weights {
    std::int32_t multiplier, shift, zero_point;
    std::int8_t w[C][D];
};

enum class form { unfenced, fenced, scalar };

template <form F>
__attribute__((always_inline)) inline void narrow(const std::int16_t* x, const weights& p, std::int8_t* y) {
    if constexpr (F == form::scalar) {
        for (int i = 0; i < D; ++i) {
            const std::int64_t v = (std::int64_t(x[i]) * p.multiplier + (std::int64_t(1) << (p.shift - 1))) >> p.shift;
            const std::int64_t q = v + p.zero_point;
            y[i] = std::int8_t(q < -128 ? -128 : q > 127 ? 127 : q);
        }
        return;
    }
    if constexpr (F == form::fenced) staticformer::kernels::arm_mve::memory_fence();
#pragma GCC unroll 4
    for (int i = 0; i < D; i += 4) {
        const mve_pred16_t live = vctp32q(D - i);
        const int32x4_t v = vaddq_n_s32(vrshlq_n_s32(vmulq_n_s32(vldrhq_z_s32(x + i, live), p.multiplier), -p.shift),
                                        p.zero_point);
        vstrbq_p_s32(y + i, vminq_s32(vmaxq_s32(v, vdupq_n_s32(-128)), vdupq_n_s32(127)), live);
    }
    if constexpr (F == form::fenced) staticformer::kernels::arm_mve::memory_fence();
}

template <form F, workspace& ws>
__attribute__((noinline)) void head(const std::int16_t* rows, int n, const weights& w, std::int32_t* out) {
    for (int c = 0; c < D; ++c) {  // the mean of n rows: scalar int16 stores
        std::int32_t sum = 0;
        for (int r = 0; r < n; ++r) sum += rows[r * D + c];
        ws.pooled[c] = std::int16_t(sum / n);
    }
    narrow<F>(ws.pooled, w, ws.head_input);
    for (int o = 0; o < C; ++o) {  // the classifier: scalar int8 loads
        std::int32_t acc = 0;
#pragma GCC unroll 16
        for (int k = 0; k < D; ++k) acc += ws.head_input[k] * w.w[o][k];
        out[o] = acc;
    }
}

weights W;
std::int16_t rows[4 * D];

}  // namespace

int main() {
    W.multiplier = 3, W.shift = 2, W.zero_point = -5;
    for (int o = 0; o < C; ++o)
        for (int k = 0; k < D; ++k) W.w[o][k] = std::int8_t((o * 7 + k * 13) % 23 - 11);
    int unfenced = 0, fenced = 0;
    for (int image = 0; image < 8; ++image) {
        for (int i = 0; i < 4 * D; ++i) rows[i] = std::int16_t((i * 37 + image * 101) % 151 - 75);
        std::int32_t a[C], b[C], expected[C];
        head<form::unfenced, ws_unfenced>(rows, 4, W, a);
        head<form::fenced, ws_fenced>(rows, 4, W, b);
        head<form::scalar, ws_scalar>(rows, 4, W, expected);
        for (int o = 0; o < C; ++o) unfenced += a[o] != expected[o], fenced += b[o] != expected[o];
    }
    std::printf("unfenced: %s (%d logits differ); fenced: %s\n", unfenced ? "MISORDERED" : "in order", unfenced,
                fenced ? "WRONG" : "exact");
    return fenced != 0;
}
