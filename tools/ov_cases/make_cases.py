#!/usr/bin/env python3
"""Generates the OpenVINO test cases of the graph layer (tests/ov_cases/).

Run by hand (not in CI), from the repository root:

    python3 -m venv /tmp/ovenv && /tmp/ovenv/bin/pip install openvino==2026.4.1 numpy
    /tmp/ovenv/bin/python tools/ov_cases/make_cases.py            # all cases
    /tmp/ovenv/bin/python tools/ov_cases/make_cases.py gather_     # cases whose name starts so

Each case is a small model built with OpenVINO's Python opset API, saved as IR
(`model.xml` + `model.bin`, weights kept in f32) with its inputs and expected outputs as
`.npy` files and a `case.txt` manifest:

    input<TAB>NAME<TAB>FILE
    output<TAB>NAME<TAB>FILE
    source<TAB>openvino | spec
    note<TAB>free text

Expected outputs come from OpenVINO's CPU plugin with INFERENCE_PRECISION_HINT=f32 (the CPU
plugin defaults to bf16 on AVX-512 machines). Where the plugin departs from OpenVINO's own
specification (it ignores a TensorIterator port's `start` offset and LSTMCell-1's peephole
input), the expected outputs are computed from the specification with numpy instead
(`source spec`), and the case says why in its note. Every case is listed in README.md.
"""

import os
import shutil
import sys

