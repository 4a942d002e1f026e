#!/usr/bin/env bash
# run.sh - oxidnn vs the real oneDNN (3.2 GNU OpenMP and 3.13 SYCL/TBB from PyPI), side by side,
# on the RNN workloads of benchmarks/rnn_bench.c (W1..W10 of issue 5, X1..X9 beyond it), in f32
# and (--dt) bf16 and int8.
#
# Usage: benchmarks/run.sh [--quick] [--rounds N] [--workloads "W1 W2 ..."] [--no-build]
#                          [--no-report] [--iters N] [--min-time S] [--max-time S]
#                          [--shapes FILE] [--dt "f32 bf16 int8"]
#
#   --quick        1 round, fewer iterations (a smoke test: ~1 minute)
#   --rounds N     rounds of the alternation (default 3)
#   --workloads    a subset (default: all nineteen in f32; see --dt); a name may carry its
#                  data type (W2-bf16, W8-int8) whatever --dt says
#   --dt LIST      the data types to run, one or more of f32 (default), bf16, int8 (rnn_bench.c
#                  says what each means): every workload of --workloads in each, or each one's
#                  default set -- f32: all nineteen; bf16: W1 W2 W3 W4 W5 W8 W10; int8 (LSTM,
#                  LSTMP and GRU forward inference only): W1 W2 W3 W4 W8. The rows are named
#                  W2-bf16, W2-int8 ...; their tables are separate parts of the machine section
#                  (a bf16 or int8 run replaces only its own part, an f32 run only the f32 part)
#   --no-build     don't run `cargo build --release`; use target/release/liboxidnn.so as it is
#   --no-report    print the table only; leave BENCHMARKS.md and benchmarks/ratios-*.svg alone
#   --iters/--min-time/--max-time   passed to rnn_bench (defaults 10 / 0.5 / 5)
#   --shapes FILE  instead of the workloads, the shapes in FILE: one rnn_bench --shape spec
#                  per line ("name=cell,dir,prop,dims", # comments), e.g.
#                  benchmarks/shapes_onednn_perf.txt (oneDNN's own f32 perf shapes); the
#                  report goes to benchmarks/SWEEP.md instead of BENCHMARKS.md (with --dt
#                  bf16 / int8: to benchmarks/SWEEP-bf16.md / SWEEP-int8.md)
#   --quiet-max S  before the peak and before each workload, wait up to S seconds (default 300)
#                  for the machine to be quiet (other processes using < 0.3 CPU over 1 s);
#                  a shared 2-core machine otherwise measures its neighbours' compile jobs
#
# What it does:
#   1. builds liboxidnn (cargo build --release) and copies it to benchmarks/build/oxidnn/ (a
#      snapshot: a rebuild by someone else during the run cannot change what is measured);
#   2. fetches/locates both oneDNN builds with ../shared/tools/onednn-setup.sh (ONEDNN_SETUP
#      overrides the path) and builds rnn_bench.c three times (oxidnn, 3.2, 3.13), peak.c
#      (plain, and with dnnl_sgemm from oneDNN 3.2) and crosscore.c (the CPU 0 <-> 1 round
#      trip, measured before and after the runs: how far apart the two CPUs are);
#   3. when f32 runs: measures the f32 FMA peak (1 and 2 threads) and the 1024^3 sgemm of
#      oneDNN 3.2 (and, on 2 threads, its sgemm on the merged GEMM shape of W2 and W3); in
#      every data type, the batch-1 bounds of W1, W1-bf16 and W1-int8 (2 and 1 threads) and X7
#      (2 threads) when they run (target/release/oxidnn-bound, src/bin/oxidnn-bound.rs);
#   4. for each round, for each workload, runs oxidnn, oneDNN 3.2 and oneDNN 3.13 one after the
#      other (one process per run; the order of the three rotates between rounds) with 2 threads
#      (OXIDNN_NUM_THREADS=2, OMP_NUM_THREADS=2, 3.13/TBB on the 2 CPUs of the mask), then W1
#      (each data type's) with 1 thread (all three under `taskset -c 0`, OXIDNN_NUM_THREADS=1,
#      OMP_NUM_THREADS=1);
#   5. benchmarks/report.py aggregates (per library: median over rounds of each run's median),
#      prints the table and rewrites this machine kind's section of BENCHMARKS.md (CPU vendor,
#      model, ISA flags, the kernel path each library ran, load average before and after; the
#      other machines' sections are kept) and its chart benchmarks/ratios-<kind>.svg (f32);
#      bf16 and int8 rows go to their own tables in the section, each with the ISA path
#      (implementation name) of both sides per row.
# Raw output: benchmarks/build/results.txt, peaks.txt, meta.txt.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
SETUP=${ONEDNN_SETUP:-$ROOT/../shared/tools/onednn-setup.sh}
CC=${CC:-gcc}
OUT=$HERE/build
ROUNDS=3
WORKLOADS="W1 W2 W3 W4 W5 W6 W7 W8 W9 W10 X1 X2 X3 X4 X5 X6 X7 X8 X9"
WORKLOADS_GIVEN=0
DTS=f32
declare -A DEFAULT_WORKLOADS=([f32]=$WORKLOADS [bf16]="W1 W2 W3 W4 W5 W8 W10"
                              [int8]="W1 W2 W3 W4 W8")
