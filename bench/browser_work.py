"""The browser's own work per slider press, every page against the one-chart app: ``python bench/browser_work.py``

bench/slider_latency.py times a press from the keydown until the chart has changed; this one asks
how much of the browser's main thread a press costs. For each page (the same sliders and tabs as
slider_latency, one server for the explorer and one for bench/slider_chart_app.py), a Chromium
trace records the renderer's main thread while the slider is pressed ``--presses`` times, each
press followed by a plain wait of ``WINDOW_MS`` + 400 ms with nothing polling the page. A press's
work is the time covered by the main thread's tasks (trace events "RunTask", overlaps merged) in
the ``WINDOW_MS`` after its keydown: Streamlit's front end applying the rerun (React), Vega
updating and drawing the charts, style, layout and paint. As a control, the same is summed over
the 250 ms that end 50 ms before each keydown, when the page is idle (it should be about 0).

This is work, not waiting: the one-chart app's press is mostly the server (its run ends with a full
`gc.collect`), so its browser work is small beside its latency. Part of a page's work can come after
its chart has changed (slider_latency's probe stops there), so the figure here is not a lower bound
of slider_latency's, only of the time until the browser is idle again; it says where a page's time
goes, not how long a user waits.

Prints one line per page (median, min and max over the presses), with the date and the load.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from e2e_support import (  # noqa: E402
    VIEWPORT,
    StreamlitServer,
    browser_missing_message,
    launch_chromium,
    press_slider,
    ready_time_ms,
    slider_latency_ms,
)
from slider_latency import OPEN_TAB, REFERENCE_APP, REFERENCE_SLIDER, REFERENCE_TITLE, load, targets  # noqa: E402

#: How long after a keydown a press's work is counted (every page is idle again well before).
WINDOW_MS = 800
#: The idle control: 250 ms ending this long before each keydown.
CONTROL_MS = (300, 50)


def busy_ms(tasks: list[tuple[float, float]], start: float, end: float) -> float:
    """Milliseconds of [start, end) (trace microseconds) covered by the intervals `tasks`, overlaps merged."""
    spans = sorted((max(a, start), min(b, end)) for a, b in tasks if a < end and b > start)
    total, lo, hi = 0.0, None, None
    for a, b in spans:
        if hi is None or a > hi:
            if hi is not None:
                total += hi - lo
            lo, hi = a, b
        else:
            hi = max(hi, b)
    if hi is not None:
        total += hi - lo
    return total / 1000


def measure_tab(browser, tab, key: str, title: str, presses: int) -> dict:
    """Trace `presses` presses of slider `key` on `tab` (already at its page and warmed up)."""
    tab.bring_to_front()
    tab.wait_for_timeout(1000)
    browser.start_tracing(page=tab, categories=["devtools.timeline", "disabled-by-default-devtools.timeline"])
    for _ in range(presses):
        press_slider(tab, key)
        tab.wait_for_timeout(WINDOW_MS + 400)
    events = json.loads(browser.stop_tracing())["traceEvents"]
    main = {
        (e["pid"], e["tid"]) for e in events if e.get("name") == "thread_name" and e["args"]["name"] == "CrRendererMain"
    }
    tasks = [
        (e["ts"], e["ts"] + e["dur"])
        for e in events
        if (e["pid"], e["tid"]) in main and e["name"] == "RunTask" and e.get("ph") == "X"
    ]
    keydowns = sorted(
        e["ts"]
        for e in events
        if (e["pid"], e["tid"]) in main
        and e["name"] == "EventDispatch"
        and e.get("args", {}).get("data", {}).get("type") == "keydown"
    )
    if len(keydowns) != presses:
        raise RuntimeError(f"{title}: {len(keydowns)} keydowns in the trace, expected {presses}")
    work = [busy_ms(tasks, k, k + WINDOW_MS * 1000) for k in keydowns]
    idle = [busy_ms(tasks, k - CONTROL_MS[0] * 1000, k - CONTROL_MS[1] * 1000) for k in keydowns]
    return {"median": statistics.median(work), "min": min(work), "max": max(work), "idle": statistics.median(idle)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presses", type=int, default=7)
    ap.add_argument("--only", nargs="*", help="page slugs")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    missing = browser_missing_message()
    if missing:
        print(missing)
        return 1
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load_start = load()
    print(f"{when} · {os.cpu_count()} CPUs · load {load_start} · {args.presses} presses a page", flush=True)
    with StreamlitServer() as app, StreamlitServer(REFERENCE_APP) as ref, sync_playwright() as pw:
        browser = launch_chromium(pw)
        context = browser.new_context(viewport=VIEWPORT)
        try:
            rows = [(REFERENCE_TITLE, ref.url(""), REFERENCE_SLIDER, 0, REFERENCE_TITLE)]
            for title, page, key, chart in targets(False):
                if args.only and page.slug not in args.only:
                    continue
                rows.append((title, app.url(page.script, OPEN_TAB.get(page.slug)), key, chart, title))
            for name, url, key, chart, title in rows:
                tab = context.new_page()
                tab.goto(url, wait_until="commit")
                ready_time_ms(tab, title)
                for _ in range(2):  # warm-up: first-press costs (lazy code, caches)
                    slider_latency_ms(tab, key, chart, title)
                r = measure_tab(browser, tab, key, title, args.presses)
                print(
                    f"  {name:<30} {key:<10} main-thread work a press {r['median']:6.1f} ms "
                    f"(min {r['min']:.0f}, max {r['max']:.0f}); idle control {r['idle']:.1f} ms",
                    flush=True,
                )
                tab.close()
        finally:
            context.close()
            browser.close()
    print(f"load at the end {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
