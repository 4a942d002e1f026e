#!/usr/bin/env python3
"""Generates the RNN corpus of the graph layer (tests/ov_corpus/): IRs made the way users make
them, with OpenVINO's outputs as the expected values.

Run by hand (not in CI), from the repository root:

    python3 -m venv /tmp/ovenv
    /tmp/ovenv/bin/pip install openvino==2026.4.1 numpy onnx onnxscript torch
    /tmp/ovenv/bin/python tools/ov_cases/make_rnn_corpus.py          # all cases
    /tmp/ovenv/bin/python tools/ov_cases/make_rnn_corpus.py torch_   # cases whose name starts so

How each model is made (`made` in case.txt):

- `opset`: OpenVINO's Python opset API (LSTMSequence-5, GRUSequence-5, RNNSequence-5 with
  every direction, per-sample lengths, dynamic dims, clip and activations);
- `pytorch`: a torch.nn module through `openvino.convert_model`;
- `onnx-torchscript` / `onnx-dynamo`: the module exported by `torch.onnx.export` (dynamo=False
  / True), then `openvino.convert_model` on the .onnx;
- `onnx-helper`: an ONNX graph written with `onnx.helper` (LSTM / GRU / RNN nodes as the
  exporters emit them, with `sequence_lens`), then `openvino.convert_model`.

Weights are drawn like PyTorch's (U(-1/sqrt(H), 1/sqrt(H))). Each case directory holds
`model.xml` / `model.bin` (f32 weights), its inputs and OpenVINO's outputs (CPU plugin,
INFERENCE_PRECISION_HINT=f32; the model reshaped to the inputs' static shapes, as the plugin
ignores sequence_lengths when shapes are dynamic) as `.npy`, and `case.txt`:

    input<TAB>NAME<TAB>FILE          output<TAB>NAME<TAB>FILE
    source<TAB>openvino              made<TAB>HOW
    fused<TAB>N                      (sequence ops oneDNN runs: no clip, oneDNN's activations,
                                      constant weights)
    ops<TAB>Type-opsetN,...          (every op type of the model)
    note<TAB>free text

For PyTorch-made cases the script also prints how far OpenVINO's outputs are from PyTorch's.
README.md lists every case.
"""

import collections
import os
import shutil
import sys
import warnings

import numpy as np
import openvino as ov
import openvino.opset5 as o5
import openvino.opset8 as o8

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "ov_corpus")
RNG = np.random.default_rng(31)
CASES = []
warnings.filterwarnings("ignore")


def uniform(h, *shape):
    k = 1.0 / np.sqrt(h)
    return RNG.uniform(-k, k, size=shape).astype(np.float32)


def data(*shape):
    return RNG.uniform(-1.0, 1.0, size=shape).astype(np.float32)


class Case:
    """A model, its inputs (name -> array, in parameter order) and how it was made."""

    def __init__(self, model, inputs, made, note, reference=None, more_inputs=()):
        self.model = model
        self.inputs = inputs
        self.made = made
        self.note = note
        self.reference = reference  # a function inputs -> outputs (PyTorch), for the printout
        self.more_inputs = more_inputs  # (suffix, inputs): the same model on other shapes


def name_io(model):
    """Gives every output a tensor name (out0, out1, ...) when it has none."""
    for i, o in enumerate(model.outputs):
        if not o.get_names():
            o.get_tensor().set_names({f"out{i}"})
    for i, p in enumerate(model.inputs):
        if not p.get_names():
            p.get_tensor().set_names({f"in{i}"})


def run_openvino(model, inputs):
    """OpenVINO's outputs, with the model reshaped to the inputs' shapes first: with dynamic
    shapes the CPU plugin ignores sequence_lengths."""
    model = model.clone()
    model.reshape({p: ov.PartialShape(list(v.shape)) for p, v in zip(model.inputs, inputs.values())})
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    results = compiled(list(inputs.values()))
    return {sorted(o.get_names())[0]: np.array(results[o]) for o in compiled.outputs}


