# The kernel clock (src/kd_kernel_clock.c): its matching on the CPU; on the
# device, CUPTI's times of kernels of known length.
kd_add_test(NAME kernel_clock_match LABELS cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernel_clock_match.c)
kd_add_test(NAME kernel_clock_device LABELS gpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernel_clock_device.cu)
