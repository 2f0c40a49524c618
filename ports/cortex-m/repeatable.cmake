# staticformer Cortex-M port: runs ELF three times under run.sh and fails unless the outputs,
# instruction counts included, are identical. Used by CMakeLists.txt (cortex_m.repeatable).
foreach(i 1 2 3)
  execute_process(COMMAND ${RUN} -M ${MACHINE} --icount ${ELF} OUTPUT_VARIABLE out${i} ERROR_VARIABLE err${i}
                  RESULT_VARIABLE rc${i})
  if(NOT rc${i} EQUAL 0)
    message(FATAL_ERROR "run ${i} exited with ${rc${i}}:\n${out${i}}${err${i}}")
  endif()
endforeach()
if(NOT out1 STREQUAL out2 OR NOT out1 STREQUAL out3 OR NOT err1 STREQUAL err2 OR NOT err1 STREQUAL err3)
  message(FATAL_ERROR "runs differ:\n--- 1\n${out1}${err1}--- 2\n${out2}${err2}--- 3\n${out3}${err3}")
endif()
message("three identical runs:\n${out1}${err1}")
