# IMPORTED targets over what oxidnn_cargo builds (the installed package recreates the same
# targets: cmake/oxidnnConfig.cmake.in).
#   oxidnn::shared  liboxidnn.so (SONAME liboxidnn.so.<major>)
#   oxidnn::static  liboxidnn.a + the native libraries a Rust staticlib needs
#   oxidnn::lib     oxidnn::shared, or oxidnn::static when BUILD_SHARED_LIBS is OFF

add_library(oxidnn_shared SHARED IMPORTED GLOBAL)
set_target_properties(oxidnn_shared PROPERTIES
  IMPORTED_LOCATION "${OXIDNN_SHARED_REAL}"
  IMPORTED_SONAME "${OXIDNN_SHARED_SONAME}"
  INTERFACE_INCLUDE_DIRECTORIES "${OXIDNN_INCLUDE_DIR}")
add_dependencies(oxidnn_shared oxidnn_cargo)
add_library(oxidnn::shared ALIAS oxidnn_shared)

add_library(oxidnn_static STATIC IMPORTED GLOBAL)
set_target_properties(oxidnn_static PROPERTIES
  IMPORTED_LOCATION "${OXIDNN_STATIC_LIB}"
  IMPORTED_LINK_INTERFACE_LANGUAGES "C"
  INTERFACE_INCLUDE_DIRECTORIES "${OXIDNN_INCLUDE_DIR}"
  INTERFACE_LINK_LIBRARIES "${OXIDNN_NATIVE_STATIC_LIBS}")
add_dependencies(oxidnn_static oxidnn_cargo)
add_library(oxidnn::static ALIAS oxidnn_static)

add_library(oxidnn_lib INTERFACE)
if(BUILD_SHARED_LIBS)
  target_link_libraries(oxidnn_lib INTERFACE oxidnn::shared)
else()
  target_link_libraries(oxidnn_lib INTERFACE oxidnn::static)
endif()
add_library(oxidnn::lib ALIAS oxidnn_lib)
