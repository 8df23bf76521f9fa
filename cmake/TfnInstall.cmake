# Installs headers, libraries and a CMake package so that outside projects can
# find_package(tfn) and link tfn::tfn (tracing front end) or tfn::runtime.
include(CMakePackageConfigHelpers)

get_property(TFN_INSTALL_TARGETS GLOBAL PROPERTY TFN_INSTALL_TARGETS)
if(TFN_INSTALL_TARGETS)
  install(TARGETS ${TFN_INSTALL_TARGETS} EXPORT tfnTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(EXPORT tfnTargets NAMESPACE tfn:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tfn)
endif()

# Public headers keep their component folders: <prefix>/include/tfn/core/dtype.h, and
# the umbrella headers <prefix>/include/tfn/tfn.h and tfn/runtime.h.
# The minimal runtime (TFN_OPTIMIZED_KERNELS=OFF) leaves out the headers of
# kernels/opt, whose code it does not build.
foreach(dir core ir kernels tracer loader exporter schema aot)
  set(exclude "")
  if(dir STREQUAL "kernels" AND NOT TFN_OPTIMIZED_KERNELS)
    set(exclude PATTERN "opt" EXCLUDE)
  endif()
  if(EXISTS ${PROJECT_SOURCE_DIR}/${dir})
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tfn/${dir}
            FILES_MATCHING PATTERN "*.h" PATTERN "*.inc" PATTERN "*_test*" EXCLUDE
            PATTERN "testdata" EXCLUDE ${exclude})
  endif()
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tfn/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tfn)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tfnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tfnConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tfn)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tfnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tfnConfig.cmake ${PROJECT_BINARY_DIR}/tfnConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tfn)
if(EXISTS ${PROJECT_SOURCE_DIR}/cmake/TfnAotLibrary.cmake)
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/TfnAotLibrary.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tfn)
endif()
