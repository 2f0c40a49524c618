// staticformer footprint: the smallest startup for the *measured* Cortex-M images (fp_*_base and
// fp_*_fwd), used instead of ports/cortex-m/startup.cpp + newlib's rdimon crt0.
//
// Why: rdimon's crt0 calls initialise_monitor_handles(), which initialises newlib's stdio
// (__sinit), which links _malloc_r/_free_r: every image booted through it holds a heap, whatever
// the program does. A firmware without stdio does not, and that is the image whose symbols must
// show no heap. This startup uses no C library at all: vector table, .data copy, .bss clear,
// constructors, main(), and main's return value to QEMU through semihosting SYS_EXIT_EXTENDED.
// Linked with -nostartfiles by ports/footprint/CMakeLists.txt; the board's linker script
// (ports/cortex-m/mps2.ld, mps3_an547.ld) is the port's.
#include <cstdint>

extern "C" {
extern char __stack_top[];
extern std::uint32_t __data_start__[], __data_end__[], __data_load__[], __bss_start__[], __bss_end__[];
extern void (*__init_array_start[])();
extern void (*__init_array_end[])();
int main(int, char**);

[[noreturn]] void sf_fp_exit(std::uint32_t code) {
    const std::uint32_t block[2] = {0x20026, code};  // ADP_Stopped_ApplicationExit, status
    register std::uint32_t r0 asm("r0") = 0x20;        // SYS_EXIT_EXTENDED
    register const std::uint32_t* r1 asm("r1") = block;
    asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    for (;;) {
    }
}

// Any fault or unexpected exception: exit code 128 + exception number, as the port does.
[[noreturn]] void sf_fp_unexpected() {
    std::uint32_t ipsr;
    asm volatile("mrs %0, ipsr" : "=r"(ipsr));
    sf_fp_exit(128 + (ipsr & 0x7Fu));
}

// The port's linker script names sf_port_reset as the entry and places .text.sf_port_reset first.
[[noreturn]] __attribute__((section(".text.sf_port_reset"))) void sf_port_reset() {
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
    *reinterpret_cast<volatile std::uint32_t*>(0xE000ED88u) |= 0xFu << 20;  // CPACR: CP10/CP11 full access
    asm volatile("dsb\n isb" ::: "memory");
#endif
    for (std::uint32_t *d = __data_start__, *s = __data_load__; d < __data_end__;) *d++ = *s++;
    for (std::uint32_t* d = __bss_start__; d < __bss_end__;) *d++ = 0;
    for (void (**f)() = __init_array_start; f < __init_array_end; ++f) (*f)();
    static char name[] = "fp";
    static char* argv[] = {name, nullptr};
    sf_fp_exit(std::uint32_t(main(1, argv)));
}

using handler = void (*)();
__attribute__((section(".vectors"), used)) extern const handler sf_fp_vectors[16] = {
    reinterpret_cast<handler>(__stack_top), reinterpret_cast<handler>(sf_port_reset),
    sf_fp_unexpected, sf_fp_unexpected, sf_fp_unexpected, sf_fp_unexpected, sf_fp_unexpected,
    sf_fp_unexpected, nullptr, nullptr, nullptr, sf_fp_unexpected, sf_fp_unexpected, nullptr,
    sf_fp_unexpected, sf_fp_unexpected,
};
}
