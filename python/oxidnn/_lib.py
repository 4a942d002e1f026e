"""ctypes binding of liboxidnn.so: the library, the header's constants, checked calls, handles."""
import ctypes
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np

_HERE = Path(__file__).resolve().parent
lib = ctypes.CDLL(str(_HERE / "liboxidnn.so"))


def _parse_defines(text):
    """Every `#define NAME <integer>[u]`, enumerator `NAME = <integer>,` and `#define NAME OTHER`
    of the generated header, and `((void *)(size_t)<integer>)` as the pointer value it casts
    to."""
    ints = re.finditer(r"^#define\s+(\w+)\s+(-?\d+)u?\s*$", text, re.M)
    enumerators = re.finditer(r"^\s+(\w+) = (-?\d+),$", text, re.M)
    ptrs = re.finditer(r"^#define\s+(\w+)\s+\(\(void \*\)\(size_t\)(-?\d+)\)\s*$", text, re.M)
    defines = {m.group(1): int(m.group(2)) for m in ints}
    defines.update((m.group(1), int(m.group(2))) for m in enumerators)
    aliases = re.finditer(r"^#define\s+(\w+)\s+([A-Za-z_]\w*)\s*$", text, re.M)
    defines.update((m.group(1), defines[m.group(2)]) for m in aliases if m.group(2) in defines)
    defines.update((m.group(1), int(m.group(2)) % 2 ** (8 * ctypes.sizeof(ctypes.c_void_p)))
                   for m in ptrs)
    return defines


HEADER = (_HERE / "oxidnn.h").read_text()
C = SimpleNamespace(**_parse_defines(HEADER))


def prototype(name):
    """The parameters of function `name` in the header: [(C type, parameter name)]."""
    m = re.search(r"\b" + name + r"\(([^)]*)\);", HEADER)
    if m is None:
        raise AttributeError(f"{name} is not in oxidnn.h")
    params = []
    for p in m.group(1).split(","):
        ctype, _, pname = " ".join(p.split()).rpartition(" ")
        params.append((ctype + "*" * pname.count("*"), pname.strip("*")))
    return params

P = ctypes.c_void_p
_int, _i64, _size = ctypes.c_int, ctypes.c_int64, ctypes.c_size_t
_I64P = ctypes.POINTER(_i64)
Dims = _i64 * 12  # dnnl_dims_t: DNNL_MAX_NDIMS entries


class ExecArg(ctypes.Structure):
    """dnnl_exec_arg_t."""
    _fields_ = [("arg", _int), ("memory", P)]


