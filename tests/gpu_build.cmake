# The GPU kd-tree builder (issue #5). The emulated test runs the builder's
# pipeline on the CPU (label cpu); the device tests need a GPU (label gpu,
# skipped with exit 77 without one). KD_TEST_QUICK=1 shrinks the device tests
# for compute-sanitizer runs.
set(_kd_gb_check ${CMAKE_CURRENT_SOURCE_DIR}/gpu_build_check.c)

kd_add_test(NAME gpu_build_emulated LABELS cpu TIMEOUT 600
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/gpu_build_emulated.c ${_kd_gb_check})
