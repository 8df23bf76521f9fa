# tfn_aot_library: compile signatures of a tfn bundle into a library at build
# time with tfn-aot (like TensorFlow's tf_library for tfcompile).
#
#   tfn_aot_library(mlp BUNDLE ${CMAKE_CURRENT_BINARY_DIR}/mlp.tfn
#                   [SIGNATURES serving_default ...] [SPECS x=f32[1,784] ...]
#                   [TARGET aarch64-linux-gnu] [CPU native|generic|x86-64-v3|...]
#                   [WEIGHTS embedded|external] [FAST_MATH]
#                   [DEPENDS targets-or-files...])
#   target_link_libraries(app PRIVATE mlp)   # then #include "mlp.h"
#
# Creates the static library target NAME holding NAME.o, with NAME.h on its
# include path. NAME is also the C prefix of the generated symbols. The
# header-only thread pool <tfn/aot_thread_pool.h> is on the path too (it
# needs pthreads, which the target links). WEIGHTS external passes
# --weights external: the object holds no weights and the app binds the
# mapped bundle at run time (NAME_bind_weights, see NAME.h). FAST_MATH
# passes --fast-math (FMA contraction across ops, reciprocals of constant
# divisors, faster tanh and sigmoid: see tfn-aot --help).

# Where <tfn/aot_thread_pool.h> is: the source tree's include/, or the
# installed package's (this file sits in <prefix>/lib/cmake/tfn/).
foreach(_tfn_dir ${CMAKE_CURRENT_LIST_DIR}/../include ${CMAKE_CURRENT_LIST_DIR}/../../../include)
  if(NOT TFN_AOT_THREAD_POOL_INCLUDE_DIR AND EXISTS ${_tfn_dir}/tfn/aot_thread_pool.h)
    get_filename_component(TFN_AOT_THREAD_POOL_INCLUDE_DIR ${_tfn_dir} ABSOLUTE)
  endif()
endforeach()
find_package(Threads)

function(tfn_aot_library name)
  cmake_parse_arguments(A "FAST_MATH" "BUNDLE;TARGET;CPU;WEIGHTS" "SIGNATURES;SPECS;DEPENDS" ${ARGN})
  if(NOT A_BUNDLE)
    message(FATAL_ERROR "tfn_aot_library(${name}): BUNDLE is required")
  endif()
  if(TARGET tfn-aot)
    set(tool $<TARGET_FILE:tfn-aot>)
    set(tool_dep tfn-aot)
  elseif(TARGET tfn::tfn-aot)
    set(tool $<TARGET_FILE:tfn::tfn-aot>)
    set(tool_dep tfn::tfn-aot)
  else()
    message(FATAL_ERROR "tfn_aot_library(${name}): tfn-aot is not available (find_package(tfn) first)")
  endif()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${name}_aot)
  set(args ${A_BUNDLE} --name ${name} -o ${dir})
  foreach(sig ${A_SIGNATURES})
    list(APPEND args --signature ${sig})
  endforeach()
  foreach(spec ${A_SPECS})
    list(APPEND args --spec ${spec})
  endforeach()
  if(A_TARGET)
    list(APPEND args --target ${A_TARGET})
  endif()
  if(A_CPU)
    list(APPEND args --cpu ${A_CPU})
  endif()
  if(A_WEIGHTS)
    list(APPEND args --weights ${A_WEIGHTS})
  endif()
  if(A_FAST_MATH)
    list(APPEND args --fast-math)
  endif()
  add_custom_command(OUTPUT ${dir}/${name}.o ${dir}/${name}.h
    COMMAND ${tool} ${args}
    DEPENDS ${A_BUNDLE} ${tool_dep} ${A_DEPENDS}
    COMMENT "tfn-aot: compiling ${A_BUNDLE} into ${name}.o" VERBATIM)
  add_library(${name} STATIC ${dir}/${name}.o ${dir}/${name}.h)
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE C)
  target_include_directories(${name} INTERFACE ${dir})
  target_link_libraries(${name} INTERFACE m)
  if(TFN_AOT_THREAD_POOL_INCLUDE_DIR)
    target_include_directories(${name} INTERFACE ${TFN_AOT_THREAD_POOL_INCLUDE_DIR})
  endif()
  if(TARGET Threads::Threads)
    target_link_libraries(${name} INTERFACE Threads::Threads)
  endif()
endfunction()
