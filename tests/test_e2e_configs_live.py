"""Issue #36 on the Model configs page: the converter chart's NTK alpha α (or linear factor s) is its own
slider, over the stops explorer.vocabulary.ALPHA_STOPS, and so are the head dimension d and the base b. In Chromium:

* in the app, a key press on α, d or b redraws the chart while no script runs; the value then reaches the server
  once, and the link, the box and the metrics follow while the chart is kept;
* in the chart's own HTML file (offline), at random (d, b, α) of its sliders, the wavelengths read from the Vega
  view are posenc's: at the page's d and b the trained and linear lines bit for bit, the NTK line within a few ulps
  (JavaScript's pow and the C library's may round the last bit differently, twice: b′ = b·α^(d/(d−2)), then
  θ′_j = b′^(−2j/d)); at another d or b (θ_j from JavaScript's pow too) every line within a few ulps."""

from __future__ import annotations

import _browser_fixtures
import numpy as np
from e2e_support import (
    chart_svg_js,
    new_app_page,
    press_once,
    wait_charts_drawn,
    wait_idle,
)
from test_e2e_chartfile import open_offline
from test_e2e_clocks_live import set_sliders_and_read
from test_e2e_drag import COUNT_RUNS_JS

import posenc
from explorer.charts import configs as charts
from explorer.compute import configs as config_compute
from explorer.text import configs as text
from explorer.vocabulary import ALPHA_STOPS, BASE_OPTIONS

chromium, server = _browser_fixtures.chromium, _browser_fixtures.server  # module fixtures, shared

TITLE = "Model configs"
SVG_JS = chart_svg_js('[class*="st-key-conv_live_"]')


def test_a_press_on_alpha_redraws_the_chart_with_no_script_run_and_the_page_follows(chromium, server):
    page = new_app_page(chromium)
    try:
        page.goto(f"{server.base_url}/Model_configs?head_dim=128&ntk_alpha=8")
        wait_idle(page, title=TITLE)
        wait_charts_drawn(page)
        chart = page.locator('[class*="st-key-conv_live_"] [data-testid=stVegaLiteChart]').first
        chart.scroll_into_view_if_needed()
        chart.evaluate("(c) => { c.querySelector('svg').__kept = true; }")
        page.evaluate(COUNT_RUNS_JS)
        slider = chart.locator('input[name="ntk_alpha_ntk_alpha"]')
        press_once(page, slider, SVG_JS, key="ntk_alpha", want="10", title=TITLE)  # 8 → 10
        assert chart.evaluate("(c) => c.querySelector('svg').__kept === true"), "the chart was rebuilt"
        assert chart.locator(".vega-bind").filter(has_text="α (or s)").inner_text().strip().endswith("10")
        assert page.locator(".st-key-ntk_alpha input").input_value() == "10.00"
        new_base = 10000 * 10 ** (128 / 126)
        assert page.get_by_text(f"{new_base:,.2f}", exact=True).count() >= 1  # the metric b′ followed
        # d and b are the chart's sliders too: a press on each moves the lines before any script runs, the link and
        # the metric follow, and the chart is kept
        for key, want in (("head_dim", "130"), ("base", "50000")):
            page.wait_for_timeout(400)  # a report still under way is not this press's run
            wait_idle(page, title=TITLE)
            press_once(page, chart.locator(f'input[name="{key}_{key}"]'), SVG_JS, key=key, want=want, title=TITLE)
        assert chart.evaluate("(c) => c.querySelector('svg').__kept === true"), "the chart was rebuilt"
        new_base = 50000 * 10 ** (130 / 128)
        assert page.get_by_text(f"{new_base:,.2f}", exact=True).count() >= 1
        assert chart.locator(".vega-bind").filter(has_text="base b").inner_text().strip().endswith("50,000")
    finally:
        page.close()


def test_the_wavelengths_in_the_vega_view_are_posencs_at_random_settings(chromium, tmp_path):
    from explorer import chartfile, compat
    from explorer.render import stable_dataset_names

    rng = np.random.default_rng(36)
    exact = near = 0
    for _ in range(4):
        d = 2 * int(rng.integers(3, 129))
        base = float(BASE_OPTIONS[int(rng.integers(0, len(BASE_OPTIONS)))])
        window = config_compute.alpha_window(d, base)
        theta = posenc.inverse_frequencies(d, base=base)
        starts = {"ntk_alpha": 1.0, "head_dim": d, "base": base}
        chart = charts.wavelength_live_chart(theta, head_dim=d, base=base, starts=starts, **text.WAVELENGTH_LIVE_WORDS)
        path = tmp_path / f"conv_{d}.html"
        path.write_text(chartfile.html_file(stable_dataset_names(compat.vega_lite_spec(chart)), title="t", footer="f"))
        tab, tried = open_offline(chromium, path)
        try:
            lo, hi = ALPHA_STOPS.index(window[0]), ALPHA_STOPS.index(window[1])
            for k in range(8):
                i = int(rng.integers(lo, hi + 1))
                # the page's d and b every other setting (posenc's θ_j), else anywhere their sliders reach
                at_d = d if k % 2 == 0 else 2 * int(rng.integers(2, 129))
                at_b = base if k % 2 == 0 else float(BASE_OPTIONS[int(rng.integers(0, len(BASE_OPTIONS)))])
                alpha = ALPHA_STOPS[i]
                new_base = posenc.ntk_alpha_to_base(alpha, at_d, base=at_b)
                if not new_base > 1:  # no NTK line there (tests/test_charts_configs.py): another α
                    alpha, i = 1.0, ALPHA_STOPS.index(1.0)
                    new_base = posenc.ntk_alpha_to_base(alpha, at_d, base=at_b)
                sets = [
                    ("ntk_alpha_ntk_alpha", i),
                    ("head_dim_head_dim", at_d),
                    ("base_base", BASE_OPTIONS.index(at_b)),
                ]
                items = set_sliders_and_read(tab, sets)
                at_theta = posenc.inverse_frequencies(at_d, base=at_b)
                want = charts.wavelength_frame(at_theta, posenc.inverse_frequencies(at_d, base=new_base), alpha)
                moved = (at_d, at_b) != (d, base)
                points = [datum for kind, _, datum, _ in items if kind == "line"]
                for scheme in charts.COLORS:
                    got = np.array(
                        [p["wavelength"] for p in sorted(points, key=lambda p: p["j"]) if p["scheme"] == scheme]
                    )
                    expect = want[want.scheme == scheme].sort_values("j")["wavelength"].to_numpy()
                    assert got.shape == expect.shape, (at_d, at_b, alpha, scheme)
                    if scheme == "NTK-aware (new base)" or moved:  # JavaScript's pow
                        ulps = np.abs(got - expect) / np.spacing(expect)
                        assert ulps.max() <= 8, (at_d, at_b, alpha, ulps.max())
                        exact += int((ulps == 0).sum())
                        near += int((ulps > 0).sum())
                    else:
                        assert got.tolist() == expect.tolist(), (at_d, at_b, alpha, scheme)
            assert tried == []
        finally:
            tab.context.close()
    print(
        f"wavelengths read from the view (NTK's, or at another d or b): {exact} equal to posenc's, {near} a few ulps apart"
    )
