#!/usr/bin/env python3
"""report.py - turn the raw output of benchmarks/run.sh into a table, BENCHMARKS.md and an SVG
bar chart of the oxidnn/oneDNN time ratios. Python 3 standard library only.

  report.py --raw results.txt --peaks peaks.txt --meta meta.txt --workloads workloads.txt
            [--md FILE [--machine-sections --svg-dir DIR]] [--shapes FILE]

With --machine-sections, FILE (BENCHMARKS.md) keeps one section per machine kind (CPU vendor,
micro-architecture, ISA cap; see `machine_kind`): this run's kind's section is replaced, or
added, and the others are kept as they are; its chart goes to DIR/ratios-<kind>.svg. Without
it, FILE is rewritten whole (a sweep, SWEEP.md).

Raw lines (written by run.sh): `<round> <lib> <threads> <rnn_bench line>` where the rnn_bench
line is `RESULT name median_ms min_ms gflops samples checksum [abs_sum]`, `SKIPPED name status`,
`FAILED name status` or a `#` comment (`# library ...`, `# W1 impl ...`).
Aggregation: per (library, workload, threads) the median over rounds of each run's median;
oneDNN's time is the faster of the 3.2 and 3.13 aggregates.

Rows named `<workload>-bf16` / `<workload>-int8` (rnn_bench's bf16 and int8 data types) make
their own tables: in the machine section, one part per data type after the f32 part (a run
rewrites the parts of the data types it has rows of and keeps the others); in a sweep, a file of
their own (SWEEP-bf16.md beside SWEEP.md).
"""
import argparse
import html
import os
import re
import statistics
import sys
from collections import defaultdict

from sections import (join_parts, merge_sections, old_section, part as part_text,
                      section as section_text, split_parts)

LIBS = ["oxidnn", "3.2", "3.13"]
ONEDNN = ["3.2", "3.13"]
W1_TARGET = 0.8
BOUND_TARGET = 1.25  # issue 34: batch-1 rows within 1.25x of their bound
PEAK_TARGET = {"W2": 88.0, "W3": 88.0}
# The low-precision data types (a row `W2-bf16` is W2 in bf16), and how far two libraries'
# checksums may be apart, relative to the sum of the absolute values: one bf16 ulp (2^-8), one
# u8 quantization step (1/127) on average per element.
LOW_DTS = ["bf16", "int8"]
DT_TOL = {"bf16": 2.0 ** -8, "int8": 1.0 / 127.0}
DT_WHAT = {
    "bf16": "src/dst layer and iter bf16, weights bf16 (the user's `ldigo`/`ldio` in bf16, "
            "reordered into `any`), bias f32, LSTM c-state f32; training rows (W10): "
            "forward_training + backward, every `diff_*` tensor f32",
    "int8": "oneDNN's `u8u8u8u8`, forward inference: src/dst layer and iter u8 (data scale 127, "
            "shift 128), weights s8 reordered from f32 `ldigo`/`ldio` into `any` with the "
            "attribute (`rnn_weights_qparams` per output channel, mask 24; LSTMP "
            "`rnn_weights_projection_qparams`, mask 8), bias and c-state f32",
}
# Rows whose "same output" is known to fail for a reason on oneDNN's side (shown when it fails).
KNOWN_DIFFERENCES = {
    "W8-bf16": "oneDNN's brgemm bf16 LSTMP (AMX and `avx512_core_bf16`, 3.2 and 3.13) disagrees "
               "with oneDNN's own reference path (`ONEDNN_MAX_CPU_ISA=AVX512_CORE`: `ref`) — "
               "already at T = 1 and tiny shapes (t1mb1sic32dhc64dic32) — while oxidnn agrees "
               "with that reference and with the f32 row",
}


def split_dt(name):
    """(workload, data type) of a row name: `W2-bf16` -> ('W2', 'bf16'), `W2` -> ('W2', 'f32')."""
    for dt in LOW_DTS:
        if name.endswith("-" + dt):
            return name[:-len(dt) - 1], dt
    return name, "f32"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--raw", required=True)
    p.add_argument("--peaks", required=True)
    p.add_argument("--meta", required=True)
    p.add_argument("--workloads", required=True)
    p.add_argument("--md")
    p.add_argument("--machine-sections", action="store_true",
                   help="--md keeps one section per machine kind; replace this run's")
    p.add_argument("--svg-dir", help="with --machine-sections: where ratios-<kind>.svg goes")
    p.add_argument("--shapes", help="the run.sh --shapes file the rows come from (a sweep)")
    return p.parse_args()


def read_meta(path):
    meta = {}
    with open(path) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                meta[k] = v
    return meta


def read_peaks(path):
    """{'fma1': gflops, 'fma2': ..., 'sgemm1': ..., 'sgemm2': ..., 'isa': ...,
    'sgemm_W2': ('MxNxK', gflops), ..., 'bound': {('W1', threads): (members, read_ms, gemm_ms,
    bound_ms, step_gemm_ms)}}"""
    peaks = {"bound": {}}
    with open(path) as f:
        for line in f:
            t = line.split()
            if len(t) == 8 and t[0] == "BOUND":
                peaks["bound"][(t[1], int(t[2]))] = (int(t[3]), *map(float, t[4:8]))
            elif len(t) >= 4 and t[0] == "PEAK" and t[1] == "fma":
                peaks["fma" + t[2]] = float(t[3])
                if len(t) > 4:
                    peaks["isa"] = t[4]
            elif len(t) >= 4 and t[0] == "PEAK" and t[1].startswith("sgemm_"):
                # oneDNN's sgemm on a workload's merged GEMM: {'sgemm_W2': (shape, gflops)}
                peaks[t[1]] = (t[2], float(t[3]))
            elif len(t) >= 4 and t[0] == "PEAK" and t[1].startswith("sgemm"):
                peaks[t[1]] = float(t[3])
                peaks["sgemm_size"] = t[2]
    return peaks


