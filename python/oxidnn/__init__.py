"""oxidnn from Python: PyTorch-style recurrent layers (`oxidnn.nn`), OpenVINO IR models
(`oxidnn.Model`) and oneDNN-style low-level access (`oxidnn.dnnl`), over liboxidnn.so's C ABI
with ctypes."""
from . import dnnl, nn
from ._lib import Error
from .model import Model, TensorInfo

__all__ = ["dnnl", "nn", "Model", "TensorInfo", "Error"]