BUILD=1
REPORT=1
ITERS=10 MIN_TIME=0.5 MAX_TIME=5 WARMUP=3
QUICK=0
SHAPES_FILE=""
QUIET_MAX=300 QUIET_LIMIT=0.3
CMDLINE="benchmarks/run.sh"   # as typed: an argument with spaces in double quotes
for arg in "$@"; do
    case "$arg" in *[[:space:]]*) CMDLINE+=" \"$arg\"" ;; *) CMDLINE+=" $arg" ;; esac
done

while [ $# -gt 0 ]; do
    case "$1" in
        --quick) QUICK=1; ROUNDS=1; ITERS=3; MIN_TIME=0.1; MAX_TIME=2; WARMUP=1; shift ;;
        --rounds) ROUNDS=${2:?}; shift 2 ;;
        --workloads) WORKLOADS=${2:?}; WORKLOADS_GIVEN=1; shift 2 ;;
        --dt) DTS=${2:?}; DTS=${DTS//,/ }; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --no-report) REPORT=0; shift ;;
        --iters) ITERS=${2:?}; shift 2 ;;
        --min-time) MIN_TIME=${2:?}; shift 2 ;;
        --max-time) MAX_TIME=${2:?}; shift 2 ;;
        --quiet-max) QUIET_MAX=${2:?}; shift 2 ;;
        --shapes) SHAPES_FILE=${2:?}; shift 2 ;;
        -h|--help) awk 'NR > 1 && /^set -euo/ { exit } NR > 1' "$0"; exit 0 ;;
        *) echo "run.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done

for dt in $DTS; do
    case "$dt" in f32|bf16|int8) ;; *) echo "run.sh: unknown --dt '$dt' (f32, bf16, int8)" >&2; exit 2 ;; esac
done
# with_dt NAME DT: the row name of workload NAME in data type DT (W2, W2-bf16); a name that
# already carries a data type keeps it (W2-f32 is W2)
with_dt() {
    case "$1" in
        *-f32) echo "${1%-f32}" ;;
        *-bf16|*-int8) echo "$1" ;;
        *) [ "$2" = f32 ] && echo "$1" || echo "$1-$2" ;;
    esac
}
# dt_of NAME: the data type of a row name
dt_of() { case "$1" in *-bf16) echo bf16 ;; *-int8) echo int8 ;; *) echo f32 ;; esac; }

