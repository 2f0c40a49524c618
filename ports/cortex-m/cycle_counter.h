/* staticformer Cortex-M port: instruction counter for firmware run by run.sh (QEMU, -icount shift=0).
 *
 * Under -icount shift=0 every guest instruction advances QEMU's virtual clock by exactly 1 ns,
 * and SysTick, clocked from the core clock, counts that virtual time: instructions =
 * ticks * 1e9 / clock. It is exact and repeatable run to run, in steps of one tick: 40
 * instructions on MPS2 (25 MHz), 31.25 on MPS3 AN547 (32 MHz). startup.cpp starts SysTick at
 * reset, counts its wraps and sets the clock from the core's CPUID, so this port owns SysTick.
 * On real hardware the same code measures wall time.
 *
 *   sf_port_counter_start();
 *   work();
 *   uint64_t n = sf_port_counter_read();   // instructions since start
 */
#ifndef STATICFORMER_PORT_CYCLE_COUNTER_H
#define STATICFORMER_PORT_CYCLE_COUNTER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

extern volatile uint32_t sf_port_systick_wraps; /* incremented by SysTick_Handler (startup.cpp) */
extern uint64_t sf_port_counter_origin;         /* ticks at the last sf_port_counter_start() */
extern uint32_t sf_port_systick_hz;             /* the board's core clock, set at reset */

/* SysTick ticks since reset: the 24-bit down-counter plus 2^24 per wrap. Re-read if a wrap
 * interrupt ran between the two loads. */
static inline uint64_t sf_port_ticks(void) {
    uint32_t wraps, value;
    do {
        wraps = sf_port_systick_wraps;
        value = *(volatile const uint32_t*)0xE000E018u; /* SYST_CVR */
    } while (wraps != sf_port_systick_wraps);
    return ((uint64_t)wraps << 24) + (0xFFFFFFu - value);
}

static inline uint64_t sf_port_ticks_to_ns(uint64_t ticks) {
    const uint64_t hz = sf_port_systick_hz;
    return ticks / hz * 1000000000u + ticks % hz * 1000000000u / hz;
}

/* Start a measurement at a tick boundary: wait for the counter to move, so that the span
 * starts at the same phase of the tick whatever ran before (the command line's length, say),
 * and store raw ticks, so no conversion runs inside the span. */
static inline void sf_port_counter_start(void) {
    const uint32_t value = *(volatile const uint32_t*)0xE000E018u;
    while (*(volatile const uint32_t*)0xE000E018u == value) {
    }
    sf_port_counter_origin = sf_port_ticks();
}

/* Instructions (virtual ns) since the last sf_port_counter_start(). */
static inline uint64_t sf_port_counter_read(void) {
    return sf_port_ticks_to_ns(sf_port_ticks() - sf_port_counter_origin);
}

/* Instructions (virtual ns) since reset. */
static inline uint64_t sf_port_counter_since_reset(void) { return sf_port_ticks_to_ns(sf_port_ticks()); }

#ifdef __cplusplus
}
#endif

#endif /* STATICFORMER_PORT_CYCLE_COUNTER_H */