def read_workloads(path):
    """[(name, description, gflop)] in the program's order."""
    out = []
    with open(path) as f:
        for line in f:
            t = line.rstrip("\n").split("\t")
            if len(t) == 3:
                out.append((t[0], t[1], float(t[2].split()[0])))
    return out


class Cell:
    """Everything measured for one (library, workload, threads)."""

    def __init__(self):
        self.medians = {}  # round -> median ms
        self.mins = []
        self.checksum = None
        self.abs_sum = None
        self.skipped = None
        self.failed = None
        self.impl = None

    @property
    def ok(self):
        return bool(self.medians)

    @property
    def ms(self):
        return statistics.median(self.medians.values()) if self.medians else None


def read_raw(path):
    cells = defaultdict(Cell)  # (lib, workload, threads) -> Cell
    versions = {}
    rounds = set()
    with open(path) as f:
        for line in f:
            t = line.split()
            if len(t) < 5:
                continue
            rnd, lib, thr, kind = int(t[0]), t[1], int(t[2]), t[3]
            rounds.add(rnd)
            if kind == "#":
                if t[4] == "library":
                    versions[lib] = " ".join(t[5:])
                elif len(t) > 6 and t[5] == "impl":
                    cells[(lib, t[4], thr)].impl = " ".join(t[6:])
                continue
            c = cells[(lib, t[4], thr)]
            if kind == "RESULT" and len(t) >= 10:
                c.medians[rnd] = float(t[5])
                c.mins.append(float(t[6]))
                c.checksum = float(t[9])
                if len(t) >= 11:
                    c.abs_sum = float(t[10])
            elif kind == "SKIPPED":
                c.skipped = " ".join(t[5:])
            elif kind == "FAILED":
                c.failed = " ".join(t[5:])
    return cells, versions, sorted(rounds)


def fmt(x, nd=2):
    return "–" if x is None else f"{x:.{nd}f}"


def fmt_ratio(ratio, target):
    """2 decimals, or 3 when 2 would round a miss onto the target."""
    s = f"{ratio:.2f}"
    return f"{ratio:.3f}" if float(s) <= target < ratio else s


def status_text(c):
    if c is None:
        return "not run"
    if c.skipped:
        return "skipped"
    if c.failed:
        return "FAILED"
    return "no result"


def build_rows(cells, workloads, peaks):
    rows = []
    names = [n for n, _, _ in workloads]

    def order(k):
        base, dt = split_dt(k[0])
        return (names.index(base) if base in names else 99,
                (["f32"] + LOW_DTS).index(dt), -k[1])

    keys = sorted({(w, thr) for (_, w, thr) in cells}, key=order)
    info = {n: (d, g) for n, d, g in workloads}
    for w, thr in keys:
        base, dt = split_dt(w)
        desc, gflop = info.get(base, ("?", None))
        ox = cells.get(("oxidnn", w, thr))
        best_lib, best = None, None
        for lib in ONEDNN:
            c = cells.get((lib, w, thr))
            if c is not None and c.ok and (best is None or c.ms < best.ms):
                best_lib, best = lib, c
        fma = peaks.get(f"fma{thr}")
        sgemm = peaks.get(f"sgemm{thr}")
        r = {
            "w": w, "thr": thr, "desc": desc, "gflop": gflop, "ox": ox, "dt": dt,
            "best_lib": best_lib, "best": best,
            "ox_ms": ox.ms if ox is not None and ox.ok else None,
            "dn_ms": best.ms if best is not None else None,
        }
        r["ratio"] = r["ox_ms"] / r["dn_ms"] if r["ox_ms"] and r["dn_ms"] else None
        # each round's oxidnn against the same round's oneDNN (the row's build): the host's
        # drift between rounds cancels
        paired = [ox.medians[k] / best.medians[k] for k in ox.medians
                  if r["ratio"] is not None and k in best.medians]
        r["paired"] = statistics.median(paired) if paired else None
        r["target"] = W1_TARGET if base == "W1" else 1.0
        r["ox_gf"] = gflop / (r["ox_ms"] * 1e-3) if r["ox_ms"] and gflop else None
        r["dn_gf"] = gflop / (r["dn_ms"] * 1e-3) if r["dn_ms"] and gflop else None
        r["ox_fma"] = 100.0 * r["ox_gf"] / fma if r["ox_gf"] and fma else None
        r["ox_sgemm"] = 100.0 * r["ox_gf"] / sgemm if r["ox_gf"] and sgemm else None
        r["dn_fma"] = 100.0 * r["dn_gf"] / fma if r["dn_gf"] and fma else None
        same = None
        if ox is not None and ox.ok and best is not None:
            a, b = ox.checksum, best.checksum
            scale = best.abs_sum if dt != "f32" else None
            if scale:
                same = abs(a - b) <= DT_TOL[dt] * scale
            else:
                same = abs(a - b) <= 1e-3 * max(1.0, abs(b))
        r["same"] = same
        # the oneDNN builds without a result for this row (e.g. 3.2 rejecting it)
        r["dn_missing"] = [(lib, status_text(cells.get((lib, w, thr)))) for lib in ONEDNN
                           if not (cells.get((lib, w, thr)) and cells[(lib, w, thr)].ok)]
        rows.append(r)
    return rows


