"""Low-level, oneDNN-style access to the library: engine, stream, memory descriptors, memories
over numpy buffers, attributes, the forward and backward primitive descriptors of every RNN
cell (their parameters read from the header), reorders, primitives.

Enumerations are the header's values (`C.dnnl_forward_inference`, `C.DNNL_ARG_SRC_LAYER`, ...);
where a function takes one, the name without its `dnnl_` prefix is accepted too
(`"forward_inference"`, `"unidirectional_left2right"`, `"tnc"`). Optional descriptors are None."""
import ctypes
import inspect

import numpy as np

from ._lib import C, Dims, ExecArg, Handle, P, call, create, lib, prototype

__all__ = ["C", "Engine", "Stream", "MemoryDesc", "Memory", "PrimitiveAttr", "PrimitiveDesc",
           "Primitive", "reorder", "execute"] + [
               f"{cell}_{prop}" for cell in ("vanilla_rnn", "lstm", "gru", "lbr_gru", "augru",
                                             "lbr_augru") for prop in ("forward", "backward")]

_DTYPES = {np.dtype(np.float32): C.dnnl_f32, np.dtype(np.float16): C.dnnl_f16,
           np.dtype(np.int32): C.dnnl_s32, np.dtype(np.int8): C.dnnl_s8,
           np.dtype(np.uint8): C.dnnl_u8}
_NUMPY = {v: k for k, v in _DTYPES.items()}


def _enum(value):
    """A header value from an int or its name without the `dnnl_` prefix."""
    return getattr(C, "dnnl_" + value) if isinstance(value, str) else value


class Engine:
    """A CPU engine (`Engine.default()` is the one the package's modules use)."""

    _default = None

    def __init__(self, index=0):
        self.handle = Handle(create("dnnl_engine_create", C.dnnl_cpu, index),
                             "dnnl_engine_destroy")

    @classmethod
    def default(cls):
        if cls._default is None:
            cls._default = cls()
        return cls._default


class Stream:
    """An execution stream; use one per thread."""

    def __init__(self, engine=None):
        self.engine = engine or Engine.default()
        self.handle = Handle(create("dnnl_stream_create", self.engine.handle.value,
                                    C.dnnl_stream_default_flags), "dnnl_stream_destroy")

    def wait(self):
        call("dnnl_stream_wait", self.handle.value)


class MemoryDesc:
    """A memory descriptor: `dims`, a numpy `dtype` (or header data type), and a format `tag`
    (`"tnc"`, `"ldigo"`, `"any"`, ...) or element `strides`; neither: dense row-major."""

    def __init__(self, dims, dtype=np.float32, tag=None, strides=None):
        dims = tuple(int(d) for d in dims)
        dt = dtype if isinstance(dtype, int) else _DTYPES[np.dtype(dtype)]
        if tag is not None and strides is not None:
            raise ValueError("give a tag or strides, not both")
        if tag is not None:
            tag = C.dnnl_format_tag_any if tag == "any" else _enum(tag)
            value = create("dnnl_memory_desc_create_with_tag", len(dims), Dims(*dims), dt, tag)
        else:
            if strides is None:
                strides = np.cumprod((1,) + dims[:0:-1])[::-1] if dims else ()
            value = create("dnnl_memory_desc_create_with_strides", len(dims), Dims(*dims), dt,
                           Dims(*(int(s) for s in strides)))
        self.handle = Handle(value, "dnnl_memory_desc_destroy")

    @classmethod
    def from_array(cls, array):
        """The descriptor of `array` as it lies in memory (its dims, dtype and strides)."""
        return cls(array.shape, array.dtype, strides=_element_strides(array))

    @classmethod
    def _clone(cls, value):
        """An owned copy of a descriptor the library lends (a query result)."""
        md = cls.__new__(cls)
        md.handle = Handle(create("dnnl_memory_desc_clone", value), "dnnl_memory_desc_destroy")
        return md

    def _query(self, what, ctype):
        out = ctype()
        call("dnnl_memory_desc_query", self.handle.value, what, ctypes.byref(out))
        return out

    @property
    def ndims(self):
        return self._query(C.dnnl_query_ndims_s32, ctypes.c_int).value

    @property
    def dims(self):
        ptr = self._query(C.dnnl_query_dims, ctypes.POINTER(Dims))
        return tuple(ptr.contents[:self.ndims])

    @property
    def data_type(self):
        """The header's `dnnl_data_type_t`."""
        return self._query(C.dnnl_query_data_type, ctypes.c_int).value

    @property
    def strides(self):
        """Element strides of a plain (strided) descriptor; None for `any` or packed ones."""
        if self._query(C.dnnl_query_format_kind, ctypes.c_int).value != C.dnnl_blocked:
            return None
        ptr = self._query(C.dnnl_query_strides, ctypes.POINTER(Dims))
        return tuple(ptr.contents[:self.ndims])

    @property
    def size(self):
        """Bytes a buffer for this descriptor needs."""
        return lib.dnnl_memory_desc_get_size(self.handle.value)

    def __eq__(self, other):
        return isinstance(other, MemoryDesc) and \
            bool(lib.dnnl_memory_desc_equal(self.handle.value, other.handle.value))

    __hash__ = None

    def __repr__(self):
        return f"MemoryDesc(dims={self.dims}, data_type={self.data_type}, strides={self.strides})"


