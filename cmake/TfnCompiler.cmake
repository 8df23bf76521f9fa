# Host-compiler specifics. tfn builds with GCC 12 (Debian's default) and
# clang 19 (CC=clang-19 CXX=clang++-19: the ThreadSanitizer and fuzzing
# stages); -Werror holds for both.
include(CheckCXXSourceCompiles)

# Clang with libstdc++ 12: std::stable_sort trips a deprecation warning inside
# the library's own header (see cmake/libstdcxx12_tempbuf.h). Probe for the
# problem instead of matching versions, and silence that one header line
# only when the probe fails and the fix makes it pass.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  set(_tfn_stable_sort "#include <algorithm>\n#include <vector>\nint main() { std::vector<int> v{2, 1}; std::stable_sort(v.begin(), v.end()); return v[0]; }\n")
  set(CMAKE_REQUIRED_FLAGS "-Werror")
  check_cxx_source_compiles("${_tfn_stable_sort}" TFN_STABLE_SORT_CLEAN)
  if(NOT TFN_STABLE_SORT_CLEAN)
    set(_tfn_tempbuf ${CMAKE_CURRENT_LIST_DIR}/libstdcxx12_tempbuf.h)
    set(CMAKE_REQUIRED_FLAGS "-Werror -include ${_tfn_tempbuf}")
    check_cxx_source_compiles("${_tfn_stable_sort}" TFN_STABLE_SORT_CLEAN_WITH_TEMPBUF_FIX)
    if(TFN_STABLE_SORT_CLEAN_WITH_TEMPBUF_FIX)
      add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:SHELL:-include ${_tfn_tempbuf}>")
    elseif(TFN_WERROR)
      message(FATAL_ERROR "tfn: std::stable_sort does not compile warning-free with ${CMAKE_CXX_COMPILER} "
                          "even with ${_tfn_tempbuf}; configure with -DTFN_WERROR=OFF to build anyway")
    endif()
  endif()
  unset(CMAKE_REQUIRED_FLAGS)
endif()
