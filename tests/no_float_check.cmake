# Fails if the image ELF links a soft-float helper of libgcc/newlib: any __aeabi_f*/__aeabi_d*
# (arithmetic, comparisons, conversions such as __aeabi_i2f, __aeabi_f2iz, __aeabi_ui2d) or a
# GCC soft-float routine (__addsf3, __muldf3, __floatsisf, __fixdfsi, ...). Usage:
#   cmake -DNM=<nm> -DELF=<image> -P no_float_check.cmake
execute_process(COMMAND ${NM} --defined-only ${ELF} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${ELF}")
endif()
string(REGEX MATCHALL "[^\n]*(__aeabi_(f|d|[a-z]*2f|[a-z]*2d)[a-z0-9_]*|__[a-z]+[sd]f[0-9]?)\n" found "${symbols}")
if(found)
  string(REPLACE ";" "" found "${found}")
  message(FATAL_ERROR "floating-point helpers linked into ${ELF}:\n${found}")
endif()
message(STATUS "no floating-point helper in ${ELF}")
