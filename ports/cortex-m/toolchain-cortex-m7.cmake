# staticformer Cortex-M port: Cortex-M7 on QEMU's mps2-an500. QEMU's M7 has the double-precision
# FPv5 (MVFR0 = 0x10110221), hence fpv5-d16 rather than fpv5-sp-d16.
set(SF_PORT_CPU_FLAGS "-mcpu=cortex-m7 -mthumb -mfpu=fpv5-d16 -mfloat-abi=hard")
set(SF_PORT_MACHINE mps2-an500)
set(SF_PORT_LINKER_SCRIPT mps2.ld)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-common.cmake)
