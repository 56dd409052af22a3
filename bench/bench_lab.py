"""The extrapolation lab's speed and memory: steps/s of the default model, wall time of the live
default set (5 encodings, one seed, markov and kback, 300 steps each), the extension panel's
evaluation time, and the RSS high-water mark of this process (torch loaded, one thread, as the
server's training worker runs).

    python bench/bench_lab.py [--steps 300] [--quick]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from posenc import lab


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--quick", action="store_true", help="one task, rope and alibi only")
    a = p.parse_args()
    lab.set_threads(1)
    t = time.perf_counter()
    r = lab.train(lab.TrainConfig(task="markov", encoding="rope", steps=50))
    print(f"default model (d=64, 2 layers, 4 heads, L=64, batch 32): {50 / (time.perf_counter() - t):.1f} steps/s")
    tasks = ("markov",) if a.quick else ("markov", "kback")
    encs = ["rope", "alibi"] if a.quick else list(lab.ENCODINGS)
    t = time.perf_counter()
    for task in tasks:
        lab.run_experiment(task, encs, steps=a.steps, tokens=4096)
    print(
        f"live set ({len(encs)} encodings × {len(tasks)} task(s), {a.steps} steps, evaluated): {time.perf_counter() - t:.1f} s"
    )
    t = time.perf_counter()
    lab.evaluate_method(r.model, "rope+yarn:beta_fast=2", [64, 128, 256, 512], tokens=2048)
    print(f"extension panel (one method, 4 lengths, 2,048 tokens each): {time.perf_counter() - t:.2f} s")
    print(f"RSS high-water mark: {rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
