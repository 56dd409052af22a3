"""Issue #36 on the Images and video page's Resolution tab: the trained grid's side and the new grid's are the
resolution chart's own sliders (explorer.charts.vision.live_resolution_chart, over their options' indices). In
Chromium:

* in the app, a key press on either slider redraws the chart (on its canvas) while no script runs; the value then
  reaches the server once, and the link and the notes under the chart follow while the chart is kept; the side, not
  its index, is written beside each slider;
* in the chart's own HTML file (offline, as "Save this chart" writes it), at random sides set through its sliders,
  every patch of each heatmap, read from the Vega view, is posenc's axial 2D score of the centre patch
  (explorer.compute.vision.resolution_scores: posenc.axial_rope_angles and posenc.angle_scores) on the trained grid,
  the new one as is and the new one interpolated, and the ticks stand at the positions computed here by hand."""

from __future__ import annotations

import _browser_fixtures
import numpy as np
from e2e_support import chart_canvas_js, no_run_before_the_change, open_app_page, press_and_time, reruns_sent, wait_idle
from test_e2e_chartfile import download, open_offline
from test_e2e_clocks_live import set_sliders_and_read, url_value
from test_e2e_drag import COUNT_RUNS_JS

from explorer.charts import vision as charts
from explorer.compute import vision as compute
from explorer.vocabulary import NEW_GRIDS, TRAINED_GRIDS
from posenc.mrope import VISION_PRESETS

chromium, server = _browser_fixtures.chromium, _browser_fixtures.server  # module fixtures, shared

TITLE = "Images and video"
CHART = '[class*="st-key-vis_res_live_"]'
CANVAS_JS = chart_canvas_js(CHART)  # the chart draws on a canvas


def test_a_press_on_either_side_redraws_the_chart_with_no_script_run_and_the_page_follows(chromium, server):
    page = open_app_page(chromium, server, "Images_and_video", TITLE, "?vis_view=Resolution&vis_train=16&vis_new=32")
    try:
        chart = page.locator(f"{CHART} [data-testid=stVegaLiteChart]").first
        chart.scroll_into_view_if_needed()
        chart.evaluate("(c) => { c.querySelector('canvas').__kept = true; }")
        page.evaluate(COUNT_RUNS_JS)
        assert chart.locator('input[name="vis_new_vis_new"]').input_value() == str(NEW_GRIDS.index(32))
        for name, key, want in (("vis_new_vis_new", "vis_new", "48"), ("vis_train_vis_train", "vis_train", "24")):
            page.wait_for_timeout(400)  # a report still under way (its 150 ms debounce) is not this press's run
            wait_idle(page, title=TITLE)
            took, runs = press_and_time(page, chart.locator(f'input[name="{name}"]'), CANVAS_JS)
            assert took is not None, f"{key}: the chart did not change"
            assert no_run_before_the_change(took, runs), f"{key}: a script ran before the chart changed ({took:.0f} ms)"
            page.wait_for_function(f"() => new URLSearchParams(location.search).get('{key}') === '{want}'")
            wait_idle(page, title=TITLE)
            assert reruns_sent(page) == 1, f"{key}: not one run for one press"
        assert chart.evaluate("(c) => c.querySelector('canvas').__kept === true"), "the chart was rebuilt"
        assert url_value(page, "vis_train") == "24" and url_value(page, "vis_new") == "48"
        # the notes follow: 48² − 24² = 1,728 of 2,304 patches have a row or a column beyond 23
        assert page.get_by_text("1,728 of its 2,304 patches (75%)", exact=False).count() == 1
        assert page.get_by_text("by 24/48 = 0.5", exact=False).count() == 1
        # the side beside each slider, not its index
        for label, side in (("trained grid", "24 × 24"), ("new grid", "48 × 48")):
            assert chart.locator(".vega-bind").filter(has_text=label).inner_text().strip().endswith(side)
    finally:
        page.close()


