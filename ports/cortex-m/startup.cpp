// staticformer Cortex-M port: vector table, reset and fault handlers for QEMU's MPS2 / MPS3 boards.
// Firmware glue, not library code; linked into every image built with a toolchain-cortex-m*.cmake.
//
// Boot: the core loads SP and PC from sf_port_vectors; sf_port_reset enables the FPU, copies
// .data, starts SysTick (cycle_counter.h) and calls newlib's rdimon crt0 (_start). crt0 zeroes
// .bss, opens the semihosting stdio, runs constructors, then exit(main(argc, argv)); exit reaches
// QEMU through semihosting SYS_EXIT_EXTENDED, so main's return value is QEMU's exit code.
// Faults and unexpected exceptions print a line and exit with 128 + exception number
// (HardFault: 131), so a crash is a failed test, never a hang.
#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "cycle_counter.h"

extern "C" {
extern char __stack_top[], __stack_limit[], __end__[];  // sections.ld
extern std::uint32_t __data_start__[], __data_end__[], __data_load__[];
void _start();  // newlib crt0

volatile std::uint32_t sf_port_systick_wraps;
std::uint64_t sf_port_counter_origin;
std::uint32_t sf_port_systick_hz = 25000000;  // in .data, so crt0 zeroing .bss keeps what sf_port_reset sets
}

namespace {

volatile std::uint32_t& reg(std::uintptr_t address) { return *reinterpret_cast<volatile std::uint32_t*>(address); }
constexpr std::uintptr_t cpuid = 0xE000ED00, cpacr = 0xE000ED88, cfsr = 0xE000ED28, hfsr = 0xE000ED2C,
                         mmfar = 0xE000ED34, bfar = 0xE000ED38;
constexpr std::uintptr_t syst_csr = 0xE000E010, syst_rvr = 0xE000E014, syst_cvr = 0xE000E018;

// ---- semihosting: BKPT 0xAB, operation in r0, argument in r1 (Arm semihosting v2) ----------
std::uint32_t semihost(std::uint32_t op, const void* arg) {
    register std::uint32_t r0 asm("r0") = op;
    register const void* r1 asm("r1") = arg;
    asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}
constexpr std::uint32_t sys_write0 = 0x04, sys_get_cmdline = 0x15, sys_exit = 0x18, sys_exit_extended = 0x20;

[[noreturn]] void exit_with(std::uint32_t code) {
    const std::uint32_t block[2] = {0x20026, code};  // ADP_Stopped_ApplicationExit, status
    semihost(sys_exit_extended, block);
    // A host without the extension: plain SYS_EXIT with RunTimeErrorUnknown is exit status 1.
    semihost(sys_exit, reinterpret_cast<const void*>(0x20023));
    for (;;) {}
}

// Text for the fault paths: no stdio there, its state may be what broke.
struct line {
    char text[160];
    char* end = text;
    line& operator<<(const char* s) {
        while (*s && end < text + sizeof text - 2) *end++ = *s++;
        return *this;
    }
    line& hex(std::uint32_t v) {
        char s[11] = "0x";
        for (int i = 0; i < 8; ++i) s[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15u];
        return *this << s;
    }
    line& dec(std::uint64_t v) {
        char s[21];
        char* p = s + 20;
        *p = 0;
        do *--p = char('0' + v % 10); while (v /= 10);
        return *this << p;
    }
    void write() {
        *end++ = '\n';
        *end = 0;
        semihost(sys_write0, text);
    }
};

bool contains(const char* s, const char* word) {
    for (; *s; ++s) {
        const char *a = s, *b = word;
        while (*b && *a == *b) ++a, ++b;
        if (!*b) return true;
    }
    return false;
}

// run.sh --icount (or SF_PORT_ICOUNT=1) appends --sf-icount to the semihosting command line.
__attribute__((destructor)) void report_instructions() {
    static char cmdline[512];
    struct { char* buf; std::uint32_t size; } block = {cmdline, sizeof cmdline - 1};
    if (semihost(sys_get_cmdline, &block) != 0 || !contains(cmdline, "--sf-icount")) return;
    line l;
    (l << "sf_port: ").dec(sf_port_counter_since_reset()) << " instructions from reset to exit";
    l.write();
}

}  // namespace

