# Helpers shared by the component CMakeLists.

# Warnings for every tfn target.
function(tfn_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-missing-field-initializers)
  if(TFN_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# Include roots for tests, benchmarks, examples and fuzzers: white-box code
# that sees the whole source tree (and the umbrella headers in include/).
function(tfn_target_defaults target)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/include)
  tfn_warnings(${target})
endfunction()

# tfn_component(target [INTERFACE header ...]): per-component include
# directories for a library or tool of the component in the current folder.
# The target sees its own folder whole (a private view) and, of each library
# it links, only the headers that library lists as its INTERFACE (a public
# view, headers named relative to the folder). CMake passes a public view on
# exactly as far as the links go, so a component cannot include another's
# internal header, nor the header of a library it does not link: the
# compiler says "No such file", not a convention. INTERFACE lists are closed
# under their includes (a listed header includes only listed ones, of its own
# or a linked library), since a user of the view sees nothing else.
# The views are directories of symbolic links under <build>/views/<target>/,
# made again at each configure; docs/ARCHITECTURE.md has the table.
function(tfn_component target)
  cmake_parse_arguments(C "" "" "INTERFACE" ${ARGN})
  file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  set(view ${PROJECT_BINARY_DIR}/views/${target})
  file(REMOVE_RECURSE ${view})
  get_filename_component(parent ${view}/private/${folder} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR} ${view}/private/${folder} SYMBOLIC)
  target_include_directories(${target} PRIVATE $<BUILD_INTERFACE:${view}/private>)
  if(C_INTERFACE)
    foreach(header ${C_INTERFACE})
      if(NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${header})
        message(FATAL_ERROR "tfn_component(${target}): INTERFACE header ${folder}/${header} does not exist")
      endif()
      get_filename_component(dir ${view}/public/${folder}/${header} DIRECTORY)
      file(MAKE_DIRECTORY ${dir})
      file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR}/${header} ${view}/public/${folder}/${header} SYMBOLIC)
    endforeach()
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${view}/public>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/tfn> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  endif()
  tfn_warnings(${target})
endfunction()

# The runtime's code builds without exceptions and RTTI (docs/ARCHITECTURE.md, runtime/README.md),
# with one section per function and object so that an app linked with
# --gc-sections (the `runtime` target asks for it) keeps only what it calls.
# It also has no unwind tables (.eh_frame was ~60 KB of the runtime, bench/
# RESULTS.md "Runtime size"): with -fno-exceptions no exception is thrown or
# caught in it and errors are Status values; kernels, the thread pool and
# AOT objects it calls are its own code (C ABI), and the one user callback
# (SessionOptions::print) must not throw. An exception that still starts
# inside it (std::bad_alloc from operator new, or a throwing callback) now
# ends in std::terminate where it used to unwind through runtime frames
# without running their destructors (leaking, leaving locks held or a
# session half-updated). The tracer, which throws, passes no callbacks into
# it. Debuggers still unwind it from .debug_frame when built with -g; perf
# needs --call-graph=fp or lbr rather than dwarf.
#
# The minimal runtime (TFN_OPTIMIZED_KERNELS=OFF) trades speed for size
# throughout: every runtime library is compiled -Os, the hot paths too.
function(tfn_runtime_flags target)
  target_compile_options(${target} PRIVATE -fno-exceptions -fno-rtti -ffunction-sections -fdata-sections
                                           -fno-asynchronous-unwind-tables -fno-unwind-tables)
  if(NOT TFN_OPTIMIZED_KERNELS)
    # The runtime is linked into apps, not interposed: without semantic
    # interposition GCC may inline and call its exported functions directly.
    target_compile_options(${target} PRIVATE -Oz -fno-semantic-interposition)
  endif()
endfunction()

# tfn_cold_sources(file ...): sources of the runtime that run at load or plan
# time, or only as a fallback or test oracle, are optimized for size (-Os):
# they were a large part of the runtime's code and none is on a hot path
# (bench/RESULTS.md, "Runtime size"). Call it in the directory that adds them.
function(tfn_cold_sources)
  if(NOT TFN_OPTIMIZED_KERNELS)
    return()  # the minimal runtime compiles everything for size already (tfn_runtime_flags)
  endif()
  set_source_files_properties(${ARGN} DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} PROPERTIES COMPILE_OPTIONS -Os)
endfunction()

# tfn_add_test(name SOURCES a_test.cc ... LIBS lib ...): a GoogleTest binary whose
# cases are listed by ctest individually.
function(tfn_add_test name)
  if(NOT TFN_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  tfn_target_defaults(${name})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest_main GTest::gmock)
  # Hostile-input tests allocate what untrusted files ask for; under ASan a
  # failed huge allocation must return null (as it does in production).
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60
                       ENVIRONMENT "ASAN_OPTIONS=allocator_may_return_null=1")
  # Labels are set by a file included after discovery: gtest_discover_tests
  # writes PROPERTIES unquoted, so a second label would become a property name.
  set(labels_file ${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake)
  file(WRITE ${labels_file}
       "foreach(t IN LISTS ${name}_TESTS)\n  set_tests_properties(\"\${t}\" PROPERTIES LABELS \"${T_LABELS}\")\nendforeach()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${labels_file})
  # The sanitizer stages (scripts/test.sh) build only the tests they run:
  # those labelled sanitize hang off tfn_sanitize_tests, tsan off tfn_tsan_tests.
  if("sanitize" IN_LIST T_LABELS)
    add_dependencies(tfn_sanitize_tests ${name})
  endif()
  if("tsan" IN_LIST T_LABELS)
    add_dependencies(tfn_tsan_tests ${name})
  endif()
endfunction()
