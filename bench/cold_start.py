"""Cold start side by side: ``python bench/cold_start.py [--repeats 5]``

Issue #23 asks for "cold start to the first page drawn ≤ 2.5 s". What a cold start costs beyond
Streamlit's own (its server start, its JavaScript bundle, its websocket) is shown by timing the
explorer's home page and the one-chart app (bench/slider_chart_app.py: a title, a slider and one
Altair chart) the same way, alternately, in one run: from ``streamlit run`` to the page drawn in
Chromium (the title shown, the run over, every chart drawn: tests/e2e_support.ready_time_ms), in a
fresh browser context each time (nothing cached). Prints the medians, their ratio, the date and the
load average at the start and the end.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _p in (ROOT, ROOT / "tests"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from e2e_support import StreamlitServer, launch_chromium, ready_time_ms, require_browser  # noqa: E402

from explorer.manifest import PAGES  # noqa: E402

APPS = {"explorer (home)": ("app.py", PAGES[0].title), "one-chart app": ("bench/slider_chart_app.py", "One chart")}


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def cold_start(browser, script: str, title: str) -> tuple[float, float]:
    """(seconds from `streamlit run` to /_stcore/health ok, seconds to the first page drawn)."""
    server = StreamlitServer(script)
    server.start()
    try:
        healthy = server.wait_healthy(120)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            page = context.new_page()
            page.goto(server.url(script), wait_until="commit")
            ready_time_ms(page, title)
            drawn = time.perf_counter() - server.started_at
        finally:
            context.close()
    finally:
        server.stop()
    return healthy, drawn


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    require_browser()
    from playwright.sync_api import sync_playwright

    print(f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC · {os.cpu_count()} CPUs · load {load()}", flush=True)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in APPS}
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            for _ in range(args.repeats):
                for name, (script, title) in APPS.items():
                    times[name].append(cold_start(browser, script, title))
                    print(
                        f"  {name:<16} healthy {times[name][-1][0]:.2f} s  drawn {times[name][-1][1]:.2f} s", flush=True
                    )
        finally:
            browser.close()
    med = {
        name: (statistics.median(h for h, _ in xs), statistics.median(d for _, d in xs)) for name, xs in times.items()
    }
    ref = med["one-chart app"][1]
    print("\n| app | `streamlit run` → health ok | → first page drawn | ÷ one-chart app |")
    print("|---|---:|---:|---:|")
    for name, (h, d) in med.items():
        print(f"| {name} | {h:.2f} s | {d:.2f} s | {d / ref:.2f}× |")
    print(f"\nmedians of {args.repeats}; load at the end {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
