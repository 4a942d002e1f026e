# Install layout (prefix-relative, so `cmake --install <build> --prefix <anywhere>` works):
#   lib/liboxidnn.so.X.Y.Z, lib/liboxidnn.so.X -> .so.X.Y.Z, lib/liboxidnn.so -> .so.X
#   lib/liboxidnn.a
#   include/oxidnn.h, include/dnnl*.h(pp), include/oneapi/dnnl/dnnl*.h(pp)
#   lib/cmake/oxidnn/oxidnnConfig.cmake + oxidnnConfigVersion.cmake  (find_package(oxidnn))
#   lib/pkgconfig/oxidnn.pc (shared), lib/pkgconfig/oxidnn-static.pc (static)

set(OXIDNN_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/oxidnn")

install(FILES "${OXIDNN_SHARED_REAL}"
  DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
              WORLD_READ WORLD_EXECUTE)
# the two symlinks are installed as symlinks
install(FILES "${OXIDNN_LIB_DIR}/${OXIDNN_SHARED_SONAME}" "${OXIDNN_LIB_DIR}/liboxidnn.so"
  DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(FILES "${OXIDNN_STATIC_LIB}" DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(DIRECTORY "${OXIDNN_INCLUDE_DIR}/"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")

# CMake package
configure_package_config_file(
  "${CMAKE_CURRENT_SOURCE_DIR}/cmake/oxidnnConfig.cmake.in"
  "${CMAKE_CURRENT_BINARY_DIR}/oxidnnConfig.cmake"
  INSTALL_DESTINATION "${OXIDNN_INSTALL_CMAKEDIR}"
  PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
# 0.x: a minor release may break the API, so only the same minor version is compatible
write_basic_package_version_file(
  "${CMAKE_CURRENT_BINARY_DIR}/oxidnnConfigVersion.cmake"
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/oxidnnConfig.cmake"
              "${CMAKE_CURRENT_BINARY_DIR}/oxidnnConfigVersion.cmake"
  DESTINATION "${OXIDNN_INSTALL_CMAKEDIR}")

# pkg-config: relocatable (prefix from ${pcfiledir})
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(OXIDNN_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(OXIDNN_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH _up "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
  string(REGEX REPLACE "/$" "" _up "${_up}")
  set(OXIDNN_PC_PREFIX "\${pcfiledir}/${_up}")
  set(OXIDNN_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(OXIDNN_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(OXIDNN_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
foreach(pc oxidnn oxidnn-static)
  configure_file("${CMAKE_CURRENT_SOURCE_DIR}/cmake/${pc}.pc.in"
                 "${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/${pc}.pc" @ONLY)
  install(FILES "${CMAKE_CURRENT_BINARY_DIR}/pkgconfig/${pc}.pc"
          DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
endforeach()
