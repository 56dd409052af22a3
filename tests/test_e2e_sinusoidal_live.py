"""Issue #36 on the Sinusoidal heatmap page: the model dimension d and the base b are the zoom chart's
own sliders (explorer.charts.sinusoidal, `LIVE_PARAMS`; b runs over its options' indices). In Chromium:

* in the app, a key press on each redraws the zoom chart while no script runs; the value then reaches
  the server once, the link follows, the chart is kept (not rebuilt), and the overview and the
  controls' line say the new d and b; a mouse drag of d moves the chart, costs no more runs than it
  has pauses, and the page follows on release;
* in the chart's own HTML file (explorer.chartfile, offline), at 40 random settings of (b, d, p₀, i₀)
  in both layouts, every cell read from the Vega view is posenc's: its pair and function
  (`dimension_role`), θ_j (to the last bit or within one ulp: JavaScript's pow and the C library's may
  round the last bit differently) and PE(p, i) (within a few ulp of 1: JavaScript's sin and cos and
  numpy's may differ in the last bit), over exactly the window cut at the table's edges."""

from __future__ import annotations

import _browser_fixtures
import numpy as np
from e2e_support import (
    VIEW_TEXTS_JS,
    chart_canvas_js,
    new_app_page,
    press_once,
    wait_charts_drawn,
    wait_idle,
)
from test_e2e_chartfile import open_offline
from test_e2e_drag import COUNT_RUNS_JS, assert_runs_within_pauses, hold_and_drag

import posenc
from explorer.charts import sinusoidal as charts
from explorer.widgets import PARAMS

chromium, server = _browser_fixtures.chromium, _browser_fixtures.server  # module fixtures, shared

TITLE = "Sinusoidal heatmap"
LIVE = "[class*=st-key-sin_zoom_live_] [data-testid=stVegaLiteChart]"
#: The zoom chart's pixels (it draws on a canvas), as a size and a hash of every pixel: read at every animation frame
#: while a press is timed, and a PNG of the whole canvas (toDataURL) took long enough on a loaded CI machine that the
#: change was seen only after the press's report had started a run (one CI failure: 420 ms).
ZOOM_PIXELS_JS = chart_canvas_js("[class*=st-key-sin_zoom_live_]")

#: Every cell of the zoom chart's Vega view: its datum's p, i, j, fn, theta and value.
CELLS_JS = """(view) => { const out = [];
  const walk = (node) => { if (!node) return;
    if (node.items) for (const it of node.items) {
      const d = it.datum;
      if (node.marktype === 'rect' && d && d.value !== undefined && d.theta !== undefined)
        out.push([d.p, d.i, d.j, d.fn, d.theta, d.value]);
      walk(it); } };
  walk(view.scenegraph().root); return out; }"""


def open_zoom(page, url: str):
    """The page at `url`, drawn and idle, scrolled to its zoom chart: the chart's locator."""
    page.goto(url)
    wait_idle(page, title=TITLE)
    wait_charts_drawn(page)
    chart = page.locator(LIVE).first
    chart.scroll_into_view_if_needed()
    return chart


def test_a_press_on_d_or_b_redraws_the_zoom_chart_with_no_script_run_and_the_page_follows(chromium, server):
    bases = list(PARAMS["base"].options)
    page = new_app_page(chromium)
    query = "seq_len=300&d_model=64&base=500&layout_sin=concatenated&zoom_p0=10&zoom_d0=4&zoom_np=40&zoom_nd=24"
    try:
        chart = open_zoom(page, f"{server.base_url}/Sinusoidal_heatmap?{query}")
        b_in = chart.locator('input[name="base_base"]')
        assert b_in.input_value() == str(bases.index(500))  # the slider holds the option's index
        assert b_in.evaluate("(el) => el.nextElementSibling.textContent") == "500"  # and shows the option
        chart.evaluate("(c) => { c.querySelector('canvas').__kept = true; }")  # gone if the chart is rebuilt
        page.evaluate(COUNT_RUNS_JS)
        for key, want in (("d_model", "66"), ("base", "1000")):  # one step right of 64 and 500
            slider = chart.locator(f'input[name="{key}_{key}"]')
            press_once(page, slider, ZOOM_PIXELS_JS, key=key, want=want, title=TITLE)
        assert chart.evaluate("(c) => c.querySelector('canvas').__kept === true"), "the zoom chart was rebuilt"
        assert b_in.evaluate("(el) => el.nextElementSibling.textContent") == "1,000"  # the option, not its index
        assert page.get_by_text("Model dimension d = 66, base b = 1,000", exact=False).count() == 1
        # the overview and the window's i₀ range follow the new d
        assert page.get_by_text("dimensions 0 … 65", exact=False).count() >= 1
        d0_in = chart.locator('input[name="zoom_d0_zoom_d0"]')
        assert d0_in.get_attribute("max") == "65"
        share = page.locator("[data-testid=stMarkdown]", has_text="Link to this view").first.inner_text()
        assert "d_model=66" in share and "base=1000" in share
    finally:
        page.close()