def test_the_values_in_the_vega_view_are_posencs_at_random_settings(chromium, tmp_path):
    from explorer import chartfile, compat
    from explorer.render import stable_dataset_names

    rng = np.random.default_rng(36)
    checked = 0
    models = (compute.Model.of(VISION_PRESETS["qwen2.5-vl-7b"]), compute.Model.of(None, 32, 500.0))
    for number, m in enumerate(models):
        chart = charts.live_resolution_chart(
            compute.resolution_axis(m),
            trained=TRAINED_GRIDS,
            new=NEW_GRIDS,
            train=16,
            new_side=32,
            domain=(-1.0, 1.0) if number else None,
            description="d",
        )
        path = tmp_path / f"resolution_{number}.html"
        path.write_text(chartfile.html_file(stable_dataset_names(compat.vega_lite_spec(chart)), title="t", footer="f"))
        tab, tried = open_offline(chromium, path)
        try:
            for _ in range(5):
                ti, ni = int(rng.integers(0, len(TRAINED_GRIDS))), int(rng.integers(0, len(NEW_GRIDS)))
                train, new = TRAINED_GRIDS[ti], NEW_GRIDS[ni]
                items = set_sliders_and_read(tab, [["vis_train_vis_train", ti], ["vis_new_vis_new", ni]])
                want = compute.resolution_scores(train, new, m)
                for k, name in enumerate(("trained", "as is", "interpolated")):
                    cells = [d for kind, _, d, _ in items if kind == "rect" and d.get("panel") == k and "s" in d]
                    n = want[name].shape[0]
                    assert len(cells) == n * n, (name, train, new)
                    got = np.full((n, n), np.nan)
                    for d in cells:
                        got[int(d["r"]), int(d["c"])] = d["s"]
                    np.testing.assert_allclose(got, want[name], rtol=0, atol=1e-12, err_msg=f"{name} {train} {new}")
                ticks = [d for kind, _, d, _ in items if kind == "rect" and "position" in d and "g" in d]
                for g, n, scale in ((0, train, 1.0), (1, new, 1.0), (2, new, train / new)):
                    drawn = sorted(float(d["position"]) for d in ticks if d["g"] == g)
                    assert drawn == [i * scale for i in range(n)], (g, train, new)  # by hand: patch i's position
                texts = [t for kind, _, _, t in items if kind == "text" and t]
                assert f"{new} × {new}, interpolated" in str(texts), texts
                checked += 1
            assert tried == []
        finally:
            tab.context.close()
    assert checked == 10


def test_the_apps_save_button_gives_the_resolution_chart_as_a_file_with_its_two_sliders(chromium, server, tmp_path):
    """ "Save this chart" under the resolution chart: an HTML file that opens from disk with every request refused,
    carries both sliders (the file hides the index beside a slider over options: the chart's titles name the sides)
    and redraws when one moves."""
    saved = download(
        chromium, server, "vision", "Interactive HTML", tmp_path, "vision_resolution", "?vis_view=Resolution&vis_new=48"
    )
    assert saved.name == "posenc_vision_resolution.html"
    tab, tried = open_offline(chromium, saved)
    try:
        assert tab.evaluate("() => window.posencError || null") is None
        names = [t.strip() for t in tab.locator(".vega-bind-name").all_inner_texts()]
        assert names == ["trained grid", "new grid"]

        def texts(items) -> str:
            return " | ".join(str(t) for kind, _, _, t in items if kind == "text" and t)

        items = set_sliders_and_read(tab, [])
        assert "Trained, 16 × 16" in texts(items) and "48 × 48, as is" in texts(items)
        items = set_sliders_and_read(tab, [["vis_new_vis_new", NEW_GRIDS.index(64)]])
        assert sum(1 for kind, _, d, _ in items if kind == "rect" and d.get("panel") == 1 and "s" in d) == 64 * 64
        assert "64 × 64, as is" in texts(items) and "positions × 16/64" in texts(items)
        assert tried == []
    finally:
        tab.context.close()
