#!/bin/sh
# Fills fuzz/corpus/ir_loader/ with the committed IRs: every OpenVINO case
# (tests/ov_cases/*/model.xml + model.bin) and every malformed variant
# (tests/ir_malformed/*.xml + .bin), each as XML, then "\xff\xffBIN", then the .bin.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/fuzz/corpus/ir_loader"
mkdir -p "$out"
seed() { # name xml bin
    { cat "$2"; if [ -f "$3" ]; then printf '\377\377BIN'; cat "$3"; fi; } > "$out/$1"
}
for d in "$root"/tests/ov_cases/*/; do
    n=$(basename "$d")
    seed "ov_$n" "$d/model.xml" "$d/model.bin"
done
for x in "$root"/tests/ir_malformed/*.xml; do
    n=$(basename "$x" .xml)
    seed "bad_$n" "$x" "${x%.xml}.bin"
done
echo "$(ls "$out" | wc -l) seeds in $out"
