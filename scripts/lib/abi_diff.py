#!/usr/bin/env python3
"""Compares oxidnn's C headers with a real oneDNN's: every name, value, size, offset, prototype.

    python3 scripts/lib/abi_diff.py [--allow-missing] REAL_INCLUDE_DIR OUR_INCLUDE_DIR

(scripts/abi-diff.sh runs it.) Both header sets are preprocessed (`cc -E -dD`); only what is
declared in files under the given include directory counts. From that text come the macros
(object- and function-like), enumerations with their enumerators, typedefs, struct fields,
struct tags, variables and functions.

1. Names: for each header of oneDNN's set (oneapi/dnnl/dnnl.h, dnnl_types.h, dnnl_common.h,
   dnnl_common_types.h, dnnl_config.h, dnnl_version.h, dnnl_debug.h), every name the real one
   gives a program must be given by ours, in the same category (an enumerator of the same enum).
   With everything included, ours may add only `oxidnn_`/`OXIDNN_` names and build-configuration
   macros.
2. Values: one C program prints every common macro value (integers with their C type, floats as
   bits, pointers), function-like macro results, enumerator values, enum type sizes and
   signedness, typedef sizes and alignments, struct field offsets and sizes; built against both
   header sets, the outputs must be identical.
3. Prototypes: every function of ours is redeclared, as our header spells it, after the real
   headers: the C compiler rejects any prototype whose types differ.

--allow-missing (an older oneDNN): names one side lacks are listed, not errors, and only common
names are compared (its DNNL_VERSION_MINOR and `*_last` counts are listed). Env: CC (default gcc), ABI_DIFF_KEEP=1 keeps the work directory.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HEADERS = ["dnnl.h", "dnnl_types.h", "dnnl_common.h", "dnnl_common_types.h", "dnnl_config.h",
           "dnnl_version.h", "dnnl_debug.h"]

# The build configuration (dnnl_config.h): which runtimes and primitives a build has. Each build
# states its own, so these names are compared by presence where both have them, never by value;
# macros a oneDNN build adds for its runtime (SYCL, graph) are not required.
CONFIG = re.compile(r"^(DNNL_(CPU|GPU)_RUNTIME|DNNL_CPU_THREADING_RUNTIME|DNNL_GPU_VENDOR"
                    r"|BUILD_\w+|DNNL_VERSION_PATCH|DNNL_VERSION_HASH)$")
OPTIONAL = re.compile(r"^(DNNL_WITH_SYCL|DNNL_WITH_LEVEL_ZERO|DNNL_ENABLE_CONCURRENT_EXEC"
                      r"|ONEDNN_BUILD_GRAPH|DNNL_SYCL_\w+)$")
OURS_ONLY = re.compile(r"^(struct )?(oxidnn_|OXIDNN_|const_oxidnn_)")

CC = os.environ.get("CC", "gcc")


def preprocess(include, header, work):
    src = os.path.join(work, "pp.c")
    with open(src, "w") as f:
        f.write(f'#include "oneapi/dnnl/{header}"\n')
    out = subprocess.run([CC, "-std=c11", "-E", "-dD", "-I", include, src],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"abi-diff: cannot preprocess {header} in {include}:\n{out.stderr}")
    root = os.path.realpath(include) + os.sep
    own, code, macros = False, [], {}
    for line in out.stdout.splitlines():
        m = re.match(r'^# \d+ "(.*)"', line)
        if m:
            own = os.path.realpath(m.group(1)).startswith(root)
            continue
        if not own:
            continue
        m = re.match(r"^#define (\w+)(\([^)]*\))?\s*(.*)$", line)
        if m:
            macros[m.group(1)] = (m.group(2), m.group(3).strip())
        elif not line.startswith("#"):
            code.append(line)
    return macros, " ".join(code)


def declarations(code):
    """Categories of the names declared in preprocessed C text."""
    code = re.sub(r'extern\s+"C"\s*\{', " ", code)
    d = {"enum": {}, "struct": {}, "typedef": set(), "tag": set(), "var": set(), "func": {}}
    # bodies first: enumerators and fields, then each body replaced by `{}`
    def body(m):
        kind, text, name = m.group(1), m.group(2), m.group(3)
        if kind == "enum":
            d["enum"][name] = [re.match(r"\s*(\w+)", e).group(1)
                               for e in text.split(",") if e.strip()]
        else:
            d["struct"][name] = [re.sub(r"\[.*$", "", f).split()[-1].lstrip("*")
                                 for f in text.split(";") if f.strip()]
        return f" typedef {kind} {{}} {name};"
    code = re.sub(r"typedef\s+(enum|struct)\s*\w*\s*\{([^{}]*)\}\s*(\w+)\s*;", body, code)
    code = re.sub(r"union\s*\{[^{}]*\}", "union {}", code)
    for stmt in code.split(";"):
        s = " ".join(stmt.split())
        if not s or s == "}":
            continue
        s = s.lstrip("} ").strip()
        m = re.match(r"^struct (\w+)$", s)
        if m:
            d["tag"].add(m.group(1))
            continue
        if s.startswith("typedef"):
            if re.match(r"^typedef (enum|struct) \{\} ", s):
                continue
            m = re.search(r"(\w+)\s*(\[[^\]]*\])?$", s)
            d["typedef"].add(m.group(1))
            continue
        if s.startswith("static"):
            d["var"].add(re.search(r"(\w+)\s*=", s).group(1))
            continue
        m = re.search(r"(\w+)\s*\(", s)
        if m:
            d["func"][m.group(1)] = s + ";"
    return d


def names(macros, d):
    """Every declared name -> its category (enumerators: `enumerator of <enum>`)."""
    out = {}
    for n, (params, _) in macros.items():
        out[n] = "function-like macro" if params else "macro"
    for e, items in d["enum"].items():
        out[e] = "enum"
        for i in items:
            out[i] = f"enumerator of {e}"
    for s, fields in d["struct"].items():
        out[s] = "struct"
        for f in fields:
            out[f"{s}.{f}"] = "field"
    for t in d["typedef"]:
        out[t] = "typedef"
    for t in d["tag"]:
        out[f"struct {t}"] = "struct tag"
    for v in d["var"]:
        out[v] = "variable"
    for f in d["func"]:
        out[f] = "function"
    return out


def printer(common, macros, d):
    """A C program printing every value, size and offset of the common names."""
    lines = [
        "#include <stdio.h>", "#include <string.h>", "#include <stddef.h>", "#include <stdint.h>",
        '#include "oneapi/dnnl/dnnl.h"', '#include "oneapi/dnnl/dnnl_debug.h"',
        "static void pi(const char *n, long long v) { printf(\"%s = %lld\\n\", n, v); }",
        "static void pu(const char *n, unsigned long long v) { printf(\"%s = %llu\\n\", n, v); }",
        "static void pf(const char *n, float v) { unsigned u; memcpy(&u, &v, 4);"
        " printf(\"%s = float bits %#x\\n\", n, u); }",
        "static void pp(const char *n, const void *v) { printf(\"%s = pointer %p\\n\", n, v); }",
        "#define TYPE(x) _Generic((x), int: \"int\", unsigned: \"unsigned\", long: \"long\","
        " unsigned long: \"unsigned long\", long long: \"long long\", unsigned long long:"
        " \"unsigned long long\", float: \"float\", double: \"double\", void *: \"void *\","
        " default: \"other\")",
        "#define V(x) (printf(\"%s : %s\\n\", #x, TYPE(x)), _Generic((x), float: pf, double: pf,"
        " void *: pp, unsigned: pu, unsigned long: pu, unsigned long long: pu, default: pi)"
        "(#x, (x)))",
        "#define S(t) printf(\"sizeof %s %zu align %zu\\n\", #t, sizeof(t),"
        " offsetof(struct { char c; t x; }, x))",
        "#define E(t) printf(\"enum %s size %zu signed %d\\n\", #t, sizeof(t), (t)-1 < 0)",
        "#define O(t, f) printf(\"offsetof %s.%s %zu size %zu\\n\", #t, #f, offsetof(t, f),"
        " sizeof(((t *)0)->f))",
        "int main(void) {",
    ]
    for n in sorted(common):
        kind = common[n]
        if kind == "macro":
            body = macros[n][1]
            if body and not CONFIG.match(n) and not re.match(r"^(__attribute__|__declspec)", body):
                lines.append(f"    V({n});")
        elif kind == "function-like macro":
            for arg in (0, 1, 7):
                lines.append(f"    V({n}({arg}));")
        elif kind.startswith("enumerator"):
            lines.append(f"    V({n});")
        elif kind == "enum":
            lines.append(f"    E({n}); S({n});")
        elif kind in ("typedef", "struct"):
            lines.append(f"    S({n});")
        elif kind == "field":
            t, f = n.split(".")
            lines.append(f"    O({t}, {f});")
        elif kind == "variable":
            lines.append(f'    printf("sizeof {n} %zu\\n", sizeof({n}));')
    lines += ["    return 0;", "}"]
    return "\n".join(lines) + "\n"


def run_printer(src, include, work, tag):
    c, exe = os.path.join(work, f"print_{tag}.c"), os.path.join(work, f"print_{tag}")
    with open(c, "w") as f:
        f.write(src)
    out = subprocess.run([CC, "-std=c11", "-w", "-I", include, c, "-o", exe],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"abi-diff: the value printer does not build against {include}:\n"
                 f"{out.stderr[:4000]}")
    return subprocess.run([exe], capture_output=True, text=True, check=True).stdout


def real_exports(include):
    """Function names the real library next to `include` exports (C++ ones demangled, without
    their parameter lists)."""
    lib = os.path.join(include, os.pardir, "lib")
    sos = sorted(f for f in os.listdir(lib) if f.startswith("libdnnl.so")) if os.path.isdir(
        lib) else []
    if not sos or not shutil.which("nm"):
        return set()
    out = subprocess.run(["nm", "-D", "--defined-only", "-C", os.path.join(lib, sos[0])],
                         capture_output=True, text=True)
    return {re.sub(r"\(.*$", "", l.split(" ", 2)[-1]) for l in out.stdout.splitlines()}


def main():
    args = sys.argv[1:]
    allow_missing = args[:1] == ["--allow-missing"]
    if allow_missing:
        args = args[1:]
    real_inc, our_inc = args
    work = tempfile.mkdtemp(prefix="oxidnn-abi.")
    status = 0
    try:
        # 1. names, header by header
        full = {}
        for h in HEADERS:
            if not os.path.isfile(os.path.join(real_inc, "oneapi", "dnnl", h)):
                print(f"abi-diff: note: {real_inc} has no oneapi/dnnl/{h}")
                continue
            rm, rc = preprocess(real_inc, h, work)
            om, oc = preprocess(our_inc, h, work)
            rd, od = declarations(rc), declarations(oc)
            rn, on = names(rm, rd), names(om, od)
            full[h] = (rm, rd, rn, om, od, on)
            lacking = sorted(n for n in rn if n not in on and not OPTIONAL.match(n))
            wrong = sorted(f"{n} ({rn[n]} in oneDNN, {on[n]} here)" for n in rn
                           if n in on and rn[n] != on[n])
            if wrong:
                print(f"abi-diff: {h}: names of another kind than oneDNN's: {wrong}")
                status = 1
            if lacking:
                msg = f"abi-diff: {h}: oneDNN declares {len(lacking)} names ours lacks: {lacking}"
                print(msg if not allow_missing else msg.replace("abi-diff:", "abi-diff: note:"))
                status |= 0 if allow_missing else 1
        rm, rd, rn, om, od, on = full["dnnl.h"]
        # the union over the headers dnnl.h does not include (dnnl_debug.h)
        for h, (m2, d2, n2, om2, od2, on2) in full.items():
            rm.update(m2), rn.update(n2), om.update(om2), on.update(on2)
            od["func"].update(od2["func"])
        extra = sorted(n for n in on if n not in rn and not OURS_ONLY.match(n)
                       and not CONFIG.match(n))
        hidden = [n for n in extra if n in real_exports(real_inc)]
        if hidden:
            print("abi-diff: note: oneDNN's library exports these without declaring them"
                  f" (prototypes not compared): {hidden}")
            extra = [n for n in extra if n not in hidden]
        if extra:
            msg = f"abi-diff: names ours declares that oneDNN does not: {extra}"
            print(msg if not allow_missing else msg.replace("abi-diff:", "abi-diff: note:"))
            status |= 0 if allow_missing else 1
        common = {n: k for n, k in on.items() if rn.get(n) == k}
        counts = {}
        for k in common.values():
            k = "enumerator" if k.startswith("enumerator") else k
            counts[k] = counts.get(k, 0) + 1
        print("abi-diff: common names: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
        # 2. values
        src = printer(common, om, od)
        real_out = run_printer(src, real_inc, work, "real")
        our_out = run_printer(src, our_inc, work, "ours")
        r, o = real_out.splitlines(), our_out.splitlines()
        diff = [f"-{a}\n+{b}" for a, b in zip(r, o) if a != b]
        if allow_missing:
            # an older API: its minor version and the `*_last` counts of grown enums differ
            newer = [x for x in diff if re.match(r"^-(DNNL_VERSION_MINOR|\w+_last) ", x)]
            if newer:
                print("abi-diff: note: values of an older API: " + "; ".join(
                    x.replace("\n", " ") for x in newer))
            diff = [x for x in diff if x not in newer]
        if diff:
            print(f"abi-diff: MISMATCH ({len(diff)} lines; - oneDNN, + ours):\n" +
                  "\n".join(diff[:80]))
            status = 1
        else:
            print(f"abi-diff: {len(our_out.splitlines())} values/types/sizes/offsets identical")
        # 3. prototypes
        protos = [s for f, s in sorted(od["func"].items()) if common.get(f) == "function"]
        c = os.path.join(work, "protos.c")
        with open(c, "w") as f:
            f.write('#include "oneapi/dnnl/dnnl.h"\n#include "oneapi/dnnl/dnnl_debug.h"\n')
            f.write("\n".join(protos) + "\n")
        out = subprocess.run([CC, "-std=c11", "-c", "-I", real_inc, c, "-o", c + ".o"],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print("abi-diff: prototypes that differ from oneDNN's:\n" +
                  "\n".join(l for l in out.stderr.splitlines() if "error" in l))
            status = 1
        else:
            print(f"abi-diff: {len(protos)} prototypes agree with oneDNN's")
    finally:
        if os.environ.get("ABI_DIFF_KEEP") == "1":
            print(f"abi-diff: work dir {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"abi-diff: {'OK' if status == 0 else 'FAILED'} against {real_inc}")
    sys.exit(status)


if __name__ == "__main__":
    main()
