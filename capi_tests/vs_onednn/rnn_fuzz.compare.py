#!/usr/bin/env python3
"""Compare two outputs of rnn_fuzz: the real oneDNN's (REFERENCE) and oxidnn's (CANDIDATE).

Usage: rnn_fuzz.compare.py REFERENCE CANDIDATE [--show N]

Per case (rnn_fuzz.c prints `c<i>.status`, then `c<i>.<class>.<tensor>.<dt>[k] <value>`):

- status: the same, or
  - `unimplemented` (3) on oneDNN where oxidnn succeeds: oxidnn may implement what oneDNN
    leaves out (f16 without avx512_fp16, no bias, ...); the values are compared when oneDNN
    has some (rnn_fuzz runs a problem without bias again with a bias of zeros, and f16
    inference again with f32 stand-ins for its f16 tensors, outputs rounded to f16);
  - `unimplemented` on oneDNN, `invalid_arguments` (2) on oxidnn, for a case whose dimensions
    rnn_fuzz made inconsistent: oneDNN checks some data-type support before the dimensions
    (bf16/f16 without bias; 3.2 also f16 training), oxidnn implements those and finds the
    dimensions wrong;
  - success on oneDNN 3.2, `unimplemented` on oxidnn, for GRU with s8 activations: 3.2 accepts
    it, 3.13 answers `unimplemented`, and oxidnn answers as 3.13.
- values, per tensor, with m = max(1, max |reference value| of the tensor):
  - class f32 (and the f32 diff_* tensors of f32 problems): |d| <= 1e-4 * m (different
    summation orders and activation polynomials);
  - class bf16 (and their f32 diff_* tensors): |d| <= 2^-6 * m (a few bf16 ulps of the
    tensor's magnitude, as benchdnn compares low-precision outputs relative to the tensor),
    times max(1, sqrt(T * N) / 8) for the diff weights and bias, which sum T * N rounded
    contributions (a T 4, N 62 LBR-GRU: oneDNN's and oxidnn's 1.7 % apart, oxidnn's the
    nearer to the exact result on the same bf16 values);
  - a bf16 tensor of oxidnn's beyond that tolerance of oneDNN's passes when it is no farther
    from the exact result (oneDNN's w32 run, below) than oneDNN's bf16 tensor is: deep or long
    bf16 recurrences (a vanilla L 3, T 35 backward) carry oneDNN's rounding further from it
    than oxidnn's (diff_bias: 0.034 off the exact result against oxidnn's 0.006);
  - class w32, the f32 run rnn_fuzz makes of every bf16 problem (f32 stand-ins holding the
    same bf16 values and inputs, outputs rounded to bf16: `c<i>.w32_*`): as bf16, oneDNN's
    against oxidnn's;
  - bf16 LSTM with projection: oxidnn's bf16 outputs against oneDNN's w32 run instead of its
    bf16 ones, forward and backward: oneDNN's bf16 brgemm kernels disagree with oneDNN's own
    reference path (`ONEDNN_MAX_CPU_ISA=AVX512_CORE`) and with its f32 run (half of such
    cases off by more than 2^-6 * m), where oxidnn agrees with both (BENCHMARKS.md, W8-bf16);
  - class bf32 (f32 with the bf16 fpmath mode, which lets a library round the GEMMs' operands
    to bf16 or not): as bf16;
  - class f16: |d| <= 2^-8 * m;
  - GRU and AUGRU (not linear-before-reset) in bf16 with a bf16 bias and 32 channels or more:
    oxidnn's bf16 against oneDNN's w32 run likewise: oneDNN's `ref` implementation (which it
    runs for plain weights, and without avx512_core_bf16) disagrees with its brgemm one there,
    in 3.2 and 3.13 (31 channels agree, 32 do not); oxidnn agrees with brgemm and with
    oneDNN's f32 result on the same bf16 values;
  - AUGRU and LBR-AUGRU with `any` weights and a batch of 32 or more, without sequence
    lengths, are not compared: oneDNN's brgemm implementation (3.2 and 3.13, f32 included)
    gets some batches wrong (32, 40, 48, 50, 54 and above; 33 and 49 right), where oxidnn
    agrees with oneDNN run on each sample alone (N = 1). With sequence lengths, rnn_fuzz
    runs oneDNN sample by sample anyway, and those are compared;
  - class i8: u8/s8 tensors within one quantization step everywhere, and at most 10 % of
    their elements (at least 1) off at all; f32 tensors (dequantized states, c) within
    0.05 * m, and at most 20 % of their elements (at least 1) off by more than 1e-4 * m;
  - diff_weights_iter of a left2right problem without src_iter is not compared: oneDNN (3.2
    and 3.13) gets it wrong in about one such case in ten, even at T = 1, where the initial
    state is 0 and so is the exact diff_weights_iter (oxidnn's must then be 0);
  - a pass oneDNN creates and then refuses to execute (3.2: some bf16 LSTMP backward) is not
    compared; one oxidnn refuses to execute fails;
  - the backward pass of T = 1 with SIC != DIC and no src_iter is not compared: oneDNN 3.2
    refuses to execute it (invalid_arguments), 3.13 executes it reading memory it has not
    written (the same case gives 0, denormals or 1e37 from run to run);
  - the backward pass of LSTM with projection, bidirectional sum, DIC > DHC and no src_iter
    is not compared: oneDNN 3.2 gets every diff tensor wrong there, where 3.13 agrees with
    oxidnn;
  - layout_* lines (the strides a data tensor given as `any` resolved to) exactly.
  A label on one side only, a NaN or an infinity the other side lacks, fails.

oneDNN itself may end a run: 3.2 aborts ("double free or corruption") some time after an int8
GRU with a batch of 32 or more (brgemm; seeds 39, 43 and 54, cases 356, 347 and 655 - each
alone runs), and 3.13 crashes (segmentation fault) in some backward passes with a batch of
32 or more: AUGRU at 32, 48, 64 (seed 50 case 2123; `rnn_bench --shape
augru,l2r,train,l1t3mb32sic1slc18dhc1` on 3.13 alone crashes too), GRU with a bidirectional
sum at 57 and 64, not 16 or 32 (seed 72 case 457; `gru,sum,train,l1t2mb57sic10slc40dhc10`).
The listing then stops short, and the comparison reports an unparsable or a missing case.

Prints the first failures (up to --show) with the case's description, then one summary line
"N passed, M failed"; exits 0 when nothing failed and some value was compared, else 1.
Python 3 stdlib only.
"""

