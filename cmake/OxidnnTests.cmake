# ctest registration. Labels:
#   capi       capi_<name>: each capi_tests/<name>.c on oxidnn; capi_vs_<name>: each
#              capi_tests/vs_onednn/<name>.c on oxidnn, output compared (compare_outputs.py)
#              with <name>.expected.txt, the real oneDNN's output; capi_vs_rnn_fuzz_lengths:
#              rnn_fuzz's sequence lengths against each sample run alone
#   example    example_<name>: each examples_c/<name>.c
#   valgrind   valgrind_<name>: each C API test under valgrind memcheck (leaks are errors)
#   sanitize   the ASan/UBSan build really is instrumented (OXIDNN_SANITIZE=ON)
#   package    SONAME check; install to a temp prefix + find_package / pkg-config consumers
#   vs_onednn  against the real oneDNN (only when one is found): header ABI diff, programs
#              built against the real oneDNN headers + libdnnl.so.3 run on oxidnn standing in
#              for libdnnl.so.3, and output comparison with the real oneDNN where a
#              capi_tests/vs_onednn/compare_outputs.py (or the printer's own <name>.compare.py)
#              exists; with the 3.13 oracle cached,
#              vs_onednn_verbose_fields compares ONEDNN_VERBOSE lines (scripts/verbose-vs-onednn.sh),
#              vs_onednn_verbose_fields_fpmath_bf16 / _timestamp the same under
#              ONEDNN_DEFAULT_FPMATH_MODE=BF16 / ONEDNN_VERBOSE_TIMESTAMP=1

set(OXIDNN_TEST_TIMEOUT 600 CACHE STRING "ctest timeout per test (seconds)")

foreach(t IN LISTS OXIDNN_CAPI_TEST_TARGETS)
  add_test(NAME ${t} COMMAND ${t})
  set_tests_properties(${t} PROPERTIES LABELS "capi" TIMEOUT ${OXIDNN_TEST_TIMEOUT})
endforeach()
find_program(PYTHON3_EXECUTABLE python3)
set(_compare_py "${CMAKE_CURRENT_SOURCE_DIR}/capi_tests/vs_onednn/compare_outputs.py")
foreach(t IN LISTS OXIDNN_CAPI_VS_TARGETS)
  string(REGEX REPLACE "^capi_vs_" "" name "${t}")
  set(_expected "${CMAKE_CURRENT_SOURCE_DIR}/capi_tests/vs_onednn/${name}.expected.txt")
  if(EXISTS "${_expected}" AND EXISTS "${_compare_py}" AND PYTHON3_EXECUTABLE)
    add_test(NAME ${t}
      COMMAND sh -c "\"$1\" > \"$2\" && \"$3\" \"$4\" \"$5\" \"$2\""
              sh $<TARGET_FILE:${t}> "${CMAKE_CURRENT_BINARY_DIR}/${name}.oxidnn.txt"
              "${PYTHON3_EXECUTABLE}" "${_compare_py}" "${_expected}")
  else()
    add_test(NAME ${t} COMMAND ${t})
  endif()
  set_tests_properties(${t} PROPERTIES LABELS "capi" TIMEOUT ${OXIDNN_TEST_TIMEOUT})
endforeach()
# The random differential test's sequence lengths, with no oracle needed: oxidnn with its
# extension against oxidnn running each sample alone (RNN_FUZZ_ALONE=1), as on a library
# without it.
if(TARGET capi_vs_rnn_fuzz AND PYTHON3_EXECUTABLE)
  add_test(NAME capi_vs_rnn_fuzz_lengths
    COMMAND sh -c "\"$1\" > \"$2.txt\" && RNN_FUZZ_ALONE=1 \"$1\" > \"$2.alone.txt\" && \"$3\" \"$4\" \"$2.alone.txt\" \"$2.txt\""
            sh $<TARGET_FILE:capi_vs_rnn_fuzz> "${CMAKE_CURRENT_BINARY_DIR}/rnn_fuzz_lengths"
            "${PYTHON3_EXECUTABLE}" "${CMAKE_CURRENT_SOURCE_DIR}/capi_tests/vs_onednn/rnn_fuzz.compare.py")
  set_tests_properties(capi_vs_rnn_fuzz_lengths PROPERTIES LABELS "capi" TIMEOUT ${OXIDNN_TEST_TIMEOUT})
