"""Builders of "Compare methods" (explorer/charts/compare.py): the table's colours and the chart."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _chartspec import assert_draws_curve, contrast, frame, luminance
from _compare_chart import drawn, mark_value, panel_title, panels, y_domain

from explorer.charts import compare
from explorer.text.compare import METHOD_LABELS, summary_table
from explorer.vocabulary import TARGET_STOPS
from posenc import alibi_slopes
from posenc import attention as att

D, L, T = 8, 16, 40


@pytest.fixture(scope="module")
def checks():
    return [att.method_checks(m, dim=D, trained_len=L, test_len=T, seed=2, alibi_slope=0.25) for m in att.METHODS]


@pytest.fixture(scope="module")
def table(checks):
    return summary_table(checks, trained_len=L, test_len=T, dim=D).set_index("Method")


def css(text: str) -> dict[str, str]:
    return {k.strip(): v.strip() for k, v in (part.split(":") for part in text.split(";") if part.strip())}


def test_style_colours_verdicts(table):
    green, red = css(compare.verdict_color("✓ x")), css(compare.verdict_color("✗ x"))
    assert compare.verdict_color("— x") == ""  # the theme's own text colour
    html = compare.style_summary(table.reset_index()).to_html()
    for style in (green, red):
        assert style["color"] in html and style["background-color"] in html
    assert luminance(green["background-color"]) > luminance(green["color"])  # pale green, dark text
    assert red["color"] != green["color"]


def test_verdict_cells_are_legible_on_both_themes():
    """A ✓/✗ cell sets its text and its background together, so the theme behind the table (white
    or navy, .streamlit/config.toml) does not matter: the text contrasts ≥ 7:1 with its cell. A
    text colour alone (the old #B91C1C) had 2.9:1 on the dark theme's #0B1220."""
    for mark in ("✓", "✗"):
        style = css(compare.verdict_color(f"{mark} x"))
        assert set(style) == {"color", "background-color"}
        assert contrast(style["color"], style["background-color"]) >= 7
        # the dark theme's: as legible, and dark cells (light ones glared on a projected dark slide)
        dark = css(compare.verdict_color(f"{mark} x", dark=True))
        assert set(dark) == {"color", "background-color"}
        assert contrast(dark["color"], dark["background-color"]) >= 7
        assert luminance(dark["background-color"]) < 0.1 < luminance(style["background-color"])
    dark_html = compare.style_summary(pd.DataFrame({"Method": ["RoPE"], "x": ["✓ y"]}), dark=True).to_html()
    assert css(compare.verdict_color("✓ x", dark=True))["background-color"] in dark_html
    phone = compare.style_summary_by_method(pd.DataFrame({"Method": ["RoPE"], "x": ["✗ y"]}), dark=True)
    assert css(compare.verdict_color("✗ x", dark=True))["background-color"] in phone[0].to_html()
    # the method names carry no fixed colour (dark text on the dark theme was unreadable)
    styler = compare.style_summary(pd.DataFrame({"Method": ["RoPE"], "x": ["✓ y"]}))
    styler._compute()
    index_css = [rule for rules in styler.ctx_index.values() for rule in rules]
    assert ("font-weight", "bold") in index_css and not any(k == "color" for k, _ in index_css)


def test_on_a_phone_each_method_gets_its_own_table_with_every_verdict(table):
    """One small table per method (a phone's layout): the method's name heads its one column, and its cells are the
    summary's row for it, every criterion, coloured as the wide table colours them."""
    shown = compare.style_summary_by_method(table.reset_index())
    assert len(shown) == len(table)
    for method, styler in zip(table.index, shown, strict=True):
        assert list(styler.data.columns) == [method]
        assert styler.data[method].to_dict() == table.loc[method].to_dict()
        html = styler.to_html()
        for cell in table.loc[method]:
            style = compare.verdict_color(cell)
            if style:
                assert css(style)["background-color"] in html


# ------------------------------------------------------------------------------------- chart
def test_score_table_is_wide(checks):
    df = compare.score_table(checks)
    assert list(df.columns) == ["distance", *METHOD_LABELS.values()]
    assert df["distance"].tolist() == list(range(T))
    assert df["Learned absolute"].notna().sum() == L  # stops at L: empty beyond
    for c in checks:
        got = df[METHOD_LABELS[c["method"]]].to_numpy()[: len(c["scores"])]
        assert np.array_equal(got, c["scores"]), c["method"]


SLOPES = [float(s) for s in alibi_slopes(8)]


def without_alibi(checks: list[dict]) -> pd.DataFrame:
    return compare.score_table([c for c in checks if c["method"] != "alibi"])


def test_score_by_distance_spec_with_fixed_lengths(checks):
    with pytest.raises(ValueError, match="not 'ALiBi'"):  # ALiBi's curve is the browser's
        compare.score_by_distance(compare.score_table(checks), train_len=L, test_len=T, slopes=SLOPES, head=3)
    spec = compare.score_by_distance(without_alibi(checks), train_len=L, test_len=T, slopes=SLOPES, head=3).to_dict()
    assert list(panels(spec)) == list(METHOD_LABELS)  # a view per method, in the table's order
    sliders = [p["name"] for p in spec["params"] if "bind" in p]
    assert sliders == ["alibi_head"]  # the lengths are fixed: only h's slider
    assert (spec["params"][0]["bind"]["min"], spec["params"][0]["bind"]["max"]) == (1, 8)
    assert spec["usermeta"]["embedOptions"]["renderer"] == "canvas"
    for method, panel in panels(spec).items():
        line, rule, note = panel["layer"]
        assert line["mark"]["type"] == "line" and rule["mark"]["type"] == "rule" and note["mark"]["type"] == "text"
        assert line["mark"]["color"] == compare.METHOD_COLORS[method]
        # the curves' width is a named style of the config, not a mark property Vega would evaluate at every point
        assert "strokeWidth" not in line["mark"] and "strokeWidth" in spec["config"]["style"][line["mark"]["style"]]
        # the distances are written under the last panel only; every panel has its grid
        x_axis = line["encoding"]["x"]["axis"]
        assert x_axis["grid"] and x_axis["labels"] == (method == "nope"), method
    assert "changes with distance" in " ".join(spec["title"]["text"])
    assert spec["config"]["axis"]["labelFontSize"] >= 13
    long = drawn(spec, {"alibi_head": 3})
    counts = long.groupby("method").size().to_dict()
    assert counts.pop("Learned absolute") == L and counts.pop("Sinusoidal") == counts.pop("RoPE") == T
    # NoPE's score does not change with n: its line, and ALiBi's, are drawn from their ends (and the cuts a slider
    # could make: T - 1 at T's stops below T)
    cuts = {0, T - 1, L - 1, *(t - 1 for t in TARGET_STOPS if t < T)}
    assert counts == {"NoPE (none)": len(cuts), "ALiBi": len(cuts)}
    # ALiBi, drawn by the browser from NoPE's at head 3's slope, is posenc's ALiBi at that slope, bit for bit
    alibi = long[long["method"] == "ALiBi"].sort_values("distance")
    assert SLOPES[2] == 2.0**-3
    want = att.method_checks("alibi", dim=D, trained_len=L, test_len=T, seed=2, alibi_slope=2.0**-3)
    assert_draws_curve(alibi["distance"], alibi["score"], want["distances"], want["scores"])
    # each panel's y scale spans posenc's scores and 0, as a domain computed from the points drawn would
    by_method = {c["method"]: c for c in checks}
    for method in METHOD_LABELS:
        scores = (want if method == "alibi" else by_method[method])["scores"]
        assert y_domain(spec, method, {"alibi_head": 3}) == pytest.approx(padded(scores)), method
    # the slope, written under ALiBi's panel name only
    names = {lbl: panel_title(spec, m, {"alibi_head": 3}) for m, lbl in METHOD_LABELS.items()}
    assert names == {**{lbl: lbl for lbl in METHOD_LABELS.values()}, "ALiBi": ["ALiBi", "head 3: slope 1/8 = 0.125"]}
    # the rule and its label: one row of their own a panel (not a filter over the chart's rows), at L
    for panel in panels(spec).values():
        _, rule, note = panel["layer"]
        for layer in (rule, note):
            assert spec["datasets"][layer["data"]["name"]] == [{"at": "L"}] and "transform" not in layer
        assert mark_value(spec, rule, "x", {"alibi_head": 3}) == L
        # the label sits right of the rule in the left 60 % of the axis, else left of it (here L = 16 of 39)
        assert mark_value(spec, note, "text", {"alibi_head": 3}) == f"trained length L = {L}"
        assert (mark_value(spec, note, "align", {}), mark_value(spec, note, "dx", {})) == ("left", 5)


def page_spec(train_len: int, test_len: int) -> tuple[dict, tuple]:
    """The chart as the page builds it at (L, T) (d = 8, seed 0, head 1, b = 10,000), and its sliders' windows."""
    from explorer.compute.compare import BASES, chart_lengths, curve_checks, slider_windows

    windows = slider_windows(train_len, test_len)
    table = compare.score_table(curve_checks(8, *chart_lengths(train_len, test_len, windows), 0), BASES)
    chart = compare.score_by_distance(
        table,
        train_len=train_len,
        test_len=test_len,
        slopes=SLOPES,
        head=1,
        l_window=windows[0],
        t_window=windows[1],
        bases=BASES,
        base=10000.0,
    )
    return chart.to_dict(), windows


def test_a_press_redraws_only_the_panels_that_read_its_slider():
    """Each panel reads only the sliders its curve depends on, so that a press redraws only those panels (Streamlit's
    interpreter evaluates a panel's expressions for every point it redraws): b the sinusoidal and RoPE curves, h
    ALiBi's, L the learned table's (and the rule at L in every panel); T every panel (its x axis ends at T)."""
    spec, _ = page_spec(128, 512)
    signals = {"b": compare.AT_B_SIGNAL, "h": compare.SLOPE_SIGNAL, "L": compare.L_SIGNAL, "T": compare.T_SIGNAL}
    reads = {}
    for method, panel in panels(spec).items():
        line = panel["layer"][0]
        text = str([line["transform"], line["encoding"]["y"]])  # the curve's rows, its scores and its y scale
        reads[method] = {s for s, name in signals.items() if name in text or (s == "h" and "alibi_head" in text)}
    assert reads == {"sinusoidal": {"b", "T"}, "rope": {"b", "T"}, "learned": {"L"}, "alibi": {"h", "T"}, "nope": {"T"}}
    # no field computed into the chart's rows at a press: the scores are read where the y channel draws them
    assert all("calculate" not in t for panel in spec["vconcat"] for t in panel["layer"][0].get("transform", []))


@pytest.mark.parametrize(
    "d, seed, base, head", [(64, 0, 10000.0, 4), (2, 9, 10.0, 1), (256, 77, 1e6, 8), (30, 5, 500.0, 6)]
)
def test_the_browsers_curves_are_posencs_at_random_lengths(d, seed, base, head):
    """The chart's transforms (each panel's filters), its y channels (ALiBi's from NoPE's, the sinusoidal and RoPE
    curves' column at b), y domains, rule and labels evaluated in Python at 12 random (L, T, h) of the sliders against
    posenc.attention.method_checks called at that (L, T) and head h's slope 2^−h (Press et al.'s slopes for 8 heads,
    re-typed): every score drawn bit for bit, and the line through them passes through every score posenc gives
    (NoPE's flat line and ALiBi's straight one are drawn from their ends and cuts; the others at every n) (the learned table's rows at L are the first rows of the longest table's, and pair_scores gives their
    scores to the bit at every pair of stops), at a random base b of its options too (the sinusoidal and RoPE curves
    are the chart's columns for that option), the rule and its label at L; L past T draws T at the first
    stop above L (`compute.target_above`, as the page moves it)."""
    from explorer.compute.compare import chart_lengths, slider_windows, target_above

    slope = float(alibi_slopes(8)[head - 1])
    windows = slider_windows(128, 512)
    assert windows == ((16, 2048), (24, 4096))  # both on their stops: the widest windows, whatever L and T
    top = chart_lengths(128, 512, windows)
    from explorer.compute.compare import BASES, curve_checks

    kw = dict(dim=d, seed=seed, alibi_slope=slope)
    table = compare.score_table(curve_checks(d, top[0], top[1], seed), BASES)
    spec = compare.score_by_distance(
        table,
        train_len=128,
        test_len=512,
        slopes=SLOPES,
        head=head,
        l_window=windows[0],
        t_window=windows[1],
        bases=BASES,
        base=base,
    )
    spec = spec.to_dict()
    sliders = [p["name"] for p in spec["params"] if "bind" in p]
    assert sliders == ["base", "alibi_head", "target_len", "train_len"]  # L listed first
    assert spec["params"][0]["value"] == BASES.index(base)
    rng = np.random.default_rng(seed)
    (l_lo, l_hi), (t_lo, t_hi) = ((TARGET_STOPS.index(a), TARGET_STOPS.index(b)) for a, b in windows)
    for _ in range(12):
        li, ti, h = int(rng.integers(l_lo, l_hi + 1)), int(rng.integers(t_lo, t_hi + 1)), int(rng.integers(1, 9))
        bi = int(rng.integers(0, len(BASES)))
        sliders = {"train_len": li, "target_len": ti, "alibi_head": h, "base": bi}
        Lx, Tx = TARGET_STOPS[li], TARGET_STOPS[ti]
        if Tx <= Lx:
            Tx = target_above(Lx)
        long = drawn(spec, sliders)
        for method in att.METHODS:
            want = att.method_checks(
                method, trained_len=Lx, test_len=Tx, **{**kw, "alibi_slope": 2.0**-h, "base": BASES[bi]}
            )
            got = long[long["method"] == METHOD_LABELS[method]].sort_values("distance")
            assert_draws_curve(got["distance"], got["score"], want["distances"], want["scores"], (method, Lx, Tx))
            if method not in ("nope", "alibi"):  # curves that change at every n: every point drawn
                assert got["distance"].tolist() == want["distances"].tolist(), (method, Lx, Tx)
            scores = want["scores"]  # the y scale spans them and 0, and a margin (before Vega makes it nice)
            assert y_domain(spec, method, sliders) == pytest.approx(padded(scores)), (method, Lx, Tx)
        assert panel_title(spec, "alibi", sliders) == ["ALiBi", f"head {h}: slope 1/{2**h} = {2.0**-h:g}"]
        for panel in panels(spec).values():
            _, rule, note = panel["layer"]
            assert mark_value(spec, rule, "x", sliders) == Lx
            assert mark_value(spec, note, "text", sliders) == f"trained length L = {Lx:,}"
            side = ("left", 5) if Lx < 0.6 * (Tx - 1) else ("right", -5)
            assert (mark_value(spec, note, "align", sliders), mark_value(spec, note, "dx", sliders)) == side


@pytest.mark.parametrize("lengths", [(128, 512), (100, 1000), (128, 1000), (100, 512)])
def test_every_last_row_a_slider_can_leave_is_drawn(lengths):
    """NoPE's and ALiBi's lines are drawn from their ends: whatever L and T the chart's sliders reach (or the lengths
    typed off the stops), the row at T − 1 (and the learned table's at L − 1) is in the chart's data and drawn."""
    train_len, test_len = lengths
    spec, windows = page_spec(train_len, test_len)
    rows = frame(spec, spec).set_index("distance")
    reach_l = [t for t in TARGET_STOPS if windows[0][0] <= t <= windows[0][1]] if windows[0] else [train_len]
    reach_t = [t for t in TARGET_STOPS if windows[1][0] <= t <= windows[1][1]] if windows[1] else [test_len]
    for label in ("NoPE (none)", "ALiBi"):
        drawn_at = rows["drawn " + label]
        assert drawn_at.sum() < len(rows) / 4  # thinned: a flat line
        assert all(drawn_at[t - 1] for t in reach_t) and drawn_at[0], label
    assert all(rows["drawn Learned absolute"][n - 1] for n in reach_l)


def padded(scores) -> list[float]:
    """A panel's y domain, re-typed: from 0 or the least score to 0 or the most, a score 8 % of that span further."""
    lo, hi = min(0.0, min(scores)), max(0.0, max(scores))
    margin = 0.08 * (hi - lo)
    return [lo - margin if lo < 0 else 0.0, hi + margin if hi > 0 else 0.0]


def test_y_domain_spans_the_scores_shown_and_zero_and_rejects_a_length_without_scores():
    nan = float("nan")
    # scores typed out: at each length, the least and the most of the first scores, with 0 (Vega-Lite's zero), and
    # 8 % of that span past a score
    got = compare.y_domain(np.array([0.5, 2.0, -1.5, 3.0]), [1, 2, 3, 4])
    assert np.allclose(got, [[0.0, 0.54], [0.0, 2.16], [-1.78, 2.28], [-1.86, 3.36]], rtol=1e-12, atol=0), got
    # a flat line below 0 (NoPE's) was the domain's end, on the x axis's line: now it stands off it
    assert np.allclose(compare.y_domain(np.array([-0.6, -0.6]), [2]), [[-0.648, 0.0]], rtol=1e-12, atol=0)
    assert np.allclose(compare.y_domain(np.array([-2.0, -3.0]), [2]), [[-3.24, 0.0]], rtol=1e-12, atol=0)
    with pytest.raises(ValueError, match="reach: the curve has no score at every n < 3"):
        compare.y_domain(np.array([1.0, 2.0, nan]), [2, 3])  # the learned table stops at L


def test_drawn_rows_leaves_out_the_inside_of_flat_runs_only():
    nan = float("nan")
    y = [1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 3.0, nan, 3.0, 3.0, 3.0]
    got = compare.drawn_rows(y, ends={2, 8})
    # kept: each run's ends, the cut at n = 2, the rows beside the gap; the gap itself and the run's insides not
    assert np.flatnonzero(got).tolist() == [0, 2, 3, 4, 6, 7, 9, 11]
    assert compare.drawn_rows([5.0], ends={0}).tolist() == [True]
    assert compare.drawn_rows([0.0, 1.0, 2.0, 3.0], ends=set()).all()  # a slope is not a flat run: all kept


def test_head_slope_labels():
    from explorer.text.compare import head_slope_labels

    assert head_slope_labels([0.5, 2.0**-8]) == ["head 1: slope 1/2 = 0.5", "head 2: slope 1/256 = 0.00390625"]
    assert head_slope_labels([0.3]) == ["head 1: slope 0.3"]  # not a power of two: a decimal


def test_slider_windows_and_t_above_l():
    from explorer.compute.compare import chart_lengths, slider_windows, target_above

    assert [target_above(x) for x in (16, 17, 100, 128, 2047, 2048)] == [24, 24, 128, 192, 2048, 3072]
    # a length typed off the stops stays a server run; the other slider runs over the stops it leaves
    assert slider_windows(100, 512) == (None, (128, 4096))
    assert slider_windows(128, 1000) == ((16, 768), None)
    assert slider_windows(100, 1000) == (None, None)
    assert slider_windows(16, 17) == (None, None)  # L = 16 is a stop, but no other stop lies below T = 17
    assert chart_lengths(128, 1000, ((16, 768), None)) == (768, 1000)
    assert chart_lengths(100, 512, (None, (128, 4096))) == (100, 4096)
