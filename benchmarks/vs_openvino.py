#!/usr/bin/env python3
"""oxidnn beside OpenVINO's CPU plugin on converted PyTorch RNN models; writes
benchmarks/VS_OPENVINO.md and its section of BENCHMARKS.md (benchmarks/sections.py).

Run by hand from the repository root, after `cargo build --release`:

    /tmp/ovenv/bin/pip install openvino==2026.4.1 numpy torch onnx
    /tmp/ovenv/bin/python benchmarks/vs_openvino.py [--rounds 3] [--runs 30] [--only rnn|scan]

Each model is one `nn.LSTM` / `nn.GRU` (input size = hidden size H, batch_first, T = 50,
batch 1 and 32, H 256 and 512) through `openvino.convert_model`, saved as IR (f32); the "scan"
rows run an ONNX Scan whose body does not fuse (MatMul/Add/Tanh, batch 8, T 100, H 128; see
tools/ov_cases/scan_model.py) converted into a TensorIterator. Both run that IR on the same
inputs: OpenVINO compiled for "CPU" with INFERENCE_PRECISION_HINT=f32,
PERFORMANCE_HINT=LATENCY and INFERENCE_NUM_THREADS; oxidnn through `oxidnn-run --bench` with
OXIDNN_NUM_THREADS. One thread runs both under `taskset -c 0`. Each round times both (the
order alternating), `--runs` inferences each after warm-up; the table gives the median of
the rounds' medians, and checks that both give the same Y (1e-4 relative).
"""

import argparse
import datetime
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import openvino as ov

import sections

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
RUN = os.path.join(ROOT, "target", "release", "oxidnn-run")
T = 50


def make_model(d, cell, n, h):
    import torch
    torch.manual_seed(0)
    rnn = getattr(torch.nn, cell)(h, h, batch_first=True).eval()

    class Seq(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = rnn

        def forward(self, x):
            return self.rnn(x)[0]

    x = np.random.default_rng(0).uniform(-1, 1, (n, T, h)).astype(np.float32)
    model = ov.convert_model(Seq().eval(), example_input=torch.from_numpy(x),
                             input=[("x", ov.PartialShape([n, T, h]), ov.Type.f32)])
    model.outputs[0].get_tensor().set_names({"y"})
    xml = os.path.join(d, f"{cell}_n{n}_h{h}.xml")
    ov.save_model(model, xml, compress_to_fp16=False)
    np.save(xml + ".x.npy", x)
    return xml, x


def make_scan_model(d):
    sys.path.insert(0, os.path.join(ROOT, "tools", "ov_cases"))
    from scan_model import onnx_scan
    model, inputs = onnx_scan(8, 100, 128)
    xml = os.path.join(d, "scan_n8_t100_h128.xml")
    ov.save_model(model, xml, compress_to_fp16=False)
    for k, v in inputs.items():
        np.save(f"{xml}.{k}.npy", v)
    return xml, list(inputs)


def time_openvino(xml, threads, runs, inputs=("x",)):
    """Median ms of `runs` inferences (in a child under taskset for one thread), and Y."""
    code = f"""
import time, numpy as np, openvino as ov
c = ov.Core().compile_model(ov.Core().read_model({xml!r}), "CPU", {{"INFERENCE_PRECISION_HINT": "f32",
    "PERFORMANCE_HINT": "LATENCY", "INFERENCE_NUM_THREADS": {threads}}})
r = c.create_infer_request(); x = [np.load({xml!r} + f".{{k}}.npy") for k in {list(inputs)!r}]
for _ in range(5): r.infer(x)
ms = []
for _ in range({runs}):
    t = time.perf_counter(); r.infer(x); ms.append((time.perf_counter() - t) * 1e3)
np.save({xml + '.ov.npy'!r}, r.get_tensor(c.output("y")).data)
print(sorted(ms)[len(ms) // 2])
"""
    cmd = [sys.executable, "-c", code]
    if threads == 1:
        cmd = ["taskset", "-c", "0"] + cmd
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1]), np.load(xml + ".ov.npy")


