# The layering check: a component's code may include the headers of its own
# library and of the libraries it links (directly or through them), nothing
# else. Every tfn library includes from one source root, so a wrong include
# would compile; this test makes the dependency table of docs/ARCHITECTURE.md
# an enforced rule. The libraries, their sources and their links are read
# here from the targets themselves (no second copy of the table) and written
# to layering.txt, which tests/layering/check_layering.py reads.
if(NOT TFN_BUILD_TESTS OR TFN_RUNTIME_ONLY)
  return()
endif()
set(libs tfn_core tfn_schema tfn_kernels tfn_loader tfn_ir tfn_tracer tfn_exporter tfn_save tfn_aot
         tfn_jit tfn_onnx)
set(content "")
foreach(lib ${libs})
  if(NOT TARGET ${lib})
    continue()
  endif()
  get_target_property(dir ${lib} SOURCE_DIR)
  get_target_property(sources ${lib} SOURCES)
  get_target_property(links ${lib} LINK_LIBRARIES)
  get_target_property(public ${lib} INTERFACE_LINK_LIBRARIES)
  foreach(var links public)
    if(NOT ${var})
      set(${var} "")
    endif()
  endforeach()
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${dir})
  string(APPEND content "${lib}|${rel}|${sources}|${links}|${public}\n")
endforeach()
file(WRITE ${PROJECT_BINARY_DIR}/layering.txt "${content}")
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_FOUND)
  add_test(NAME layering.includes_follow_links
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/layering/check_layering.py
                   ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/layering.txt)
  set_tests_properties(layering.includes_follow_links PROPERTIES LABELS unit)
else()
  message(FATAL_ERROR "tfn: the layering test needs python3 (scripts/setup.sh installs it)")
endif()