import argparse
import math
import re
import sys
from collections import defaultdict

SUCCESS, INVALID, UNIMPLEMENTED = 0, 2, 3
DIMS_BROKEN = re.compile(r"broken: (SIC != DIC|SLC != DIC at L > 1)$")
S8_GRU = re.compile(r"^gru .*; dt src_layer s8 ")
BF16_PROJECTION = re.compile(r"^lstm .* projection .*; dt src_layer bf16 ")
# GRU / AUGRU (not linear-before-reset) in bf16 with a bf16 bias, and its channels
GRU_BF16_BIAS = re.compile(r"^(gru|augru) .* DHC(\d+) .*; dt src_layer bf16 .* bias bf16")
# AUGRU / LBR-AUGRU with `any` weights, and its batch
AUGRU_BATCH = re.compile(r"^(lbr_)?augru .* N(\d+) .*weights any")
L2R_NO_SRC_ITER = re.compile(r"^\S+ training l2r .* no-src_iter ")
# T = 1 lets SIC differ from DIC; rnn_fuzz marks such a case "broken: SIC != DIC"
T1_SIC_NO_SRC_ITER = re.compile(r" T1 .* no-src_iter .*; backward.*; broken: SIC != DIC$")
# LSTMP with a bidirectional sum and no src_iter, and its DHC and DIC
LSTMP_SUM_NO_SRC_ITER = re.compile(
    r"^lstm training sum .* DHC(\d+) DIC(\d+) .*projection .*no-src_iter .*; backward")
LINE = re.compile(r"^(c\d+)\.(\w+)\.(\w+)\.(\w+)\[(\d+)\] (\S+)$")
STATUS = re.compile(
    r"^(c\d+)\.((?:f32_|w32_)?(?:zero_bias_)?|(?:w32_)?(?:bwd_|exec_|bwd_exec_))status (-?\d+)$")
