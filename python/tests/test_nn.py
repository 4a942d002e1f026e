"""oxidnn.nn against PyTorch: the committed outputs (tools/make_torch_refs.py) and, where torch
is installed, live."""
import json
import threading
from pathlib import Path

import numpy as np
import pytest

import oxidnn
from oxidnn import nn

REFS = np.load(Path(__file__).parent / "data" / "torch_refs.npz")
CASES = sorted({k.split("/")[0] for k in REFS.files})
TOL = 1e-5


def case(name):
    """(config, state_dict, x, hx, y, h_n) of a committed case; hx / h_n as the cell takes them."""
    cfg = json.loads(str(REFS[f"{name}/config"]))
    params = {k.split("/", 2)[2]: REFS[k] for k in REFS.files if k.startswith(f"{name}/param/")}
    states = [sorted(k for k in REFS.files if k.startswith(f"{name}/{p}")) for p in ("h0", "h_n")]
    hx, h_n = ([REFS[k] for k in keys] for keys in states)
    as_cell = (lambda s: tuple(s)) if cfg["cell"] == "LSTM" else (lambda s: s[0])
    hx = as_cell(hx) if hx else None
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
    got_y, got_h = m(x, hx)
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


def test_threads_share_a_module():
    cfg, params, x, hx, y, h_n = case("gru_bi_2l_hx")
    m = module(cfg, x)
    m.load_state_dict(params)
    errors = []

    def run(n):
        for _ in range(20):
            got = m(x[:, :n], hx[:, :n])
            if np.abs(got[0] - y[:, :n]).max() > TOL or np.abs(got[1] - h_n[:, :n]).max() > TOL:
                errors.append(n)

    threads = [threading.Thread(target=run, args=(n,)) for n in (1, 2, 3, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


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
    with torch.no_grad():
        want_y, want_h = ref(t(x), thx)
    got_y, got_h = m(t(x), thx)  # torch in, torch out
    assert all(isinstance(a, torch.Tensor) for a in [got_y, *(got_h if lstm else [got_h])])
    got_y, got_h = got_y.numpy(), tuple(a.numpy() for a in got_h) if lstm else got_h.numpy()
    assert_close(got_y, want_y.numpy())
    assert_close(got_h, tuple(s.numpy() for s in want_h) if lstm else want_h.numpy())
