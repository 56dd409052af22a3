"""Issue #12: dragging a position slider across its whole range costs the server at most one script
run (Streamlit sends a slider's value when the thumb is released), and the link then reproduces the
view. Counted in Chromium by watching the app's script state (running -> notRunning) during a real
mouse drag on the RoPE page's m, the clock page's p and the invariance page's shift t."""

from __future__ import annotations

import pytest
from e2e_support import StreamlitServer, launch_chromium, require_browser, wait_charts_drawn, wait_idle

COUNT_RUNS_JS = """
() => {
  window.__runs = 0;
  new MutationObserver((records) => {
    for (const r of records)
      if (r.target.getAttribute('data-test-script-state') === 'running') window.__runs += 1;
  }).observe(document, {attributes: true, subtree: true, attributeFilter: ['data-test-script-state']});
}
"""

#: page URL path, slider key, its title on the page
SLIDERS = [
    ("RoPE_rotation", "m", "RoPE rotation"),
    ("Clock_hands", "m", "Frequency clock hands"),
    ("Relative_invariance", "shift_t", "Relative-position invariance"),
]


@pytest.fixture(scope="module")
def server():
    require_browser()
    with StreamlitServer() as s:
        yield s


@pytest.mark.parametrize("path, key, title", SLIDERS, ids=[s[0] for s in SLIDERS])
def test_a_drag_across_a_position_slider_is_at_most_one_server_run(server, path, key, title):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{server.base_url}/{path}")
        wait_idle(page, title=title)
        wait_charts_drawn(page)
        value = page.locator(f".st-key-{key} input[type=range]").first
        thumb = page.locator(
            f".st-key-{key} [role=group] > [data-orientation=horizontal] > div[style*=translate]"
        ).first
        track = page.locator(f".st-key-{key} [role=group] > [data-orientation=horizontal]").first
        track.scroll_into_view_if_needed()
        before = value.get_attribute("value")
        box, tbox = track.bounding_box(), thumb.bounding_box()
        page.evaluate(COUNT_RUNS_JS)
        page.mouse.move(tbox["x"] + tbox["width"] / 2, tbox["y"] + tbox["height"] / 2)
        page.mouse.down()
        for i in range(1, 41):  # across the track in 40 steps, like a hand
            page.mouse.move(box["x"] + box["width"] * i / 40, tbox["y"] + tbox["height"] / 2)
            page.wait_for_timeout(25)
        page.mouse.up()
        page.wait_for_timeout(1500)
        wait_idle(page, title=title)
        runs = page.evaluate("window.__runs")
        after = value.get_attribute("value")
        assert after != before  # the drag moved the value
        assert runs == 1, f"{runs} server runs for one drag"  # 1: the release (0 would mean the count is broken)
        assert f"{key}={after}" in page.url  # the link holds the dragged value
        browser.close()
