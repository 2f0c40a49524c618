// Cortex-M bring-up: a fault must end the run with a message and a failing exit code, not hang.
//   fault       undefined instruction -> UsageFault, escalated to HardFault: exit 131
//   fault svc   SVCall, which this port does not handle: exit 128 + 11 = 139
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "svc") == 0) {
        std::puts("fault: svc 0");
        asm volatile("svc 0");
    } else {
        std::puts("fault: undefined instruction");
        __builtin_trap();
    }
    std::puts("fault: still running");
    return 0;
}
