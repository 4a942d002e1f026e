"""oxidnn from Python: PyTorch-style recurrent layers (`oxidnn.nn`) and OpenVINO IR models
(`oxidnn.Model`), over liboxidnn.so's C ABI with ctypes."""
from . import nn
from ._lib import Error
from .model import Model, TensorInfo

__all__ = ["nn", "Model", "TensorInfo", "Error"]
