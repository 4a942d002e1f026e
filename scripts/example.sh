#!/usr/bin/env bash
# example.sh — build everything (the Rust library through CMake, the C examples and tests) and
# run the flagship example: examples_c/lstm_inference.c, a 2-layer LSTM over a 20-step sequence
# written as a oneDNN user writes it.
#
# Env: BUILD_DIR (default build), JOBS (default nproc), OXIDNN_INSTALL_TOOLS=0 (never install
# missing tools; see scripts/lib/tools.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/tools.sh
oxidnn_require_tools example.sh cargo cc cmake
build=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

cmake -S . -B "$build" -DOXIDNN_CARGO_TARGET_DIR="$(pwd)/target" -DOXIDNN_CARGO_PROFILE=release
cmake --build "$build" -j "$jobs"

exe=$build/bin/example_lstm_inference
if [ ! -x "$exe" ]; then
    echo "example.sh: $exe was not built (is examples_c/lstm_inference.c there?)" >&2
    exit 1
fi
echo
echo "==== $exe"
"$exe"
