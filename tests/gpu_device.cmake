# The skip mechanism itself: a device query that exits 77 without a GPU.
kd_add_test(NAME gpu_device_query SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/gpu_device_query.c LABELS gpu)