def test_a_press_on_the_windows_size_redraws_the_zoom_chart_with_no_script_run_and_the_page_follows(chromium, server):
    """Issue #36: positions shown and dimensions shown are the zoom chart's own sliders. A key press on each redraws
    the chart while no script runs (a row or a column more); the value reaches the link once, the chart is kept, and
    the overview's box and the Numbers view's caption say the new window. The sliders are narrowed to the table: at
    most seq_len positions and d dimensions."""
    page = new_app_page(chromium)
    query = "seq_len=300&d_model=64&zoom_p0=10&zoom_d0=4&zoom_np=40&zoom_nd=24&sin_view=Numbers"
    try:
        chart = open_zoom(page, f"{server.base_url}/Sinusoidal_heatmap?{query}")
        np_in, nd_in = (chart.locator(f'input[name="{key}_{key}"]') for key in charts.SIZE_PARAMS)
        assert (np_in.get_attribute("max"), nd_in.get_attribute("max")) == ("256", "64")  # 256 of 300; d = 64
        chart.evaluate("(c) => { c.querySelector('canvas').__kept = true; }")  # gone if the chart is rebuilt
        page.evaluate(COUNT_RUNS_JS)
        for key, want in (("zoom_np", "41"), ("zoom_nd", "25")):
            press_once(
                page, chart.locator(f'input[name="{key}_{key}"]'), ZOOM_PIXELS_JS, key=key, want=want, title=TITLE
            )
        assert chart.evaluate("(c) => c.querySelector('canvas').__kept === true"), "the zoom chart was rebuilt"
        assert page.get_by_text("positions 10 … 50 × dimensions 4 … 28", exact=False).count() == 1  # Numbers' caption
    finally:
        page.close()


def test_a_drag_of_the_window_size_with_a_pause_keeps_the_zoom_chart(chromium, server):
    """A mouse drag of positions shown from 64 to past 80 rows, with a pause mid-drag (the page then runs with the
    value the hand holds): the chart is not rebuilt under the hand (its height stays its start's), and after the
    release the link and the Numbers view's caption say the size the hand let go at."""
    page = chromium.new_page(viewport={"width": 1280, "height": 1000})
    page.set_default_timeout(60_000)
    try:
        chart = open_zoom(page, f"{server.base_url}/Sinusoidal_heatmap?seq_len=512&sin_view=Numbers")
        chart.evaluate("(c) => { c.querySelector('canvas').__kept = true; }")
        np_in = chart.locator('input[name="zoom_np_zoom_np"]')
        hold_and_drag(page, np_in, 20, at=(64 - 1) / (256 - 1), share=0.15)
        page.wait_for_timeout(1500)  # a pause: Streamlit reports the value, and the page runs with it
        wait_idle(page, title=TITLE)
        box = np_in.bounding_box()
        page.mouse.move(box["x"] + box["width"] * 0.45, box["y"] + box["height"] / 2, steps=5)
        moved = int(np_in.input_value())
        page.mouse.up()
        assert moved > 81, moved
        page.wait_for_function(f"() => new URLSearchParams(location.search).get('zoom_np') === '{moved}'")
        wait_idle(page, title=TITLE)
        assert chart.evaluate("(c) => c.querySelector('canvas').__kept === true"), "the zoom chart was rebuilt"
        assert page.get_by_text(f"positions 0 … {moved - 1} × dimensions 0 … 31", exact=False).count() == 1
    finally:
        page.close()


def test_a_drag_of_d_moves_the_zoom_chart_in_the_browser_and_the_page_follows_on_release(chromium, server):
    """A mouse drag of the zoom chart's d (25 ms steps, like a hand) redraws the chart while it moves, costs
    no more server runs than it has pauses, and on release the link, the overview and the controls' line
    say the new d while the chart is kept."""
    page = chromium.new_page(viewport={"width": 1280, "height": 1000})
    page.set_default_timeout(60_000)
    try:
        page.goto(f"{server.base_url}/Sinusoidal_heatmap")
        wait_idle(page, title=TITLE)
        wait_charts_drawn(page)
        chart = page.locator(LIVE).first
        chart.scroll_into_view_if_needed()
        chart.evaluate("(c) => { c.querySelector('canvas').__kept = true; }")
        d_in = chart.locator('input[name="d_model_d_model"]')
        before = page.evaluate(ZOOM_PIXELS_JS)
        # grab the thumb where it stands (d = 128 of 2 … 2048) and move it right over a tenth of the track
        during, pauses = hold_and_drag(page, d_in, 30, at=(128 - 2) / (2048 - 2))
        moved = int(d_in.input_value())
        mid_drag = page.evaluate(ZOOM_PIXELS_JS)
        page.mouse.up()
        assert moved > 200 and mid_drag != before, moved
        assert_runs_within_pauses(during, pauses)
        page.wait_for_function(f"() => new URLSearchParams(location.search).get('d_model') === '{moved}'")
        wait_idle(page, title=TITLE)
        assert chart.evaluate("(c) => c.querySelector('canvas').__kept === true"), "the zoom chart was rebuilt"
        assert page.get_by_text(f"dimensions 0 … {moved - 1}", exact=False).count() >= 1  # the overview's title
        assert page.get_by_text(f"Model dimension d = {moved}, base b = 10,000", exact=False).count() == 1
    finally:
        page.close()


