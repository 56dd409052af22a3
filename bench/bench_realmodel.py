"""The real model (SmolLM2-135M, pages/10_Inside_a_real_model.py): load, memory, computations and page runs,
side by side with the one-chart app in the same run. Prints a markdown section; ``--write`` puts it into
bench/RESULTS.md as section 12.

    python bench/bench_realmodel.py [--write]

Each load is measured in a fresh process (a first load from the GGUF file with an empty cache folder,
then a load from that disk cache); the page runs through AppTest in one process after the model is loaded.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PAGE = str(ROOT / "pages" / "10_Inside_a_real_model.py")
SMALL = str(ROOT / "bench" / "small_chart_app.py")

_LOAD = """
import json, resource, sys, time
t0 = time.perf_counter()
from posenc import realmodel
m = realmodel.load(cache=sys.argv[1])
t1 = time.perf_counter()
ids = m.tokenize(realmodel.default_text())[:256]
m.pair_norms(ids)
print(json.dumps({"load_s": t1 - t0, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def fresh_load(cache: str) -> dict:
    out = subprocess.run([sys.executable, "-c", _LOAD, cache], capture_output=True, text=True, cwd=ROOT, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def timed(fn, n: int = 3) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    load_avg = os.getloadavg()
    started = dt.datetime.now(dt.UTC)
    with tempfile.TemporaryDirectory() as tmp:
        first = fresh_load(tmp)
        cached = fresh_load(tmp)

    from streamlit.testing.v1 import AppTest

    from posenc import realmodel
    from posenc.realmodel.model import set_threads

    set_threads(1)
    m = realmodel.load()
    ids = m.tokenize(realmodel.default_text())
    comp = {
        "pair norms, 256 tokens": timed(lambda: m.pair_norms(ids[:256])),
        "attention summaries, 256 tokens": timed(lambda: m.attention(ids[:256])),
        "NLL, 512 tokens": timed(lambda: m.nll(ids[:512], "yarn:factor=2")),
        "NLL, 2,048 tokens": timed(lambda: m.nll(ids[:2048], "yarn:factor=2"), n=1),
    }

    def page_run(path: str, **query) -> tuple[float, AppTest]:
        at = AppTest.from_file(path, default_timeout=600)
        for k, v in query.items():
            at.query_params[k] = str(v)
        t = time.perf_counter()
        at.run()
        assert not at.exception, [e.message for e in at.exception]
        return time.perf_counter() - t, at

    views = {
        "Frequencies": {},
        "Heads": {"rm_view": "Heads"},
        "Change the rope": {"rm_view": "Change the rope"},
        "Long context": {"rm_view": "Long context"},
    }
    before = rss_mb()
    runs = {}
    for name, q in views.items():
        first_run, _at = page_run(PAGE, **q)
        again, _ = page_run(PAGE, **q)  # a second session: the numbers come from the shared caches
        runs[name] = (first_run, again)
    after = rss_mb()
    small = statistics.median(page_run(SMALL)[0] for _ in range(5))
    second = [page_run(PAGE)[0] for _ in range(5)]
    rss_second = rss_mb()

    lines = [
        "## 12. The real model (bench/bench_realmodel.py)",
        "",
        f"{started:%Y-%m-%d %H:%M} UTC, {os.cpu_count()} CPUs, load average at the start "
        f"{load_avg[0]:.1f} / {load_avg[1]:.1f} / {load_avg[2]:.1f} (1 / 5 / 15 min); computations on one thread, as the server runs them.",
        "",
        "| figure | value |",
        "|---|---|",
        f"| first load in a fresh process (GGUF → float32, tokenizer, disk cache written) | {first['load_s']:.1f} s, peak RSS {first['peak_rss_mb']:.0f} MB |",
        f"| load from the disk cache in a fresh process (target ≤ 3 s) | {cached['load_s']:.1f} s, peak RSS {cached['peak_rss_mb']:.0f} MB |",
    ]
    lines += [f"| {k} | {v:.2f} s |" for k, v in comp.items()]
    lines += [
        f"| page run, {name}: a session's first run / another session's (shared caches) | {a_:.2f} s / {b_:.2f} s |"
        for name, (a_, b_) in runs.items()
    ]
    lines += [
        f"| page run at defaults, warm (median of 5) vs the one-chart app (median of 5), same run | "
        f"{statistics.median(second) * 1000:.0f} ms vs {small * 1000:.0f} ms ({statistics.median(second) / small:.2f}×) |",
        f"| server RSS: model loaded + every view once; after 7 more sessions | {after:.0f} MB (before the views {before:.0f} MB); {rss_second:.0f} MB (+{(rss_second - after) / 7:.1f} MB per session) |",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if a.write:
        path = ROOT / "bench" / "RESULTS.md"
        old = path.read_text(encoding="utf-8")
        old = re.sub(r"\n## 12\. The real model.*?(?=\n## |\Z)", "\n", old, flags=re.S).rstrip() + "\n\n"
        path.write_text(old + text, encoding="utf-8")


if __name__ == "__main__":
    main()