import numpy as np
import openvino as ov
import openvino.opset1 as o1
import openvino.opset2 as o2
import openvino.opset3 as o3
import openvino.opset4 as o4
import openvino.opset5 as o5
import openvino.opset6 as o6
import openvino.opset7 as o7
import openvino.opset8 as o8
import openvino.opset9 as o9
import openvino.opset11 as o11
import openvino.opset12 as o12
import openvino.opset15 as o15
import openvino.opset16 as o16
from openvino.opset4.ops import range as range4

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "ov_cases")
RNG = np.random.default_rng(20260)
CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def rand(*shape, dtype=np.float32, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


def param(name, shape, dtype=np.float32):
    p = o8.parameter(list(shape), dtype, name=name)
    p.output(0).get_tensor().set_names({name})
    return p


def named(node, name, port=0):
    node.output(port).get_tensor().set_names({name})
    return node.output(port)


def const(value):
    return o8.constant(np.asarray(value))


class Case:
    def __init__(self, outputs, params, inputs, note="", expected=None):
        self.model = ov.Model(outputs, params, "case")
        self.inputs = inputs  # name -> array, in parameter order
        self.note = note
        self.expected = expected  # name -> array (spec-computed), or None for OpenVINO


def run_openvino(model, inputs):
    core = ov.Core()
    compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    results = compiled(list(inputs.values()))
    out = {}
    for o in compiled.outputs:
        names = sorted(o.get_names())
        out[names[0]] = np.array(results[o])
    return out


def save(name, c):
    d = os.path.join(ROOT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    xml = os.path.join(d, "model.xml")
    ov.save_model(c.model, xml, compress_to_fp16=False)
    lines = []
    for i, (k, v) in enumerate(c.inputs.items()):
        f = f"in{i}.npy"
        np.save(os.path.join(d, f), v)
        lines.append(f"input\t{k}\t{f}")
    if c.expected is None:
        expected, source = run_openvino(c.model, c.inputs), "openvino"
    else:
        expected, source = c.expected, "spec"
        got = {} if getattr(c, "openvino_crashes", False) else run_openvino(c.model, c.inputs)
        for k, v in expected.items():
            if k not in got:
                continue
            same = got[k].shape == v.shape and np.allclose(got[k], v, rtol=1e-5, atol=1e-6)
            print(f"  {name}: OpenVINO CPU {'agrees' if same else 'DIFFERS'} with the spec on {k}")
    for i, (k, v) in enumerate(expected.items()):
        f = f"out{i}.npy"
        np.save(os.path.join(d, f), v)
        lines.append(f"output\t{k}\t{f}")
    lines.append(f"source\t{source}")
    if c.note:
        lines.append(f"note\t{c.note}")
    with open(os.path.join(d, "case.txt"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    if os.path.exists(os.path.join(d, "model.bin")) and os.path.getsize(os.path.join(d, "model.bin")) == 0:
        os.remove(os.path.join(d, "model.bin"))
    return source


# ----------------------------------------------------------------------------- Gather
GATHER_SEED = {
    1: dict(bd=0, axis=0, idx=[0, 0, 4], data=[1, 2, 3, 4, 5]),
    2: dict(bd=1, axis=1, idx=[[0, 0, 4], [4, 0, 0]], data=[[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]]),
    3: dict(bd=2, axis=2, idx=[[[0, 0, 4], [4, 0, 0]], [[1, 2, 4], [4, 3, 2]]],
            data=[[[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], [[11, 12, 13, 14, 15], [16, 17, 18, 19, 20]]]),
    4: dict(bd=1, axis=2, idx=[[1, 2, 4], [4, 3, 2]], data=np.arange(1, 41).reshape(2, 1, 5, 4)),
    5: dict(bd=-1, axis=1, idx=[[0, 0, 4], [4, 0, 0]], data=[[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]]),
    6: dict(bd=0, axis=0, idx=[0, -2, -1], data=[1, 2, 3, 4, 5]),
    7: dict(bd=0, axis=0, idx=[3, 10, -20], data=[1, 2, 3, 4, 5]),
}


def gather_seed(n):
    s = GATHER_SEED[n]
    data = np.asarray(s["data"], dtype=np.int32)
    idx = np.asarray(s["idx"], dtype=np.int64)
    d = param("data", data.shape, np.int32)
    i = param("indices", idx.shape, np.int64)
    g = o8.gather(d, i, const(np.int64(s["axis"])), batch_dims=s["bd"])
    note = f"Gather-8 specification example {n}"
    expected = None
    if n == 7:
        # The specification's own expected output for out-of-range indices.
        expected = {"y": np.array([4, 0, 0], dtype=np.int32)}
        note += (" (expected output as written in the specification: OpenVINO's CPU plugin returns an "
                 "unspecified value for index 10 instead of 0)")
    return Case([named(g, "y")], [d, i], {"data": data, "indices": idx}, note, expected)


for _n in GATHER_SEED:
    case(lambda n=_n: (f"gather8_seed_example{n}", gather_seed(n)))


@case
def gather_scalar_index_i32_neg_axis():
    d = param("data", [3, 4, 5])
    g = o8.gather(d, const(np.int32(-2)), const(np.int32(-1)), batch_dims=0)
    return "gather8_scalar_index_i32_neg_axis", Case([named(g, "y")], [d], {"data": rand(3, 4, 5)},
                                                     "scalar i32 index -2, axis -1")


@case
def gather_batch_dims_f32():
    d = param("data", [2, 3, 4, 5])
    i = param("indices", [2, 3, 6], np.int32)
    g = o8.gather(d, i, const(np.int64(2)), batch_dims=-1)
    idx = RNG.integers(-6, 6, size=(2, 3, 6)).astype(np.int32)
    return "gather8_batch_dims_neg_out_of_range", Case(
        [named(g, "y")], [d, i], {"data": rand(2, 3, 4, 5), "indices": idx},
        "batch_dims -1 (= 2), axis 2, indices in [-6, 5] over a dim of 4: some out of range")


@case
def gather_v1():
    d = param("data", [4, 3])
    g = o1.gather(d, const(np.array([[3, 0], [1, 1]], np.int64)), const(np.int64(0)))
    return "gather1_matrix_indices", Case([named(g, "y")], [d], {"data": rand(4, 3)}, "Gather-1")


@case
def gather_v7():
    d = param("data", [2, 5, 3])
    g = o7.gather(d, const(np.array([[4, 0], [2, 2]], np.int32)), const(np.int64(1)), batch_dims=1)
    return "gather7_batch_dims", Case([named(g, "y")], [d], {"data": rand(2, 5, 3)}, "Gather-7 batch_dims 1")


# ----------------------------------------------------------------------------- Broadcast
@case
def bcast_seed1():
    d = param("data", [16, 1, 1])
    b = o1.broadcast(d, const(np.array([1, 16, 50, 50], np.int64)), mode="numpy")
    return "broadcast1_seed_numpy", Case([named(b, "y")], [d], {"data": rand(16, 1, 1)},
                                         "Broadcast-1 specification example 1 (numpy)")


@case
def bcast_seed2():
    d = param("data", [16])
    b = o1.broadcast(d, const(np.array([1, 16, 50, 50], np.int64)), const(np.array([1], np.int64)), mode="explicit")
    return "broadcast1_seed_explicit_c", Case([named(b, "y")], [d], {"data": rand(16)},
                                              "Broadcast-1 specification example 2 (explicit, axes_mapping [1])")


@case
def bcast_seed3():
    d = param("data", [50, 50])
    b = o1.broadcast(d, const(np.array([1, 50, 50, 16], np.int64)), const(np.array([1, 2], np.int64)), mode="explicit")
    return "broadcast1_seed_explicit_hw", Case([named(b, "y")], [d], {"data": rand(50, 50)},
                                               "Broadcast-1 specification example 3 (explicit, axes_mapping [1, 2])")


@case
def bcast3_bidirectional():
    d = param("data", [3, 1, 4], np.int32)
    b = o3.broadcast(d, const(np.array([2, 1, 5, 1], np.int64)), broadcast_spec="BIDIRECTIONAL")
    return "broadcast3_bidirectional", Case([named(b, "y")], [d],
                                            {"data": RNG.integers(-9, 9, (3, 1, 4)).astype(np.int32)},
                                            "Broadcast-3 bidirectional: [3,1,4] with [2,1,5,1] -> [2,3,5,4]")


@case
def bcast3_numpy():
    d = param("data", [1, 3])
    b = o3.broadcast(d, const(np.array([4, 3], np.int32)))
    return "broadcast3_numpy_i32_target", Case([named(b, "y")], [d], {"data": rand(1, 3)}, "Broadcast-3 numpy")


# ----------------------------------------------------------------------------- If
def if_seed(cond_value, cond_shape):
    c = param("cond", cond_shape, np.bool_)
    x, y, z = param("x", [2, 4]), param("y", [2, 4]), param("z", [2, 4])
    tx, tz = o8.parameter([2, 4], np.float32, name="add_x"), o8.parameter([2, 4], np.float32, name="add_z")
    then_body = ov.Model([o8.result(o8.add(tx, tz))], [tx, tz], "then")
    ex, ew = o8.parameter([2, 4], np.float32, name="add_x"), o8.parameter([2, 4], np.float32, name="add_w")
    else_body = ov.Model([o8.result(o8.add(ex, ew))], [ex, ew], "else")
    i = o8.if_op(c)
    i.set_then_body(then_body)
    i.set_else_body(else_body)
    i.set_input(x.output(0), tx, ex)
    i.set_input(y.output(0), tz, None)
    i.set_input(z.output(0), None, ew)
    out = i.set_output(then_body.get_results()[0], else_body.get_results()[0])
    inputs = {"cond": np.array(cond_value, dtype=np.bool_).reshape(cond_shape), "x": rand(2, 4), "y": rand(2, 4), "z": rand(2, 4)}
    return Case([named(out.get_node(), "y_out")], [c, x, y, z], inputs,
                f"If-8 specification example (then: x+y, else: x+z), cond {cond_value} of shape {cond_shape}")


case(lambda: ("if8_seed_true_scalar", if_seed(True, [])))
case(lambda: ("if8_seed_false_scalar", if_seed(False, [])))
case(lambda: ("if8_seed_true_1d", if_seed(True, [1])))
case(lambda: ("if8_seed_false_1d", if_seed(False, [1])))


def if_different_ops(cond_value):
    c = param("cond", [], np.bool_)
    x = param("x", [3, 2])
    tx = o8.parameter([3, 2], np.float32, name="tx")
    then_body = ov.Model([o8.result(o8.relu(tx)), o8.result(o8.sigmoid(tx))], [tx], "then")
    ex = o8.parameter([3, 2], np.float32, name="ex")
    m = o8.multiply(ex, const(np.float32(3.0)))
    else_body = ov.Model([o8.result(m), o8.result(o8.tanh(m))], [ex], "else")
    i = o8.if_op(c)
    i.set_then_body(then_body)
    i.set_else_body(else_body)
    i.set_input(x.output(0), tx, ex)
    o_a = i.set_output(then_body.get_results()[0], else_body.get_results()[0])
    o_b = i.set_output(then_body.get_results()[1], else_body.get_results()[1])
    inputs = {"cond": np.array(cond_value), "x": rand(3, 2)}
    return Case([named(o_a.get_node(), "a", 0), named(o_b.get_node(), "b", 1)], [c, x], inputs,
                f"If-8 with different ops per branch and two outputs, cond {cond_value}")


case(lambda: ("if8_branches_differ_true", if_different_ops(True)))
case(lambda: ("if8_branches_differ_false", if_different_ops(False)))


# ----------------------------------------------------------------------------- cells
def lstm_weights(hidden, input_size):
    return rand(4 * hidden, input_size), rand(4 * hidden, hidden), rand(4 * hidden)


@case
def lstm_cell_v4():
    n, i, h = 3, 5, 4
    x, hh, cc = param("x", [n, i]), param("h", [n, h]), param("c", [n, h])
    w, r, b = lstm_weights(h, i)
    cell = o4.lstm_cell(x, hh, cc, const(w), const(r), const(b), h)
    return "lstm_cell4", Case([named(cell, "ho", 0), named(cell, "co", 1)], [x, hh, cc],
                              {"x": rand(n, i), "h": rand(n, h), "c": rand(n, h)}, "LSTMCell-4, gate order f,i,c,o")


@case
def lstm_cell_v1_clip_act():
    n, i, h = 2, 3, 5
    x, hh, cc = param("x", [n, i]), param("h", [n, h]), param("c", [n, h])
    w, r, b = lstm_weights(h, i)
    cell = o1.lstm_cell(x, hh, cc, const(w * 3), const(r * 3), const(b), h,
                        activations=["tanh", "relu", "sigmoid"], clip=0.7)
    return "lstm_cell1_clip_activations", Case([named(cell, "ho", 0), named(cell, "co", 1)], [x, hh, cc],
                                               {"x": rand(n, i), "h": rand(n, h), "c": rand(n, h)},
                                               "LSTMCell-1 with activations tanh,relu,sigmoid and clip 0.7")


def np_sigmoid(v):
    return 1 / (1 + np.exp(-v))


@case
def lstm_cell_v1_peephole():
    """LSTMCell-1 with the peephole input P: made with a 6-input LSTMCell-1 then given a 7th
    input by editing the model (the Python API has no P). Expected from the specification."""
    n, i, h = 2, 3, 4
    x, hh, cc = param("x", [n, i]), param("h", [n, h]), param("c", [n, h])
    w, r, b = lstm_weights(h, i)
    p = rand(3 * h)
    cell = o1.lstm_cell(x, hh, cc, const(w), const(r), const(b), h)
    inputs = {"x": rand(n, i), "h": rand(n, h), "c": rand(n, h)}
    g = inputs["x"] @ w.T + inputs["h"] @ r.T + b
    c0 = inputs["c"]
    f = np_sigmoid(g[:, :h] + p[:h] * c0)
    ig = np_sigmoid(g[:, h:2 * h] + p[h:2 * h] * c0)
    c1 = f * c0 + ig * np.tanh(g[:, 2 * h:3 * h])
    o = np_sigmoid(g[:, 3 * h:] + p[2 * h:] * c1)
    expected = {"ho": (o * np.tanh(c1)).astype(np.float32), "co": c1.astype(np.float32)}
    c = Case([named(cell, "ho", 0), named(cell, "co", 1)], [x, hh, cc], inputs,
             "LSTMCell-1 with peephole P [3H] in order f,i,o (OpenVINO's reference implementation); "
             "expected from the specification: OpenVINO's CPU plugin ignores P", expected)
    c.peephole = p
    return "lstm_cell1_peephole", c


@case
def gru_cell():
    n, i, h = 3, 4, 5
    x, hh = param("x", [n, i]), param("h", [n, h])
    cell = o3.gru_cell(x, hh, const(rand(3 * h, i)), const(rand(3 * h, h)), const(rand(3 * h)), h)
    return "gru_cell3", Case([named(cell, "ho")], [x, hh], {"x": rand(n, i), "h": rand(n, h)}, "GRUCell-3, gates z,r,h")


@case
def gru_cell_lbr():
    n, i, h = 2, 3, 4
    x, hh = param("x", [n, i]), param("h", [n, h])
    cell = o3.gru_cell(x, hh, const(rand(3 * h, i)), const(rand(3 * h, h)), const(rand(4 * h)), h,
                       linear_before_reset=True, clip=0.9)
    return "gru_cell3_linear_before_reset", Case([named(cell, "ho")], [x, hh], {"x": rand(n, i), "h": rand(n, h)},
                                                 "GRUCell-3 linear_before_reset, B of 4H, clip 0.9")


@case
def rnn_cell():
    n, i, h = 2, 3, 4
    x, hh = param("x", [n, i]), param("h", [n, h])
    cell = o3.rnn_cell(x, hh, const(rand(h, i)), const(rand(h, h)), const(rand(h)), h, ["relu"], [], [], clip=0.5)
    return "rnn_cell_relu_clip", Case([named(cell, "ho")], [x, hh], {"x": rand(n, i), "h": rand(n, h)},
                                      "RNNCell relu, clip 0.5")


# ----------------------------------------------------------------------------- TensorIterator
def ti_lstm(seq, batch, input_size, hidden, reverse=False, start=0, note="", axis=1):
    """The TensorIterator of the specification's example 2 (Reshape → LSTMCell → Reshape in the
    body, h and c on back edges, sequence output concatenated along axis 1)."""
    xs = [batch, seq, input_size] if axis == 1 else [seq, batch, input_size]
    X, H, C = param("X", xs), param("H", [batch, hidden]), param("C", [batch, hidden])
    xi_shape = [batch, 1, input_size] if axis == 1 else [1, batch, input_size]
    xi = o8.parameter(xi_shape, np.float32, name="xi")
    hi = o8.parameter([batch, hidden], np.float32, name="hi")
    ci = o8.parameter([batch, hidden], np.float32, name="ci")
    x2 = o8.reshape(xi, const(np.array([batch, input_size], np.int64)), special_zero=False)
    w, r, b = lstm_weights(hidden, input_size)
    cell = o4.lstm_cell(x2, hi, ci, const(w), const(r), const(b), hidden)
    ho, co = o8.result(cell.output(0)), o8.result(cell.output(1))
    y = o8.result(o8.reshape(cell.output(0), const(np.array(xi_shape[:-1] + [hidden], np.int64)), special_zero=False))
    body = ov.Model([ho, co, y], [xi, hi, ci], "body")
    ti = o8.tensor_iterator()
    ti.set_body(body)
    if reverse:
        ti.set_sliced_input(xi, X.output(0), -1, -1, 1, 0, axis)
    else:
        ti.set_sliced_input(xi, X.output(0), start, 1, 1, -1, axis)
    ti.set_merged_input(hi, H.output(0), ho.output(0))
    ti.set_merged_input(ci, C.output(0), co.output(0))
    if reverse:
        Y = ti.get_concatenated_slices(y.output(0), -1, -1, 1, 0, axis)
    else:
        Y = ti.get_concatenated_slices(y.output(0), 0, 1, 1, -1, axis)
    Ho = ti.get_iter_value(ho.output(0), -1)
    Co = ti.get_iter_value(co.output(0), -1)
    outs = [named(Y.get_node(), "Y", 0), named(Ho.get_node(), "Ho", 1), named(Co.get_node(), "Co", 2)]
    inputs = {"X": rand(*xs), "H": rand(batch, hidden), "C": rand(batch, hidden)}
    return Case(outs, [X, H, C], inputs, note), (w, r, b)


def np_lstm_sequence(x, h, c, w, r, b, steps):
    """Reference LSTM (gate order f,i,c,o) over the given time steps of x [N, T, I]."""
    hs = h.shape[1]
    ys = []
    for t in steps:
        g = x[:, t, :] @ w.T + h @ r.T + b
        f, i, cc, o = (g[:, k * hs:(k + 1) * hs] for k in range(4))
        c = np_sigmoid(f) * c + np_sigmoid(i) * np.tanh(cc)
        h = np_sigmoid(o) * np.tanh(c)
        ys.append(h)
    return np.stack(ys, axis=1), h, c


@case
def ti_lstm_seed():
    c, _ = ti_lstm(25, 1, 32, 16, note="TensorIterator-1 specification example 2 (Reshape, LSTMCell, Reshape; "
                                     "back edges h, c) with input 32 / hidden 16 instead of 512 / 256 to keep the case small")
    return "ti_lstm_seed_example", c


@case
def ti_lstm_reverse():
    c, _ = ti_lstm(6, 3, 5, 4, reverse=True, note="TensorIterator-1 LSTM over the sequence reversed "
                                                  "(start -1, end 0, stride -1, as the specification's example 1)")
    return "ti_lstm_reverse", c


@case
def ti_lstm_axis0():
    c, _ = ti_lstm(5, 2, 3, 4, axis=0, note="TensorIterator-1 LSTM sliced along axis 0")
    return "ti_lstm_axis0", c


@case
def ti_lstm_start_offset():
    c, (w, r, b) = ti_lstm(6, 2, 3, 4, start=2, note="TensorIterator-1 with start=2: slices 2..5 (4 iterations, "
                                                     "Y [2,4,4] as the IR declares). Expected from the specification: "
                                                     "OpenVINO's CPU plugin ignores start and runs all 6 slices "
                                                     "(Y [2,6,4])")
    x, h, cc = c.inputs["X"], c.inputs["H"], c.inputs["C"]
    y, ho, co = np_lstm_sequence(x, h, cc, w, r, b, range(2, 6))
    c.expected = {"Y": y.astype(np.float32), "Ho": ho.astype(np.float32), "Co": co.astype(np.float32)}
    return "ti_lstm_start_offset", c


@case
def ti_gru_lbr_reverse_last_only():
    n, t, i, h = 2, 4, 3, 5
    X, H = param("X", [t, n, i]), param("H", [n, h])
    xi, hi = o8.parameter([1, n, i], np.float32, name="xi"), o8.parameter([n, h], np.float32, name="hi")
    sq = o8.squeeze(xi, const(np.array([0], np.int64)))
    cell = o3.gru_cell(sq, hi, const(rand(3 * h, i)), const(rand(3 * h, h)), const(rand(4 * h)), h, linear_before_reset=True)
    ho = o8.result(cell)
    body = ov.Model([ho], [xi, hi], "body")
    ti = o8.tensor_iterator()
    ti.set_body(body)
    ti.set_sliced_input(xi, X.output(0), -1, -1, 1, 0, 0)
    ti.set_merged_input(hi, H.output(0), ho.output(0))
    Ho = ti.get_iter_value(ho.output(0), -1)
    return "ti_gru_lbr_reverse_last", Case([named(Ho.get_node(), "Ho")], [X, H], {"X": rand(t, n, i), "H": rand(n, h)},
                                           "TensorIterator-1 with a GRUCell (linear_before_reset) body, Squeeze, "
                                           "reverse, only the last h")


@case
def ti_rnn_invariant_stride2():
    n, t, i, h = 2, 6, 3, 4
    X, H, Bias = param("X", [n, t, i]), param("H", [n, h]), param("bias", [h])
    xi = o8.parameter([n, 2, i], np.float32, name="xi")
    hi = o8.parameter([n, h], np.float32, name="hi")
    bi = o8.parameter([h], np.float32, name="bi")
    x2 = o8.reshape(xi, const(np.array([0, -1], np.int64)), special_zero=True)
    cell = o3.rnn_cell(x2, hi, const(rand(h, 2 * i)), const(rand(h, h)), const(rand(h)), h, ["tanh"], [], [])
    hn = o8.add(cell, bi)
    ho = o8.result(hn)
    y = o8.result(o8.unsqueeze(hn, const(np.array([1], np.int64))))
    body = ov.Model([ho, y], [xi, hi, bi], "body")
    ti = o8.tensor_iterator()
    ti.set_body(body)
    ti.set_sliced_input(xi, X.output(0), 0, 2, 2, -1, 1)
    ti.set_merged_input(hi, H.output(0), ho.output(0))
    ti.set_invariant_input(bi, Bias.output(0))
    Y = ti.get_concatenated_slices(y.output(0), 0, 1, 1, -1, 1)
    return "ti_rnn_invariant_stride2", Case([named(Y.get_node(), "Y")], [X, H, Bias],
                                            {"X": rand(n, t, i), "H": rand(n, h), "bias": rand(h)},
                                            "TensorIterator-1 with stride 2 / part_size 2 slices (3 iterations), "
                                            "an invariant input, RNNCell + Add body, Reshape special_zero")


@case
def ti_nested_if():
    n, t = 2, 4
    X, Flag = param("X", [n, t]), param("flag", [], np.bool_)
    xi = o8.parameter([n, 1], np.float32, name="xi")
    acc = o8.parameter([n, 1], np.float32, name="acc")
    fl = o8.parameter([], np.bool_, name="fl")
    tx, ta = o8.parameter([n, 1], np.float32, name="tx"), o8.parameter([n, 1], np.float32, name="ta")
    then_body = ov.Model([o8.result(o8.add(tx, ta))], [tx, ta], "then")
    ex, ea = o8.parameter([n, 1], np.float32, name="ex"), o8.parameter([n, 1], np.float32, name="ea")
    else_body = ov.Model([o8.result(o8.multiply(ex, ea))], [ex, ea], "else")
    iff = o8.if_op(fl)
    iff.set_then_body(then_body)
    iff.set_else_body(else_body)
    iff.set_input(xi.output(0), tx, ex)
    iff.set_input(acc.output(0), ta, ea)
    r = iff.set_output(then_body.get_results()[0], else_body.get_results()[0])
    res = o8.result(r)
    body = ov.Model([res], [xi, acc, fl], "body")
    ti = o8.tensor_iterator()
    ti.set_body(body)
    ti.set_sliced_input(xi, X.output(0), 0, 1, 1, -1, 1)
    ti.set_merged_input(acc, const(np.ones((n, 1), np.float32)).output(0), res.output(0))
    ti.set_invariant_input(fl, Flag.output(0))
    Y = ti.get_concatenated_slices(res.output(0), 0, 1, 1, -1, 1)
    return "ti_nested_if", Case([named(Y.get_node(), "Y")], [X, Flag], {"X": rand(n, t), "flag": np.array(False)},
                                "TensorIterator-1 whose body holds an If-8 (running product)")


@case
def ti_nested_loop():
    """OpenVINO refuses a TensorIterator inside a TensorIterator ("No nested TensorIterator"),
    so the nested iteration case is a Loop inside a TensorIterator."""
    n, t, u = 2, 3, 4
    X = param("X", [n, t, u])
    # inner Loop: cumulative sums over the last axis of a [n, 1, u] slice
    ii = o8.parameter([n, 1, 1], np.float32, name="ii")
    ia = o8.parameter([n, 1, 1], np.float32, name="ia")
    ir = o8.result(o8.add(ii, ia))
    ic = o8.result(const(np.array(True)))
    inner_body = ov.Model([ic, ir], [ii, ia], "inner")
    oxi = o8.parameter([n, 1, u], np.float32, name="oxi")
    inner = o8.loop(const(np.int64(u)), const(np.array(True)))
    inner.set_function(inner_body)
    inner.set_special_body_ports([-1, 0])
    inner.set_sliced_input(ii, oxi.output(0), 0, 1, 1, -1, 2)
    inner.set_merged_input(ia, const(np.zeros((n, 1, 1), np.float32)).output(0), ir.output(0))
    cs = inner.get_concatenated_slices(ir.output(0), 0, 1, 1, -1, 2)
    ores = o8.result(o8.tanh(cs))
    outer_body = ov.Model([ores], [oxi], "outer")
    outer = o8.tensor_iterator()
    outer.set_body(outer_body)
    outer.set_sliced_input(oxi, X.output(0), 0, 1, 1, -1, 1)
    Y = outer.get_concatenated_slices(ores.output(0), 0, 1, 1, -1, 1)
    return "ti_nested_loop", Case([named(Y.get_node(), "Y")], [X], {"X": rand(n, t, u)},
                                  "TensorIterator-1 whose body holds a Loop-5 with a sliced input and a "
                                  "concatenated output (OpenVINO forbids a TensorIterator inside one)")


# ----------------------------------------------------------------------------- Loop
@case
def loop_fixed_trip():
    n = 3
    X = param("X", [n])
    bi = o8.parameter([n], np.float32, name="bi")
    it = o8.parameter([1], np.int64, name="it")
    itf = o8.convert(it, "f32")
    nxt = o8.add(o8.multiply(bi, const(np.float32(0.5))), itf)
    rn = o8.result(nxt)
    rc = o8.result(const(np.array(True)))
    ry = o8.result(o8.unsqueeze(nxt, const(np.array([0], np.int64))))
    body = ov.Model([rc, rn, ry], [bi, it], "body")
    lp = o8.loop(const(np.int64(4)), const(np.array(True)))
    lp.set_function(body)
    lp.set_special_body_ports([1, 0])
    lp.set_merged_input(bi, X.output(0), rn.output(0))
    last = lp.get_iter_value(rn.output(0), -1)
    allv = lp.get_concatenated_slices(ry.output(0), 0, 1, 1, -1, 0)
    return "loop5_fixed_trip_count", Case([named(last.get_node(), "last", 0), named(allv.get_node(), "all", 1)], [X],
                                          {"X": rand(n)}, "Loop-5, trip count 4, current_iteration input, "
                                                          "last value and concatenated values")


# ----------------------------------------------------------------------------- shape ops
@case
def reshape_ops():
    x = param("x", [2, 3, 4])
    a = o8.reshape(x, const(np.array([0, -1], np.int64)), special_zero=True)
    b = o8.reshape(x, const(np.array([4, -1, 3], np.int32)), special_zero=False)
    return "reshape_special_zero_and_minus1", Case([named(a, "a"), named(b, "b")], [x], {"x": rand(2, 3, 4)},
                                                  "Reshape-1 with special_zero (0 copies) and -1")


@case
def squeeze_unsqueeze():
    x = param("x", [1, 3, 1, 2])
    a = o15.squeeze(x)
    b = o1.squeeze(x, const(np.array([-2], np.int64)))
    c = o1.unsqueeze(x, const(np.array([-1, 0], np.int64)))
    return "squeeze_unsqueeze", Case([named(a, "a"), named(b, "b"), named(c, "c")], [x], {"x": rand(1, 3, 1, 2)},
                                     "Squeeze-15 without axes, Squeeze-1 with axis -2; Unsqueeze-1 with axes -1, 0")


@case
def concat_neg_axis():
    x, y = param("x", [2, 3]), param("y", [2, 1])
    c = o1.concat([x, y, x], axis=-1)
    return "concat_neg_axis", Case([named(c, "y_out")], [x, y], {"x": rand(2, 3), "y": rand(2, 1)}, "Concat-1 axis -1")


@case
def shape_of_ops():
    x = param("x", [2, 3, 5])
    a = o3.shape_of(x, "i32")
    b = o1.shape_of(x)
    g = o8.gather(o3.shape_of(x), const(np.int64(1)), const(np.int64(0)))
    return "shape_of_i32_i64", Case([named(a, "a"), named(b, "b"), named(g, "g")], [x], {"x": rand(2, 3, 5)},
                                    "ShapeOf-3 (i32), ShapeOf-1 (i64), ShapeOf→Gather folding")


@case
def convert_ops():
    x = param("x", [6])
    a = o1.convert(x, "i32")
    b = o1.convert(x, "boolean")
    xi = param("xi", [4], np.int64)
    c = o1.convert(xi, "f32")
    return "convert_f32_i32_bool", Case([named(a, "a"), named(b, "b"), named(c, "c")], [x, xi],
                                        {"x": np.array([2.7, -2.7, 0.0, 0.4, -0.6, 100.5], np.float32),
                                         "xi": np.array([-3, 0, 7, 1 << 40], np.int64)},
                                        "Convert-1 f32→i32 (toward zero), f32→boolean, i64→f32")


# ----------------------------------------------------------------------------- element-wise
@case
def binary_f32():
    a, b = param("a", [2, 1, 3]), param("b", [4, 1])
    outs = [named(o1.add(a, b), "add"), named(o1.subtract(a, b), "sub"),
            named(o1.multiply(a, b), "mul"), named(o1.divide(a, b), "div")]
    return "binary_f32_broadcast", Case(outs, [a, b], {"a": rand(2, 1, 3), "b": rand(4, 1, lo=0.5, hi=2.0)},
                                        "Add/Subtract/Multiply/Divide with numpy broadcasting")


@case
def binary_i32():
    a, b = param("a", [2, 3], np.int32), param("b", [3], np.int32)
    outs = [named(o1.add(a, b), "add"), named(o1.subtract(a, b), "sub"),
            named(o1.multiply(a, b), "mul"), named(o1.divide(a, b), "div")]
    av = np.array([[7, -7, 9], [-9, 0, 5]], np.int32)
    bv = np.array([2, 2, -4], np.int32)
    expected = {"add": av + bv, "sub": av - bv, "mul": av * bv, "div": av // bv}
    return "binary_i32_floor_division", Case(outs, [a, b], {"a": av, "b": bv},
                                             "integer arithmetic; Divide with python_division (m_pythondiv, "
                                             "default true) floors. Expected from the specification: OpenVINO's "
                                             "CPU plugin truncates (-7/2 gives -3, not -4)", expected)


@case
def activations():
    x = param("x", [3, 4])
    outs = [named(o1.sigmoid(x), "sig"), named(o1.tanh(x), "tanh"), named(o1.relu(x), "relu")]
    return "activations", Case(outs, [x], {"x": rand(3, 4, lo=-4, hi=4)}, "Sigmoid, Tanh, Relu")


@case
def matmul_ops():
    a, b = param("a", [2, 3, 4]), param("b", [5, 4])
    m1 = o1.matmul(a, b, False, True)
    v = param("v", [3])
    m2 = o1.matmul(v, a, False, False)
    c = param("c", [1, 4, 2])
    m3 = o1.matmul(a, c, False, False)
    m4 = o1.matmul(c, a, True, True)
    return "matmul_transpose_vector_batch", Case(
        [named(m1, "ab_t"), named(m2, "va"), named(m3, "ac"), named(m4, "ct_at")], [a, b, v, c],
        {"a": rand(2, 3, 4), "b": rand(5, 4), "v": rand(3), "c": rand(1, 4, 2)},
        "MatMul-1: transpose_b, 1-D first operand, batch broadcast, both transposed")


# ----------------------------------------------------------------------------- TensorIterator fusion
def cell_ti(kind, X, H, xs, hidden, *, C=None, axis=1, reverse=False, squeeze=False, outputs=("Y", "Ho"),
            lbr=False, activation="tanh", clip=0.0, scale=1.0):
    """A TensorIterator over X (outer output of shape `xs`) whose body is one cell — `kind`
    "lstm" (LSTMCell-4, needs C), "gru" (GRUCell-3) or "rnn" (RNNCell-0) — with the slice going
    through Reshape (or Squeeze) into the cell and the states on back edges. Returns the outer
    outputs named in `outputs`: Y (h of every step through Reshape / Unsqueeze, concatenated
    along the sliced axis with the slicing's stride), Ho (the last h), Co (the last c)."""
    batch, input_size = xs[1 - axis], xs[2]
    xi_shape = [batch, 1, input_size] if axis == 1 else [1, batch, input_size]
    xi = o8.parameter(xi_shape, np.float32, name="xi")
    hi = o8.parameter([batch, hidden], np.float32, name="hi")
    params = [xi, hi]
    if squeeze:
        x2 = o8.squeeze(xi, const(np.array([axis], np.int64)))
    else:
        x2 = o8.reshape(xi, const(np.array([batch, input_size], np.int64)), special_zero=False)
    gates = {"lstm": 4, "gru": 3, "rnn": 1}[kind]
    w, r = rand(gates * hidden, input_size) * scale, rand(gates * hidden, hidden) * scale
    b = rand((gates + (1 if lbr else 0)) * hidden)
    if kind == "lstm":
        ci = o8.parameter([batch, hidden], np.float32, name="ci")
        params.append(ci)
        cell = o4.lstm_cell(x2, hi, ci, const(w), const(r), const(b), hidden, clip=clip)
    elif kind == "gru":
        cell = o3.gru_cell(x2, hi, const(w), const(r), const(b), hidden, ["sigmoid", "tanh"], [], [], clip, lbr)
    else:
        cell = o3.rnn_cell(x2, hi, const(w), const(r), const(b), hidden, [activation], [], [], clip)
    ho = o8.result(cell.output(0))
    results = [ho]
    if kind == "lstm":
        co = o8.result(cell.output(1))
        results.append(co)
    if squeeze:
        y2 = o8.unsqueeze(cell.output(0), const(np.array([axis], np.int64)))
    else:
        y2 = o8.reshape(cell.output(0), const(np.array(xi_shape[:-1] + [hidden], np.int64)), special_zero=False)
    y = o8.result(y2)
    results.append(y)
    ti = o8.tensor_iterator()
    ti.set_body(ov.Model(results, params, "body"))
    if reverse:
        ti.set_sliced_input(xi, X, -1, -1, 1, 0, axis)
    else:
        ti.set_sliced_input(xi, X, 0, 1, 1, -1, axis)
    ti.set_merged_input(hi, H, ho.output(0))
    if kind == "lstm":
        ti.set_merged_input(ci, C, co.output(0))
    outs = []
    for name in outputs:
        if name == "Y":
            o = (ti.get_concatenated_slices(y.output(0), -1, -1, 1, 0, axis) if reverse
                 else ti.get_concatenated_slices(y.output(0), 0, 1, 1, -1, axis))
        else:
            o = ti.get_iter_value((ho if name == "Ho" else co).output(0), -1)
        outs.append(o)
    return outs


def ti_cell(kind, seq, batch, input_size, hidden, note, axis=1, outputs=("Y", "Ho"), **kw):
    """A model holding one `cell_ti` over inputs X and H."""
    xs = [batch, seq, input_size] if axis == 1 else [seq, batch, input_size]
    X, H = param("X", xs), param("H", [batch, hidden])
    outs = cell_ti(kind, X.output(0), H.output(0), xs, hidden, axis=axis, outputs=outputs, **kw)
    named_outs = [named(o.get_node(), name, o.get_index()) for o, name in zip(outs, outputs)]
    return Case(named_outs, [X, H], {"X": rand(*xs), "H": rand(batch, hidden)}, note)


@case
def ti_gru_seq():
    return "ti_gru_seq", ti_cell("gru", 5, 2, 3, 4, "TensorIterator-1 over a GRUCell-3 (Reshape, GRUCell, Reshape; "
                                                    "h on a back edge), Y concatenated along axis 1 and the last h: "
                                                    "fused as one oneDNN GRU")


@case
def ti_gru_lbr_axis0_reverse():
    return "ti_gru_lbr_axis0_reverse", ti_cell("gru", 4, 3, 5, 6, "TensorIterator-1 over a GRUCell-3 with "
                                               "linear_before_reset (Squeeze, Unsqueeze), sliced along axis 0 with "
                                               "stride -1: fused as one right-to-left LBR-GRU",
                                               axis=0, reverse=True, squeeze=True, lbr=True)


@case
def ti_gru_clip_unfused():
    return "ti_gru_clip_unfused", ti_cell("gru", 3, 2, 3, 4, "TensorIterator-1 over a GRUCell-3 with clip 0.5 "
                                          "(oneDNN's GRU has no clip: stays a TensorIterator)", clip=0.5, scale=3.0)


@case
def ti_rnn_relu_seq():
    return "ti_rnn_relu_seq", ti_cell("rnn", 5, 2, 3, 4, "TensorIterator-1 over an RNNCell with relu: fused as a "
                                                        "vanilla RNN (relu, alpha 0)", activation="relu", scale=0.5)


@case
def ti_rnn_sigmoid_reverse():
    return "ti_rnn_sigmoid_reverse", ti_cell("rnn", 4, 2, 3, 5, "TensorIterator-1 over an RNNCell with sigmoid, "
                                             "stride -1, Squeeze / Unsqueeze: fused as a right-to-left vanilla RNN "
                                             "(logistic)", reverse=True, squeeze=True, activation="sigmoid")


@case
def ti_rnn_tanh_axis0_last():
    return "ti_rnn_tanh_axis0_last", ti_cell("rnn", 6, 2, 4, 3, "TensorIterator-1 over an RNNCell with tanh along "
                                             "axis 0, only the last h: fused as a vanilla RNN (tanh)",
                                             axis=0, outputs=("Ho",))


@case
def ti_rnn_clip_unfused():
    return "ti_rnn_clip_unfused", ti_cell("rnn", 3, 2, 3, 4, "TensorIterator-1 over an RNNCell with clip 0.3: stays "
                                          "a TensorIterator", clip=0.3, scale=2.0)


def if_holding_tis(cond_value):
    n, t, i, h = 2, 4, 3, 5
    c, X, H = param("cond", [], np.bool_), param("X", [n, t, i]), param("H", [n, h])
    bodies = []
    for kind, reverse in (("gru", False), ("rnn", True)):
        bx, bh = o8.parameter([n, t, i], np.float32, name="bx"), o8.parameter([n, h], np.float32, name="bh")
        y, ho = cell_ti(kind, bx.output(0), bh.output(0), [n, t, i], h, reverse=reverse)
        bodies.append((ov.Model([o8.result(y), o8.result(ho)], [bx, bh], kind), bx, bh))
    (then_body, tx, th), (else_body, ex, eh) = bodies
    iff = o8.if_op(c)
    iff.set_then_body(then_body)
    iff.set_else_body(else_body)
    iff.set_input(X.output(0), tx, ex)
    iff.set_input(H.output(0), th, eh)
    y = iff.set_output(then_body.get_results()[0], else_body.get_results()[0])
    ho = iff.set_output(then_body.get_results()[1], else_body.get_results()[1])
    return Case([named(y.get_node(), "Y", 0), named(ho.get_node(), "Ho", 1)], [c, X, H],
                {"cond": np.array(cond_value), "X": rand(n, t, i), "H": rand(n, h)},
                f"If-8 whose branches each hold a fusable TensorIterator (then: GRU forward, else: RNN tanh "
                f"reversed), cond {cond_value}: both nested TensorIterators fuse")


case(lambda: ("if8_ti_branches_true", if_holding_tis(True)))
case(lambda: ("if8_ti_branches_false", if_holding_tis(False)))


@case
def loop_holding_ti_lstm():
    """A Loop whose body runs a TensorIterator over an LSTMCell on the same sequence, starting from
    the previous iteration's last h (c restarts from zeros)."""
    n, t, i, h, trips = 2, 3, 4, 4, 3
    X, H = param("X", [n, t, i]), param("H", [n, h])
    bx, bh = o8.parameter([n, t, i], np.float32, name="bx"), o8.parameter([n, h], np.float32, name="bh")
    zeros = const(np.zeros((n, h), np.float32))
    ho, co = cell_ti("lstm", bx.output(0), bh.output(0), [n, t, i], h, C=zeros.output(0), outputs=("Ho", "Co"))
    rh = o8.result(ho)
    rc = o8.result(const(np.array(True)))
    rsum = o8.result(o8.unsqueeze(o8.add(ho, co), const(np.array([0], np.int64))))
    body = ov.Model([rc, rh, rsum], [bx, bh], "body")
    lp = o8.loop(const(np.int64(trips)), const(np.array(True)))
    lp.set_function(body)
    lp.set_special_body_ports([-1, 0])
    lp.set_invariant_input(bx, X.output(0))
    lp.set_merged_input(bh, H.output(0), rh.output(0))
    last = lp.get_iter_value(rh.output(0), -1)
    sums = lp.get_concatenated_slices(rsum.output(0), 0, 1, 1, -1, 0)
    c = Case([named(last.get_node(), "Ho", 0), named(sums.get_node(), "S", 1)], [X, H],
             {"X": rand(n, t, i), "H": rand(n, h)},
             "Loop-5 (trip count 3) whose body holds a TensorIterator over an LSTMCell (h carried across "
             "iterations, c from zeros): the nested TensorIterator fuses")
    c.as_tensor_iterator = ("ti_ti_lstm_nested", "TensorIterator-1 whose body holds a TensorIterator over an "
                            "LSTMCell (the inner one fuses): loop5_ti_lstm_body with its Loop rewritten as the "
                            "equivalent TensorIterator (3 iterations, from the concatenated output); expected "
                            "outputs are OpenVINO's for that Loop, as OpenVINO refuses nested TensorIterators")
    return "loop5_ti_lstm_body", c


# ----------------------------------------------------------------------------- Loop trip counts
def loop_accumulate(trip, note, trip_input=False):
    """The Loop of `loop5_fixed_trip_count` (x ← 0.5·x + i) with trip count `trip`: a constant,
    or (`trip_input`) a model input."""
    n = 3
    X = param("X", [n])
    params, inputs = [X], {"X": rand(n)}
    if trip_input:
        T = param("trip", [], np.int64)
        params.append(T)
        inputs["trip"] = np.array(trip, np.int64)
        trip_count = T.output(0)
    else:
        trip_count = const(np.int64(trip)).output(0)
    bi = o8.parameter([n], np.float32, name="bi")
    it = o8.parameter([1], np.int64, name="it")
    nxt = o8.add(o8.multiply(bi, const(np.float32(0.5))), o8.convert(it, "f32"))
    rn = o8.result(nxt)
    rc = o8.result(const(np.array(True)))
    ry = o8.result(o8.unsqueeze(nxt, const(np.array([0], np.int64))))
    body = ov.Model([rc, rn, ry], [bi, it], "body")
    lp = o8.loop(trip_count, const(np.array(True)).output(0))
    lp.set_function(body)
    lp.set_special_body_ports([1, 0])
    lp.set_merged_input(bi, X.output(0), rn.output(0))
    last = lp.get_iter_value(rn.output(0), -1)
    allv = lp.get_concatenated_slices(ry.output(0), 0, 1, 1, -1, 0)
    return Case([named(last.get_node(), "last", 0), named(allv.get_node(), "all", 1)], params, inputs, note)


@case
def loop_zero_trip_count():
    c = loop_accumulate(0, "Loop-5 with a constant trip count 0: the back-edge output keeps its initial value, "
                           "the concatenated output is empty ([0, 3]). Expected from the specification: OpenVINO's "
                           "CPU plugin dies with SIGFPE compiling it (the same Loop with the trip count from an input "
                           "gives these values, see loop5_trip_count_input_zero)")
    c.expected = {"last": c.inputs["X"], "all": np.zeros((0, 3), np.float32)}
    c.openvino_crashes = True
    return "loop5_zero_trip_count", c
case(lambda: ("loop5_trip_count_input", loop_accumulate(
    3, "Loop-5 with the trip count (3) from a model input", trip_input=True)))
case(lambda: ("loop5_trip_count_input_zero", loop_accumulate(
    0, "Loop-5 with the trip count (0) from a model input: initial value and an empty concatenation",
    trip_input=True)))


# ----------------------------------------------------------------------------- ops around RNNs
def i64(v):
    return const(np.asarray(v, np.int64))


@case
def transpose_ops():
    x = param("x", [2, 3, 4])
    a = o1.transpose(x, i64([2, 0, 1]))
    xi = param("xi", [2, 1, 3], np.int64)
    b = o1.transpose(xi, ov.op.Constant(ov.Type.i64, ov.Shape([0]), []))
    order = param("order", [3], np.int64)
    c = o1.transpose(x, order)
    return "transpose1", Case([named(a, "a"), named(b, "b"), named(c, "c")], [x, xi, order],
                              {"x": rand(2, 3, 4), "xi": np.arange(6, dtype=np.int64).reshape(2, 1, 3) - 2,
                               "order": np.array([1, 2, 0], np.int64)},
                              "Transpose-1: constant order, empty order (reversed axes) on i64, order from an input")


@case
def split_ops():
    x = param("x", [2, 3, 4])
    s = o1.split(x, i64(-1), 2)
    v = o1.variadic_split(x, const(np.int32(1)), i64([1, 0, -1]))
    return "split1_variadic_split1", Case(
        [named(s, "s0", 0), named(s, "s1", 1), named(v, "v0", 0), named(v, "v1", 1), named(v, "v2", 2)],
        [x], {"x": rand(2, 3, 4)},
        "Split-1 axis -1 in 2; VariadicSplit-1 axis 1 (i32) lengths [1, 0, -1]: an empty part and the rest")


@case
def slice_ops():
    x = param("x", [4, 5, 6])
    big = np.iinfo(np.int64).max
    a = o8.slice(x, i64([-1, 1]), i64([-big, 100]), i64([-2, 2]), i64([0, -1]))
    b = o8.slice(x, i64([3, 0, 0]), i64([1, 5, 6]), i64([1, 1, 1]))
    xi = param("xi", [7], np.int32)
    c = o8.slice(xi, i64([5]), i64([1]), i64([-3]))
    return "slice8", Case([named(a, "a"), named(b, "b"), named(c, "c")], [x, xi],
                          {"x": rand(4, 5, 6), "xi": np.arange(7, dtype=np.int32)},
                          "Slice-8: negative start and step with a stop of -2^63+1, axes [0, -1], a clamped stop; "
                          "an empty slice (start 3 > stop 1); i32 data with step -3")


@case
def strided_slice_ops():
    x = param("x", [3, 4, 5])
    a = o1.strided_slice(x, i64([0, 1, -1]), i64([2, 4, 0]), i64([1, 2, -2]),
                         begin_mask=[1, 0, 0], end_mask=[0, 0, 1])
    c = o1.strided_slice(x, i64([0, -1]), i64([0, 0]), i64([1, 1]), begin_mask=[0, 0], end_mask=[0, 0],
                         ellipsis_mask=[1, 0], shrink_axis_mask=[0, 1])
    d = o1.strided_slice(x, i64([-1]), i64([0]), i64([-1]), begin_mask=[1], end_mask=[1])
    return "strided_slice1_masks", Case([named(a, "a"), named(c, "c"), named(d, "d")], [x],
                                        {"x": rand(3, 4, 5)},
                                        "StridedSlice-1: begin/end masks with stride -2; ellipsis then shrink of "
                                        "the last axis (-1); reversed first axis")


@case
def strided_slice_new_axis_shrink():
    x = param("x", [3, 4, 5])
    b = o1.strided_slice(x, i64([1, 0, 2]), i64([2, 0, 4]), i64([1, 1, 1]),
                         begin_mask=[0, 0, 0], end_mask=[0, 0, 0], new_axis_mask=[0, 1, 0],
                         shrink_axis_mask=[1, 0, 0])
    xv = rand(3, 4, 5)
    return "strided_slice1_new_axis_shrink", Case(
        [named(b, "b")], [x], {"x": xv},
        "StridedSlice-1: shrink axis 0 at 1, a new axis, axis 1 sliced 2:4 -> [1,2,5]. Expected from the "
        "specification (x[1, None, 2:4, :]): OpenVINO's CPU plugin gets the shape right but returns "
        "uninitialized values", {"b": xv[1, None, 2:4, :]})


@case
def comparison_ops():
    a, b = param("a", [2, 1, 3]), param("b", [4, 1])
    outs = [named(f(a, b), n) for f, n in [(o1.greater, "gt"), (o1.greater_equal, "ge"), (o1.less, "lt"),
                                            (o1.less_equal, "le"), (o1.equal, "eq"), (o1.not_equal, "ne")]]
    ia, ib = param("ia", [5], np.int64), param("ib", [], np.int64)
    outs.append(named(o1.equal(ia, ib), "ieq"))
    ba = param("ba", [2, 2], np.bool_)
    outs.append(named(o1.not_equal(ba, const(np.array([True, False]))), "bne"))
    av = np.array([[[0.5, -1, 2]], [[0, 0.25, 3]]], np.float32)
    bv = np.array([[0.5], [0], [2], [3]], np.float32)
    return "comparisons", Case(outs, [a, b, ia, ib, ba],
                               {"a": av, "b": bv, "ia": np.array([3, -1, 3, 1 << 40, 0], np.int64),
                                "ib": np.array(3, np.int64), "ba": np.array([[True, True], [False, False]])},
                               "Greater/GreaterEqual/Less/LessEqual/Equal/NotEqual-1 with numpy broadcasting "
                               "(ties included); i64 against a scalar; boolean")


@case
def logical_select_ops():
    p, q = param("p", [3, 1], np.bool_), param("q", [1, 4], np.bool_)
    outs = [named(o1.logical_and(p, q), "and"), named(o1.logical_or(p, q), "or"),
            named(o1.logical_xor(p, q), "xor"), named(o1.logical_not(p), "not")]
    t, e = param("t", [1, 4]), param("e", [])
    outs.append(named(o1.select(o1.logical_xor(p, q), t, e), "sel"))
    ti = param("ti", [3, 4], np.int64)
    outs.append(named(o1.select(p, ti, i64(-7)), "sel_i64"))
    return "logical_select", Case(outs, [p, q, t, e, ti],
                                  {"p": np.array([[True], [False], [True]]),
                                   "q": np.array([[True, False, False, True]]),
                                   "t": rand(1, 4), "e": np.array(9.5, np.float32),
                                   "ti": np.arange(12, dtype=np.int64).reshape(3, 4)},
                                  "LogicalAnd/Or/Xor/Not-1; Select-1 with numpy broadcasting of cond [3,4], then "
                                  "[1,4], else scalar, and with i64 values")


@case
def binary_more_ops():
    a, b = param("a", [2, 3]), param("b", [3])
    outs = [named(o1.maximum(a, b), "max"), named(o1.minimum(a, b), "min"), named(o1.mod(a, b), "mod"),
            named(o1.floor_mod(a, b), "floor_mod"), named(o1.squared_difference(a, b), "sqdiff"),
            named(o1.power(o1.abs(a), b), "pow")]
    ia, ib = param("ia", [2, 3], np.int32), param("ib", [3], np.int32)
    outs += [named(o1.mod(ia, ib), "imod"), named(o1.floor_mod(ia, ib), "ifloor_mod"),
             named(o1.maximum(ia, ib), "imax"), named(o1.power(ia, const(np.int32(3))), "ipow")]
    return "binary_max_min_pow_mod", Case(
        outs, [a, b, ia, ib],
        {"a": np.array([[-7.5, 7.5, 2.0], [3.25, -0.5, -6.0]], np.float32),
         "b": np.array([2.0, -2.0, 1.5], np.float32),
         "ia": np.array([[-7, 7, 9], [-9, 0, 5]], np.int32), "ib": np.array([3, -3, 4], np.int32)},
        "Maximum/Minimum/Mod/FloorMod/SquaredDifference/Power-1 on f32 and i32 (negative operands)")


@case
def pdpd_broadcast():
    # OpenVINO's Python API gives auto_broadcast="pdpd" the axis 0.
    a, b, c = param("a", [2, 3, 4]), param("b", [2, 3]), param("c", [2, 1])
    y = o1.add(a, b, auto_broadcast="pdpd")
    z = o1.multiply(a, c, auto_broadcast="pdpd")
    return "pdpd_broadcast", Case([named(y, "y"), named(z, "z")], [a, b, c],
                                  {"a": rand(2, 3, 4), "b": rand(2, 3), "c": rand(2, 1)},
                                  "Add-1 and Multiply-1 with auto_broadcast pdpd, axis 0: [2,3] and [2,1] "
                                  "onto [2,3,4]")


@case
def reverse_sequence_identity():
    x = param("x", [5, 3, 2])
    lens = param("lens", [3], np.int32)
    r = o1.reverse_sequence(x, lens, 1, 0)
    xi = param("xi", [2, 4], np.int64)
    r2 = o1.reverse_sequence(xi, i64([4, 1]), -2, -1)
    ident = o16.identity(xi)
    return "reverse_sequence1_identity16", Case(
        [named(r, "r"), named(r2, "r2"), named(ident, "id")], [x, lens, xi],
        {"x": rand(5, 3, 2), "lens": np.array([5, 0, 3], np.int32),
         "xi": np.arange(8, dtype=np.int64).reshape(2, 4)},
        "ReverseSequence-1 time-major (batch_axis 1, seq_axis 0, lengths 5, 0, 3) and with negative axes on i64; "
        "Identity-16")


@case
def reduce_ops():
    x = param("x", [2, 3, 4])
    outs = [named(o1.reduce_sum(x, i64([-1]), True), "sum_keep"),
            named(o1.reduce_mean(x, i64([0, 2]), False), "mean"),
            named(o1.reduce_max(x, i64(1), False), "max"),
            named(o1.reduce_min(x, i64([-3, -1]), True), "min"),
            named(o1.reduce_prod(x, i64([1]), False), "prod"),
            named(o4.reduce_l1(x, i64([2]), False), "l1"),
            named(o4.reduce_l2(x, i64([0, 1, 2]), False), "l2")]
    xi = param("xi", [3, 4], np.int32)
    outs += [named(o1.reduce_sum(xi, i64([0]), False), "isum"), named(o1.reduce_mean(xi, i64([1]), True), "imean"),
             named(o1.reduce_max(xi, i64([1]), False), "imax")]
    b = param("b", [2, 3], np.bool_)
    outs += [named(o1.reduce_logical_and(b, i64([1]), False), "all"),
             named(o1.reduce_logical_or(b, i64([0]), True), "any")]
    e = param("e", [2, 0, 3])
    outs += [named(o1.reduce_sum(e, i64([1]), False), "esum"), named(o1.reduce_max(e, i64([1]), False), "emax"),
             named(o1.reduce_mean(e, i64([1]), False), "emean")]
    return "reductions", Case(outs, [x, xi, b, e],
                              {"x": rand(2, 3, 4, lo=0.5, hi=1.5) * np.where(rand(2, 3, 4) > 0, 1, -1).astype(np.float32),
                               "xi": np.array([[7, -3, 5, 1], [-8, 2, 2, 9], [0, 4, -1, -6]], np.int32),
                               "b": np.array([[True, True, False], [True, True, True]]),
                               "e": np.zeros((2, 0, 3), np.float32)},
                              "ReduceSum/Mean/Max/Min/Prod-1, ReduceL1/L2-4 (keep_dims, negative, scalar and "
                              "several axes), i32 (Mean truncates), ReduceLogicalAnd/Or-1, over an empty axis")


@case
def softmax_ops():
    x = param("x", [2, 3, 4])
    outs = [named(o1.softmax(x, 1), "softmax1"), named(o8.softmax(x, -1), "softmax8"),
            named(o5.log_softmax(x, -1), "log_softmax"), named(o5.log_softmax(x, 0), "log_softmax0")]
    return "softmax1_8_log_softmax5", Case(outs, [x], {"x": rand(2, 3, 4, lo=-5, hi=5)},
                                           "Softmax-1 axis 1, Softmax-8 axis -1, LogSoftmax-5 axes -1 and 0")


@case
def unary_ops():
    x = param("x", [3, 5])
    pos = o1.add(o1.abs(x), const(np.float32(0.25)))
    outs = [named(o1.exp(x), "exp"), named(o1.log(pos), "log"), named(o1.sqrt(pos), "sqrt"),
            named(o1.abs(x), "abs"), named(o1.negative(x), "neg"), named(o1.floor(x), "floor"),
            named(o1.ceiling(x), "ceil"), named(o1.sign(x), "sign"), named(o1.erf(x), "erf"),
            named(o5.round(x, "half_to_even"), "round_even"), named(o5.round(x, "half_away_from_zero"), "round_away"),
            named(o1.sin(x), "sin"), named(o1.cos(x), "cos"), named(o1.atan(x), "atan"),
            named(o1.sinh(x), "sinh"), named(o1.tan(x), "tan")]
    return "unary_math", Case(outs, [x], {"x": np.array([[-2.5, -1.5, -0.5, 0.0, 0.5], [1.5, 2.5, -0.3, 0.7, 1.2],
                                                          [-1.7, 3.0, -3.2, 0.1, -0.05]], np.float32)},
                              "Exp, Log, Sqrt, Abs, Negative, Floor, Ceiling, Sign, Erf-1, Round-5 (both modes, "
                              "ties), Sin, Cos, Atan, Sinh, Tan-1")


@case
def unary_int_ops():
    x = param("x", [6], np.int32)
    outs = [named(o1.abs(x), "abs"), named(o1.negative(x), "neg"), named(o1.sign(x), "sign"),
            named(o1.floor(x), "floor"), named(o1.clamp(x, -2.5, 3.5), "clamp")]
    xl = param("xl", [3], np.int64)
    outs += [named(o1.negative(xl), "neg64"), named(o1.abs(xl), "abs64")]
    return "unary_integers", Case(outs, [x, xl], {"x": np.array([-7, -2, 0, 1, 3, 9], np.int32),
                                                  "xl": np.array([-(1 << 30), 5, 0], np.int64)},
                                  "Abs, Negative, Sign, Floor-1 on i32 and i64; Clamp-1 on i32 with bounds -2.5, 3.5 "
                                  "(-2 and 3). i64 values stay within i32: the CPU plugin computes i64 in i32")


@case
def activation_more_ops():
    x = param("x", [3, 5])
    outs = [named(o7.gelu(x, "erf"), "gelu_erf"), named(o7.gelu(x, "tanh"), "gelu_tanh"),
            named(o2.gelu(x), "gelu2"), named(o1.elu(x, 0.7), "elu"), named(o4.softplus(x), "softplus"),
            named(o4.swish(x), "swish"), named(o4.swish(x, const(np.float32(1.7))), "swish_beta"),
            named(o1.hard_sigmoid(x, const(np.float32(0.2)), const(np.float32(0.5))), "hard_sigmoid"),
            named(o5.hsigmoid(x), "hsigmoid"), named(o4.hswish(x), "hswish"), named(o4.mish(x), "mish"),
            named(o9.softsign(x), "softsign"), named(o1.clamp(x, -0.5, 1.25), "clamp")]
    return "activations_more", Case(outs, [x], {"x": rand(3, 5, lo=-5, hi=5)},
                                    "Gelu-7 (erf, tanh), Gelu-2, Elu-1, SoftPlus-4, Swish-4 (with and without beta), "
                                    "HardSigmoid-1, HSigmoid-5, HSwish-4, Mish-4, SoftSign-9, Clamp-1")


@case
def range_ops():
    start, stop = param("start", [], np.int64), param("stop", [], np.int64)
    a = range4(start, stop, i64(3), "i64")
    b = range4(const(np.float32(0.5)), param("fstop", [], np.float32), const(np.float32(0.75)), "f32")
    c = range4(stop, start, i64(-2), "i32")
    d = o4.range(const(np.float32(1.0)), const(np.float32(-0.2)), param("fstep", [], np.float32))
    return "range4_range1", Case([named(a, "a"), named(b, "b"), named(c, "c"), named(d, "d")],
                                 [start, stop] + [n for n in [b.input_value(1).get_node(), d.input_value(2).get_node()]],
                                 {"start": np.array(-4, np.int64), "stop": np.array(7, np.int64),
                                  "fstop": np.array(3.2, np.float32), "fstep": np.array(-0.5, np.float32)},
                                 "Range-4 i64 with step 3, f32, i32 counting down with step -2; Range-1 f32 with "
                                 "step -0.5 from an input")


@case
def tile_ops():
    x = param("x", [2, 3])
    a = o1.tile(x, i64([2, 1, 2]))
    b = o1.tile(x, i64([3]))
    xi = param("xi", [2, 1, 2], np.int32)
    c = o1.tile(xi, i64([1, 0, 1]))
    return "tile1", Case([named(a, "a"), named(b, "b"), named(c, "c")], [x, xi],
                         {"x": rand(2, 3), "xi": np.arange(4, dtype=np.int32).reshape(2, 1, 2)},
                         "Tile-1: more repeats than data dims, fewer, and a 0 repeat (empty output)")


@case
def topk_ops():
    x = param("x", [3, 6])
    a = o11.topk(x, i64(3), -1, "max", "value", "i64", stable=True)
    b = o11.topk(x, const(np.int32(2)), 0, "min", "index", "i32", stable=True)
    xi = param("xi", [2, 5], np.int32)
    c = o3.topk(xi, i64(4), 1, "min", "value", "i64")
    d = o1.topk(x, i64(1), 1, "max", "value")
    xv = np.array([[0.5, 2.0, -1.0, 2.0, 0.5, 3.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
                   [-3.0, 4.0, 0.0, -3.0, 4.0, 2.5]], np.float32)
    return "topk1_3_11", Case(
        [named(a, "a_val", 0), named(a, "a_idx", 1), named(b, "b_val", 0), named(b, "b_idx", 1),
         named(c, "c_val", 0), named(c, "c_idx", 1), named(d, "d_val", 0), named(d, "d_idx", 1)],
        [x, xi], {"x": xv, "xi": np.array([[5, -2, 7, -2, 0], [1, 1, 9, -4, 3]], np.int32)},
        "TopK-11 stable max by value (ties, i64 indices) and min by index along axis 0 (k i32); TopK-3 min on i32; "
        "TopK-1 (argmax)")


@case
def convert_like_op():
    x = param("x", [5])
    like = param("like", [2], np.int32)
    y = o1.convert_like(x, like)
    return "convert_like1", Case([named(y, "y")], [x, like],
                                 {"x": np.array([2.7, -2.7, 0.0, 7.5, -0.4], np.float32),
                                  "like": np.array([0, 0], np.int32)},
                                 "ConvertLike-1 f32 to the type of an i32 input")


@case
def dynamic_shape_ops():
    # Batch and time dims unknown at load: shapes flow from ShapeOf at run time.
    x = param("x", [-1, -1, 4])
    lens = param("lens", [-1], np.int64)
    t = o8.gather(o3.shape_of(x), i64(1), i64(0))
    steps = range4(i64(0), t, i64(1), "i64")
    mask = o1.less(o1.unsqueeze(steps, i64(0)), o1.unsqueeze(lens, i64(1)))          # [N, T]
    xm = o1.select(o1.unsqueeze(mask, i64(-1)), x, const(np.float32(0)))
    mean = o1.divide(o1.reduce_sum(xm, i64(1), False), o1.convert(o1.unsqueeze(lens, i64(1)), "f32"))
    last = o8.slice(x, i64([-1]), i64([np.iinfo(np.int64).min]), i64([-1]), i64([1]))  # reversed time
    tm = o1.transpose(last, i64([1, 0, 2]))
    halves = o1.split(x, i64(-1), 2)
    probs = o8.softmax(o1.tile(halves.output(1), i64([1, 1, 2])), -1)
    top = o11.topk(probs, i64(1), -1, "max", "value", "i64", stable=True)
    first = o1.strided_slice(x, i64([0, 0]), i64([0, 1]), i64([1, 1]), begin_mask=[1, 0], end_mask=[1, 0],
                             shrink_axis_mask=[0, 1])
    return "dynamic_shapes", Case(
        [named(mean, "mean"), named(tm, "reversed_time_major"), named(top, "top_idx", 1), named(first, "first")],
        [x, lens], {"x": rand(3, 5, 4), "lens": np.array([5, 2, 3], np.int64)},
        "Dynamic batch and time: ShapeOf → Gather → Range-4 → Less length mask → Select → ReduceSum / lengths; "
        "Slice reversing time, Transpose, Split, Tile, Softmax, TopK, StridedSlice shrink")


@case
def one_hot_cumsum_ops():
    idx = param("idx", [2, 3], np.int64)
    a = o1.one_hot(idx, i64(4), const(np.float32(1.0)), const(np.float32(0.0)), -1)
    b = o1.one_hot(idx, const(np.int32(3)), const(np.int32(5)), const(np.int32(-1)), 0)
    x = param("x", [2, 4])
    c = o3.cumsum(x, i64(1))
    d = o3.cumsum(x, const(np.int32(-2)), exclusive=True, reverse=True)
    xi = param("xi", [5], np.int32)
    e = o3.cumsum(xi, i64(0), reverse=True)
    return "one_hot1_cumsum3", Case(
        [named(a, "a"), named(b, "b"), named(c, "c"), named(d, "d"), named(e, "e")], [idx, x, xi],
        {"idx": np.array([[0, 3, -1], [4, 2, 1]], np.int64), "x": rand(2, 4),
         "xi": np.array([3, -1, 4, 1, -5], np.int32)},
        "OneHot-1 axis -1 (f32) and 0 (i32) with negative and too large indices (all off); CumSum-3 plain, "
        "exclusive + reverse along -2, reverse on i32")


@case
def scatter_non_zero_ops():
    d = param("d", [4, 3])
    i = param("i", [2, 1], np.int64)
    u = param("u", [2, 1, 3])
    a = o3.scatter_update(d, i, u, i64(0))
    b = o3.scatter_update(d, const(np.array([2, 0], np.int32)), param("u2", [4, 2]), i64(-1))
    c = o4.scatter_nd_update(d, i64([[1, 2], [3, 0]]), const(np.array([7.0, 8.0], np.float32)))
    e = o4.scatter_nd_update(d, i64([[2]]), const(np.array([[1.0, 2.0, 3.0]], np.float32)))
    xi = param("xi", [2, 3], np.int32)
    nz = o3.non_zero(xi, "i64")
    nb = o3.non_zero(o1.greater(d, const(np.float32(0.5))), "i32")
    return "scatter_update3_scatter_nd_update3_non_zero3", Case(
        [named(a, "a"), named(b, "b"), named(c, "c"), named(e, "e"), named(nz, "nz"), named(nb, "nb")],
        [d, i, u, b.input_value(2).get_node(), xi],
        {"d": rand(4, 3), "i": np.array([[3], [1]], np.int64), "u": rand(2, 1, 3), "u2": rand(4, 2),
         "xi": np.array([[0, 5, 0], [-2, 0, 1]], np.int32)},
        "ScatterUpdate-3 along 0 (indices [2,1]) and -1 (i32 indices); ScatterNDUpdate-3 with element and row "
        "tuples; NonZero-3 on i32 (i64 out) and on a boolean mask (i32 out)")


@case
def mvn_ops():
    x = param("x", [2, 3, 4])
    ln = o1.add(o1.multiply(o6.mvn(x, i64([-1]), True, 1e-5, "inside_sqrt"), const(rand(4))), const(rand(4)))
    b = o6.mvn(x, i64([0, 2]), True, 0.1, "outside_sqrt")
    c = o6.mvn(x, i64([1]), False, 1e-9, "inside_sqrt")
    d = o2.mvn(x, True, True, 1e-3)
    e = o2.mvn(x, False, True, 1e-3)
    return "mvn1_mvn6", Case([named(ln, "layer_norm"), named(b, "b"), named(c, "c"), named(d, "d"), named(e, "e")],
                             [x], {"x": rand(2, 3, 4, lo=-2, hi=2)},
                             "MVN-6 as LayerNorm (axis -1, then scale and shift), over axes [0, 2] with eps outside "
                             "the square root, mean only; MVN-1 across channels and per channel")


@case
def pad_gather_elements_ops():
    x = param("x", [3, 4])
    a = o12.pad(x, i64([1, -1]), i64([0, 2]), "constant", const(np.float32(9.5)))
    b = o1.pad(x, i64([2, 1]), i64([1, 0]), "edge")
    c = o12.pad(x, i64([2, 3]), i64([1, 1]), "reflect")
    d = o12.pad(x, i64([0, 2]), i64([3, 4]), "symmetric")
    xi = param("xi", [2, 3], np.int32)
    e = o12.pad(xi, i64([1, 0]), i64([0, 1]), "constant")
    idx = param("idx", [3, 2], np.int64)
    g = o6.gather_elements(x, idx, 1)
    h = o6.gather_elements(x, i64([[2, -1, 0, 1]]), -2)
    return "pad1_12_gather_elements6", Case(
        [named(a, "a"), named(b, "b"), named(c, "c"), named(d, "d"), named(e, "e"), named(g, "g"), named(h, "h")],
        [x, xi, idx],
        {"x": rand(3, 4), "xi": np.arange(6, dtype=np.int32).reshape(2, 3),
         "idx": np.array([[3, 0], [1, -1], [2, 2]], np.int64)},
        "Pad-12 constant with a value and a negative (cropping) pad, Pad-1 edge, Pad-12 reflect and symmetric "
        "(pads up to the dim), i32 zeros; GatherElements-6 along 1 and -2 with negative indices")


@case
def gather_nd_ops():
    x = param("x", [2, 3, 4])
    a = o8.gather_nd(x, i64([[1, -1], [0, 2]]), 0)
    b = o8.gather_nd(x, i64([[[2], [0]], [[1], [1]]]), 1)
    c = o5.gather_nd(x, i64([[[2, 3]], [[0, -4]]]), 1)
    mask = o1.greater(x, const(np.float32(0.3)))
    d = o8.gather_nd(x, o1.transpose(o3.non_zero(mask, "i64"), i64([1, 0])), 0)
    return "gather_nd5_8", Case([named(a, "a"), named(b, "b"), named(c, "c"), named(d, "masked_select")], [x],
                                {"x": rand(2, 3, 4)},
                                "GatherND-8 rows by pairs (negative index), batch_dims 1; GatherND-5 batch_dims 1 "
                                "(batch merged); masked_select as NonZero → Transpose → GatherND")


@case
def scatter_elements_update_ops():
    x = param("x", [3, 4])
    a = o3.scatter_elements_update(x, i64([[1, 0, 2, -1], [0, 2, 1, 0]]), param("u", [2, 4]), i64(0))
    b = o12.scatter_elements_update(x, const(np.array([[3], [0], [-2]], np.int32)),
                                    const(np.array([[7.0], [8.0], [9.0]], np.float32)), i64(-1), "none")
    return "scatter_elements_update3_12", Case([named(a, "a"), named(b, "b")], [x, a.input_value(2).get_node()],
                                               {"x": rand(3, 4), "u": rand(2, 4)},
                                               "ScatterElementsUpdate-3 along 0 with a negative index, indices "
                                               "smaller than data; ScatterElementsUpdate-12 reduction none along -1")


@case
def text_classifier_head():
    # Embedding → (LSTM output stand-in) → mean and max pooling over time → Linear → Softmax.
    tokens = param("tokens", [2, 5], np.int64)
    emb = const(rand(10, 6))
    e = o8.gather(emb, tokens, i64(0))
    pooled = o1.concat([o1.reduce_mean(e, i64([1]), False), o1.reduce_max(e, i64([1]), False)], 1)
    logits = o1.add(o1.matmul(pooled, const(rand(3, 12)), False, True), const(rand(3)))
    probs = o8.softmax(logits, -1)
    top = o1.convert(o1.reduce_max(probs, i64([-1]), True), "f32")
    mask = o1.greater_equal(probs, top)
    return "text_classifier_head", Case([named(probs, "probs"), named(mask, "argmax_mask")], [tokens],
                                        {"tokens": np.array([[1, 4, 4, 9, 0], [3, 3, 7, 2, 8]], np.int64)},
                                        "Embedding (Gather) → mean and max pooling (ReduceMean, ReduceMax, Concat) → "
                                        "MatMul + Add → Softmax-8 → GreaterEqual against the row max")


@case
def attention_step():
    # One decoder step of dot-product attention over encoder states [T, N, H] (time-major).
    enc = param("enc", [4, 2, 3])
    h = param("h", [2, 3])
    keys = o1.transpose(enc, i64([1, 0, 2]))                       # [N, T, H]
    scores = o1.matmul(keys, o1.unsqueeze(h, i64([-1])), False, False)  # [N, T, 1]
    scores = o1.squeeze(scores, i64([-1]))
    lens = param("lens", [2], np.int64)
    valid = o1.less(o4.range(i64(0), i64(4), i64(1)), o1.unsqueeze(lens, i64([1])))
    masked = o1.select(valid, scores, const(np.float32(-1e9)))
    w = o8.softmax(masked, 1)
    ctx = o1.squeeze(o1.matmul(o1.unsqueeze(w, i64([1])), keys, False, False), i64([1]))
    out = o1.tanh(o1.concat([ctx, h], -1))
    parts = o1.split(out, i64(1), 2)
    return "attention_step", Case([named(w, "weights"), named(parts, "p0", 0), named(parts, "p1", 1)],
                                  [enc, h, lens],
                                  {"enc": rand(4, 2, 3), "h": rand(2, 3), "lens": np.array([4, 2], np.int64)},
                                  "Dot-product attention step: Transpose, MatMul, Range + Less length mask, Select, "
                                  "Softmax, Concat, Tanh, Split")



def main():
    prefix = sys.argv[1] if len(sys.argv) > 1 else ""
    os.makedirs(ROOT, exist_ok=True)
    readme = ["# OpenVINO cases", "",
              "Generated by `tools/ov_cases/make_cases.py` with PyPI `openvino` "
              f"{ov.__version__.split('-')[0]} (CPU plugin, INFERENCE_PRECISION_HINT=f32). "
              "`spec` cases take their expected outputs from the specification (numpy) where the "
              "CPU plugin departs from it. Checked by `tests/graph_ov_cases.rs`.", "",
              "| case | expected from | what |", "| --- | --- | --- |"]
    for fn in CASES:
        name, c = fn()
        if not name.startswith(prefix):
            continue
        source = save(name, c)
        if getattr(c, "peephole", None) is not None:
            add_peephole(os.path.join(ROOT, name), c.peephole)
        readme.append(f"| {name} | {source} | {c.note} |")
        print(f"{name}: {source}")
        if getattr(c, "as_tensor_iterator", None):
            ti_name, ti_note = c.as_tensor_iterator
            loop_to_tensor_iterator(os.path.join(ROOT, name), os.path.join(ROOT, ti_name), ti_note)
            readme.append(f"| {ti_name} | {source} | {ti_note} |")
            print(f"{ti_name}: {source}")
    if not prefix:
        with open(os.path.join(ROOT, "README.md"), "w") as fh:
            fh.write("\n".join(readme) + "\n")


def loop_to_tensor_iterator(src, dst, note):
    """Copies the case directory `src`, whose model holds a Loop-5 with a constant trip count,
    a constant true condition and no current_iteration input, to `dst` with that Loop rewritten
    as the equivalent TensorIterator-1 (the trip count and condition inputs and the condition
    output dropped; the iteration count then comes from the concatenated output's dims). The
    expected outputs stay OpenVINO's for the Loop: OpenVINO refuses to build a TensorIterator
    nested in a TensorIterator, so it cannot run the rewritten model itself."""
    import xml.etree.ElementTree as ET
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    xml = os.path.join(dst, "model.xml")
    tree = ET.parse(xml)
    layers, edges = tree.getroot().find("layers"), tree.getroot().find("edges")
    loop = next(l for l in layers if l.get("type") == "Loop")
    loop.set("type", "TensorIterator")
    loop.set("name", loop.get("name").replace("Loop", "TensorIterator"))
    loop.set("version", "opset1")
    port_map = loop.find("port_map")
    for e in [e for e in port_map if e.get("purpose")]:
        port_map.remove(e)
    ports = loop.find("input")
    for p in [p for p in ports if p.get("id") in ("0", "1")]:
        ports.remove(p)
    for e in [e for e in edges if e.get("to-layer") == loop.get("id") and e.get("to-port") in ("0", "1")]:
        edges.remove(e)
        layers.remove(next(l for l in layers if l.get("id") == e.get("from-layer")))
    tree.write(xml)
    manifest = os.path.join(dst, "case.txt")
    with open(manifest) as fh:
        lines = [l for l in fh.read().splitlines() if not l.startswith("note\t")]
    with open(manifest, "w") as fh:
        fh.write("\n".join(lines + [f"note\t{note}"]) + "\n")


# ----------------------------------------------------------------------------- ONNX Scan (unfused body)
class ConvertedCase(Case):
    def __init__(self, model, inputs, note):
        self.model, self.inputs, self.note, self.expected = model, inputs, note, None


@case
def scan_onnx_matmul_tanh():
    from scan_model import onnx_scan
    m, inputs = onnx_scan(3, 7, 37, seed=1)
    return "scan_onnx_matmul_tanh", ConvertedCase(
        m, inputs, "ONNX Scan (MatMul/Add/Tanh body, H 37) converted by OpenVINO: a TensorIterator whose "
        "body runs op by op over buffers planned once, MatMul by a packed constant")


@case
def scan_onnx_reverse_batch_first():
    from scan_model import onnx_scan
    m, inputs = onnx_scan(2, 5, 32, seed=2, reverse=True, axis=1)
    return "scan_onnx_reverse_batch_first", ConvertedCase(
        m, inputs, "ONNX Scan as above, scanning axis 1 backwards (input and output): stride -1 slices and "
        "concatenation")


def add_peephole(d, p):
    """Gives the LSTMCell-1 of the saved model a 7th input: a Const P appended to the .bin."""
    import xml.etree.ElementTree as ET
    xml = os.path.join(d, "model.xml")
    binf = os.path.join(d, "model.bin")
    offset = os.path.getsize(binf)
    with open(binf, "ab") as fh:
        fh.write(p.astype("<f4").tobytes())
    tree = ET.parse(xml)
    layers = tree.getroot().find("layers")
    cell = next(l for l in layers if l.get("type") == "LSTMCell")
    new_id = str(max(int(l.get("id")) for l in layers) + 1)
    const_layer = ET.SubElement(layers, "layer", id=new_id, name="P", type="Const", version="opset1")
    ET.SubElement(const_layer, "data", element_type="f32", shape=str(p.size), offset=str(offset), size=str(p.nbytes))
    port = ET.SubElement(ET.SubElement(const_layer, "output"), "port", id="0", precision="FP32")
    ET.SubElement(port, "dim").text = str(p.size)
    ports = cell.find("input")
    all_ids = [int(x.get("id")) for x in cell.iter("port")]
    pid = str(max(all_ids) + 1)
    inp = ET.SubElement(ports, "port", id=pid, precision="FP32")
    ET.SubElement(inp, "dim").text = str(p.size)
    ET.SubElement(tree.getroot().find("edges"), "edge", {"from-layer": new_id, "from-port": "0",
                                                         "to-layer": cell.get("id"), "to-port": pid})
    tree.write(xml)


if __name__ == "__main__":
    main()
