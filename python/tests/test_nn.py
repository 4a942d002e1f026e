"""oxidnn.nn against PyTorch: the committed outputs (tools/make_torch_refs.py) and, where torch
is installed, live."""
import ctypes
import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import oxidnn
from oxidnn import nn

REFS = np.load(Path(__file__).parent / "data" / "torch_refs.npz")
CASES = sorted({k.split("/")[0] for k in REFS.files})
TOL = 1e-5


def case(name):
    """(config, state_dict, x, hx, y, h_n) of a committed case; hx / h_n as the cell takes them;
    config["lengths"] holds the per-sample lengths (or None)."""
    cfg = json.loads(str(REFS[f"{name}/config"]))
    params = {k.split("/", 2)[2]: REFS[k] for k in REFS.files if k.startswith(f"{name}/param/")}
    states = [sorted(k for k in REFS.files if k.startswith(f"{name}/{p}")) for p in ("h0", "h_n")]
    hx, h_n = ([REFS[k] for k in keys] for keys in states)
    as_cell = (lambda s: tuple(s)) if cfg["cell"] == "LSTM" else (lambda s: s[0])
    hx = as_cell(hx) if hx else None
    cfg["lengths"] = REFS[f"{name}/lengths"] if cfg.get("lengths") else None
    return cfg, params, REFS[f"{name}/x"], hx, REFS[f"{name}/y"], as_cell(h_n)


def module(cfg, x):
    """The oxidnn module of a config (input size from x)."""
    return getattr(nn, cfg["cell"])(x.shape[-1], 6, **cfg["kwargs"])


def assert_close(got, want):
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=0, atol=TOL)


@pytest.mark.parametrize("name", CASES)
def test_matches_committed_torch_outputs(name):
    cfg, params, x, hx, y, h_n = case(name)
    m = module(cfg, x)
    assert {k: v.shape for k, v in m.state_dict().items()} == \
        {k: v.shape for k, v in params.items()}
    m.load_state_dict(params)
    for k, v in params.items():  # attributes as torch's, read-only
        np.testing.assert_array_equal(getattr(m, k), v)
        assert not getattr(m, k).flags.writeable
    got_y, got_h = m(x, hx, cfg["lengths"])
    assert_close(got_y, y)
    assert_close(got_h, h_n)


def test_every_cell_and_option_is_covered():
    cfgs = [json.loads(str(REFS[f"{n}/config"])) for n in CASES]
    assert {c["cell"] for c in cfgs} == {"LSTM", "GRU", "RNN"}
    for option in ("bidirectional", "batch_first", "proj_size", "num_layers", "nonlinearity",
                   "bias"):
        assert any(option in c["kwargs"] for c in cfgs), option
    assert {c["hx"] for c in cfgs} == {True, False}
    assert {c["batched"] for c in cfgs} == {True, False}
    with_lengths = [c for c in cfgs if c["lengths"]]
    assert {c["cell"] for c in with_lengths} == {"LSTM", "GRU", "RNN"}
    for option in ("bidirectional", "batch_first", "proj_size", "num_layers"):
        assert any(option in c["kwargs"] for c in with_lengths), option


def test_shape_change_and_repeat_reuse_packed_weights():
    cfg, params, x, hx, y, h_n = case("lstm_proj_bi_2l_hx")
    m = module(cfg, x)
    m.load_state_dict(params)
    for _ in range(2):
        assert_close(m(x, hx)[0], y)
        # batch entries are independent: the first one alone gives the same rows
        got_y, (got_h, got_c) = m(x[:, :1], (hx[0][:, :1], hx[1][:, :1]))
        assert_close(got_y, y[:, :1])
        assert_close((got_h, got_c), (h_n[0][:, :1], h_n[1][:, :1]))
    assert len(m._plans) == 2
    for layer in m._layers:  # at most one packed copy per weight tensor
        assert all(len(w.packed) <= 1 for w in layer.values())
    m.plan_cache_size = 2  # a third shape evicts the first
    got_y, _ = m(x[:, :2], (hx[0][:, :2], hx[1][:, :2]))
    assert_close(got_y, y[:, :2])
    assert [k[0] for k in m._plans] == [x[:, :1].shape, x[:, :2].shape]
    assert_close(m(x, hx)[0], y)


