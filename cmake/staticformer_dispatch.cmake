# staticformer_add_dispatch(<target> <source>...)
#
# Builds the sources once per instruction-set level of staticformer/dispatch.hpp (x86-64:
# baseline, x86-64-v3, x86-64-v4 with AVX-512 VNNI; AArch64: armv8-a, armv8.2-a+dotprod) and
# links every copy into <target>, which then picks one at run time with sf::dispatch().
#
# The copies share the library's inline functions and templates by name, and a linker keeps one
# definition of each name: an AVX-512 one could end up called on a CPU without AVX-512. So each
# copy's weak definitions (inline functions, template instances, inline variables: the library's,
# the standard library's, xsimd's) are renamed with the level as suffix (cmake/
# staticformer_dispatch_rename.cmake). A copy's strong definitions keep their names: they are
# the entry points, one per level, e.g. `template <> f<sf::compiled_isa>(...)`. Needs GNU-style
# binutils (nm, objcopy) and ELF objects; no LTO on these sources.
# A cache entry: seen from every directory, also when staticformer is an add_subdirectory.
set(STATICFORMER_DISPATCH_RENAME ${CMAKE_CURRENT_LIST_DIR}/staticformer_dispatch_rename.cmake CACHE INTERNAL "")

function(staticformer_add_dispatch target)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    set(levels x86_64 x86_64_v3 x86_64_v4)
    set(flags_x86_64 "")
    set(flags_x86_64_v3 -march=x86-64-v3)
    set(flags_x86_64_v4 -march=x86-64-v4 -mavx512vnni)
  elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
    set(levels aarch64 aarch64_dotprod)
    set(flags_aarch64 -march=armv8-a)
    set(flags_aarch64_dotprod -march=armv8.2-a+dotprod)
  else()
    # One level: the sources are built as they are, dispatch() calls it.
    target_sources(${target} PRIVATE ${ARGN})
    return()
  endif()
  if(NOT CMAKE_NM OR NOT CMAKE_OBJCOPY)
    message(FATAL_ERROR "staticformer_add_dispatch needs nm and objcopy (binutils)")
  endif()
  target_compile_definitions(${target} PRIVATE STATICFORMER_DISPATCH=1)
  foreach(level IN LISTS levels)
    set(objects ${target}_${level})
    add_library(${objects} OBJECT ${ARGN})
    get_target_property(excluded ${target} EXCLUDE_FROM_ALL)
    if(excluded)
      set_target_properties(${objects} PROPERTIES EXCLUDE_FROM_ALL ON)
    endif()
    # The copy is compiled as the target is: its include directories, definitions and options,
    # with those its libraries give (linked before or after this call).
    target_include_directories(${objects} PRIVATE $<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>)
    target_compile_definitions(${objects} PRIVATE $<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>)
    target_compile_options(${objects} PRIVATE $<TARGET_PROPERTY:${target},COMPILE_OPTIONS> ${flags_${level}})
    target_link_libraries(${objects} PRIVATE staticformer::staticformer $<TARGET_PROPERTY:${target},LINK_LIBRARIES>)
    set(merged ${CMAKE_CURRENT_BINARY_DIR}/${objects}.o)
    add_custom_command(OUTPUT ${merged}
      COMMAND ${CMAKE_CXX_COMPILER} -r -nostdlib -o ${merged}.tmp $<TARGET_OBJECTS:${objects}>
      COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM} -DOBJCOPY=${CMAKE_OBJCOPY} -DIN=${merged}.tmp -DOUT=${merged}
              -DSUFFIX=_sf_${level} -P ${STATICFORMER_DISPATCH_RENAME}
      DEPENDS ${objects} $<TARGET_OBJECTS:${objects}> ${STATICFORMER_DISPATCH_RENAME}
      COMMAND_EXPAND_LISTS VERBATIM
      COMMENT "staticformer: ${objects}, weak definitions made private to ${level}")
    set_source_files_properties(${merged} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    target_sources(${target} PRIVATE ${merged})
  endforeach()
endfunction()
