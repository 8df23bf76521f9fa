# TFN_FUZZ=ON: the libFuzzer targets in fuzz/ (fuzz/README.md). Needs clang
# and its libFuzzer runtime (Debian: libclang-rt-19-dev). All code is
# instrumented for coverage (-fsanitize=fuzzer-no-link) and built with
# ASan/UBSan (TFN_SANITIZE defaults to address,undefined); only the fuzz
# targets link libFuzzer's main (-fsanitize=fuzzer). Other executables and
# the tests of this build link and run as usual (the sanitizer runtime
# provides the coverage callbacks), so one build dir serves the fuzz targets
# and the sanitizer tests.
if(NOT TFN_FUZZ)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "TFN_FUZZ=ON needs clang for C and C++ (libFuzzer), not "
                      "${CMAKE_C_COMPILER_ID}/${CMAKE_CXX_COMPILER_ID}: configure a fresh build dir with "
                      "CC=clang-19 CXX=clang++-19 (or scripts/fuzz.sh, which does)")
endif()
if(TFN_RUNTIME_ONLY)
  message(FATAL_ERROR "TFN_FUZZ=ON needs the full build (the ONNX importer target): drop TFN_RUNTIME_ONLY")
endif()
if(NOT TFN_SANITIZE)
  set(TFN_SANITIZE address,undefined)
elseif(NOT TFN_SANITIZE MATCHES "address")
  message(FATAL_ERROR "TFN_FUZZ=ON runs the targets under ASan: TFN_SANITIZE='${TFN_SANITIZE}' lacks address")
endif()

# The runtime is checked here rather than at the first link, with the fix.
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer")
check_cxx_source_compiles(
  "#include <cstddef>\n#include <cstdint>\nextern \"C\" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n"
  TFN_HAVE_LIBFUZZER)
unset(CMAKE_REQUIRED_FLAGS)
if(NOT TFN_HAVE_LIBFUZZER)
  message(FATAL_ERROR "TFN_FUZZ=ON: ${CMAKE_CXX_COMPILER} cannot link -fsanitize=fuzzer; install clang's "
                      "runtimes (Debian: libclang-rt-19-dev; scripts/setup.sh does)")
endif()
add_compile_options(-fsanitize=fuzzer-no-link)