extern "C" {

[[noreturn]] void sf_port_reset();
void sf_port_hard_fault();

[[noreturn]] __attribute__((used)) void sf_port_default_handler() {
    std::uint32_t ipsr;
    asm volatile("mrs %0, ipsr" : "=r"(ipsr));
    const std::uint32_t n = ipsr & 0x1FFu;
    line l;
    (l << "sf_port: unexpected exception ").dec(n);
    l.write();
    exit_with(128 + n > 255 ? 255 : 128 + n);
}

// frame: the stacked r0-r3, r12, lr, pc, xpsr of the faulting context.
[[noreturn]] __attribute__((used)) void sf_port_hard_fault_report(const std::uint32_t* frame) {
    line l;
    (l << "HardFault: pc ").hex(frame[6]) << " lr ";
    l.hex(frame[5]) << " cfsr ";
    l.hex(reg(cfsr)) << " hfsr ";
    l.hex(reg(hfsr)) << " bfar ";
    l.hex(reg(bfar)) << " mmfar ";
    l.hex(reg(mmfar));
    l.write();
    exit_with(131);
}

// Passes the stack the fault pushed its frame on (EXC_RETURN bit 2: MSP or PSP). On Armv8-M the
// fault may be a stack overflow caught by MSPLIM: lift the limit, or the report itself would
// overflow and lock the core up.
__attribute__((naked)) void sf_port_hard_fault() {
    asm volatile(
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
        "movs r1, #0\n"
        "msr msplim, r1\n"
#endif
        "tst lr, #4\n"
        "ite eq\n"
        "mrseq r0, msp\n"
        "mrsne r0, psp\n"
        "b sf_port_hard_fault_report\n");
}

void SysTick_Handler() { sf_port_systick_wraps = sf_port_systick_wraps + 1; }

// crt0 sets SP to the stack base QEMU's SYS_HEAPINFO reports, which is the top of the board's
// largest RAM (PSRAM or DDR), not ours; it then calls this weak hook, whose job is the stack
// limit. Put SP back at the top of our RAM and, on Armv8-M, arm the hardware stack limit.
__attribute__((naked)) void _stack_init() {
    asm volatile(
        "ldr r3, =__stack_top\n"
        "mov sp, r3\n"
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
        "ldr r3, =__stack_limit\n"
        "msr msplim, r3\n"
#endif
        "bx lr\n"
        ".ltorg\n");
}

// Heap for newlib (its stdio buffers): from the end of .bss to the stack, never into it.
// (rdimon's weak _sbrk only checks against the current SP.)
void* _sbrk(std::ptrdiff_t increment) {
    static char* brk = __end__;
    if (increment > __stack_limit - brk || increment < __end__ - brk) {
        errno = ENOMEM;
        return reinterpret_cast<void*>(-1);
    }
    char* const previous = brk;
    brk += increment;
    return previous;
}

__attribute__((section(".text.sf_port_reset"))) void sf_port_reset() {
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
    // CP10/CP11 full access: the FPU (and MVE on Armv8.1-M) faults until this is set.
    reg(cpacr) = reg(cpacr) | (0xFu << 20);
    asm volatile("dsb\n isb" ::: "memory");
#endif
    for (std::uint32_t *d = __data_start__, *s = __data_load__; d < __data_end__;) *d++ = *s++;
    // QEMU clocks the core at 25 MHz on MPS2 and 32 MHz on MPS3 (measured against -icount):
    // the boards of this port are told apart by their core, Cortex-M55 (part 0xD22) being AN547.
    sf_port_systick_hz = ((reg(cpuid) >> 4) & 0xFFFu) == 0xD22u ? 32000000u : 25000000u;
    // SysTick from the core clock, full 24-bit range, interrupt on wrap: the counter of
    // cycle_counter.h, running from here on.
    reg(syst_rvr) = 0xFFFFFFu;
    reg(syst_cvr) = 0;
    reg(syst_csr) = 7u;  // CLKSOURCE | TICKINT | ENABLE
    _start();
    for (;;) {}
}

using handler = void (*)();
#define SF_D sf_port_default_handler
#define SF_D8 SF_D, SF_D, SF_D, SF_D, SF_D, SF_D, SF_D, SF_D

// 16 system exceptions and 96 interrupts (the most of the four boards: AN547).
__attribute__((section(".vectors"), used)) extern const handler sf_port_vectors[16 + 96] = {
    reinterpret_cast<handler>(__stack_top),
    sf_port_reset,
    SF_D,                // NMI
    sf_port_hard_fault,  // HardFault
    SF_D, SF_D, SF_D,    // MemManage, BusFault, UsageFault (escalate to HardFault unless enabled)
    SF_D,                // SecureFault (Armv8-M)
    nullptr, nullptr, nullptr,
    SF_D,                // SVCall
    SF_D,                // DebugMonitor
    nullptr,
    SF_D,                // PendSV
    SysTick_Handler,
    SF_D8, SF_D8, SF_D8, SF_D8, SF_D8, SF_D8, SF_D8, SF_D8, SF_D8, SF_D8, SF_D8, SF_D8,
};
#undef SF_D8
#undef SF_D

}  // extern "C"
