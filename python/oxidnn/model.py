"""OpenVINO IR models through oxidnn's `oxidnn_model_*` / `oxidnn_request_*` C API."""
import ctypes
from collections import namedtuple

import numpy as np

from ._lib import C, Handle, P, call, create

__all__ = ["Model", "TensorInfo"]

TensorInfo = namedtuple("TensorInfo", "name shape dtype")
TensorInfo.__doc__ = """A model input or output: name, shape (-1: a dynamic dim; None: unknown
rank) and numpy dtype."""

_DTYPES = {getattr(C, name): np.dtype(dt) for name, dt in [
    ("dnnl_f32", "float32"), ("dnnl_f16", "float16"), ("dnnl_s32", "int32"),
    ("dnnl_s8", "int8"), ("dnnl_u8", "uint8"), ("dnnl_boolean", "bool"), ("oxidnn_s64", "int64")]}


class Model:
    """An OpenVINO IR (`model.xml`, weights in `model.bin` next to it or at `bin_path`).

    `model({name: array})` runs it and returns {output name: numpy array}. Each call runs on a
    request of its own, so calls on one model from several threads run in parallel."""

    def __init__(self, xml_path, bin_path=None):
        self._model = Handle(create("oxidnn_model_load", str(xml_path).encode(),
                                    None if bin_path is None else str(bin_path).encode()),
                             "oxidnn_model_destroy")
        self.inputs = [self._info("input", i) for i in range(self._count("inputs"))]
        self.outputs = [self._info("output", i) for i in range(self._count("outputs"))]

    def _count(self, what):
        n = ctypes.c_int()
        call(f"oxidnn_model_get_num_{what}", self._model.value, ctypes.byref(n))
        return n.value

    def _shape(self, what, i, handle=None):
        ndims, dims = ctypes.c_int(), ctypes.POINTER(ctypes.c_int64)()
        prefix = "oxidnn_model" if handle is None else "oxidnn_request"
        call(f"{prefix}_get_{what}_shape", (handle or self._model).value, i, ctypes.byref(ndims),
             ctypes.byref(dims))
        return None if ndims.value < 0 else tuple(dims[k] for k in range(ndims.value))

    def _info(self, what, i):
        name, dt = ctypes.c_char_p(), ctypes.c_int()
        call(f"oxidnn_model_get_{what}_name", self._model.value, i, ctypes.byref(name))
        call(f"oxidnn_model_get_{what}_type", self._model.value, i, ctypes.byref(dt))
        return TensorInfo(name.value.decode(), self._shape(what, i), _DTYPES[dt.value])

    def __call__(self, inputs):
        """Runs the model on {input name: array}; returns {output name: numpy array}."""
        names = [t.name for t in self.inputs]
        if set(inputs) != set(names):
            raise KeyError(f"inputs {sorted(inputs)}, the model takes {sorted(names)}")
        arrays = [np.ascontiguousarray(inputs[t.name], dtype=t.dtype) for t in self.inputs]
        request = Handle(create("oxidnn_request_create", self._model.value),
                         "oxidnn_request_destroy")
        for i, a in enumerate(arrays):
            call("oxidnn_request_set_input_shape", request.value, i, a.ndim,
                 (ctypes.c_int64 * max(a.ndim, 1))(*a.shape))
        n = len(arrays)
        ptrs = (P * n)(*[a.ctypes.data for a in arrays])
        sizes = (ctypes.c_size_t * n)(*[a.nbytes for a in arrays])
        call("oxidnn_request_execute", request.value, n, ptrs, sizes, 0, None, None)
        return {t.name: self._output(request, i, t.dtype) for i, t in enumerate(self.outputs)}

    def _output(self, request, i, dtype):
        data, size = P(), ctypes.c_size_t()
        call("oxidnn_request_get_output_data", request.value, i, ctypes.byref(data),
             ctypes.byref(size))
        raw = (ctypes.c_uint8 * size.value).from_address(data.value) if size.value else b""
        return np.frombuffer(raw, dtype).reshape(self._shape("output", i, request)).copy()
