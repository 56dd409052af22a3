"""Issue #36 on the Compare methods page: the trained length L and the test length T (over their stops,
explorer.vocabulary.TARGET_STOPS) and the ALiBi head h are the score chart's own sliders
(explorer.charts.compare). In Chromium:

* in the app, a key press on T (and on L) redraws the chart (on its canvas) while no script runs; the value then
  reaches the server once, and the link, the box and the table follow while the chart is kept; L dragged past T
  takes T to the first stop above it on the page;
* in the chart's own HTML file (offline, as "Save this chart" writes it), at random (L, T, h) set through
  its sliders, every point of every curve, read from the Vega view, is posenc.attention.method_checks's score
  at that (L, T) and head h's slope, bit for bit, and the line through the points passes through every score
  posenc gives (NoPE's flat line and ALiBi's straight one are drawn from their ends); the rule and its label
  stand at L, and ALiBi's panel names h's slope."""

from __future__ import annotations

import _browser_fixtures
import numpy as np
from _chartspec import assert_draws_curve
from e2e_support import (
    chart_canvas_js,
    no_run_before_the_change,
    open_app_page,
    press_and_time,
    reruns_sent,
    wait_idle,
)
from test_e2e_chartfile import open_offline
from test_e2e_clocks_live import set_sliders_and_read, url_value
from test_e2e_drag import COUNT_RUNS_JS

from explorer.charts import compare as charts
from explorer.compute import compare as compute
from explorer.text.compare import METHOD_LABELS
from explorer.vocabulary import TARGET_STOPS
from posenc import attention as att

chromium, server = _browser_fixtures.chromium, _browser_fixtures.server  # module fixtures, shared

TITLE = "Compare methods"
CHART = '[class*="st-key-cmp_live_"]'
CANVAS_JS = chart_canvas_js(CHART)  # the chart draws on a canvas (explorer.charts.compare)


#: [the x of each panel's rule at L (a rule drawn from its own row, not an axis's), the x scale at L].
RULES_JS = """([L, xScale]) => { const view = window.posencView; const out = [];
  const walk = (node) => { if (!node) return;
    if (node.items) for (const it of node.items) {
      if (node.marktype === 'rule' && it.datum && it.datum.at === 'L') out.push(it.x);
      walk(it); } };
  walk(view.scenegraph().root); return [out, view.scale(xScale)(L)]; }"""


#: {method: [[n, x, y] of each point its panel's curve draws]}: the line items inside each method's panel (a group
#: named `charts.panel_name(method)` + "_group", Vega-Lite's naming).
POINTS_JS = """(prefix) => { const out = {};
  const walk = (node, method) => { if (!node) return;
    if (node.items) for (const it of node.items) {
      let m = method;
      if (node.marktype === 'group' && node.name && node.name.startsWith(prefix) && node.name.endsWith('_group'))
        m = node.name.slice(prefix.length, -'_group'.length);
      if (node.marktype === 'line' && m) (out[m] = out[m] || []).push([it.datum.distance, it.x, it.y]);
      walk(it, m); } };
  walk(window.posencView.scenegraph().root, null); return out; }"""
#: [[[x, y]] where a panel's own x and y scales (Vega-Lite's names: the panel's name + "_x", "_y") put each (n, score),
#: the y scale's domain].
PLACES_JS = """([panel, ns, scores]) => { const view = window.posencView;
  const x = view.scale(panel + '_x'), y = view.scale(panel + '_y');
  return [ns.map((n, i) => [x(n), y(scores[i])]), y.domain()]; }"""


def open_page(chromium, server, query: str):
    return open_app_page(chromium, server, "Compare_methods", TITLE, query)


def press(page, chart, name: str, key: str = "ArrowRight") -> tuple[float | None, int]:
    """Focus the chart's slider `name` and press `key`: (ms until the chart changed, script runs by then)."""
    page.wait_for_timeout(400)  # a report still under way (its 150 ms debounce) is not this press's run
    wait_idle(page, title=TITLE)
    return press_and_time(page, chart.locator(f'input[name="{name}"]'), CANVAS_JS, key)


