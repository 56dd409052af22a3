"""Issue #36's drag test: does a 1-second drag show the chart moving continuously?

For each in-chart control of bench/press_in_browser.py's `CONTROLS`, the mouse takes the range input's
thumb and moves it across the track at a steady pace for one second (each mouse move to where a steady hand
would be by then, as fast as the browser takes them), then lets go. On every animation frame the page
records the chart's fingerprint and the script state. Printed per control: how many different pictures the
chart showed while the hand moved, the frames per second the browser drew, the longest stretch with the thumb
moving and the chart not changing, and how many script runs started before the release (0: the chart followed the hand in the browser) and after it (the value
reaches the server once the hand lets go). "Continuous" here: no run before the release, at least
min(10, n) pictures and no still stretch longer than max(200 ms, 2 s / n), where n is the number of values
the thumb crosses (a base slider has few options, a position slider hundreds).

    python bench/drag_continuity.py [--repeats 3] [--only TEXT]
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
from e2e_support import (  # noqa: E402
    _QUICK_FINGERPRINT_JS,
    StreamlitServer,
    launch_chromium,
    wait_charts_drawn,
    wait_idle,
)
from press_in_browser import chart_index, controls  # noqa: E402

#: From now on: every animation frame's (time, chart fingerprint) and every script-state change.
_RECORD_JS = """
([index, fingerprint]) => {
  const fp = new Function('i', 'return (' + fingerprint + ')(i);');
  const rec = window.__drag = {frames: [], states: [], stop: false};
  const obs = new MutationObserver((records) => { for (const r of records)
    rec.states.push([performance.now(), r.target.getAttribute('data-test-script-state')]); });
  obs.observe(document, {attributes: true, subtree: true, attributeFilter: ['data-test-script-state']});
  const tick = () => { if (rec.stop) return; rec.frames.push([performance.now(), fp(index)]);
    requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
}
"""

CONTINUOUS_PICTURES = 10
CONTINUOUS_GAP_MS = 200.0


def drag_once(tab, name: str, title: str, duration_ms: float = 1000.0) -> dict[str, float]:
    """One 1-second drag across the in-chart input ``name`` and what the chart and the server did."""
    index = chart_index(tab, name)
    box = tab.locator(f"input[name='{name}']").first
    box.scroll_into_view_if_needed()
    r = box.bounding_box()
    n = box.evaluate("(el) => Math.round((Number(el.max) - Number(el.min)) / Number(el.step || 1))")
    at_end = box.evaluate("(el) => Number(el.value) >= (Number(el.max) + Number(el.min)) / 2")
    x0, x1 = (r["x"] + r["width"] - 4, r["x"] + 4) if at_end else (r["x"] + 4, r["x"] + r["width"] - 4)
    y = r["y"] + r["height"] / 2
    tab.mouse.move(x0, y)
    tab.evaluate(_RECORD_JS, [index, _QUICK_FINGERPRINT_JS.strip()])
    tab.mouse.down()
    start = tab.evaluate("() => performance.now()")
    # paced by the clock, not by a count of moves: each move goes where a steady hand would be by now. (Sixty-two
    # moves with a 16-ms wait between took 3.4 s on a 2-core machine, each a round trip to the browser: the thumb
    # then rested on each value long enough for Streamlit to report it mid-drag, which a 1-second drag does not do.)
    began, moves = time.perf_counter(), 0
    while (share := min(1.0, (time.perf_counter() - began) * 1000 / duration_ms)) < 1.0 or moves == 0:
        tab.mouse.move(x0 + (x1 - x0) * share, y)
        moves += 1
    tab.mouse.move(x1, y)
    release = tab.evaluate("() => performance.now()")
    tab.mouse.up()
    tab.wait_for_timeout(1500)
    rec = tab.evaluate("() => { window.__drag.stop = true; return window.__drag; }")
    wait_idle(tab, title=title)
    frames = [(t, f) for t, f in rec["frames"] if start <= t <= release]
    changes = [t for (t, f), (_, prev) in zip(frames[1:], frames[:-1]) if f != prev]
    marks = [start, *changes, release]
    runs = [t for t, s in rec["states"] if s == "running"]
    return {
        "pictures": len(changes),
        "fps": len(frames) / ((release - start) / 1000),
        "gap": max(b - a for a, b in itertools.pairwise(marks)),
        "runs_during": sum(start <= t <= release for t in runs),
        "runs_after": sum(t > release for t in runs),
        "values": n,
        "took": release - start,
        "moves": moves + 1,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", default="", help="only the controls whose name contains this text")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"{when} · {os.cpu_count()} CPUs · load {os.getloadavg()[0]:.2f} · {args.repeats} drags each", flush=True)
    print(
        "\n| control | values on the track | drag took (mouse moves) | pictures | frames/s | longest still stretch "
        "| runs during / after | continuous |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|:--:|")
    with StreamlitServer() as app, sync_playwright() as pw:
        browser = launch_chromium(pw)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.set_default_timeout(60_000)
        for what, path, title, name in controls(args.only):
            tab = context.new_page()
            got = []
            for _ in range(args.repeats):  # each drag from the link's state (a drag may change what the next shows)
                tab.goto(f"{app.base_url}/{path}")
                wait_idle(tab, title=title)
                wait_charts_drawn(tab)
                got.append(drag_once(tab, name, title))
            pictures = statistics.median(g["pictures"] for g in got)
            gap = max(g["gap"] for g in got)
            ok = all(
                g["pictures"] >= min(CONTINUOUS_PICTURES, g["values"])
                and g["gap"] <= max(CONTINUOUS_GAP_MS, 2000 / max(g["values"], 1))
                and g["runs_during"] == 0
                for g in got
            )
            print(
                f"| {what} | {got[0]['values']} | {statistics.median(g['took'] for g in got):.0f} ms "
                f"({statistics.median(g['moves'] for g in got):.0f}) | {pictures:.0f} | {statistics.median(g['fps'] for g in got):.0f} | {gap:.0f} ms | "
                f"{max(g['runs_during'] for g in got)} / {min(g['runs_after'] for g in got)}–"
                f"{max(g['runs_after'] for g in got)} | {'yes' if ok else '**no**'} |",
                flush=True,
            )
            tab.close()
        browser.close()
    print(
        f"\nmedian pictures and frame rate, the worst stretch, of {args.repeats} drags; load {os.getloadavg()[0]:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
