"""Issue #36 on the Context extension page: the main chart's own sliders are the scaling factor s and the
target length T (over its stops, explorer.vocabulary.TARGET_STOPS). In Chromium:

* in the app, a key press on T redraws the chart while no script runs; the value then reaches the server
  once, and the link, the box and the caption follow while the chart is kept;
* in the chart's own HTML file (offline, as "Save this chart" writes it), at random (method, s, T) set
  through its sliders, the angles, the ringed pairs and the read-out, read from the Vega view, are
  posenc's (T·θ'_j and posenc.out_of_distribution_pairs, bit for bit)."""

from __future__ import annotations

import _browser_fixtures
import numpy as np
from e2e_support import (
    chart_svg_js,
    no_run_before_the_change,
    open_app_page,
    press_and_time,
    press_once,
    reruns_sent,
    wait_idle,
)
from test_e2e_chartfile import open_offline
from test_e2e_clocks_live import set_sliders_and_read, url_value
from test_e2e_drag import COUNT_RUNS_JS

from explorer import ropeblock, widgets
from explorer.charts import extension as charts
from explorer.text.extension import KNOB_NAMES
from explorer.vocabulary import TARGET_STOPS

chromium, server = _browser_fixtures.chromium, _browser_fixtures.server  # module fixtures, shared

TITLE = "Context extension"
SVG_JS = chart_svg_js('[class*="st-key-ext_live_"]')


def open_page(chromium, server, query: str):
    return open_app_page(chromium, server, "Context_extension", TITLE, query)


def test_a_press_on_t_redraws_the_chart_with_no_script_run_and_the_page_follows(chromium, server):
    page = open_page(chromium, server, "?rope_type=linear&factor=8&train_len=4096&target_len=16384")
    try:
        chart = page.locator('[class*="st-key-ext_live_"] [data-testid=stVegaLiteChart]').first
        chart.evaluate("(c) => { c.querySelector('svg').__kept = true; }")
        page.evaluate(COUNT_RUNS_JS)
        slider = chart.locator('input[name="target_len_target_len"]')
        assert slider.input_value() == str(TARGET_STOPS.index(16384))
        took, runs = press_and_time(page, slider, SVG_JS)  # 16,384 → 24,576
        assert took is not None, "the chart did not change"
        assert no_run_before_the_change(took, runs), f"a script ran before the chart changed ({took:.0f} ms)"
        texts = chart.locator("svg text").all_text_contents()
        assert any(t.startswith("L = 4,096 · T = 24,576 · s = 8") for t in texts), texts
        page.wait_for_function("() => new URLSearchParams(location.search).get('target_len') === '24576'")
        wait_idle(page, title=TITLE)
        assert reruns_sent(page) == 1, "not one run for one press"
        assert chart.evaluate("(c) => c.querySelector('svg').__kept === true"), "the chart was rebuilt"
        box = page.locator(".st-key-target_len input")
        assert box.input_value() == "24576"
        assert url_value(page, "factor") == "8"
        # the value beside the slider is T, not its index
        assert chart.locator(".vega-bind").filter(has_text="target length T").inner_text().strip().endswith("24,576")
    finally:
        page.close()


def test_a_press_on_l_redraws_the_chart_with_no_script_run_and_the_page_follows(chromium, server):
    """Without scaling, L is the chart's own slider too: a press moves the training curve and the read-out in the
    browser, then the box, the link and the metrics follow (the chart is rebuilt then: T's window follows L)."""
    page = open_page(chromium, server, "?rope_type=default&train_len=4096&target_len=16384")
    try:
        chart = page.locator('[class*="st-key-ext_live_"] [data-testid=stVegaLiteChart]').first
        page.evaluate(COUNT_RUNS_JS)
        slider = chart.locator('input[name="train_len_train_len"]')
        assert slider.input_value() == str(TARGET_STOPS.index(4096))
        took, runs = press_and_time(page, slider, SVG_JS)  # 4,096 → 6,144
        assert took is not None, "the chart did not change"
        assert no_run_before_the_change(took, runs), f"a script ran before the chart changed ({took:.0f} ms)"
        texts = chart.locator("svg text").all_text_contents()
        assert any(t.startswith("L = 6,144 · T = 16,384") for t in texts), texts
        page.wait_for_function("() => new URLSearchParams(location.search).get('train_len') === '6144'")
        wait_idle(page, title=TITLE)
        assert page.locator(".st-key-train_len input").input_value() == "6144"
        n_slow = sum(2 * np.pi / t > 6144 for t in 10000.0 ** (-np.arange(0, 64, 2) / 64))
        metric = page.locator("[data-testid=stMetric]").filter(has_text="Pairs out of distribution")
        assert metric.locator("[data-testid=stMetricValue]").inner_text().strip() == f"{n_slow} of 32"
    finally:
        page.close()


