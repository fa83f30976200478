# CPU reference builder, tree files and statistics (issue #3).
set(_kd_build_support ${CMAKE_CURRENT_SOURCE_DIR}/build_support.c)

kd_add_test(NAME build_bruteforce LABELS cpu
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/build_bruteforce.c ${_kd_build_support})

# Real scenes up to 100k triangles (skipped when ../shared/scenes is absent).
kd_add_test(NAME build_scenes LABELS cpu TIMEOUT 600
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/build_scenes.c ${_kd_build_support})
set_tests_properties(build_scenes PROPERTIES SKIP_RETURN_CODE 77)
