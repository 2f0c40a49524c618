// Cortex-M bring-up: main's return value must reach ctest as QEMU's exit code (run.sh checks 3).
#include <cstdio>

int main() {
    std::puts("exit_code: returning 3");
    return 3;
}
