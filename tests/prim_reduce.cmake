# Min/max reduction ladder, bounds and segmented bounds (issue #4, item 4),
# and the profiler's command line (item 7).
kd_add_test(NAME prim_reduce_ref SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/prim_reduce_ref.c LABELS cpu)

kd_add_test(NAME prim_reduce_cli SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/prim_reduce_cli.c LABELS cpu)
target_compile_definitions(prim_reduce_cli PRIVATE KD_SCANKD_EXE="$<TARGET_FILE:scankd>")
add_dependencies(prim_reduce_cli scankd)

kd_add_test(NAME prim_reduce_gpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/prim_reduce_gpu.c
            LABELS gpu TIMEOUT 600)
kd_add_test(NAME prim_reduce_bounds_gpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/prim_reduce_bounds_gpu.c
            LABELS gpu TIMEOUT 600)
kd_add_test(NAME prim_reduce_segmented_gpu
            SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/prim_reduce_segmented_gpu.c LABELS gpu TIMEOUT 600)
