# The C++ API (include/oneapi/dnnl/dnnl.hpp) programs, when a C++ compiler exists:
#   examples_cpp/<name>.cpp -> example_cpp_<name>   (ctest label example)
#   cpp_tests/<name>.cpp    -> cpp_<name>           (label capi: output compared with
#                              cpp_tests/<name>.expected.txt, oneDNN 3.13's; label valgrind too;
#                              with OXIDNN_SANITIZE, label sanitize checks they are instrumented)
#   cpp_header_c++<NN>      (label capi): dnnl.hpp, its shim and the tests (which instantiate
#                              every class) compile as C++11/14/17/20 with -Werror
# With a real oneDNN (see OxidnnTests.cmake), label vs_onednn, for each program <t> above:
#   vs_onednn_<t>              the same source built against the real oneDNN's dnnl.hpp + libdnnl
#                              prints the same numbers as the build against oxidnn's header
#   vs_onednn_<t>_as_libdnnl   that real-header binary run with oxidnn as libdnnl.so.3 prints the
#                              same numbers as on the real oneDNN
# With oneDNN 3.13 in the oracle cache, label vs_onednn, for each program <t> above:
#   vs_onednn_3.13_real_hpp_<t>  built with oneDNN 3.13's own dnnl.hpp over oxidnn's C headers and
#                              linked to liboxidnn, prints what oneDNN 3.13 prints
# Included from the top-level CMakeLists.txt after OxidnnTests.cmake, whose variables it uses.
include(CheckLanguage)
check_language(CXX)
if(NOT CMAKE_CXX_COMPILER)
  message(STATUS "oxidnn: no C++ compiler; the C++ API examples and tests are skipped")
  return()
endif()
enable_language(CXX)
include(CheckCXXCompilerFlag)

file(GLOB OXIDNN_CXX_EXAMPLE_SOURCES CONFIGURE_DEPENDS
     "${CMAKE_CURRENT_SOURCE_DIR}/examples_cpp/*.cpp")
