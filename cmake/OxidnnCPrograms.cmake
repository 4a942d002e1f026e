# One executable per C file:
#   examples_c/<name>.c           -> example_<name>
#   capi_tests/<name>.c           -> capi_<name>
#   capi_tests/vs_onednn/<name>.c -> capi_vs_<name> (its output is compared with
#                                    vs_onednn/<name>.expected.txt, the real oneDNN's)
# compiled as -std=c99 -Wall -Wextra -Werror and linked to oxidnn::shared (+ libm, libdl, threads).
# cmake/OxidnnTests.cmake also builds the capi_tests programs against the REAL oneDNN.

find_package(Threads REQUIRED)

set(OXIDNN_C_WARNINGS -Wall -Wextra -Werror)
set(OXIDNN_SANITIZE_FLAGS -fsanitize=address,undefined -fno-omit-frame-pointer
                          -fno-sanitize-recover=undefined)

# oxidnn_c_program(<target> <source> [LINK <lib>...]) — a C99 program with our warning flags
# (and the sanitizers when OXIDNN_SANITIZE is on).
function(oxidnn_c_program target source)
  cmake_parse_arguments(ARG "" "" "LINK" ${ARGN})
  add_executable(${target} "${source}")
  set_target_properties(${target} PROPERTIES
    C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF
    RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/bin")
  target_compile_options(${target} PRIVATE ${OXIDNN_C_WARNINGS})
  target_link_libraries(${target} PRIVATE ${ARG_LINK} Threads::Threads m ${CMAKE_DL_LIBS})
  if(OXIDNN_SANITIZE)
    target_compile_options(${target} PRIVATE ${OXIDNN_SANITIZE_FLAGS})
    target_link_options(${target} PRIVATE ${OXIDNN_SANITIZE_FLAGS})
  endif()
endfunction()

file(GLOB OXIDNN_EXAMPLE_SOURCES CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/examples_c/*.c")
file(GLOB OXIDNN_CAPI_TEST_SOURCES CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/capi_tests/*.c")
file(GLOB OXIDNN_CAPI_VS_SOURCES CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/capi_tests/vs_onednn/*.c")
list(SORT OXIDNN_EXAMPLE_SOURCES)
list(SORT OXIDNN_CAPI_TEST_SOURCES)
list(SORT OXIDNN_CAPI_VS_SOURCES)

set(OXIDNN_EXAMPLE_TARGETS)
set(OXIDNN_CAPI_TEST_TARGETS)
if(OXIDNN_BUILD_EXAMPLES)
  foreach(src IN LISTS OXIDNN_EXAMPLE_SOURCES)
    get_filename_component(name "${src}" NAME_WE)
    oxidnn_c_program(example_${name} "${src}" LINK oxidnn::shared)
    list(APPEND OXIDNN_EXAMPLE_TARGETS example_${name})
  endforeach()
endif()
if(OXIDNN_BUILD_TESTS)
  foreach(src IN LISTS OXIDNN_CAPI_TEST_SOURCES)
    get_filename_component(name "${src}" NAME_WE)
    oxidnn_c_program(capi_${name} "${src}" LINK oxidnn::shared)
    # Where graph_files.h finds the repository's test models from any build directory.
    target_compile_definitions(capi_${name} PRIVATE OXIDNN_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
    list(APPEND OXIDNN_CAPI_TEST_TARGETS capi_${name})
  endforeach()
  set(OXIDNN_CAPI_VS_TARGETS)
  foreach(src IN LISTS OXIDNN_CAPI_VS_SOURCES)
    get_filename_component(name "${src}" NAME_WE)
    oxidnn_c_program(capi_vs_${name} "${src}" LINK oxidnn::shared)
    list(APPEND OXIDNN_CAPI_VS_TARGETS capi_vs_${name})
  endforeach()
endif()
