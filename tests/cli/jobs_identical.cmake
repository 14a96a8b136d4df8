# `goodsim run SCENARIO --events` with --jobs 1 and --jobs 2 (policies in parallel) writes
# byte-identical summary.json, timeseries.csv and events.jsonl.
file(REMOVE_RECURSE ${WORKDIR})
foreach(jobs 1 2)
  execute_process(COMMAND ${GOODSIM} run ${SCENARIO} --events -q --jobs ${jobs}
                          --out ${WORKDIR}/jobs-${jobs}
                  RESULT_VARIABLE code ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "goodsim run --jobs ${jobs} exited ${code}:\n${err}")
  endif()
endforeach()
foreach(file summary.json timeseries.csv events.jsonl)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORKDIR}/jobs-1/${file}
                          ${WORKDIR}/jobs-2/${file} RESULT_VARIABLE differ)
  if(NOT differ EQUAL 0)
    message(FATAL_ERROR "${file} differs between --jobs 1 and --jobs 2")
  endif()
endforeach()