def test_a_press_on_yarns_beta_redraws_the_chart_with_no_script_run_and_the_page_follows(chromium, server):
    """YaRN's θ′ are the browser's own (charts.extension.yarn_theta): a press on β_slow moves the target curve before any
    script runs, then the value reaches the server once and the box and the link follow; the chart is kept."""
    page = open_page(chromium, server, "?rope_type=yarn&factor=8&train_len=4096&target_len=16384")
    try:
        chart = page.locator('[class*="st-key-ext_live_"] [data-testid=stVegaLiteChart]').first
        chart.evaluate("(c) => { c.querySelector('svg').__kept = true; }")
        page.evaluate(COUNT_RUNS_JS)
        for key, want in (("beta_slow", "1.25"), ("beta_fast", "32.5")):  # one step right of 1 and 32
            page.wait_for_timeout(400)  # a report still under way is not this press's run
            wait_idle(page, title=TITLE)
            # β_fast's step moves no pair across its ramp end here: the read-out alone changes (SVG_JS reads the marks)
            slider = chart.locator(f'input[name="{key}_{key}"]')
            press_once(page, slider, SVG_JS, key=key, want=want, title=TITLE, changes=key == "beta_slow")
            assert float(page.locator(f".st-key-{key} input").input_value()) == float(want)
        texts = chart.locator("svg text").all_text_contents()
        assert any("β_fast = 32.5 · β_slow = 1.25" in t for t in texts), texts
        assert chart.evaluate("(c) => c.querySelector('svg').__kept === true"), "the chart was rebuilt"
        assert not page.locator("[data-testid=stAlert]").count()
    finally:
        page.close()


def test_a_press_on_d_or_b_redraws_the_chart_with_no_script_run_and_the_page_follows(chromium, server):
    """The head dimension d and the base b are the chart's own sliders (the browser computes θ_j = b^(−2j/d)): a press
    on each moves the curves before any script runs, then the value reaches the server once, the link and the metrics
    follow, and the chart is kept; its read-out says d, b and the count over d/2 pairs."""
    page = open_page(chromium, server, "?rope_type=linear&factor=8&train_len=4096&target_len=16384")
    try:
        chart = page.locator('[class*="st-key-ext_live_"] [data-testid=stVegaLiteChart]').first
        chart.evaluate("(c) => { c.querySelector('svg').__kept = true; }")
        page.evaluate(COUNT_RUNS_JS)
        for key, want in (("head_dim", "66"), ("base", "50000")):  # one step right of 64 and 10,000
            page.wait_for_timeout(400)  # a report still under way is not this press's run
            wait_idle(page, title=TITLE)
            slider = chart.locator(f'input[name="{key}_{key}"]')
            press_once(page, slider, SVG_JS, key=key, want=want, title=TITLE)
        texts = chart.locator("svg text").all_text_contents()
        assert any("d = 66 · b = 50,000" in t for t in texts), texts
        assert any(t.endswith(" of 33 pairs meet unseen angles") or "no pair" in t for t in texts), texts
        assert chart.evaluate("(c) => c.querySelector('svg').__kept === true"), "the chart was rebuilt"
        metric = page.locator("[data-testid=stMetric]").filter(has_text="Pairs out of distribution")
        assert metric.locator("[data-testid=stMetricValue]").inner_text().strip().endswith(" of 33")  # d = 66
        # the value beside b's slider is b, not its index
        assert chart.locator(".vega-bind").filter(has_text="base b").inner_text().strip().endswith("50,000")
        assert not page.locator("[data-testid=stAlert]").count()
    finally:
        page.close()


