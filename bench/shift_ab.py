"""posenc's shift test, this checkout against an earlier one, in one run: ``python bench/shift_ab.py BASE_ROOT [--rounds 3]``

Each round times, in a fresh process per checkout (in turns, the order reversed every other round; one BLAS thread, as
the server runs), the calls the invariance page makes at sizes it reaches: `shift_test_sweep` over every t of the
chart's reach, `shift_test_report` at one t, and `shift_test_points` for an N arm of 155 values at one t. Each figure is
the best of 5 calls. Prints each round, the medians and this checkout's time as a share of the base's.

BASE_ROOT: ``git worktree add /tmp/base <commit>`` (or ``git archive <commit> | tar -x -C /tmp/base``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: (N, d, T): the page's default, a small head at its largest reach, a larger N, the largest sizes, a tiny head.
CASES = ((64, 64, 500), (16, 256, 1000), (128, 64, 100), (256, 256, 20), (64, 8, 1000))
CALLS = ("sweep", "report", "n_arm")


def measure(root: Path) -> dict[str, float]:
    """{"N,d,T call": ms} for the checkout at `root`, in a child process (each checkout imports its own posenc)."""
    code = f"""
import json, sys, time
sys.path.insert(0, {str(root)!r})
import numpy as np
import posenc

def best(call):
    times = []
    for _ in range(5):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times) * 1e3

out = {{}}
for n, d, t_max in {CASES!r}:
    q, k = posenc.seeded_normal((2, d), seed=1)
    ts = np.arange(1, t_max + 1)
    out[f"{{n}},{{d}},{{t_max}} sweep"] = best(lambda: posenc.shift_test_sweep(q, k, n_positions=n, offsets=ts, table_len=n + t_max))
    out[f"{{n}},{{d}},{{t_max}} report"] = best(lambda: posenc.shift_test_report(q, k, n_positions=n, offset=16, table_len=n + 16))
    ns = np.arange(1, 156)
    out[f"{{n}},{{d}},{{t_max}} n_arm"] = best(
        lambda: posenc.shift_test_points(q, k, n_positions=ns, offsets=[16] * ns.size, table_len=171)
    )
print(json.dumps(out))
"""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if run.returncode:
        raise SystemExit(f"{root}: the measurement failed\n{run.stderr[-4000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    print(
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} · base {args.base} · this {head.stdout.strip() or '?'}"
        f" · load {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    got: dict[str, list[dict[str, float]]] = {"base": [], "this": []}
    order = [("base", args.base), ("this", ROOT)]
    for k in range(args.rounds):
        for label, root in order if k % 2 == 0 else order[::-1]:
            got[label].append(measure(root.resolve()))
    print(
        f"medians over {args.rounds} rounds, best of 5 calls each (load {' '.join(f'{x:.2f}' for x in os.getloadavg())}):"
    )
    print(f"{'N, d, T':>14s} {'call':>7s} {'base ms':>9s} {'this ms':>9s} {'this ÷ base':>12s}")
    for key in got["this"][0]:
        base = statistics.median(r[key] for r in got["base"])
        this = statistics.median(r[key] for r in got["this"])
        case, call = key.split(" ")
        print(f"{case:>14s} {call:>7s} {base:9.1f} {this:9.1f} {this / base:11.2f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