def table_md(rows):
    head = ("| workload | shape | threads | oxidnn ms | oneDNN ms | oneDNN build | "
            "ratio oxidnn/oneDNN | target | oxidnn GFLOP/s | % FMA peak | % sgemm peak | "
            "oneDNN GFLOP/s (% FMA peak) | same output |")
    sep = "|" + "|".join(["---"] * 3 + ["---:"] * 2 + ["---"] + ["---:"] * 6 + [":---:"]) + "|"
    out = [head, sep]
    for r in rows:
        if r["ox_ms"] is None:
            ox_ms = status_text(r["ox"])
        else:
            ox_ms = fmt(r["ox_ms"], 3)
        if r["ratio"] is None:
            ratio, met = "–", "–"
        else:
            ratio = f"**{fmt_ratio(r['ratio'], r['target'])}**"
            met = ("✓" if r["ratio"] <= r["target"] else "✗") + f" ≤ {r['target']:.1f}"
        dn = "–" if r["dn_gf"] is None else f"{r['dn_gf']:.0f} ({r['dn_fma']:.0f} %)"
        same = {None: "–", True: "✓", False: "✗ differs"}[r["same"]]
        out.append(
            f"| {r['w']} | {r['desc']} | {r['thr']} | {ox_ms} | {fmt(r['dn_ms'], 3)} | "
            f"{r['best_lib'] or '–'} | {ratio} | {met} | {fmt(r['ox_gf'], 0)} | "
            f"{fmt(r['ox_fma'], 0)} | {fmt(r['ox_sgemm'], 0)} | {dn} | {same} |")
    return "\n".join(out)


def raw_md(cells, rows, rounds):
    head = "| workload | threads | " + " | ".join(
        f"{lib} r{r}" for lib in LIBS for r in rounds) + " | impl (oxidnn / 3.2 / 3.13) |"
    sep = "|" + "|".join(["---", "---"] + ["---:"] * (len(LIBS) * len(rounds)) + ["---"]) + "|"
    out = [head, sep]
    for row in rows:
        vals, impls = [], []
        for lib in LIBS:
            c = cells.get((lib, row["w"], row["thr"]))
            for r in rounds:
                if c is not None and r in c.medians:
                    vals.append(f"{c.medians[r]:.3f}")
                else:
                    vals.append("–" if c is None or c.ok else status_text(c))
            impls.append(c.impl if c is not None and c.impl else "–")
        out.append(f"| {row['w']} | {row['thr']} | " + " | ".join(vals) + " | "
                   + " / ".join(f"`{i}`" for i in impls) + " |")
    return "\n".join(out)