def test_a_press_on_l_or_t_redraws_the_chart_with_no_script_run_and_the_page_follows(chromium, server):
    page = open_page(chromium, server, "?train_len=128&target_len=512")
    try:
        chart = page.locator(f"{CHART} [data-testid=stVegaLiteChart]").first
        chart.evaluate("(c) => { c.querySelector('canvas').__kept = true; }")
        page.evaluate(COUNT_RUNS_JS)
        assert chart.locator('input[name="target_len_target_len"]').input_value() == str(TARGET_STOPS.index(512))
        for name, key, want in (
            ("target_len_target_len", "target_len", "768"),
            ("train_len_train_len", "train_len", "192"),
            ("alibi_head_alibi_head", "alibi_head", "5"),
            ("base_base", "base", "50000"),  # one option right of 10,000
        ):
            took, runs = press(page, chart, name)
            assert took is not None, f"{key}: the chart did not change"
            # a run that started within 150 ms of the press is not this press's (Streamlit reports a chart's
            # selection 150 ms after its last change): under load a late run of the last step can land here
            assert no_run_before_the_change(took, runs), f"{key}: a script ran before the chart changed ({took:.0f} ms)"
            page.wait_for_function(f"() => new URLSearchParams(location.search).get('{key}') === '{want}'")
            wait_idle(page, title=TITLE)
            assert reruns_sent(page) == 1, f"{key}: not one run for one press"
            if key in ("train_len", "target_len"):  # h has no box, and b's is a select slider
                assert page.locator(f".st-key-{key} input").input_value() == want
        assert chart.evaluate("(c) => c.querySelector('canvas').__kept === true"), "the chart was rebuilt"
        # the table and its settings caption follow: L = 192, T = 768
        assert page.get_by_text("L = 192, T = 768", exact=False).count() == 1
        assert page.get_by_text("ALiBi slope 0.03125 (head 5 of 8)", exact=False).count() == 1
        assert page.get_by_text("base 50,000", exact=False).count() >= 1, "the settings caption did not follow b"
        # (what the chart writes at these settings is read from its Vega view in the offline test below)
        # the value beside each slider is the length, not its index
        assert chart.locator(".vega-bind").filter(has_text="test length T").inner_text().strip().endswith("768")
    finally:
        page.close()


def test_l_dragged_past_t_takes_t_to_the_next_stop(chromium, server):
    page = open_page(chromium, server, "?train_len=128&target_len=192")
    try:
        chart = page.locator(f"{CHART} [data-testid=stVegaLiteChart]").first
        page.evaluate(COUNT_RUNS_JS)
        took, runs = press(page, chart, "train_len_train_len")  # 128 → 192 = T: the chart draws T = 256 (offline test)
        assert took is not None and no_run_before_the_change(took, runs)
        page.wait_for_function("() => new URLSearchParams(location.search).get('target_len') === '256'")
        wait_idle(page, title=TITLE)
        assert url_value(page, "train_len") == "192"
        assert page.locator(".st-key-target_len input").input_value() == "256"
        assert page.get_by_text("L = 192, T = 256", exact=False).count() == 1
        assert not page.locator("[data-testid=stAlert]").count()
    finally:
        page.close()


