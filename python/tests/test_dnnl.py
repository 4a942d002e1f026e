"""oxidnn.dnnl, the low-level access: descriptors, memories over numpy buffers, attributes, the
forward primitive descriptor of every RNN cell, reorders and execution (results against the
numpy reference of the equations)."""
import inspect

import numpy as np
import pytest

import oxidnn
from oxidnn import dnnl
from oxidnn.dnnl import C
import numpy_rnn

T, N, SLC, H = 4, 3, 5, 6


def test_memory_desc_queries():
    md = dnnl.MemoryDesc((T, N, SLC), tag="tnc")
    assert md.ndims == 3 and md.dims == (T, N, SLC) and md.data_type == C.dnnl_f32
    assert md.strides == (N * SLC, SLC, 1) and md.size == T * N * SLC * 4
    assert dnnl.MemoryDesc((T, N, SLC), tag="ntc").strides == (SLC, T * SLC, 1)
    assert md == dnnl.MemoryDesc((T, N, SLC))  # dense row-major by default
    assert md != dnnl.MemoryDesc((T, N, SLC), tag="ntc")
    assert dnnl.MemoryDesc((2, 3), np.int32).data_type == C.dnnl_s32
    assert dnnl.MemoryDesc((1, 1, SLC, 4, H), tag="any").strides is None
    batch_major = np.zeros((N, T, SLC), np.float32)
    view = dnnl.MemoryDesc.from_array(batch_major.transpose(1, 0, 2))
    assert view == dnnl.MemoryDesc((T, N, SLC), tag="ntc")
    with pytest.raises(ValueError):
        dnnl.MemoryDesc.from_array(np.zeros(4, np.float32)[::-1])


def test_memory_over_numpy_is_zero_copy():
    a = np.arange(N * T * SLC, dtype=np.float32).reshape(N, T, SLC)
    view = a.transpose(1, 0, 2)  # time-major view of batch-major data: no copy
    mem = dnnl.Memory.from_array(view)
    assert mem.data_handle == a.ctypes.data
    got = mem.numpy()
    assert got.shape == (T, N, SLC) and np.shares_memory(got, a)
    a[1, 2, 3] = -7
    assert got[2, 1, 3] == -7
    own = dnnl.Memory(dnnl.MemoryDesc((2, 3)))  # library-allocated, viewed in place
    own.numpy()[:] = [[1, 2, 3], [4, 5, 6]]
    np.testing.assert_array_equal(own.numpy(), [[1, 2, 3], [4, 5, 6]])
    b = np.zeros((2, 3), np.float32)
    own.set_array(b)
    assert own.data_handle == b.ctypes.data
    with pytest.raises(ValueError):  # dtype
        own.set_array(np.zeros((2, 3), np.float64))
    with pytest.raises(ValueError):  # too small
        own.set_array(np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError):  # strides differ from the descriptor's
        own.set_array(np.zeros((3, 2), np.float32).T)


def test_attributes():
    attr = dnnl.PrimitiveAttr()
    assert not attr.seq_lengths
    attr.seq_lengths = True
    assert attr.seq_lengths


def ldigo(w, order):
    """PyTorch's [G*H, C] rows, gates reordered by `order`, as oneDNN's (1, 1, C, G, H)."""
    G = len(order)
    return np.ascontiguousarray(w.reshape(G, H, -1)[order].transpose(2, 0, 1)[None, None])


# cell: (PyTorch gate rows per oneDNN gate, linear before reset, reference step)
CELLS = {
    "vanilla_rnn": ([0], False, lambda p, x, s, a: numpy_rnn.rnn_step(p, x, s, "tanh")),
    "lstm": ([0, 1, 2, 3], False, lambda p, x, s, a: numpy_rnn.lstm_step(p, x, s)),
    "gru": ([1, 0, 2], False, lambda p, x, s, a: numpy_rnn.gru_step(p, x, s, False)),
    "lbr_gru": ([1, 0, 2], True, lambda p, x, s, a: numpy_rnn.gru_step(p, x, s, True)),
    "augru": ([1, 0, 2], False, lambda p, x, s, a: numpy_rnn.gru_step(p, x, s, False, a)),
    "lbr_augru": ([1, 0, 2], True, lambda p, x, s, a: numpy_rnn.gru_step(p, x, s, True, a)),
}