def svg_chart(rows, title):
    bar_w, gap, left, right, top, bottom, plot_h = 46, 22, 62, 96, 48, 84, 300
    n = len(rows)
    width = left + n * (bar_w + gap) + gap + right
    height = top + plot_h + bottom
    ratios = [r["ratio"] for r in rows if r["ratio"] is not None]
    ymax = max([1.5] + [x * 1.15 for x in ratios])
    ymax = ((ymax * 4 + 0.999) // 1) / 4  # round up to 0.25

    def y(v):
        return top + plot_h - plot_h * min(v, ymax) / ymax

    e = html.escape
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
         f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" '
         f'font-size="12">',
         f'<rect width="{width}" height="{height}" fill="white"/>',
         f'<text x="{left}" y="22" font-size="15" font-weight="bold">{e(title)}</text>',
         f'<text x="{left}" y="39" fill="#555">time ratio oxidnn / oneDNN (best of 3.2 and 3.13),'
         f' median; lower is better</text>']
    step = 0.25 if ymax <= 2.5 else 0.5 if ymax <= 5 else 1.0
    v = 0.0
    while v <= ymax + 1e-9:
        yy = y(v)
        s.append(f'<line x1="{left}" y1="{yy:.1f}" x2="{width - right}" y2="{yy:.1f}" '
                 f'stroke="#e5e5e5"/>')
        s.append(f'<text x="{left - 8}" y="{yy + 4:.1f}" text-anchor="end">{v:.2f}</text>')
        v += step
    s.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#333"/>')
    s.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{width - right}" y2="{top + plot_h}" '
             f'stroke="#333"/>')
    for i, r in enumerate(rows):
        x = left + gap + i * (bar_w + gap)
        cx = x + bar_w / 2
        label = r["w"] + ("" if r["thr"] == 2 else f" ({r['thr']}T)")
        s.append(f'<text x="{cx:.1f}" y="{top + plot_h + 18}" text-anchor="middle">'
                 f'{e(label)}</text>')
        s.append(f'<text x="{cx:.1f}" y="{top + plot_h + 33}" text-anchor="middle" '
                 f'fill="#777" font-size="10">{e(r["best_lib"] or "")}</text>')
        if r["ratio"] is None:
            s.append(f'<text x="{cx:.1f}" y="{top + plot_h - 8}" text-anchor="middle" '
                     f'fill="#999" font-size="10">{e(status_text(r["ox"]))}</text>')
            continue
        ratio = r["ratio"]
        color = ("#2e9e44" if ratio <= r["target"] else "#e8a33a" if ratio <= 1.0
                 else "#d64541")
        s.append(f'<rect x="{x}" y="{y(ratio):.1f}" width="{bar_w}" '
                 f'height="{top + plot_h - y(ratio):.1f}" fill="{color}"/>')
        label_y = min(y(ratio), y(r["target"]) if r["target"] < 1.0 else y(ratio)) - 5
        s.append(f'<text x="{cx:.1f}" y="{label_y:.1f}" text-anchor="middle" '
                 f'font-weight="bold">{fmt_ratio(ratio, r["target"])}</text>')
        if r["target"] < 1.0:
            ty = y(r["target"])
            s.append(f'<line x1="{x - 4}" y1="{ty:.1f}" x2="{x + bar_w + 4}" y2="{ty:.1f}" '
                     f'stroke="#333" stroke-width="2" stroke-dasharray="3,2"/>')
    y1 = y(1.0)
    s.append(f'<line x1="{left}" y1="{y1:.1f}" x2="{width - right}" y2="{y1:.1f}" '
             f'stroke="#333" stroke-width="1.5" stroke-dasharray="6,4"/>')
    s.append(f'<text x="{width - right + 6}" y="{y1 + 4:.1f}">1.0 = oneDNN</text>')
    lx, ly = left, top + plot_h + 62
    for color, text, w in [("#2e9e44", "meets its target", 130),
                           ("#e8a33a", "≤ 1.0 but above W1's 0.8", 185),
                           ("#d64541", "slower than oneDNN", 150)]:
        s.append(f'<rect x="{lx}" y="{ly - 10}" width="12" height="12" fill="{color}"/>')
        s.append(f'<text x="{lx + 17}" y="{ly}" font-size="11">{e(text)}</text>')
        lx += w
    s.append(f'<line x1="{lx}" y1="{ly - 4}" x2="{lx + 14}" y2="{ly - 4}" stroke="#333" '
             f'stroke-width="2" stroke-dasharray="3,2"/>')
    s.append(f'<text x="{lx + 19}" y="{ly}" font-size="11">W1 target 0.8</text>')
    s.append(f'<text x="{lx + 120}" y="{ly}" font-size="11" fill="#777">grey: the faster '
             f'oneDNN build</text>')
    s.append("</svg>")
    return "\n".join(s) + "\n"


def bound_md(r, peaks):
    """Issue 34's line for a batch-1 row measured with its bound: both libraries' times
    against it."""
    b = peaks["bound"].get((r["w"], r["thr"]))
    if b is None:
        return None
    members, read, gemm, bound, step_gemm = b
    if bound <= 0:
        return None
    line = (f"- {r['w']} ({r['thr']} thread{'s' if r['thr'] > 1 else ''}) against its batch-1 "
            f"bound: **{bound:.3f} ms** = U read at every step {read:.3f} ms + layer GEMM "
            f"{gemm:.3f} ms (`oxidnn-bound`, {members} thread{'s' if members > 1 else ''}; "
            f"the same steps running the library's step GEMM"
            f"{', h exchanged between the threads,' if members > 1 else ''} instead of the "
            f"plain read: {step_gemm:.3f} ms)")
    if r["ox_ms"] is not None:
        q = r["ox_ms"] / bound
        line += (f"; oxidnn {r['ox_ms']:.3f} ms = **{fmt_ratio(q, BOUND_TARGET)}×** the bound "
                 f"(target ≤ {BOUND_TARGET} — {'met' if q <= BOUND_TARGET else 'NOT met'})")
    if r["dn_ms"] is not None:
        line += f", oneDNN {r['best_lib']} {r['dn_ms']:.3f} ms = {r['dn_ms'] / bound:.2f}×"
    return line


def targets_md(rows, peaks):
    out = []
    for r in rows:
        if r["ratio"] is not None:
            ok = r["ratio"] <= r["target"]
            out.append(f"- {r['w']} ({r['thr']} thread{'s' if r['thr'] > 1 else ''}): ratio "
                       f"{fmt_ratio(r['ratio'], r['target'])} vs target ≤ {r['target']:.1f} — "
                       f"{'met' if ok else 'NOT met'}")
        else:
            out.append(f"- {r['w']} ({r['thr']} thread{'s' if r['thr'] > 1 else ''}): "
                       f"oxidnn {status_text(r['ox'])}")
        bound = bound_md(r, peaks)
        if bound:
            out.append(bound)
        if r["w"] in PEAK_TARGET and r["thr"] == 2 and r["ox_fma"] is not None:
            ok = r["ox_fma"] >= PEAK_TARGET[r["w"]]
            line = (f"- {r['w']}: {r['ox_fma']:.0f} % of the FMA peak vs target ≥ "
                    f"{PEAK_TARGET[r['w']]:.0f} % — {'met' if ok else 'NOT met'}")
            shape, gf = peaks.get(f"sgemm_{r['w']}", (None, None))
            if gf and peaks.get("fma2"):
                line += (f" (oneDNN 3.2's `dnnl_sgemm` on this workload's GEMM merged over all "
                         f"steps, M×N×K = {shape.replace('x', '×')}: {gf:.0f} GFLOP/s, "
                         f"{100.0 * gf / peaks['fma2']:.0f} % of the FMA peak)")
            out.append(line)
    return "\n".join(out)


