#!/usr/bin/env bash
# asan-fuzz.sh — the library itself built with AddressSanitizer (nightly Rust,
# -Zsanitizer=address) under capi_tests/vs_onednn/rnn_fuzz.c (also ASan-built), seed after seed.
# ctest runs the same program under valgrind on the release library; this catches what valgrind
# does not see (overflows of stack arrays and of neighbouring heap objects inside one block).
#
#   scripts/asan-fuzz.sh [--seeds "1 2 3"] [--cases N]     (defaults: seeds 1-5, 3000 cases each)
#
# Needs `rustup toolchain install nightly` and gcc. Builds into target/asan (about 3 minutes the
# first time). Exit status 0 when every seed ran without an ASan report.
set -euo pipefail

seeds="1 2 3 4 5" cases=3000
while [ $# -gt 0 ]; do
    case "$1" in
        --seeds) seeds=$2; shift 2 ;;
        --cases) cases=$2; shift 2 ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "asan-fuzz: unknown argument $1 (try --help)" >&2; exit 2 ;;
    esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$root/target/asan
triple=$(rustc -vV | sed -n 's/^host: //p')
mkdir -p "$out"

echo "asan-fuzz: building liboxidnn with -Zsanitizer=address ($triple)"
RUSTFLAGS="-Zsanitizer=address" CARGO_TARGET_DIR="$out" \
    cargo +nightly build --manifest-path "$root/Cargo.toml" --release --lib --target "$triple"
lib=$out/$triple/release
ln -sf liboxidnn.so "$lib/liboxidnn.so.0"

gcc -std=c99 -O1 -g -fsanitize=address -fno-omit-frame-pointer -I"$root/include" \
    "$root/capi_tests/vs_onednn/rnn_fuzz.c" -o "$out/rnn_fuzz" \
    -L"$lib" -Wl,-rpath,"$lib" -loxidnn -lm

failed=0
for s in $seeds; do
    if ASAN_OPTIONS=detect_leaks=1 "$out/rnn_fuzz" --cases "$cases" --seed "$s" \
            >"$out/seed-$s.txt" 2>"$out/seed-$s.err"; then
        echo "asan-fuzz: seed $s: $cases cases, clean"
    else
        echo "asan-fuzz: seed $s FAILED (report: $out/seed-$s.err)"; tail -30 "$out/seed-$s.err"
        failed=1
    fi
done
exit $failed
