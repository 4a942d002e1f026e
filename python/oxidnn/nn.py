"""PyTorch-compatible recurrent layers (inference) on oxidnn's RNN primitives, plus the cells
PyTorch lacks under oneDNN's names."""
import ctypes
import threading
from types import SimpleNamespace

import numpy as np

from . import dnnl
from ._lib import C, Error, f32, lib

__all__ = ["LSTM", "GRU", "RNN", "PeepholeLSTM", "LBRGRU", "VanillaGRU", "AUGRU", "LBRAUGRU"]

_set_handle, _execute = lib.dnnl_memory_set_data_handle, lib.dnnl_primitive_execute
_addressof, _c_char = ctypes.addressof, ctypes.c_char
_F32 = np.dtype(np.float32)


def _address(array):
    """The address of a C-contiguous array's buffer (`array.ctypes.data`, 5 x faster for
    writable arrays)."""
    try:
        return _addressof(_c_char.from_buffer(array))
    except (TypeError, ValueError):  # read-only or empty
        return array.ctypes.data


def _f32(x):
    """`x` when it is a C-contiguous float32 numpy array, else f32(x)."""
    if type(x) is np.ndarray and x.dtype is _F32 and x.flags.c_contiguous:
        return x
    return f32(x)


def _i32(x):
    """A C-contiguous int32 numpy array from a sequence, numpy array or torch tensor."""
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    return np.ascontiguousarray(x, dtype=np.int32)


