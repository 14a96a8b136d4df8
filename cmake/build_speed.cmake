# Build speed without changing what is compiled or checked.
#
# GOODSIM_PCH: every library and test target precompiles the heavy headers it
# uses (nlohmann/json, fmt, Catch2, Eigen, the standard library's containers),
# so each header is parsed once per target instead of once per source file.
# GOODSIM_UNITY: the libraries' sources are compiled in batches of 16 (CMake
# unity builds); a batch parses and instantiates its common headers once. Off by
# default in CMake, so an incremental rebuild recompiles one file, not its
# batch; the Makefile turns it on (make UNITY=OFF for incremental work). The
# test files, each a separate program's worth of helpers, are not batched.
# GOODSIM_TEST_OPT: the optimisation level of the test files themselves (not of
# the libraries they test, which keep the build type's). The test files are
# long sequences of assertion macros that take most of the build's time at -O3
# and run in milliseconds at -O1.
option(GOODSIM_PCH "Precompile the heavy headers of each target" ON)
option(GOODSIM_UNITY "Compile sources in unity batches" OFF)
set(GOODSIM_TEST_OPT "-O1" CACHE STRING "Optimisation flag for the test files (empty: the build type's)")

# The standard headers nearly every goodsim file uses.
set(GOODSIM_PCH_STD <algorithm> <cmath> <cstdint> <map> <memory> <optional> <string>
                    <string_view> <utility> <vector>)

# goodsim_speed_up(TARGET [HEADER...]): precompile the standard set plus
# HEADERs for TARGET and, for a library, let it take part in unity builds.
function(goodsim_speed_up target)
  if(GOODSIM_PCH)
    target_precompile_headers(${target} PRIVATE ${GOODSIM_PCH_STD} ${ARGN})
  endif()
  get_target_property(type ${target} TYPE)
  if(GOODSIM_UNITY AND type STREQUAL "STATIC_LIBRARY")
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  endif()
endfunction()

# ccache caches a compile that uses a precompiled header only when allowed to
# ignore the header's timestamps and the predefined macros.
if(GOODSIM_CCACHE AND GOODSIM_PCH AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env
      CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
      ${GOODSIM_CCACHE})
endif()
