"""Issue #36 on the RoPE page: the base b is the live plane's own slider (explorer.charts.rope,
`LIVE_PARAMS`), running over the indices of the base's options. In Chromium, a key press on it
turns the arrows and changes θ_j while no script runs; the value then reaches the server once, the
link says the new base, and the plane's read-out and the page's numbers are posenc's for it."""

from __future__ import annotations

import pytest
from e2e_support import (
    StreamlitServer,
    chart_svg_js,
    launch_chromium,
    new_app_page,
    press_once,
    require_browser,
    wait_charts_drawn,
    wait_idle,
)
from test_e2e_drag import COUNT_RUNS_JS

import posenc
from explorer.widgets import PARAMS

TITLE = "RoPE rotation"
PLANE_SVG_JS = chart_svg_js('[class*="st-key-rope_live"]')


@pytest.fixture(scope="module")
def server():
    require_browser()
    with StreamlitServer() as s:
        yield s


def test_a_press_on_the_base_turns_the_plane_in_the_browser_and_the_page_follows(server):
    from playwright.sync_api import sync_playwright

    options = list(PARAMS["base"].options)
    start = options.index(10000)
    want = options[start + 1]  # one step right
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        page = new_app_page(browser)
        try:
            page.goto(f"{server.base_url}/RoPE_rotation?m=40&n=7&head_dim=16&j=3&base=10000")
            wait_idle(page, title=TITLE)
            wait_charts_drawn(page)
            chart = page.locator('[class*="st-key-rope_live"] [data-testid=stVegaLiteChart]').first
            slider = chart.locator('input[name="base_base"]')
            assert slider.input_value() == str(start)  # the slider holds the option's index
            assert slider.evaluate("(el) => el.nextElementSibling.textContent") == "10,000"  # and shows the option
            page.evaluate(COUNT_RUNS_JS)
            press_once(page, slider, PLANE_SVG_JS, key="base", want=str(want), title=TITLE)
            theta = float(posenc.inverse_frequencies(16, base=float(want))[3])
            texts = chart.locator("svg text").all_text_contents()
            line = next(t for t in texts if t.startswith("θ_j = b^(−2j/d) = "))
            assert f"(j = 3, d = 16, b = {want:,.0f})" in line, line
            assert line.split("= ")[2].split(" ")[0] == f"{theta:.6g}", (line, theta)  # the read-out's 6 digits
            # beside the slider, the base itself (explorer.assets.OPTION_LABELS), not its option index
            assert slider.evaluate("(el) => el.nextElementSibling.textContent") == f"{want:,}"
        finally:
            browser.close()


@pytest.mark.parametrize("vector_input", ["cartesian", "polar"])
def test_a_press_on_q_or_k_turns_the_plane_in_the_browser_and_the_page_follows(server, vector_input):
    """Issue #36: q's and k's numbers are the live plane's own sliders. A key press on one redraws the plane while no
    script runs; the value reaches the link once, the plane is kept (not rebuilt), and its read-out and the page's
    metric card give posenc's score for the new pair (x and y, or angle and length turned into them by
    posenc.polar_to_xy)."""
    import numpy as np
    from playwright.sync_api import sync_playwright

    query = "m=40&n=7&head_dim=16&j=3&qx=1&qy=0.5&kx=-0.4&ky=1.2"
    if vector_input == "polar":
        query = "m=40&n=7&head_dim=16&j=3&vec_input=polar&q_angle=30&q_len=1&k_angle=110&k_len=1.5"
    presses = {"cartesian": (("qx", "1.1"), ("ky", "1.3")), "polar": (("q_angle", "31"), ("k_len", "1.6"))}[
        vector_input
    ]
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        page = new_app_page(browser)
        try:
            page.goto(f"{server.base_url}/RoPE_rotation?{query}")
            wait_idle(page, title=TITLE)
            wait_charts_drawn(page)
            chart = page.locator('[class*="st-key-rope_live"] [data-testid=stVegaLiteChart]').first
            chart.evaluate("(c) => { c.querySelector('svg').__kept = true; }")  # gone if the chart is rebuilt
            page.evaluate(COUNT_RUNS_JS)
            for key, want in presses:
                press_once(
                    page, chart.locator(f'input[name="{key}_{key}"]'), PLANE_SVG_JS, key=key, want=want, title=TITLE
                )
            assert chart.evaluate("(c) => c.querySelector('svg').__kept === true"), "the live plane was rebuilt"
            if vector_input == "cartesian":
                q, k = np.array([1.1, 0.5]), np.array([-0.4, 1.3])
            else:
                q, k = posenc.polar_to_xy(31, 1.0, degrees=True), posenc.polar_to_xy(110, 1.6, degrees=True)
            theta = float(posenc.inverse_frequencies(16, base=10000.0)[3])
            score = float(
                posenc.apply_rope(q[None, :], [40], inv_freq=[theta])[0]
                @ posenc.apply_rope(k[None, :], [7], inv_freq=[theta])[0]
            )
            texts = chart.locator("svg text").all_text_contents()
            assert f"⟨R_m q, R_n k⟩ = {score:.6f}".replace("-", "−") in texts, (texts, score)
            card = page.locator("[data-testid=stMetric]", has_text="⟨R_m q, R_n k⟩").first
            assert f"{score:.6f}" in card.inner_text()  # the page followed the release (a hyphen-minus there)
        finally:
            browser.close()