def time_oxidnn(xml, threads, runs, inputs=("x",)):
    out_dir = xml + ".out"
    cmd = [RUN, xml, "--output-dir", out_dir, "--bench", str(runs)]
    for k in inputs:
        cmd += ["--input", f"{k}={xml}.{k}.npy"]
    if threads == 1:
        cmd = ["taskset", "-c", "0"] + cmd
    env = dict(os.environ, OXIDNN_NUM_THREADS=str(threads))
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    ms = float(re.search(r"median ([0-9.]+) ms", out).group(1))
    return ms, np.load(os.path.join(out_dir, "y.npy"))


def loadavg():
    with open("/proc/loadavg") as fh:
        return float(fh.read().split()[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--only", choices=["rnn", "scan"], help="run only the RNN or the scan rows (printed, not written)")
    args = ap.parse_args()
    if not os.path.exists(RUN):
        sys.exit(f"{RUN} is missing: cargo build --release first")
    rows = []
    loads = []

    def row(name, n, h, threads, xml, inputs):
        ov_ms, ox_ms = [], []
        for r in range(args.rounds):
            loads.append(loadavg())
            for which in (["ov", "ox"] if r % 2 == 0 else ["ox", "ov"]):
                if which == "ov":
                    ms, y_ov = time_openvino(xml, threads, args.runs, inputs)
                    ov_ms.append(ms)
                else:
                    ms, y_ox = time_oxidnn(xml, threads, args.runs, inputs)
                    ox_ms.append(ms)
        same = np.allclose(y_ox, y_ov, rtol=1e-4, atol=1e-5)
        o, x = float(np.median(ov_ms)), float(np.median(ox_ms))
        rows.append(f"| {name} | {n} | {h} | {threads} | {x:.3f} | {o:.3f} | **{x / o:.2f}** | "
                    f"{'✓' if same else '✗'} |")
        print(rows[-1], flush=True)

    with tempfile.TemporaryDirectory() as d:
        for cell in ["LSTM", "GRU"] if args.only != "scan" else []:
            for h in [256, 512]:
                for n in [1, 32]:
                    xml, _ = make_model(d, cell, n, h)
                    for threads in [1, 2]:
                        row(cell, n, h, threads, xml, ["x"])
        if args.only != "rnn":
            xml, inputs = make_scan_model(d)
            for threads in [1, 2]:
                row("scan (T 100)", 8, 128, threads, xml, inputs)
    if args.only:
        return
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    lines = ["# oxidnn beside OpenVINO's CPU plugin: converted PyTorch RNN models", "",
             "*Generated by `benchmarks/vs_openvino.py` (do not edit by hand; re-run the script).*", "",
             f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; oxidnn commit {commit}; "
             f"OpenVINO {ov.__version__.split('-')[0]} (PyPI)",
             f"- Models: `nn.LSTM` / `nn.GRU` (input size = H, batch_first, T = {T}) through "
             "`openvino.convert_model`, f32 IR; oxidnn runs each as one RNN primitive (LSTMSequence / "
             "GRUSequence fused), plus the converted graph's Transposes and shape ops; scan: an ONNX Scan "
             "(MatMul/Add/Tanh body, T = 100) converted into a TensorIterator whose body runs op by op",
             f"- Timing: {args.rounds} alternating rounds of {args.runs} inferences after warm-up; median of the "
             "rounds' medians. oxidnn: `oxidnn-run --bench` (`Model::infer`: inputs borrowed, outputs allocated per inference); "
             "OpenVINO: `InferRequest.infer` (PERFORMANCE_HINT=LATENCY, INFERENCE_PRECISION_HINT=f32, "
             "INFERENCE_NUM_THREADS). 1 thread: both under `taskset -c 0`.",
             f"- The machine is shared (2 CPUs): load average {min(loads):.1f}–{max(loads):.1f} during the runs"
             + (": above 2, these timings measure the contention more than the libraries; re-run on a "
                "quiet machine." if max(loads) > 2 else "."),
             "", "| cell | batch | H | threads | oxidnn ms | OpenVINO ms | ratio | same Y |",
             "|---|---:|---:|---:|---:|---:|---:|:---:|"] + rows
    with open(os.path.join(ROOT, "benchmarks", "VS_OPENVINO.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    sections.write_peer_section("vs-openvino", "Beside OpenVINO: converted models", "vs_openvino.py",
                                "VS_OPENVINO.md", lines[4:], commit)


if __name__ == "__main__":
    main()
