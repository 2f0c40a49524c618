# Consumer tests: a tiny project (tests/consumer) builds and runs against staticformer through
# add_subdirectory, through an installed package, and through that package from a 32-bit build
# and a Cortex-M4 one; none of them has the test-only packages. Also: tests asked for without
# GoogleTest fail to configure, and the installed exporter runs from its prefix.
# Included from tests/CMakeLists.txt. STATICFORMER_SOURCE_DIR is the repository root (defaults
# to PROJECT_SOURCE_DIR).

if(NOT CMAKE_HOST_UNIX)
  message(STATUS "staticformer: consumer tests need a POSIX shell; not registered")
  return()
endif()

if(STATICFORMER_SOURCE_DIR)
  set(sf_consumer_root "${STATICFORMER_SOURCE_DIR}")
else()
  set(sf_consumer_root "${PROJECT_SOURCE_DIR}")
endif()
set(sf_consumer_run "${CMAKE_CURRENT_LIST_DIR}/run.sh")  # the directory of this file
set(sf_consumer_scratch "${CMAKE_BINARY_DIR}/consumer_tests")

# name, mode, scratch subdirectory, extra compiler flags
function(staticformer_consumer_test name mode scratch flags)
  add_test(NAME consumer.${name}
           COMMAND sh "${sf_consumer_run}" ${mode} "${sf_consumer_root}" "${sf_consumer_scratch}/${scratch}"
                   "${CMAKE_CXX_COMPILER}" "${flags}")
  set_tests_properties(consumer.${name} PROPERTIES LABELS consumer TIMEOUT 600
                       ENVIRONMENT "CMAKE_GENERATOR=${CMAKE_GENERATOR}")
endfunction()

staticformer_consumer_test(add_subdirectory subdirectory add_subdirectory "${CMAKE_CXX_FLAGS}")
staticformer_consumer_test(find_package package find_package "${CMAKE_CXX_FLAGS}")
# The package is installed by a native configuration and used by a 32-bit one (the version file
# must not check the pointer size): an ARMv7 consumer, run under qemu-arm. (Debian's g++-multilib
# conflicts with its cross compilers, so the 32-bit consumer is a cross one.) Skipped (exit 77)
# where that toolchain cannot build a trivial program.
staticformer_consumer_test(find_package_32bit package find_package_32bit
  "--toolchain=${sf_consumer_root}/ports/armv7-linux/toolchain.cmake")
set_tests_properties(consumer.find_package_32bit PROPERTIES SKIP_RETURN_CODE 77)
# A firmware build from the install prefix alone: the installed Cortex-M toolchain file, startup
# code and run script; it finds the package through CMAKE_PREFIX_PATH (the toolchain file
# otherwise confines find_package to the bare-metal sysroot) and runs under QEMU.
staticformer_consumer_test(find_package_cortex_m4 package find_package_cortex_m4
  "--installed-toolchain=cortex-m/toolchain-cortex-m4.cmake")
staticformer_consumer_test(find_package_cortex_m55 package find_package_cortex_m55
  "--installed-toolchain=cortex-m/toolchain-cortex-m55.cmake")
staticformer_consumer_test(tests_requested tests_requested tests_requested "")
staticformer_consumer_test(exporter exporter exporter "")
set_tests_properties(consumer.find_package_cortex_m4 consumer.find_package_cortex_m55 consumer.exporter
  PROPERTIES SKIP_RETURN_CODE 77)
