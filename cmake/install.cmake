# `cmake --install`: the goodsim binary, the goodsim_* libraries with their
# headers (under include/, with the same paths as in the source tree), and a
# CMake package so another project can find_package(goodsim) and link
# goodsim::goodsim_models (see examples/run_scenario/).
include(CMakePackageConfigHelpers)

set(GOODSIM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/goodsim)
set(GOODSIM_LIBRARIES goodsim_core goodsim_cluster goodsim_scenario goodsim_output goodsim_models)

install(TARGETS goodsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${GOODSIM_LIBRARIES} EXPORT goodsimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(layer sim models)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${layer} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.h")
endforeach()
install(FILES ${GOODSIM_GENERATED_DIR}/sim/core/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sim/core)

install(EXPORT goodsimTargets NAMESPACE goodsim:: DESTINATION ${GOODSIM_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/goodsimConfig.cmake.in
  ${PROJECT_BINARY_DIR}/goodsimConfig.cmake INSTALL_DESTINATION ${GOODSIM_INSTALL_CMAKEDIR})
# 0.x: a new minor version may break the interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/goodsimConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/goodsimConfig.cmake
              ${PROJECT_BINARY_DIR}/goodsimConfigVersion.cmake
        DESTINATION ${GOODSIM_INSTALL_CMAKEDIR})
# The analysis scripts `goodsim report` runs (app/report_command.h looks in BIN/../share/goodsim/analysis).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/analysis/ DESTINATION ${CMAKE_INSTALL_DATADIR}/goodsim/analysis
        FILES_MATCHING PATTERN "*.py" PATTERN "examples" EXCLUDE PATTERN "__pycache__" EXCLUDE)