# --shapes: SPEC[name] = the --shape spec; the names (with the data type) replace the workloads.
declare -A SPEC
SHAPE_ARGS=()
if [ -n "$SHAPES_FILE" ]; then
    [ -f "$SHAPES_FILE" ] || { echo "run.sh: no such file: $SHAPES_FILE" >&2; exit 2; }
    WORKLOADS=""
    while read -r spec; do
        spec=${spec%%#*}
        spec=${spec//[[:space:]]/}
        [ -z "$spec" ] && continue
        case "$spec" in *=*) ;; *) echo "run.sh: shape '$spec' has no name=" >&2; exit 2 ;; esac
        SHAPE_ARGS+=(--shape "$spec")
        for dt in $DTS; do
            name=$(with_dt "${spec%%=*}" "$dt")
            SPEC[$name]=$spec
            WORKLOADS="$WORKLOADS $name"
        done
    done <"$SHAPES_FILE"
else
    # the rows: each data type's default workloads, or the given ones in each data type
    list=""
    for dt in $DTS; do
        [ "$WORKLOADS_GIVEN" = 1 ] && ws=$WORKLOADS || ws=${DEFAULT_WORKLOADS[$dt]}
        for w in $ws; do
            name=$(with_dt "$w" "$dt")
            case " $list " in *" $name "*) ;; *) list="$list $name" ;; esac
        done
    done
    WORKLOADS=${list# }
fi
HAS_F32=0
for w in $WORKLOADS; do [ "$(dt_of "$w")" = f32 ] && HAS_F32=1; done

START_DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
log() { printf '[run.sh] %s\n' "$*" >&2; }

# busy_cpus: CPUs' worth of non-idle time (steal included) over the next second
busy_cpus() {
    local a b
    read -r -a a < /proc/stat
    sleep 1
    read -r -a b < /proc/stat
    awk -v n="$(nproc)" -v a="${a[*]:1:8}" -v b="${b[*]:1:8}" 'BEGIN {
        split(a, x); split(b, y); t = 0
        for (i = 1; i <= 8; i++) t += y[i] - x[i]
        idle = (y[4] - x[4]) + (y[5] - x[5])
        printf "%.2f", (t > 0 ? n * (1 - idle / t) : 0) }'
}

# wait_quiet: wait (up to QUIET_MAX s) until other processes leave the CPUs alone
QUIET_WAITED=0 QUIET_WORST=0
wait_quiet() {
    local start busy
    start=$(date +%s)
    while :; do
        busy=$(busy_cpus)
        awk -v b="$busy" -v l="$QUIET_LIMIT" 'BEGIN { exit !(b < l) }' && break
        if [ $(( $(date +%s) - start )) -ge "$QUIET_MAX" ]; then
            log "WARNING: machine still busy ($busy CPUs in use by others); measuring anyway"
            QUIET_WORST=$(awk -v b="$busy" -v w="$QUIET_WORST" 'BEGIN { print (b > w ? b : w) }')
            break
        fi
        [ "$(( $(date +%s) - start ))" -lt 2 ] && log "waiting for a quiet machine ($busy CPUs busy)"
    done
    QUIET_WAITED=$(( QUIET_WAITED + $(date +%s) - start ))
}
mkdir -p "$OUT/oxidnn"
CFLAGS=(-std=c99 -O2 -Wall -Wextra -Werror)

# ---- 1. oxidnn ---------------------------------------------------------------------------
OX_NOTE=""
if [ "$BUILD" = 1 ]; then
    log "cargo build --release"
    if ! (cd "$ROOT" && cargo build --release --quiet); then
        [ -f "$ROOT/target/release/liboxidnn.so" ] || { log "cargo build failed"; exit 1; }
        log "WARNING: cargo build failed; measuring the existing target/release/liboxidnn.so"
        OX_NOTE="(cargo build failed: an older liboxidnn.so was measured)"
    fi
