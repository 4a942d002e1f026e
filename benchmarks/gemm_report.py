#!/usr/bin/env python3
"""gemm_report.py - the table of benchmarks/gemm.sh: oxidnn vs oneDNN on dnnl_sgemm,
dnnl_gemm_u8s8s32 and dnnl_gemm_s8s8s32, per case the median over rounds of each run's median time, and the ratio
oxidnn / oneDNN (the faster oneDNN when several ran). With --md, writes it as BENCHMARKS.md's
section "gemm-<kind>" (benchmarks/sections.py keeps the other sections). Standard library only.

Raw lines: `<round> <lib> <threads> <call> <trans> M=.. N=.. K=.. median_ms=.. best_ms=.. ...`.
"""
import argparse
import datetime
import os
import re
import statistics
import sys
from collections import defaultdict

from sections import cpu_model, replace_section

LINE = re.compile(r"^(\d+) (\S+) (\d+) (\S+) (\S+) M=(\d+) N=(\d+) K=(\d+) median_ms=([\d.]+)")


def cpu_flags():
    """The CPU's feature flags (/proc/cpuinfo)."""
    try:
        with open("/proc/cpuinfo") as f:
            return set(next((ln for ln in f if ln.startswith("flags")), "").split())
    except OSError:
        return set()


def kind():
    """(slug suffix, title) from the CPU flags: AMX, AVX-512 or AVX2 machines."""
    flags = cpu_flags()
    if "amx_int8" in flags:
        return "intel-xeon-avx512-amx", "AVX-512 + AMX"
    if "avx512f" in flags:
        return "avx512", "AVX-512"
    return "avx2", "AVX2"


def oxidnn_kernels():
    """The kernels oxidnn runs here (its dispatch: CPU flags capped by OXIDNN_ISA)."""
    flags = cpu_flags()
    order = ["portable", "avx2", "avx512", "amx"]
    cap = os.environ.get("OXIDNN_ISA", "amx").lower()
    cap = order.index(cap) if cap in order else len(order) - 1
    has = [True, {"avx2", "fma"} <= flags, "avx512f" in flags, "amx_int8" in flags]
    isa = max(i for i in range(cap + 1) if has[i])
    f32 = ["portable loops", "AVX2 FMA tiles", "AVX-512 FMA tiles", "AVX-512 FMA tiles"][isa]
    if isa >= 3:
        int8 = "AMX-INT8 tiles (AVX512-VNNI below 3 rows)"
    elif isa >= 2 and {"avx512bw", "avx512_vnni"} <= flags:
        int8 = "AVX512-VNNI"
    elif isa >= 1 and "avx_vnni" in flags:
        int8 = "AVX-VNNI"
    else:
        int8 = "portable loops"
    return f"sgemm on {f32}, u8s8s32 on {int8}"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--raw", required=True)
    p.add_argument("--load", nargs=2, default=["?", "?"])
    p.add_argument("--command", default="benchmarks/gemm.sh")
    p.add_argument("--commit", default="unknown")
    p.add_argument("--onednn-isa", default="unknown")
    p.add_argument("--md")
    a = p.parse_args()
    times = defaultdict(list)  # (call, trans, m, n, k, threads, lib) -> [median_ms]
    cases, libs = [], []
    with open(a.raw) as f:
        for ln in f:
            m = LINE.match(ln.strip())
            if not m:
                continue
            _, lib, thr, call, trans, mm, nn, kk, ms = m.groups()
            case = (call, trans, int(mm), int(nn), int(kk), int(thr))
            if case not in cases:
                cases.append(case)
            if lib not in libs:
                libs.append(lib)
            times[case + (lib,)].append(float(ms))
    onednn = [l for l in libs if l != "oxidnn"]
    if not cases or "oxidnn" not in libs or not onednn:
        sys.exit("gemm_report: no results for oxidnn and a oneDNN in " + a.raw)
    head = "| call | op | M | N | K | threads | oxidnn ms | " + " | ".join(
        f"oneDNN {l} ms" for l in onednn) + " | oxidnn / oneDNN |"
    rows = [head, "|" + "---|" * (head.count("|") - 1)]
    ratios = defaultdict(list)
    for case in cases:
        med = {l: statistics.median(times[case + (l,)]) for l in libs if times[case + (l,)]}
        if "oxidnn" not in med:
            continue
        best = min((med[l] for l in onednn if l in med), default=None)
        ratio = med["oxidnn"] / best if best else float("nan")
        ratios[(case[0], case[5])].append(ratio)
        call, trans, m, n, k, thr = case
        rows.append(f"| {call} | {trans} | {m} | {n} | {k} | {thr} | {med['oxidnn']:.4f} | "
                    + " | ".join(f"{med[l]:.4f}" if l in med else "–" for l in onednn)
                    + f" | {ratio:.2f} |")
    summary = [f"- {call}, {thr} thread(s): geometric mean of the ratios "
               f"{statistics.geometric_mean(r):.2f}, {sum(x <= 1.0 for x in r)} of {len(r)} "
               f"cases at or under 1.0" for (call, thr), r in ratios.items()]
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    slug, title = kind()
    body = [f"## BLAS-like calls: dnnl_sgemm, dnnl_gemm_u8s8s32, dnnl_gemm_s8s8s32 ({title}; "
            f"{cpu_model()}, "
            f"{os.cpu_count()} CPUs)", "",
            f"*Written by `{a.command}` (`benchmarks/gemm_report.py`, "
            "`capi_tests/bench/gemm_bench.c`). Date: " + date
            + f"; commit {a.commit}; load average before {a.load[0]}, after {a.load[1]}.*", "",
            f"Kernels: oxidnn {oxidnn_kernels()}; oneDNN's ISA: {a.onednn_isa}.", "",
            "Row-major `C = A·B` (alpha 1, beta 0; the integer calls with zero offsets), the shapes RNN "
            "users call (M = batch or batch × time rows, N = gates × channels, K = channels) and "
            "three square ones; times are the median over rounds of each run's median; the "
            "ratio is oxidnn's time over the faster oneDNN's (under 1: oxidnn faster).", ""]
    body += summary + [""] + rows
    text = "\n".join(body)
    print(text)
    if a.md:
        replace_section("gemm-" + slug, date, a.commit, text, path=a.md)


if __name__ == "__main__":
    main()
