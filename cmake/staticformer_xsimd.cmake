# Finds xsimd's headers and attaches them to a target. Debian's xsimd 8.1 exports a CMake
# target that names an `xtl` library which is not installed, so only its include directory is
# used, wrapped in our own interface.
#
# xsimd is architecture-independent headers in /usr/include. A compiler that already searches
# that directory needs nothing; any other (a cross compiler) gets a directory holding only a
# link to xsimd, so the host's system headers never leak into its include path.
function(staticformer_link_xsimd target)
  find_path(STATICFORMER_XSIMD_INCLUDE_DIR xsimd/xsimd.hpp NO_CMAKE_FIND_ROOT_PATH)
  if(NOT STATICFORMER_XSIMD_INCLUDE_DIR)
    message(STATUS "staticformer: xsimd not found; only the reference backend is available")
    return()
  endif()
  if(STATICFORMER_XSIMD_INCLUDE_DIR IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
    return()
  endif()
  set(dir ${CMAKE_BINARY_DIR}/staticformer_xsimd_include)
  file(MAKE_DIRECTORY ${dir})
  file(CREATE_LINK ${STATICFORMER_XSIMD_INCLUDE_DIR}/xsimd ${dir}/xsimd SYMBOLIC)
  get_target_property(imported ${target} IMPORTED)
  if(imported)
    target_include_directories(${target} SYSTEM INTERFACE ${dir})
  else()
    target_include_directories(${target} SYSTEM INTERFACE $<BUILD_INTERFACE:${dir}>)
  endif()
endfunction()
