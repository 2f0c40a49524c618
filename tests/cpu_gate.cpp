// Runs a test binary only if this CPU has the instruction set it was built for; otherwise
// exits 77, which ctest reports as skipped. Built without -march so it runs everywhere.
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace {
bool cpu_has(const char* isa) {
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