def test_the_values_in_the_vega_view_are_posencs_at_random_settings(chromium, tmp_path):
    from explorer import chartfile, compat
    from explorer.render import stable_dataset_names

    rng = np.random.default_rng(36)
    checked = 0
    for dim, seed, base, head in ((64, 0, 10000.0, 4), (8, 3, 100.0, 1), (256, 4242, 500000.0, 8)):
        windows = compute.slider_windows(128, 512)
        top = compute.chart_lengths(128, 512, windows)
        chart = charts.score_by_distance(
            charts.score_table(compute.curve_checks(dim, top[0], top[1], seed), compute.BASES),
            train_len=128,
            test_len=512,
            slopes=compute.SLOPES,
            head=head,
            l_window=windows[0],
            t_window=windows[1],
            bases=compute.BASES,
            base=base,
        )
        path = tmp_path / f"compare_{dim}.html"
        path.write_text(chartfile.html_file(stable_dataset_names(compat.vega_lite_spec(chart)), title="t", footer="f"))
        tab, tried = open_offline(chromium, path)
        try:
            (l_lo, l_hi), (t_lo, t_hi) = ((TARGET_STOPS.index(a), TARGET_STOPS.index(b)) for a, b in windows)
            for _ in range(8):
                li, ti, h = (
                    int(rng.integers(l_lo, l_hi + 1)),
                    int(rng.integers(t_lo, t_hi + 1)),
                    int(rng.integers(1, 9)),
                )
                bi = int(rng.integers(0, len(compute.BASES)))
                sets = [["train_len_train_len", li], ["target_len_target_len", ti], ["alibi_head_alibi_head", h]]
                items = set_sliders_and_read(tab, [*sets, ["base_base", bi]])
                L, T = TARGET_STOPS[li], TARGET_STOPS[max(ti, li + 1)]  # T follows L up
                slope = 2.0**-h  # Press et al.'s slopes for 8 heads
                points = tab.evaluate(POINTS_JS, charts.PANEL_PREFIX)
                assert sorted(points) == sorted(att.METHODS)
                for method in att.METHODS:
                    want = att.method_checks(
                        method, dim=dim, trained_len=L, test_len=T, seed=seed, base=compute.BASES[bi], alibi_slope=slope
                    )
                    got = sorted(points[method])  # (n, x, y) of every point drawn
                    distances = [g[0] for g in got]
                    at = np.searchsorted(want["distances"], distances)
                    assert np.array_equal(np.asarray(want["distances"])[at], distances), (method, L, T)
                    scores = [float(want["scores"][k]) for k in at]
                    # each point stands where the panel's own scales put n and posenc's score at n, to the bit
                    xy, (lo, hi) = tab.evaluate(PLACES_JS, [charts.panel_name(method), distances, scores])
                    assert [[g[1], g[2]] for g in got] == xy, (method, L, T)
                    # the panel's y axis spans every score posenc gives and 0 (Vega made it nice: a little wider)
                    least, most = min(0.0, float(np.min(want["scores"]))), max(0.0, float(np.max(want["scores"])))
                    assert lo <= least and most <= hi and hi - lo <= 2 * (most - least) + 1e-9, (method, L, T)
                    assert_draws_curve(distances, scores, want["distances"], want["scores"], (method, L, T))
                    if method not in ("nope", "alibi"):  # NoPE's flat line and ALiBi's straight one: from their ends
                        assert distances == want["distances"].tolist(), (method, L, T)
                # each panel's rule, where the x scale (the panels share its domain and width) puts L
                rules, at_l = tab.evaluate(RULES_JS, [L, charts.panel_name("nope") + "_x"])
                assert rules == [at_l] * len(METHOD_LABELS)
                labels = [t for kind, _, d, t in items if kind == "text" and d.get("at") == "L"]
                assert labels == [f"trained length L = {L:,}"] * 5
                # the panels' names (group titles: no datum), in the panels' order, then the chart's title
                names = [t for kind, _, d, t in items if kind == "text" and not d and t != "score s"][
                    : len(METHOD_LABELS)
                ]
                alibi_name = ["ALiBi", f"head {h}: slope 1/{2**h} = {slope:g}"]
                assert names == [alibi_name if lbl == "ALiBi" else lbl for lbl in METHOD_LABELS.values()]
                checked += 1
            assert tried == []
        finally:
            tab.context.close()
    assert checked == 24


def test_a_mouse_drag_of_t_ends_in_the_link_the_box_and_the_table(chromium, server):
    """A hand's drag over T's slider (40 small moves): when it ends, the T the slider shows is the page's T: in
    the link, the box and the settings caption under the table; the chart is kept."""
    page = open_page(chromium, server, "?train_len=128&target_len=256")
    try:
        chart = page.locator(f"{CHART} [data-testid=stVegaLiteChart]").first
        chart.evaluate("(c) => { c.querySelector('canvas').__kept = true; }")
        slider = chart.locator('input[name="target_len_target_len"]')
        slider.scroll_into_view_if_needed()
        # the page narrows T's slider to the stops above L = 128 (explorer.liveparam.ranges_html): 192 …
        assert slider.get_attribute("min") == str(TARGET_STOPS.index(192))
        box = slider.bounding_box()
        y = box["y"] + box["height"] / 2
        page.mouse.move(box["x"] + 4, y)
        page.mouse.down()
        for i in range(1, 41):
            page.mouse.move(box["x"] + box["width"] * (0.1 + 0.6 * i / 40), y)
            page.wait_for_timeout(25)
        page.mouse.up()
        page.wait_for_timeout(600)
        wait_idle(page, title=TITLE)
        t = TARGET_STOPS[int(slider.input_value())]
        assert t > 256, "the drag did not move T"
        page.wait_for_function(f"() => new URLSearchParams(location.search).get('target_len') === '{t}'")
        wait_idle(page, title=TITLE)
        assert page.locator(".st-key-target_len input").input_value() == str(t)
        assert page.get_by_text(f"L = 128, T = {t}", exact=False).count() == 1
        assert chart.evaluate("(c) => c.querySelector('canvas').__kept === true"), "the chart was rebuilt"
    finally:
        page.close()
