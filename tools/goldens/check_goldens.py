#!/usr/bin/env python3
"""Helpers for the LSTM golden files (standard library only).

  check_goldens.py ref DIR
      For every DIR/*.txt: check that the input tensors equal the documented
      deterministic generator, then recompute the outputs with a naive
      float64 LSTM written from the oneDNN documentation's equations and
      report the max abs difference against the oneDNN outputs. Fails if a
      difference exceeds 1e-5.

  check_goldens.py states DIR
      For the vanilla-RNN backward goldens of DIR (tests/goldens/backward)
      in left2right with L = 1 and no src_iter (`*_l2r_l1_nostates`,
      `*_l2r_l1_dstiter`): recompute the forward pass and the gate gradients
      dA_t in float64 and show that oneDNN's diff_weights_iter is
      init + sum_t h_t^T dA_t (each step's own output) where the gradient is
      init + sum_t h_{t-1}^T dA_t (h_{-1} = 0). Fails if oneDNN's value is
      more than 1e-5 from the former.

  check_goldens.py int8 DIR
      For every DIR/*.txt (tests/goldens/int8): check that the recorded
      quantized src_layer is round-half-even(scale*x + shift) saturated to
      u8 (s8), that every integer output is an integer in the type's range,
      and that every dequantized f32 output is (q - shift)/scale for an
      integer q (twice the shift for a bidirectional sum's dst_layer).

  check_goldens.py compare DIR_A DIR_B
      Compare two golden sets made by different oneDNN versions: every
      tensor in every file (the '#' header lines are ignored). Reports the
      max abs and max rel difference and the number of values that are not
      bitwise identical. Fails if the sets hold different cases/tensors/dims.

LSTM semantics used by `ref` (oneDNN, vanilla LSTM, optional peephole P and
projection R):
  gates g = W_layer^T x_t + W_iter^T h_{t-1} + b, gate order i, f, c~, o
  c_t = sigmoid(f + P_f c_{t-1}) * c_{t-1} + sigmoid(i + P_i c_{t-1}) * tanh(c~)
  h_t = sigmoid(o + P_o c_t) * tanh(c_t), then with projection h_t = R^T h_t
  (DIC channels; h_{t-1}, src_iter and dst_iter are DIC wide, c stays DHC)
  Test-mode cases (a `tparams <cscale> <s_i> <s_f> <s_c~> <s_o>` line): the
  activation of gate g is s_g*x and tanh(c_t) in h_t is cscale*c_t.
  right2left runs t = T-1 .. 0 and writes h_t at position t; layers are
  stacked per direction (layer l > 0 of direction d reads layer l-1 of the
  same direction, hence SLC == DHC whenever L > 1); dst_layer of the last
  layer is the concat (l2r first) or the sum of the two directions.
"""
import math
import os
import struct
import sys

_F32 = struct.Struct("f")


def f32(v):
    """Round a Python float to the nearest binary32 value."""
    return _F32.unpack(_F32.pack(v))[0]


def gen_value(seed, i, scale):
    """The documented deterministic input generator, bit-exact with the C code."""
    m = 0xFFFFFFFF
    h = ((i * 2654435761) & m) ^ ((seed * 40503 + 0x9E3779B9) & m)
    h ^= h >> 16
    h = (h * 0x7FEB352D) & m
    h ^= h >> 15
    h = (h * 0x846CA68B) & m
    h ^= h >> 16
    return f32(f32(f32(float(h & 0xFFFF) / 65535.0) - 0.5) * scale)


GEN = [("src_layer", 1, 2.0), ("src_iter", 2, 2.0), ("src_iter_c", 3, 2.0),
       ("weights_layer", 4, 1.0), ("weights_iter", 5, 1.0), ("bias", 6, 1.0),
       ("weights_peephole", 7, 1.0), ("weights_projection", 8, 1.0)]