file(GLOB OXIDNN_CXX_TEST_SOURCES CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/cpp_tests/*.cpp")
list(SORT OXIDNN_CXX_EXAMPLE_SOURCES)
list(SORT OXIDNN_CXX_TEST_SOURCES)
set(_cxx_utils_dir "${CMAKE_CURRENT_SOURCE_DIR}/examples_cpp")   # example_utils.hpp

# oxidnn_cxx_program(<target> <source> [ONEDNN <root> ONEDNN_LIB <libdnnl>]) — a C++11 program
# with our warning flags, linked to oxidnn (with the sanitizers when OXIDNN_SANITIZE is on), or
# with ONEDNN built against the real oneDNN at <root> (its headers and libdnnl.so.3, found at run
# time through LD_LIBRARY_PATH).
function(oxidnn_cxx_program target source)
  cmake_parse_arguments(ARG "" "ONEDNN;ONEDNN_LIB" "" ${ARGN})
  add_executable(${target} "${source}")
  set_target_properties(${target} PROPERTIES
    CXX_STANDARD 11 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF
    RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/bin")
  target_include_directories(${target} PRIVATE "${_cxx_utils_dir}")
  target_compile_options(${target} PRIVATE ${OXIDNN_C_WARNINGS})
  target_link_libraries(${target} PRIVATE Threads::Threads)
  if(ARG_ONEDNN)
    set_target_properties(${target} PROPERTIES SKIP_BUILD_RPATH ON
      RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/bin-onednn")
    target_include_directories(${target} BEFORE PRIVATE "${ARG_ONEDNN}/include")
    target_link_libraries(${target} PRIVATE "${ARG_ONEDNN_LIB}")
    target_link_options(${target} PRIVATE "-Wl,-rpath-link,${ARG_ONEDNN}/lib")
    add_dependencies(${target} oxidnn_cargo)   # the as_libdnnl symlink must resolve in tests
    return()
  endif()
  target_link_libraries(${target} PRIVATE oxidnn::shared)
  if(OXIDNN_SANITIZE)
    target_compile_options(${target} PRIVATE ${OXIDNN_SANITIZE_FLAGS})
    target_link_options(${target} PRIVATE ${OXIDNN_SANITIZE_FLAGS})
  endif()
endfunction()

# <name> -> source, for the vs_onednn builds below
set(_cxx_programs)
if(OXIDNN_BUILD_EXAMPLES)
  foreach(src IN LISTS OXIDNN_CXX_EXAMPLE_SOURCES)
    get_filename_component(name "${src}" NAME_WE)
    oxidnn_cxx_program(example_cpp_${name} "${src}")
    list(APPEND _cxx_programs example_cpp_${name})
  endforeach()
endif()
if(OXIDNN_BUILD_TESTS)
  foreach(src IN LISTS OXIDNN_CXX_TEST_SOURCES)
    get_filename_component(name "${src}" NAME_WE)
    oxidnn_cxx_program(cpp_${name} "${src}")
    list(APPEND _cxx_programs cpp_${name})
  endforeach()
endif()
if(NOT OXIDNN_BUILD_TESTS)
  return()
endif()

# ---- ctest: examples, tests against their expected listings, valgrind ----------------------------
foreach(t IN LISTS _cxx_programs)
  if(t MATCHES "^example_cpp_")
    add_test(NAME ${t} COMMAND ${t})
    set_tests_properties(${t} PROPERTIES LABELS "example" TIMEOUT ${OXIDNN_TEST_TIMEOUT})
    continue()
  endif()
  string(REGEX REPLACE "^cpp_" "" name "${t}")
  set(_expected "${CMAKE_CURRENT_SOURCE_DIR}/cpp_tests/${name}.expected.txt")
  if(NOT PYTHON3_EXECUTABLE OR NOT EXISTS "${_expected}")
    add_test(NAME ${t} COMMAND ${t})
  else()
    add_test(NAME ${t}
    COMMAND sh -c "\"$1\" > \"$2\" && \"$3\" \"$4\" \"$5\" \"$2\""
            sh $<TARGET_FILE:${t}> "${CMAKE_CURRENT_BINARY_DIR}/${t}.oxidnn.txt"
            "${PYTHON3_EXECUTABLE}" "${_compare_py}" "${_expected}")
  endif()
  set_tests_properties(${t} PROPERTIES LABELS "capi" TIMEOUT ${OXIDNN_TEST_TIMEOUT})
  if(OXIDNN_VALGRIND AND VALGRIND_EXECUTABLE AND NOT OXIDNN_SANITIZE)
    add_test(NAME valgrind_${t}
      COMMAND ${VALGRIND_EXECUTABLE} --error-exitcode=1 --leak-check=full --num-callers=40
              --suppressions=${CMAKE_CURRENT_SOURCE_DIR}/cmake/valgrind.supp
              $<TARGET_FILE:${t}>)
    set_tests_properties(valgrind_${t} PROPERTIES LABELS "valgrind"
                         TIMEOUT ${OXIDNN_TEST_TIMEOUT})
  endif()
endforeach()

if(OXIDNN_SANITIZE)
  foreach(t IN LISTS _cxx_programs)
    add_test(NAME sanitize_instrumented_${t}
      COMMAND sh -c "${NM_EXECUTABLE} \"$1\" | grep -q __asan_init" sh $<TARGET_FILE:${t}>)
    set_tests_properties(sanitize_instrumented_${t} PROPERTIES LABELS "sanitize")
  endforeach()
endif()

# ---- the header alone and the tests, in every C++ standard from 11 ---------------------------
foreach(std 11 14 17 20)
  check_cxx_compiler_flag(-std=c++${std} OXIDNN_HAVE_CXX${std})
  if(OXIDNN_HAVE_CXX${std})
    string(CONCAT _check "cxx=$1; shift; for f in \"$@\"; do echo \"$f\"; "
           "\"$cxx\" -std=c++${std} -Wall -Wextra -pedantic -Werror -fsyntax-only "
           "-I\"${OXIDNN_INCLUDE_DIR}\" -I\"${_cxx_utils_dir}\" -x c++ \"$f\" || exit 1; done")
    add_test(NAME cpp_header_c++${std}
      COMMAND sh -c "${_check}" sh "${CMAKE_CXX_COMPILER}"
              "${OXIDNN_INCLUDE_DIR}/oneapi/dnnl/dnnl.hpp"
              "${OXIDNN_INCLUDE_DIR}/dnnl.hpp" ${OXIDNN_CXX_TEST_SOURCES})
    set_tests_properties(cpp_header_c++${std} PROPERTIES LABELS "capi"
                         TIMEOUT ${OXIDNN_TEST_TIMEOUT})
  endif()
endforeach()

# ---- vs_onednn_3.13_real_hpp: oneDNN 3.13's own dnnl.hpp over oxidnn's C headers ----------------
# Its dnnl.hpp and dnnl_common.hpp are copied from the oracle cache into the build tree (never
# into the sources) and put ahead of include/ on the include path; each program so built, linked
# to liboxidnn, must print what the same source built against oneDNN 3.13 prints on oneDNN 3.13.
set(_onednn_3_13 "${_oxidnn_oracle_cache}/3.13")
if(_oxidnn_oracle_cache AND EXISTS "${_onednn_3_13}/.ok" AND PYTHON3_EXECUTABLE
   AND EXISTS "${_onednn_3_13}/include/oneapi/dnnl/dnnl.hpp")
  find_library(ONEDNN_3_13_LIBRARY NAMES dnnl PATHS "${_onednn_3_13}/lib" NO_DEFAULT_PATH)
endif()
if(ONEDNN_3_13_LIBRARY)
  set(_real_hpp_dir "${CMAKE_CURRENT_BINARY_DIR}/onednn_3_13_hpp")
  file(COPY "${_onednn_3_13}/include/oneapi/dnnl/dnnl.hpp"
            "${_onednn_3_13}/include/oneapi/dnnl/dnnl_common.hpp"
       DESTINATION "${_real_hpp_dir}/oneapi/dnnl")
  file(COPY "${_onednn_3_13}/include/dnnl.hpp" DESTINATION "${_real_hpp_dir}")
  foreach(t IN LISTS _cxx_programs)
    get_target_property(src ${t} SOURCES)
    oxidnn_cxx_program(real_hpp_${t} "${src}")
    set_target_properties(real_hpp_${t} PROPERTIES
      RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/bin-real-hpp")
    target_include_directories(real_hpp_${t} BEFORE PRIVATE "${_real_hpp_dir}")
    oxidnn_cxx_program(onednn_3_13_${t} "${src}"
                       ONEDNN "${_onednn_3_13}" ONEDNN_LIB "${ONEDNN_3_13_LIBRARY}")
    add_test(NAME vs_onednn_3.13_real_hpp_${t}
      COMMAND sh -c "\"$1\" > \"$2\" && (. \"$3\" && \"$4\" > \"$5\") && \"$6\" \"$7\" \"$5\" \"$2\""
              sh $<TARGET_FILE:real_hpp_${t}> "${CMAKE_CURRENT_BINARY_DIR}/${t}.real_hpp.txt"
              "${_onednn_3_13}/env.sh" $<TARGET_FILE:onednn_3_13_${t}>
              "${CMAKE_CURRENT_BINARY_DIR}/${t}.onednn_3_13.txt" "${PYTHON3_EXECUTABLE}"
              "${_compare_py}")
    set_tests_properties(vs_onednn_3.13_real_hpp_${t} PROPERTIES LABELS "vs_onednn"
                         TIMEOUT ${OXIDNN_TEST_TIMEOUT})
  endforeach()
endif()

# ---- vs_onednn: the same sources built against the real oneDNN's C++ API ---------------------
if(NOT ONEDNN_REAL_LIBRARY OR NOT _oxidnn_onednn_env OR NOT PYTHON3_EXECUTABLE
   OR NOT EXISTS "${_oxidnn_onednn}/include/oneapi/dnnl/dnnl.hpp")
  return()
endif()
foreach(t IN LISTS _cxx_programs)
  get_target_property(src ${t} SOURCES)
  set(real onednn_${t})
  oxidnn_cxx_program(${real} "${src}" ONEDNN "${_oxidnn_onednn}" ONEDNN_LIB "${ONEDNN_REAL_LIBRARY}")
  # our header vs the real one: the same numbers
  add_test(NAME vs_onednn_${t}
    COMMAND sh -c "\"$1\" > \"$2\" && (. \"$3\" && \"$4\" > \"$5\") && \"$6\" \"$7\" \"$5\" \"$2\""
            sh $<TARGET_FILE:${t}> "${CMAKE_CURRENT_BINARY_DIR}/${t}.oxidnn.txt"
            "${_oxidnn_onednn_env}" $<TARGET_FILE:${real}>
            "${CMAKE_CURRENT_BINARY_DIR}/${t}.onednn.txt" "${PYTHON3_EXECUTABLE}" "${_compare_py}")
  # the binary built against the real headers, run with oxidnn as libdnnl.so.3
  add_test(NAME vs_onednn_${t}_as_libdnnl
    COMMAND bash "${_scripts}/vs-onednn-run.sh" --ours "${_as_libdnnl}"
            --real-env "${_oxidnn_onednn_env}" --compare "${_compare_py}" -- $<TARGET_FILE:${real}>)
  set_tests_properties(vs_onednn_${t} vs_onednn_${t}_as_libdnnl PROPERTIES
                       LABELS "vs_onednn" TIMEOUT ${OXIDNN_TEST_TIMEOUT})
endforeach()
