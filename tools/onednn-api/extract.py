#!/usr/bin/env python3
"""Writes src/capi/onednn_names.rs: the names and values of every enumeration and integer macro
of oneDNN's C API, read from a real oneDNN's headers.

    python3 tools/onednn-api/extract.py ONEDNN_INCLUDE_DIR > src/capi/onednn_names.rs

(`bash ../shared/tools/onednn-setup.sh 3.13` prints ONEDNN_3_13_INCLUDE.) Only facts are taken:
the headers are preprocessed (comments and layout gone), enumerator names are read from the
`typedef enum { ... } name;` bodies and every value is computed by a C program compiled against
the headers. Macros of the build configuration (dnnl_config.h's runtime choice, BUILD_*), the
version, the non-integer ones (DNNL_RUNTIME_DIM_VAL, ...), DNNL_MAX_NDIMS and function-like ones
are left out:
src/capi/types.rs and cbindgen.toml spell those for oxidnn.
"""
import os
import re
import subprocess
import sys
import tempfile

HEADERS = ["oneapi/dnnl/dnnl.h", "oneapi/dnnl/dnnl_debug.h"]

# macros that are not API constants: include guards, export/deprecation attributes, the build
# configuration and the version (oxidnn states its own), non-integer values, DNNL_MAX_NDIMS
# (a `usize` in Rust, which sizes arrays with it)
SKIP_MACRO = re.compile(
    r"^(ONEAPI_DNNL_.*_H|DNNL_API|DNNL_DEPRECATED|DNNL_HELPER_DLL_\w+|BUILD_\w+|ONEDNN_BUILD_GRAPH"
    r"|DNNL_WITH_SYCL|DNNL_ENABLE_CONCURRENT_EXEC|DNNL_EXPERIMENTAL_\w+|DNNL_(CPU|GPU)_RUNTIME"
    r"|DNNL_CPU_THREADING_RUNTIME|DNNL_GPU_VENDOR|DNNL_VERSION_\w+|DNNL_MEMORY_(NONE|ALLOCATE)"
    r"|DNNL_RUNTIME_(DIM|SIZE|F32|S32)_VAL|DNNL_MAX_NDIMS)$"
)

# One line of documentation per enumeration (ours).
ENUM_DOCS = {
    "dnnl_status_t": "Status of a call.",
    "dnnl_data_type_t": "Element data type.",
    "dnnl_fpmath_mode_t": "Floating-point math mode (implicit down-conversions allowed).",
    "dnnl_accumulation_mode_t": "Accumulation mode attribute.",
    "dnnl_engine_kind_t": "Engine kind.",
    "dnnl_stream_flags_t": "Stream flags.",
    "dnnl_format_kind_t": "Memory format kind.",
    "dnnl_sparse_encoding_t": "Sparse encoding of a memory descriptor.",
    "dnnl_format_tag_t": "Memory format tag: a plain or blocked layout by its letters.",
    "dnnl_prop_kind_t": "Propagation kind.",
    "dnnl_primitive_kind_t": "Primitive kind.",
    "dnnl_alg_kind_t": "Algorithm kind (cell kinds of the RNN primitives among them).",
    "dnnl_normalization_flags_t": "Flags of the normalization primitives.",
    "dnnl_rnn_flags_t": "RNN flags.",
    "dnnl_rnn_direction_t": "RNN direction.",
    "dnnl_scratchpad_mode_t": "Scratchpad ownership.",
    "dnnl_rounding_mode_t": "Rounding mode attribute.",
    "dnnl_quantization_mode_t": "Quantization mode of scales.",
    "dnnl_query_t": "What a query asks for.",
    "dnnl_cpu_isa_t": "CPU instruction set architecture.",
    "dnnl_cpu_isa_hints_t": "CPU ISA hints.",
}

# The Rust type of an enumeration (all are `c_int` but the stream flags, unsigned in C).
ENUM_REPR = {"dnnl_stream_flags_t": "c_uint"}


def preprocess(include):
    src = "".join(f'#include "{h}"\n' for h in HEADERS)
    out = subprocess.run(["gcc", "-E", "-dD", "-P", "-I", include, "-x", "c", "-"], input=src,
                         capture_output=True, text=True, check=True)
    return out.stdout


def enums(text):
    """[(type name, [enumerator names])] in declaration order."""
    found = []
    for m in re.finditer(r"typedef\s+enum\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S):
        body, name = m.group(1), m.group(2)
        names = [re.match(r"\s*(\w+)", e).group(1) for e in body.split(",") if e.strip()]
        found.append((name, names))
    return found


def macros(text):
    """Object-like `dnnl_*`/`DNNL_*` macros of the API, in order."""
    names = []
    for m in re.finditer(r"^#define\s+(\w+)(\(?)", text, re.M):
        name, function_like = m.group(1), m.group(2)
        if function_like or not name.upper().startswith("DNNL_") or SKIP_MACRO.match(name):
            continue
        if name not in names:
            names.append(name)
    return names


def evaluate(include, names):
    """name -> (value, sizeof, signed) for integer constants, computed by the C compiler."""
    lines = ["#include <stdio.h>"] + [f'#include "{h}"' for h in HEADERS] + ["int main(void) {"]
    for n in names:
        lines.append(f'    printf("%s %lld %zu %d\\n", "{n}", (long long)({n}), sizeof({n}),'
                     f" (int)((0 ? ({n}) : -1) < 0));")
    lines += ["    return 0;", "}"]
    with tempfile.TemporaryDirectory() as d:
        c, exe = os.path.join(d, "values.c"), os.path.join(d, "values")
        with open(c, "w") as f:
            f.write("\n".join(lines) + "\n")
        subprocess.run(["gcc", "-std=c99", "-w", "-I", include, c, "-o", exe], check=True)
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    values = {}
    for line in out.splitlines():
        n, v, size, signed = line.split()
        values[n] = (int(v), int(size), signed == "1")
    return values


def rust_int_type(size, signed):
    return {(4, True): "c_int", (4, False): "c_uint", (8, True): "i64", (8, False): "usize"}[
        (size, signed)]


def main():
    include = sys.argv[1]
    text = preprocess(include)
    all_enums = enums(text)
    defines = macros(text)
    values = evaluate(include, [e for _, ns in all_enums for e in ns] + defines)
    out = [
        "//! oneDNN 3.13's enumerations and integer macros: every name and value of its C API.",
        "//!",
        "//! Generated by `tools/onednn-api/extract.py` from oneDNN 3.13's headers (names read,",
        "//! values computed by the C compiler) -- do not edit. Each `c_enum!` becomes an integer",
        "//! typedef plus constants here and a C `typedef enum` in `include/oxidnn.h`; each",
        "//! `c_defines!` line a constant and a `#define` (see `c_enum.rs` and tests/header.rs).",
        "#![allow(non_camel_case_types, non_upper_case_globals)]",
        "",
        "use libc::{c_int, c_uint};",
        "",
    ]
    for name, names in all_enums:
        repr_ = ENUM_REPR.get(name, "c_int")
        out.append("c_enum! {")
        out.append(f"    /// {ENUM_DOCS[name]}")
        out.append(f"    {name}: {repr_} {{")
        for e in names:
            out.append(f"        {e} = {values[e][0]},")
        out.append("    }")
        out.append("}")
        out.append("")
    out.append("c_defines! {")
    for n in defines:
        v, size, signed = values[n]
        out.append(f"    {n}: {rust_int_type(size, signed)} = {v};")
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
