# CPU reference builder, tree files and statistics (issue #3).
set(_kd_build_support ${CMAKE_CURRENT_SOURCE_DIR}/build_support.c)

kd_add_test(NAME build_bruteforce LABELS cpu
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/build_bruteforce.c ${_kd_build_support})

# Real scenes up to 100k triangles (skipped when ../shared/scenes is absent).
kd_add_test(NAME build_scenes LABELS cpu TIMEOUT 600
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/build_scenes.c ${_kd_build_support})
set_tests_properties(build_scenes PROPERTIES SKIP_RETURN_CODE 77)

kd_add_test(NAME build_handmade LABELS cpu
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/build_handmade.c ${_kd_build_support})

kd_add_test(NAME build_degenerate LABELS cpu
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/build_degenerate.c ${_kd_build_support})

kd_add_test(NAME tree_io_roundtrip LABELS cpu
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tree_io_roundtrip.c ${_kd_build_support})

kd_add_test(NAME tree_stats_check LABELS cpu
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tree_stats_check.c ${_kd_build_support})

# The build and stats commands end to end.
kd_add_test(NAME build_cli LABELS cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/build_cli.c)
target_compile_definitions(build_cli PRIVATE KD_SCANKD_EXE="$<TARGET_FILE:scankd>")
add_dependencies(build_cli scankd)

# The empty-bonus rule beyond pbrt, in the CPU builder and the emulated GPU builder.
kd_add_test(NAME build_empty_rule LABELS cpu
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/build_empty_rule.c ${CMAKE_CURRENT_SOURCE_DIR}/gpu_build_check.c)