fi
[ -f "$ROOT/target/release/liboxidnn.so" ] || { log "no target/release/liboxidnn.so"; exit 1; }
rm -f "$OUT/oxidnn/"liboxidnn.so*
cp "$ROOT/target/release/liboxidnn.so" "$OUT/oxidnn/liboxidnn.so.0"
ln -s liboxidnn.so.0 "$OUT/oxidnn/liboxidnn.so"
BOUND_TOOL=""
if [ -x "$ROOT/target/release/oxidnn-bound" ]; then
    cp "$ROOT/target/release/oxidnn-bound" "$OUT/oxidnn/oxidnn-bound"
    BOUND_TOOL=$OUT/oxidnn/oxidnn-bound
fi
OX_COMMIT=$(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(cd "$ROOT" && git status --porcelain -- src Cargo.toml \
        Cargo.lock build.rs 2>/dev/null)" ]; then
    OX_COMMIT="$OX_COMMIT + uncommitted changes in src/"
fi

# ---- 2. oneDNN and the binaries ----------------------------------------------------------
[ -f "$SETUP" ] || { log "oneDNN setup script not found: $SETUP"; exit 1; }
declare -A INC LIB ENV
for v in 3.2 3.13; do
    key=${v//./_}
    vars=$(bash "$SETUP" "$v")
    INC[$v]=$(sed -n "s/^ONEDNN_${key}_INCLUDE=//p" <<<"$vars")
    LIB[$v]=$(sed -n "s/^ONEDNN_${key}_LIB=//p" <<<"$vars")
    ENV[$v]=$(sed -n "s/^ONEDNN_${key}_ENV=//p" <<<"$vars")
done

log "building rnn_bench (oxidnn, oneDNN 3.2, oneDNN 3.13) and peak"
"$CC" "${CFLAGS[@]}" -I"$ROOT/include" "$HERE/rnn_bench.c" -o "$OUT/rnn_bench-oxidnn" \
    -L"$OUT/oxidnn" -Wl,-rpath,"$OUT/oxidnn" -loxidnn -lm -ldl
for v in 3.2 3.13; do
    "$CC" "${CFLAGS[@]}" -I"${INC[$v]}" "$HERE/rnn_bench.c" -o "$OUT/rnn_bench-$v" \
        -L"${LIB[$v]}" -Wl,-rpath-link,"${LIB[$v]}" -Wl,-rpath,"${LIB[$v]}" -ldnnl -lm -ldl
done
"$CC" "${CFLAGS[@]}" -pthread "$HERE/peak.c" -o "$OUT/peak"
"$CC" "${CFLAGS[@]}" -pthread "$HERE/crosscore.c" -o "$OUT/crosscore"
CROSSCORE_BEFORE=$("$OUT/crosscore" | sed -n 's/^CROSSCORE //p')
"$CC" "${CFLAGS[@]}" -pthread -DPEAK_WITH_SGEMM -I"${INC[3.2]}" "$HERE/peak.c" \
    -o "$OUT/peak-sgemm" -L"${LIB[3.2]}" -Wl,-rpath,"${LIB[3.2]}" -ldnnl

# run_lib LIB THREADS ARGS... : one rnn_bench process for LIB (oxidnn|3.2|3.13)
run_lib() {
    local lib=$1 threads=$2 pin=()
    shift 2
    [ "$threads" = 1 ] && pin=(taskset -c 0)
    case "$lib" in
        oxidnn) env OXIDNN_NUM_THREADS="$threads" OMP_NUM_THREADS="$threads" \
                    timeout 900 "${pin[@]}" "$OUT/rnn_bench-oxidnn" "$@" ;;
        3.2) ( . "${ENV[3.2]}"; env OMP_NUM_THREADS="$threads" \
                    timeout 900 "${pin[@]}" "$OUT/rnn_bench-3.2" "$@" ) ;;
        3.13) ( . "${ENV[3.13]}"; env OMP_NUM_THREADS="$threads" \
                    timeout 900 "${pin[@]}" "$OUT/rnn_bench-3.13" "$@" ) ;;
    esac
}

