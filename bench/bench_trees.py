"""The same benchmark on several commits, side by side: ``python bench/bench_trees.py REV REV …``

For each commit, the tree is exported (``git archive``) into a temporary folder; then, for every
page present in all of them (matched by URL name, the part of ``pages/N_Name.py`` after the
number; the home page is ``app.py``), a child process per tree times the page's script run with
AppTest at its defaults: one warm-up run, then ``--runs`` runs each after clearing
``st.cache_data`` (as bench/run_all.py section 1 does), and prints the median. The trees take
turns (A B C, A B C, … ``--rounds`` times), so load on the machine hits them alike; the figure
per tree is the median over rounds, and the table gives each tree's ratio to the first.

Used for issue #9's "no figure may get worse": the commit before the restructure against the
one after it and against today's main. Prints a Markdown table (date, load, machine) to paste
into bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, logging, statistics, sys, time
from pathlib import Path
root, scripts, runs = Path(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3])
sys.path.insert(0, str(root))
import streamlit as st
from streamlit import logger as st_logger
from streamlit.testing.v1 import AppTest
out = {}
for name, script in scripts.items():
    st_logger.set_log_level(logging.ERROR)
    at = AppTest.from_file(str(root / script), default_timeout=300)
    at.run()
    err = at.exception[0].message.splitlines()[0][:80] if at.exception else None
    times = []
    for _ in range(runs):
        st_logger.set_log_level(logging.ERROR)
        st.cache_data.clear()
        t0 = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t0)
    out[name] = {"median": statistics.median(times), "error": err}
print("RESULT " + json.dumps(out))
"""


def export(rev: str, into: Path) -> Path:
    dest = into / re.sub(r"[^\w.-]", "_", rev)
    dest.mkdir()
    blob = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
    tar_path = into / "t.tar"
    tar_path.write_bytes(blob)
    with tarfile.open(tar_path) as tar:
        tar.extractall(dest, filter="data")
    tar_path.unlink()
    return dest


def pages_of(tree: Path) -> dict[str, str]:
    found = {"home": "app.py"}
    for path in sorted((tree / "pages").glob("*.py")):
        name = path.stem.split("_", 1)[1] if "_" in path.stem else path.stem
        found[name] = f"pages/{path.name}"
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revs", nargs="+", help="commits (the first is the reference)")
    parser.add_argument("--rounds", type=int, default=3, help="turns per tree (median over them)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per page per turn (median)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="bench-trees-") as tmp:
        trees = {rev: export(rev, Path(tmp)) for rev in args.revs}
        shared = None
        for tree in trees.values():
            names = set(pages_of(tree))
            shared = names if shared is None else shared & names
        order = [n for n in pages_of(trees[args.revs[0]]) if n in (shared or set())]
        figures: dict[str, dict[str, list[float]]] = {rev: {n: [] for n in order} for rev in args.revs}
        errors: dict[str, dict[str, str]] = {rev: {} for rev in args.revs}
        load_before = os.getloadavg()
        for turn in range(args.rounds):
            for rev, tree in trees.items():
                scripts = {n: pages_of(tree)[n] for n in order}
                env = {**os.environ, "PYTHONPATH": str(tree)}
                done = subprocess.run(
                    [sys.executable, "-c", CHILD, str(tree), json.dumps(scripts), str(args.runs)],
                    cwd=tree,
                    env=env,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                line = next((x for x in done.stdout.splitlines() if x.startswith("RESULT ")), None)
                if line is None:
                    print(done.stderr[-2000:], file=sys.stderr)
                    raise SystemExit(f"{rev}: the child process printed no result")
                for name, fig in json.loads(line[7:]).items():
                    figures[rev][name].append(fig["median"])
                    if fig["error"]:
                        errors[rev][name] = fig["error"]
                print(f"  turn {turn + 1}/{args.rounds} {rev}: done", flush=True)
        load_after = os.getloadavg()

    ref = args.revs[0]
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(
        f"\nPage script run at defaults (AppTest, cache_data cleared; median of {args.runs} runs, then "
        f"median of {args.rounds} turns), {stamp}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs, load average {load_before[0]:.1f} before / {load_after[0]:.1f} after\n"
    )
    head = (
        "| page | "
        + " | ".join(f"`{r}`" for r in args.revs)
        + " | "
        + " | ".join(f"`{r}` / `{ref}`" for r in args.revs[1:])
    )
    print(head + " |")
    print("|---" * (1 + 2 * len(args.revs) - 1) + "|")
    for name in order:
        med = {rev: statistics.median(figures[rev][name]) for rev in args.revs}
        cells = [f"{med[rev] * 1e3:.0f} ms" + (" (error)" if name in errors[rev] else "") for rev in args.revs]
        ratios = [f"{med[rev] / med[ref]:.2f}×" for rev in args.revs[1:]]
        print(f"| {name} | " + " | ".join(cells + ratios) + " |")
    for rev in args.revs:
        for name, err in errors[rev].items():
            print(f"  {rev} {name}: exception: {err}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
