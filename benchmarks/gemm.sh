#!/usr/bin/env bash
# gemm.sh - oxidnn vs the real oneDNN on the BLAS-like calls (dnnl_sgemm, dnnl_gemm_u8s8s32,
# dnnl_gemm_s8s8s32), side by side, with capi_tests/bench/gemm_bench.c built once against
# oneDNN 3.2's headers and run on oxidnn (as libdnnl.so.3), oneDNN 3.2 (GNU OpenMP) and
# oneDNN 3.13; the ratio is against the faster oneDNN.
#
# Usage: benchmarks/gemm.sh [--rounds N] [--threads "2 1"] [--min-time S] [--without-3.13]
#                           [--no-build] [--no-report]
#
#   --rounds N     rounds; each runs every library once, in an order that rotates (default 3)
#   --threads L    thread counts (default "2"): OXIDNN_NUM_THREADS / OMP_NUM_THREADS; 1 thread
#                  also pins every library to CPU 0 (taskset)
#   --min-time S   gemm_bench's time per case (default 0.3 s)
#   --without-3.13 oneDNN 3.2 only (--with-3.13, the default, is still accepted)
#   --no-build     use target/release/liboxidnn.so (under $CARGO_TARGET_DIR when set) as it is
#   --no-report    print the table only; leave BENCHMARKS.md alone
#
# Output: benchmarks/build/gemm/results.txt (raw: `<round> <lib> <threads> <gemm_bench line>`),
# the table on stdout, and BENCHMARKS.md's section "gemm-<machine kind>" (benchmarks/sections.py)
# written by benchmarks/gemm_report.py: per case the median over rounds of each run's median,
# and oxidnn's time / oneDNN's. The section names the CPU, the kernels each library runs
# (oxidnn's from the CPU flags and OXIDNN_ISA, oneDNN's from its verbose `isa:` line), the
# date, the commit and the load average before and after.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
SETUP=${ONEDNN_SETUP:-$ROOT/../shared/tools/onednn-setup.sh}
OUT=$HERE/build/gemm
ROUNDS=3 THREADS="2" MIN_TIME=0.3 WITH_313=1 BUILD=1 REPORT=1
CMDLINE="benchmarks/gemm.sh${*:+$(printf ' %q' "$@")}"
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS=${2:?}; shift 2 ;;
        --threads) THREADS=${2:?}; shift 2 ;;
        --min-time) MIN_TIME=${2:?}; shift 2 ;;
        --with-3.13) WITH_313=1; shift ;;
        --without-3.13) WITH_313=0; shift ;;
        --no-build) BUILD=0; shift ;;
        --no-report) REPORT=0; shift ;;
        -h|--help) awk 'NR > 1 && /^set -euo/ { exit } NR > 1' "$0"; exit 0 ;;
        *) echo "gemm.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
log() { echo "[gemm.sh] $*" >&2; }

mkdir -p "$OUT/oxidnn"
if [ "$BUILD" = 1 ]; then
    log "cargo build --release"
    (cd "$ROOT" && cargo build --release --quiet)
fi
LIB=${CARGO_TARGET_DIR:-$ROOT/target}/release/liboxidnn.so
[ -f "$LIB" ] || { log "no $LIB (build it, or drop --no-build)"; exit 1; }
# a snapshot: a rebuild during the run cannot change what is measured
cp "$LIB" "$OUT/oxidnn/libdnnl.so.3"

bash "$SETUP" 3.2 >/dev/null
[ "$WITH_313" = 1 ] && bash "$SETUP" 3.13 >/dev/null
CACHE=${ONEDNN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/onednn-oracle}
O32=$CACHE/3.2
${CC:-gcc} -std=c99 -O2 -Wall -Wextra -Werror -I"$O32/include" "$ROOT/capi_tests/bench/gemm_bench.c" \
    -L"$O32/lib" -ldnnl -Wl,-rpath-link,"$O32/lib" -o "$OUT/gemm_bench"

LIBS="oxidnn 3.2"
[ "$WITH_313" = 1 ] && LIBS="$LIBS 3.13"
# run LIB THREADS: gemm_bench on one library
run() {
    local lib=$1 thr=$2 pin=()
    [ "$thr" = 1 ] && pin=(taskset -c 0)
    case "$lib" in
        oxidnn) LD_LIBRARY_PATH="$OUT/oxidnn" OXIDNN_NUM_THREADS=$thr \
                    "${pin[@]}" "$OUT/gemm_bench" --min-time "$MIN_TIME" ;;
        *) ( . "$CACHE/$lib/env.sh"; OMP_NUM_THREADS=$thr "${pin[@]}" "$OUT/gemm_bench" \
                --min-time "$MIN_TIME" ) ;;
    esac
}

# oneDNN's instruction set, as its verbose mode names it
ONEDNN_ISA=$( (. "$CACHE/3.2/env.sh"; ONEDNN_VERBOSE=1 "$OUT/gemm_bench" --only sgemm --shape 4x16x16 \
    --max-runs 1) | sed -n 's/^onednn_verbose,info,cpu,isa://p' | head -n 1)

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$OUT/results.txt"
for r in $(seq 1 "$ROUNDS"); do
    set -- $LIBS
    order=("$@")
    n=${#order[@]}
    for i in $(seq 0 $((n - 1))); do
        lib=${order[$(( (i + r - 1) % n ))]}
        for thr in $THREADS; do
            log "round $r: $lib, $thr thread(s)"
            run "$lib" "$thr" | sed "s/^/$r $lib $thr /" >>"$OUT/results.txt"
        done
    done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

args=(--raw "$OUT/results.txt" --load "$LOAD_BEFORE" "$LOAD_AFTER" --command "$CMDLINE"
      --onednn-isa "${ONEDNN_ISA:-unknown}"
      --commit "$(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)")
[ "$REPORT" = 1 ] && args+=(--md "$ROOT/BENCHMARKS.md")
python3 "$HERE/gemm_report.py" "${args[@]}"