# ---- 3. peak -----------------------------------------------------------------------------
# The batch-1 inference rows' bounds (issue 34): U read at every step as the library splits it,
# plus the layer GEMM with the library's kernel (src/bin/oxidnn-bound.rs; W1's shape by default,
# X7's GRU with --gates 3, the bf16 / int8 rows with their --dt). Lines `BOUND <row> <threads>
# <members> <read_ms> <gemm_ms> <bound_ms> <step_gemm_ms>`.
bounds() {
    local spec w t args pin
    for spec in "W1 2" "W1 1" "X7 2 --gates 3" "W1-bf16 2 --dt bf16" "W1-bf16 1 --dt bf16" \
                "W1-int8 2 --dt int8" "W1-int8 1 --dt int8"; do
        read -r w t args <<<"$spec"
        case " $WORKLOADS " in *" $w "*) ;; *) continue ;; esac
        if [ -z "$BOUND_TOOL" ]; then
            log "no target/release/oxidnn-bound: $w's bound not measured"
            continue
        fi
        pin=()
        [ "$t" = 1 ] && pin=(taskset -c 0)
        # shellcheck disable=SC2086  # $args: words
        OXIDNN_NUM_THREADS=$t "${pin[@]}" "$BOUND_TOOL" $args | sed "s/^BOUND /BOUND $w $t /" \
            || log "oxidnn-bound failed ($w, $t threads)"
    done
}
if [ "$HAS_F32" = 0 ]; then
    # (the bf16 / int8 tables have no peak columns)
    log "no f32 rows: the f32 peaks are not measured"
    wait_quiet
    bounds | tee "$OUT/peaks.txt" >&2
else
    log "measuring the FMA and sgemm peaks"
    wait_quiet
    {
        taskset -c 0 "$OUT/peak" fma 1
        "$OUT/peak" fma 2
        ( . "${ENV[3.2]}"; OMP_NUM_THREADS=1 taskset -c 0 "$OUT/peak-sgemm" sgemm 1024 \
            | sed 's/^PEAK sgemm/PEAK sgemm1/' )
        ( . "${ENV[3.2]}"; OMP_NUM_THREADS=2 "$OUT/peak-sgemm" sgemm 1024 \
            | sed 's/^PEAK sgemm/PEAK sgemm2/' )
        # The GEMM of the peak-target workloads merged over all steps (M = T*N, N = 4*C, K = C):
        # what oneDNN's own sgemm reaches on exactly that product.
        for shape in "W2 3200 2048 512" "W3 800 4096 1024"; do
            read -r w m n k <<<"$shape"
            case " $WORKLOADS " in *" $w "*) ;; *) continue ;; esac
            ( . "${ENV[3.2]}"; OMP_NUM_THREADS=2 "$OUT/peak-sgemm" sgemm "$m" "$n" "$k" \
                | sed "s/^PEAK sgemm/PEAK sgemm_$w/" )
        done
        bounds
    } | tee "$OUT/peaks.txt" >&2
fi

# ---- 4. rounds ---------------------------------------------------------------------------
BENCH_ARGS=(--iters "$ITERS" --min-time "$MIN_TIME" --max-time "$MAX_TIME" --warmup "$WARMUP")
LIBS=(oxidnn 3.2 3.13)
RAW=$OUT/results.txt
: >"$RAW"
"$OUT/rnn_bench-oxidnn" "${SHAPE_ARGS[@]}" --list >"$OUT/workloads.txt"

# one WORKLOAD THREADS ROUND: the three libraries in turn (order rotated per round)
one() {
    local w=$1 threads=$2 round=$3 k lib out rc what=("$1") dt
    # A --shapes name runs as its spec (in its data type).
    if [ -n "${SPEC[$w]:-}" ]; then
        what=(--shape "${SPEC[$w]}")
        dt=$(dt_of "$w")
        [ "$dt" != f32 ] && what=(--dt "$dt" "${what[@]}")
    fi
    for k in 0 1 2; do
        lib=${LIBS[$(( (k + round) % 3 ))]}
        rc=0
        out=$(run_lib "$lib" "$threads" "${BENCH_ARGS[@]}" "${what[@]}" 2>"$OUT/stderr.txt") \
            || rc=$?
        if [ $rc != 0 ] && ! grep -q "^\(RESULT\|SKIPPED\|FAILED\) " <<<"$out"; then
            out="$out"$'\n'"FAILED $w exit_$rc"
        fi
        [ -s "$OUT/stderr.txt" ] && sed "s/^/[$lib] /" "$OUT/stderr.txt" >&2
        while IFS= read -r line; do
            [ -n "$line" ] && printf '%s %s %s %s\n' "$round" "$lib" "$threads" "$line"
        done <<<"$out" | tee -a "$RAW" | grep -v ' # ' >&2 || true
    done
}

