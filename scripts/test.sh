#!/usr/bin/env bash
# test.sh — every test of the project, in the order CI runs them:
#   cargo fmt --check; cargo clippy --all-targets -D warnings; cargo doc (warnings are errors);
#   cargo test --release (with the graph fuzzer, tests/graph_fuzz.rs, for OXIDNN_FUZZ_SECONDS, default 90);
#   the RNN and graph-sequence tests again with OXIDNN_NUM_THREADS=1;
#   CMake configure + build (C examples, C API tests); ctest (capi, example, valgrind, package,
#   and vs_onednn when a oneDNN oracle is found); an ASan/UBSan build of the C programs;
#   the Python package (python/) pip-installed into a venv, and its pytest suite.
#
# Env: BUILD_DIR (default build), JOBS (default nproc), KEEP_GOING=1 runs every step even after a
# failure (the exit status still reports it), OXIDNN_TEST_ASAN=0 skips the sanitizer pass,
# OXIDNN_TEST_VALGRIND=0 skips the valgrind label, OXIDNN_TEST_PYTHON=0 skips the Python step,
# ONEDNN_ROOT (a real oneDNN for vs_onednn; default: the cache of ../shared/tools/onednn-setup.sh
# when present), OXIDNN_INSTALL_TOOLS=0 (never install missing tools: fail at once naming them;
# see scripts/lib/tools.sh).
# cargo and CMake share target/ (CMake's cargo call uses the same target dir and profile), so
# the library is compiled once.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/tools.sh
# shellcheck disable=SC2046 # a list of words
oxidnn_require_tools test.sh $(oxidnn_test_tools)
root=$(pwd)
build=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
keep_going=${KEEP_GOING:-0}
t0=$(date +%s)
failed=()

# step NAME COMMAND...: runs one step, timed; stops at the first failure unless KEEP_GOING=1
step() {
    local name=$1 s rc=0
    shift
    s=$(date +%s)
    printf '\n==== [%4ss] %s\n' "$(( s - t0 ))" "$name"
    "$@" || rc=$?
    printf '==== %s: %s in %ss\n' "$name" "$([ $rc = 0 ] && echo ok || echo "FAILED ($rc)")" \
        "$(( $(date +%s) - s ))"
    if [ $rc != 0 ]; then
        failed+=("$name")
        [ "$keep_going" = 1 ] || { echo "test.sh: '$name' failed" >&2; exit $rc; }
    fi
}

cmake_args=(-DOXIDNN_CARGO_TARGET_DIR="$root/target" -DOXIDNN_CARGO_PROFILE=release)
[ -n "${ONEDNN_ROOT:-}" ] && cmake_args+=(-DONEDNN_ROOT="$ONEDNN_ROOT")
ctest_args=(--output-on-failure -j "$jobs")
[ "${OXIDNN_TEST_VALGRIND:-1}" = 0 ] && ctest_args+=(-LE valgrind)

step "cargo fmt --check" cargo fmt --all -- --check
step "cargo clippy" cargo clippy --all-targets -- -D warnings
step "cargo doc" env RUSTDOCFLAGS="-D warnings" cargo doc --no-deps
step "cargo test --release" env OXIDNN_FUZZ_SECONDS="${OXIDNN_FUZZ_SECONDS:-90}" cargo test --release
# The RNN drivers plan by thread count (one thread: bidirectional directions take turns on
# one set of scratch regions): their tests again on one thread.
step "cargo test --release (1 thread)" env OXIDNN_NUM_THREADS=1 cargo test --release \
    --lib --test seq_lengths --test lstm_goldens --test lstm_reference --test int8_goldens \
    --test int8_reference --test goldens_low_precision --test rnn_backward \
    --test rnn_backward_reference --test cells_reference --test balanced_steps --test chunked_steps \
    --test graph_sequence_ops --test graph_ov_corpus --test graph_ov_cases --test submemory_exec
step "cmake configure" cmake -S . -B "$build" "${cmake_args[@]}"
step "cmake build" cmake --build "$build" -j "$jobs"
step "ctest" ctest --test-dir "$build" "${ctest_args[@]}"
if [ "${OXIDNN_TEST_ASAN:-1}" != 0 ]; then
    step "cmake configure (ASan/UBSan)" cmake -S . -B "$build-asan" "${cmake_args[@]}" \
        -DOXIDNN_SANITIZE=ON -DOXIDNN_VALGRIND=OFF
    step "cmake build (ASan/UBSan)" cmake --build "$build-asan" -j "$jobs"
    step "ctest (ASan/UBSan)" ctest --test-dir "$build-asan" --output-on-failure -j "$jobs" \
        -L 'capi|example|sanitize'
fi

# The Python package in a venv under the build dir (numpy and pytest from PyPI; live torch
# comparisons skip without torch); pytest's "no tests collected" (5) is a failure.
python_tests() {
    local venv rc=0
    venv=$(cd "$(dirname "$build")" && pwd)/$(basename "$build")/python-venv
    python3 -m venv "$venv" && "$venv/bin/pip" install -q numpy pytest ./python || return
    "$venv/bin/python" -m pytest -q python/tests || rc=$?
    [ $rc != 5 ] || echo "test.sh: pytest collected no tests in python/tests" >&2
    return $rc
}
[ "${OXIDNN_TEST_PYTHON:-1}" = 0 ] || step "python (pip install ./python, pytest)" python_tests

if [ ${#failed[@]} -gt 0 ]; then
    printf '\ntest.sh: FAILED after %ss: %s\n' "$(( $(date +%s) - t0 ))" "$(IFS=,; echo "${failed[*]}")" >&2
    exit 1
fi
printf '\ntest.sh: all tests passed in %ss\n' "$(( $(date +%s) - t0 ))"