_SIGNATURES = {
    "dnnl_engine_create": [ctypes.POINTER(P), _int, _size],
    "dnnl_engine_destroy": [P],
    "dnnl_stream_create": [ctypes.POINTER(P), P, ctypes.c_uint32],
    "dnnl_stream_destroy": [P],
    "dnnl_memory_desc_create_with_tag": [ctypes.POINTER(P), _int, Dims, _int, _int],
    "dnnl_memory_desc_create_with_strides": [ctypes.POINTER(P), _int, Dims, _int, Dims],
    "dnnl_memory_desc_query": [P, _int, P],
    "dnnl_memory_desc_destroy": [P],
    "dnnl_memory_desc_clone": [ctypes.POINTER(P), P],
    "dnnl_memory_create": [ctypes.POINTER(P), P, P, P],
    "dnnl_memory_destroy": [P],
    "dnnl_memory_set_data_handle": [P, P],
    "dnnl_memory_get_data_handle": [P, ctypes.POINTER(P)],
    "dnnl_stream_wait": [P],
    "dnnl_primitive_attr_create": [ctypes.POINTER(P)],
    "dnnl_primitive_attr_destroy": [P],
    "oxidnn_primitive_attr_set_rnn_seq_lengths": [P, _int],
    "oxidnn_primitive_attr_get_rnn_seq_lengths": [P, ctypes.POINTER(_int)],
    "dnnl_primitive_desc_destroy": [P],
    "dnnl_primitive_create": [ctypes.POINTER(P), P],
    "dnnl_primitive_execute": [P, P, _int, ctypes.POINTER(ExecArg)],
    "dnnl_primitive_destroy": [P],
    "dnnl_reorder_primitive_desc_create": [ctypes.POINTER(P), P, P, P, P, P],
    "oxidnn_model_load": [ctypes.POINTER(P), ctypes.c_char_p, ctypes.c_char_p],
    "oxidnn_model_destroy": [P],
    "oxidnn_model_get_num_inputs": [P, ctypes.POINTER(_int)],
    "oxidnn_model_get_num_outputs": [P, ctypes.POINTER(_int)],
    "oxidnn_model_get_input_name": [P, _int, ctypes.POINTER(ctypes.c_char_p)],
    "oxidnn_model_get_output_name": [P, _int, ctypes.POINTER(ctypes.c_char_p)],
    "oxidnn_model_get_input_type": [P, _int, ctypes.POINTER(_int)],
    "oxidnn_model_get_output_type": [P, _int, ctypes.POINTER(_int)],
    "oxidnn_model_get_input_shape": [P, _int, ctypes.POINTER(_int), ctypes.POINTER(_I64P)],
    "oxidnn_model_get_output_shape": [P, _int, ctypes.POINTER(_int), ctypes.POINTER(_I64P)],
    "oxidnn_request_create": [ctypes.POINTER(P), P],
    "oxidnn_request_destroy": [P],
    "oxidnn_request_set_input_shape": [P, _int, _int, ctypes.POINTER(_i64)],
    "oxidnn_request_execute": [P, _int, ctypes.POINTER(P), ctypes.POINTER(_size), _int,
                               ctypes.POINTER(P), ctypes.POINTER(_size)],
    "oxidnn_request_get_output_shape": [P, _int, ctypes.POINTER(_int), ctypes.POINTER(_I64P)],
    "oxidnn_request_get_output_data": [P, _int, ctypes.POINTER(P), ctypes.POINTER(_size)],
}
for _name, _args in _SIGNATURES.items():
    getattr(lib, _name).argtypes = _args
    getattr(lib, _name).restype = _int
lib.dnnl_primitive_desc_query_md.argtypes = [P, _int, _int]
lib.dnnl_primitive_desc_query_md.restype = P
lib.dnnl_memory_desc_equal.argtypes = [P, P]
lib.dnnl_memory_desc_equal.restype = _int
lib.dnnl_memory_desc_get_size.argtypes = [P]
lib.dnnl_memory_desc_get_size.restype = _size
lib.dnnl_status2str.argtypes = [_int]
lib.dnnl_status2str.restype = ctypes.c_char_p
lib.oxidnn_get_last_error_message.argtypes = []
lib.oxidnn_get_last_error_message.restype = ctypes.c_char_p


class Error(RuntimeError):
    """A failed call: `status` (dnnl_status_t), `status_name`, `message` (the last-error text)."""

    def __init__(self, function, status):
        self.message = (lib.oxidnn_get_last_error_message() or b"").decode(errors="replace")
        self.status = status
        self.status_name = lib.dnnl_status2str(status).decode()
        super().__init__(f"{function} failed: {self.status_name} ({status}): {self.message}")


def call(name, *args):
    """Calls `name` from the library; raises Error unless it returns dnnl_success."""
    status = getattr(lib, name)(*args)
    if status != C.dnnl_success:
        raise Error(name, status)


def create(name, *args):
    """Calls a `name(&out, args...)` constructor; returns `out`."""
    out = P()
    call(name, ctypes.byref(out), *args)
    return out


class Handle:
    """Owns one library object; destroys it with `destroy` when collected."""

    def __init__(self, value, destroy):
        self.value, self._destroy = value, getattr(lib, destroy)

    def __del__(self):
        if self.value:
            self._destroy(self.value)
            self.value = None



def f32(x):
    """A C-contiguous float32 numpy array from a numpy array, list or torch tensor."""
    if hasattr(x, "detach"):
        x = x.detach().cpu().numpy()
    return np.ascontiguousarray(x, dtype=np.float32)