def machine_kind(meta):
    """(slug, title) of the machine kind a run belongs to: vendor and micro-architecture (what
    the tuning depends on), and oxidnn's ISA cap when one was set."""
    vendor, flags = meta.get("vendor", ""), meta.get("flags", "").split()
    try:
        family = int(meta.get("family", ""))
    except ValueError:
        family = -1
    avx512 = "avx512f" in flags
    if vendor == "GenuineIntel":
        if "amx_tile" in flags:
            kind = ("intel-xeon-avx512-amx",
                    "Intel Xeon (Sapphire Rapids class: AVX-512, AVX512-BF16/VNNI, AMX)")
        elif avx512:
            kind = ("intel-avx512", "Intel (AVX-512, no AMX)")
        else:
            kind = ("intel-avx2", "Intel (AVX2, no AVX-512)")
    elif vendor == "AuthenticAMD":
        zen = {23: "Zen 1/2", 25: "Zen 3/4", 26: "Zen 5"}.get(family, f"family {family}")
        if family == 25:
            zen = "Zen 4" if avx512 else "Zen 3"
        slug = "amd-" + re.sub(r"[^a-z0-9]+", "-", zen.lower()).strip("-")
        line = "AMD EPYC" if "EPYC" in meta.get("model_name", "") else "AMD"
        kind = (slug, f"{line} {zen} ({'AVX-512' if avx512 else 'AVX2'}, no AMX)")
    else:
        name = vendor or "unknown vendor"
        kind = ("cpu-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-"),
                f"{name} ({'AVX-512' if avx512 else 'no AVX-512'})")
    cap = meta.get("oxidnn_isa_cap", "")
    if cap:
        kind = (f"{kind[0]}-oxidnn-{cap}", f"{kind[1]}, oxidnn capped to OXIDNN_ISA={cap}")
    return kind


def kernel_paths(cells):
    """Per library, the implementation names (`dnnl_primitive_desc_query` impl_info_str) its
    rows ran, with how many rows each."""
    out = []
    for lib in LIBS:
        seen = defaultdict(int)
        for (l, _, _), c in cells.items():
            if l == lib and c.impl:
                seen[c.impl] += 1
        if seen:
            names = "; ".join(f"`{i}` ({n} row{'s' if n > 1 else ''})"
                              for i, n in sorted(seen.items(), key=lambda x: -x[1]))
            out.append(f"  - `{lib}`: {names}")
    return "\n".join(out) if out else "  - not reported"




def lp_table_md(rows, dt):
    """The table of a bf16 / int8 part: times, ratio and target, throughput, same output and
    the ISA path (implementation name) each side ran."""
    unit = "GOP/s" if dt == "int8" else "GFLOP/s"
    head = ("| workload | shape | threads | oxidnn ms | oneDNN ms | oneDNN build | "
            f"ratio oxidnn/oneDNN | target | oxidnn {unit} | oneDNN {unit} | same output | "
            "ISA path: oxidnn | ISA path: oneDNN |")
    sep = "|" + "|".join(["---"] * 3 + ["---:"] * 2 + ["---"] + ["---:"] * 4 + [":---:"]
                         + ["---"] * 2) + "|"
    out = [head, sep]
    for r in rows:
        ox_ms = status_text(r["ox"]) if r["ox_ms"] is None else fmt(r["ox_ms"], 3)
        if r["ratio"] is None:
            ratio, met = "–", "–"
        else:
            ratio = f"**{fmt_ratio(r['ratio'], r['target'])}**"
            met = ("✓" if r["ratio"] <= r["target"] else "✗") + f" ≤ {r['target']:.1f}"
        missing = "; ".join(f"{lib} {st}" for lib, st in r["dn_missing"])
        if r["best_lib"]:
            build = r["best_lib"] + (f" (only: {missing})" if missing else "")
        else:
            build = missing or "–"
        same = {None: "–", True: "✓", False: "✗ differs"}[r["same"]]
        if r["same"] is False and r["w"] in KNOWN_DIFFERENCES:
            same += " (below)"
        ox_impl = r["ox"].impl if r["ox"] is not None and r["ox"].impl else "–"
        dn_impl = r["best"].impl if r["best"] is not None and r["best"].impl else "–"
        out.append(
            f"| {r['w']} | {r['desc']} | {r['thr']} | {ox_ms} | {fmt(r['dn_ms'], 3)} | {build} | "
            f"{ratio} | {met} | {fmt(r['ox_gf'], 0)} | {fmt(r['dn_gf'], 0)} | {same} | "
            f"`{ox_impl}` | `{dn_impl}` |")
    return "\n".join(out)


def row_label(r):
    """`W2-bf16`, or `W1-bf16 (1T)` for a row with another thread count than 2."""
    return r["w"] if r["thr"] == 2 else f"{r['w']} ({r['thr']}T)"