class _RNNBase:
    """What the layers share: PyTorch's parameters, their conversion to oneDNN's layouts (once per
    `load_state_dict`), one primitive per layer cached per input shape, weights reordered once
    into the layout the primitive picks (`any`), and PyTorch's call convention.

    Per input shape (the last `plan_cache_size` ones) a plan holds the primitives; runners (one
    per concurrent call, pooled) hold a stream, memories for every argument, the exec-arg arrays
    and the buffers between layers, so a call only points memories at its arrays
    (`dnnl_memory_set_data_handle`) and executes.

    Subclasses set `_gates` (for each oneDNN gate, the PyTorch row block it takes), `_hx_tuple`
    (the state is `(h, c)`) and implement `_create_pd`; `_bias` when not `b_ih + b_hh`."""

    _hx_tuple = False
    _peephole = False
    _attention = False
    plan_cache_size = 64  # input shapes whose primitives and per-call state are kept

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0):
        if dropout:
            raise NotImplementedError("dropout: oxidnn.nn layers run inference only")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.bidirectional = bias, batch_first, bidirectional
        self.proj_size = proj_size
        self._dirs = 2 if bidirectional else 1
        self._out = proj_size or hidden_size
        self._lock = threading.Lock()
        k = hidden_size ** -0.5
        rng = np.random.default_rng()
        self.load_state_dict({name: rng.uniform(-k, k, shape).astype(np.float32)
                              for name, shape in self._shapes().items()})

    def _shapes(self):
        """PyTorch's parameter names and shapes, in PyTorch's order."""
        rows, shapes = len(self._gates) * self.hidden_size, {}
        for layer in range(self.num_layers):
            for sfx in ("", "_reverse")[:self._dirs]:
                cols = self.input_size if layer == 0 else self._out * self._dirs
                shapes[f"weight_ih_l{layer}{sfx}"] = (rows, cols)
                shapes[f"weight_hh_l{layer}{sfx}"] = (rows, self._out)
                if self.bias:
                    shapes[f"bias_ih_l{layer}{sfx}"] = (rows,)
                    shapes[f"bias_hh_l{layer}{sfx}"] = (rows,)
                if self._peephole:
                    shapes[f"weight_peephole_l{layer}{sfx}"] = (3, self.hidden_size)
                if self.proj_size:
                    shapes[f"weight_hr_l{layer}{sfx}"] = (self.proj_size, self.hidden_size)
        return shapes

    def __getattr__(self, name):
        """The parameters as attributes (`weight_ih_l0`, ...), read-only arrays."""
        params = self.__dict__.get("_params", {})
        if name in params:
            return params[name]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def state_dict(self):
        """The parameters, PyTorch's names and shapes, as float32 numpy arrays."""
        return {name: p.copy() for name, p in self._params.items()}

    def load_state_dict(self, state_dict):
        """Loads every parameter (numpy arrays or torch tensors, PyTorch's names and shapes)."""
        shapes = self._shapes()
        missing, unexpected = shapes.keys() - state_dict.keys(), state_dict.keys() - shapes.keys()
        if missing or unexpected:
            raise KeyError(f"missing {sorted(missing)}, unexpected {sorted(unexpected)}")
        params = {name: f32(state_dict[name]).copy() for name in shapes}
        for name, shape in shapes.items():
            if params[name].shape != shape:
                raise ValueError(f"{name}: shape {params[name].shape}, expected {shape}")
            params[name].flags.writeable = False  # changes go through load_state_dict
        layers = [self._convert(params, layer) for layer in range(self.num_layers)]
        with self._lock:
            self._params, self._layers, self._plans = params, layers, {}

    def _convert(self, params, layer):
        """Layer `layer`'s weights in oneDNN's plain layouts (ldigo, ldgo, ldio)."""
        G, H = len(self._gates), self.hidden_size

        def gates(w):  # PyTorch [G*H, cols] -> [cols, G, H] in oneDNN's gate order
            return w.reshape(G, H, -1)[self._gates].transpose(2, 0, 1)

        w = {"WEIGHTS_LAYER": [], "WEIGHTS_ITER": [], "BIAS": [], "WEIGHTS_PEEPHOLE": [],
             "WEIGHTS_PROJECTION": []}
        for sfx in ("", "_reverse")[:self._dirs]:
            p = {k: params.get(f"{k}_l{layer}{sfx}") for k in
                 ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_peephole", "weight_hr")}
            w["WEIGHTS_LAYER"].append(gates(p["weight_ih"]))
            w["WEIGHTS_ITER"].append(gates(p["weight_hh"]))
            zero = np.zeros((G, H), np.float32)
            b_ih = zero if p["bias_ih"] is None else p["bias_ih"].reshape(G, H)[self._gates]
            b_hh = zero if p["bias_hh"] is None else p["bias_hh"].reshape(G, H)[self._gates]
            w["BIAS"].append(self._bias(b_ih, b_hh))
            if self._peephole:
                w["WEIGHTS_PEEPHOLE"].append(p["weight_peephole"])
            if self.proj_size:
                w["WEIGHTS_PROJECTION"].append(p["weight_hr"].T)
        tags = {"WEIGHTS_LAYER": "ldigo", "WEIGHTS_ITER": "ldigo", "BIAS": "ldgo",
                "WEIGHTS_PEEPHOLE": "ldgo", "WEIGHTS_PROJECTION": "ldio"}
        out = {}
        for name, per_dir in w.items():
            if per_dir:
                array = np.ascontiguousarray(np.stack(per_dir)[None], dtype=np.float32)
                mem = dnnl.Memory(dnnl.MemoryDesc(array.shape, tag=tags[name]), array)
                out[name] = SimpleNamespace(mem=mem, packed=[])
        return out

    @staticmethod
    def _bias(b_ih, b_hh):
        """oneDNN's bias [gates, H] from PyTorch's two (already in oneDNN's gate order)."""
        return b_ih + b_hh

    def _state_sizes(self):
        """Channels of each state: h (and c for LSTM)."""
        return [self._out, self.hidden_size][:2 if self._hx_tuple else 1]

    def _plan(self, key):
        """The layers' primitives for `key` = (input shape, has_hx, has_lengths), and the
        shapes of the call's outputs."""
        shape, has_hx, has_lengths = key
        if len(shape) not in (2, 3):
            raise ValueError(f"input of {len(shape)} dims: expected 3 (batched) or 2 (unbatched)")
        if len(shape) == 3:
            N, T = shape[:2] if self.batch_first else shape[1::-1]
        else:
            T, N = shape[0], 1
        LD = self.num_layers * self._dirs
        with self._lock:
            plan = self._plans.get(key)
            if plan is None:
                attr = dnnl.PrimitiveAttr()
                attr.seq_lengths = has_lengths
                inner = self._dirs * self._out
                layers = [self._layer_plan(layer, T, N, inner if layer else shape[-1], has_hx,
                                           attr) for layer in range(self.num_layers)]
                state_shapes = [(LD, N, s) if len(shape) == 3 else (LD, s)
                                for s in self._state_sizes()]
                ends = np.cumsum([0] + [int(np.prod(s)) for s in
                                        [shape[:-1] + (inner,)] + state_shapes]).tolist()
                plan = self._plans[key] = SimpleNamespace(
                    T=T, N=N, has_hx=has_hx, has_lengths=has_lengths, layers=layers, runners=[],
                    state_shapes=state_shapes, out_size=ends[-1],
                    out_views=list(zip(ends, ends[1:], [shape[:-1] + (inner,)] + state_shapes)),
                    out_offsets=[4 * e for e in ends[:-1]])
                while len(self._plans) > self.plan_cache_size:  # the oldest shape goes
                    del self._plans[next(iter(self._plans))]
            return plan

    def _data_md(self, T, N, channels):
        """src/dst layer (and attention) descriptors: tnc, or ntc for batch_first."""
        return dnnl.MemoryDesc((T, N, channels), tag="ntc" if self.batch_first else "tnc")

    def _layer_plan(self, layer, T, N, channels, has_hx, attr):
        w = self._layers[layer]
        weights = {"WEIGHTS_PEEPHOLE": None, "WEIGHTS_PROJECTION": None}  # when the cell has none
        weights.update({k: dnnl.MemoryDesc(v.mem.desc.dims, tag="ldgo" if k == "BIAS" else "any")
                        for k, v in w.items()})
        d = SimpleNamespace(
            src=self._data_md(T, N, channels),
            dst=self._data_md(T, N, self._dirs * self._out),
            states=[dnnl.MemoryDesc((1, self._dirs, N, s), tag="ldnc")
                    for s in self._state_sizes()],
            attention=self._data_md(T, N, 1) if self._attention else None, **weights)
        pd = self._create_pd(d, has_hx, attr)
        weights = {getattr(C, "DNNL_ARG_" + k): self._packed(v, pd, "DNNL_ARG_" + k)
                   for k, v in w.items()}
        return SimpleNamespace(mds=d, pd=pd, weights=weights, primitive=dnnl.Primitive(pd))

    @staticmethod
    def _packed(w, pd, arg):
        """`w`'s memory in the layout `pd` wants for `arg`: reordered once per layout."""
        want = pd.arg_md(getattr(C, arg))
        if want == w.mem.desc:
            return w.mem
        for mem in w.packed:
            if want == mem.desc:
                return mem
        mem = dnnl.Memory(want)
        dnnl.execute(dnnl.Primitive(dnnl.reorder(w.mem.desc, want)),
                     {C.DNNL_ARG_FROM: w.mem, C.DNNL_ARG_TO: mem})
        w.packed.append(mem)
        return mem

    def _direction(self):
        return (C.dnnl_bidirectional_concat if self.bidirectional
                else C.dnnl_unidirectional_left2right)

    def _runner(self, plan):
        """Per-call state for `plan`: memories, exec-arg arrays, the buffers between layers and
        `bind`: per layer, (memory, call address index, byte offset) set at each call; the
        call's addresses are those of the input, the initial states (if given), the lengths (if
        given), the attention (AUGRU), the output and the final states."""
        T, N, has_hx = plan.T, plan.N, plan.has_hx
        L, D, nstates = self.num_layers, self._dirs, len(self._state_sizes())
        shape = (N, T) if self.batch_first else (T, N)
        index = {"lengths": 1 + nstates * has_hx}
        index["attention"] = index["lengths"] + plan.has_lengths
        index["y"] = index["attention"] + self._attention
        stream = dnnl.Stream()
        runner = SimpleNamespace(stream=stream.handle.value, layers=[], keep=[stream])
        last = None  # the previous layer's output memory
        for layer, lp in enumerate(plan.layers):
            args, bind = dict(lp.weights), []
            if layer == 0:
                args[C.DNNL_ARG_SRC_LAYER] = dnnl.Memory(lp.mds.src)
                bind.append((args[C.DNNL_ARG_SRC_LAYER], 0, 0))
            else:
                args[C.DNNL_ARG_SRC_LAYER] = last
            if layer == L - 1:
                args[C.DNNL_ARG_DST_LAYER] = dnnl.Memory(lp.mds.dst)
                bind.append((args[C.DNNL_ARG_DST_LAYER], index["y"], 0))
            else:
                buffer = np.empty(shape + (D * self._out,), np.float32)
                args[C.DNNL_ARG_DST_LAYER] = last = dnnl.Memory(lp.mds.dst, buffer)
            for k, size in enumerate(self._state_sizes()):
                offset = layer * D * N * size * 4
                src_arg, dst_arg = (("DNNL_ARG_SRC_ITER", "DNNL_ARG_DST_ITER"),
                                    ("DNNL_ARG_SRC_ITER_C", "DNNL_ARG_DST_ITER_C"))[k]
                if has_hx:
                    args[getattr(C, src_arg)] = dnnl.Memory(lp.mds.states[k])
                    bind.append((args[getattr(C, src_arg)], 1 + k, offset))
                args[getattr(C, dst_arg)] = dnnl.Memory(lp.mds.states[k])
                bind.append((args[getattr(C, dst_arg)], index["y"] + 1 + k, offset))
            if plan.has_lengths:
                args[C.OXIDNN_ARG_SEQ_LENGTHS] = dnnl.Memory(lp.pd.arg_md(C.OXIDNN_ARG_SEQ_LENGTHS))
                bind.append((args[C.OXIDNN_ARG_SEQ_LENGTHS], index["lengths"], 0))
            if self._attention:
                args[C.DNNL_ARG_AUGRU_ATTENTION] = dnnl.Memory(lp.mds.attention)
                bind.append((args[C.DNNL_ARG_AUGRU_ATTENTION], index["attention"], 0))
            array = (dnnl.ExecArg * len(args))(
                *[dnnl.ExecArg(k, m.handle.value) for k, m in args.items()])
            runner.keep.append(args)
            runner.layers.append((lp.primitive.handle.value, len(args), array,
                                  [[m.handle.value, i, off, None] for m, i, off in bind]))
        return runner

    def __call__(self, input, hx=None, lengths=None):
        """Runs the layers: `(output, h_n)`, for LSTM `(output, (h_n, c_n))`, as PyTorch; numpy
        arrays, or torch tensors when `input` is one. `lengths` (batched input only): each
        sample's valid steps, as PyTorch's pack_padded_sequence (enforce_sorted=False) then
        pad_packed_sequence(total_length=T): outputs past a sample's length are zeros, h_n / c_n
        hold the state after its last valid step (a reverse direction starts there). A torch
        PackedSequence input gives a PackedSequence output, as PyTorch's."""
        if type(input).__name__ == "PackedSequence":
            return self._run_packed(input, hx, None)
        return self._run(input, hx, lengths, None)

    def _run_packed(self, packed, hx, attention):
        """A PackedSequence through `_run` with its lengths; the output packed as the input."""
        import torch
        from torch.nn.utils.rnn import PackedSequence, pad_packed_sequence

        x, lengths = pad_packed_sequence(packed, batch_first=self.batch_first)
        y, h = self._run(x, hx, lengths, attention)
        if self.batch_first:
            y = y.transpose(0, 1)
        order = packed.sorted_indices
        if order is None:
            order = torch.arange(y.shape[1])
        data = torch.cat([y[t, order[:n]] for t, n in enumerate(packed.batch_sizes.tolist())])
        return PackedSequence(data, packed.batch_sizes, packed.sorted_indices,
                              packed.unsorted_indices), h

    def _run(self, input, hx, lengths, attention):
        x = _f32(input)
        key = (x.shape, hx is not None, lengths is not None)
        plan = self._plans.get(key) or self._plan(key)
        arrays = [x]
        if hx is not None:
            states = hx if self._hx_tuple else (hx,)
            if len(states) != len(plan.state_shapes):
                raise ValueError(f"hx holds {len(states)} states, expected "
                                 f"{len(plan.state_shapes)}")
            for state, shape in zip(states, plan.state_shapes):
                state = _f32(state)
                if state.shape != shape:
                    raise ValueError(f"state of shape {state.shape}, expected {shape}")
                arrays.append(state)
        # the output and the final states: views of one new buffer, the output at its start
        out = np.empty(plan.out_size, np.float32)
        y, *finals = [out[a:b].reshape(shape) for a, b, shape in plan.out_views]
        if lengths is not None:
            lengths = _i32(lengths)
            if x.ndim != 3 or lengths.shape != (plan.N,):
                raise ValueError(f"lengths of shape {lengths.shape} for input {x.shape}")
            arrays.append(lengths)
        if self._attention:
            attention = f32(attention)
            if attention.size != plan.T * plan.N or \
                    attention.shape[:x.ndim - 1] != x.shape[:-1]:
                raise ValueError(f"attention of shape {attention.shape} for input {x.shape}")
            arrays.append(attention)
        arrays.append(out)
        try:
            runner = plan.runners.pop()
        except IndexError:
            runner = self._runner(plan)
        try:
            ptrs = list(map(_address, arrays))
            base = ptrs.pop()
            ptrs += [base + offset for offset in plan.out_offsets]
            stream = runner.stream
            for primitive, nargs, args, bind in runner.layers:
                for b in bind:  # [memory, array index, byte offset, address it has]
                    address = ptrs[b[1]] + b[2]
                    if address != b[3]:
                        status = _set_handle(b[0], address)
                        if status:
                            raise Error("dnnl_memory_set_data_handle", status)
                        b[3] = address
                status = _execute(primitive, stream, nargs, args)
                if status:
                    raise Error("dnnl_primitive_execute", status)
        finally:
            plan.runners.append(runner)
        if type(input) is not np.ndarray and type(input).__module__.startswith("torch"):
            import torch
            y, finals = torch.from_numpy(y), [torch.from_numpy(f) for f in finals]
        return y, (tuple(finals) if self._hx_tuple else finals[0])

    def _create_pd(self, d, has_hx, attr):
        """The forward-inference primitive descriptor for memory descriptors `d`."""
        raise NotImplementedError


class LSTM(_RNNBase):
    """torch.nn.LSTM (with `proj_size`): oneDNN's LSTM, gates i, f, g, o as PyTorch's."""

    _gates = [0, 1, 2, 3]
    _hx_tuple = True

    def _create_pd(self, d, has_hx, attr):
        h, c = d.states
        return dnnl.lstm_forward(
            C.dnnl_forward_inference, self._direction(), d.src, h if has_hx else None,
            c if has_hx else None, d.WEIGHTS_LAYER, d.WEIGHTS_ITER, d.WEIGHTS_PEEPHOLE,
            d.WEIGHTS_PROJECTION, d.BIAS, d.dst, h, c, attr=attr)


class PeepholeLSTM(LSTM):
    """LSTM with peephole weights (oneDNN's LSTM with `weights_peephole`): as LSTM, plus
    `weight_peephole_l{k}[_reverse]` of shape (3, hidden_size), rows i, f, o:
    i = σ(A_i + P_i ⊙ c_prev), f = σ(A_f + P_f ⊙ c_prev), o = σ(A_o + P_o ⊙ c)."""

    _peephole = True


class GRU(_RNNBase):
    """torch.nn.GRU, which is oneDNN's linear-before-reset GRU (`LBRGRU` is this class): gates
    u, r, o take PyTorch's z, r, n; n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn))."""

    _gates = [1, 0, 2]
    _create = staticmethod(dnnl.lbr_gru_forward)

    @staticmethod
    def _bias(b_ih, b_hh):
        """u, r: the sums; o: b_in; u': b_hn (inside the reset product)."""
        return np.concatenate([b_ih[:2] + b_hh[:2], b_ih[2:], b_hh[2:]])

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False):
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional)

    def _create_pd(self, d, has_hx, attr):
        (h,) = d.states
        extra = [d.attention] if self._attention else []
        return self._create(C.dnnl_forward_inference, self._direction(), d.src,
                            h if has_hx else None, *extra, d.WEIGHTS_LAYER, d.WEIGHTS_ITER,
                            d.BIAS, d.dst, h, attr=attr)