def parse(path):
    """Parse one golden file into a dict (keys: case, cell, prop, direction,
    dims {name: int}, types {role: type} (low-precision cases),
    tensors {name: (dims, values)})."""
    g = {"tensors": {}, "dims": {}}
    cur = None
    with open(path) as fh:
        for line in fh:
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            if w[0] == "tensor":
                nd = int(w[2])
                cur = (list(map(int, w[3:3 + nd])), [])
                g["tensors"][w[1]] = cur
            elif w[0] == "dims":
                g["dims"] = {k: int(v) for k, v in (x.split("=") for x in w[1:])}
                cur = None
            elif w[0] == "tparams":
                g["tparams"] = [float(v) for v in w[1:]]
                cur = None
            elif w[0] == "types":
                g["types"] = dict(x.split("=") for x in w[1:])
                cur = None
            elif w[0] in ("case", "cell", "prop", "direction", "activation", "alpha"):
                g[w[0]] = w[1]
                cur = None
            elif w[0] == "end":
                cur = None
            else:
                cur[1].extend(f32(float(x)) for x in w)
    return g


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


def ref_lstm(g):
    """Naive float64 LSTM forward; returns {dst_layer, dst_iter, dst_iter_c}."""
    d = g["dims"]
    L, ND, T, N, SLC, DHC = d["L"], d["D"], d["T"], d["N"], d["SLC"], d["DHC"]
    DIC = d.get("DIC", DHC)
    t = g["tensors"]
    x = t["src_layer"][1]
    wl, wi, b = t["weights_layer"][1], t["weights_iter"][1], t["bias"][1]
    peep = t["weights_peephole"][1] if "weights_peephole" in t else None
    proj = t["weights_projection"][1] if "weights_projection" in t else None

    lin = g.get("tparams")

    def act(gi, x):  # the activation of gate gi (sigmoid, or tanh for c~)
        if lin:
            return lin[1 + gi] * x
        return math.tanh(x) if gi == 2 else sigmoid(x)

    def tanh_c(c):
        return lin[0] * c if lin else math.tanh(c)

    def p(l, di, k, o):  # peephole weight of gate row k (i, f, o), or 0
        return peep[((l * ND + di) * 3 + k) * DHC + o] if peep else 0.0

    def project(l, di, ht):  # h~ (DHC) -> h (DIC), or h~ itself
        if not proj:
            return ht
        base = (l * ND + di) * DHC * DIC
        return [sum(ht[i] * proj[base + i * DIC + o] for i in range(DHC)) for o in range(DIC)]

    def state(name, l, di, n, c, width):
        return t[name][1][((l * ND + di) * N + n) * width + c] if name in t else 0.0

    reverse = {"left2right": [False], "right2left": [True],
               "bidirectional_concat": [False, True],
               "bidirectional_sum": [False, True]}[g["direction"]]
    outs, h_last, c_last = [], {}, {}
    for di, rev in enumerate(reverse):
        inp = [[x[(tt * N + n) * SLC:(tt * N + n + 1) * SLC] for n in range(N)]
               for tt in range(T)]
        ic = SLC
        for l in range(L):
            h = [[state("src_iter", l, di, n, c, DIC) for c in range(DIC)] for n in range(N)]
            cs = [[state("src_iter_c", l, di, n, c, DHC) for c in range(DHC)]
                  for n in range(N)]
            out = [None] * T
            for tt in (range(T - 1, -1, -1) if rev else range(T)):
                nh, nc = [], []
                for n in range(N):
                    gates = []
                    for gi in range(4):
                        row = []
                        for o in range(DHC):
                            s = b[((l * ND + di) * 4 + gi) * DHC + o]
                            for i in range(ic):
                                s += inp[tt][n][i] * wl[(((l * ND + di) * ic + i) * 4 + gi) * DHC + o]
                            for i in range(DIC):
                                s += h[n][i] * wi[(((l * ND + di) * DIC + i) * 4 + gi) * DHC + o]
                            row.append(s)
                        gates.append(row)
                    c_new = [act(1, gates[1][o] + p(l, di, 1, o) * cs[n][o]) * cs[n][o]
                             + act(0, gates[0][o] + p(l, di, 0, o) * cs[n][o])
                             * act(2, gates[2][o]) for o in range(DHC)]
                    nh.append(project(l, di, [act(3, gates[3][o] + p(l, di, 2, o) * c_new[o])
                                              * tanh_c(c_new[o]) for o in range(DHC)]))
                    nc.append(c_new)
                h, cs = nh, nc
                out[tt] = h
            h_last[(l, di)], c_last[(l, di)] = h, cs
            inp, ic = out, DIC
        outs.append(inp)

    dst_layer = []
    for tt in range(T):
        for n in range(N):
            if g["direction"] == "bidirectional_concat":
                dst_layer += outs[0][tt][n] + outs[1][tt][n]
            elif g["direction"] == "bidirectional_sum":
                dst_layer += [p + q for p, q in zip(outs[0][tt][n], outs[1][tt][n])]
            else:
                dst_layer += outs[0][tt][n]
    def idx(width):
        return [(l, di, n, c) for l in range(L) for di in range(ND) for n in range(N)
                for c in range(width)]
    return {"dst_layer": dst_layer,
            "dst_iter": [h_last[(l, di)][n][c] for l, di, n, c in idx(DIC)],
            "dst_iter_c": [c_last[(l, di)][n][c] for l, di, n, c in idx(DHC)]}


