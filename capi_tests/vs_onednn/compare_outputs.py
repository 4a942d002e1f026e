#!/usr/bin/env python3
"""Compare two outputs of lstm_print (or any "<label> <number>" listing).

Usage: compare_outputs.py REFERENCE CANDIDATE [--rtol R] [--atol A] [--show N]

REFERENCE is the output of the program built against the real oneDNN,
CANDIDATE the output of the same program with oxidnn. Every line is
"<label> <value>"; blank lines, lines starting with '#' (comments, e.g. the
library version) and oneDNN's own "onednn_verbose," lines are ignored.

A value passes when |cand - ref| <= atol or |cand - ref| <= rtol * |ref|
(benchdnn-like f32 check: rtol 1e-5, atol 1e-6 near zero by default).
A label present in only one file, an unparsable line, a NaN or an infinity
that the other side does not have, or a duplicate label, is a failure.

Prints the first mismatches (up to --show), then one summary line
"N passed, M failed"; exits 0 when nothing failed and at least one value
was compared, 1 otherwise (2 for usage errors). Python 3 stdlib only.
"""

import argparse
import math
import sys


def parse(path):
    """Returns ({label: value}, [problems]) for one listing."""
    values = {}
    problems = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        print(f"compare_outputs: cannot read {path}: {e}", file=sys.stderr)
        sys.exit(2)
    for no, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#") or line.startswith("onednn_verbose,"):
            continue
        parts = line.rsplit(None, 1)
        if len(parts) != 2:
            problems.append(f"{path}:{no}: not '<label> <value>': {line!r}")
            continue
        label, text = parts
        try:
            value = float(text)
        except ValueError:
            problems.append(f"{path}:{no}: not a number: {line!r}")
            continue
        if label in values:
            problems.append(f"{path}:{no}: duplicate label {label!r}")
            continue
        values[label] = value
    return values, problems


def close(ref, cand, rtol, atol):
    if math.isnan(ref) or math.isnan(cand):
        return math.isnan(ref) and math.isnan(cand)
    if math.isinf(ref) or math.isinf(cand):
        return ref == cand
    diff = abs(cand - ref)
    return diff <= atol or diff <= rtol * abs(ref)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reference")
    ap.add_argument("candidate")
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--atol", type=float, default=1e-6)
    ap.add_argument("--show", type=int, default=10,
                    help="how many mismatches to print (default 10)")
    args = ap.parse_args()

    ref, ref_problems = parse(args.reference)
    cand, cand_problems = parse(args.candidate)
    messages = ref_problems + cand_problems
    failed = len(messages)
    passed = 0
    worst = (0.0, None)  # largest relative difference among compared values

    for label, r in ref.items():
        if label not in cand:
            failed += 1
            messages.append(f"missing in {args.candidate}: {label}")
            continue
        c = cand[label]
        if close(r, c, args.rtol, args.atol):
            passed += 1
        else:
            failed += 1
            messages.append(f"{label}: reference {r!r}, candidate {c!r}, "
                            f"diff {abs(c - r):.3g}")
        if math.isfinite(r) and math.isfinite(c) and abs(c - r) > args.atol:
            rel = abs(c - r) / max(abs(r), args.atol)
            if rel > worst[0]:
                worst = (rel, label)
    for label in cand:
        if label not in ref:
            failed += 1
            messages.append(f"missing in {args.reference}: {label}")

    for m in messages[: args.show]:
        print(m)
    if len(messages) > args.show:
        print(f"... and {len(messages) - args.show} more")
    if worst[1] is not None:
        print(f"largest relative difference: {worst[0]:.3g} ({worst[1]})")
    if passed + failed == 0:
        print("no values found", file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
