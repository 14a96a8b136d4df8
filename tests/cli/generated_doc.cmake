# A generated document must equal its committed copy: runs GOODSIM with ARGS
# (a ;-list) and compares standard output with FILE.
execute_process(COMMAND ${GOODSIM} ${ARGS} OUTPUT_VARIABLE generated RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "goodsim ${ARGS} exited with ${rc}")
endif()
file(READ ${FILE} committed)
if(NOT generated STREQUAL committed)
  string(REPLACE ";" " " command "${ARGS}")
  message(FATAL_ERROR "${FILE} is out of date: regenerate it with goodsim ${command} > ${FILE}")
endif()