def lp_summary(rows):
    """One line: how many rows meet their target, and which do not."""
    rated = [r for r in rows if r["ratio"] is not None]
    miss = [r for r in rated if r["ratio"] > r["target"]]
    line = (f"ratio ≤ 1.0 (W1 ≤ 0.8): met on {len(rated) - len(miss)} of {len(rated)} rows "
            "with both sides")
    if miss:
        line += "; NOT met: " + ", ".join(
            row_label(r) + " " + fmt_ratio(r["ratio"], r["target"]) for r in miss)
    paired = [r for r in rated if r["paired"] is not None]
    if paired:
        line += ("; median of the per-round ratios (each round's oxidnn against the same round's "
                 "oneDNN): " + ", ".join(row_label(r) + f" {r['paired']:.2f}" for r in paired))
    unrated = [r for r in rows if r["ratio"] is None]
    if unrated:
        line += "; no ratio: " + ", ".join(
            f"{r['w']} (oxidnn {fmt(r['ox_ms'], 3) if r['ox_ms'] else status_text(r['ox'])}, "
            f"oneDNN {'; '.join(f'{lib} {st}' for lib, st in r['dn_missing']) or '–'})"
            for r in unrated)
    return line


def lp_body(dt, rows, cells, meta, versions, rounds, h, peaks):
    """The text of a bf16 / int8 part: `h` is its heading level."""
    sub = h + "#"
    commit = meta.get("oxidnn", "")
    libs = "; ".join(f"`{lib}` {versions.get(lib, 'not run')}" for lib in LIBS)
    notes = []
    same_tol = "2⁻⁸ (one bf16 ulp)" if dt == "bf16" else "1/127 (one u8 step)"
    for r in rows:
        if r["same"] is False and r["w"] in KNOWN_DIFFERENCES:
            notes.append(f"- {r['w']}: output differs — {KNOWN_DIFFERENCES[r['w']]}.")
        if r["best_lib"] and r["dn_missing"]:
            notes.append(f"- {r['w']} ({r['thr']} thread{'s' if r['thr'] > 1 else ''}): compared "
                         f"with oneDNN {r['best_lib']} only — "
                         + "; ".join(f"{lib}: {st}" for lib, st in r["dn_missing"]) + ".")
    notes_text = "\n" + "\n".join(notes) + "\n" if notes else ""
    bounds = [b for b in (bound_md(r, peaks) for r in rows) if b]
    bounds_text = "\n".join(bounds) + "\n" if bounds else ""
    return f"""{h} {dt} rows: oxidnn vs oneDNN

- Command: `{meta.get('command', '')}`; date {meta.get('date', '')}; oxidnn commit {commit}
- Data types: {DT_WHAT[dt]} (benchmarks/rnn_bench.c, `--dt {dt}`; rows `<workload>-{dt}`).
- Machine: {meta.get('model_name', '')}; ISA flags: {meta.get('flags', '').strip()}
- Libraries: {libs}; "oneDNN" is the faster of 3.2 and 3.13 per row.
- Threads: 2; rows with threads = 1 run all three under `taskset -c 0` with 1 thread; rounds:
  {meta.get('rounds', '')}; rnn_bench arguments `{meta.get('bench_args', '')}`.
- Background load (the machine is shared): {meta.get('quiet', 'not recorded')}; load average
  {meta.get('load', 'not recorded')}.
- CPU 0 ↔ CPU 1 flag round trip: {meta.get('crosscore', 'not recorded')}.
- ISA path (the implementation name each library reported, `dnnl_primitive_desc_query` of
  `impl_info_str`; per row in the table):
{kernel_paths(cells)}
- Same output: the checksum of dst_layer (diff_src_layer for training; bf16 widened, u8
  dequantized) agrees with oneDNN's within {same_tol} × the sum of its absolute values.
- Targets: {lp_summary(rows)}.
{bounds_text}
{lp_table_md(rows, dt)}
{notes_text}
{sub} {dt} per-round medians (ms)

{raw_md(cells, rows, rounds)}
"""


