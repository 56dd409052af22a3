"""Issue #36 on the home page: the vector size d is the head chart's own slider (explorer.charts.home,
`experiment_chart`: the chart carries every d). In Chromium:

* in the app, a key press on d redraws the chart while no script runs (the run comes after, when Streamlit
  reports the value), a mouse drag costs no more runs than it has pauses, and when it ends the link, the
  metrics and the caption follow while the chart is kept;
* in the chart's own HTML file (offline, as "Save this chart" writes it), at random d set through its own
  slider, every dot and every cell read from the Vega view is posenc's (`posenc.attention.shuffle_experiment`)
  at that d, for every position signal."""

from __future__ import annotations

import _browser_fixtures
import numpy as np
import pytest
from e2e_support import chart_svg_js, open_app_page, press_once, wait_idle
from test_e2e_chartfile import open_offline
from test_e2e_drag import COUNT_RUNS_JS, assert_runs_within_pauses, hold_and_drag

from explorer.text import home as text
from posenc import attention as att

chromium, server = _browser_fixtures.chromium, _browser_fixtures.server  # module fixtures, shared

TITLE = "Why position matters"
WORDS = ["the", "cat", "sat", "on", "the", "mat"]
CHART = ".st-key-home_live_0"
CHART_SVG_JS = chart_svg_js(CHART)

#: Every item of the Vega view's marks that carries a datum: [its view's mark name, marktype, datum].
ITEMS_JS = """(view) => { const out = [];
  const walk = (node) => { if (!node) return;
    if (node.items) for (const it of node.items) {
      if (it.datum && node.marktype) out.push([node.name || '', node.marktype, it.datum]);
      walk(it); } };
  walk(view.scenegraph().root); return out; }"""


def metrics(page) -> list[str]:
    return page.locator("[data-testid=stMetricValue]").all_inner_texts()


def test_a_press_on_d_redraws_the_chart_with_no_script_run_and_the_page_follows(chromium, server):
    """d's slider, focused and pressed (→): the chart looks different within the first frames while no script has
    run; then the value reaches the server once, and the link, the two metrics and the caption say d = 18, with
    posenc's gaps at d = 18; the chart in the browser is the same one (not rebuilt)."""
    page = open_app_page(chromium, server, "", TITLE, "?home_pe=rope")
    try:
        chart = page.locator(f"{CHART} [data-testid=stVegaLiteChart]").first
        chart.evaluate("(c) => { c.querySelector('svg').__kept = true; }")
        page.evaluate(COUNT_RUNS_JS)
        press_once(
            page, chart.locator('input[name="d_model_d_model"]'), CHART_SVG_JS, key="d_model", want="18", title=TITLE
        )
        assert chart.evaluate("(c) => c.querySelector('svg').__kept === true"), "the head chart was rebuilt"
        run = att.shuffle_experiment(WORDS, 18, seed=0, shuffle_seed=0, pe="rope")
        assert metrics(page) == [text.fmt_gap(run["output_gap"]), text.fmt_gap(run["weight_gap"])]
        assert page.get_by_text("One head, d = 18,", exact=False).count() == 1
    finally:
        page.close()


def test_a_drag_of_d_moves_the_chart_in_the_browser_and_the_link_follows_on_release(chromium, server):
    page = open_app_page(chromium, server, "", TITLE, "?home_pe=sinusoidal")
    try:
        chart = page.locator(f"{CHART} [data-testid=stVegaLiteChart]").first
        chart.evaluate("(c) => { c.querySelector('svg').__kept = true; }")
        d_in = chart.locator('input[name="d_model_d_model"]')
        before = page.evaluate(CHART_SVG_JS)
        # grab the thumb where it stands (d = 16 of 2 … 64) and move it right over half the track
        during, pauses = hold_and_drag(page, d_in, 30, at=(16 - 2) / (64 - 2), share=0.5)
        moved = int(d_in.input_value())
        mid_drag = page.evaluate(CHART_SVG_JS)
        page.mouse.up()
        assert moved >= 40 and mid_drag != before, moved
        assert_runs_within_pauses(during, pauses)
        page.wait_for_function(f"() => new URLSearchParams(location.search).get('d_model') === '{moved}'")
        wait_idle(page, title=TITLE)
        assert chart.evaluate("(c) => c.querySelector('svg').__kept === true"), "the head chart was rebuilt"
        run = att.shuffle_experiment(WORDS, moved, seed=0, shuffle_seed=0, pe="sinusoidal")
        assert metrics(page) == [text.fmt_gap(run["output_gap"]), text.fmt_gap(run["weight_gap"])]
    finally:
        page.close()


