# staticformer Cortex-M port: Cortex-M4F (single-precision FPv4) on QEMU's mps2-an386.
set(SF_PORT_CPU_FLAGS "-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard")
set(SF_PORT_MACHINE mps2-an386)
set(SF_PORT_LINKER_SCRIPT mps2.ld)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-common.cmake)