def main():
    a = parse_args()
    meta = read_meta(a.meta)
    peaks = read_peaks(a.peaks)
    workloads = read_workloads(a.workloads)
    all_cells, versions, rounds = read_raw(a.raw)
    all_rows = build_rows(all_cells, workloads, peaks)
    # f32 rows (the section's main part, as always) and each low-precision data type's
    rows = [r for r in all_rows if r["dt"] == "f32"]
    cells = {k: c for k, c in all_cells.items() if split_dt(k[1])[1] == "f32"}
    low = {dt: [r for r in all_rows if r["dt"] == dt] for dt in LOW_DTS}
    low = {dt: lrows for dt, lrows in low.items() if lrows}
    low_cells = {dt: {k: c for k, c in all_cells.items() if split_dt(k[1])[1] == dt}
                 for dt in low}
    table = table_md(rows)
    slug, kind = machine_kind(meta)

    peak_line = (f"f32 FMA peak ({peaks.get('isa', '?')} intrinsics loop, benchmarks/peak.c): "
                 f"**{fmt(peaks.get('fma1'), 1)} GFLOP/s** on 1 thread, "
                 f"**{fmt(peaks.get('fma2'), 1)} GFLOP/s** on 2 threads; "
                 f"sgemm {peaks.get('sgemm_size', '1024')}³ (oneDNN 3.2 `dnnl_sgemm`): "
                 f"{fmt(peaks.get('sgemm1'), 1)} GFLOP/s on 1 thread, "
                 f"{fmt(peaks.get('sgemm2'), 1)} GFLOP/s on 2 threads.")
    print()
    print(f"{kind} ({slug})")
    if rows:
        print(peak_line)
        print()
        print(table)
        print()
        print(targets_md(rows, peaks))
        print()
    for dt, lrows in low.items():
        print(f"{dt}:")
        print()
        print(lp_table_md(lrows, dt))
        print()
        print(lp_summary(lrows))
        print()
        for b in (bound_md(r, peaks) for r in lrows):
            if b:
                print(b)

    if not a.md:
        return
    svg_rel = None
    if rows and a.machine_sections and a.svg_dir:
        svg = os.path.join(a.svg_dir, f"ratios-{slug}.svg")
        cpu = meta.get("model_name", "")
        title = f"oxidnn vs oneDNN, RNN f32, 2 threads (1T: 1 thread) — {cpu}, {meta.get('date', '')}"
        with open(svg, "w") as f:
            f.write(svg_chart(rows, title))
        print(f"wrote {svg}", file=sys.stderr)
        svg_rel = os.path.relpath(svg, os.path.dirname(os.path.abspath(a.md)))
    lib_lines = "\n".join(f"  - `{lib}`: {versions.get(lib, 'not run')}" for lib in LIBS)
    commit = meta.get("oxidnn", "")
    short_commit = commit.split()[0] if commit else ""
    h = "###" if a.machine_sections else "##"
    section = f"""## {kind}

- Command: `{meta.get('command', '')}`
- Date: {meta.get('date', '')}
- Machine: {meta.get('model_name', '')} ({meta.get('vendor', '')}, family \
{meta.get('family', '')}, model {meta.get('model', '')}, stepping {meta.get('stepping', '')}),
  {meta.get('cpus', '')}, {meta.get('caches', '')}; {meta.get('kernel', '')};
  ISA flags: {meta.get('flags', '').strip()}
- Kernel path (implementation name each library reported, per row in the last table):
{kernel_paths(cells)}
- oxidnn: commit {commit}
- Libraries (`dnnl_version()`, CPU runtime):
{lib_lines}
  - 3.2 = PyPI `onednn-cpu-gomp` 2023.2.0 (GNU OpenMP); 3.13 = PyPI `onednn` 2026.1.0
    (SYCL CPU device, TBB). "oneDNN" below is the faster of the two per workload.
- Threads: 2 (`OXIDNN_NUM_THREADS=2`, `OMP_NUM_THREADS=2`, 3.13/TBB on both CPUs of the
  affinity mask); rows with threads = 1 run all three under `taskset -c 0` with 1 thread.
- Rounds: {meta.get('rounds', '')} (alternating oxidnn / 3.2 / 3.13 per workload, order
  rotated each round); rnn_bench arguments `{meta.get('bench_args', '')}`.
- Background load (the machine is shared): {meta.get('quiet', 'not recorded')}; load average
  {meta.get('load', 'not recorded')}.
- CPU 0 ↔ CPU 1 flag round trip: {meta.get('crosscore', 'not recorded')}.

{peak_line}

{h} Results

{table}

{"![oxidnn / oneDNN time ratios](" + svg_rel + ")" if svg_rel else ""}

{h} Targets (issues 5 and 34)

{targets_md(rows, peaks)}

{h} Per-round medians (ms)

{raw_md(cells, rows, rounds)}
"""
    shapes_line = (f"- Shapes: `{os.path.relpath(a.shapes)}` (rnn_bench `--shape` specs: "
                   "cell, direction, inference or training, benchdnn's dims); each row has "
                   "issue 5's target for every workload (≤ 1.0).\n" if a.shapes else "")
    if a.machine_sections:
        head = f"""# Benchmarks: oxidnn vs oneDNN, RNN primitives

*One section per machine kind, each written by `benchmarks/run.sh` on a machine of that kind, and
one per peer comparison (`benchmarks/vs_openvino.py`, `benchmarks/vs_torch.py`): a run replaces
its own section and keeps the others (do not edit by hand; re-run the script there).*

{{index}}

{METHOD}
"""
        # This run's parts replace their own; the f32 part and the other data types' parts
        # stay as they were when this run has no rows of theirs.
        old = old_section(a.md, slug)
        old_main, parts = split_parts(old[2]) if old else (None, {})
        for dt, lrows in low.items():
            parts[dt] = part_text(dt, meta.get("date", ""), short_commit,
                                  lp_body(dt, lrows, low_cells[dt], meta, versions, rounds, h, peaks))
        if rows:
            main_part, date, sec_commit = section, meta.get("date", ""), short_commit
        elif old:
            main_part, date, sec_commit = old_main, old[0], old[1]
        else:
            main_part = (f"## {kind}\n\n*No f32 run on this machine kind yet "
                         "(`benchmarks/run.sh` writes this part).*\n")
            date, sec_commit = meta.get("date", ""), short_commit
        md = merge_sections(a.md, slug, section_text(slug, date, sec_commit,
                                                     join_parts(main_part, parts, LOW_DTS)),
                            head)
    else:
        md = None
        if rows:
            md = f"""# Sweep: oxidnn vs oneDNN on given shapes

*Generated by `benchmarks/run.sh --shapes` (do not edit by hand; re-run the script).*

{shapes_line}
{section}
{METHOD}"""
        # a sweep's bf16 / int8 rows: a file of their own beside it (SWEEP-bf16.md)
        stem, ext = os.path.splitext(a.md)
        for dt, lrows in low.items():
            path = f"{stem}-{dt}{ext}"
            with open(path, "w") as f:
                f.write(f"""# Sweep: oxidnn vs oneDNN on given shapes, {dt}

*Generated by `benchmarks/run.sh --shapes ... --dt {dt}` (do not edit by hand; re-run the script).*

{shapes_line}
{lp_body(dt, lrows, low_cells[dt], meta, versions, rounds, "##", peaks)}
{METHOD}""")
            print(f"wrote {path}", file=sys.stderr)
    if md is not None:
        with open(a.md, "w") as f:
            f.write(md)
        print(f"wrote {a.md}", file=sys.stderr)


