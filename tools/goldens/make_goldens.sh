#!/usr/bin/env bash
# make_goldens.sh - (re)generate tests/goldens/lstm/*.txt (gen_lstm_goldens.c),
# tests/goldens/<cell>/*.txt for the other cells (gen_cells_goldens.c),
# tests/goldens/backward/*.txt and the bf16/f16 cases tests/goldens/low_precision/*.txt
# (gen_bwd_goldens.c) and tests/goldens/int8/*.txt (gen_int8_goldens.c) from the real oneDNN.
#
# Usage: tools/goldens/make_goldens.sh [--version 3.13|3.2] [--no-fallback]
#                                      [--compare] [--out DIR]
#
#   --version V    oneDNN version to generate with (default 3.13). If 3.13
#                  cannot be set up, built or run, falls back to 3.2 unless
#                  --no-fallback is given.
#   --compare      additionally build and run against BOTH 3.2 and 3.13 and
#                  report the max abs/rel difference of their outputs
#                  (the goldens written are still those of --version).
#   --out DIR      output directory (default: tests/goldens/lstm in the repo).
#
# Env: ONEDNN_SETUP  path of onednn-setup.sh (default ../shared/tools/onednn-setup.sh
#                    relative to the repository root), CC (default gcc).
#
# oneDNN is only used as an external oracle: the setup script fetches public
# binary wheels into a cache outside the repository; nothing of it is copied.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SETUP=${ONEDNN_SETUP:-$ROOT/../shared/tools/onednn-setup.sh}
CC=${CC:-gcc}

VERSION=3.13
FALLBACK=1
COMPARE=0
OUT=$ROOT/tests/goldens/lstm

while [ $# -gt 0 ]; do
    case "$1" in
        --version) VERSION=${2:?--version needs an argument}; shift 2 ;;
        --version=*) VERSION=${1#*=}; shift ;;
        --no-fallback) FALLBACK=0; shift ;;
        --compare) COMPARE=1; shift ;;
        --out) OUT=${2:?--out needs an argument}; shift 2 ;;
        --out=*) OUT=${1#*=}; shift ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "unknown option: $1 (try --help)" >&2; exit 1 ;;
    esac
done
case "$VERSION" in 3.2|3.13) ;; *) echo "unsupported version $VERSION" >&2; exit 1 ;; esac
[ -x "$SETUP" ] || [ -f "$SETUP" ] || { echo "oneDNN setup script not found: $SETUP" >&2; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# build_and_run V : set up oneDNN V, build the generator against it and run it
# into $WORK/out-V. Returns non-zero on any failure.
build_and_run() {
    local v=$1 key inc lib env
    key=${v//./_}
    echo "== oneDNN $v: setup" >&2
    local vars
    vars=$(bash "$SETUP" "$v") || return 1
    inc=$(sed -n "s/^ONEDNN_${key}_INCLUDE=//p" <<<"$vars")
    lib=$(sed -n "s/^ONEDNN_${key}_LIB=//p" <<<"$vars")
    env=$(sed -n "s/^ONEDNN_${key}_ENV=//p" <<<"$vars")
    [ -n "$inc" ] && [ -n "$lib" ] && [ -n "$env" ] || { echo "setup printed no paths" >&2; return 1; }

    echo "== oneDNN $v: build" >&2
    mkdir -p "$WORK/bin-$v" "$WORK/out-$v"
    local gen
    for gen in gen_lstm_goldens gen_cells_goldens gen_bwd_goldens gen_int8_goldens; do
        "$CC" -std=c99 -O2 -Wall -Wextra -pedantic -I"$inc" \
            "$HERE/$gen.c" -o "$WORK/bin-$v/$gen" \
            -L"$lib" -Wl,-rpath-link,"$lib" -Wl,-rpath,"$lib" -ldnnl -lm || return 1
    done

    echo "== oneDNN $v: run" >&2
    # shellcheck disable=SC1090
    mkdir -p "$WORK/cells-$v" "$WORK/cells-$v/backward" "$WORK/cells-$v/low_precision"
    ( . "$env" && "$WORK/bin-$v/gen_lstm_goldens" "$WORK/out-$v" \
        && "$WORK/bin-$v/gen_cells_goldens" "$WORK/cells-$v" \
        && "$WORK/bin-$v/gen_bwd_goldens" "$WORK/cells-$v/backward" \
            "$WORK/cells-$v/low_precision" \
        && "$WORK/bin-$v/gen_int8_goldens" "$WORK/cells-$v" ) || return 1
}

USED=
if build_and_run "$VERSION"; then
    USED=$VERSION
elif [ "$VERSION" = 3.13 ] && [ "$FALLBACK" = 1 ]; then
    echo "!! oneDNN 3.13 failed; falling back to 3.2" >&2
    build_and_run 3.2
    USED=3.2
else
    echo "!! oneDNN $VERSION failed" >&2
    exit 1
fi

# independent cross-check: generator formula + float64 reference LSTM
if command -v python3 >/dev/null 2>&1; then
    echo "== reference check of the oneDNN $USED outputs" >&2
    python3 "$HERE/check_goldens.py" ref "$WORK/out-$USED"
    python3 "$HERE/check_goldens.py" states "$WORK/cells-$USED/backward"
    python3 "$HERE/check_goldens.py" int8 "$WORK/cells-$USED/int8"
else
    echo "!! python3 not found; skipping the reference check" >&2
fi

mkdir -p "$OUT"
rm -f "$OUT"/*.txt
cp "$WORK/out-$USED"/*.txt "$OUT"/
for dir in "$WORK/cells-$USED"/*/; do
    cell=$(basename "$dir")
    mkdir -p "$OUT/../$cell"
    rm -f "$OUT/../$cell"/*.txt
    cp "$dir"/*.txt "$OUT/../$cell/"
done
echo "== wrote $(ls "$OUT"/*.txt | wc -l) golden files ($(cat "$OUT"/*.txt | wc -c) bytes) from oneDNN $USED to $OUT" >&2

if [ "$COMPARE" = 1 ]; then
    other=3.2
    [ "$USED" = 3.2 ] && other=3.13
    build_and_run "$other"
    echo "== oneDNN 3.2 vs 3.13" >&2
    python3 "$HERE/check_goldens.py" compare "$WORK/out-3.2" "$WORK/out-3.13"
fi
