"""oxidnn.dnnl, the low-level access: descriptors, memories over numpy buffers, attributes, the
forward primitive descriptor of every RNN cell, reorders and execution (results against the
numpy reference of the equations)."""
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


# cell: (pd function, PyTorch gate rows per oneDNN gate, oneDNN bias from b_ih, b_hh, reference)
CELLS = {
    "vanilla_rnn": (dnnl.vanilla_rnn_forward, [0], lambda i, h: i + h,
                    lambda p, x, s, a: numpy_rnn.rnn_step(p, x, s, "tanh")),
    "lstm": (dnnl.lstm_forward, [0, 1, 2, 3], lambda i, h: i + h,
             lambda p, x, s, a: numpy_rnn.lstm_step(p, x, s)),
    "gru": (dnnl.gru_forward, [1, 0, 2], lambda i, h: i + h,
            lambda p, x, s, a: numpy_rnn.gru_step(p, x, s, False)),
    "lbr_gru": (dnnl.lbr_gru_forward, [1, 0, 2],
                lambda i, h: np.concatenate([i[:2] + h[:2], i[2:], h[2:]]),
                lambda p, x, s, a: numpy_rnn.gru_step(p, x, s, True)),
    "augru": (dnnl.augru_forward, [1, 0, 2], lambda i, h: i + h,
              lambda p, x, s, a: numpy_rnn.gru_step(p, x, s, False, a)),
    "lbr_augru": (dnnl.lbr_augru_forward, [1, 0, 2],
                  lambda i, h: np.concatenate([i[:2] + h[:2], i[2:], h[2:]]),
                  lambda p, x, s, a: numpy_rnn.gru_step(p, x, s, True, a)),
}


@pytest.mark.parametrize("cell", sorted(CELLS))
def test_every_rnn_cell(cell):
    """One layer of each cell built from descriptors, weights reordered into the layout the pd
    picks, batch-major input used in place, per-sample lengths on."""
    create, order, bias, step = CELLS[cell]
    G, lstm, attention_cell = len(order), cell == "lstm", "augru" in cell
    rng = np.random.default_rng(len(cell))
    params = {k: rng.uniform(-0.6, 0.6, shape).astype(np.float32) for k, shape in [
        ("weight_ih_l0", (G * H, SLC)), ("weight_hh_l0", (G * H, H)),
        ("bias_ih_l0", (G * H,)), ("bias_hh_l0", (G * H,))]}
    x_batch_major = rng.standard_normal((N, T, SLC)).astype(np.float32)
    x = x_batch_major.transpose(1, 0, 2)
    h0 = rng.standard_normal((1, 1, N, H)).astype(np.float32)
    attention = rng.uniform(0, 1, (T, N, 1)).astype(np.float32)
    lengths = np.array([4, 1, 3], np.int32)

    b = {k: params[f"bias_{k}_l0"].reshape(G, H)[order] for k in ("ih", "hh")}
    w_layer = dnnl.Memory.from_array(ldigo(params["weight_ih_l0"], order))
    w_iter = dnnl.Memory.from_array(ldigo(params["weight_hh_l0"], order))
    mem = {C.DNNL_ARG_SRC_LAYER: dnnl.Memory.from_array(x),  # ntc strides, zero-copy
           C.DNNL_ARG_SRC_ITER: dnnl.Memory.from_array(h0),
           C.DNNL_ARG_BIAS: dnnl.Memory.from_array(bias(b["ih"], b["hh"])[None, None].copy()),
           C.DNNL_ARG_DST_LAYER: dnnl.Memory(dnnl.MemoryDesc((T, N, H), tag="tnc")),
           C.DNNL_ARG_DST_ITER: dnnl.Memory(dnnl.MemoryDesc((1, 1, N, H), tag="ldnc"))}
    if lstm:
        c0 = rng.standard_normal((1, 1, N, H)).astype(np.float32)
        mem[C.DNNL_ARG_SRC_ITER_C] = dnnl.Memory.from_array(c0)
        mem[C.DNNL_ARG_DST_ITER_C] = dnnl.Memory(dnnl.MemoryDesc((1, 1, N, H), tag="ldnc"))
    if attention_cell:
        mem[C.DNNL_ARG_AUGRU_ATTENTION] = dnnl.Memory.from_array(attention)
    any_w = [dnnl.MemoryDesc(w.desc.dims, tag="any") for w in (w_layer, w_iter)]
    md = {k: m.desc for k, m in mem.items()}
    attr = dnnl.PrimitiveAttr()
    attr.seq_lengths = True
    direction = "unidirectional_left2right"
    src, src_iter = md[C.DNNL_ARG_SRC_LAYER], md[C.DNNL_ARG_SRC_ITER]
    dst, dst_iter = md[C.DNNL_ARG_DST_LAYER], md[C.DNNL_ARG_DST_ITER]
    if cell == "vanilla_rnn":
        pd = create("forward_inference", "eltwise_tanh", direction, src, src_iter, *any_w,
                    md[C.DNNL_ARG_BIAS], dst, dst_iter, attr=attr)
    elif lstm:
        pd = create("forward_inference", direction, src, src_iter, md[C.DNNL_ARG_SRC_ITER_C],
                    *any_w, None, None, md[C.DNNL_ARG_BIAS], dst, dst_iter,
                    md[C.DNNL_ARG_DST_ITER_C], attr=attr)
    elif attention_cell:
        pd = create("forward_inference", direction, src, src_iter,
                    md[C.DNNL_ARG_AUGRU_ATTENTION], *any_w, md[C.DNNL_ARG_BIAS], dst, dst_iter,
                    attr=attr)
    else:
        pd = create("forward_inference", direction, src, src_iter, *any_w, md[C.DNNL_ARG_BIAS],
                    dst, dst_iter, attr=attr)
    assert pd.query_md("src_md") == src
    for arg, w in ((C.DNNL_ARG_WEIGHTS_LAYER, w_layer), (C.DNNL_ARG_WEIGHTS_ITER, w_iter)):
        want = pd.arg_md(arg)
        assert want.dims == w.desc.dims
        packed = dnnl.Memory(want)
        dnnl.execute(dnnl.Primitive(dnnl.reorder(w.desc, want)),
                     {C.DNNL_ARG_FROM: w, C.DNNL_ARG_TO: packed})
        mem[arg] = packed
    mem[C.OXIDNN_ARG_SEQ_LENGTHS] = dnnl.Memory(pd.arg_md(C.OXIDNN_ARG_SEQ_LENGTHS), lengths)
    dnnl.execute(dnnl.Primitive(pd), mem)

    states = [h0[0]] + ([c0[0]] if lstm else [])
    want_y, want_h = numpy_rnn.run(step, params, x, states, 1, False, lengths.tolist(),
                                   attention[..., 0])
    np.testing.assert_allclose(mem[C.DNNL_ARG_DST_LAYER].numpy(), want_y, rtol=0, atol=1e-5)
    np.testing.assert_allclose(mem[C.DNNL_ARG_DST_ITER].numpy()[0], want_h[0], rtol=0,
                               atol=1e-5)
    if lstm:
        np.testing.assert_allclose(mem[C.DNNL_ARG_DST_ITER_C].numpy()[0], want_h[1], rtol=0,
                                   atol=1e-5)


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
