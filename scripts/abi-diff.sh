#!/usr/bin/env bash
# abi-diff.sh — prove that oxidnn's C headers are oneDNN's C API: every name, value, size, offset
# and prototype of a real oneDNN v3's headers (see scripts/lib/abi_diff.py for what is compared).
#
#   scripts/abi-diff.sh [--allow-missing] REAL_ONEDNN_INCLUDE_DIR [OUR_INCLUDE_DIR]
#
# Strict (the default, for oneDNN 3.13, the API we implement): any name either side lacks is an
# error. --allow-missing (an older oneDNN): such names are listed, common ones compared.
# Env: CC (default gcc), ABI_DIFF_KEEP=1 keeps the work directory. Needs python3.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
args=()
if [ "${1:-}" = "--allow-missing" ]; then args+=(--allow-missing); shift; fi
real_inc=${1:?usage: abi-diff.sh [--allow-missing] REAL_INCLUDE_DIR [OUR_INCLUDE_DIR]}
our_inc=${2:-$here/include}
[ -f "$real_inc/oneapi/dnnl/dnnl.h" ] || { echo "abi-diff: no oneapi/dnnl/dnnl.h in $real_inc" >&2; exit 2; }
[ -f "$our_inc/oxidnn.h" ] || { echo "abi-diff: no oxidnn.h in $our_inc" >&2; exit 2; }
exec python3 "$here/scripts/lib/abi_diff.py" "${args[@]}" "$real_inc" "$our_inc"