def onednn_bias(b_ih, b_hh, order, lbr):
    """oneDNN's bias (1, 1, G(+1), H) from PyTorch's two; linear-before-reset keeps b_hn."""
    i, h = (b.reshape(len(order), H)[order] for b in (b_ih, b_hh))
    b = np.concatenate([i[:2] + h[:2], i[2:], h[2:]]) if lbr else i + h
    return np.ascontiguousarray(b[None, None])


def make_pd(cell, prop, **kwargs):
    """dnnl.<cell>_<prop> with every descriptor parameter not in kwargs None."""
    function = getattr(dnnl, f"{cell}_{prop}")
    params = inspect.signature(function).parameters
    kwargs = {**{k: None for k, p in params.items() if p.default is p.empty},
              "direction": "unidirectional_left2right", "activation": "eltwise_tanh", **kwargs}
    return function(**{k: v for k, v in kwargs.items() if k in params})


class Problem:
    """One layer of `cell`: PyTorch-style parameters, input (batch-major, viewed time-major),
    initial states, attention; `reference(...)` runs the numpy reference."""

    def __init__(self, cell):
        self.cell = cell
        self.order, self.lbr, self.step = CELLS[cell]
        G, rng = len(self.order), np.random.default_rng(len(cell))
        self.params = {k: rng.uniform(-0.6, 0.6, shape) for k, shape in [
            ("weight_ih_l0", (G * H, SLC)), ("weight_hh_l0", (G * H, H)),
            ("bias_ih_l0", (G * H,)), ("bias_hh_l0", (G * H,))]}
        self.x_batch_major = rng.standard_normal((N, T, SLC)).astype(np.float32)
        self.x = self.x_batch_major.transpose(1, 0, 2)
        self.states = [rng.standard_normal((1, 1, N, H)).astype(np.float32)
                       for _ in range(2 if cell == "lstm" else 1)]
        self.attention = rng.uniform(0, 1, (T, N, 1)).astype(np.float32)

    def weights(self, params=None):
        """{argument name: numpy array} of the weights in oneDNN's plain layouts."""
        p = {k: v.astype(np.float32) for k, v in (params or self.params).items()}
        return {"weights_layer": ldigo(p["weight_ih_l0"], self.order),
                "weights_iter": ldigo(p["weight_hh_l0"], self.order),
                "bias": onednn_bias(p["bias_ih_l0"], p["bias_hh_l0"], self.order, self.lbr)}

    def inputs(self):
        arrays = {"src_layer": self.x, "src_iter": self.states[0], **self.weights()}
        if self.cell == "lstm":
            arrays["src_iter_c"] = self.states[1]
        if "augru" in self.cell:
            arrays["attention"] = self.attention
        return arrays

    def reference(self, lengths=None, x=None, states=None, attention=None, params=None):
        y, finals = numpy_rnn.run(
            self.step, self.params if params is None else params,
            self.x if x is None else x, [s[0] for s in (states or self.states)], 1, False,
            lengths, (self.attention if attention is None else attention)[..., 0])
        return y, finals

    def outputs(self):
        """{argument name: library-allocated Memory} of the outputs."""
        out = {"dst_layer": dnnl.Memory(dnnl.MemoryDesc((T, N, H), tag="tnc")),
               "dst_iter": dnnl.Memory(dnnl.MemoryDesc((1, 1, N, H), tag="ldnc"))}
        if self.cell == "lstm":
            out["dst_iter_c"] = dnnl.Memory(dnnl.MemoryDesc((1, 1, N, H), tag="ldnc"))
        return out


