# Installs the build tree into WORKDIR/prefix, builds examples/run_scenario
# against that installed goodsim with find_package, runs it on SCENARIO and
# checks that it prints every policy of the installed binary's summary with
# the same event fingerprint.
# Inputs: BUILD_DIR, SOURCE_DIR, WORKDIR, SCENARIO, CXX, LAUNCHER (may be
# empty), LINK_FLAGS (may be empty).
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "${what} failed (${code}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORKDIR}/prefix)
file(REMOVE_RECURSE ${WORKDIR})
run_step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f bin/goodsim include/models/runner.h include/sim/core/version.h
          share/goodsim/analysis/report.py share/goodsim/analysis/plot_run.py
          lib/cmake/goodsim/goodsimConfig.cmake lib/cmake/goodsim/goodsimConfigVersion.cmake)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()

set(configure_args -S ${SOURCE_DIR}/examples/run_scenario -B ${WORKDIR}/build
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX})
if(LAUNCHER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
if(LINK_FLAGS)
  list(APPEND configure_args "-DCMAKE_EXE_LINKER_FLAGS=${LINK_FLAGS}")
endif()
run_step("configuring the example" ${CMAKE_COMMAND} ${configure_args})
run_step("building the example" ${CMAKE_COMMAND} --build ${WORKDIR}/build)
run_step("running the example" ${WORKDIR}/build/run_scenario ${SCENARIO})
set(example_output "${step_output}")
message(STATUS "example:\n${example_output}")

run_step("running the installed goodsim" ${prefix}/bin/goodsim run ${SCENARIO} -q
         --out ${WORKDIR}/out)
file(READ ${WORKDIR}/out/summary.json summary)
string(JSON count LENGTH "${summary}" policies)
if(count EQUAL 0)
  message(FATAL_ERROR "the summary lists no policy")
endif()
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${summary}" policies ${i} name)
  string(JSON type GET "${summary}" policies ${i} type)
  string(JSON fingerprint GET "${summary}" policies ${i} fingerprint)
  string(REGEX MATCH "${name} ${type} [0-9.]+ ${fingerprint}" line "${example_output}")
  if(NOT line)
    message(FATAL_ERROR "the example did not print ${name} ${type} with fingerprint ${fingerprint}")
  endif()
endforeach()

# goodsim report from the installed binary uses the installed scripts (BIN/../share/goodsim/
# analysis comes before the source tree's; the page names the script that drew it), when
# python3 has matplotlib.
execute_process(COMMAND /usr/bin/python3 -c "import matplotlib, pandas" RESULT_VARIABLE no_mpl
                OUTPUT_QUIET ERROR_QUIET)
if(no_mpl EQUAL 0)
  run_step("goodsim report with the installed scripts" ${CMAKE_COMMAND} -E env
           --unset=GOODSIM_ANALYSIS_DIR ${prefix}/bin/goodsim report ${WORKDIR}/out
           --out ${WORKDIR}/report.html)
  file(READ ${WORKDIR}/report.html page)
  if(NOT page MATCHES "data:image/png;base64,")
    message(FATAL_ERROR "the installed goodsim report wrote no inline image")
  endif()
  string(FIND "${page}" "${prefix}/share/goodsim/analysis/report.py" at)
  if(at LESS 0)
    message(FATAL_ERROR "goodsim report did not use the installed analysis scripts")
  endif()
endif()
