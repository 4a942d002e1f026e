"""An ONNX Scan whose body does not fuse onto an RNN primitive (h' = tanh(x_t·W + h·R + b), as
MatMul / Add / Tanh), converted by OpenVINO into a TensorIterator: used by `make_cases.py`
(small cases) and `benchmarks/vs_openvino.py` (batch 8, T 100, H 128). Weights scaled like
PyTorch's default init (1/sqrt(H))."""
import os
import tempfile

import numpy as np
import onnx
import openvino as ov
from onnx import TensorProto, helper, numpy_helper


def onnx_scan(n, t, h, seed=0, reverse=False, axis=0):
    """(OpenVINO model, inputs {"h0": [n, h], "x": [t, n, h] or [n, t, h] for axis 1}); outputs
    "h_last" and "y" (the hidden sequence, along `axis`, reversed with `reverse`)."""
    rng = np.random.default_rng(seed)
    s = 1 / np.sqrt(h)
    w, r, b = (rng.uniform(-s, s, shape).astype(np.float32) for shape in [(h, h), (h, h), (h,)])
    f = TensorProto.FLOAT
    body = helper.make_graph(
        [helper.make_node("MatMul", ["x_t", "W"], ["xw"]),
         helper.make_node("MatMul", ["h", "R"], ["hr"]),
         helper.make_node("Add", ["xw", "hr"], ["s"]),
         helper.make_node("Add", ["s", "B"], ["sb"]),
         helper.make_node("Tanh", ["sb"], ["h_next"]),
         helper.make_node("Identity", ["h_next"], ["y_t"])],
        "body",
        [helper.make_tensor_value_info("h", f, [n, h]), helper.make_tensor_value_info("x_t", f, [n, h])],
        [helper.make_tensor_value_info("h_next", f, [n, h]), helper.make_tensor_value_info("y_t", f, [n, h])],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(r, "R"), numpy_helper.from_array(b, "B")])
    seq = [t, n, h] if axis == 0 else [n, t, h]
    scan = helper.make_node("Scan", ["h0", "x"], ["h_last", "y"], body=body, num_scan_inputs=1,
                            scan_input_axes=[axis], scan_output_axes=[axis],
                            scan_input_directions=[int(reverse)], scan_output_directions=[int(reverse)])
    graph = helper.make_graph([scan], "scan",
                              [helper.make_tensor_value_info("h0", f, [n, h]),
                               helper.make_tensor_value_info("x", f, seq)],
                              [helper.make_tensor_value_info("h_last", f, [n, h]),
                               helper.make_tensor_value_info("y", f, seq)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)])
    onnx.checker.check_model(model)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "scan.onnx")
        onnx.save(model, path)
        converted = ov.convert_model(path)
    inputs = {"h0": rng.uniform(-1, 1, (n, h)).astype(np.float32),
              "x": rng.uniform(-1, 1, seq).astype(np.float32)}
    return converted, inputs
