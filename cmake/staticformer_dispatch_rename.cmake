# cmake -DNM=nm -DOBJCOPY=objcopy -DIN=in.o -DOUT=out.o -DSUFFIX=_sf_level -P this file
# Renames every weak definition of IN (nm types W, V, u: inline functions, template instances,
# inline and function-local static variables, and with them their COMDAT groups) to name+SUFFIX,
# so no other object's definition of the same name replaces it at link time.
execute_process(COMMAND ${NM} --defined-only ${IN} OUTPUT_VARIABLE listing RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "${NM} failed on ${IN}")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(renames "")
foreach(line IN LISTS lines)
  if(line MATCHES "^[0-9a-fA-F]* *[WVu] (.+)$")
    string(APPEND renames "${CMAKE_MATCH_1} ${CMAKE_MATCH_1}${SUFFIX}\n")
  endif()
endforeach()
file(WRITE ${OUT}.renames "${renames}")
execute_process(COMMAND ${OBJCOPY} --redefine-syms=${OUT}.renames ${IN} ${OUT} RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "${OBJCOPY} failed on ${IN}")
endif()