def test_the_values_in_the_vega_view_are_posencs_at_random_settings(chromium, tmp_path):
    """The main chart as the page builds it (explorer.compute.extension.live_plan), written as its offline file: at
    random settings of its sliders (YaRN's β too, its θ′ computed by the browser, with and without truncation; the
    head dimension d and the base b, θ_j = b^(−2j/d) computed by the browser then), every drawn angle, ring and
    read-out is posenc's at those settings: bit for bit at the page's d and b, but static and dynamic NTK's target
    angles (two pows in the browser) within 8 ulps; at another d or b (JavaScript's pow against numpy's) within 8 ulps
    and the rings and counts exactly."""
    from explorer import chartfile, compat
    from explorer.compute import extension as compute
    from explorer.render import stable_dataset_names

    rng = np.random.default_rng(36)
    checked = apart = 0
    cases = (
        ("yarn", 64, 4096, True),
        ("yarn", 128, 8192, False),
        ("llama3", 128, 8192, True),
        ("default", 96, 2048, True),
        ("linear", 64, 4096, True),
        ("ntk", 128, 8192, True),
        ("proportional", 64, 4096, True),
        ("dynamic", 64, 4096, True),
        ("longrope", 64, 4096, True),
    )
    for rope_type, head_dim, train_len, truncate in cases:
        values = {k: widgets.get(k).default for k in ropeblock.METHOD_PARAMS.get(rope_type, ())}  # factor 4
        values.update({"truncate": truncate} if rope_type == "yarn" else {})
        block = ropeblock.build_rope_block(rope_type, values, base=10000, train_len=train_len, head_dim=head_dim)
        target_len = 4 * train_len
        ext = ropeblock.extension_data(block, head_dim, train_len=train_len, target_len=target_len)
        kinds = {key: values[gen] for key, gen in ropeblock.LIST_GENERATORS.items() if gen in values}  # as the page
        plan = compute.live_plan(ext, head_dim, kinds)
        assert plan.l_window is not None  # θ' do not depend on L, or the browser computes them
        assert plan.browser_block is not None and plan.shape == ("head_dim", "base")  # every method, d and b
        betas = [k for k in charts.KNOB_KEYS if k in plan.keys]
        assert betas == list(charts.KNOBS.get(rope_type, ()))
        chart = charts.angle_reach_live_chart(
            ext.inv_freq,
            factors=plan.factors,
            start=4.0 if plan.factors is not None else None,
            t_window=plan.t_window,
            l_window=plan.l_window,
            train_len=train_len,
            target_len=target_len,
            browser_block=plan.browser_block,
            knob_starts={k: block[k] for k in betas},
            columns=plan.columns,
            list_kinds=plan.list_kinds,
            shape_starts={"head_dim": head_dim, "base": 10000.0},
        )
        assert (plan.list_kinds is not None) == (rope_type == "longrope")  # its lists made from s, in the browser too
        path = tmp_path / f"{rope_type}{head_dim}.html"
        path.write_text(chartfile.html_file(stable_dataset_names(compat.vega_lite_spec(chart)), title="t", footer="f"))
        tab, tried = open_offline(chromium, path)
        try:
            lo, hi = TARGET_STOPS.index(plan.t_window[0]), TARGET_STOPS.index(plan.t_window[1])
            d_lo, d_hi, _ = ropeblock.head_dim_range(rope_type)
            for i in range(12):
                t_index = int(rng.integers(lo, hi + 1))
                sets = [["target_len_target_len", t_index]]
                at = dict(block)
                # the page's d and b every third setting (posenc's θ_j), else anywhere their sliders reach
                d = head_dim if i % 3 == 0 else int(rng.integers(d_lo // 2, d_hi // 2 + 1)) * 2
                b = (
                    10000.0
                    if i % 3 == 0
                    else float(charts.BASE_OPTIONS[int(rng.integers(0, len(charts.BASE_OPTIONS)))])
                )
                sets += [["head_dim_head_dim", d], ["base_base", charts.BASE_OPTIONS.index(b)]]
                at["rope_theta"] = b
                if plan.factors is not None:
                    at["factor"] = float(plan.factors[int(rng.integers(0, len(plan.factors)))])
                    sets.append(["factor_factor", at["factor"]])
                for key in betas:
                    grid = compute.grid_of(key)
                    at[key] = float(grid[int(rng.integers(0, len(grid)))])
                    sets.append([f"{key}_{key}", at[key]])
                L = train_len
                if plan.l_window is not None:
                    first, last = (TARGET_STOPS.index(x) for x in plan.l_window)
                    L = TARGET_STOPS[int(rng.integers(first, last + 1))]
                    sets.append(["train_len_train_len", TARGET_STOPS.index(L)])
                    at.update({"original_max_position_embeddings": L} if rope_type != "default" else {})
                if plan.list_kinds:  # the lists the page would make at this s
                    at.update(
                        {
                            k: ropeblock.longrope_factors(values[g], d // 2, at["factor"])
                            for k, g in ropeblock.LIST_GENERATORS.items()
                        }
                    )
                items = set_sliders_and_read(tab, sets)
                T = TARGET_STOPS[t_index]
                want = ropeblock.extension_data(at, d, train_len=L, target_len=T)
                assert want.error is None
                where = (rope_type, d, b, L, T, {k: at.get(k) for k in ("factor", *betas)})
                moved = (d, b) != (head_dim, 10000.0)
                trained = sorted(
                    (d for kind, _, d, _ in items if kind == "line" and "theta" in d and "inv" not in d),
                    key=lambda d: d["pair"],
                )
                assert [r["pair"] for r in trained] == list(range(d // 2)), where
                if moved:  # θ_j from JavaScript's pow
                    t_drawn = np.array([r["value"] for r in trained])
                    assert (np.abs(t_drawn - want.train_angle) / np.spacing(want.train_angle)).max() <= 8, where
                else:
                    assert [r["value"] for r in trained] == want.train_angle.tolist(), where
                line = sorted((r for kind, _, r, _ in items if kind == "line" and "inv" in r), key=lambda r: r["pair"])
                assert [r["pair"] for r in line] == np.flatnonzero(want.target_angle > 0).tolist()
                drawn, expect = np.array([r["value"] for r in line]), want.target_angle[want.target_angle > 0]
                if moved or rope_type in ("ntk", "dynamic"):  # JavaScript's pow and the C library's may round the
                    ulps = np.abs(drawn - expect) / np.spacing(expect)  # last bit apart (twice for NTK's b′)
                    assert ulps.max() <= 8, (where, ulps.max())
                    apart += int((ulps > 0).sum())
                else:
                    assert drawn.tolist() == expect.tolist(), where
                # each pair out of distribution: the curve's own point and the red ring (the symbols whose datum says so)
                rings = sorted(d["pair"] for kind, _, d, _ in items if kind == "symbol" and d.get("ood") is True)
                assert rings == sorted(2 * np.flatnonzero(want.out_of_distribution).tolist()), where
                n = int(want.out_of_distribution.sum())
                words = f"{n} of {d // 2} pairs meet unseen angles" if n else "no pair meets an unseen angle"
                head = (f"L = {L:,} · " if plan.l_window else "") + f"T = {T:,}"
                head += f" · s = {at['factor']:g}" if plan.factors is not None else ""
                head += f"\nd = {d} · b = {b:,.0f}"
                head += "\n" + " · ".join(f"{KNOB_NAMES[k]} = {at[k]:g}" for k in betas) if betas else ""
                assert f"{head}\n{words}" in [t for _, _, _, t in items if isinstance(t, str)], where
                checked += 1
            assert tried == []
        finally:
            tab.context.close()
    assert checked == 108
    print(f"{apart} drawn angles a few ulps from posenc's (NTK's, or at another d or b), the rest equal")


def test_one_slider_at_a_time_keeps_the_vega_view_posencs(chromium, tmp_path):
    """Vega writes a calculate's result into the datum, and re-runs only the transforms after the one whose input
    changed: a field read by a calculate that also wrote it would keep a stale number. So here, in the chart's offline
    file for YaRN, Llama 3 and proportional RoPE, one slider moves at a time (24 steps each, every slider among them),
    and after each step the drawn target angles and the rings are posenc's at the settings reached (within 8 ulps: d
    and b move too)."""
    from explorer import chartfile, compat
    from explorer.compute import extension as compute
    from explorer.render import stable_dataset_names

    rng = np.random.default_rng(38)
    for rope_type in ("yarn", "llama3", "proportional"):
        values = {k: widgets.get(k).default for k in ropeblock.METHOD_PARAMS.get(rope_type, ())}
        block = ropeblock.build_rope_block(rope_type, values, base=10000, train_len=4096, head_dim=64)
        ext = ropeblock.extension_data(block, 64, train_len=4096, target_len=16384)
        plan = compute.live_plan(ext, 64, {})
        knobs = [k for k in charts.KNOB_KEYS if k in plan.keys]
        chart = charts.angle_reach_live_chart(
            ext.inv_freq,
            factors=plan.factors,
            start=float(block["factor"]),
            t_window=plan.t_window,
            l_window=plan.l_window,
            train_len=4096,
            target_len=16384,
            browser_block=plan.browser_block,
            knob_starts={k: block[k] for k in knobs},
            columns=plan.columns,
            shape_starts={"head_dim": 64, "base": 10000.0},
        )
        path = tmp_path / f"one_{rope_type}.html"
        path.write_text(chartfile.html_file(stable_dataset_names(compat.vega_lite_spec(chart)), title="t", footer="f"))
        tab, tried = open_offline(chromium, path)
        at = {**block, "head_dim": 64, "train_len": 4096, "target_len": 16384}
        choices = {k: [float(x) for x in compute.grid_of(k)] for k in ("factor", *knobs)}
        choices |= {"head_dim": list(range(2, 257, 2)), "base": list(charts.BASE_OPTIONS)}
        choices |= {k: [t for t in TARGET_STOPS if w[0] <= t <= w[1]] for k, w in
                    (("train_len", plan.l_window), ("target_len", plan.t_window))}  # fmt: skip
        moved = set()
        try:
            for step in range(24):
                key = list(choices)[step % len(choices)] if step < len(choices) else str(rng.choice(list(choices)))
                new = choices[key][int(rng.integers(0, len(choices[key])))]
                at[key] = new
                moved.add(key)
                shown = TARGET_STOPS.index(new) if key in ("train_len", "target_len") else new
                shown = charts.BASE_OPTIONS.index(new) if key == "base" else shown
                items = set_sliders_and_read(tab, [[f"{key}_{key}", shown]])
                d, L, T = int(at["head_dim"]), int(at["train_len"]), int(at["target_len"])
                want_block = {k: v for k, v in at.items() if k not in ("head_dim", "train_len", "target_len", "base")}
                want_block |= {"rope_theta": float(at.get("base", 10000.0)), "original_max_position_embeddings": L}
                want = ropeblock.extension_data(want_block, d, train_len=L, target_len=T)
                assert want.error is None, (rope_type, at, want.error)
                line = sorted((r for kind, _, r, _ in items if kind == "line" and "inv" in r), key=lambda r: r["pair"])
                expect = want.target_angle[want.target_angle > 0]
                assert [r["pair"] for r in line] == np.flatnonzero(want.target_angle > 0).tolist(), (rope_type, at)
                drawn = np.array([r["value"] for r in line])
                assert (np.abs(drawn - expect) / np.spacing(expect)).max() <= 8, (rope_type, key, at)
                rings = sorted(r["pair"] for kind, _, r, _ in items if kind == "symbol" and r.get("ood") is True)
                assert rings == sorted(2 * np.flatnonzero(want.out_of_distribution).tolist()), (rope_type, key, at)
            assert moved == set(choices) and tried == []
        finally:
            tab.context.close()


def test_yarns_attention_factor_in_the_vega_view_is_posencs_at_random_settings(chromium, tmp_path):
    """The attention-factor chart as the page builds it for YaRN, written as its offline file: at 24 random settings of
    its sliders (mscale, mscale_all_dim, attention_factor; each unset in turn), the curve and the marked point read
    from the Vega view are posenc's a within 4 ulps (JavaScript's log against the C library's), and the read-out says
    a at the block's s."""
    from explorer import chartfile, compat
    from explorer.compute import extension as compute
    from explorer.render import stable_dataset_names
    from explorer.text.extension import AF_LIVE_CURVE

    values = {k: widgets.get(k).default for k in ropeblock.METHOD_PARAMS["yarn"]}
    block = ropeblock.build_rope_block("yarn", values, base=10000, train_len=4096, head_dim=64)
    ext = ropeblock.extension_data(block, 64, train_len=4096, target_len=16384)
    plan = compute.attention_factor_plan(ext)
    assert plan.keys == ("mscale", "mscale_all_dim", "attention_factor")
    chart = charts.attention_factor_live_chart(
        ext.af_factors, ropeblock.yarn_reference_curve(), factor=plan.factor, knob_starts=dict.fromkeys(plan.keys, 0.0),
        fixed={},
    )  # fmt: skip
    path = tmp_path / "af.html"
    path.write_text(chartfile.html_file(stable_dataset_names(compat.vega_lite_spec(chart)), title="t", footer="f"))
    rng = np.random.default_rng(37)
    tab, tried = open_offline(chromium, path)
    apart = 0
    try:
        for i in range(24):
            at = {k: float(compute.grid_of(k)[int(rng.integers(1, len(compute.grid_of(k))))]) for k in plan.keys}
            at.update(dict.fromkeys([("mscale",), ("mscale_all_dim",), ("attention_factor",), ()][i % 4], 0.0))
            items = set_sliders_and_read(tab, [[f"{k}_{k}", v] for k, v in at.items()])
            full = {k: v for k, v in {**block, **at}.items() if not (k in at and v == 0)}
            want = ropeblock.extension_data(full, 64, train_len=4096, target_len=16384)
            ours = (d for kind, _, d, _ in items if kind == "line" and d.get("curve") == AF_LIVE_CURVE)
            curve = sorted(ours, key=lambda d: d["x"])
            got = np.array([d["y"] for d in curve])
            assert got.shape == want.af_curve.shape, at
            ulps = np.abs(got - want.af_curve) / np.spacing(want.af_curve)
            assert ulps.max() <= 4, (at, ulps.max())
            apart += int((ulps > 0).sum())
            (point,) = [d["y"] for kind, _, d, _ in items if kind == "symbol" and "y" in d]
            assert abs(point - want.attention_factor) <= 4 * np.spacing(want.attention_factor), at
            texts = [t for _, _, _, t in items if isinstance(t, str)]
            a = want.attention_factor
            assert any(t.startswith(f"a = {a:.4g} at s = 4: logits × a² = {a * a:.4g}") for t in texts), (at, texts)
        assert tried == []
    finally:
        tab.context.close()
    print(f"attention factor: {apart} drawn values a few ulps from posenc's, the rest equal")


def test_a_press_on_mscale_redraws_the_attention_factor_chart_with_no_script_run_and_the_page_follows(chromium, server):
    """YaRN's attention factor is the browser's own (charts.extension.yarn_attention_factor): a press on mscale moves
    the curve before any script runs; the value then reaches the server once, the box, the link and the page's
    attention factor follow, and the chart is kept."""
    import math

    page = open_page(chromium, server, "?rope_type=yarn&factor=4&ext_view=Attention&mscale=1&mscale_all_dim=0.5")
    try:
        chart = page.locator('[class*="st-key-ext_af_"] [data-testid=stVegaLiteChart]').first
        chart.scroll_into_view_if_needed()
        chart.evaluate("(c) => { c.querySelector('svg').__kept = true; }")
        page.evaluate(COUNT_RUNS_JS)
        af_svg = chart_svg_js('[class*="st-key-ext_af_"]')
        press_once(page, chart.locator('input[name="mscale_mscale"]'), af_svg, key="mscale", want="1.001", title=TITLE)
        assert float(page.locator(".st-key-mscale input").input_value()) == 1.001
        a = (0.1 * 1.001 * math.log(4) + 1) / (0.1 * 0.5 * math.log(4) + 1)
        texts = chart.locator("svg text").all_text_contents()
        assert any(t.startswith(f"a = {a:.4g} at s = 4") for t in texts), texts
        assert page.get_by_text(f"{a:.4f}", exact=True).count() >= 1, "the page's attention factor did not follow"
        assert chart.evaluate("(c) => c.querySelector('svg').__kept === true"), "the chart was rebuilt"
    finally:
        page.close()
