# Ray casting and verification (issue #3 items 4 and 5): watertight intersection,
# traversal, exact triangle-box overlap, the verifier and the render/verify CLI.
kd_add_test(NAME verify_tribox SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/verify_tribox.c LABELS cpu)
kd_add_test(NAME render_traverse LABELS cpu SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/render_traverse.c ${CMAKE_CURRENT_SOURCE_DIR}/render_test_util.c)
kd_add_test(NAME verify_corrupt LABELS cpu SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/verify_corrupt.c ${CMAKE_CURRENT_SOURCE_DIR}/render_test_util.c)
kd_add_test(NAME render_watertight LABELS cpu SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/render_watertight.c ${CMAKE_CURRENT_SOURCE_DIR}/render_test_util.c)
kd_add_test(NAME render_intersect LABELS cpu SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/render_intersect.c ${CMAKE_CURRENT_SOURCE_DIR}/render_test_util.c)
kd_add_test(NAME render_cli LABELS cpu SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/render_cli.c ${CMAKE_CURRENT_SOURCE_DIR}/render_test_util.c)
target_compile_definitions(render_cli PRIVATE KD_SCANKD_EXE="$<TARGET_FILE:scankd>")
add_dependencies(render_cli scankd)
kd_add_test(NAME render_camera LABELS cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/render_camera.c)

# Real scenes (../shared/scenes): one test per scene, sampled rays, skipped when
# the scene is absent. Scenes up to 100k triangles always; the three large ones
# (several seconds each: builds of 262k-871k triangles) only when configured with
# -DKD_TEST_LARGE_SCENES=ON, labelled "long" (ctest -L long).
option(KD_TEST_LARGE_SCENES "also verify the shared scenes over 100k triangles" OFF)
kd_add_test(NAME verify_scenes LABELS cpu SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/verify_scenes.c ${CMAKE_CURRENT_SOURCE_DIR}/render_test_util.c
  ARGS cornell_box_original)
set_tests_properties(verify_scenes PROPERTIES SKIP_RETURN_CODE 77)
foreach(scene utah_teapot armadillo_30k_bikker stanford_bunny sponza_dabrovic sibenik_mcguire sibenik_blender)
  add_test(NAME verify_scene_${scene} COMMAND verify_scenes ${scene})
  set_tests_properties(verify_scene_${scene} PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
endforeach()
if(KD_TEST_LARGE_SCENES)
  foreach(scene crytek_sponza conference stanford_dragon_vrip)
    add_test(NAME verify_scene_${scene} COMMAND verify_scenes ${scene})
    set_tests_properties(verify_scene_${scene} PROPERTIES LABELS long SKIP_RETURN_CODE 77)
  endforeach()
endif()