for (( r = 1; r <= ROUNDS; r++ )); do
    log "round $r/$ROUNDS"
    for w in $WORKLOADS; do wait_quiet; one "$w" 2 "$r"; done
    for w in $WORKLOADS; do
        case "$w" in W1|W1-bf16|W1-int8) wait_quiet; one "$w" 1 "$r" ;; esac
    done
done

# ---- 5. report ---------------------------------------------------------------------------
{
    echo "command=$CMDLINE"
    echo "date=$START_DATE"
    cpuinfo() { sed -n "s/^$1[[:space:]]*: *//p" /proc/cpuinfo | head -1; }
    echo "vendor=$(cpuinfo vendor_id)"
    echo "model_name=$(cpuinfo 'model name')"
    echo "family=$(cpuinfo 'cpu family')"
    echo "model=$(cpuinfo model)"
    echo "stepping=$(cpuinfo stepping)"
    echo "cpus=$(nproc --all) CPUs = $(lscpu | sed -n 's/^Core(s) per socket: *//p' | head -1) cores x $(lscpu | sed -n 's/^Thread(s) per core: *//p' | head -1) thread(s) per core"
    echo "caches=L2 $(lscpu | sed -n 's/^L2 cache: *//p'), L3 $(lscpu | sed -n 's/^L3 cache: *//p')"
    echo "flags=$(cpuinfo flags | tr ' ' '\n' | grep -x 'avx2\|avx512f\|avx512_bf16\|avx512_vnni\|avx512_fp16\|avx_vnni\|amx_tile\|amx_bf16\|amx_int8' | tr '\n' ' ')"
    echo "oxidnn_isa_cap=${OXIDNN_ISA:-}"
    echo "kernel=$(uname -sr)"
    echo "oxidnn=$OX_COMMIT${OX_NOTE:+ $OX_NOTE}"
    echo "rounds=$ROUNDS"
    echo "quick=$QUICK"
    echo "bench_args=${BENCH_ARGS[*]}"
    echo "load=$LOAD_BEFORE before, $(cut -d' ' -f1-3 /proc/loadavg) after (1, 5, 15 min)"
    echo "crosscore=${CROSSCORE_BEFORE:-?} ns before, $("$OUT/crosscore" | sed -n 's/^CROSSCORE //p') ns after (benchmarks/crosscore.c)"
    echo "quiet=waited ${QUIET_WAITED} s in total for other processes to leave the CPUs alone (< $QUIET_LIMIT CPU busy); $( [ "$QUIET_WORST" = 0 ] && echo "every measurement started on a quiet machine" || echo "some started with up to $QUIET_WORST CPUs busy (waited the maximum $QUIET_MAX s)")"
} >"$OUT/meta.txt"

REPORT_ARGS=(--raw "$RAW" --peaks "$OUT/peaks.txt" --meta "$OUT/meta.txt"
             --workloads "$OUT/workloads.txt")
if [ "$REPORT" = 1 ] && [ -n "$SHAPES_FILE" ]; then
    REPORT_ARGS+=(--md "$HERE/SWEEP.md" --shapes "$SHAPES_FILE")
elif [ "$REPORT" = 1 ]; then
    REPORT_ARGS+=(--md "$ROOT/BENCHMARKS.md" --machine-sections --svg-dir "$HERE")
fi
python3 "$HERE/report.py" "${REPORT_ARGS[@]}"
