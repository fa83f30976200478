# Images, colour maps, the bitmap font and charts (CPU only).
foreach(name image_png image_colormap image_compare image_font image_chart)
  kd_add_test(NAME ${name} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${name}.c LABELS cpu)
endforeach()
