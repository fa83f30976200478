# Ray casting and verification (issue #3 items 4 and 5): watertight intersection,
# traversal, exact triangle-box overlap, the verifier and the render/verify CLI.
kd_add_test(NAME verify_tribox SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/verify_tribox.c LABELS cpu)
kd_add_test(NAME render_traverse LABELS cpu SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/render_traverse.c ${CMAKE_CURRENT_SOURCE_DIR}/render_test_util.c)
kd_add_test(NAME verify_corrupt LABELS cpu SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/verify_corrupt.c ${CMAKE_CURRENT_SOURCE_DIR}/render_test_util.c)
