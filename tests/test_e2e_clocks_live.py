"""Issue #36 on the Clock hands page: the head size d, the base b and the number of clocks are the
chart's own sliders (explorer.charts.clocks, `LIVE_PARAMS`). In Chromium:

* in the app, a key press on each of them redraws the clock chart while no script runs (the run
  comes after, when Streamlit reports the value), a mouse drag of d costs no more runs than it has
  pauses, and when it ends the link, the table and the sentences follow while the chart is kept;
* in the chart's own HTML file (explorer.chartfile, offline), at 40 random settings, the values read
  from the Vega view are posenc's: θ_j (to the last bit or within one ulp: JavaScript's pow and the C
  library's may round the last bit differently), which pairs get a clock (`posenc.spread_pairs`), λ_j as the
  labels show it, and the odometer's every pair."""

from __future__ import annotations

import _browser_fixtures
import numpy as np
import pytest
from e2e_support import (
    chart_svg_js,
    open_app_page,
    press_once,
    wait_idle,
)
from test_e2e_chartfile import open_offline
from test_e2e_drag import COUNT_RUNS_JS, assert_runs_within_pauses, hold_and_drag

import posenc
from explorer.charts import clocks as charts
from explorer.text import clocks as clock_text
from explorer.widgets import PARAMS

chromium, server = _browser_fixtures.chromium, _browser_fixtures.server  # module fixtures, shared

TITLE = "Frequency clock hands"
SETTINGS = ("d_model", "base", "n_clocks")

#: The clock chart's SVG markup, without what differs between two drawings of the same chart.
CLOCK_SVG_JS = chart_svg_js(".st-key-clock_chart")

#: Every item of the Vega view's marks, as [shape or null, its datum's fields]: the hands are the
#: symbols whose shape is the hand's path, the odometer's line the items whose datum has a j and turns.
ITEMS_JS = """(view) => { const out = [];
  const walk = (node) => { if (!node) return;
    if (node.items) for (const it of node.items) {
      if (it.datum && node.marktype) out.push([node.marktype, it.shape || null, it.datum, it.text || null]);
      walk(it); } };
  walk(view.scenegraph().root); return out; }"""


def set_sliders_and_read(tab, values) -> list:
    """In a chart file opened from disk: set each in-chart slider (its input's name, value) as a hand would (an
    input event), run the view, and return its marks' items (`ITEMS_JS`)."""
    return tab.evaluate(
        """([values, itemsJs]) => { for (const [name, v] of values) {
             const el = document.querySelector(`input[name="${name}"]`);
             el.value = v; el.dispatchEvent(new Event('input', {bubbles: true})); }
           return window.posencView.runAsync().then((view) => (eval(itemsJs))(view)); }""",
        [[list(pair) for pair in values], ITEMS_JS],
    )


def open_page(chromium, server, query: str = ""):
    return open_app_page(chromium, server, "Clock_hands", TITLE, query)


def url_value(page, key: str) -> str | None:
    return page.evaluate(f"() => new URLSearchParams(location.search).get('{key}')")


def test_a_press_on_d_b_or_the_clocks_redraws_the_chart_with_no_script_run(chromium, server):
    """Each setting's slider, focused and pressed (→): the clock chart looks different within the first
    frames while no script has run; about 150 ms later the value reaches the server once, and the
    link, the table's pairs and the chart's own read-out agree with it."""
    page = open_page(chromium, server, "?m=100&d_model=16&n_clocks=4")
    try:
        chart = page.locator(".st-key-clock_chart [data-testid=stVegaLiteChart]").first
        chart.evaluate("(c) => { c.querySelector('svg').__kept = true; }")
        want = {"d_model": "18", "base": "50000", "n_clocks": "5"}  # one step right of 16, 10000, 4
        page.evaluate(COUNT_RUNS_JS)  # window.__runs: script runs from here on
        for key in SETTINGS:
            slider = chart.locator(f'input[name="{key}_{key}"]')
            press_once(page, slider, CLOCK_SVG_JS, key=key, want=want[key], title=TITLE)
        assert chart.evaluate("(c) => c.querySelector('svg').__kept === true"), "the clock chart was rebuilt"
        # the page followed: d = 18 has 9 pairs, 5 clocks spread over them; the chart's read-out says the same
        texts = chart.locator("svg text").all_text_contents()
        assert "b = 50,000 · d = 18 · 5 of 9 pairs" in texts
        pairs = posenc.spread_pairs(9, 5).tolist()
        labels = [t for t in texts if t.startswith("j = ")]  # two lines: "j = 0" and "λ = 6.28", as tspans
        lam = posenc.wavelengths(18, base=50000.0)
        assert labels == [f"j = {j}λ = {clock_text.wavelength_label(float(lam[j]))}" for j in pairs], labels
        assert page.get_by_text(f"The {len(pairs)} pairs with a clock (of 9).", exact=False).count() == 1
    finally:
        page.close()


