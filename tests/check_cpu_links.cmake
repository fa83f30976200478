# Fails when a CPU-labelled test executable links the CUDA runtime, CUPTI or
# the driver: CPU tests must run on machines with none of them.
# cmake -DFILES="a;b;..." -P check_cpu_links.cmake
foreach(file ${FILES})
  execute_process(COMMAND ldd ${file} OUTPUT_VARIABLE libs RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ldd ${file} failed")
  endif()
  if(libs MATCHES "libcudart|libcupti|libcuda\\.so")
    message(FATAL_ERROR "${file} links CUDA:\n${libs}")
  endif()
endforeach()
list(LENGTH FILES n)
message(STATUS "${n} CPU test programs, none linking CUDA")
