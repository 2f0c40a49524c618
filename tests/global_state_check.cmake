# Fails if an object file defines mutable static state: a symbol in writable data (.data, .bss,
# also .sdata/.sbss/.ldata/.lbss and common symbols), a thread-local (.tdata, .tbss, TLS), a guard
# variable (_ZGV*: a function-local static initialised at run time) or a thread-local's wrapper
# or initialiser (_ZTW*, _ZTH*). Read-only data (.rodata, .data.rel.ro) is fine. The section is
# what counts, not nm's letter: an inline or template static is 'u' or 'V' in .bss. Usage:
#   cmake -DNM=<nm> -DOBJECT=<file.o> [-DEXPECT=<regex,regex...>] -P global_state_check.cmake
# With EXPECT (a negative control) it passes only if each regex matches a reported offender.
cmake_minimum_required(VERSION 3.16)  # the project's: its policies (IN_LIST)
if(NOT NM OR NOT OBJECT)
  message(FATAL_ERROR "usage: cmake -DNM=<nm> -DOBJECT=<file.o> [-DEXPECT=<regex,regex...>] -P global_state_check.cmake")
endif()
execute_process(COMMAND ${NM} --format=sysv --defined-only ${OBJECT} OUTPUT_VARIABLE table RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${OBJECT}")
endif()

# What the C++ runtime adds to a translation unit, not the library: <iostream>'s initialiser.
set(runtime_symbols _ZStL8__ioinit)

set(names "")
set(reasons "")
string(REGEX MATCHALL "[^\n]+" lines "${table}")
foreach(line IN LISTS lines)
  # sysv format: Name | Value | Class | Type | Size | Line | Section
  string(REPLACE "|" ";" fields "${line}")
  list(LENGTH fields n)
  if(n LESS 7)
    continue()  # the header and blank lines
  endif()
  list(GET fields 0 name)
  list(GET fields 3 type)
  list(GET fields 6 section)
  string(STRIP "${name}" name)
  string(STRIP "${type}" type)
  string(STRIP "${section}" section)
  if(name IN_LIST runtime_symbols)
    continue()
  endif()
  string(REGEX REPLACE "^(\\.[^.]+)\\..*" "\\1" shown_section "${section}")  # .bss._ZN... -> .bss
  set(why "")
  if(section MATCHES "^\\.data\\.rel\\.ro")
    # read-only after relocation (RELRO): fine
  elseif(section MATCHES "^\\.[slt]?(data|bss)" OR section STREQUAL "*COM*")
    set(why "writable data, ${shown_section}")
  endif()
  if(type STREQUAL "TLS")
    set(why "thread-local, ${shown_section}")
  elseif(name MATCHES "^_ZGV")
    set(why "guard variable of a function-local static, ${shown_section}")
  elseif(name MATCHES "^_ZT[HW]")
    set(why "thread-local wrapper or initialiser")
  endif()
  if(why)
    list(APPEND names "${name}")
    list(APPEND reasons "${why}")
  endif()
endforeach()

# One line per offender: the demangled name (where c++filt is at hand), the mangled one, why.
list(LENGTH names count)
set(readable ${names})
find_program(CXXFILT NAMES c++filt llvm-cxxfilt)
if(count GREATER 0 AND CXXFILT)
  execute_process(COMMAND ${CXXFILT} ${names} OUTPUT_VARIABLE demangled)
  string(REGEX MATCHALL "[^\n]+" demangled "${demangled}")
  list(LENGTH demangled shown_count)
  if(shown_count EQUAL count)  # (a bracket in a demangled name would split the list otherwise)
    set(readable ${demangled})
  endif()
endif()
set(report "")
if(count GREATER 0)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    list(GET readable ${i} shown)
    list(GET names ${i} name)
    list(GET reasons ${i} why)
    string(APPEND report "  ${shown}\n      ${name} (${why})\n")
  endforeach()
endif()

if(DEFINED EXPECT)  # the negative control: the planted statics must be reported
  string(REPLACE "," ";" expected_list "${EXPECT}")  # commas: a list that survives add_test
  foreach(expected IN LISTS expected_list)
    if(NOT report MATCHES "${expected}")
      message(FATAL_ERROR "control: ${expected} was not reported as mutable static state in ${OBJECT}:\n${report}")
    endif()
  endforeach()
  message(STATUS "control: every planted static of ${OBJECT} was reported (${count} symbols):\n${report}")
elseif(count GREATER 0)
  message(FATAL_ERROR "mutable static state in ${OBJECT}: ${count} symbol(s); the library must keep all state "
                      "in its callers' objects (weights, workspace, calibrator):\n${report}")
else()
  message(STATUS "no mutable static state in ${OBJECT}")
endif()