def golden_files(dirname):
    return sorted(f for f in os.listdir(dirname) if f.endswith(".txt"))


def cmd_ref(dirname):
    worst, bad = 0.0, 0
    for fn in golden_files(dirname):
        g = parse(os.path.join(dirname, fn))
        for name, seed, scale in GEN:
            if name not in g["tensors"]:
                continue
            vals = g["tensors"][name][1]
            want = [gen_value(seed, i, scale) for i in range(len(vals))]
            if vals != want and not (name == "bias" and all(v == 0.0 for v in vals)):
                print(f"{fn}: {name} does not match the documented generator")
                bad += 1
        r = ref_lstm(g)
        m = 0.0
        for k, v in r.items():
            if k in g["tensors"]:
                got = g["tensors"][k][1]
                if len(got) != len(v):
                    print(f"{fn}: {k} has {len(got)} values, expected {len(v)}")
                    bad += 1
                    continue
                m = max([m] + [abs(p - q) for p, q in zip(got, v)])
        worst = max(worst, m)
        print(f"  {fn}: max abs diff vs float64 reference {m:.3g}")
    print(f"reference check: worst max abs diff {worst:.3g}")
    if bad or worst > 1e-5:
        sys.exit(1)


def ref_rnn_bwd(g):
    """Float64 vanilla RNN (L = D = 1, no src_iter): the states h_0..h_T (h_0 = 0) and the gate
    gradients dA_0..dA_{T-1}, each [N][DHC]."""
    d, t = g["dims"], g["tensors"]
    T, N, SLC, H = d["T"], d["N"], d["SLC"], d["DHC"]
    x, w, u, b = (t[k][1] for k in ("src_layer", "weights_layer", "weights_iter", "bias"))
    alpha = float(g.get("alpha", 0))
    act, dact = {
        "relu": (lambda a: a if a > 0 else alpha * a, lambda a, h: 1.0 if a > 0 else alpha),
        "tanh": (math.tanh, lambda a, h: 1.0 - h * h),
        "logistic": (sigmoid, lambda a, h: h * (1.0 - h)),
    }[g["activation"]]
    hs, pre = [[[0.0] * H for _ in range(N)]], []
    for s in range(T):
        a = [[b[j] + sum(x[(s * N + n) * SLC + i] * w[i * H + j] for i in range(SLC))
              + sum(hs[-1][n][i] * u[i * H + j] for i in range(H)) for j in range(H)]
             for n in range(N)]
        pre.append(a)
        hs.append([[act(v) for v in row] for row in a])
    dy = t["diff_dst_layer"][1]
    dh = [t["diff_dst_iter"][1][n * H:(n + 1) * H] if "diff_dst_iter" in t else [0.0] * H
          for n in range(N)]
    da = [None] * T
    for s in reversed(range(T)):
        da[s] = [[(dh[n][j] + dy[(s * N + n) * H + j]) * dact(pre[s][n][j], hs[s + 1][n][j])
                  for j in range(H)] for n in range(N)]
        dh = [[sum(da[s][n][j] * u[i * H + j] for j in range(H)) for i in range(H)]
              for n in range(N)]
    return hs, da