@pytest.mark.parametrize("pe", ["none", "sinusoidal", "learned", "rope"])
def test_the_numbers_in_the_vega_view_are_posencs_at_random_d(chromium, tmp_path, pe):
    """The chart's HTML file (offline): at 8 random d set through its own slider, the scatter's dots are posenc's
    outputs (P·Y(X) against Y(PX)) and each heatmap's cells its A(X), A(PX) and P·A(X)·Pᵀ at that d, bit for bit
    (the browser only filters numbers computed on the server); the legend's top label is that d's largest weight."""
    from explorer import chartfile, compat
    from explorer.charts import home as charts
    from explorer.compute import home as compute
    from explorer.render import stable_dataset_names

    words, seed, shuffle_seed = ("a", "dog", "bit", "the", "man", "a", "bone"), 11, 5
    every = compute.every_dim(words, seed, shuffle_seed, pe)
    chart = charts.experiment_chart(every, pe=pe, start=16, dims=compute.dim_range())
    path = tmp_path / "home.html"
    path.write_text(chartfile.html_file(stable_dataset_names(compat.vega_lite_spec(chart)), title="t", footer="f"))
    tab, tried = open_offline(chromium, path)
    rng = np.random.default_rng(36)
    try:
        for d in [2, 64, *(2 * int(k) for k in rng.integers(2, 32, size=6))]:
            items = tab.evaluate(
                """([d, itemsJs]) => { const el = document.querySelector('input[name="d_model_d_model"]');
                   el.value = d; el.dispatchEvent(new Event('input', {bubbles: true}));
                   return window.posencView.runAsync().then((view) => (eval(itemsJs))(view)); }""",
                [d, ITEMS_JS],
            )
            run = att.shuffle_experiment(list(words), d, seed=seed, shuffle_seed=shuffle_seed, pe=pe)
            dots = [datum for _, kind, datum in items if kind == "symbol" and "actual" in datum]
            assert {datum["d"] for datum in dots} == {d}
            got = sorted((p["expected"], p["actual"]) for p in dots)
            want = sorted(zip(run["outputs_expected"].ravel(), run["outputs_shuffled"].ravel(), strict=True))
            assert got == [(float(e), float(a)) for e, a in want], d
            moved = [f"{k} {w}" for k, w in enumerate(run["shuffled"])]
            labels = {0: [f"{k} {w}" for k, w in enumerate(words)], 1: moved, 2: moved}  # the cells' words, by heatmap
            for i, which in enumerate(("original", "shuffled", "expected")):
                cells = [
                    datum
                    for name, kind, datum in items
                    if kind == "rect" and "weight" in datum and name.startswith(f"concat_1_concat_{i}_")
                ]
                grid = np.full(run["weights_original"].shape, np.nan)
                for c in cells:
                    assert c["d"] == d and (c["query"], c["key"]) == (labels[i][c["row"]], labels[i][c["col"]])
                    grid[c["row"], c["col"]] = c["weight"]
                assert np.array_equal(grid, run[f"weights_{which}"]), (d, which)
            top = max(float(run["weights_original"].max()), float(run["weights_shuffled"].max()))
            labels = tab.evaluate(
                "() => [...document.querySelectorAll('.role-legend-label text')].map((t) => t.textContent)"
            )
            assert labels == [f"{v:.2f}" for v in (0.0, top / 2, top)], d
        assert tried == []
    finally:
        tab.context.close()