NAMES = {"src_layer": "SRC_LAYER", "src_iter": "SRC_ITER", "src_iter_c": "SRC_ITER_C",
         "attention": "AUGRU_ATTENTION", "weights_layer": "WEIGHTS_LAYER",
         "weights_iter": "WEIGHTS_ITER", "bias": "BIAS", "dst_layer": "DST_LAYER",
         "dst_iter": "DST_ITER", "dst_iter_c": "DST_ITER_C"}
ARGS = {k: getattr(C, "DNNL_ARG_" + v) for k, v in NAMES.items()}  # argument name: index
ARGS.update({"diff_" + k: getattr(C, "DNNL_ARG_DIFF_" + v) for k, v in NAMES.items()})


def in_layout(pd, arg, mem):
    """`mem`, or a reorder of it into the layout `pd` wants for `arg`."""
    want = pd.arg_md(arg)
    if want == mem.desc:
        return mem
    packed = dnnl.Memory(want)
    dnnl.execute(dnnl.Primitive(dnnl.reorder(mem.desc, want)),
                 {C.DNNL_ARG_FROM: mem, C.DNNL_ARG_TO: packed})
    return packed


@pytest.mark.parametrize("cell", sorted(CELLS))
def test_every_rnn_cell_forward(cell):
    """One layer of each cell built from descriptors, weights reordered into the layout the pd
    picks (`any`), batch-major input used in place, per-sample lengths on."""
    prob = Problem(cell)
    mem = {k: dnnl.Memory.from_array(a) for k, a in prob.inputs().items()}  # zero-copy
    mem.update(prob.outputs())
    md = {k: m.desc for k, m in mem.items()}
    for k in ("weights_layer", "weights_iter"):
        md[k] = dnnl.MemoryDesc(md[k].dims, tag="any")
    attr = dnnl.PrimitiveAttr()
    attr.seq_lengths = True
    pd = make_pd(cell, "forward", prop_kind="forward_inference", attr=attr, **md)
    assert pd.query_md("src_md") == md["src_layer"]
    args = {ARGS[k]: in_layout(pd, ARGS[k], m) for k, m in mem.items()}
    lengths = np.array([4, 1, 3], np.int32)
    args[C.OXIDNN_ARG_SEQ_LENGTHS] = dnnl.Memory(pd.arg_md(C.OXIDNN_ARG_SEQ_LENGTHS), lengths)
    dnnl.execute(dnnl.Primitive(pd), args)

    want_y, want_h = prob.reference(lengths.tolist())
    np.testing.assert_allclose(mem["dst_layer"].numpy(), want_y, rtol=0, atol=1e-5)
    for k, want in zip(("dst_iter", "dst_iter_c"), want_h):
        np.testing.assert_allclose(mem[k].numpy()[0], want, rtol=0, atol=1e-5)


def numeric_gradient(loss, array, eps=1e-4):
    """d loss / d array by central differences (float64)."""
    array = array.astype(np.float64)
    grad = np.zeros_like(array)
    for i in np.ndindex(array.shape):
        saved = array[i]
        array[i] = saved + eps
        up = loss(array)
        array[i] = saved - eps
        grad[i] = (up - loss(array)) / (2 * eps)
        array[i] = saved
    return grad


