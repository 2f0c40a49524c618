# staticformer Cortex-M port: Cortex-M3 (no FPU: float in software) on QEMU's mps2-an385.
set(SF_PORT_CPU_FLAGS "-mcpu=cortex-m3 -mthumb -mfloat-abi=soft")
set(SF_PORT_MACHINE mps2-an385)
set(SF_PORT_LINKER_SCRIPT mps2.ld)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-common.cmake)
