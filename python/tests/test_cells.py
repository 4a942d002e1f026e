"""The cells PyTorch lacks (PeepholeLSTM, VanillaGRU, AUGRU, LBRAUGRU) against the numpy reference
of their equations (numpy_rnn.py), itself checked against PyTorch's committed outputs."""
import json
from pathlib import Path

import numpy as np
import pytest

from oxidnn import nn
import numpy_rnn

REFS = np.load(Path(__file__).parent / "data" / "torch_refs.npz")
TOL = 1e-5
T, N, C, H = 5, 3, 4, 6
LENGTHS = [5, 2, 3]


def random_params(m, seed):
    """Random values for every parameter of `m` (peepholes included), loaded into `m`."""
    rng = np.random.default_rng(seed)
    params = {k: rng.uniform(-0.6, 0.6, v.shape).astype(np.float32)
              for k, v in m.state_dict().items()}
    m.load_state_dict(params)
    return params


def states(m, seed, batched=True):
    rng = np.random.default_rng(seed)
    L, D = m.num_layers, 2 if m.bidirectional else 1
    sizes = [m.proj_size or m.hidden_size] + ([m.hidden_size] if isinstance(m, nn.LSTM) else [])
    return [rng.standard_normal((L * D, N, s) if batched else (L * D, s)).astype(np.float32)
            for s in sizes]


def lstm_step(p, x, state, a):
    return numpy_rnn.lstm_step(p, x, state)


def gru_step(p, x, state, a):
    return numpy_rnn.gru_step(p, x, state, linear_before_reset=True)


def vanilla_gru_step(p, x, state, a):
    return numpy_rnn.gru_step(p, x, state, linear_before_reset=False)


def augru_step(p, x, state, a):
    return numpy_rnn.gru_step(p, x, state, linear_before_reset=False, attention=a)


def lbr_augru_step(p, x, state, a):
    return numpy_rnn.gru_step(p, x, state, linear_before_reset=True, attention=a)


@pytest.mark.parametrize("name", ["lstm_proj_bi_2l_hx", "lstm_bi_2l_hx_len", "gru_bi_2l_hx",
                                  "gru_bf_bi_2l_hx_len", "rnn_relu_bf_2l", "rnn_tanh_bi_len"])
def test_reference_matches_torch(name):
    cfg = json.loads(str(REFS[f"{name}/config"]))
    kw = cfg["kwargs"]
    params = {k.split("/", 2)[2]: REFS[k] for k in REFS.files if k.startswith(f"{name}/param/")}
    x, y = REFS[f"{name}/x"], REFS[f"{name}/y"]
    if kw.get("batch_first"):
        x, y = x.transpose(1, 0, 2), y.transpose(1, 0, 2)
    n_states = 2 if cfg["cell"] == "LSTM" else 1
    h_n = [REFS[f"{name}/h_n{k}"] for k in range(n_states)]
    hx = [REFS[f"{name}/h0{k}"] for k in range(n_states)] if cfg["hx"] else \
        [np.zeros_like(s) for s in h_n]
    lengths = REFS[f"{name}/lengths"].tolist() if cfg["lengths"] else None
    nonlinearity = kw.get("nonlinearity", "tanh")
    step = {"LSTM": lstm_step, "GRU": gru_step,
            "RNN": lambda p, x, s, a: numpy_rnn.rnn_step(p, x, s, nonlinearity)}[cfg["cell"]]
    got_y, got_h = numpy_rnn.run(step, params, x, hx, kw.get("num_layers", 1),
                                 kw.get("bidirectional", False), lengths)
    np.testing.assert_allclose(got_y, y, rtol=0, atol=TOL)
    for g, w in zip(got_h, h_n):
        np.testing.assert_allclose(g, w, rtol=0, atol=TOL)


