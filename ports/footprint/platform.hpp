// staticformer footprint: the few platform services the measured programs need, without stdio
// (newlib's printf would link malloc into a Cortex-M image, and the images must show none):
// a text line written through semihosting (bare metal) or write(2) (Linux), the stack pointer,
// and stack painting. Tool code for ports/footprint, not library code.
#pragma once

#include <cstddef>
#include <cstdint>

#if !SF_FP_BARE_METAL
#include <unistd.h>
#endif

namespace sf_fp {

inline void write_text(const char* s) noexcept {
#if SF_FP_BARE_METAL
    // Arm semihosting SYS_WRITE0 (0x04): a NUL-terminated string to the host's stdout.
    register std::uint32_t r0 asm("r0") = 0x04;
    register const char* r1 asm("r1") = s;
    asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
#else
    std::size_t n = 0;
    while (s[n]) ++n;
    while (n > 0) {
        const ssize_t w = ::write(1, s, n);
        if (w <= 0) return;
        s += w;
        n -= std::size_t(w);
    }
#endif
}

// One output line, "key=value key=value ...", parsed by tools/footprint.py.
class line {
public:
    line& text(const char* s) noexcept {
        while (*s && end_ < buf_ + sizeof buf_ - 2) *end_++ = *s++;
        return *this;
    }
    line& dec(std::uint64_t v) noexcept {
        char s[21];
        char* p = s + 20;
        *p = 0;
        do *--p = char('0' + v % 10); while (v /= 10);
        return text(p);
    }
    line& hex(std::uint32_t v) noexcept {
        char s[9];
        for (int i = 0; i < 8; ++i) s[i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15u];
        s[8] = 0;
        return text(s);
    }
    line& kv(const char* key, std::uint64_t v) noexcept { return text(" ").text(key).text("=").dec(v); }
    line& kv(const char* key, const char* v) noexcept { return text(" ").text(key).text("=").text(v); }
    void write() noexcept {
        *end_++ = '\n';
        *end_ = 0;
        write_text(buf_);
        end_ = buf_;
    }

private:
    char buf_[512];
    char* end_ = buf_;
};

__attribute__((always_inline)) inline std::uintptr_t stack_pointer() noexcept {
    std::uintptr_t sp;
#if defined(__x86_64__)
    asm volatile("mov %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__) || defined(__arm__)
    asm volatile("mov %0, sp" : "=r"(sp));
#elif defined(__riscv)
    asm volatile("mv %0, sp" : "=r"(sp));
#else
#error "sf_fp::stack_pointer: unknown architecture"
#endif
    return sp;
}

constexpr std::uint32_t paint_word = 0xC5A5F00Du;

// Fills the `bytes` below the current stack pointer with paint_word and returns that stack
// pointer, the reference point of stack_used(). Call it from a non-leaf function (no red zone
// in use below SP), right before the call to measure: the callee's stack starts at that SP.
__attribute__((always_inline)) inline std::uintptr_t paint_stack(std::size_t bytes) noexcept {
    const std::uintptr_t top = stack_pointer() & ~std::uintptr_t(7);
    volatile std::uint32_t* p = reinterpret_cast<volatile std::uint32_t*>(top - bytes);
    for (std::size_t i = 0; i < bytes / 4; ++i) p[i] = paint_word;
    return top;
}

// Bytes between `top` and the lowest word below it that is no longer paint_word: the stack's
// high-water mark below top (a word written with the paint value by chance reads as unused).
inline std::size_t stack_used(std::uintptr_t top, std::size_t bytes) noexcept {
    const volatile std::uint32_t* p = reinterpret_cast<const volatile std::uint32_t*>(top - bytes);
    std::size_t i = 0;
    while (i < bytes / 4 && p[i] == paint_word) ++i;
    return bytes - 4 * i;
}

// xorshift32, for inputs. Values are multiples of 2^-9 in [-1, 1): exact in binary16 and float.
struct generator {
    std::uint32_t state;
    float next() noexcept {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        return float(std::int32_t(state >> 22) - 512) * (1.0f / 512.0f);
    }
};

// argv[1] as valid_len if it is a number in [1, fallback], else fallback (runs may ask for fewer
// rows on a slow emulated core; probe and profile take it on their command line).
inline int valid_len_argument(int argc, char** argv, int fallback) noexcept {
    if (argc < 2 || argv[1] == nullptr || argv[1][0] == 0) return fallback;
    int v = 0;
    for (const char* c = argv[1]; *c; ++c) {
        if (*c < '0' || *c > '9' || v > fallback) return fallback;
        v = v * 10 + (*c - '0');
    }
    return v >= 1 && v <= fallback ? v : fallback;
}

// CRC-32 (IEEE 802.3, as zlib.crc32) of n bytes.
inline std::uint32_t crc32(const void* data, std::size_t n) noexcept {
    const unsigned char* p = static_cast<const unsigned char*>(data);
    std::uint32_t crc = ~0u;
    for (std::size_t i = 0; i < n; ++i) {
        crc ^= p[i];
        for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

}  // namespace sf_fp
