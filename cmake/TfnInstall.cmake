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

# The public API, and only it, is installed: the umbrella headers
# <prefix>/include/tfn/tfn.h (tracing, export), tfn/runtime.h (C++ runtime),
# tfn/tfn_runtime.h (C runtime), tfn/aot_thread_pool.h, and the headers they
# include, in their component folders (<prefix>/include/tfn/core/dtype.h).
# No internal, LLVM or FlatBuffers-generated header is installed. The list is
# the include closure of the umbrella headers: tests/install/run_install_test.sh
# compiles every installed header alone against the installed tree, so a public
# header that starts including a header left off this list fails that test.
set(TFN_PUBLIC_HEADERS_RUNTIME
  core/attrs.h core/dtype.h core/half.h core/shape.h core/status.h
  runtime/profile.h runtime/runtime.h runtime/tfn_runtime.h
  schema/aot_abi.h)
set(TFN_PUBLIC_HEADERS_FRONT_END
  core/tensor_spec.h
  tracer/control_flow.h tracer/function.h tracer/gradient_tape.h tracer/logging.h tracer/losses.h tracer/ops.h tracer/tensor.h
  tracer/optimizers.h tracer/variable.h
  exporter/save.h)
set(TFN_PUBLIC_HEADERS ${TFN_PUBLIC_HEADERS_RUNTIME})
set(umbrella runtime.h tfn_runtime.h aot_thread_pool.h)
if(NOT TFN_RUNTIME_ONLY)
  list(APPEND TFN_PUBLIC_HEADERS ${TFN_PUBLIC_HEADERS_FRONT_END})
  list(APPEND umbrella tfn.h)
endif()
foreach(header ${TFN_PUBLIC_HEADERS})
  get_filename_component(dir ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tfn/${dir})
endforeach()
foreach(header ${umbrella})
  install(FILES ${PROJECT_SOURCE_DIR}/include/tfn/${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tfn)
endforeach()

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tfnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tfnConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tfn)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tfnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tfnConfig.cmake ${PROJECT_BINARY_DIR}/tfnConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tfn)
if(EXISTS ${PROJECT_SOURCE_DIR}/cmake/TfnAotLibrary.cmake)
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/TfnAotLibrary.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tfn)
endif()
