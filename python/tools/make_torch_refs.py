"""Writes tests/data/torch_refs.npz: PyTorch's outputs for the cases in CASES.

Run with torch installed, from python/:  python tools/make_torch_refs.py
Each case stores its config (JSON), the module's state_dict, the input, the initial state (when
given) and PyTorch's output and final state, under `<case>/<key>`."""
import json
from pathlib import Path

import numpy as np
import torch

SEQ, BATCH, INPUT, HIDDEN = 5, 3, 4, 6

# name: (cell, constructor kwargs, initial state given, batched input)
CASES = {
    "lstm_uni_hx": ("LSTM", {}, True, True),
    "lstm_bi_2l": ("LSTM", {"num_layers": 2, "bidirectional": True}, False, True),
    "lstm_bf_2l_hx": ("LSTM", {"num_layers": 2, "batch_first": True}, True, True),
    "lstm_proj_bi_2l_hx":
        ("LSTM", {"num_layers": 2, "bidirectional": True, "proj_size": 3}, True, True),
    "lstm_nobias_unbatched": ("LSTM", {"bias": False}, True, False),
    "gru_uni_hx": ("GRU", {}, True, True),
    "gru_bi_2l_hx": ("GRU", {"num_layers": 2, "bidirectional": True}, True, True),
    "gru_bf_bi": ("GRU", {"batch_first": True, "bidirectional": True}, False, True),
    "rnn_tanh_bi_2l_hx": ("RNN", {"num_layers": 2, "bidirectional": True}, True, True),
    "rnn_relu_bf_2l":
        ("RNN", {"num_layers": 2, "nonlinearity": "relu", "batch_first": True}, False, True),
    "rnn_relu_uni_hx_unbatched": ("RNN", {"nonlinearity": "relu"}, True, False),
}


def run_case(cell, kwargs, with_hx, batched, seed):
    """Builds the torch module and inputs from `seed`; returns {key: numpy array}."""
    torch.manual_seed(seed)
    m = getattr(torch.nn, cell)(INPUT, HIDDEN, **kwargs).eval()
    x = torch.randn((BATCH, SEQ, INPUT) if kwargs.get("batch_first") else (SEQ, BATCH, INPUT))
    x = x if batched else x[0]
    d = (2 if kwargs.get("bidirectional") else 1) * kwargs.get("num_layers", 1)
    states = [kwargs.get("proj_size") or HIDDEN] + ([HIDDEN] if cell == "LSTM" else [])
    hx = [torch.randn((d, BATCH, s) if batched else (d, s)) for s in states] if with_hx else None
    with torch.no_grad():
        y, h = m(x, None if hx is None else tuple(hx) if cell == "LSTM" else hx[0])
    out = {f"param/{k}": v.numpy() for k, v in m.state_dict().items()}
    out.update(x=x.numpy(), y=y.numpy())
    for i, s in enumerate(h if cell == "LSTM" else (h,)):
        out[f"h_n{i}"] = s.numpy()
        if hx is not None:
            out[f"h0{i}"] = hx[i].numpy()
    return out


def main():
    arrays = {}
    for seed, (name, (cell, kwargs, with_hx, batched)) in enumerate(CASES.items()):
        arrays[f"{name}/config"] = np.array(json.dumps(
            {"cell": cell, "kwargs": kwargs, "hx": with_hx, "batched": batched, "seed": seed}))
        for k, v in run_case(cell, kwargs, with_hx, batched, seed).items():
            arrays[f"{name}/{k}"] = v
    path = Path(__file__).resolve().parent.parent / "tests" / "data" / "torch_refs.npz"
    np.savez_compressed(path, **arrays)
    print(f"wrote {path} ({len(CASES)} cases, torch {torch.__version__})")


if __name__ == "__main__":
    main()
