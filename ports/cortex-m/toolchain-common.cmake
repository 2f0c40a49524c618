# staticformer Cortex-M port: the part shared by toolchain-cortex-m{3,4,7,55}.cmake, which set
# SF_PORT_CPU_FLAGS, SF_PORT_MACHINE (QEMU board) and SF_PORT_LINKER_SCRIPT, then include this.
#
# Every executable becomes a bootable image for that board: the flags below link the board's
# linker script and newlib's semihosting crt0 (rdimon), and startup.cmake (run at the end of
# project()) links startup.cpp into every target. ctest runs the images through run.sh.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# Nothing links without startup code and a memory map: compiler checks build a library instead.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_EXECUTABLE_SUFFIX .elf)
set(CMAKE_EXECUTABLE_SUFFIX_C .elf)
set(CMAKE_EXECUTABLE_SUFFIX_CXX .elf)

set(SF_PORT_DIR ${CMAKE_CURRENT_LIST_DIR})
# -ffp-contract=off: GCC fuses a*b+c on Arm by default, which would change bits (the reference rounds each product).
# -fno-math-errno: std::sqrt (LayerNorm) becomes the FPU's vsqrt alone; with errno, GCC adds a
# call to newlib's sqrtf when the root is NaN, which links errno and its 1 KiB impure_data.
# Both give the correctly rounded root: the results do not change.
set(_sf_port_flags "${SF_PORT_CPU_FLAGS} -ffunction-sections -fdata-sections -ffp-contract=off -fno-math-errno")
set(CMAKE_C_FLAGS_INIT "${_sf_port_flags}")
set(CMAKE_CXX_FLAGS_INIT "${_sf_port_flags} -fno-exceptions -fno-rtti -fno-threadsafe-statics")
set(CMAKE_ASM_FLAGS_INIT "${SF_PORT_CPU_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "--specs=rdimon.specs -Wl,--gc-sections -L${SF_PORT_DIR} -T${SF_PORT_LINKER_SCRIPT} -Wl,--print-memory-usage")

# Look for headers and libraries in the bare-metal sysroot only: a host /usr/include found by a
# find_path (xsimd, say) must not leak into firmware builds. Prefixes named in CMAKE_PREFIX_PATH
# (a host-installed staticformer, say) are searched as they are: the user put target files there.
set(CMAKE_FIND_ROOT_PATH /usr/lib/arm-none-eabi ${CMAKE_PREFIX_PATH})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

set(CMAKE_CROSSCOMPILING_EMULATOR ${SF_PORT_DIR}/run.sh -M ${SF_PORT_MACHINE})
# -DSF_PORT_NO_STARTUP=ON: bring your own startup code, vector table and _sbrk.
if(NOT SF_PORT_NO_STARTUP)
  set(CMAKE_PROJECT_INCLUDE ${SF_PORT_DIR}/startup.cmake)
endif()