LBRGRU = GRU


class VanillaGRU(GRU):
    """oneDNN's (vanilla) GRU, which PyTorch lacks: the reset gate applies before the recurrent
    product, n = tanh(W_in x + W_hn (r ⊙ h) + b_in + b_hn). Parameters as torch.nn.GRU's (rows
    r, z, n; the two biases are summed)."""

    _create = staticmethod(dnnl.gru_forward)
    _bias = staticmethod(_RNNBase._bias)


class _AttentionGRU:
    """AUGRU's interface: one layer, left to right, `module(input, hx, attention=a)` with `a`
    of shape (T, N) ((N, T) if batch_first; (T,) unbatched): u' = (1 - a) ⊙ u replaces the
    update gate, h = u' ⊙ h_prev + (1 - u') ⊙ n."""

    _attention = True

    def __init__(self, input_size, hidden_size, bias=True, batch_first=False):
        super().__init__(input_size, hidden_size, 1, bias, batch_first)

    def __call__(self, input, hx=None, *, attention, lengths=None):
        return self._run(input, hx, lengths, attention)


class AUGRU(_AttentionGRU, VanillaGRU):
    """oneDNN's AUGRU: VanillaGRU's equations with the attention-scaled update gate."""

    _create = staticmethod(dnnl.augru_forward)


class LBRAUGRU(_AttentionGRU, GRU):
    """oneDNN's linear-before-reset AUGRU: GRU's (PyTorch's) equations with the
    attention-scaled update gate."""

    _create = staticmethod(dnnl.lbr_augru_forward)


class RNN(_RNNBase):
    """torch.nn.RNN (`nonlinearity` 'tanh' or 'relu'): oneDNN's vanilla RNN."""

    _gates = [0]

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"unknown nonlinearity {nonlinearity!r}")
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional)

    def _create_pd(self, d, has_hx, attr):
        (h,) = d.states
        return dnnl.vanilla_rnn_forward(
            C.dnnl_forward_inference, "eltwise_" + self.nonlinearity, self._direction(), d.src,
            h if has_hx else None, d.WEIGHTS_LAYER, d.WEIGHTS_ITER, d.BIAS, d.dst, h, attr=attr)
