"""Server runs per drag (issue #12): a mouse drag across the whole track of each position control,
in Chromium against a live server, counting the app's script runs (running -> notRunning) while
dragging and for 1.5 s after the release.

- the URL-bound Streamlit sliders (RoPE m, clocks p, invariance shift t): Streamlit sends the value
  on release, so a drag should cost exactly one run;
- the in-chart controls (RoPE's live plane m and n, the clock page's p): Vega-Lite parameters,
  computed in the browser, so a drag should cost none.

    python bench/drag_runs.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from e2e_support import StreamlitServer, launch_chromium, wait_charts_drawn, wait_idle  # noqa: E402

COUNT_RUNS_JS = """
() => {
  window.__runs = 0;
  new MutationObserver((records) => {
    for (const r of records)
      if (r.target.getAttribute('data-test-script-state') === 'running') window.__runs += 1;
  }).observe(document, {attributes: true, subtree: true, attributeFilter: ['data-test-script-state']});
}
"""
LIVE = "[data-testid=stVegaLiteChart]:has(.vega-bindings input)"

#: (what, URL path, page title, how to find the control's track, is it an in-chart control)
CONTROLS = [
    ("RoPE m (page slider)", "RoPE_rotation", "RoPE rotation", ".st-key-m", False),
    ("RoPE live plane m (in chart)", "RoPE_rotation", "RoPE rotation", f"{LIVE} .vega-bindings input >> nth=0", True),
    ("RoPE live plane n (in chart)", "RoPE_rotation", "RoPE rotation", f"{LIVE} .vega-bindings input >> nth=1", True),
    ("Clocks p (page slider)", "Clock_hands", "Frequency clock hands", ".st-key-m", False),
    ("Clocks p (in chart)", "Clock_hands", "Frequency clock hands", f"{LIVE} .vega-bindings input[type=range]", True),
    (
        "Invariance shift t (page slider)",
        "Relative_invariance",
        "Relative-position invariance",
        ".st-key-shift_t",
        False,
    ),
]


def drag(page, box, steps: int = 40) -> None:
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + 2, y)
    page.mouse.down()
    for i in range(1, steps + 1):
        page.mouse.move(box["x"] + box["width"] * i / steps, y)
        page.wait_for_timeout(25)
    page.mouse.up()


def main() -> None:
    from playwright.sync_api import sync_playwright

    load = os.getloadavg()[0]
    print(
        f"bench/drag_runs.py · {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} · {os.cpu_count()} CPUs · load {load:.1f}"
    )
    print("| control | server runs during one drag across its track | value before → after |")
    print("|---|---:|---|")
    with StreamlitServer() as server, sync_playwright() as pw:
        browser = launch_chromium(pw)
        for what, path, title, selector, in_chart in CONTROLS:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{server.base_url}/{path}")
            wait_idle(page, title=title)
            wait_charts_drawn(page)
            if in_chart:
                control = page.locator(selector).first
                track = control
            else:
                control = page.locator(f"{selector} input[type=range]").first
                track = page.locator(f"{selector} [role=group] > [data-orientation=horizontal]").first
            track.scroll_into_view_if_needed()
            before = control.input_value() if in_chart else control.get_attribute("value")
            page.evaluate(COUNT_RUNS_JS)
            drag(page, track.bounding_box())
            page.wait_for_timeout(1500)
            wait_idle(page, title=title)
            after = control.input_value() if in_chart else control.get_attribute("value")
            print(f"| {what} | {page.evaluate('window.__runs')} | {before} → {after} |")
            page.close()
        browser.close()
    print(f"load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