def _element_strides(array):
    """`array`'s strides in elements; ValueError when they are not whole, non-negative ones."""
    size = array.itemsize
    if any(s < 0 or s % size for s in array.strides):
        raise ValueError(f"strides {array.strides} are not non-negative multiples of {size}")
    return tuple(s // size for s in array.strides)


class Memory:
    """A memory: over a numpy array's buffer (zero-copy; the memory keeps the array alive), or
    library-allocated when `array` is None.

    `Memory.from_array(a)` describes `a` as it lies (any non-negative strides); `Memory(desc, a)`
    needs `a` to have desc's dtype and either desc's dims and strides or, for other layouts
    (packed weights), to be C-contiguous with at least `desc.size` bytes."""

    def __init__(self, desc, array=None, engine=None):
        self.desc, self.engine, self.array = desc, engine or Engine.default(), array
        data = C.DNNL_MEMORY_ALLOCATE if array is None else self._check(array)
        self.handle = Handle(create("dnnl_memory_create", desc.handle.value,
                                    self.engine.handle.value, P(data)), "dnnl_memory_destroy")

    @classmethod
    def from_array(cls, array, engine=None):
        return cls(MemoryDesc.from_array(array), array, engine)

    def set_array(self, array):
        """Points the memory at `array`'s buffer (checked against the descriptor)."""
        call("dnnl_memory_set_data_handle", self.handle.value, self._check(array))
        self.array = array

    def _check(self, array):
        """`array`'s buffer address; ValueError unless it holds the descriptor."""
        if _DTYPES.get(array.dtype) != self.desc.data_type:
            raise ValueError(f"array dtype {array.dtype} does not match the descriptor")
        strides = self.desc.strides
        same = strides is not None and array.shape == self.desc.dims and \
            _element_strides(array) == strides
        if not same and not (array.flags.c_contiguous and array.nbytes >= self.desc.size):
            raise ValueError(f"array of shape {array.shape}, strides {array.strides} does not "
                             f"hold {self.desc}")
        return array.ctypes.data

    @property
    def data_handle(self):
        out = P()
        call("dnnl_memory_get_data_handle", self.handle.value, ctypes.byref(out))
        return out.value

    def numpy(self):
        """The buffer of a plain (strided) memory as a numpy array, without copying; valid
        while the memory keeps that buffer (`set_array` releases a library-allocated one)."""
        strides, dt = self.desc.strides, _NUMPY[self.desc.data_type]
        if strides is None:
            raise ValueError("not a plain layout: reorder it into one first")
        dims = self.desc.dims
        span = 1 + sum((d - 1) * s for d, s in zip(dims, strides)) if all(dims) else 0
        raw = (ctypes.c_uint8 * (span * dt.itemsize)).from_address(self.data_handle)
        return np.ndarray(dims, dt, raw, strides=[s * dt.itemsize for s in strides])


class PrimitiveAttr:
    """Primitive attributes; `seq_lengths = True` switches on oxidnn's per-sample sequence
    lengths (the primitive then takes `C.OXIDNN_ARG_SEQ_LENGTHS`, s32 dims {N})."""

    def __init__(self):
        self.handle = Handle(create("dnnl_primitive_attr_create"), "dnnl_primitive_attr_destroy")

    @property
    def seq_lengths(self):
        out = ctypes.c_int()
        call("oxidnn_primitive_attr_get_rnn_seq_lengths", self.handle.value, ctypes.byref(out))
        return bool(out.value)

    @seq_lengths.setter
    def seq_lengths(self, on):
        call("oxidnn_primitive_attr_set_rnn_seq_lengths", self.handle.value, int(bool(on)))


class PrimitiveDesc:
    """A primitive descriptor (made by the `*_forward` / `*_backward` functions and
    `reorder`)."""

    def __init__(self, value):
        self.handle = Handle(value, "dnnl_primitive_desc_destroy")

    def query_md(self, what, index=0):
        """A descriptor the pd holds: `what` a `dnnl_query_t` or its name without `dnnl_query_`
        (`"src_md"`, `"weights_md"`, ...), index as oneDNN's."""
        what = _enum("query_" + what) if isinstance(what, str) else what
        value = lib.dnnl_primitive_desc_query_md(self.handle.value, what, index)
        return MemoryDesc._clone(value) if value else None

    def arg_md(self, arg):
        """The descriptor of execution argument `arg` (`C.DNNL_ARG_*`); None when unused."""
        return self.query_md(C.dnnl_query_exec_arg_md, arg)


class Primitive:
    """A primitive made from a PrimitiveDesc."""

    def __init__(self, pd):
        self.pd = pd
        self.handle = Handle(create("dnnl_primitive_create", pd.handle.value),
                             "dnnl_primitive_destroy")

    def execute(self, stream, args):
        """Runs on `stream` with {C.DNNL_ARG_*: Memory} (the GIL is released meanwhile)."""
        arr = (ExecArg * len(args))(*[ExecArg(k, m.handle.value) for k, m in args.items()])
        call("dnnl_primitive_execute", self.handle.value, stream.handle.value, len(args), arr)


def execute(primitive, args, stream=None):
    """`primitive.execute` on a new stream (or `stream`), waiting for it."""
    stream = stream or Stream()
    primitive.execute(stream, args)
    stream.wait()


def _handle(obj):
    """The library handle of a MemoryDesc, PrimitiveDesc or PrimitiveAttr; None stays NULL."""
    return None if obj is None else obj.handle.value


# How each parameter type of the RNN pd constructors converts: (ctypes type, from Python)
_PARAM_TYPES = {
    "dnnl_engine_t": (P, lambda e: (e or Engine.default()).handle.value),
    "dnnl_prop_kind_t": (ctypes.c_int, _enum), "dnnl_alg_kind_t": (ctypes.c_int, _enum),
    "dnnl_rnn_direction_t": (ctypes.c_int, _enum),
    "const_dnnl_memory_desc_t": (P, _handle), "unsigned int": (ctypes.c_uint, int),
    "float": (ctypes.c_float, float), "const_dnnl_primitive_desc_t": (P, _handle),
    "const_dnnl_primitive_attr_t": (P, _handle)}
_DEFAULTS = {"flags": 0, "alpha": 0.0, "beta": 0.0, "hint_fwd_pd": None, "attr": None,
             "engine": None}


def _rnn_pd(name):
    """`dnnl_<name>_primitive_desc_create` as a Python function, its parameters read from the
    header: the header's names without `_desc` (positional or keyword, header order), `engine`
    last; flags, alpha, beta, hint_fwd_pd, attr and engine optional. Returns a PrimitiveDesc."""
    function = f"dnnl_{name}_primitive_desc_create"
    params = prototype(function)[1:]  # after the output pointer
    getattr(lib, function).argtypes = \
        [ctypes.POINTER(P)] + [_PARAM_TYPES[ctype][0] for ctype, _ in params]
    getattr(lib, function).restype = ctypes.c_int
    names = [p[:-len("_desc")] if p.endswith("_desc") else p for _, p in params]
    order = [n for n in names if n != "engine"] + ["engine"]
    signature = inspect.Signature([inspect.Parameter(
        n, inspect.Parameter.POSITIONAL_OR_KEYWORD,
        default=_DEFAULTS.get(n, inspect.Parameter.empty)) for n in order])

    def pd(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        values = [_PARAM_TYPES[ctype][1](bound.arguments[n])
                  for (ctype, _), n in zip(params, names)]
        return PrimitiveDesc(create(function, *values))

    pd.__name__, pd.__signature__ = name, signature
    pd.__doc__ = f"{function}: {', '.join(order)}."
    return pd


vanilla_rnn_forward = _rnn_pd("vanilla_rnn_forward")
vanilla_rnn_backward = _rnn_pd("vanilla_rnn_backward")
lstm_forward = _rnn_pd("lstm_forward")
lstm_backward = _rnn_pd("lstm_backward")
gru_forward = _rnn_pd("gru_forward")
gru_backward = _rnn_pd("gru_backward")
lbr_gru_forward = _rnn_pd("lbr_gru_forward")
lbr_gru_backward = _rnn_pd("lbr_gru_backward")
augru_forward = _rnn_pd("augru_forward")
augru_backward = _rnn_pd("augru_backward")
lbr_augru_forward = _rnn_pd("lbr_augru_forward")
lbr_augru_backward = _rnn_pd("lbr_augru_backward")


def reorder(src, dst, attr=None, engine=None):
    """dnnl_reorder_primitive_desc_create from descriptor `src` to `dst`."""
    engine = (engine or Engine.default()).handle.value
    return PrimitiveDesc(create("dnnl_reorder_primitive_desc_create", _handle(src), engine,
                                _handle(dst), engine, _handle(attr)))