endif()
foreach(t IN LISTS OXIDNN_EXAMPLE_TARGETS)
  # Run from the repository, as the README runs them (the graph example's default model path).
  add_test(NAME ${t} COMMAND ${t} WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
  set_tests_properties(${t} PROPERTIES LABELS "example" TIMEOUT ${OXIDNN_TEST_TIMEOUT})
endforeach()

# ---- valgrind ----------------------------------------------------------------------------------
find_program(VALGRIND_EXECUTABLE valgrind)
if(OXIDNN_VALGRIND AND VALGRIND_EXECUTABLE AND NOT OXIDNN_SANITIZE)
  foreach(t IN LISTS OXIDNN_CAPI_TEST_TARGETS OXIDNN_CAPI_VS_TARGETS)
    string(REGEX REPLACE "^capi_" "" name "${t}")
    add_test(NAME valgrind_${name}
      COMMAND ${VALGRIND_EXECUTABLE} --error-exitcode=1 --leak-check=full --track-origins=yes
              --num-callers=40
              --suppressions=${CMAKE_CURRENT_SOURCE_DIR}/cmake/valgrind.supp
              $<TARGET_FILE:${t}>)
    set_tests_properties(valgrind_${name} PROPERTIES LABELS "valgrind" TIMEOUT ${OXIDNN_TEST_TIMEOUT})
  endforeach()
elseif(OXIDNN_VALGRIND AND NOT VALGRIND_EXECUTABLE)
  message(STATUS "oxidnn: valgrind not found; no valgrind tests")
endif()

# ---- sanitizers --------------------------------------------------------------------------------
if(OXIDNN_SANITIZE)
  find_program(NM_EXECUTABLE NAMES nm ${CMAKE_NM})
  foreach(t IN LISTS OXIDNN_CAPI_TEST_TARGETS OXIDNN_CAPI_VS_TARGETS OXIDNN_EXAMPLE_TARGETS)
    add_test(NAME sanitize_instrumented_${t}
      COMMAND sh -c "${NM_EXECUTABLE} \"$1\" | grep -q __asan_init" sh $<TARGET_FILE:${t}>)
    set_tests_properties(sanitize_instrumented_${t} PROPERTIES LABELS "sanitize")
  endforeach()
endif()

# ---- package: SONAME, install, consumers ---------------------------------------------------------
find_program(READELF_EXECUTABLE readelf)
if(READELF_EXECUTABLE)
  add_test(NAME soname
    COMMAND sh -c "${READELF_EXECUTABLE} -d \"$1\" | grep -F 'Library soname: [${OXIDNN_SHARED_SONAME}]'"
            sh "${OXIDNN_SHARED_REAL}")
  set_tests_properties(soname PROPERTIES LABELS "package")
endif()
add_test(NAME install_consumer
  COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/cmake/test_install.sh"
          "${CMAKE_BINARY_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}/cmake/consumer"
          "${CMAKE_CURRENT_BINARY_DIR}/install-test" "${CMAKE_C_COMPILER}"
          "${PROJECT_VERSION}" "${OXIDNN_SHARED_SONAME}")
set_tests_properties(install_consumer PROPERTIES LABELS "package" TIMEOUT ${OXIDNN_TEST_TIMEOUT})

# ---- vs_onednn: the real oneDNN as oracle ------------------------------------------------------
# ONEDNN_ROOT, else the cache of ../shared/tools/onednn-setup.sh (ONEDNN_CACHE, XDG_CACHE_HOME or
# ~/.cache /onednn-oracle), filled at configure time when OXIDNN_ONEDNN_ORACLE is ON.
if(DEFINED ENV{ONEDNN_CACHE})
  set(_oxidnn_oracle_cache "$ENV{ONEDNN_CACHE}")
elseif(DEFINED ENV{XDG_CACHE_HOME})
  set(_oxidnn_oracle_cache "$ENV{XDG_CACHE_HOME}/onednn-oracle")
else()
  set(_oxidnn_oracle_cache "$ENV{HOME}/.cache/onednn-oracle")
endif()
set(OXIDNN_ONEDNN_SETUP "${CMAKE_CURRENT_SOURCE_DIR}/../shared/tools/onednn-setup.sh" CACHE FILEPATH
    "onednn-setup.sh used when OXIDNN_ONEDNN_ORACLE is ON")
if(OXIDNN_ONEDNN_ORACLE AND NOT ONEDNN_ROOT AND NOT EXISTS "${_oxidnn_oracle_cache}/3.2/.ok")
  if(EXISTS "${OXIDNN_ONEDNN_SETUP}")
    message(STATUS "oxidnn: fetching the oneDNN 3.2 oracle (${OXIDNN_ONEDNN_SETUP} 3.2)")
    execute_process(COMMAND bash "${OXIDNN_ONEDNN_SETUP}" 3.2 RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      message(WARNING "oxidnn: onednn-setup.sh failed; the vs_onednn tests are skipped")
    endif()
  else()
    message(WARNING "oxidnn: OXIDNN_ONEDNN_ORACLE is ON but ${OXIDNN_ONEDNN_SETUP} does not exist")
  endif()
endif()
set(_oxidnn_onednn_env "")
if(ONEDNN_ROOT)
  set(_oxidnn_onednn "${ONEDNN_ROOT}")
  if(EXISTS "${ONEDNN_ROOT}/env.sh")
    set(_oxidnn_onednn_env "${ONEDNN_ROOT}/env.sh")
  endif()
elseif(EXISTS "${_oxidnn_oracle_cache}/3.2/.ok")
  set(_oxidnn_onednn "${_oxidnn_oracle_cache}/3.2")
  set(_oxidnn_onednn_env "${_oxidnn_oracle_cache}/3.2/env.sh")
endif()

if(_oxidnn_onednn AND EXISTS "${_oxidnn_onednn}/include/oneapi/dnnl/dnnl.h")
  find_library(ONEDNN_REAL_LIBRARY NAMES dnnl PATHS "${_oxidnn_onednn}/lib" NO_DEFAULT_PATH)
  message(STATUS "oxidnn: vs_onednn tests against ${_oxidnn_onednn}")
  set(_scripts "${CMAKE_CURRENT_SOURCE_DIR}/scripts")

  # 1. header ABI: every value/size/offset/prototype we define equals oneDNN's
  add_test(NAME vs_onednn_abi
    COMMAND bash "${_scripts}/abi-diff.sh" --allow-missing "${_oxidnn_onednn}/include"
            "${OXIDNN_INCLUDE_DIR}")
  set_tests_properties(vs_onednn_abi PROPERTIES LABELS "vs_onednn")
  if(EXISTS "${_oxidnn_oracle_cache}/3.13/.ok")   # the API we implement: strict
    add_test(NAME vs_onednn_abi_3.13
      COMMAND bash "${_scripts}/abi-diff.sh" "${_oxidnn_oracle_cache}/3.13/include"
              "${OXIDNN_INCLUDE_DIR}")
    set_tests_properties(vs_onednn_abi_3.13 PROPERTIES LABELS "vs_onednn")
  endif()

  # 2. binaries built against the real oneDNN, run with our library as libdnnl.so.3
  if(ONEDNN_REAL_LIBRARY)
    set(_as_libdnnl "${CMAKE_CURRENT_BINARY_DIR}/as_libdnnl")
    file(MAKE_DIRECTORY "${_as_libdnnl}")
    file(CREATE_LINK "../lib/liboxidnn.so.${PROJECT_VERSION}" "${_as_libdnnl}/libdnnl.so.3" SYMBOLIC)
    get_filename_component(_onednn_libdir "${ONEDNN_REAL_LIBRARY}" DIRECTORY)

    set(_vs_programs "${CMAKE_CURRENT_SOURCE_DIR}/tests/abi/smoke.c" ${OXIDNN_CAPI_VS_SOURCES})
    # the C API tests too: they use only oneDNN's API (oxidnn_ extensions only inside
    # `#if defined(OXIDNN_H)`); a file that mentions oxidnn_ but never OXIDNN_H is skipped
    foreach(src IN LISTS OXIDNN_CAPI_TEST_SOURCES)
      file(STRINGS "${src}" _ext REGEX "oxidnn_")
      file(STRINGS "${src}" _guard REGEX "OXIDNN_H")
      if(NOT _ext OR _guard)
        list(APPEND _vs_programs "${src}")
      endif()
    endforeach()

    foreach(src IN LISTS _vs_programs)
      get_filename_component(name "${src}" NAME_WE)
      set(t onednn_${name})
      add_executable(${t} "${src}")
      set_target_properties(${t} PROPERTIES
        C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF
        SKIP_BUILD_RPATH ON
        RUNTIME_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/bin-onednn")
      target_include_directories(${t} PRIVATE "${_oxidnn_onednn}/include")
      target_compile_options(${t} PRIVATE ${OXIDNN_C_WARNINGS})
      target_link_libraries(${t} PRIVATE "${ONEDNN_REAL_LIBRARY}" Threads::Threads m ${CMAKE_DL_LIBS})
      target_link_options(${t} PRIVATE "-Wl,-rpath-link,${_onednn_libdir}")
      # the symlink must resolve when the test runs
      add_dependencies(${t} oxidnn_cargo)

      set(_args --ours "${_as_libdnnl}")
      # a printer's own comparison (<name>.compare.py) where it has one
      set(_compare "${CMAKE_CURRENT_SOURCE_DIR}/capi_tests/vs_onednn/${name}.compare.py")
      if(NOT EXISTS "${_compare}")
        set(_compare "${_compare_py}")
      endif()
      if(src MATCHES "/vs_onednn/" AND EXISTS "${_compare}" AND _oxidnn_onednn_env)
        list(APPEND _args --real-env "${_oxidnn_onednn_env}" --compare "${_compare}")
      endif()
      add_test(NAME vs_onednn_${name}
        COMMAND bash "${_scripts}/vs-onednn-run.sh" ${_args} -- $<TARGET_FILE:${t}>)
      set_tests_properties(vs_onednn_${name} PROPERTIES LABELS "vs_onednn"
                           TIMEOUT ${OXIDNN_TEST_TIMEOUT})
      # the random differential test again on oxidnn's lower instruction sets (OXIDNN_ISA caps
      # oxidnn's kernels: avx512_core, a oneDNN ISA, keeps them from VNNI and BF16) and on one
      # thread (the schedules without a team); oneDNN ignores both
      if(name STREQUAL "rnn_fuzz")
        foreach(variant avx2 avx512_core portable 1thread)
          if(variant STREQUAL "1thread")
            set(_env "OXIDNN_NUM_THREADS=1")
          else()
            set(_env "OXIDNN_ISA=${variant}")
          endif()
          add_test(NAME vs_onednn_${name}_${variant}
            COMMAND bash "${_scripts}/vs-onednn-run.sh" ${_args} -- $<TARGET_FILE:${t}>)
          set_tests_properties(vs_onednn_${name}_${variant} PROPERTIES LABELS "vs_onednn"
                               ENVIRONMENT "${_env}" TIMEOUT ${OXIDNN_TEST_TIMEOUT})
        endforeach()
      endif()
      # verbose lines: field by field against oneDNN 3.13's for the same program, also with
      # the default fpmath mode set by the environment (every line's attributes then say so) and
      # with timestamps
      if(name STREQUAL "test_verbose" AND EXISTS "${_oxidnn_oracle_cache}/3.13/env.sh")
        foreach(variant "" _fpmath_bf16 _timestamp)
          add_test(NAME vs_onednn_verbose_fields${variant}
            COMMAND bash "${_scripts}/verbose-vs-onednn.sh" --ours "${_as_libdnnl}"
                    --real-env "${_oxidnn_oracle_cache}/3.13/env.sh" -- $<TARGET_FILE:${t}> --workload)
          set_tests_properties(vs_onednn_verbose_fields${variant} PROPERTIES LABELS "vs_onednn"
                               TIMEOUT ${OXIDNN_TEST_TIMEOUT})
        endforeach()
        set_tests_properties(vs_onednn_verbose_fields_fpmath_bf16 PROPERTIES
                             ENVIRONMENT "ONEDNN_DEFAULT_FPMATH_MODE=BF16")
        set_tests_properties(vs_onednn_verbose_fields_timestamp PROPERTIES
                             ENVIRONMENT "ONEDNN_VERBOSE_TIMESTAMP=1")
      endif()
    endforeach()
  else()
    message(STATUS "oxidnn: no libdnnl in ${_oxidnn_onednn}/lib; only the header ABI diff runs")
  endif()
else()
  message(STATUS "oxidnn: no oneDNN oracle found (ONEDNN_ROOT, or -DOXIDNN_ONEDNN_ORACLE=ON); "
                 "vs_onednn tests skipped")
endif()
