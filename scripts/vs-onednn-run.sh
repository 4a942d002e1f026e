#!/usr/bin/env bash
# vs-onednn-run.sh — run a program built against the REAL oneDNN with oxidnn as libdnnl.so.3.
#
#   scripts/vs-onednn-run.sh --ours DIR [--real-env ENV_SH --compare SCRIPT] -- PROGRAM [ARGS...]
#
# DIR holds libdnnl.so.3 -> oxidnn's library. The script checks that the loader resolves
# libdnnl.so.3 into DIR, runs the program there (it must exit 0), and with --compare also runs it
# on the real oneDNN (ENV_SH sourced) and calls `SCRIPT REAL_OUTPUT OXIDNN_OUTPUT` (a .py is run
# with python3), which must exit 0.
set -euo pipefail

ours= real_env= compare=
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) ours=$2; shift 2 ;;
        --real-env) real_env=$2; shift 2 ;;
        --compare) compare=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "vs-onednn-run: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$ours" ] && [ $# -ge 1 ] || { echo "usage: $0 --ours DIR [--real-env ENV --compare SCRIPT] -- PROGRAM [ARGS]" >&2; exit 2; }
prog=$1; shift
[ -e "$ours/libdnnl.so.3" ] || { echo "vs-onednn-run: $ours/libdnnl.so.3 does not exist (library not built?)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/oxidnn-vs.XXXXXX")
trap 'rm -rf "$work"' EXIT
ours_path="$ours${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

line=$(LD_LIBRARY_PATH=$ours_path ldd "$prog" | grep 'libdnnl\.so\.3' || true)
case "$line" in
    *"=> $ours/libdnnl.so.3"*) echo "loader: libdnnl.so.3 => $ours/libdnnl.so.3 (oxidnn)" ;;
    *) echo "vs-onednn-run: libdnnl.so.3 does not resolve to oxidnn: '$line'" >&2; exit 1 ;;
esac

rc=0
LD_LIBRARY_PATH=$ours_path "$prog" "$@" >"$work/oxidnn.out" 2>"$work/oxidnn.err" || rc=$?
n=$(wc -l <"$work/oxidnn.out")
[ "$n" -gt 20 ] && echo "... (last 20 of $n lines of output)"
tail -n 20 "$work/oxidnn.out"
tail -n 50 "$work/oxidnn.err" >&2
if [ $rc -ne 0 ]; then
    echo "vs-onednn-run: $(basename "$prog") built against oneDNN failed on oxidnn (exit $rc)" >&2
    exit 1
fi

if [ -n "$compare" ]; then
    [ -n "$real_env" ] || { echo "vs-onednn-run: --compare needs --real-env" >&2; exit 2; }
    # shellcheck disable=SC1090
    if ! ( . "$real_env" && "$prog" "$@" ) >"$work/onednn.out" 2>"$work/onednn.err"; then
        echo "vs-onednn-run: $(basename "$prog") failed on the real oneDNN:" >&2
        cat "$work/onednn.err" >&2
        exit 1
    fi
    case "$compare" in
        *.py) python3 "$compare" "$work/onednn.out" "$work/oxidnn.out" ;;
        *) "$compare" "$work/onednn.out" "$work/oxidnn.out" ;;
    esac
    echo "vs-onednn-run: output matches the real oneDNN's"
fi