def test_lengths_equal_running_each_sample_alone():
    cfg, params, x, hx, y, h_n = case("lstm_bi_2l_hx_len")
    m = module(cfg, x)
    m.load_state_dict(params)
    lengths = cfg["lengths"]
    got_y, (got_h, got_c) = m(x, hx, lengths.tolist())  # a list works too
    for b, n in enumerate(lengths):
        alone_y, (alone_h, alone_c) = m(x[:n, b:b + 1], (hx[0][:, b:b + 1], hx[1][:, b:b + 1]))
        assert_close(got_y[:n, b:b + 1], alone_y)
        assert not got_y[n:, b].any()
        assert_close((got_h[:, b:b + 1], got_c[:, b:b + 1]), (alone_h, alone_c))
    full_y, _ = m(x, hx, [x.shape[0]] * x.shape[1])  # every sample at full length
    assert_close(full_y, m(x, hx)[0])
    with pytest.raises(oxidnn.Error):  # a length beyond T
        m(x, hx, [x.shape[0] + 1] * x.shape[1])
    with pytest.raises(ValueError):  # one length per sample
        m(x, hx, lengths[:2])


def test_threads_share_a_module():
    """Calls from several threads at once, on several shapes, equal the same calls made one
    after another."""
    cfg, params, x, hx, y, h_n = case("lstm_bi_2l_hx_len")
    m = module(cfg, x)
    m.load_state_dict(params)
    lengths = cfg["lengths"]
    calls = [(n, use_lengths) for n in (1, 2, 3) for use_lengths in (False, True)]

    def call(n, use_lengths):
        return m(x[:, :n], (hx[0][:, :n], hx[1][:, :n]), lengths[:n] if use_lengths else None)

    serial = {c: call(*c) for c in calls}
    errors = []

    def run(offset):
        for i in range(30):
            c = calls[(i + offset) % len(calls)]
            got_y, (got_h, got_c) = call(*c)
            want_y, (want_h, want_c) = serial[c]
            if not (np.array_equal(got_y, want_y) and np.array_equal(got_h, want_h)
                    and np.array_equal(got_c, want_c)):
                errors.append(c)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert max(len(p.runners) for p in m._plans.values()) >= 1


def test_library_calls_release_the_gil():
    # a CDLL (not a PyDLL) function releases the GIL while it runs
    assert not oxidnn._lib.lib._func_flags_ & ctypes._FUNCFLAG_PYTHONAPI
    assert type(oxidnn._lib.lib) is ctypes.CDLL
    # so this thread keeps running Python while another executes: no pause in its loop as
    # long as the execution (which a held GIL would cause); a loaded host can pause it too, so
    # one of three tries must show it
    m = nn.LSTM(128, 128)
    x = np.ones((800, 8, 128), np.float32)
    m(x)  # the primitives of this shape are made while nothing is timed
    tries = []
    for _ in range(3):
        took = []

        def run():
            t = time.perf_counter()
            m(x)
            took.append(time.perf_counter() - t)

        worker = threading.Thread(target=run)
        stamps = [time.perf_counter()]
        worker.start()
        while worker.is_alive():
            stamps.append(time.perf_counter())
        worker.join()
        tries.append((max(np.diff(stamps)), took[0]))
        if tries[-1][0] < 0.5 * tries[-1][1]:
            break
    else:
        raise AssertionError(f"longest pause, execution time (s): {tries}")


def test_errors():
    m = nn.LSTM(4, 6)
    with pytest.raises(oxidnn.Error) as e:  # input channels differ from input_size
        m(np.zeros((5, 3, 7), np.float32))
    assert e.value.status == oxidnn._lib.C.dnnl_invalid_arguments
    assert e.value.message and e.value.message in str(e.value)
    with pytest.raises(ValueError):
        m(np.zeros((5, 3, 4), np.float32), (np.zeros((1, 3, 5)), np.zeros((1, 3, 6))))
    with pytest.raises(ValueError):
        m(np.zeros((5, 3, 4), np.float32), (np.zeros((1, 3, 6)),))
    with pytest.raises(ValueError):
        m(np.zeros(4, np.float32))
    with pytest.raises(KeyError):
        m.load_state_dict({"weight_ih_l0": np.zeros((24, 4))})
    with pytest.raises(ValueError):
        nn.RNN(4, 6, nonlinearity="gelu")


