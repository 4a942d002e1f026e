"""Times oxidnn.nn beside torch.nn (CPU, inference, same weights): median ms per call.

Run with torch and the package installed, from the repository root:
  OXIDNN_NUM_THREADS=1 python python/tools/bench_vs_torch.py
OXIDNN_NUM_THREADS (default: every CPU) sets both libraries' thread counts."""
import os
import statistics
import time

import numpy as np
import torch

import oxidnn

# (cell, seq, batch, input = hidden, layers, bidirectional)
SHAPES = [("LSTM", 50, 1, 256, 1, False), ("LSTM", 50, 32, 512, 1, False),
          ("GRU", 50, 32, 512, 1, False), ("LSTM", 25, 16, 256, 2, True)]


def median_ms(f, runs=15):
    f()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def main():
    torch.set_num_threads(int(os.environ.get("OXIDNN_NUM_THREADS", os.cpu_count())))
    for cell, T, N, H, L, bi in SHAPES:
        ref = getattr(torch.nn, cell)(H, H, num_layers=L, bidirectional=bi).eval()
        ours = getattr(oxidnn.nn, cell)(H, H, num_layers=L, bidirectional=bi)
        ours.load_state_dict(ref.state_dict())
        x = np.random.default_rng(0).standard_normal((T, N, H), np.float32)
        with torch.no_grad():
            diff = np.abs(ours(x)[0] - ref(torch.from_numpy(x))[0].numpy()).max()
            t_torch = median_ms(lambda: ref(torch.from_numpy(x)))
        t_ours = median_ms(lambda: ours(x))
        print(f"{cell} T={T} N={N} H={H} L={L}{' bi' if bi else ''}: oxidnn {t_ours:.2f} ms, "
              f"torch {t_torch:.2f} ms ({t_ours / t_torch:.2f}x), max diff {diff:.1e}")


if __name__ == "__main__":
    main()