@pytest.mark.parametrize("cell", sorted(CELLS))
def test_every_rnn_cell_backward(cell):
    """Forward training (workspace) then backward on plain layouts; the gradients of
    sum(dst_layer * g) + sum(dst_iter * g_h) (+ c) with respect to the inputs, states, weights
    and bias equal the numpy reference's by central differences."""
    prob = Problem(cell)
    if "augru" in cell:
        # oneDNN's AUGRU backward uses the raw update gate where the forward's gradient has the
        # attention-scaled one (and so does this library, for compatibility): the two agree,
        # diff_attention aside, when the attention is 0
        prob.attention[:] = 0
    rng = np.random.default_rng(99)
    mem = {k: dnnl.Memory.from_array(a) for k, a in prob.inputs().items()}
    mem.update(prob.outputs())
    grads_out = {k: rng.standard_normal(m.desc.dims).astype(np.float32)
                 for k, m in mem.items() if k.startswith("dst")}
    for k, g in grads_out.items():
        mem["diff_" + k] = dnnl.Memory.from_array(g)
    for k in list(prob.inputs()):  # diff_weights and diff_bias accumulate: zeros
        mem["diff_" + k] = dnnl.Memory.from_array(np.zeros(mem[k].desc.dims, np.float32))
    md = {k: m.desc for k, m in mem.items()}
    fwd = make_pd(cell, "forward", prop_kind="forward_training", **md)
    bwd = make_pd(cell, "backward", prop_kind="backward", hint_fwd_pd=fwd, **md)
    workspace = dnnl.Memory(fwd.query_md("workspace_md"))
    dnnl.execute(dnnl.Primitive(fwd), {**{ARGS[k]: mem[k] for k in md if not
                                          k.startswith("diff")},
                                       C.DNNL_ARG_WORKSPACE: workspace})
    dnnl.execute(dnnl.Primitive(bwd), {**{ARGS[k]: in_layout(bwd, ARGS[k], m)
                                          for k, m in mem.items()},
                                       C.DNNL_ARG_WORKSPACE: workspace})

    def loss(**change):
        y, finals = prob.reference(**change)
        total = np.sum(y * grads_out["dst_layer"])
        for k, f in zip(("dst_iter", "dst_iter_c"), finals):
            total += np.sum(f * grads_out[k][0])
        return total

    def check(name, want):
        np.testing.assert_allclose(mem[name].numpy(), want, rtol=1e-3, atol=2e-4)

    check("diff_src_layer", numeric_gradient(lambda a: loss(x=a), prob.x))
    for k, name in enumerate(["diff_src_iter", "diff_src_iter_c"][:len(prob.states)]):
        check(name, numeric_gradient(
            lambda a: loss(states=[a if j == k else s for j, s in enumerate(prob.states)]),
            prob.states[k]))
    d = {k: numeric_gradient(lambda a: loss(params={**prob.params, k: a}), v)
         for k, v in prob.params.items()}
    check("diff_weights_layer", ldigo(d["weight_ih_l0"], prob.order))
    check("diff_weights_iter", ldigo(d["weight_hh_l0"], prob.order))
    # the bias: oneDNN's rows are sums (or, linear before reset, b_in and b_hn apart)
    i, h = (d[f"bias_{k}_l0"].reshape(len(prob.order), H)[prob.order] for k in ("ih", "hh"))
    check("diff_bias", (np.concatenate([i, h[2:]]) if prob.lbr else i)[None, None])


def test_errors_carry_the_library_text():
    src = dnnl.MemoryDesc((T, N, SLC), tag="tnc")
    w = dnnl.MemoryDesc((1, 1, SLC + 1, 3, H), tag="any")  # SLC mismatch
    wi = dnnl.MemoryDesc((1, 1, H, 3, H), tag="any")
    dst = dnnl.MemoryDesc((T, N, H), tag="tnc")
    with pytest.raises(oxidnn.Error) as e:
        dnnl.lbr_gru_forward("forward_inference", "unidirectional_left2right", src, None, w, wi,
                             None, dst, None)
    assert e.value.status == C.dnnl_invalid_arguments and e.value.message
    opaque = dnnl.lbr_gru_forward(
        "forward_inference", "unidirectional_left2right", src, None,
        dnnl.MemoryDesc((1, 1, SLC, 3, H), tag="any"), wi, None, dst, None).arg_md(
        C.DNNL_ARG_WEIGHTS_LAYER)
    assert opaque.strides is None  # the packed layout `any` resolves to has no numpy view
    with pytest.raises(ValueError):
        dnnl.Memory(opaque).numpy()