def test_a_drag_of_d_moves_the_clocks_in_the_browser_and_the_link_follows_on_release(chromium, server):
    page = open_page(chromium, server, "?m=300")
    try:
        chart = page.locator(".st-key-clock_chart [data-testid=stVegaLiteChart]").first
        chart.evaluate("(c) => { c.querySelector('svg').__kept = true; }")
        d_in = chart.locator('input[name="d_model_d_model"]')
        before = page.evaluate(CLOCK_SVG_JS)
        # grab the thumb where it stands (d = 128 of 2 … 2048) and move it right over a tenth of the track
        during, pauses = hold_and_drag(page, d_in, 30, at=(128 - 2) / (2048 - 2))
        moved = int(d_in.input_value())
        mid_drag = page.evaluate(CLOCK_SVG_JS)
        page.mouse.up()
        assert moved > 200 and mid_drag != before, moved
        assert_runs_within_pauses(during, pauses)
        texts = chart.locator("svg text").all_text_contents()
        assert any(t.startswith(f"b = 10,000 · d = {moved} · 8 of {moved // 2} pairs") for t in texts), texts
        page.wait_for_function(f"() => new URLSearchParams(location.search).get('d_model') === '{moved}'")
        wait_idle(page, title=TITLE)
        assert chart.evaluate("(c) => c.querySelector('svg').__kept === true"), "the clock chart was rebuilt"
        assert page.get_by_text(f"(of {moved // 2}).", exact=False).count() == 1  # the table's caption
    finally:
        page.close()


def test_the_values_in_the_vega_view_are_posencs_at_random_settings(chromium, tmp_path):
    """The chart's HTML file (offline, as "Save this chart" writes it): at 40 random (d, b, clocks, p)
    set through its own sliders, the hands' pairs, θ_j and labels, and the odometer's θ_j of every
    pair, read from the Vega view, are posenc's."""
    from explorer import chartfile, compat
    from explorer.render import stable_dataset_names

    options = PARAMS["base"].options
    slowest = float(posenc.inverse_frequencies(2048, base=float(max(options)))[-1])
    chart = charts.clock_chart(
        position=5,
        d_model=128,
        base=10000.0,
        n_clocks=8,
        p_max=8192,
        base_options=options,
        slowest_theta=slowest,
    )
    path = tmp_path / "clocks.html"
    path.write_text(chartfile.html_file(stable_dataset_names(compat.vega_lite_spec(chart)), title="t", footer="f"))
    tab, tried = open_offline(chromium, path)
    rng = np.random.default_rng(36)
    exact = ulp = 0
    try:
        for _ in range(40):
            d = 2 * int(rng.integers(1, 1025)) if rng.random() < 0.5 else 2 * int(rng.integers(1, 65))
            b_index, n, m = int(rng.integers(0, len(options))), int(rng.integers(1, 65)), int(rng.integers(1, 8193))
            items = set_sliders_and_read(
                tab, [("d_model_d_model", d), ("base_base", b_index), ("n_clocks_n_clocks", n), ("m_m", m)]
            )
            base = float(options[b_index])
            theta = posenc.inverse_frequencies(d, base=base)
            lam = posenc.wavelengths(d, base=base)
            hands = [datum for kind, shape, datum, _ in items if kind == "symbol" and shape == f"M0,0L0,-{charts.HAND}"]
            pairs = posenc.spread_pairs(d // 2, n).tolist()
            assert [h["j"] for h in hands] == pairs, (d, n)
            for h in hands:
                want = float(theta[h["j"]])
                assert abs(h["theta"] - want) <= np.spacing(want), (d, base, h["j"], h["theta"], want)
                exact += h["theta"] == want
                ulp += h["theta"] != want
                assert h["angle"] == pytest.approx(m * want, rel=1e-15)
                assert h["label"] == f"j = {h['j']}\nλ = {clock_text.wavelength_label(float(lam[h['j']]))}"
            line = sorted(
                (datum for kind, _, datum, _ in items if kind == "line" and "turns" in datum and "i" not in datum),
                key=lambda x: x["j"],
            )
            assert [x["j"] for x in line] == list(range(d // 2))
            got = np.array([x["theta"] for x in line])
            assert np.all(np.abs(got - theta) <= np.spacing(theta)), (d, base)
            texts = [t for _, _, _, t in items if isinstance(t, str)]
            assert f"b = {base:,.0f} · d = {d} · {min(n, d // 2)} of {d // 2} pairs" in texts
        assert tried == []
    finally:
        tab.context.close()
    print(f"θ_j read from the view: {exact} equal to posenc's bit for bit, {ulp} one ulp apart")
