"""Sinusoidal table speed against numpy's own sin + cos over the same number of elements.

Run: python bench/bench_posenc.py   (prints a ratio measured side by side, best of N runs each)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import posenc


def best_of(fn, repeats=7):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    seq, d = 8192, 2048
    pos = np.arange(seq)
    rng = np.random.default_rng(0)
    half = rng.uniform(0, 100, size=(seq, d // 2)).astype(np.float32)

    def baseline():  # d/2 sines + d/2 cosines = seq·d evaluations, float32
        np.sin(half)
        np.cos(half)

    def ours():
        posenc.sinusoidal_encoding(pos, d, dtype=np.float32)

    # interleave the two measurements so machine noise hits both alike
    t_base, t_ours = [], []
    for _ in range(3):
        t_base.append(best_of(baseline, 3))
        t_ours.append(best_of(ours, 3))
    b, o = min(t_base), min(t_ours)
    print(f"sinusoidal_encoding {seq}x{d} float32: {o * 1e3:.1f} ms")
    print(f"numpy sin+cos over {seq * d} float32 elements: {b * 1e3:.1f} ms")
    print(f"ratio ours / numpy = {o / b:.2f}  (target <= 1.5)")


if __name__ == "__main__":
    main()
