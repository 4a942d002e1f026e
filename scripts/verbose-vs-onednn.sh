#!/usr/bin/env bash
# verbose-vs-onednn.sh — compare the ONEDNN_VERBOSE=all lines of one program on the real
# oneDNN 3.13 and on oxidnn (standing in as libdnnl.so.3).
#
#   scripts/verbose-vs-onednn.sh --ours DIR --real-env ENV_SH -- PROGRAM [ARGS...]
#
# PROGRAM is built against oneDNN's headers (capi_tests/test_verbose.c, run with --workload).
# From each run the primitive lines are kept (create, exec, create:check) and reduced to their
# structure: the implementation name and the time are dropped, create:cache_hit reads as
# create:cache_miss (oxidnn keeps no primitive cache), a check line keeps only its API,
# operation and component; a timestamp (ONEDNN_VERBOSE_TIMESTAMP) reads as the word
# "timestamp". The two reduced listings must be equal.
set -euo pipefail

ours= real_env=
while [ $# -gt 0 ]; do
    case "$1" in
        --ours) ours=$2; shift 2 ;;
        --real-env) real_env=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "verbose-vs-onednn: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$ours" ] && [ -n "$real_env" ] && [ $# -ge 1 ] ||
    { echo "usage: $0 --ours DIR --real-env ENV_SH -- PROGRAM [ARGS]" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/oxidnn-verbose.XXXXXX")
trap 'rm -rf "$work"' EXIT

reduce() {
    awk -F, '
        # a timestamp (ONEDNN_VERBOSE_TIMESTAMP) is dropped, its presence kept
        { t = "" }
        match($0, /^onednn_verbose,v1,[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9],/) {
            $0 = "onednn_verbose,v1," substr($0, RLENGTH + 1)
            t = "timestamp,"
        }
        $1 != "onednn_verbose" || $3 != "primitive" { next }
        $4 == "create:check" { print t $3 "," $4 "," $5; next }
        $4 == "exec" || $4 ~ /^create:cache_(miss|hit)$/ {
            op = ($4 == "exec") ? "exec" : "create:cache_miss"
            line = t $3 "," op "," $5 "," $6
            for (i = 8; i < NF; i++) line = line "," $i
            print line
        }'
}

( . "$real_env" && ONEDNN_VERBOSE=all "$@" ) >"$work/onednn.out" 2>"$work/onednn.err" ||
    { echo "verbose-vs-onednn: the program failed on the real oneDNN" >&2; cat "$work/onednn.err" >&2; exit 1; }
LD_LIBRARY_PATH="$ours${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ONEDNN_VERBOSE=all "$@" \
    >"$work/oxidnn.out" 2>"$work/oxidnn.err" ||
    { echo "verbose-vs-onednn: the program failed on oxidnn" >&2; cat "$work/oxidnn.err" >&2; exit 1; }
grep -q '^onednn_verbose,v1,info,oneDNN v3.13' "$work/onednn.out" ||
    { echo "verbose-vs-onednn: the real library is not oneDNN 3.13" >&2; exit 1; }
grep -q '^onednn_verbose,v1,info,oneDNN v.* (commit oxidnn' "$work/oxidnn.out" ||
    { echo "verbose-vs-onednn: the second run did not load oxidnn" >&2; exit 1; }

reduce <"$work/onednn.out" >"$work/onednn.lines"
reduce <"$work/oxidnn.out" >"$work/oxidnn.lines"
n=$(wc -l <"$work/onednn.lines")
[ "$n" -gt 0 ] || { echo "verbose-vs-onednn: no primitive lines from oneDNN" >&2; exit 1; }
if ! diff -u "$work/onednn.lines" "$work/oxidnn.lines"; then
    echo "verbose-vs-onednn: the lines differ (- oneDNN 3.13, + oxidnn)" >&2
    exit 1
fi
echo "verbose-vs-onednn: $n primitive lines with oneDNN 3.13's fields"
