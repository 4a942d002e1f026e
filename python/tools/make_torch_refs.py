"""Writes tests/data/torch_refs.npz: PyTorch's outputs for the cases in CASES.

Run with torch installed, from python/:  python tools/make_torch_refs.py
Each case stores its config (JSON), the module's state_dict, the input, the initial state (when
given) and PyTorch's output and final state, under `<case>/<key>`."""
import json
from pathlib import Path

import numpy as np
import torch

SEQ, BATCH, INPUT, HIDDEN = 5, 3, 4, 6

# name: (cell, constructor kwargs, initial state given, batched input[, per-sample lengths])
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
    "lstm_bi_2l_hx_len": ("LSTM", {"num_layers": 2, "bidirectional": True}, True, True, [5, 2, 4]),
    "lstm_proj_bi_len": ("LSTM", {"bidirectional": True, "proj_size": 3}, False, True, [3, 1, 2]),
    "gru_bf_bi_2l_hx_len":
        ("GRU", {"batch_first": True, "bidirectional": True, "num_layers": 2}, True, True,
         [1, 5, 3]),
    "rnn_tanh_bi_len": ("RNN", {"bidirectional": True}, False, True, [4, 5, 2]),
}


def run_case(cell, kwargs, with_hx, batched, seed, lengths=None):
    """Builds the torch module and inputs from `seed`; returns {key: numpy array}. With
    `lengths`, the input goes through pack_padded_sequence and the output through
    pad_packed_sequence (to SEQ steps)."""
    torch.manual_seed(seed)
    m = getattr(torch.nn, cell)(INPUT, HIDDEN, **kwargs).eval()
    x = torch.randn((BATCH, SEQ, INPUT) if kwargs.get("batch_first") else (SEQ, BATCH, INPUT))
    x = x if batched else x[0]
    d = (2 if kwargs.get("bidirectional") else 1) * kwargs.get("num_layers", 1)
    states = [kwargs.get("proj_size") or HIDDEN] + ([HIDDEN] if cell == "LSTM" else [])
    hx = [torch.randn((d, BATCH, s) if batched else (d, s)) for s in states] if with_hx else None
    packed = x
    if lengths is not None:
        packed = torch.nn.utils.rnn.pack_padded_sequence(
            x, torch.tensor(lengths), batch_first=bool(kwargs.get("batch_first")),
            enforce_sorted=False)
    with torch.no_grad():
        y, h = m(packed, None if hx is None else tuple(hx) if cell == "LSTM" else hx[0])
    if lengths is not None:
        y, _ = torch.nn.utils.rnn.pad_packed_sequence(
            y, batch_first=bool(kwargs.get("batch_first")), total_length=SEQ)
    out = {f"param/{k}": v.numpy() for k, v in m.state_dict().items()}
    out.update(x=x.numpy(), y=y.numpy())
    if lengths is not None:
        out["lengths"] = np.array(lengths, np.int32)
    for i, s in enumerate(h if cell == "LSTM" else (h,)):
        out[f"h_n{i}"] = s.numpy()
        if hx is not None:
            out[f"h0{i}"] = hx[i].numpy()
    return out


def main():
    arrays = {}
    for seed, (name, (cell, kwargs, with_hx, batched, *lengths)) in enumerate(CASES.items()):
        arrays[f"{name}/config"] = np.array(json.dumps(
            {"cell": cell, "kwargs": kwargs, "hx": with_hx, "batched": batched, "seed": seed,
             "lengths": bool(lengths)}))
        for k, v in run_case(cell, kwargs, with_hx, batched, seed, *lengths).items():
            arrays[f"{name}/{k}"] = v
    path = Path(__file__).resolve().parent.parent / "tests" / "data" / "torch_refs.npz"
    np.savez_compressed(path, **arrays)
    print(f"wrote {path} ({len(CASES)} cases, torch {torch.__version__})")


if __name__ == "__main__":
    main()
