"""What the speed internals of explorer/compat.py buy: ``python bench/bench_compat.py``

Runs every page's script (AppTest, `st.cache_data` cleared before each run, so the numbers are a
real computation) in worker processes side by side: one as the app runs (Altair's shared class
table and no creation-time validation, Streamlit's chart conversion without re-validation,
gc.freeze), one per internal with only that internal replaced by its public alternative
(``EXPLORER_PUBLIC_ONLY=<name>``), and one with all three replaced (``EXPLORER_PUBLIC_ONLY=`` their names:
Altair as shipped and its validating ``to_dict()``, no gc.freeze). The fourth internal, the
browser's preload of the chart code (``chunk_preload``), saves no server time: bench/cold_start.py
measures it. The workers take turns page by
page (A B C D E, A B C D E, …) so machine noise hits them alike. Prints the median per page and
each configuration's ratio to the app as it runs, with the date and the load average; writes
nothing.

``--runs N`` (default 5) measured runs per page and worker, after one warm-up.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORKER = r"""
import json, sys, time
sys.path.insert(0, {root!r})
import streamlit as st
from streamlit.testing.v1 import AppTest
from explorer.manifest import PAGES
from explorer import render

for line in sys.stdin:
    script = line.strip()
    if not script:
        break
    at = AppTest.from_file({root!r} + "/" + script, default_timeout=300)
    st.cache_data.clear()
    render._shared_spec.clear()  # the charts are built and converted every run (no shared specs)
    start = time.perf_counter()
    at.run()
    elapsed = time.perf_counter() - start
    print(json.dumps({{"script": script, "s": elapsed, "error": bool(at.exception)}}), flush=True)
"""


def start_worker(public: str) -> subprocess.Popen:
    env = dict(os.environ)
    env["EXPLORER_PUBLIC_ONLY"] = public
    return subprocess.Popen(
        [sys.executable, "-c", WORKER.format(root=str(ROOT))],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def measure(worker: subprocess.Popen, script: str) -> float:
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdin.write(script + "\n")
    worker.stdin.flush()
    result = json.loads(worker.stdout.readline())
    if result["error"]:
        raise RuntimeError(f"{script} raised an exception in a worker")
    return float(result["s"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from explorer.compat import SERVER_INTERNALS
    from explorer.manifest import PAGES

    load = os.getloadavg()
    every = ",".join(SERVER_INTERNALS)
    configs = {"internals": "", **{f"public {name}": name for name in SERVER_INTERNALS}, "public, all three": every}
    workers = {label: start_worker(env) for label, env in configs.items()}
    times: dict[str, dict[str, list[float]]] = {name: {} for name in workers}
    try:
        for page in PAGES:
            for worker in workers.values():  # warm-up (imports, first torch load)
                measure(worker, page.script)
            for _ in range(args.runs):
                for name, worker in workers.items():
                    times[name].setdefault(page.script, []).append(measure(worker, page.script))
    finally:
        for worker in workers.values():
            if worker.stdin:
                worker.stdin.close()
            worker.wait(timeout=60)

    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(
        f"bench/bench_compat.py · {stamp} · {os.cpu_count()} CPUs · Python {platform.python_version()} · "
        f"load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} · median of {args.runs} runs\n"
    )
    others = [label for label in workers if label != "internals"]
    print("| page | internals | " + " | ".join(f"{label} / internals" for label in others) + " |")
    print("|---|---:|" + "---:|" * len(others))
    ratios: dict[str, list[float]] = {label: [] for label in others}
    for page in PAGES:
        a = statistics.median(times["internals"][page.script])
        cells = []
        for label in others:
            r = statistics.median(times[label][page.script]) / a
            ratios[label].append(r)
            cells.append(f"{r:.2f}×")
        print(f"| {page.title} | {a * 1000:.0f} ms | " + " | ".join(cells) + " |")
    print("| geometric mean | | " + " | ".join(f"{statistics.geometric_mean(ratios[x]):.2f}×" for x in others) + " |")


if __name__ == "__main__":
    main()
