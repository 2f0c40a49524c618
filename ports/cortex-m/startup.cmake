# staticformer Cortex-M port: included at the end of project() (CMAKE_PROJECT_INCLUDE, set by
# toolchain-common.cmake). Links the startup code into every target created afterwards, so that
# a plain add_executable is a bootable image and cycle_counter.h is on every include path.
if(CMAKE_PROJECT_NAME STREQUAL "CMAKE_TRY_COMPILE" OR TARGET sf_port_startup)
  return()
endif()
# An object library: its objects are linked directly, so the strong definitions in startup.cpp
# (_stack_init, _sbrk) and soft_fmaf.cpp (fmaf) replace newlib's weak or archived ones.
add_library(sf_port_startup OBJECT ${CMAKE_CURRENT_LIST_DIR}/startup.cpp ${CMAKE_CURRENT_LIST_DIR}/soft_fmaf.cpp)
target_include_directories(sf_port_startup PUBLIC ${CMAKE_CURRENT_LIST_DIR})
link_libraries(sf_port_startup)
