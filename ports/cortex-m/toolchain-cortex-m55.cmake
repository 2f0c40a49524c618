# staticformer Cortex-M port: Cortex-M55 (Armv8.1-M, FPv5 with double precision) on QEMU's
# mps3-an547. +nomve.fp: GCC's -mcpu=cortex-m55 auto-vectorises float loops with MVE, and MVE
# float flushes subnormals to zero (QEMU 7.2: 2^-127 + 0 gives 0 in a vectorised loop, 2^-127
# in scalar code), which would break bit-exactness. Integer MVE stays enabled; the reset
# handler's CPACR write enables it together with the FPU.
set(SF_PORT_CPU_FLAGS "-mcpu=cortex-m55+nomve.fp -mthumb -mfloat-abi=hard")
set(SF_PORT_MACHINE mps3-an547)
set(SF_PORT_LINKER_SCRIPT mps3_an547.ld)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-common.cmake)
