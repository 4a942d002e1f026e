#!/usr/bin/env bash
# abi-diff.sh — prove that include/oxidnn.h is ABI-compatible with a real oneDNN v3.
#
#   scripts/abi-diff.sh [--allow-missing] REAL_ONEDNN_INCLUDE_DIR [OUR_INCLUDE_DIR]
#
# For every constant (#define / enum value: dnnl_*, DNNL_*), typedef and struct field our header
# defines, a generated C program prints its value, sizeof/alignment or offsetof; the program is
# built once against our headers and once against the real oneDNN headers, and the two outputs
# must be identical. Then every `dnnl_*` prototype of ours is redeclared after the real
# <oneapi/dnnl/dnnl.h>: a C compiler rejects any prototype whose types differ from oneDNN's.
#
# Names we define that the given oneDNN does not have are an error, unless --allow-missing
# (use it for an older oneDNN than the one we implement: those names are then only listed).
# DNNL_VERSION_MINOR/PATCH are not compared (we implement the newest v3 API).
# Env: CC (default gcc), ABI_DIFF_KEEP=1 keeps the work directory.
set -euo pipefail

allow_missing=0
if [ "${1:-}" = "--allow-missing" ]; then allow_missing=1; shift; fi
real_inc=${1:?usage: abi-diff.sh [--allow-missing] REAL_INCLUDE_DIR [OUR_INCLUDE_DIR]}
here=$(cd "$(dirname "$0")/.." && pwd)
our_inc=${2:-$here/include}
cc=${CC:-gcc}
hdr="$our_inc/oxidnn.h"
[ -f "$hdr" ] || { echo "abi-diff: $hdr not found" >&2; exit 2; }
[ -f "$real_inc/oneapi/dnnl/dnnl.h" ] || { echo "abi-diff: no oneapi/dnnl/dnnl.h in $real_inc" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/oxidnn-abi.XXXXXX")
if [ "${ABI_DIFF_KEEP:-0}" = 1 ]; then echo "abi-diff: work dir $work"; else trap 'rm -rf "$work"' EXIT; fi

# ---- what our header defines -------------------------------------------------------------
# object-like macros named dnnl_* / DNNL_* (not the version, not function-like)
grep -E '^#define (dnnl_|DNNL_)[A-Za-z0-9_]+([[:space:]]|$)' "$hdr" \
    | awk '{print $2}' | grep -Ev '^DNNL_VERSION_(MINOR|PATCH)$' | sort -u >"$work/consts"
# macros whose value is a pointer
grep -E '^#define (dnnl_|DNNL_)[A-Za-z0-9_]+[[:space:]].*(void|NULL)' "$hdr" \
    | awk '{print $2}' | sort -u >"$work/ptr_consts"
# typedef names: `typedef ... name;`, `typedef ... name[...];`, `} name;`
{
    grep -E '^typedef [^(]*;$' "$hdr" | sed -E 's/\[[^]]*\];$/;/; s/.*[ *]([A-Za-z_][A-Za-z0-9_]*);$/\1/'
    grep -E '^\} [A-Za-z_][A-Za-z0-9_]*;$' "$hdr" | sed -E 's/^\} ([A-Za-z0-9_]+);$/\1/'
} | grep -E '^(const_)?dnnl_' | sort -u >"$work/types"
# struct fields: "type field" pairs from `typedef struct X { ... } X;`
awk '
    /^typedef struct [A-Za-z0-9_]* *\{$/ { inside = 1; next }
    inside && /^\} [A-Za-z0-9_]+;$/ { name = $2; sub(/;$/, "", name);
        for (i = 1; i <= n; i++) print name, f[i]; n = 0; inside = 0; next }
    inside && /^[ \t]+[A-Za-z_].*;$/ && !/^[ \t]*\*/ {
        line = $0; sub(/;$/, "", line); sub(/\[.*$/, "", line);
        k = split(line, w, /[ \t*]+/); f[++n] = w[k] }
' "$hdr" | grep -E '^dnnl_' >"$work/fields" || true
# dnnl_* function prototypes (cbindgen writes each as one declaration ending in ");")
awk '
    /^[A-Za-z_].*[ *]dnnl_[A-Za-z0-9_]+\(/ && !/^(typedef|#)/ { buf = $0; collecting = 1 }
    collecting && buf != $0 { buf = buf " " $0 }
    collecting && /\);$/ { print buf; collecting = 0 }
' "$hdr" | sed -E 's/[[:space:]]+/ /g' >"$work/protos"
sed -E 's/^.*[ *](dnnl_[A-Za-z0-9_]+)\(.*$/\1/' "$work/protos" >"$work/fnames"

echo "abi-diff: our header defines $(wc -l <"$work/consts") constants, $(wc -l <"$work/types") typedefs," \
     "$(wc -l <"$work/fields") struct fields, $(wc -l <"$work/fnames") dnnl_* functions"

# ---- the value printer ---------------------------------------------------------------------
gen_printer() { # $1 = output .c ; uses $work/{consts,ptr_consts,types,fields} (filtered)
    {
        echo '#include <stdio.h>'
        echo '#include <stddef.h>'
        echo '#include <stdint.h>'
        echo '#include "oneapi/dnnl/dnnl.h"'
        echo '#include "oneapi/dnnl/dnnl_debug.h"'
        echo '#define V(x) printf("value %s %lld\n", #x, (long long)(x))'
        echo '#define P(x) printf("value %s %lld\n", #x, (long long)(intptr_t)(x))'
        echo '#define S(t) printf("sizeof %s %zu align %zu\n", #t, sizeof(t), offsetof(struct { char c; t x; }, x))'
        echo '#define O(t, f) printf("offsetof %s.%s %zu size %zu\n", #t, #f, offsetof(t, f), sizeof(((t *)0)->f))'
        echo 'int main(void) {'
        while read -r c; do
            if grep -qx "$c" "$work/ptr_consts"; then echo "    P($c);"; else echo "    V($c);"; fi
        done <"$work/consts.use"
        while read -r t; do echo "    S($t);"; done <"$work/types.use"
        while read -r t f; do echo "    O($t, $f);"; done <"$work/fields.use"
        echo '    return 0;'
        echo '}'
    } >"$1"
}

cp "$work/consts" "$work/consts.use"
cp "$work/types" "$work/types.use"
cp "$work/fields" "$work/fields.use"
: >"$work/missing"
ok=0
for attempt in 1 2 3 4 5 6 7 8; do
    gen_printer "$work/print.c"
    if "$cc" -std=c99 -w -I "$real_inc" "$work/print.c" -o "$work/print_real" 2>"$work/err_real"; then
        ok=1; break
    fi
    # names the real headers do not declare
    grep -oE "'[A-Za-z0-9_]+' undeclared|unknown type name '[A-Za-z0-9_]+'|‘[A-Za-z0-9_]+’ undeclared|unknown type name ‘[A-Za-z0-9_]+’|has no member named '[A-Za-z0-9_]+'|has no member named ‘[A-Za-z0-9_]+’" \
        "$work/err_real" | grep -oE "['‘][A-Za-z0-9_]+['’]" | tr -d "'‘’" | sort -u >"$work/new_missing" || true
    if [ ! -s "$work/new_missing" ]; then
        echo "abi-diff: the printer does not build against $real_inc:" >&2
        cat "$work/err_real" >&2
        exit 1
    fi
    cat "$work/new_missing" >>"$work/missing"
    grep -vxFf "$work/new_missing" "$work/consts.use" >"$work/t" || true; mv "$work/t" "$work/consts.use"
    grep -vxFf "$work/new_missing" "$work/types.use" >"$work/t" || true; mv "$work/t" "$work/types.use"
    awk 'NR == FNR { m[$1] = 1; next } !($1 in m) && !($2 in m)' "$work/new_missing" "$work/fields.use" >"$work/t" || true
    mv "$work/t" "$work/fields.use"
done
[ $ok = 1 ] || { echo "abi-diff: gave up removing names unknown to $real_inc" >&2; cat "$work/err_real" >&2; exit 1; }
"$cc" -std=c99 -Wall -Wextra -Werror -I "$our_inc" "$work/print.c" -o "$work/print_ours"
"$work/print_real" >"$work/real.txt"
"$work/print_ours" >"$work/ours.txt"

status=0
if ! diff -u "$work/real.txt" "$work/ours.txt" >"$work/diff.txt"; then
    echo "abi-diff: MISMATCH between $real_inc (-) and $our_inc (+):"
    grep -E '^[-+][a-z]' "$work/diff.txt" | grep -vE '^(\+\+\+|---) '
    status=1
else
    echo "abi-diff: $(wc -l <"$work/ours.txt") values/sizes/offsets identical"
fi

# ---- prototypes ------------------------------------------------------------------------------
{
    echo '#include "oneapi/dnnl/dnnl.h"'
    echo '#include "oneapi/dnnl/dnnl_debug.h"'
    echo 'void oxidnn_abi_probe(void);'
    echo 'void oxidnn_abi_probe(void) {'
    sed -E 's/^(.*)$/    (void)\&\1;/' "$work/fnames"
    echo '}'
} >"$work/names.c"
"$cc" -std=c99 -c -I "$real_inc" "$work/names.c" -o "$work/names.o" 2>"$work/err_names" || true
grep -oE "['‘]dnnl_[A-Za-z0-9_]+['’] undeclared" "$work/err_names" | grep -oE "dnnl_[A-Za-z0-9_]+" \
    | sort -u >"$work/missing_fns" || true
# functions oneDNN exports without declaring them in its headers (e.g. benchdnn's hooks, as C++
# symbols): listed, not an error, but their prototypes cannot be compared
real_lib=$(ls "$real_inc"/../lib/libdnnl.so* 2>/dev/null | head -1 || true)
: >"$work/hidden_fns"
if [ -s "$work/missing_fns" ] && [ -n "$real_lib" ] && command -v nm >/dev/null; then
    nm -D --defined-only -C "$real_lib" | sed -E 's/^[0-9a-f]+ [A-Za-z] //; s/\(.*$//' | sort -u >"$work/real_exports"
    grep -xFf "$work/real_exports" "$work/missing_fns" >"$work/hidden_fns" || true
    if [ -s "$work/hidden_fns" ]; then
        echo "abi-diff: note: exported by $(basename "$real_lib") but not declared in its headers" \
             "(prototypes not compared): $(tr '\n' ' ' <"$work/hidden_fns")"
    fi
fi
grep -vxFf "$work/hidden_fns" "$work/missing_fns" >>"$work/missing" || true
{
    echo '#include "oneapi/dnnl/dnnl.h"'
    echo '#include "oneapi/dnnl/dnnl_debug.h"'
    grep -vFf <(sed -E 's/^(.*)$/ \1(/' "$work/missing_fns" | sed '/^ ($/d') "$work/protos" || true
} >"$work/protos.c"
if ! "$cc" -std=c99 -c -I "$real_inc" "$work/protos.c" -o "$work/protos.o" 2>"$work/err_protos"; then
    echo "abi-diff: prototypes that differ from oneDNN's:"
    grep -E "error" "$work/err_protos"
    status=1
else
    echo "abi-diff: $(( $(wc -l <"$work/fnames") - $(wc -l <"$work/missing_fns") )) dnnl_* prototypes agree with oneDNN's"
fi

if [ -s "$work/missing" ]; then
    sort -u "$work/missing" -o "$work/missing"
    if [ $allow_missing = 1 ]; then
        echo "abi-diff: note: not in $real_inc (newer oneDNN API, not compared): $(tr '\n' ' ' <"$work/missing")"
    else
        echo "abi-diff: names we define that $real_inc does not: $(tr '\n' ' ' <"$work/missing")"
        status=1
    fi
fi
[ $status = 0 ] && echo "abi-diff: OK against $real_inc"
exit $status
