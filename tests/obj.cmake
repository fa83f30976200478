# OBJ loader tests (cpu): in-memory fixtures, number conversion, a randomized
# round trip, files (plain, gzip, errors) and the real scenes in ../shared/scenes.
kd_add_test(NAME obj_forms SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/obj_forms.c LABELS cpu)
kd_add_test(NAME obj_errors SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/obj_errors.c LABELS cpu)
kd_add_test(NAME obj_float SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/obj_float.c LABELS cpu)
kd_add_test(NAME obj_roundtrip SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/obj_roundtrip.c LABELS cpu)
kd_add_test(NAME obj_files SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/obj_files.c LABELS cpu)
# The real scenes: skipped (77) when ../shared/scenes is absent.
kd_add_test(NAME obj_scenes SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/obj_scenes.c LABELS cpu TIMEOUT 120)
set_tests_properties(obj_scenes PROPERTIES SKIP_RETURN_CODE 77)
kd_add_test(NAME obj_mutate SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/obj_mutate.c LABELS cpu)
