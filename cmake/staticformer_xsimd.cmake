# Finds xsimd's headers and attaches them to a target. Debian's xsimd 8.1 exports a CMake
# target that names an `xtl` library which is not installed, so only its include directory is
# used, wrapped in our own interface.
# In the build tree the path is a BUILD_INTERFACE one; an installed package finds xsimd again
# on the consumer's machine (staticformerConfig.cmake calls this function).
function(staticformer_link_xsimd target)
  find_path(STATICFORMER_XSIMD_INCLUDE_DIR xsimd/xsimd.hpp)
  get_target_property(imported ${target} IMPORTED)
  if(STATICFORMER_XSIMD_INCLUDE_DIR AND imported)
    target_include_directories(${target} SYSTEM INTERFACE ${STATICFORMER_XSIMD_INCLUDE_DIR})
  elseif(STATICFORMER_XSIMD_INCLUDE_DIR)
    target_include_directories(${target} SYSTEM INTERFACE $<BUILD_INTERFACE:${STATICFORMER_XSIMD_INCLUDE_DIR}>)
  else()
    message(STATUS "staticformer: xsimd not found; only the reference backend is available")
  endif()
endfunction()
