# The GPU kd-tree builder (issue #5). The emulated test runs the builder's
# pipeline on the CPU (label cpu); the device tests need a GPU (label gpu,
# skipped with exit 77 without one). KD_TEST_QUICK=1 shrinks the device tests
# for compute-sanitizer runs.
set(_kd_gb_check ${CMAKE_CURRENT_SOURCE_DIR}/gpu_build_check.c)

kd_add_test(NAME gpu_build_emulated LABELS cpu TIMEOUT 600
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/gpu_build_emulated.c ${_kd_gb_check})

kd_add_test(NAME gpu_build_device LABELS gpu TIMEOUT 900
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/gpu_build_device.c ${_kd_gb_check})
# It checks that builds give back their device memory by the device's free
# memory, which other GPU tests running beside it would change.
set_tests_properties(gpu_build_device PROPERTIES RUN_SERIAL TRUE)

# The benchmark is a program, not a test (figures, never pass/fail on time).
add_executable(gpu_build_bench ${CMAKE_CURRENT_SOURCE_DIR}/gpu_build_bench.c)
target_link_libraries(gpu_build_bench PRIVATE scankd_core)
target_compile_options(gpu_build_bench PRIVATE ${KD_WARNINGS})

# The small stage's member bits against a loop (host code, no device).
add_executable(gpu_build_bits ${CMAKE_CURRENT_SOURCE_DIR}/gpu_build_bits.cu)
target_link_libraries(gpu_build_bits PRIVATE scankd_gpu)
add_test(NAME gpu_build_bits COMMAND gpu_build_bits)
set_tests_properties(gpu_build_bits PROPERTIES LABELS cpu)

# The small stage's float step against nextafterf (host code, no device).
add_executable(gpu_build_step ${CMAKE_CURRENT_SOURCE_DIR}/gpu_build_step.cu)
target_link_libraries(gpu_build_step PRIVATE scankd_gpu)
add_test(NAME gpu_build_step COMMAND gpu_build_step)
set_tests_properties(gpu_build_step PROPERTIES LABELS cpu)

# The builder's conservative triangle clip against a long-double reference
# (host code, no device).
add_executable(gpu_build_clip ${CMAKE_CURRENT_SOURCE_DIR}/gpu_build_clip.cu)
target_link_libraries(gpu_build_clip PRIVATE scankd_gpu)
add_test(NAME gpu_build_clip COMMAND gpu_build_clip)
set_tests_properties(gpu_build_clip PROPERTIES LABELS cpu)
# The same cases' split clips on the device, by a thread and by a team of
# lanes, against the host's, bit for bit (skips with 77 without a device).
add_executable(gpu_build_clip_device ${CMAKE_CURRENT_SOURCE_DIR}/gpu_build_clip.cu)
target_compile_definitions(gpu_build_clip_device PRIVATE KD_CLIP_ON_DEVICE)
target_link_libraries(gpu_build_clip_device PRIVATE scankd_gpu)
add_test(NAME gpu_build_clip_device COMMAND gpu_build_clip_device)
set_tests_properties(gpu_build_clip_device PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
# The same with polygons of at most 5 points, which many cases outgrow: the
# team's overflow rule against the thread's. Headers only (the library's
# clips have 9 points), so it links no scankd code.
add_executable(gpu_build_clip_overflow ${CMAKE_CURRENT_SOURCE_DIR}/gpu_build_clip.cu)
target_compile_definitions(gpu_build_clip_overflow PRIVATE KD_CLIP_ON_DEVICE KD_GB_CLIP_MAX_POINTS=5)
target_include_directories(gpu_build_clip_overflow PRIVATE ${CMAKE_SOURCE_DIR}/kernels ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(gpu_build_clip_overflow PRIVATE CUDA::cudart)
add_test(NAME gpu_build_clip_overflow COMMAND gpu_build_clip_overflow)
set_tests_properties(gpu_build_clip_overflow PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
