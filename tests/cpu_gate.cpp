// Runs a test binary only if this CPU has the instruction set it was built for; otherwise
// exits 77, which ctest reports as skipped. Built without -march so it runs everywhere.
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace {
// One extension named after a '+' (__builtin_cpu_supports takes only literals).
bool cpu_has_extension(const char* name) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (std::strcmp(name, "avxvnni") == 0) return __builtin_cpu_supports("avxvnni");
    if (std::strcmp(name, "avx512vnni") == 0) return __builtin_cpu_supports("avx512vnni");
    if (std::strcmp(name, "avx512vbmi") == 0) return __builtin_cpu_supports("avx512vbmi");
#endif
    (void)name;
    return false;
}

bool cpu_has_level(const char* isa) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (std::strcmp(isa, "x86-64-v3") == 0)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2") &&
               __builtin_cpu_supports("f16c");
    if (std::strcmp(isa, "x86-64-v4") == 0)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512cd");
#endif
    return std::strcmp(isa, "baseline") == 0;
}

// ISA: a level ("baseline", "x86-64-v3", "x86-64-v4") followed by "+extension"s.
bool cpu_has(const char* isa) {
    char level[64];
    const char* plus = std::strchr(isa, '+');
    const std::size_t n = plus ? std::size_t(plus - isa) : std::strlen(isa);
    if (n >= sizeof level) return false;
    std::memcpy(level, isa, n);
    level[n] = '\0';
    if (!cpu_has_level(level)) return false;
    while (plus) {
        char extension[64];
        const char* next = std::strchr(plus + 1, '+');
        const std::size_t m = next ? std::size_t(next - plus - 1) : std::strlen(plus + 1);
        if (m >= sizeof extension) return false;
        std::memcpy(extension, plus + 1, m);
        extension[m] = '\0';
        if (!cpu_has_extension(extension)) return false;
        plus = next;
    }
    return true;
}
}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s ISA PROGRAM [ARGS...]\n", argv[0]);
        return 2;
    }
    if (!cpu_has(argv[1])) {
        std::printf("SKIPPED: this CPU lacks %s\n", argv[1]);
        return 77;
    }
    execv(argv[2], argv + 2);
    std::perror("execv");
    return 2;
}
