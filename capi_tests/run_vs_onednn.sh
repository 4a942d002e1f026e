#!/usr/bin/env bash
# run_vs_onednn.sh - build and run the C API tests, the C examples and the
# vs_onednn printer against the REAL oneDNN (an oracle: the tests must pass
# there first, so that passing them with oxidnn proves the same behaviour).
#
# Usage:  capi_tests/run_vs_onednn.sh [3.13|3.2|all] [--keep DIR] [--update-expected]
#           (default: all = 3.13 then 3.2)
#
#   --keep DIR          build into DIR and keep it (binaries, logs, outputs)
#   --update-expected   rewrite capi_tests/vs_onednn/<name>.expected.txt (lstm_print,
#                       gemm_print) from the oneDNN 3.13 run of each
#
# Env:    ONEDNN_SETUP  path of onednn-setup.sh (default ../shared/tools/onednn-setup.sh
#                       relative to the repository root), CC (default gcc).
#
# Each program is compiled with
#   $CC -std=c99 -Wall -Wextra -Werror -I<onednn>/include prog.c -L<onednn>/lib -ldnnl -lm
# and run with the oneDNN version's env.sh sourced. The stdout of each printer with a
# vs_onednn/<name>.expected.txt (lstm_print, gemm_print) is kept as <dir>/<name>-<version>.txt and
# compared (compare_outputs.py) with it and, with `all`, across versions.
# Exit status: 0 when everything built, passed and matched.
set -euo pipefail
shopt -s nullglob

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
SETUP=${ONEDNN_SETUP:-$ROOT/../shared/tools/onednn-setup.sh}
CC=${CC:-gcc}
COMPARE=$HERE/vs_onednn/compare_outputs.py
WHICH=all
KEEP=
UPDATE=0

while [ $# -gt 0 ]; do
    case "$1" in
        3.2|3.13|all) WHICH=$1; shift ;;
        --keep) KEEP=${2:?--keep needs a directory}; shift 2 ;;
        --update-expected) UPDATE=1; shift ;;
        -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1 (try --help)" >&2; exit 1 ;;
    esac
done

if [ -n "$KEEP" ]; then
    WORK=$KEEP; mkdir -p "$WORK"
else
    WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
fi

FAILED=0
run_version() {
    local v=$1 key vars inc lib env out src name log start end
    key=${v//./_}
    vars=$(bash "$SETUP" "$v")
    inc=$(sed -n "s/^ONEDNN_${key}_INCLUDE=//p" <<<"$vars")
    lib=$(sed -n "s/^ONEDNN_${key}_LIB=//p" <<<"$vars")
    env=$(sed -n "s/^ONEDNN_${key}_ENV=//p" <<<"$vars")
    out=$WORK/$v; mkdir -p "$out"
    rm -f "$WORK"/*-"$v".txt
    for src in "$HERE"/*.c "$HERE"/vs_onednn/*.c "$ROOT"/examples_c/*.c; do
        name=$(basename "$src" .c)
        # Examples of oxidnn's own graph API (oxidnn.h) have nothing to run on oneDNN.
        grep -q '^#include [<"]oxidnn\.h[>"]' "$src" && continue
        if ! "$CC" -std=c99 -Wall -Wextra -Werror -I"$inc" "$src" -o "$out/$name" \
                -L"$lib" -Wl,-rpath-link,"$lib" -Wl,-rpath,"$lib" -ldnnl -lm; then
            echo "[$v] BUILD FAILED: $name"; FAILED=1; continue
        fi
        log=$out/$name.log
        start=$(date +%s.%N)
        if [ -f "$HERE/vs_onednn/$name.expected.txt" ]; then
            # shellcheck disable=SC1090
            ( . "$env" && "$out/$name" ) >"$WORK/$name-$v.txt" 2>"$log" \
                && status=0 || status=$?
        else
            # shellcheck disable=SC1090
            ( . "$env" && "$out/$name" ) >"$log" 2>&1 && status=0 || status=$?
        fi
        end=$(date +%s.%N)
        if [ "$status" = 0 ]; then
            printf '[%s] ok   %-20s %5.2fs  %s\n' "$v" "$name" \
                "$(awk "BEGIN{print $end - $start}")" \
                "$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1 || true)"
        else
            echo "[$v] FAIL $name (exit $status, log: $log)"; tail -20 "$log"; FAILED=1
        fi
    done
}

compare() {
    echo "== $(basename "$1") vs $(basename "$2")"
    python3 "$COMPARE" "$1" "$2" || FAILED=1
}

case "$WHICH" in
    all) run_version 3.13; run_version 3.2 ;;
    *) run_version "$WHICH" ;;
esac

for expected in "$HERE"/vs_onednn/*.expected.txt; do
    name=$(basename "$expected" .expected.txt)
    if [ "$UPDATE" = 1 ]; then
        if [ -s "$WORK/$name-3.13.txt" ]; then
            cp "$WORK/$name-3.13.txt" "$expected"
            echo "== wrote $expected"
        else
            echo "!! --update-expected needs a successful oneDNN 3.13 run of $name" >&2; FAILED=1
        fi
    fi
    for v in 3.13 3.2; do
        if [ -s "$WORK/$name-$v.txt" ]; then
            compare "$expected" "$WORK/$name-$v.txt"
        fi
    done
    if [ -s "$WORK/$name-3.13.txt" ] && [ -s "$WORK/$name-3.2.txt" ]; then
        compare "$WORK/$name-3.13.txt" "$WORK/$name-3.2.txt"
    fi
done
exit $FAILED