def test_the_zoom_charts_values_in_the_browser_are_posencs_at_random_settings(chromium, tmp_path):
    from explorer import chartfile, compat
    from explorer.render import stable_dataset_names

    options = tuple(float(b) for b in PARAMS["base"].options)
    rng = np.random.default_rng(36)
    seq_len = 8192
    most = (PARAMS["zoom_np"].max, PARAMS["zoom_nd"].max)  # the page's largest window
    checked = bit_equal = 0
    for layout in ("interleaved", "concatenated"):
        chart = charts.zoom_chart(
            size=charts.zoom_size(seq_len),
            d_model=128,
            base=10000.0,
            base_options=options,
            layout=layout,
            scheme="redblue",
            p0=0,
            d0=0,
            n_positions=24,
            n_dims=40,
            size_max=most,
            d_range=(PARAMS["d_model"].min, PARAMS["d_model"].max),
            slider_max=(PARAMS["zoom_p0"].max, PARAMS["zoom_d0"].max),
        )
        path = tmp_path / f"zoom_{layout}.html"
        spec = stable_dataset_names(compat.vega_lite_spec(chart))
        path.write_text(chartfile.html_file(spec, title="t", footer="f"))
        tab, tried = open_offline(chromium, path)
        try:
            for k in range(20):
                base = options[int(rng.integers(0, len(options)))]
                d = 2 * int(rng.integers(1, 1025)) if k % 2 else 2 * int(rng.integers(1, 65))
                p0 = int(rng.integers(0, seq_len))
                d0 = int(rng.integers(0, d + 8))  # now and then past the table's last column
                # the window's size: small, or up to 70 × 70 (every cell is read back and checked one by one)
                n_positions, n_dims = (int(rng.integers(1, 71 if k % 3 else 9)) for _ in range(2))
                got = tab.evaluate(
                    """([d, b, p0, d0, np_, nd]) => {
                         for (const [name, v] of [['d_model', d], ['base', b], ['zoom_p0', p0], ['zoom_d0', d0],
                                                  ['zoom_np', np_], ['zoom_nd', nd]]) {
                           const el = document.querySelector(`input[name="${name}_${name}"]`);
                           el.value = v; el.dispatchEvent(new Event('input', {bubbles: true})); }
                         return window.posencView.runAsync().then((view) => [(CELLS_JS)(view), (TEXTS_JS)(view)]); }""".replace(
                        "CELLS_JS", CELLS_JS
                    ).replace("TEXTS_JS", VIEW_TEXTS_JS),
                    [d, options.index(base), p0, d0, n_positions, n_dims],
                )
                cells, texts = got
                first_i = min(d0, d - 1)
                p_end, i_end = min(p0 + n_positions, seq_len), min(first_i + n_dims, d)
                want_keys = {(p, i) for p in range(p0, p_end) for i in range(first_i, i_end)}
                assert {(int(c[0]), int(c[1])) for c in cells} == want_keys, (
                    layout,
                    base,
                    d,
                    p0,
                    d0,
                    n_positions,
                    n_dims,
                )
                assert len(cells) == len(want_keys)  # each once
                table = posenc.sinusoidal_encoding(np.arange(p0, p_end), d, base=base, layout=layout)
                theta = posenc.inverse_frequencies(d, base=base)
                for p, i, j, fn, th, value in cells:
                    p, i = int(p), int(i)
                    assert (fn, j) == charts.dimension_role(i, d, layout), (layout, d, i, fn, j)
                    assert abs(th - theta[j]) <= np.spacing(theta[j]), (layout, base, d, j, th, theta[j])
                    bit_equal += th == theta[j]
                    # sin and cos of p·θ: 4e-16 for the functions themselves, plus, where the browser's θ
                    # (JavaScript's pow) is one ulp off numpy's (above), what that moves the angle p·θ by, and the
                    # product's own rounding to a neighbouring float
                    off = th != theta[j]
                    bound = 4e-16 + off * (p * abs(th - theta[j]) + np.spacing(p * theta[j]))
                    assert abs(value - table[p - p0, i]) <= bound, (layout, base, d, p, i, value, table[p - p0, i])
                    checked += 1
                b_text = f"{base:,.0f}"
                assert f"d = {d}, b = {b_text}" in " ".join(texts), (texts, d, b_text)
            assert tried == []
        finally:
            tab.context.close()
    assert checked > 0
    print(f"{checked} cells checked; θ_j bit-equal in {bit_equal} of them")
