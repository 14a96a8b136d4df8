# Fails when goodsim_tests has a test case that no per-file ctest entry runs
# (one defined outside the test sources, e.g. in a header). SPEC excludes
# every test file's tag. Catch2 v2 lists the matching test cases and exits
# with their number, so an empty list and exit code 0 both mean none.
execute_process(COMMAND ${GOODSIM_TESTS} "-#" --list-test-names-only "${SPEC}"
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(STRIP "${out}" out)
if(NOT out STREQUAL "" OR NOT code EQUAL 0)
  message(FATAL_ERROR "test cases outside every test file's ctest entry (exit ${code}):\n${out}\n${err}")
endif()