@pytest.mark.parametrize("name", CASES)
def test_matches_live_torch(name):
    torch = pytest.importorskip("torch")
    cfg, _, x, hx, _, _ = case(name)
    lstm = cfg["cell"] == "LSTM"
    torch.manual_seed(1000)
    ref = getattr(torch.nn, cfg["cell"])(x.shape[-1], 6, **cfg["kwargs"]).eval()
    m = module(cfg, x)
    m.load_state_dict(ref.state_dict())  # torch tensors
    t = torch.from_numpy
    thx = None if hx is None else tuple(map(t, hx)) if lstm else t(hx)
    lengths, packed, batch_first = cfg["lengths"], t(x), cfg["kwargs"].get("batch_first", False)
    if lengths is not None:
        lengths = torch.tensor(lengths, dtype=torch.int64)
        packed = torch.nn.utils.rnn.pack_padded_sequence(packed, lengths, batch_first,
                                                         enforce_sorted=False)
    with torch.no_grad():
        want_y, want_h = ref(packed, thx)
    if lengths is not None:
        want_y, _ = torch.nn.utils.rnn.pad_packed_sequence(want_y, batch_first,
                                                           total_length=x.shape[int(batch_first)])
    got_y, got_h = m(t(x), thx, lengths)  # torch in, torch out
    assert all(isinstance(a, torch.Tensor) for a in [got_y, *(got_h if lstm else [got_h])])
    got_y, got_h = got_y.numpy(), tuple(a.numpy() for a in got_h) if lstm else got_h.numpy()
    assert_close(got_y, want_y.numpy())
    assert_close(got_h, tuple(s.numpy() for s in want_h) if lstm else want_h.numpy())


@pytest.mark.parametrize("enforce_sorted", [False, True])
@pytest.mark.parametrize("name", ["lstm_bi_2l_hx_len", "gru_bf_bi_2l_hx_len"])
def test_packed_sequence_as_live_torch(name, enforce_sorted):
    torch = pytest.importorskip("torch")
    from torch.nn.utils.rnn import pack_padded_sequence

    cfg, _, x, hx, _, _ = case(name)
    lstm, batch_first = cfg["cell"] == "LSTM", cfg["kwargs"].get("batch_first", False)
    torch.manual_seed(7)
    ref = getattr(torch.nn, cfg["cell"])(x.shape[-1], 6, **cfg["kwargs"]).eval()
    m = module(cfg, x)
    m.load_state_dict(ref.state_dict())
    lengths = torch.tensor(cfg["lengths"], dtype=torch.int64)
    tx = torch.from_numpy(x)
    if enforce_sorted:  # sorted by decreasing length, as enforce_sorted wants
        order = torch.argsort(lengths, descending=True)
        tx, lengths = tx.index_select(0 if batch_first else 1, order), lengths[order]
        hx = tuple(h[:, order.numpy()] for h in hx) if lstm else hx[:, order.numpy()]
    packed = pack_padded_sequence(tx, lengths, batch_first, enforce_sorted=enforce_sorted)
    thx = tuple(map(torch.from_numpy, hx)) if lstm else torch.from_numpy(hx)
    with torch.no_grad():
        want_y, want_h = ref(packed, thx)
    got_y, got_h = m(packed, thx)
    assert type(got_y) is type(want_y)
    assert torch.equal(got_y.batch_sizes, want_y.batch_sizes)
    assert_close(got_y.data.numpy(), want_y.data.numpy())
    assert_close(tuple(a.numpy() for a in got_h) if lstm else got_h.numpy(),
                 tuple(a.numpy() for a in want_h) if lstm else want_h.numpy())
