# staticformer Cortex-M port: Cortex-M4F on mps2-an386 (toolchain-cortex-m4.cmake), built by clang.
set(SF_PORT_CLANG_TARGET thumbv7em-none-eabihf)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-cortex-m4.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-clang.cmake)