CELLS = {  # name: (module factory, reference step)
    "peephole_lstm_bi_2l": (lambda **k: nn.PeepholeLSTM(C, H, num_layers=2, bidirectional=True,
                                                         **k), lstm_step),
    "peephole_lstm_proj": (lambda **k: nn.PeepholeLSTM(C, H, proj_size=3, **k), lstm_step),
    "vanilla_gru_bi_2l": (lambda **k: nn.VanillaGRU(C, H, num_layers=2, bidirectional=True,
                                                     **k), vanilla_gru_step),
    "vanilla_gru_nobias": (lambda **k: nn.VanillaGRU(C, H, bias=False, **k), vanilla_gru_step),
    "augru": (lambda **k: nn.AUGRU(C, H, **k), augru_step),
    "lbr_augru": (lambda **k: nn.LBRAUGRU(C, H, **k), lbr_augru_step),
}


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("with_hx", [False, True])
@pytest.mark.parametrize("with_lengths", [False, True])
@pytest.mark.parametrize("name", sorted(CELLS))
def test_cell_matches_reference(name, with_lengths, with_hx, batch_first):
    factory, step = CELLS[name]
    m = factory(batch_first=batch_first)
    params = random_params(m, seed=len(name))
    rng = np.random.default_rng(7)
    x = rng.standard_normal((T, N, C)).astype(np.float32)
    hx = states(m, seed=3)
    attention = rng.uniform(0, 1, (T, N)).astype(np.float32) if m._attention else None
    lengths = LENGTHS if with_lengths else None
    want_y, want_h = numpy_rnn.run(step, params, x, hx if with_hx else [np.zeros_like(s) for s
                                                                       in hx],
                                   m.num_layers, m.bidirectional, lengths, attention)
    args = {"lengths": lengths}
    if attention is not None:
        args["attention"] = attention.T.copy() if batch_first else attention
    state = (tuple(hx) if isinstance(m, nn.LSTM) else hx[0]) if with_hx else None
    got_y, got_h = m(x.transpose(1, 0, 2).copy() if batch_first else x, state, **args)
    got_h = list(got_h) if isinstance(m, nn.LSTM) else [got_h]
    np.testing.assert_allclose(got_y.transpose(1, 0, 2) if batch_first else got_y, want_y,
                               rtol=0, atol=TOL)
    for g, w in zip(got_h, want_h):
        np.testing.assert_allclose(g, w, rtol=0, atol=TOL)


@pytest.mark.parametrize("name", sorted(CELLS))
def test_cell_unbatched(name):
    factory, step = CELLS[name]
    m = factory()
    params = random_params(m, seed=1)
    x = np.random.default_rng(2).standard_normal((T, C)).astype(np.float32)
    hx = states(m, seed=5, batched=False)
    attention = np.linspace(0, 1, T, dtype=np.float32) if m._attention else None
    want_y, want_h = numpy_rnn.run(step, params, x[:, None], [s[:, None] for s in hx],
                                   m.num_layers, m.bidirectional, None,
                                   None if attention is None else attention[:, None])
    args = {} if attention is None else {"attention": attention}
    got_y, got_h = m(x, tuple(hx) if isinstance(m, nn.LSTM) else hx[0], **args)
    np.testing.assert_allclose(got_y, want_y[:, 0], rtol=0, atol=TOL)
    for g, w in zip(got_h if isinstance(m, nn.LSTM) else [got_h], want_h):
        np.testing.assert_allclose(g, w[:, 0], rtol=0, atol=TOL)


def test_names_and_special_cases():
    assert nn.LBRGRU is nn.GRU  # PyTorch's GRU is oneDNN's linear-before-reset GRU
    peephole = nn.PeepholeLSTM(C, H, num_layers=2, bidirectional=True)
    names = set(peephole.state_dict())
    assert names - set(nn.LSTM(C, H, num_layers=2, bidirectional=True).state_dict()) == \
        {f"weight_peephole_l{k}{s}" for k in (0, 1) for s in ("", "_reverse")}
    assert peephole.weight_peephole_l1_reverse.shape == (3, H)
    x = np.random.default_rng(0).standard_normal((T, N, C)).astype(np.float32)
    # zero peepholes: the LSTM
    lstm = nn.LSTM(C, H)
    zero_peephole = nn.PeepholeLSTM(C, H)
    zero_peephole.load_state_dict({**lstm.state_dict(),
                                   "weight_peephole_l0": np.zeros((3, H), np.float32)})
    np.testing.assert_allclose(zero_peephole(x)[0], lstm(x)[0], rtol=0, atol=TOL)
    # zero attention: the GRU of the same flavour; the two flavours differ
    gru, lbr_augru, augru = nn.GRU(C, H), nn.LBRAUGRU(C, H), nn.AUGRU(C, H)
    lbr_augru.load_state_dict(gru.state_dict())
    augru.load_state_dict(gru.state_dict())
    zero = np.zeros((T, N), np.float32)
    np.testing.assert_allclose(lbr_augru(x, attention=zero)[0], gru(x)[0], rtol=0, atol=TOL)
    vanilla = nn.VanillaGRU(C, H)
    vanilla.load_state_dict(gru.state_dict())
    np.testing.assert_allclose(augru(x, attention=zero)[0], vanilla(x)[0], rtol=0, atol=TOL)
    assert np.abs(vanilla(x)[0] - gru(x)[0]).max() > 1e-3
    # attention 1 switches the update off: h = n at every step
    ones = np.ones((T, N), np.float32)
    assert not np.allclose(augru(x, attention=ones)[0], augru(x, attention=zero)[0])
    with pytest.raises(TypeError):  # attention is required
        augru(x)
    with pytest.raises(ValueError):
        augru(x, attention=np.zeros((T, N + 1), np.float32))
