# staticformer Cortex-M port: the clang half of toolchain-clang-cortex-m{4,55}.cmake, included
# after the GCC toolchain file of the same core (flags, board, linker script, startup). Builds the
# way LLVM Embedded Toolchain / Arm Compiler 6 users do: clang compiles against the newlib and
# libstdc++ of Debian's gcc-arm-none-eabi, and arm-none-eabi-g++ links them (the multilib
# newlib, libstdc++, libgcc and rdimon specs it picks for the same core flags).
#   SF_PORT_CLANG_TARGET   clang's triple, e.g. thumbv7em-none-eabihf (the including file sets it)
#   SF_PORT_CLANG          the compiler, default clang++-16 (-DSF_PORT_CLANG=clang++-14 to choose)
set(SF_PORT_CLANG clang++-16 CACHE STRING "clang++ that builds the Cortex-M firmware")
find_program(SF_PORT_CLANGXX ${SF_PORT_CLANG} REQUIRED)
string(REGEX REPLACE "clang\\+\\+([^/]*)$" "clang\\1" _sf_clang "${SF_PORT_CLANGXX}")

# arm-none-eabi-g++'s header search path for these flags (libstdc++ with the multilib's
# bits/c++config.h, then newlib), asked rather than hard-coded, minus GCC's builtin headers
# (stddef.h, arm_acle.h, arm_mve.h ...): clang has its own, and GCC's are not meant for clang.
separate_arguments(_sf_gcc_flags UNIX_COMMAND "${SF_PORT_CPU_FLAGS}")
execute_process(COMMAND arm-none-eabi-g++ ${_sf_gcc_flags} -print-file-name=include
                OUTPUT_VARIABLE _sf_gcc_builtin OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
get_filename_component(_sf_gcc_builtin "${_sf_gcc_builtin}/.." REALPATH)  # .../gcc/arm-none-eabi/<version>
execute_process(COMMAND arm-none-eabi-g++ ${_sf_gcc_flags} -x c++ -E -v /dev/null
                OUTPUT_QUIET ERROR_VARIABLE _sf_gcc_v COMMAND_ERROR_IS_FATAL ANY)
string(REGEX REPLACE ".*#include <...> search starts here:\n(.*)\nEnd of search list.*" "\\1" _sf_dirs "${_sf_gcc_v}")
string(REPLACE "\n" ";" _sf_dirs "${_sf_dirs}")
set(_sf_includes "")
foreach(dir IN LISTS _sf_dirs)
  string(STRIP "${dir}" dir)
  get_filename_component(dir "${dir}" REALPATH)
  if(NOT dir MATCHES "^${_sf_gcc_builtin}/")
    string(APPEND _sf_includes " -isystem ${dir}")
  endif()
endforeach()
if(NOT _sf_includes MATCHES "/c\\+\\+/")
  message(FATAL_ERROR "no libstdc++ headers in arm-none-eabi-g++'s search path: install libstdc++-arm-none-eabi-newlib")
endif()

set(CMAKE_C_COMPILER ${_sf_clang})
set(CMAKE_CXX_COMPILER ${SF_PORT_CLANGXX})
set(CMAKE_C_COMPILER_TARGET ${SF_PORT_CLANG_TARGET})
set(CMAKE_CXX_COMPILER_TARGET ${SF_PORT_CLANG_TARGET})
# -nostdlibinc: no host /usr/include, clang's own builtin headers kept. -fshort-enums: the
# enum size of arm-none-eabi-gcc, which built newlib and libstdc++ (AAPCS: variable-size enums).
string(APPEND CMAKE_C_FLAGS_INIT " -nostdlibinc -fshort-enums${_sf_includes}")
string(APPEND CMAKE_CXX_FLAGS_INIT " -nostdlibinc -fshort-enums${_sf_includes}")
# arm-none-eabi-g++ links, with the core flags it selects its multilib by (clang's compile
# flags, <FLAGS>, are not its own). -z noexecstack: clang marks its objects' stack non-executable
# and newlib's crtn.o does not, which ld warns about; bare metal has no such permission anyway.
foreach(lang C CXX)
  set(CMAKE_${lang}_LINK_EXECUTABLE
      "arm-none-eabi-g++ ${SF_PORT_CPU_FLAGS} -Wl,-z,noexecstack <CMAKE_${lang}_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
endforeach()
