# Tests of the GPU primitives (scan family, segmented scan, head flags,
# split-by-side, radix sort) and of their CPU references.
set(_prim_dir ${CMAKE_CURRENT_SOURCE_DIR})

kd_add_test(NAME prim_ref_cpu SOURCES ${_prim_dir}/prim_ref_cpu.c LABELS cpu)

foreach(_prim scan segscan split sort)
  kd_add_test(NAME prim_${_prim}_gpu
              SOURCES ${_prim_dir}/prim_${_prim}_gpu.c ${_prim_dir}/prim_common.c
              LABELS gpu TIMEOUT 900)
endforeach()

# Timing program, not a test: our primitives next to CUB at 2^24 and 2^28.
# Built only on request (cmake --build ... --target prim_timing).
add_executable(prim_timing EXCLUDE_FROM_ALL ${_prim_dir}/prim_timing.cu)
target_link_libraries(prim_timing PRIVATE scankd_gpu)
target_include_directories(prim_timing PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
target_compile_options(prim_timing PRIVATE -Xcompiler=-Wall,-Wextra --expt-relaxed-constexpr)
