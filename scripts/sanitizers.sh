#!/usr/bin/env bash
# sanitizers.sh — the library itself built with AddressSanitizer and with ThreadSanitizer
# (nightly Rust: -Zsanitizer=address; -Zsanitizer=thread with the standard library rebuilt,
# -Zbuild-std, so its atomics are seen), under C programs built with the same sanitizer:
#   ASan: capi_tests/vs_onednn/rnn_fuzz.c, seed after seed (random problems of every cell, type
#         and layout); catches what valgrind (ctest valgrind_*) does not see, such as overflows
#         of stack arrays;
#   TSan: capi_tests/test_concurrent_execute.c (one primitive executed from 8 threads at once)
#         and benchmarks/rnn_bench.c on workloads large enough for the library's thread team
#         (OXIDNN_NUM_THREADS=2): the team's barriers, work sharing and shared buffers.
#
#   scripts/sanitizers.sh [--asan-only | --tsan-only] [--seeds "1 2 3"] [--cases N]
#                         (defaults: both; seeds 1-5 of 3000 cases each)
#
# Needs `rustup toolchain install nightly --component rust-src` and gcc. Builds into
# target/asan and target/tsan (a few minutes the first time). gcc's own TSan runtime lacks
# functions LLVM's instrumentation calls, so the TSan programs link Rust's runtime instead.
# Exit status 0 when nothing was reported.
set -euo pipefail

seeds="1 2 3 4 5" cases=3000 asan=1 tsan=1
while [ $# -gt 0 ]; do
    case "$1" in
        --asan-only) tsan=0; shift ;;
        --tsan-only) asan=0; shift ;;
        --seeds) seeds=$2; shift 2 ;;
        --cases) cases=$2; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "sanitizers: unknown argument $1 (try --help)" >&2; exit 2 ;;
    esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
triple=$(rustc -vV | sed -n 's/^host: //p')
failed=0

# build_lib NAME RUSTFLAGS [CARGO ARGS...]: the library into target/NAME; prints its directory
build_lib() {
    local name=$1 flags=$2; shift 2
    echo "sanitizers: building liboxidnn with $flags" >&2
    RUSTFLAGS="$flags" CARGO_TARGET_DIR="$root/target/$name" \
        cargo +nightly build --manifest-path "$root/Cargo.toml" --release --lib \
        --target "$triple" "$@" >&2
    local lib=$root/target/$name/$triple/release
    ln -sf liboxidnn.so "$lib/liboxidnn.so.0"
    echo "$lib"
}

# run NAME LOG COMMAND...: runs COMMAND, fails on a nonzero exit or a sanitizer report
run() {
    local name=$1 log=$2; shift 2
    if "$@" >"$log.out" 2>"$log.err" && ! grep -q "Sanitizer" "$log.err"; then
        echo "sanitizers: $name: clean"
    else
        echo "sanitizers: $name FAILED (report: $log.err)"; tail -30 "$log.err"; failed=1
    fi
}

if [ $asan = 1 ]; then
    lib=$(build_lib asan "-Zsanitizer=address")
    out=$root/target/asan
    gcc -std=c99 -O1 -g -fsanitize=address -fno-omit-frame-pointer -I"$root/include" \
        "$root/capi_tests/vs_onednn/rnn_fuzz.c" -o "$out/rnn_fuzz" \
        -L"$lib" -Wl,-rpath,"$lib" -loxidnn -lm -ldl
    for s in $seeds; do
        run "ASan rnn_fuzz seed $s ($cases cases)" "$out/seed-$s" \
            env ASAN_OPTIONS=detect_leaks=1 "$out/rnn_fuzz" --cases "$cases" --seed "$s"
    done
fi

if [ $tsan = 1 ]; then
    lib=$(build_lib tsan "-Zsanitizer=thread" -Zbuild-std)
    out=$root/target/tsan
    rt=$(rustc +nightly --print sysroot)/lib/rustlib/$triple/lib/librustc-nightly_rt.tsan.a
    # tsan_prog SOURCE NAME: SOURCE built with -fsanitize=thread, linked to Rust's runtime
    tsan_prog() {
        gcc -std=c99 -O1 -g -fsanitize=thread -c -I"$root/include" -I"$root/capi_tests" \
            "$1" -o "$out/$2.o"
        gcc -o "$out/$2" "$out/$2.o" -Wl,--whole-archive "$rt" -Wl,--no-whole-archive \
            -L"$lib" -Wl,-rpath,"$lib" -loxidnn -lm -lpthread -ldl -lstdc++ -rdynamic
    }
    tsan_prog "$root/capi_tests/test_concurrent_execute.c" test_concurrent_execute
    tsan_prog "$root/benchmarks/rnn_bench.c" rnn_bench
    run "TSan test_concurrent_execute" "$out/concurrent" \
        env OXIDNN_NUM_THREADS=2 "$out/test_concurrent_execute"
    for w in W1 W1-bf16 W1-int8 W4 W5-bf16 W8-int8 W10 X3; do
        run "TSan rnn_bench $w (2 threads)" "$out/bench-$w" env OXIDNN_NUM_THREADS=2 \
            "$out/rnn_bench" --iters 2 --warmup 1 --min-time 0 --max-time 1 "$w"
    done
fi
exit $failed
