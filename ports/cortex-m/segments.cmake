# staticformer Cortex-M port: fails if a loadable segment of ELF has zero-filled bytes (memory size
# above file size) whose load address is not their run address. An ELF loader zero-fills them at
# the load address: in FLASH, that wipes what lies there (sections.ld puts .bss in its own segment,
# loaded where it runs). Used by CMakeLists.txt (cortex_m.segments).
execute_process(COMMAND ${READELF} -lW ${ELF} OUTPUT_VARIABLE headers RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${READELF} -lW ${ELF} failed")
endif()
string(REGEX MATCHALL "LOAD +0x[0-9a-f]+ 0x[0-9a-f]+ 0x[0-9a-f]+ 0x[0-9a-f]+ 0x[0-9a-f]+" loads "${headers}")
if(NOT loads)
  message(FATAL_ERROR "no LOAD segment in:\n${headers}")
endif()
foreach(load ${loads})
  string(REGEX REPLACE " +" ";" f "${load}")
  list(GET f 2 virt)
  list(GET f 3 phys)
  list(GET f 4 file_size)
  list(GET f 5 mem_size)
  if(NOT file_size STREQUAL mem_size AND NOT virt STREQUAL phys)
    message(FATAL_ERROR "segment at ${virt} zero-fills ${mem_size} - ${file_size} bytes at load address ${phys}:\n${headers}")
  endif()
endforeach()
message("every zero-filled segment loads where it runs:\n${headers}")