# the statuses of a forward problem, in the order rnn_fuzz tries it (the last one ran)
ATTEMPTS = ("", "zero_bias_", "f32_", "f32_zero_bias_")
DESC = re.compile(r"^# (c\d+): (.*)$")


def parse(path):
    """({"": {case: status}, "zero_bias_": {...}, "f32_": {...}, "f32_zero_bias_": {...},
    "bwd_": {...}, "exec_": {...}, "bwd_exec_": {...}, the same with "w32_"}, {case:
    description}, {case: {(class, tensor, dt): {k: value}}})."""
    status, desc, tensors = defaultdict(dict), {}, defaultdict(lambda: defaultdict(dict))
    with open(path, encoding="utf-8", errors="replace") as f:
        for no, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("onednn_verbose,"):
                continue
            m = LINE.match(line) if line.endswith("]", 0, line.find(" ")) else None
            if m:  # a value, most lines: matched first
                case, cls, tensor, dt, k, v = m.groups()
                tensors[case][(cls, tensor, dt)][int(k)] = float(v)
                continue
            m = DESC.match(line)
            if m:
                desc[m.group(1)] = m.group(2)
                continue
            if line.startswith("#"):
                continue
            m = STATUS.match(line)
            if m:
                status[m.group(2) or ""][m.group(1)] = int(m.group(3))
                continue
            sys.exit(f"rnn_fuzz.compare: {path}:{no}: unparsable line {line!r}")
    return status, desc, tensors


def classify(ref, cand, what):
    """How statuses `ref` (oneDNN) and `cand` (oxidnn) of a case described as `what` relate:
    "same", "beyond" (oxidnn implements what oneDNN does not), "excused" or "fail"."""
    if ref == cand:
        return "same"
    if ref == UNIMPLEMENTED and cand == SUCCESS:
        return "beyond"
    if ref == UNIMPLEMENTED and cand == INVALID and DIMS_BROKEN.search(what):
        return "excused"
    if ref == SUCCESS and cand == UNIMPLEMENTED and S8_GRU.match(what):
        return "excused"
    return "fail"


def off_by(ref, cand):
    if math.isnan(ref) or math.isnan(cand) or math.isinf(ref) or math.isinf(cand):
        return 0.0 if (ref == cand or (math.isnan(ref) and math.isnan(cand))) else math.inf
    return abs(cand - ref)


def worst_off(values, exact):
    """The largest difference between two tensors' values."""
    return max(off_by(exact[k], values[k]) for k in exact)


