# The installed package end to end, as a renderer's project would meet it:
# install the build tree into a fresh prefix, check that the public header
# compiles as C11 and C++ without the CUDA toolkit, configure and build
# examples/embed against the prefix alone (a fresh CMake configure), run it,
# and run the installed scankd demo, which must find its scene beside itself.
# Run by ctest as: cmake -D<var>=... -P embed_install.cmake, with BUILD_DIR,
# SOURCE_DIR, WORK_DIR, CONFIG, GENERATOR, C_COMPILER, CXX_COMPILER, CUDA_ROOT.
cmake_minimum_required(VERSION 3.25)

# Runs a command; fails the test with its output unless it exits 0 (or
# with EXPECT_FAIL, unless it exits nonzero). OUTPUT_VAR receives the output.
function(step what)
  cmake_parse_arguments(S "EXPECT_FAIL" "OUTPUT_VAR" "COMMAND" ${ARGN})
  message(STATUS "embed_install: ${what}")
  execute_process(COMMAND ${S_COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  if((S_EXPECT_FAIL AND rc EQUAL 0) OR (NOT S_EXPECT_FAIL AND NOT rc EQUAL 0))
    message(FATAL_ERROR "embed_install: ${what}: exit ${rc}\n${out}")
  endif()
  if(S_OUTPUT_VAR)
    set(${S_OUTPUT_VAR} "${out}" PARENT_SCOPE)
  endif()
endfunction()

function(require_output what text pattern)
  string(FIND "${text}" "${pattern}" at)
  if(at LESS 0)
    message(FATAL_ERROR "embed_install: ${what}: no '${pattern}' in:\n${text}")
  endif()
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
step("install into ${prefix}"
     COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --config ${CONFIG})
foreach(f lib/libscankd.a include/scankd/scankd.h lib/cmake/scankd/scankd-config.cmake
          share/scankd/scenes/cornell_box.obj bin/scankd)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "embed_install: the install lacks ${f}")
  endif()
endforeach()

set(check ${SOURCE_DIR}/tests/api/header_check.c)
set(strict -Wall -Wextra -Werror -pedantic-errors -fsyntax-only -I${prefix}/include)
step("the header as C11" COMMAND ${C_COMPILER} -std=c11 ${strict} ${check})
step("the header as C++" COMMAND ${CXX_COMPILER} -x c++ -std=c++14 ${strict} ${check})
# The toolkit's headers may lie on the compiler's default path (they do on
# some machines), so the compiles above cannot show the header needs none:
# the headers it reads must not include one.
step("the header's includes" COMMAND ${C_COMPILER} -std=c11 -M -I${prefix}/include ${check}
     OUTPUT_VAR deps)
string(REPLACE "${prefix}/include/scankd/" "" deps "${deps}")
string(REGEX MATCH "[^ \n\\]*(cuda|driver_types|vector_types)[^ \n\\]*" cuda_header "${deps}")
if(cuda_header)
  message(FATAL_ERROR "embed_install: scankd.h includes a CUDA header: ${cuda_header}")
endif()

step("configure examples/embed against the prefix"
     COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/embed -B ${WORK_DIR}/embed -G ${GENERATOR}
             -DCMAKE_BUILD_TYPE=${CONFIG} -DCMAKE_C_COMPILER=${C_COMPILER}
             -DCMAKE_PREFIX_PATH=${prefix} -DCUDAToolkit_ROOT=${CUDA_ROOT})
step("build examples/embed" COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/embed --config ${CONFIG})
step("run embed" COMMAND ${WORK_DIR}/embed/embed OUTPUT_VAR out)
message(STATUS "${out}")
require_output("embed" "${out}" "embed: all hits agree")

step("the installed scankd demo"
     COMMAND ${prefix}/bin/scankd demo --device cpu -o ${WORK_DIR}/demo OUTPUT_VAR out)
require_output("demo" "${out}" "${prefix}/bin/../share/scankd/scenes/cornell_box.obj")
file(REMOVE ${prefix}/share/scankd/scenes/cornell_box.obj)
step("the installed scankd demo without its scene" EXPECT_FAIL
     COMMAND ${prefix}/bin/scankd demo --device cpu -o ${WORK_DIR}/demo OUTPUT_VAR out)
require_output("demo without its scene" "${out}" "the default scene is missing")
