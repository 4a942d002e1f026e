"""Measures the Python layer's cost per call: time of `module(x)` minus the time of the same
primitive executions alone (ctypes calls of dnnl_primitive_execute on the cached arguments), at
sizes where the compute is negligible.

Run with the package installed (or PYTHONPATH=python with the library beside it), from the
repository root:  OXIDNN_NUM_THREADS=1 python python/tools/overhead.py"""
import os
import statistics
import time

import numpy as np

from oxidnn import nn
from oxidnn._lib import lib

CASES = [("LSTM T=1 N=1 H=8", nn.LSTM(8, 8), {}),
         ("LSTM T=1 N=1 H=8, h0/c0 given", nn.LSTM(8, 8), {"hx": True}),
         ("GRU T=1 N=1 H=8", nn.GRU(8, 8), {}),
         ("LSTM T=1 N=1 H=8, lengths", nn.LSTM(8, 8), {"lengths": True}),
         ("LSTM 2 layers T=1 N=1 H=8", nn.LSTM(8, 8, num_layers=2), {})]


def per_call_us(f, clock, calls=2000, rounds=15):
    """Median over rounds of the mean `clock` time per call, in microseconds."""
    f()
    times = []
    for _ in range(rounds):
        t = clock()
        for _ in range(calls):
            f()
        times.append((clock() - t) / calls)
    return statistics.median(times) * 1e6


def main():
    print(f"load average {os.getloadavg()[0]:.2f}")
    for name, m, opts in CASES:
        x = np.random.default_rng(0).standard_normal((1, 1, 8), np.float32)
        hx = None
        if opts.get("hx"):
            hx = (np.zeros((1, 1, 8), np.float32), np.zeros((1, 1, 8), np.float32))
        lengths = np.ones(1, np.int32) if opts.get("lengths") else None
        m(x, hx, lengths)
        (plan,) = m._plans.values()
        runner = plan.runners[-1]
        stream = runner.stream

        def raw():
            for primitive, nargs, args, _ in runner.layers:
                lib.dnnl_primitive_execute(primitive, stream, nargs, args)

        for clock in (time.perf_counter, time.thread_time):
            t_module = per_call_us(lambda: m(x, hx, lengths), clock)
            t_raw = per_call_us(raw, clock)
            print(f"{name} ({clock.__name__}): module(x) {t_module:.1f} us, executions alone "
                  f"{t_raw:.1f} us, overhead {t_module - t_raw:.1f} us")


if __name__ == "__main__":
    main()
