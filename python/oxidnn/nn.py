"""PyTorch-compatible recurrent layers (inference) on oxidnn's RNN primitives."""
import threading
from types import SimpleNamespace

import numpy as np

from ._lib import C, ENGINE, Handle, create, execute, f32, lib, md, memory

__all__ = ["LSTM", "GRU", "RNN"]

_STATE_ARGS = [("DNNL_ARG_SRC_ITER", "DNNL_ARG_DST_ITER"),
               ("DNNL_ARG_SRC_ITER_C", "DNNL_ARG_DST_ITER_C")]


class _RNNBase:
    """What LSTM, GRU and RNN share: PyTorch's parameters, their conversion to oneDNN's layouts
    (once per `load_state_dict`), one primitive per layer cached per input shape, weights
    reordered once into the layout the primitive picks (`any`), and PyTorch's call convention.

    Subclasses set `_gates` (for each oneDNN gate, the PyTorch row block it takes), `_hx_tuple`
    (the state is `(h, c)`) and implement `_create_pd`; `_bias` when not `b_ih + b_hh`."""

    _hx_tuple = False

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

        w = {"WEIGHTS_LAYER": [], "WEIGHTS_ITER": [], "BIAS": [], "WEIGHTS_PROJECTION": []}
        for sfx in ("", "_reverse")[:self._dirs]:
            p = {k: params.get(f"{k}_l{layer}{sfx}") for k in
                 ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")}
            w["WEIGHTS_LAYER"].append(gates(p["weight_ih"]))
            w["WEIGHTS_ITER"].append(gates(p["weight_hh"]))
            zero = np.zeros((G, H), np.float32)
            b_ih = zero if p["bias_ih"] is None else p["bias_ih"].reshape(G, H)[self._gates]
            b_hh = zero if p["bias_hh"] is None else p["bias_hh"].reshape(G, H)[self._gates]
            w["BIAS"].append(self._bias(b_ih, b_hh))
            if self.proj_size:
                w["WEIGHTS_PROJECTION"].append(p["weight_hr"].T)
        tags = {"WEIGHTS_LAYER": "dnnl_ldigo", "WEIGHTS_ITER": "dnnl_ldigo",
                "BIAS": "dnnl_ldgo", "WEIGHTS_PROJECTION": "dnnl_ldio"}
        out = {}
        for name, per_dir in w.items():
            if per_dir:
                array = np.ascontiguousarray(np.stack(per_dir)[None], dtype=np.float32)
                desc = md(array.shape, tags[name])
                out[name] = SimpleNamespace(array=array, md=desc, mem=memory(desc.value, array),
                                            packed=[])
        return out

    @staticmethod
    def _bias(b_ih, b_hh):
        """oneDNN's bias [gates, H] from PyTorch's two (already in oneDNN's gate order)."""
        return b_ih + b_hh

    def _state_sizes(self):
        """Channels of each state: h (and c for LSTM)."""
        return [self._out, self.hidden_size][:2 if self._hx_tuple else 1]

    def _plan(self, T, N, channels, has_hx):
        """Per layer: the primitive for these shapes and the weight memories it runs with."""
        key = (T, N, channels, has_hx)
        with self._lock:
            if key not in self._plans:
                inner = self._dirs * self._out
                self._plans[key] = [self._layer_plan(layer, T, N, inner if layer else channels,
                                                     has_hx) for layer in range(self.num_layers)]
            return self._plans[key]

    def _layer_plan(self, layer, T, N, channels, has_hx):
        w = self._layers[layer]
        d = SimpleNamespace(
            src=md((T, N, channels), "dnnl_tnc"),
            dst=md((T, N, self._dirs * self._out), "dnnl_tnc"),
            states=[md((1, self._dirs, N, s), "dnnl_ldnc") for s in self._state_sizes()],
            **{k: md(v.array.shape, "dnnl_ldgo" if k == "BIAS" else "dnnl_format_tag_any")
               for k, v in w.items()})
        pd = Handle(self._create_pd(d, has_hx), "dnnl_primitive_desc_destroy")
        weights = {getattr(C, "DNNL_ARG_" + k): self._packed(v, pd.value, "DNNL_ARG_" + k)
                   for k, v in w.items()}
        return SimpleNamespace(mds=d, pd=pd, weights=weights, layer=w,
                               primitive=Handle(create("dnnl_primitive_create", pd.value),
                                                "dnnl_primitive_destroy"))

    @staticmethod
    def _packed(w, pd, arg):
        """`w`'s memory in the layout `pd` wants for `arg`: reordered once per layout."""
        want = lib.dnnl_primitive_desc_query_md(pd, C.dnnl_query_exec_arg_md, getattr(C, arg))
        if lib.dnnl_memory_desc_equal(want, w.md.value):
            return w.mem
        for desc, mem in w.packed:
            if lib.dnnl_memory_desc_equal(want, desc.value):
                return mem
        desc = Handle(create("dnnl_memory_desc_clone", want), "dnnl_memory_desc_destroy")
        mem = memory(desc.value)
        reorder_pd = Handle(create("dnnl_reorder_primitive_desc_create", w.md.value, ENGINE.value,
                                   desc.value, ENGINE.value, None), "dnnl_primitive_desc_destroy")
        reorder = Handle(create("dnnl_primitive_create", reorder_pd.value),
                         "dnnl_primitive_destroy")
        execute(reorder.value, {C.DNNL_ARG_FROM: w.mem, C.DNNL_ARG_TO: mem})
        w.packed.append((desc, mem))
        return mem

    def _direction(self):
        return (C.dnnl_bidirectional_concat if self.bidirectional
                else C.dnnl_unidirectional_left2right)

    def __call__(self, input, hx=None):
        """Runs the layers: `(output, h_n)`, for LSTM `(output, (h_n, c_n))`, as PyTorch; numpy
        arrays, or torch tensors when `input` is one."""
        to_torch = type(input).__module__.startswith("torch")
        x = f32(input)
        if x.ndim not in (2, 3):
            raise ValueError(f"input of {x.ndim} dims: expected 3 (batched) or 2 (unbatched)")
        batched = x.ndim == 3
        x = x.transpose(1, 0, 2) if batched and self.batch_first else x
        x = np.ascontiguousarray(x if batched else x[:, None])
        T, N, channels = x.shape
        L, D = self.num_layers, self._dirs
        sizes = self._state_sizes()
        states = None
        if hx is not None:
            states = [f32(s) if batched else f32(s)[:, None]
                      for s in (hx if self._hx_tuple else [hx])]
            if len(states) != len(sizes):
                raise ValueError(f"hx holds {len(states)} states, expected {len(sizes)}")
            for s, size in zip(states, sizes):
                if s.shape != (L * D, N, size):
                    raise ValueError(f"state shape {s.shape}, expected {(L * D, N, size)}")
        finals = [np.empty((L * D, N, s), np.float32) for s in sizes]
        for layer, plan in enumerate(self._plan(T, N, channels, hx is not None)):
            y = np.empty((T, N, D * self._out), np.float32)
            args = dict(plan.weights)
            args[C.DNNL_ARG_SRC_LAYER] = memory(plan.mds.src.value, x)
            args[C.DNNL_ARG_DST_LAYER] = memory(plan.mds.dst.value, y)
            for k, (src_arg, dst_arg) in enumerate(_STATE_ARGS[:len(sizes)]):
                desc = plan.mds.states[k].value
                part = slice(layer * D, (layer + 1) * D)
                args[getattr(C, dst_arg)] = memory(desc, finals[k][part])
                if states is not None:
                    args[getattr(C, src_arg)] = memory(desc, states[k][part])
            execute(plan.primitive.value, args)
            x = y
        if not batched:
            x, finals = x[:, 0], [f[:, 0] for f in finals]
        elif self.batch_first:
            x = x.transpose(1, 0, 2)
        if to_torch:
            import torch
            x = torch.from_numpy(np.ascontiguousarray(x))
            finals = [torch.from_numpy(f) for f in finals]
        return x, (tuple(finals) if self._hx_tuple else finals[0])

    def _create_pd(self, d, has_hx):
        """The forward-inference primitive descriptor for memory descriptors `d`."""
        raise NotImplementedError


class LSTM(_RNNBase):
    """torch.nn.LSTM (with `proj_size`): oneDNN's LSTM, gates i, f, g, o as PyTorch's."""

    _gates = [0, 1, 2, 3]
    _hx_tuple = True

    def _create_pd(self, d, has_hx):
        h, c = d.states
        return create("dnnl_lstm_forward_primitive_desc_create", ENGINE.value,
                      C.dnnl_forward_inference, self._direction(), d.src.value,
                      h.value if has_hx else None, c.value if has_hx else None,
                      d.WEIGHTS_LAYER.value, d.WEIGHTS_ITER.value, None,
                      d.WEIGHTS_PROJECTION.value if self.proj_size else None, d.BIAS.value,
                      d.dst.value, h.value, c.value, C.dnnl_rnn_flags_undef, None)


class GRU(_RNNBase):
    """torch.nn.GRU: oneDNN's linear-before-reset GRU; gates u, r, o take PyTorch's z, r, n."""

    _gates = [1, 0, 2]

    @staticmethod
    def _bias(b_ih, b_hh):
        """u, r: the sums; o: b_in; u': b_hn (inside the reset product)."""
        return np.concatenate([b_ih[:2] + b_hh[:2], b_ih[2:], b_hh[2:]])

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False):
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional)

    def _create_pd(self, d, has_hx):
        (h,) = d.states
        return create("dnnl_lbr_gru_forward_primitive_desc_create", ENGINE.value,
                      C.dnnl_forward_inference, self._direction(), d.src.value,
                      h.value if has_hx else None, d.WEIGHTS_LAYER.value, d.WEIGHTS_ITER.value,
                      d.BIAS.value, d.dst.value, h.value, C.dnnl_rnn_flags_undef, None)


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

    def _create_pd(self, d, has_hx):
        (h,) = d.states
        return create("dnnl_vanilla_rnn_forward_primitive_desc_create", ENGINE.value,
                      C.dnnl_forward_inference, getattr(C, "dnnl_eltwise_" + self.nonlinearity),
                      self._direction(), d.src.value, h.value if has_hx else None,
                      d.WEIGHTS_LAYER.value, d.WEIGHTS_ITER.value, d.BIAS.value, d.dst.value,
                      h.value, C.dnnl_rnn_flags_undef, 0.0, 0.0, None)
