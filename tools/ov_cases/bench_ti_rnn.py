"""Times a TensorIterator over one RNN cell (T50 N64 input 512 hidden 512, the TensorIterator
specification's example 2 shape) on OpenVINO's CPU plugin and writes the IR and inputs for
oxidnn-run. CELL is lstm (default: the LSTM TensorIterator of DESIGN §5 / issue 6), gru,
lbr_gru or rnn (tanh). Run by hand, with PyPI `openvino` (and numpy):

    python tools/ov_cases/bench_ti_rnn.py OUT_DIR [THREADS] [CELL]
    oxidnn-run OUT_DIR/model.xml --input X=OUT_DIR/X.npy --input H=OUT_DIR/H.npy \
        [--input C=OUT_DIR/C.npy] --output-dir OUT_DIR/out --bench 20 [--no-fuse]

Weights are scaled by 0.05: with uniform [-1, 1) weights and 512 hidden units the recurrence is
chaotic and any two f32 implementations (numpy included) drift apart by O(1) within 50 steps.
OpenVINO's outputs are saved as ov_<name>.npy for comparison.
"""
import os
import sys
import time

import numpy as np
import openvino as ov

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_cases as mc  # noqa: E402


def main():
    out = sys.argv[1]
    threads = sys.argv[2] if len(sys.argv) > 2 else str(os.cpu_count())
    os.makedirs(out, exist_ok=True)
    cell = sys.argv[3] if len(sys.argv) > 3 else "lstm"
    if cell == "lstm":
        plain = mc.lstm_weights
        mc.lstm_weights = lambda h, i: tuple((0.05 * a).astype(np.float32) for a in plain(h, i))
        c, _ = mc.ti_lstm(50, 64, 512, 512, note="bench")
    else:
        c = mc.ti_cell(cell.removeprefix("lbr_"), 50, 64, 512, 512, "bench", scale=0.05,
                       lbr=cell == "lbr_gru")
    ov.save_model(c.model, os.path.join(out, "model.xml"), compress_to_fp16=False)
    for k, v in c.inputs.items():
        np.save(os.path.join(out, f"{k}.npy"), v)
    compiled = ov.Core().compile_model(
        c.model, "CPU", {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": threads})
    req = compiled.create_infer_request()
    inputs = list(c.inputs.values())
    for _ in range(3):
        req.infer(inputs)
    times = []
    for _ in range(20):
        t0 = time.perf_counter()
        req.infer(inputs)
        times.append((time.perf_counter() - t0) * 1e3)
    res = req.infer(inputs)
    for o in compiled.outputs:
        np.save(os.path.join(out, f"ov_{sorted(o.get_names())[0]}.npy"), np.array(res[o]))
    times.sort()
    print(f"openvino {cell} threads={threads}: median {times[10]:.3f} ms, min {times[0]:.3f} ms")


if __name__ == "__main__":
    main()
