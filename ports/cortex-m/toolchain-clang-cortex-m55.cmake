# staticformer Cortex-M port: Cortex-M55 on mps3-an547 (toolchain-cortex-m55.cmake: integer MVE,
# no MVE float), built by clang. clang 15 and 16 build it; clang 14 crashes in its MVE
# gather/scatter lowering pass on the int8 linear tile.
set(SF_PORT_CLANG_TARGET thumbv8.1m.main-none-eabihf)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-cortex-m55.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/toolchain-clang.cmake)
