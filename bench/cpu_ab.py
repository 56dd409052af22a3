"""One page's server CPU a run, this checkout against an earlier one, in turns, with the one-chart app:
``python bench/cpu_ab.py BASE_ROOT [--page invariance] [--rounds 3] [--repeats 8]``

Each round starts a fresh server from BASE_ROOT, one from this checkout and one of the one-chart app (with its reference
environment, bench/load.py's REFERENCE_ENV), in that order and the reverse in turn, and measures `load.cpu_per_run` on
each (a new session's first run, the same on an idle server, a rerun, a drag of the page's bench slider: `repeats`
values, each new to the server). Prints each round and the medians, with the drag's ratio to the one-chart app's
measured in the same round.

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
FIELDS = ("first", "first_idle", "rerun", "drag")


def measure(root: Path, page: str, repeats: int) -> dict[str, float]:
    """`load.cpu_per_run` on a fresh server of the checkout at `root` (a child process: each checkout imports its own
    code), in ms; page "ref" is the one-chart app."""
    code = f"""
import asyncio, json, os, sys
os.chdir({str(root)!r})
sys.path[:0] = [{str(root)!r}, {str(root / "bench")!r}, {str(root / "tests")!r}]
import load
ref = {page!r} == "ref"
target = load.REFERENCE if ref else next(t for t in load.explorer_targets() if t.label == {page!r})
server = load.start_server(load.REFERENCE_APP, env=load.REFERENCE_ENV) if ref else load.start_server()
try:
    load.warm_up(server.base_url, [target])
    row = asyncio.run(load.cpu_per_run(server.base_url, target, server.pid, repeats={repeats}))
finally:
    server.stop()
errors = len(row["errors"]) + len(row["exceptions"])
print(json.dumps({{**{{k: row[k] * 1e3 for k in {FIELDS!r}}}, "errors": errors, "has_slider": row["has_slider"]}}))
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if run.returncode:
        raise SystemExit(f"{root} {page}: the measurement failed\n{run.stderr[-4000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("--page", default="invariance")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=8)
    args = parser.parse_args()
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    base = subprocess.run(["git", "-C", str(args.base), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    print(
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} · page {args.page} · base {base.stdout.strip() or '?'}"
        f" · this {head.stdout.strip() or '?'} · load {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    rows: dict[str, list[dict[str, float]]] = {"base": [], "this": [], "one-chart app": []}
    order = [("base", args.base, args.page), ("this", ROOT, args.page), ("one-chart app", ROOT, "ref")]
    for k in range(args.rounds):
        for label, root, page in order if k % 2 == 0 else order[::-1]:  # turns: a load that drifts favours neither
            row = measure(root.resolve(), page, args.repeats)
            rows[label].append(row)
            print(
                f"round {k + 1} {label:14s} " + "  ".join(f"{f} {row[f]:5.0f} ms" for f in FIELDS),
                f"errors {row['errors']:.0f}",
                "" if row["has_slider"] else "(no bench slider: its drag is a rerun)",
            )
    ref_drag = statistics.median(r["drag"] for r in rows["one-chart app"])
    print(f"medians over {args.rounds} rounds (load {' '.join(f'{x:.2f}' for x in os.getloadavg())}):")
    for label, got in rows.items():
        med = {f: statistics.median(r[f] for r in got) for f in FIELDS}
        print(
            f"  {label:14s} "
            + "  ".join(f"{f} {med[f]:5.0f} ms" for f in FIELDS)
            + f"  drag ÷ app {med['drag'] / ref_drag:.2f}×"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
