# kd_layer(NAME <name> [DIR <folder>] [INTERFACE] [LINKS <targets>...] [INCLUDES <dirs>...])
# One layer of scankd: a static library (or, with INTERFACE, headers only)
# named scankd_<name> from every .c, .cpp and .cu file of its folder, which is
# also its include directory, linking only the layers given (which lie below
# it). Every layer is installed into the scankd package, so that
# scankd::scankd brings the layers it is made of.
function(kd_layer)
  cmake_parse_arguments(L "INTERFACE" "NAME;DIR" "LINKS;INCLUDES" ${ARGN})
  set(target scankd_${L_NAME})
  if(NOT L_DIR)
    set(L_DIR ${CMAKE_CURRENT_SOURCE_DIR}/${L_NAME})
  endif()
  if(L_INTERFACE)
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE $<BUILD_INTERFACE:${L_DIR}> ${L_INCLUDES})
    target_link_libraries(${target} INTERFACE ${L_LINKS})
  else()
    file(GLOB sources CONFIGURE_DEPENDS ${L_DIR}/*.c ${L_DIR}/*.cpp ${L_DIR}/*.cu)
    add_library(${target} STATIC ${sources})
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${L_DIR}> ${L_INCLUDES})
    target_link_libraries(${target} PUBLIC ${L_LINKS})
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:C,CXX>:${KD_WARNINGS}>
      $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --expt-relaxed-constexpr -lineinfo>)
  endif()
  install(TARGETS ${target} EXPORT scankd-targets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endfunction()
