# Builds the crate with cargo (always invoked; cargo decides what is stale) and lays the results
# out in ${OXIDNN_LIB_DIR} the way they are installed:
#   liboxidnn.so.X.Y.Z, liboxidnn.so.X -> liboxidnn.so.X.Y.Z, liboxidnn.so -> liboxidnn.so.X,
#   liboxidnn.a
# Also finds the native libraries a Rust staticlib needs (OXIDNN_NATIVE_STATIC_LIBS).

find_program(CARGO_EXECUTABLE cargo HINTS "$ENV{CARGO_HOME}/bin" "$ENV{HOME}/.cargo/bin" REQUIRED)
find_program(RUSTC_EXECUTABLE rustc HINTS "$ENV{CARGO_HOME}/bin" "$ENV{HOME}/.cargo/bin" REQUIRED)

if(OXIDNN_CARGO_PROFILE STREQUAL "release")
  set(_oxidnn_profile_args --release)
  set(_oxidnn_profile_dir release)
elseif(OXIDNN_CARGO_PROFILE STREQUAL "dev")
  set(_oxidnn_profile_args)
  set(_oxidnn_profile_dir debug)
else()
  set(_oxidnn_profile_args --profile ${OXIDNN_CARGO_PROFILE})
  set(_oxidnn_profile_dir ${OXIDNN_CARGO_PROFILE})
endif()
set(OXIDNN_CARGO_OUT_DIR "${OXIDNN_CARGO_TARGET_DIR}/${_oxidnn_profile_dir}")

set(OXIDNN_SHARED_REAL "${OXIDNN_LIB_DIR}/liboxidnn.so.${PROJECT_VERSION}")
set(OXIDNN_SHARED_SONAME "liboxidnn.so.${OXIDNN_SOVERSION}")
set(OXIDNN_STATIC_LIB "${OXIDNN_LIB_DIR}/liboxidnn.a")

add_custom_target(oxidnn_cargo ALL
  COMMAND ${CMAKE_COMMAND} -E env "CARGO_TARGET_DIR=${OXIDNN_CARGO_TARGET_DIR}"
          ${CARGO_EXECUTABLE} build --lib ${_oxidnn_profile_args}
          --manifest-path "${CMAKE_CURRENT_SOURCE_DIR}/Cargo.toml"
  COMMAND ${CMAKE_COMMAND} -E make_directory "${OXIDNN_LIB_DIR}"
  COMMAND ${CMAKE_COMMAND} -E copy_if_different
          "${OXIDNN_CARGO_OUT_DIR}/liboxidnn.so" "${OXIDNN_SHARED_REAL}"
  COMMAND ${CMAKE_COMMAND} -E create_symlink
          "liboxidnn.so.${PROJECT_VERSION}" "${OXIDNN_LIB_DIR}/${OXIDNN_SHARED_SONAME}"
  COMMAND ${CMAKE_COMMAND} -E create_symlink
          "${OXIDNN_SHARED_SONAME}" "${OXIDNN_LIB_DIR}/liboxidnn.so"
  COMMAND ${CMAKE_COMMAND} -E copy_if_different
          "${OXIDNN_CARGO_OUT_DIR}/liboxidnn.a" "${OXIDNN_STATIC_LIB}"
  BYPRODUCTS "${OXIDNN_SHARED_REAL}" "${OXIDNN_LIB_DIR}/${OXIDNN_SHARED_SONAME}"
             "${OXIDNN_LIB_DIR}/liboxidnn.so" "${OXIDNN_STATIC_LIB}"
  WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
  COMMENT "cargo build --lib ${_oxidnn_profile_args} (target dir ${OXIDNN_CARGO_TARGET_DIR})"
  USES_TERMINAL
  VERBATIM)

# Native libraries of a Rust staticlib: ask rustc for those of a tiny staticlib (the crate links
# no native code of its own; std's list is the whole answer). Cached after the first configure.
if(NOT DEFINED OXIDNN_NATIVE_STATIC_LIBS)
  set(_probe_dir "${CMAKE_CURRENT_BINARY_DIR}/native-static-libs-probe")
  file(MAKE_DIRECTORY "${_probe_dir}")
  file(WRITE "${_probe_dir}/probe.rs" "pub fn probe() -> usize { std::thread::available_parallelism().map_or(1, |n| n.get()) }\n")
  execute_process(
    COMMAND ${RUSTC_EXECUTABLE} --crate-type staticlib --crate-name probe --edition 2021
            --print native-static-libs -o "${_probe_dir}/libprobe.a" "${_probe_dir}/probe.rs"
    RESULT_VARIABLE _probe_rc OUTPUT_VARIABLE _probe_out ERROR_VARIABLE _probe_err)
  set(_libs "-lgcc_s;-lutil;-lrt;-lpthread;-lm;-ldl;-lc")
  if(_probe_rc EQUAL 0 AND "${_probe_out}${_probe_err}" MATCHES "native-static-libs: ([^\r\n]*)")
    string(STRIP "${CMAKE_MATCH_1}" _line)
    separate_arguments(_libs UNIX_COMMAND "${_line}")
  else()
    message(STATUS "oxidnn: rustc did not report native-static-libs; using ${_libs}")
  endif()
  set(OXIDNN_NATIVE_STATIC_LIBS "${_libs}" CACHE STRING
      "Native libraries the Rust staticlib needs (from rustc --print native-static-libs)")
endif()
string(REPLACE ";" " " OXIDNN_NATIVE_STATIC_LIBS_STR "${OXIDNN_NATIVE_STATIC_LIBS}")
message(STATUS "oxidnn ${PROJECT_VERSION}: cargo profile ${OXIDNN_CARGO_PROFILE}, "
               "static lib needs: ${OXIDNN_NATIVE_STATIC_LIBS_STR}")
