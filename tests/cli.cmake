# Generic CLI tests (cpu): they run the built scankd binary.
foreach(cli_test cli_exit_codes cli_info)
  kd_add_test(NAME ${cli_test} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${cli_test}.c LABELS cpu)
  target_compile_definitions(${cli_test} PRIVATE KD_SCANKD_EXE="$<TARGET_FILE:scankd>")
  add_dependencies(${cli_test} scankd)
endforeach()