def cmd_states(dirname):
    worst, files = 0.0, 0
    for fn in golden_files(dirname):
        if not (fn.startswith("rnn") and ("_l2r_l1_nostates" in fn or "_l2r_l1_dstiter" in fn)):
            continue
        g = parse(os.path.join(dirname, fn))
        hs, da = ref_rnn_bwd(g)
        H, N, T = g["dims"]["DHC"], g["dims"]["N"], g["dims"]["T"]
        init, got = (g["tensors"][k][1] for k in ("diff_weights_iter_init", "diff_weights_iter"))

        def du(shift):
            return [init[i * H + j] + sum(hs[s + shift][n][i] * da[s][n][j]
                                          for s in range(T) for n in range(N))
                    for i in range(H) for j in range(H)]
        own, grad = (max(abs(p - q) for p, q in zip(got, du(k))) for k in (1, 0))
        worst, files = max(worst, own), files + 1
        print(f"  {fn}: oneDNN vs sum h_t dA_t {own:.3g}, vs the gradient {grad:.3g}")
    print(f"states check: {files} files, worst max abs diff {worst:.3g}")
    if not files or worst > 1e-5:
        sys.exit(1)


def cmd_compare(dir_a, dir_b):
    fa, fb = golden_files(dir_a), golden_files(dir_b)
    if fa != fb:
        sys.exit(f"different case sets: {sorted(set(fa) ^ set(fb))}")
    # [max_abs, max_rel, n_not_bitwise_identical, n_total] for inputs / outputs
    stats = {"inputs": [0.0, 0.0, 0, 0], "outputs": [0.0, 0.0, 0, 0]}
    for fn in fa:
        ga, gb = parse(os.path.join(dir_a, fn)), parse(os.path.join(dir_b, fn))
        for key in ("case", "cell", "prop", "direction", "dims"):
            if ga.get(key) != gb.get(key):
                sys.exit(f"{fn}: different {key}")
        if ga["tensors"].keys() != gb["tensors"].keys():
            sys.exit(f"{fn}: different tensor sets")
        for k, (da, va) in ga["tensors"].items():
            db, vb = gb["tensors"][k]
            if da != db or len(va) != len(vb):
                sys.exit(f"{fn}: {k}: different dims {da} vs {db}")
            st = stats["outputs" if k.startswith("dst_") else "inputs"]
            for p, q in zip(va, vb):
                st[3] += 1
                if p != q:
                    st[2] += 1
                d = abs(p - q)
                st[0] = max(st[0], d)
                if d:
                    st[1] = max(st[1], d / max(abs(p), abs(q)))
    print(f"compared {len(fa)} files ({dir_a} vs {dir_b})")
    for name, (max_abs, max_rel, ndiff, ntotal) in stats.items():
        print(f"  {name}: {ntotal} values, max abs diff {max_abs:.3g}, "
              f"max rel diff {max_rel:.3g}, {ndiff} not bitwise identical")


def cmd_int8(dirname):
    files, bad = 0, 0
    for fn in golden_files(dirname):
        g = parse(os.path.join(dirname, fn))
        t = g["tensors"]
        iter_f32, dst_f32, s8 = (v == 1.0 for v in t["int8_config"][1])
        scale, shift = t["data_qparams"][1]
        lo, hi = (-128, 127) if s8 else (0, 255)
        want = [min(max(round(f32(f32(scale * x) + shift)), lo), hi) for x in t["src_layer"][1]]
        problems = []
        if want != [int(v) for v in t["src_layer_q"][1]]:
            problems.append("src_layer_q")
        for name, is_f32 in (("dst_layer", dst_f32), ("dst_iter", iter_f32)):
            k = 2.0 if name == "dst_layer" and g["direction"] == "bidirectional_sum" else 1.0
            for v in t[name][1]:
                q = v * scale + k * shift if is_f32 else v
                if abs(q - round(q)) > 1e-3 or not (k * lo <= round(q) <= k * hi or is_f32):
                    problems.append(name)
                    break
        files += 1
        if problems:
            bad += 1
            print(f"{fn}: {', '.join(problems)}")
    print(f"int8 check: {files} files, {bad} with problems")
    if bad or not files:
        sys.exit(1)


def main(argv):
    if len(argv) == 3 and argv[1] == "ref":
        cmd_ref(argv[2])
    elif len(argv) == 3 and argv[1] == "states":
        cmd_states(argv[2])
    elif len(argv) == 3 and argv[1] == "int8":
        cmd_int8(argv[2])
    elif len(argv) == 4 and argv[1] == "compare":
        cmd_compare(argv[2], argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