def check_tensor(cls, tensor, dt, ref, cand, terms=1):
    """None when the candidate tensor matches, else a message; `terms`: how many per-sample,
    per-step contributions a bf16 gradient sums (its rounding errors grow with the root)."""
    if ref.keys() != cand.keys():
        return f"elements differ: {len(ref)} vs {len(cand)}"
    if tensor.startswith("layout_"):
        if ref == cand:
            return None
        return f"strides {list(cand.values())}, oneDNN's {list(ref.values())}"
    m = max([1.0] + [abs(v) for v in ref.values() if math.isfinite(v)])
    diffs = [(k, off_by(ref[k], cand[k])) for k in sorted(ref)]
    worst_k, worst = max(diffs, key=lambda kd: kd[1])
    where = f"worst [{worst_k}]: {ref[worst_k]!r} vs {cand[worst_k]!r}"
    if cls in ("f32", "bf16", "bf32", "f16", "w32"):
        tol = {"f32": 1e-4, "bf16": 2.0**-6, "bf32": 2.0**-6, "f16": 2.0**-8, "w32": 2.0**-6}[cls]
        tol *= m
        if cls in ("bf16", "w32"):
            tol *= max(1.0, math.sqrt(terms) / 8)
        return None if worst <= tol else f"off by {worst:.3g} > {tol:.3g}; {where}"
    n = len(diffs)
    if dt in ("u8", "s8"):
        off = sum(1 for _, d in diffs if d > 0)
        if worst > 1 or off > max(1, n // 10):
            return f"{off} of {n} off, at most {worst:g} steps; {where}"
        return None
    tol, small = 0.05 * m, 1e-4 * m
    off = sum(1 for _, d in diffs if d > small)
    if worst > tol or off > max(1, n // 5):
        return f"{off} of {n} off by > {small:.3g}, worst {worst:.3g} (limit {tol:.3g}); {where}"
    return None


def executed(case, ref_st, cand_st, which, what, failures, ref_which=None):
    """True when both libraries executed the pass (`which`: "exec_" or "bwd_exec_", with a
    run's prefix; oneDNN's `ref_which` where it differs) whose descriptors they created; None
    when oneDNN could not (nothing to compare); False, with a failure, when oxidnn could not."""
    r, c = ref_st[ref_which or which].get(case), cand_st[which].get(case)
    if r is not None:
        return None
    if c is not None:
        failures.append(f"{case}: {which}status {c} where oneDNN executes it ({what})")
        return False
    return True


def compare_case(case, what, ref_t, cand_t, failures, backward, run="", ref_run=None):
    """Compares the forward (or `backward`: diff_*) tensors of one run of a case ("": the
    problem as drawn, "w32_": a bf16 problem's f32 run), oneDNN's from its `ref_run` where that
    differs; returns how many matched, appends the failures."""

    def of(tensors, r):
        return {(k[1], k[2]): k for k in tensors.get(case, {})
                if (k[0] == "w32") == (r == "w32_") and k[1].startswith("diff_") == backward}

    ref_run = run if ref_run is None else ref_run
    ref_k, cand_k = of(ref_t, ref_run), of(cand_t, run)
    # T * N: the contributions a diff weight or bias sums
    tn = re.search(r" T(\d+) N(\d+) ", what)
    sums = int(tn.group(1)) * int(tn.group(2)) if tn else 1
    passed = 0
    for name in sorted(set(ref_k) | set(cand_k)):
        if name not in ref_k or name not in cand_k:
            side = "oneDNN" if name in ref_k else "oxidnn"
            failures.append(f"{case}: {run}{name[0]} only in {side} ({what})")
            continue
        ref, cand = ref_t[case][ref_k[name]], cand_t[case][cand_k[name]]
        cls, (tensor, dt) = cand_k[name][0], name
        if tensor == "diff_weights_iter" and L2R_NO_SRC_ITER.match(what):
            # oneDNN's is wrong there (see the docstring); without src_iter, T = 1 has
            # h_-1 = 0, so the exact answer is 0
            if " T1 " in what and any(v != 0 for v in cand.values()):
                failures.append(f"{case}: diff_weights_iter not 0 with h_-1 = 0 ({what})")
            else:
                passed += 1
            continue
        terms = sums if tensor.startswith(("diff_weights", "diff_bias")) else 1
        msg = check_tensor(cls, tensor, dt, ref, cand, terms)
        exact = ref_t[case].get(("w32", tensor, dt)) if cls == "bf16" and ref_run == run else None
        if msg and exact and exact.keys() == cand.keys() == ref.keys():
            # the two bf16 results apart: oxidnn's passes when it is no farther from the exact
            # result (oneDNN's f32 run on the same bf16 values) than oneDNN's own
            if worst_off(cand, exact) <= worst_off(ref, exact):
                msg = None
        if msg:
            failures.append(f"{case}: {run}{tensor} ({cls}, {dt}): {msg} ({what})")
        else:
            passed += 1
    return passed


def compare_run(case, what, ref_st, cand_st, ref_t, cand_t, failures, run="", ref_run=None):
    """Compares one run (see compare_case) of a case both libraries created: its forward
    outputs, then the backward pass's status and diff tensors. Returns (passed, beyond,
    excused) counts."""
    rr = run if ref_run is None else ref_run
    passed = beyond = excused = 0
    if executed(case, ref_st, cand_st, run + "exec_", what, failures, rr + "exec_") is not True:
        return passed, beyond, excused
    passed += compare_case(case, what, ref_t, cand_t, failures, False, run, rr)
    rb, cb = ref_st[rr + "bwd_"].get(case), cand_st[run + "bwd_"].get(case)
    if rb is None and cb is None:
        return passed, beyond, excused
    second = classify(rb, cb, what)
    if second == "fail":
        failures.append(f"{case}: {run}backward status {cb} where oneDNN returns {rb} ({what})")
    elif rb == SUCCESS and cb == SUCCESS:
        lstmp = LSTMP_SUM_NO_SRC_ITER.match(what)
        if T1_SIC_NO_SRC_ITER.search(what) or (
                lstmp and int(lstmp.group(2)) > int(lstmp.group(1))):
            excused += 1  # oneDNN's backward there: see the docstring
        elif executed(case, ref_st, cand_st, run + "bwd_exec_", what, failures,
                      rr + "bwd_exec_") is True:
            passed += 1 + compare_case(case, what, ref_t, cand_t, failures, True, run, rr)
    else:
        passed += 1
        beyond += second == "beyond"
        excused += second == "excused"
    return passed, beyond, excused


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reference")
    ap.add_argument("candidate")
    ap.add_argument("--show", type=int, default=10)
    args = ap.parse_args()
    ref_st, desc, ref_t = parse(args.reference)
    cand_st, _, cand_t = parse(args.candidate)
    failures, passed, beyond, excused, unchecked = [], 0, 0, 0, 0
    for case in sorted(set(ref_st[""]) | set(cand_st[""]), key=lambda c: int(c[1:])):
        r, c = ref_st[""].get(case), cand_st[""].get(case)
        what = desc.get(case, "")
        first = classify(r, c, what)
        if first == "fail":
            failures.append(f"{case}: status {c} where oneDNN returns {r} ({what})")
            continue
        passed += 1
        beyond += first == "beyond"
        excused += first == "excused"
        # the values come from the last attempt (a zero-bias or f32 retry where there was one)
        for attempt in ATTEMPTS[1:]:
            r, c = ref_st[attempt].get(case, r), cand_st[attempt].get(case, c)
        if r == SUCCESS and c == SUCCESS:
            augru = AUGRU_BATCH.match(what)
            if augru and int(augru.group(2)) >= 32 and " lengths " not in what:
                unchecked += 1
                continue
            # the f32 run of a bf16 problem: its status (the last attempt) on both sides
            rw, cw = (st["w32_zero_bias_"].get(case, st["w32_"].get(case))
                      for st in (ref_st, cand_st))
            gru = GRU_BF16_BIAS.match(what)
            if BF16_PROJECTION.match(what) or (gru and int(gru.group(2)) >= 32):
                # oneDNN's bf16 is wrong there: oxidnn's bf16 against its f32 run on the
                # same bf16 values
                if rw != SUCCESS:
                    unchecked += 1
                    continue
                counts = compare_run(case, what, ref_st, cand_st, ref_t, cand_t, failures,
                                     "", "w32_")
            else:
                counts = compare_run(case, what, ref_st, cand_st, ref_t, cand_t, failures)
            if rw is not None or cw is not None:
                if rw != cw:
                    failures.append(f"{case}: f32 run status {cw} where oneDNN returns {rw} "
                                    f"({what})")
                elif rw == SUCCESS:
                    w32 = compare_run(case, what, ref_st, cand_st, ref_t, cand_t, failures,
                                      "w32_")
                    counts = tuple(a + b for a, b in zip(counts, w32))
            passed += counts[0]
            beyond += counts[1]
            excused += counts[2]
        elif SUCCESS in (r, c) and first == "same":
            second = classify(r, c, what)
            if second == "fail":
                failures.append(
                    f"{case}: with a zero bias, status {c} where oneDNN returns {r} ({what})"
                )
            excused += second == "excused"
    for f in failures[: args.show]:
        print(f)
    if len(failures) > args.show:
        print(f"... and {len(failures) - args.show} more")
    print(f"# {beyond} case(s) oneDNN leaves unimplemented ran on oxidnn; {excused} status "
          f"difference(s) excused (see the docstring); {unchecked} batched AUGRU case(s) (or "
          "bf16 cases without oneDNN's f32 run) not compared")
    print(f"{passed} passed, {len(failures)} failed")
    return 0 if not failures and passed else 1


if __name__ == "__main__":
    sys.exit(main())
