#!/usr/bin/env bash
# bench-conformance.sh [LIST...] — runs oxidnn-bench over benchdnn RNN lists (default: the four
# test_*_ci and four test_*_all lists) and prints, per list, its failures, skip reasons and the
# `N passed, N failed, N skipped` summary; the full per-case output goes to $OUT_DIR/<list>.txt
# (default target/bench-conformance). Exit status 1 when any case failed.
# Env: OXIDNN_BENCH_INPUTS (inputs folder; default ../shared/conformance/benchdnn-rnn).
set -euo pipefail
cd "$(dirname "$0")/.."
lists=("$@")
[ ${#lists[@]} -gt 0 ] || lists=(test_rnn_ci test_gru_ci test_lstm_ci test_augru_ci
    test_rnn_all test_gru_all test_lstm_all test_augru_all)
cargo build --release --bin oxidnn-bench
bin=${CARGO_TARGET_DIR:-target}/release/oxidnn-bench
out=${OUT_DIR:-${CARGO_TARGET_DIR:-target}/bench-conformance}
mkdir -p "$out"
rc=0
for list in "${lists[@]}"; do
    echo "== $list"
    "$bin" --batch="$list" > "$out/$list.txt" || rc=1
    grep -A3 ':FAILED' "$out/$list.txt" || true
    sed -n '/^skip reasons:/,$p' "$out/$list.txt"
done
exit $rc
