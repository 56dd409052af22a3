"""Server runs per drag (issue #12): a mouse drag across the whole track of each position control,
in Chromium against a live server, counting the app's script runs (running -> notRunning) while
dragging and for 1.5 s after the release.

- a URL-bound Streamlit slider (the invariance page's N): Streamlit sends the value on release, so a
  drag should cost exactly one run;
- RoPE's m and n (issue #23): the live plane's own sliders, Vega-Lite point selections that move the
  chart in the browser; Streamlit reports the value 150 ms after it last changed (explorer.liveparam),
  so a drag costs one run after the release plus one per pause of 150 ms (the column "during");
- the clock page's p (issue #23): the chart's own slider like RoPE's m and n (its play and number
  box reach the link through the slider; explorer/assets.py CLOCK_BRIDGE_JS);
- the invariance page's shift t (issue #23): the shift test chart's own slider, like RoPE's m and n;
- the vision page's query row (issue #23; a click on a patch sets it too). Its slider has one value
  per row of the grid (12 at the defaults): a drag rests on each value longer than a fine slider's,
  and every rest longer than 150 ms is one run (on a loaded 2-core machine, most of them);
- the sinusoidal heatmap's zoom window start p₀ (issue #23): the zoom chart's own slider, likewise.

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


def _bind(name: str) -> str:
    """The range input of the in-chart binding labelled `name`."""
    return f".vega-bind:has(.vega-bind-name:text-is('{name}')) input[type=range]"


#: (what, URL path, page title, how to find the control's track, is it an in-chart control)
CONTROLS = [
    ("RoPE m (live plane, in the link)", "RoPE_rotation", "RoPE rotation", f"{LIVE} {_bind('m')}", True),
    ("RoPE n (live plane, in the link)", "RoPE_rotation", "RoPE rotation", f"{LIVE} {_bind('n')}", True),
    (
        "Clocks p (in chart, in the link)",
        "Clock_hands",
        "Frequency clock hands",
        '.st-key-clock_chart input[name="m_m"]',
        True,
    ),
    (
        "Vision query row (in chart, in the link)",
        "Images_and_video",
        "Images and video",
        '[class*="st-key-vis_live_"] input[name="vis_qrow_vis_qrow"]',
        True,
    ),
    (
        "Heatmap zoom p₀ (in chart, in the link)",
        "Sinusoidal_heatmap",
        "Sinusoidal heatmap",
        '[class*=st-key-sin_zoom_live_] input[name="zoom_p0_zoom_p0"]',
        True,
    ),
    (
        "Invariance shift t (in chart, in the link)",
        "Relative_invariance",
        "Relative-position invariance",
        '[class*=st-key-inv_live_] input[name="shift_t_shift_t"]',
        True,
    ),
    ("Invariance N (page slider)", "Relative_invariance", "Relative-position invariance", ".st-key-seq_len", False),
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
    print(
        "| control | server runs during one drag across its track | after the release | value before → after | URL after |"
    )
    print("|---|---:|---:|---|---|")
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
            during = page.evaluate("window.__runs")
            page.wait_for_timeout(1500)
            wait_idle(page, title=title)
            after = control.input_value() if in_chart else control.get_attribute("value")
            runs = page.evaluate("window.__runs")
            query = page.url.split("?", 1)[1] if "?" in page.url else ""
            print(f"| {what} | {during} | {runs - during} | {before} → {after} | {query or '(none)'} |")
            page.close()
        browser.close()
    print(f"load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