METHOD = """## Method

- `benchmarks/rnn_bench.c` is one C99 source written against oneDNN's C API only, built three
  times: against oxidnn (`-Iinclude -loxidnn`) and against both real oneDNN builds. Per
  workload it creates the primitive descriptor with weights as `any`, reorders the user's
  `ldigo`/`ldio` weights into the layout the primitive chose (untimed), passes src/dst iter
  states (and `_c` for LSTM) in plain `ldnc`, runs warm-up executions, then times each
  execution on its own (`dnnl_primitive_execute` + `dnnl_stream_wait`,
  `clock_gettime(CLOCK_MONOTONIC)`) until it has at least `--iters` samples and `--min-time`
  seconds. Inputs are deterministic: weights, bias and diff_dst uniform in ±0.1 (the vanilla
  RNN's weights_iter in ±min(0.1, 1/√SIC), below), data and states in ±0.5, AUGRU attention
  in [0, 1]. It prints the implementation name each primitive reports
  (`dnnl_primitive_desc_query` of `impl_info_str`: oxidnn's says which ISA path its kernels
  run, e.g. `oxidnn:packed:avx512`).
- ms = median over rounds of each run's median execution time. GFLOP/s = FLOPs / that time.
- FLOPs, summed over layers and directions: `2·T·N·G·DHC·(SLC_l + SIC)` (+ `2·T·N·DHC·DIC`
  for the LSTM projection), G = 4 LSTM, 3 GRU / LBR-GRU / AUGRU, 1 vanilla RNN, SIC = DIC,
  SLC_l = SLC for layer 0 and DIC above; element-wise work not counted. Training rows (W10,
  X1–X6, X9: forward training + backward, timed together) count 3× the forward FLOPs.
- W1–W10 are issue 5's workloads; X1–X9 go beyond its list (training of every cell,
  bidirectional and projection training, batch-1 GRU, a large batch, batch-1 training), with the
  same target (≤ 1.0). Issue 34 adds: the batch-1 inference rows (W1, X7) within 1.25× of
  their bound.
- The batch-1 bound (`target/release/oxidnn-bound`, src/bin/oxidnn-bound.rs, run by run.sh
  beside the peaks for W1 and X7, and with `--dt` for W1-bf16 and W1-int8): a batch-1 step
  must read the recurrent weights U (4 MiB of f32 for W1's C512 LSTM, 2 MiB of bf16, 1 MiB of
  s8; 3 MiB for X7's GRU) from the cache they live in. The bound is (a) a streaming read of U's packed panels, each
  thread of the library's team reading the share of panels the forward driver gives it at
  batch 1, walked in alternate directions, with the team's spin barrier after every step, T·L
  steps (T·L × the median step), plus (b) the merged layer GEMM `x·W + b` over all T·N rows
  with the library's own GEMM kernel of the data type and work split (its fastest
  repetition). The cell's
  element-wise work is not counted, nor the GRU's second step phase and barrier. Beside it, not part of it: the same steps running the
  library's step GEMM `h·U` (each thread writing its units of h, read by all at the next step)
  instead of the plain read.
- % FMA peak uses the FMA peak for the row's thread count; % sgemm peak likewise uses the
  1024³ `dnnl_sgemm` of oneDNN 3.2.
- "same output": the checksum of dst_layer (diff_src_layer for training) after the last execution
  agrees with oneDNN's to 1e-3 relative — a sanity check that both computed the same thing,
  not the conformance test. The vanilla RNN's weights_iter is filled in ±min(0.1, 1/√SIC) so
  that its recurrence is contractive (gain ≈ a·√(SIC/3) = 0.58): with ±0.1 and SIC = 1760
  (DeepSpeech2) the gain is 2.4, tanh(h·U + …) is chaotic, and the ~1e−7 rounding difference
  of two libraries' GEMMs grows ~3× per step — 3e−6 relative at T = 1, 5e−5 at T = 20, 1e−3 at
  T = 30, 0.22 at T = 50 (oxidnn vs oneDNN 3.2, batch 1) — so no two correct libraries'
  checksums could agree; with the bounded fill they agree to ≤ 4e−6 up to T = 200.
- A workload whose primitive descriptor creation returns `dnnl_unimplemented` is reported
  as skipped.
"""


if __name__ == "__main__":
    main()