DEFAULT_ACTIVATIONS = {"LSTMSequence": [["sigmoid", "tanh", "tanh"]],
                       "GRUSequence": [["sigmoid", "tanh"]],
                       "RNNSequence": [["tanh"], ["relu"], ["sigmoid"]]}


def fused_count(model):
    """The sequence ops oneDNN runs: no clip, oneDNN's activations, constant W, R, B."""
    n = 0
    for op in model.get_ordered_ops():
        t = op.get_type_name()
        if t not in DEFAULT_ACTIVATIONS:
            continue
        a = op.get_attributes()
        acts = [s.strip().lower() for s in a["activations"]]
        if a["direction"] == "bidirectional" and acts[:len(acts) // 2] * 2 == acts:
            acts = acts[:len(acts) // 2]  # ONNX lists them per direction
        weights = [op.input_value(i).get_node().get_type_name() for i in range(op.get_input_size() - 3,
                                                                                op.get_input_size())]
        if a["clip"] == 0 and acts in DEFAULT_ACTIVATIONS[t] and all(w == "Constant" for w in weights):
            n += 1
    return n


def op_types(model):
    seen = collections.OrderedDict()
    for op in model.get_ordered_ops():
        seen[f"{op.get_type_name()}-{op.get_type_info().version_id}"] = None
    return list(seen)


def save(name, c):
    name_io(c.model)
    runs = [(name, c.inputs)] + [(name + suffix, inputs) for suffix, inputs in c.more_inputs]
    for run_name, inputs in runs:
        d = os.path.join(ROOT, run_name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        ov.save_model(c.model, os.path.join(d, "model.xml"), compress_to_fp16=False)
        lines = []
        names = [sorted(p.get_names())[0] for p in c.model.inputs]
        for i, (k, v) in enumerate(zip(names, inputs.values())):
            np.save(os.path.join(d, f"in{i}.npy"), v)
            lines.append(f"input\t{k}\tin{i}.npy")
        expected = run_openvino(c.model, inputs)
        for i, (k, v) in enumerate(expected.items()):
            np.save(os.path.join(d, f"out{i}.npy"), v)
            lines.append(f"output\t{k}\tout{i}.npy")
        lines += ["source\topenvino", f"made\t{c.made}", f"fused\t{fused_count(c.model)}",
                  f"ops\t{','.join(op_types(c.model))}", f"note\t{c.note}"]
        with open(os.path.join(d, "case.txt"), "w") as fh:
            fh.write("\n".join(lines) + "\n")
        binf = os.path.join(d, "model.bin")
        if os.path.exists(binf) and os.path.getsize(binf) == 0:
            os.remove(binf)
        if c.reference is not None:
            want = c.reference(inputs)
            diff = max(float(np.abs(np.asarray(g) - w).max()) for g, w in zip(expected.values(), want))
            print(f"  {run_name}: OpenVINO vs PyTorch max |diff| {diff:.2e}")
    return [r for r, _ in runs]


# ----------------------------------------------------------------------------- opset API
def sequence_model(cell, direction, n, t, k, h, lengths=None, dynamic=False, clip=0.0,
                   activations=None, alpha=None, beta=None, lbr=False, lengths_type=np.int32):
    """One sequence op; X, the initial states and (when `lengths` is given) sequence_lengths are
    inputs; otherwise sequence_lengths is a constant T."""
    d = 2 if direction == "bidirectional" else 1
    g = {"lstm": 4, "gru": 3, "rnn": 1}[cell]
    dims = [-1, -1, k] if dynamic else [n, t, k]
    params = [o8.parameter(dims, np.float32, name="X")]
    states = ["H0", "C0"] if cell == "lstm" else ["H0"]
    params += [o8.parameter([dims[0], d, h], np.float32, name=s) for s in states]
    inputs = {"X": data(n, t, k)}
    inputs.update({s: data(n, d, h) for s in states})
    if lengths is not None:
        lp = o8.parameter([dims[0]], lengths_type, name="lengths")
        params.append(lp)
        inputs["lengths"] = np.asarray(lengths, lengths_type)
        seq_len = lp
    elif dynamic:
        shape = o8.shape_of(params[0])
        seq_len = o8.broadcast(o8.gather(shape, o8.constant(np.int64([1])), o8.constant(np.int64(0))),
                               o8.gather(shape, o8.constant(np.int64([0])), o8.constant(np.int64(0))))
    else:
        seq_len = o8.constant(np.full([n], t, np.int32))
    for p in params:
        p.output(0).get_tensor().set_names({p.get_friendly_name()})
    w = o8.constant(uniform(h, d, g * h, k))
    r = o8.constant(uniform(h, d, g * h, h))
    b = o8.constant(uniform(h, d, (g + int(lbr)) * h))
    kw = dict(activations=activations, activations_alpha=alpha, activations_beta=beta, clip=clip)
    x, s0 = params[0], params[1:1 + len(states)]
    if cell == "lstm":
        op = o5.lstm_sequence(x, s0[0], s0[1], seq_len, w, r, b, h, direction, **kw)
    elif cell == "gru":
        op = o5.gru_sequence(x, s0[0], seq_len, w, r, b, h, direction, linear_before_reset=lbr, **kw)
    else:
        op = o5.rnn_sequence(x, s0[0], seq_len, w, r, b, h, direction, **kw)
    outs = [op.output(0), op.output(1)] + ([op.output(2)] if cell == "lstm" else [])
    for o, nm in zip(outs, ["Y", "Ho", "Co"]):
        o.get_tensor().set_names({nm})
    return ov.Model(outs, params, "sequence"), inputs


def opset_case(name, note, cell, direction, n=3, t=5, k=4, h=6, more_shapes=(), **kw):
    def make():
        model, inputs = sequence_model(cell, direction, n, t, k, h, **kw)
        more = []
        for (n2, t2, lengths2) in more_shapes:
            _, other = sequence_model(cell, direction, n2, t2, k, h,
                                      **dict(kw, lengths=lengths2 if "lengths" in kw else None))
            more.append((f"_n{n2}t{t2}", other))
        return Case(model, inputs, "opset", note, more_inputs=more)
    CASES.append((name, make))


for _cell in ["lstm", "gru", "rnn"]:
    for _dir in ["forward", "reverse", "bidirectional"]:
        opset_case(f"seq_{_cell}_{_dir}", f"{_cell.upper()} sequence-5, {_dir}, every length T",
                   _cell, _dir)
        opset_case(f"seq_{_cell}_{_dir}_lengths",
                   f"{_cell.upper()} sequence-5, {_dir}, sequence_lengths [5, 2, 0, 4] from an input",
                   _cell, _dir, n=4, lengths=[5, 2, 0, 4])
opset_case("seq_gru_lbr_forward", "GRUSequence-5 linear_before_reset, forward", "gru", "forward", lbr=True)
opset_case("seq_gru_lbr_bidirectional_lengths",
           "GRUSequence-5 linear_before_reset, bidirectional, sequence_lengths [3, 5, 1] (i64)",
           "gru", "bidirectional", lbr=True, lengths=[3, 5, 1], lengths_type=np.int64)
opset_case("seq_rnn_relu_reverse", "RNNSequence-5 relu, reverse", "rnn", "reverse", activations=["relu"])
opset_case("seq_rnn_sigmoid_bidirectional", "RNNSequence-5 sigmoid, bidirectional", "rnn", "bidirectional",
           activations=["sigmoid"])
opset_case("seq_rnn_tanh_alpha_beta", "RNNSequence-5 tanh with activations_alpha / beta (ignored by tanh)",
           "rnn", "forward", activations=["tanh"], alpha=[2.0], beta=[3.0])
opset_case("seq_lstm_clip_bidirectional", "LSTMSequence-5 clip 0.5, bidirectional: the reference path",
           "lstm", "bidirectional", clip=0.5)
opset_case("seq_gru_clip_lbr_lengths", "GRUSequence-5 clip 0.3, linear_before_reset, lengths [4, 5, 2]",
           "gru", "reverse", clip=0.3, lbr=True, lengths=[4, 5, 2])
opset_case("seq_rnn_relu_clip", "RNNSequence-5 relu, clip 0.4", "rnn", "forward", activations=["relu"], clip=0.4)
opset_case("seq_lstm_activations", "LSTMSequence-5 activations tanh, relu, sigmoid: the reference path",
           "lstm", "reverse", activations=["tanh", "relu", "sigmoid"])
opset_case("seq_gru_activations", "GRUSequence-5 activations tanh, sigmoid: the reference path",
           "gru", "forward", activations=["tanh", "sigmoid"])
opset_case("seq_lstm_dynamic", "LSTMSequence-5 bidirectional, X [?, ?, 4]: N 3 T 5, also N 1 T 7 and N 4 T 2",
           "lstm", "bidirectional", dynamic=True, more_shapes=[(1, 7, None), (4, 2, None)])
opset_case("seq_gru_dynamic_lengths", "GRUSequence-5, X [?, ?, 4], lengths [5, 1, 3]; also N 2 T 3",
           "gru", "forward", dynamic=True, lengths=[5, 1, 3], more_shapes=[(2, 3, [3, 2])])
opset_case("seq_lstm_large", "LSTMSequence-5 forward N 8 T 12 K 24 H 32", "lstm", "forward",
           n=8, t=12, k=24, h=32)


def scatter_case():
    """ScatterElementsUpdate-12 (reduction none) along axis 0 with negative indices, and -3
    along axis -1 on i64 data: the op PyTorch's pack_padded_sequence converts to."""
    import openvino.opset3 as o3
    import openvino.opset12 as o12
    d = o8.parameter([3, 4], np.float32, name="data")
    u = o8.parameter([2, 4], np.float32, name="updates")
    for p in (d, u):
        p.output(0).get_tensor().set_names({p.get_friendly_name()})
    idx = o8.constant(np.array([[-1, 0, 2, 1], [0, 2, -3, 2]], np.int32))
    a = o12.scatter_elements_update(d, idx, u, o8.constant(np.int64(0)), reduction="none")
    di = o8.constant(np.arange(12, dtype=np.int64).reshape(2, 6))
    b = o3.scatter_elements_update(di, o8.constant(np.array([[5, 0], [-1, 3]], np.int64)),
                                   o8.constant(np.array([[100, 101], [102, 103]], np.int64)),
                                   o8.constant(np.int32(-1)))
    outs = [a.output(0), o8.add(b, o8.constant(np.int64(0))).output(0)]
    for o, nm in zip(outs, ["a", "b"]):
        o.get_tensor().set_names({nm})
    return Case(ov.Model(outs, [d, u], "scatter"), {"data": data(3, 4), "updates": data(2, 4)}, "opset",
                "ScatterElementsUpdate-12 reduction none (negative indices, axis 0) and -3 (i64, axis -1)")


CASES.append(("scatter_elements_update", scatter_case))


# ----------------------------------------------------------------------------- PyTorch
def torch_case(name, note, module, example, made="pytorch", dynamic=None, more=()):
    """`module` (eval, seeded) converted as `made` says; `example` maps input names to arrays."""
    def make():
        import torch
        module.eval()
        names = list(example)
        tensors = tuple(torch.from_numpy(v) for v in example.values())
        if made == "pytorch":
            shapes = [ov.PartialShape(dynamic[n]) if dynamic else ov.PartialShape(list(v.shape))
                      for n, v in example.items()]
            types = [ov.Type.f32 if v.dtype == np.float32 else ov.Type.i64 for v in example.values()]
            model = ov.convert_model(module, example_input=tensors,
                                     input=list(zip(names, shapes, types)))
        else:
            path = f"/tmp/make_rnn_corpus_{name}.onnx"
            kw = dict(input_names=names)
            if made == "onnx-torchscript":
                axes = {n: {i: f"{n}_{i}" for i, v in enumerate(dynamic[n]) if v == -1} for n in names} \
                    if dynamic else None
                torch.onnx.export(module, tensors, path, dynamo=False, dynamic_axes=axes, **kw)
            else:
                torch.onnx.export(module, tensors, path, dynamo=True, **kw)
            model = ov.convert_model(path)
            for p, n in zip(model.inputs, names):
                p.get_tensor().set_names({n})

        def reference(inputs):
            with torch.no_grad():
                out = module(*[torch.from_numpy(v) for v in inputs.values()])
            out = out if isinstance(out, tuple) else (out,)
            flat = []
            for o in out:
                flat.extend(o if isinstance(o, tuple) else (o,))
            return [o.numpy() for o in flat]
        return Case(model, dict(example), made, note, reference, more)
    CASES.append((name, make))


def torch_modules():
    import torch
    from torch import nn
    torch.manual_seed(7)

    class Rnn(nn.Module):
        """nn.LSTM / GRU / RNN returning the sequence and the last state(s)."""

        def __init__(self, kind, **kw):
            super().__init__()
            self.rnn = getattr(nn, kind)(**kw)

        def forward(self, x):
            y, h = self.rnn(x)
            return (y,) + (h if isinstance(h, tuple) else (h,))

    class Packed(nn.Module):
        """A bidirectional LSTM over a padded batch: pack_padded_sequence (unsorted lengths),
        the LSTM, pad_packed_sequence."""

        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(4, 6, batch_first=True, bidirectional=True)

        def forward(self, x, lengths):
            from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
            packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
            y, (h, c) = self.rnn(packed)
            y, _ = pad_packed_sequence(y, batch_first=True, total_length=x.shape[1])
            return y, h, c

    class TextClassifier(nn.Module):
        """Embedding -> LSTM -> mean over time -> Linear -> Softmax."""

        def __init__(self, vocab=30, emb=8, hidden=12, classes=4):
            super().__init__()
            self.emb = nn.Embedding(vocab, emb)
            self.lstm = nn.LSTM(emb, hidden, batch_first=True, bidirectional=True)
            self.fc = nn.Linear(2 * hidden, classes)

        def forward(self, tokens):
            y, _ = self.lstm(self.emb(tokens))
            return torch.softmax(self.fc(y.mean(dim=1)), dim=-1)

    class CharModel(nn.Module):
        """Character-level language model: Embedding -> 2-layer GRU -> Linear logits per step,
        and the next-character distribution of the last step."""

        def __init__(self, vocab=27, emb=10, hidden=16):
            super().__init__()
            self.emb = nn.Embedding(vocab, emb)
            self.gru = nn.GRU(emb, hidden, num_layers=2, batch_first=True)
            self.out = nn.Linear(hidden, vocab)

        def forward(self, chars, h0):
            y, h = self.gru(self.emb(chars), h0)
            logits = self.out(y)
            return logits, torch.softmax(logits[:, -1], dim=-1), h

    class Seq2Seq(nn.Module):
        """GRU encoder-decoder with dot-product attention (teacher forcing)."""

        def __init__(self, src_vocab=20, tgt_vocab=22, emb=8, hidden=12):
            super().__init__()
            self.src_emb = nn.Embedding(src_vocab, emb)
            self.tgt_emb = nn.Embedding(tgt_vocab, emb)
            self.encoder = nn.GRU(emb, hidden, batch_first=True)
            self.decoder = nn.GRU(emb, hidden, batch_first=True)
            self.out = nn.Linear(2 * hidden, tgt_vocab)

        def forward(self, src, tgt):
            enc, h = self.encoder(self.src_emb(src))
            dec, _ = self.decoder(self.tgt_emb(tgt), h)
            scores = torch.matmul(dec, enc.transpose(1, 2))
            attn = torch.softmax(scores, dim=-1)
            context = torch.matmul(attn, enc)
            return torch.softmax(self.out(torch.cat([dec, context], dim=-1)), dim=-1), attn

    return Rnn, Packed, TextClassifier, CharModel, Seq2Seq


def torch_cases():
    Rnn, Packed, TextClassifier, CharModel, Seq2Seq = torch_modules()
    tokens = lambda n, t, v: RNG.integers(0, v, size=(n, t)).astype(np.int64)  # noqa: E731
    lstm2 = dict(input_size=5, hidden_size=8, num_layers=2, bidirectional=True, batch_first=True)
    torch_case("torch_lstm_2layer_bidirectional_batch_first",
               "nn.LSTM(5, 8, num_layers=2, bidirectional, batch_first) -> y, h, c",
               Rnn("LSTM", **lstm2), {"x": data(3, 6, 5)})
    torch_case("torch_gru_2layer_seq_first", "nn.GRU(5, 8, num_layers=2) seq-first -> y, h",
               Rnn("GRU", input_size=5, hidden_size=8, num_layers=2), {"x": data(6, 3, 5)})
    torch_case("torch_gru_bidirectional_batch_first", "nn.GRU(4, 8, bidirectional, batch_first) -> y, h",
               Rnn("GRU", input_size=4, hidden_size=8, bidirectional=True, batch_first=True),
               {"x": data(2, 7, 4)})
    torch_case("torch_rnn_tanh_2layer_bidirectional", "nn.RNN(4, 8, num_layers=2, bidirectional) tanh",
               Rnn("RNN", input_size=4, hidden_size=8, num_layers=2, bidirectional=True),
               {"x": data(5, 2, 4)})
    torch_case("torch_rnn_relu_batch_first", "nn.RNN(4, 6, nonlinearity=relu, batch_first)",
               Rnn("RNN", input_size=4, hidden_size=6, nonlinearity="relu", batch_first=True),
               {"x": data(3, 5, 4)})
    torch_case("torch_lstm_dynamic", "nn.LSTM(5, 8, 2 layers, bidirectional, batch_first), input [?, ?, 5]: "
               "N 3 T 6, also N 1 T 9 and N 5 T 2",
               Rnn("LSTM", **lstm2), {"x": data(3, 6, 5)}, dynamic={"x": [-1, -1, 5]},
               more=[("_n1t9", {"x": data(1, 9, 5)}), ("_n5t2", {"x": data(5, 2, 5)})])
    torch_case("torch_lstm_packed_sequence", "pack_padded_sequence (lengths [5, 2, 4], unsorted) -> "
               "bidirectional nn.LSTM(4, 6) -> pad_packed_sequence: the lengths reach LSTMSequence's "
               "sequence_lengths (TopK, Gather, ScatterElementsUpdate around it)",
               Packed(), {"x": data(3, 5, 4), "lengths": np.array([5, 2, 4], np.int64)},
               dynamic={"x": [-1, -1, 4], "lengths": [-1]},
               more=[("_n4t6", {"x": data(4, 6, 4), "lengths": np.array([1, 6, 6, 3], np.int64)})])
    torch_case("torch_text_classifier", "Embedding(30, 8) -> bidirectional LSTM(8, 12) -> mean over time -> "
               "Linear(24, 4) -> Softmax; tokens [?, ?]: N 4 T 7, also N 2 T 11",
               TextClassifier(), {"tokens": tokens(4, 7, 30)}, dynamic={"tokens": [-1, -1]},
               more=[("_n2t11", {"tokens": tokens(2, 11, 30)})])
    torch_case("torch_char_model", "char-level LM: Embedding(27, 10) -> GRU(10, 16, 2 layers) -> Linear(16, 27); "
               "logits, last-step Softmax, h",
               CharModel(), {"chars": tokens(2, 9, 27), "h0": data(2, 2, 16) * 0.5})
    torch_case("torch_seq2seq_attention", "GRU encoder-decoder with dot-product attention (MatMul, Softmax, "
               "Concat, Transpose), teacher forcing: src [2, 7], tgt [2, 5]",
               Seq2Seq(), {"src": tokens(2, 7, 20), "tgt": tokens(2, 5, 22)})
    torch_case("onnx_torchscript_lstm_bidirectional", "nn.LSTM(5, 8, 2 layers, bidirectional, batch_first) via "
               "torch.onnx.export(dynamo=False), dynamic batch and time",
               Rnn("LSTM", **lstm2), {"x": data(3, 6, 5)}, made="onnx-torchscript",
               dynamic={"x": [-1, -1, 5]}, more=[("_n2t4", {"x": data(2, 4, 5)})])
    torch_case("onnx_torchscript_gru", "nn.GRU(4, 8, batch_first) via torch.onnx.export(dynamo=False)",
               Rnn("GRU", input_size=4, hidden_size=8, batch_first=True), {"x": data(2, 6, 4)},
               made="onnx-torchscript")
    torch_case("onnx_torchscript_rnn_relu", "nn.RNN(4, 6, relu, bidirectional) via torch.onnx.export(dynamo=False)",
               Rnn("RNN", input_size=4, hidden_size=6, nonlinearity="relu", bidirectional=True),
               {"x": data(5, 2, 4)}, made="onnx-torchscript")
    torch_case("onnx_dynamo_lstm_2layer", "nn.LSTM(5, 8, 2 layers, batch_first) via torch.onnx.export(dynamo=True)",
               Rnn("LSTM", input_size=5, hidden_size=8, num_layers=2, batch_first=True), {"x": data(3, 6, 5)},
               made="onnx-dynamo")
    torch_case("onnx_dynamo_gru_bidirectional", "nn.GRU(4, 8, bidirectional) via torch.onnx.export(dynamo=True)",
               Rnn("GRU", input_size=4, hidden_size=8, bidirectional=True), {"x": data(6, 2, 4)},
               made="onnx-dynamo")
    torch_case("onnx_dynamo_text_classifier", "the text classifier via torch.onnx.export(dynamo=True)",
               TextClassifier(), {"tokens": tokens(4, 7, 30)}, made="onnx-dynamo")


# ----------------------------------------------------------------------------- ONNX helper
def onnx_case(name, note, op, direction, n=3, t=6, k=4, h=8, lengths=None, layout=0, lbr=0,
              activations=None, clip=None):
    """One ONNX LSTM / GRU / RNN node (as torch's exporters write them: W [D, G*H, K] in ONNX's
    gate order, B = Wb ++ Rb), with sequence_lens and initial states as graph inputs."""
    def make():
        import onnx
        from onnx import TensorProto, helper, numpy_helper
        d = 2 if direction == "bidirectional" else 1
        g = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
        xs = [n, t, k] if layout else [t, n, k]
        ss = [n, d, h] if layout else [d, n, h]
        inits = [numpy_helper.from_array(uniform(h, d, g * h, k), "W"),
                 numpy_helper.from_array(uniform(h, d, g * h, h), "R"),
                 numpy_helper.from_array(uniform(h, d, 2 * g * h), "B")]
        states = ["initial_h", "initial_c"] if op == "LSTM" else ["initial_h"]
        graph_inputs = [helper.make_tensor_value_info("X", TensorProto.FLOAT, xs),
                        helper.make_tensor_value_info("sequence_lens", TensorProto.INT32, [n])]
        graph_inputs += [helper.make_tensor_value_info(s, TensorProto.FLOAT, ss) for s in states]
        attrs = dict(hidden_size=h, direction=direction, layout=layout)
        if op == "GRU":
            attrs["linear_before_reset"] = lbr
        if activations:
            attrs["activations"] = activations
        if clip:
            attrs["clip"] = clip
        outs = ["Y", "Y_h"] + (["Y_c"] if op == "LSTM" else [])
        node = helper.make_node(op, ["X", "W", "R", "B", "sequence_lens"] + states, outs, **attrs)
        ys = [n, t, d, h] if layout else [t, d, n, h]
        graph = helper.make_graph(
            [node], name, graph_inputs,
            [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ys)] +
            [helper.make_tensor_value_info(o, TensorProto.FLOAT, ss) for o in outs[1:]], inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
        onnx.checker.check_model(m)
        path = f"/tmp/make_rnn_corpus_{name}.onnx"
        onnx.save(m, path)
        model = ov.convert_model(path)
        inputs = {"X": data(*xs),
                  "sequence_lens": np.asarray(lengths if lengths is not None else [t] * n, np.int32)}
        inputs.update({s: data(*ss) for s in states})
        return Case(model, inputs, "onnx-helper", note)
    CASES.append((name, make))


onnx_case("onnx_lstm_forward_lengths", "ONNX LSTM forward, sequence_lens [6, 3, 1]", "LSTM", "forward",
          lengths=[6, 3, 1])
onnx_case("onnx_lstm_bidirectional_lengths", "ONNX LSTM bidirectional, sequence_lens [2, 6, 4]", "LSTM",
          "bidirectional", lengths=[2, 6, 4])
onnx_case("onnx_lstm_reverse", "ONNX LSTM reverse", "LSTM", "reverse")
onnx_case("onnx_gru_lbr_bidirectional_lengths", "ONNX GRU linear_before_reset 1 (as PyTorch), bidirectional, "
          "sequence_lens [5, 6, 2]", "GRU", "bidirectional", lbr=1, lengths=[5, 6, 2])
onnx_case("onnx_gru_forward", "ONNX GRU linear_before_reset 0, forward", "GRU", "forward")
onnx_case("onnx_rnn_relu_reverse_lengths", "ONNX RNN Relu, reverse, sequence_lens [1, 6, 3]", "RNN", "reverse",
          activations=["Relu"], lengths=[1, 6, 3])
onnx_case("onnx_rnn_tanh_clip", "ONNX RNN Tanh, clip 0.6: the reference path", "RNN", "forward", clip=0.6)


def main():
    prefix = sys.argv[1] if len(sys.argv) > 1 else ""
    try:
        torch_cases()
    except ImportError as e:
        print(f"no PyTorch ({e}): the pytorch / onnx-torchscript / onnx-dynamo cases are skipped")
    os.makedirs(ROOT, exist_ok=True)
    readme = ["# RNN corpus", "",
              "Generated by `tools/ov_cases/make_rnn_corpus.py` with PyPI `openvino` "
              f"{ov.__version__.split('-')[0]} (CPU plugin, INFERENCE_PRECISION_HINT=f32); `made` says "
              "how the IR was made (see the script). `fused` counts the sequence ops oneDNN runs. "
              "Checked by `tests/graph_ov_corpus.rs`.", "",
              "| case | made | fused | ops outside LSTM/GRU/RNNSequence, Parameter, Const, Result | what |",
              "| --- | --- | --- | --- | --- |"]
    plain = ("Parameter", "Constant", "Result", "LSTMSequence", "GRUSequence", "RNNSequence")
    for name, make in CASES:
        if not name.startswith(prefix):
            continue
        c = make()
        for run in save(name, c):
            others = sorted({t for t in op_types(c.model) if not t.startswith(plain)})
            readme.append(f"| {run} | {c.made} | {fused_count(c.model)} | {', '.join(others)} | {c.note} |")
            print(run)
    if not prefix:
        with open(os.path.join(ROOT, "README.md"), "w") as fh:
            fh.write("\n".join(readme) + "\n")


if __name__ == "__main__":
    main()
