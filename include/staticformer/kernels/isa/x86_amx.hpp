// staticformer: x86 AMX (AMX-TILE, AMX-INT8: Sapphire Rapids and later) building blocks of the
// int8 linear layer (optimised), in AVX-512 VNNI builds, used when the CPU has AMX and Linux
// grants the process its tile state; otherwise the VNNI tiles run.
//
// TDPBSSD adds to each int32 of a 16 x 16 tile the 64 products of a row of a 16 x 64 byte tile
// (16 rows of x, 64 inputs) and a column of a 64 x 16 tile, held as 16 rows of 16 outputs x 4
// inputs: the int8 weights' layout w[i / 4][o][i % 4] as it is, rows Out * 4 bytes apart. Every
// tile is 16 x 64 bytes, so inputs that end within a step of 64 take that step from copies with
// zeros after them.
// Both operands are signed (no w + 128, no row sums) and the int32 sums are exact, so each
// accumulator is the reference's integer whatever the order.
#pragma once

#include <cstdint>
#include <cstdlib>

#include <immintrin.h>

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#define STATICFORMER_AMX_TARGET __attribute__((target("amx-tile,amx-int8")))

namespace staticformer {
namespace kernels {
namespace simd_int8 {
namespace amx {

// Whether this process may run tile instructions: the CPU has AMX-TILE and AMX-INT8 (CPUID leaf
// 7, EDX bits 24 and 25) and Linux grants the tile data state (ARCH_REQ_XCOMP_PERM for
// XTILEDATA, feature 18: asked once, on first use; it lasts for the process). STATICFORMER_AMX=0
// in the environment keeps the VNNI tiles (the same bytes).
inline bool request_tiles() noexcept {
    const char* off = std::getenv("STATICFORMER_AMX");
    if (off != nullptr && off[0] == '0') return false;
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
    if ((d >> 24 & 3u) != 3u) return false;
    constexpr long req_xcomp_perm = 0x1023, xtiledata = 18;
    return syscall(SYS_arch_prctl, req_xcomp_perm, xtiledata) == 0;
}

inline bool usable() noexcept {
    static const bool granted = request_tiles();
    return granted;
}

// The tile layout of every call (palette 1): eight tiles of 16 rows x 64 bytes. A constant:
// LDTILECFG's intrinsic tells the compiler it reads only the first 8 bytes of its operand, so a
// layout built on the stack could reach it half written.
struct alignas(64) tile_config {
    std::uint8_t palette = 1, start_row = 0, reserved[14] = {};
    std::uint16_t bytes_per_row[16] = {64, 64, 64, 64, 64, 64, 64, 64};
    std::uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
};

STATICFORMER_AMX_TARGET inline void load_config() noexcept {
    static constexpr tile_config config{};
    _tile_loadconfig(&config);
}

// Frees the tile state (the kernel then saves none of it at a switch).
STATICFORMER_AMX_TARGET inline void release() noexcept { _tile_release(); }

// Tiles 0-3 += 64 inputs of Rows rows (16 or 32) of x, rows x_stride bytes apart, times their 16
// groups of weights for Cols outputs (16 or 32), rows w_stride bytes apart: tile 0 holds rows 0-15
// x outputs 0-15, tile 1 outputs 16-31, tiles 2 and 3 rows 16-31; tiles 4-5 hold x, 6-7 the
// weights.
template <int Rows, int Cols>
STATICFORMER_AMX_TARGET inline void step(const std::int8_t* x, long x_stride, const std::int8_t* w,
                                         long w_stride) noexcept {
    _tile_loadd(6, w, w_stride);
    if constexpr (Cols == 32) _tile_loadd(7, w + 64, w_stride);
    _tile_loadd(4, x, x_stride);
    _tile_dpbssd(0, 4, 6);
    if constexpr (Cols == 32) _tile_dpbssd(1, 4, 7);
    if constexpr (Rows == 32) {
        _tile_loadd(5, x + 16 * x_stride, x_stride);
        _tile_dpbssd(2, 5, 6);
        if constexpr (Cols == 32) _tile_dpbssd(3, 5, 7);
    }
}

// The sums sum_i x[r * x_stride + i] w[i / 4][o][i % 4], i < In, of a Rows x Cols block in tiles
// 0-3: In / 64 steps in place, then, if In % 64 != 0, one step on the last inputs as copied with
// zeros after them (x_tail: rows 64 bytes apart; w_tail: their groups, rows 128 bytes apart).
// The tile loads read memory the compiler does not see them read: the barrier first makes every
// earlier store land.
template <int Rows, int Cols, int In>
STATICFORMER_AMX_TARGET inline void accumulate(const std::int8_t* x, long x_stride, const std::int8_t* w,
                                               long w_stride, const std::int8_t* x_tail,
                                               const std::int8_t* w_tail) noexcept {
    static_assert((Rows == 16 || Rows == 32) && (Cols == 16 || Cols == 32), "AMX blocks: 16 or 32 rows, columns");
    __asm__ volatile("" ::: "memory");
    _tile_zero(0);
    if constexpr (Cols == 32) _tile_zero(1);
    if constexpr (Rows == 32) _tile_zero(2);
    if constexpr (Rows == 32 && Cols == 32) _tile_zero(3);
    for (int k = 0; k < In / 64; ++k) step<Rows, Cols>(x + k * 64, x_stride, w + k * 16 * w_stride, w_stride);
    if constexpr (In % 64 != 0) step<Rows, Cols>(x_tail, 64, w_tail, 128);
}

// The sums of accumulate's Rows x Cols block into acc, rows 32 int32 apart.
template <int Rows, int Cols>
STATICFORMER_AMX_TARGET inline void store_sums(std::int32_t* acc) noexcept {
    constexpr long acc_stride = 32 * sizeof(std::int32_t);
    _tile_stored(0, acc, acc_stride);
    if constexpr (Cols == 32) _tile_stored(1, acc + 16, acc_stride);
    if constexpr (Rows == 32) _tile_stored(2, acc + 16 * 32, acc_stride);
    if constexpr (Rows == 32 && Cols == 32) _tile_stored(3, acc + 16 * 32 + 16, acc_stride);
}

}  // namespace amx
}  // namespace simd_int8
}  // namespace kernels
}  // namespace staticformer
