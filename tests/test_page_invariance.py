"""The relative-invariance page through Streamlit's AppTest: defaults, typed and seeded vectors,
both dtypes, every control at its minimum and maximum, garbage in every URL parameter, the learned
table running out of rows, and the key numbers (shift deviations, pass mark) it shows.

The shift test (metrics, badges, deviation chart) is always drawn; the other sections sit in lazy
tabs (?inv_view=Scores|Sinusoid shift|Decay) and only the open one is computed and drawn. The shift t
N, the head dim d (seeded vectors), the base b and the shift t are the deviation chart's own sliders
(explorer.liveparam): the chart carries the test at every t it reaches, at every N, d and b in windows around the
page's, and the page's numbers are those at the reported values."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from _apptest import metrics, run_page
from _chartspec import element_spec, find, frame, hex_colour, png_pixels
from _posenc_reference_impl import ref_sinusoidal_row
from streamlit.testing.v1 import AppTest

import posenc
from explorer.imagechart import meta as image_meta

PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "4_Relative_invariance.py")
VIEWS = ("Scores", "Sinusoid shift", "Decay")
MAIN_CHART = ""  # the shift test's chart, always drawn above the tabs: its headline is chart text (no title)
#: The charts each tab draws (titles), besides the main chart.
TAB_CHARTS = {
    "Scores": ["RoPE", "sinusoidal PE added", "learned table added"],
    "Sinusoid shift": ["R_k for k = 16 (64 × 64, interleaved layout)", "PE(p + 16) = R_k·PE(p) for every p"],
    "Decay": ["RoPE's score bound shrinks with distance: 15.9 at r = 1, at most 7.62 beyond r = 2,039"],
}
DECAY_SHRINKS = "RoPE's score bound shrinks with distance: "  # the title's start when the bound falls
N_CHARTS = {view: 1 + len(titles) for view, titles in TAB_CHARTS.items()}  # main chart + the tab's
KEYS = (
    "qk_source",
    "seed",
    "head_dim",
    "q_text",
    "k_text",
    "seq_len",
    "shift_t",
    "score_dtype",
    "base",
    "layout_sin",
    "table_len",
    "inv_view",
)
MINIMUM = {
    "seed": 0,
    "head_dim": 2,
    "seq_len": 1,
    "shift_t": 1,
    "base": 10,
    "table_len": 8,
    "layout_sin": "concatenated",
}
MAXIMUM = {
    "seed": 9999,
    "head_dim": 256,
    "seq_len": 256,
    "shift_t": 1000,
    "base": 1000000,
    "table_len": 4096,
    "score_dtype": "float32",
}
RUNS_OK = ":green-badge[PASS]"
FAILS = ":red-badge[FAIL]"


def run(at=None, **query):
    return run_page(PAGE, at, **query)


def run_views(**query) -> dict[str, AppTest]:
    """The page once per tab (?inv_view=…): only the open tab is drawn."""
    return {view: run(**query, inv_view=view) for view in VIEWS}


def badges(at) -> list[str]:
    return [md.value for md in at.markdown if "-badge[" in md.value]


def charts(at) -> list[dict]:
    return [element_spec(el) for el in at.get("vega_lite_chart")]


def chart_titled(at, text: str) -> dict:
    (spec,) = [s for s in charts(at) if s.get("title", {}).get("text", "") == text]
    return spec


def notices(at) -> str:
    return "\n".join(m.value for m in at.markdown if m.value.startswith("**What to notice**"))


def chart_titles(at) -> list[str]:
    return [s.get("title", {}).get("text", "") for s in charts(at)]


def main_chart(at) -> dict:
    """The shift test's chart: the page's first, with the in-chart sliders."""
    spec = charts(at)[0]
    assert any(p["name"] == "shift_t" and "bind" in p for p in spec["params"])
    return spec


def text_sidebar() -> str:
    from explorer.text.invariance import SIDEBAR

    return SIDEBAR


def page_ranges(at) -> dict[str, dict[str, float]]:
    """Where the page narrows the chart's sliders in the browser (explorer.liveparam.ranges_html's hidden span):
    {parameter: (min, max)}, a missing end being the slider's own."""
    (span,) = [el.proto.body for el in at.get("html") if el.proto.body.startswith("<span hidden data-posenc-ranges")]
    found: dict[str, dict[str, float]] = {}
    for end, signal, value in re.findall(r'data-(min|max)-([a-z0-9_]+)="([0-9.]+)"', span):
        key = signal[: len(signal) // 2]  # the signal is <key>_<key>
        found.setdefault(key, {})[end] = float(value)
    return found


def live_slider(at, key: str = "shift_t") -> dict:
    """The in-chart slider `key`: its start value and the range the page gives it (narrowed in the browser)."""
    (param,) = [p for p in main_chart(at)["params"] if p["name"] == key]
    narrowed = page_ranges(at).get(key, {})
    return {
        "value": param["value"],
        "min": narrowed.get("min", param["bind"]["min"]),
        "max": narrowed.get("max", param["bind"]["max"]),
    }


def chart_rows(at) -> list[dict]:
    spec = main_chart(at)
    (bars,) = find(spec, "bar")
    return spec["datasets"][bars.get("data", spec.get("data"))["name"]]


def chart_row(at, t: int, n: int | None = None, d: int | None = None, b: float | None = None) -> dict:
    """The numbers the chart carries for shift t at N = n, head dim d and base b (by default the sliders' starts: one
    row of its data, which the browser picks where the sliders stand; the base slider runs over the options)."""
    from explorer.compute.invariance import B_OPTIONS

    starts = {p["name"]: p.get("value") for p in main_chart(at)["params"]}
    n = starts["seq_len"] if n is None else n
    d = starts.get("head_dim") if d is None else d
    b = B_OPTIONS[starts["base"]] if b is None else b
    rows = [r for r in chart_rows(at) if r["hand"] == t and r["n"] == n and (d is None or r["d"] == d) and r["b"] == b]
    (row,) = rows
    # the learned test as the chart shows it at its table slider's start: posenc's report has no number where the
    # table has no row for N − 1 + t (the rows hold it for a table as long as the point needs)
    has_row = row["n"] - 1 + row["t"] < starts["table_len"]
    return {**row, "learned": row["learned"] if has_row else None}


def verdicts(row: dict) -> list[str]:
    """pass / fail / n/a per encoding, as the chart decides them from its row (dev ≤ pass mark)."""
    out = []
    for key in ("rope", "sinusoidal", "learned"):
        dev = row[key]
        ok = dev is not None and math.isfinite(dev)
        out.append("n/a" if not ok else "pass" if dev <= row["tolerance"] else "fail")
    return out


def assert_page_complete(at, view="Scores", n_charts=None):
    """Title, formula, the shift test's four metrics and chart, the notice list, the three tabs;
    `view` is the open tab: only its charts are drawn (n_charts in all, the main chart included)."""
    assert at.title[0].value == "Relative-position invariance"
    assert [t.label for t in at.tabs] == list(VIEWS)
    assert len(at.get("vega_lite_chart")) == (N_CHARTS[view] if n_charts is None else n_charts)
    main_chart(at)  # the shift test's chart comes first
    for tab in at.tabs:  # the closed tabs hold nothing
        if tab.label != view:
            assert len(tab.children) == 0, tab.label
    assert len(at.latex) >= (2 if view == "Scores" else 1)
    assert any("What to notice" in md.value for md in at.markdown)
    assert len(at.metric) == 4


def ref_additive_deviation(q, k, w_q, w_k, n, t, base=10000.0):
    """max |s(m,n) − s(m+t,n+t)| for the sinusoid added before the projections; PE rows by loop."""
    d = len(q)
    pe = np.array([ref_sinusoidal_row(p, d, base) for p in range(n + t)])
    qs = (q + pe) @ w_q
    ks = (k + pe) @ w_k
    s = qs @ ks.T
    return float(np.max(np.abs(s[:n, :n] - s[t : t + n, t : t + n])))


# --- defaults ----------------------------------------------------------------------------------
def test_defaults_draw_the_shift_test_and_the_scores_tab_only():
    at = run()
    assert_page_complete(at, "Scores")
    assert chart_titles(at) == [MAIN_CHART, *TAB_CHARTS["Scores"]]  # the other tabs: not computed
    (scores,) = [t for t in at.tabs if t.label == "Scores"]
    assert len(scores.get("vega_lite_chart")) == 3 and len(scores.latex) == 1
    assert "inv_view" not in at.query_params


def test_each_tab_draws_its_own_charts():
    shift_test = metrics(run())
    for view, at in run_views().items():
        assert_page_complete(at, view)
        assert not at.error and not at.warning
        assert chart_titles(at) == [MAIN_CHART, *TAB_CHARTS[view]], view
        (tab,) = [t for t in at.tabs if t.label == view]
        assert len(tab.get("vega_lite_chart")) == len(TAB_CHARTS[view])
        assert dict(at.query_params).get("inv_view", VIEWS[0]) == view  # the default is not written
        # the shift test is the same whichever tab is open
        assert metrics(at) == shift_test


def test_defaults_rope_passes_additive_fails():
    at = run()
    assert_page_complete(at)
    assert not at.error and not at.warning
    shown = metrics(at)
    rope_dev = float(shown["RoPE (float64)"])
    sin_dev = float(shown["sinusoidal, added"])
    learned_dev = float(shown["learned table, added"])
    tol = float(shown["pass mark"])
    assert rope_dev < 1e-9
    assert sin_dev > 1.0 and learned_dev > 1.0  # clearly not zero: absolute position leaks in
    assert rope_dev <= tol < 1e-9
    assert badges(at) == [RUNS_OK, FAILS, FAILS]
    # the numbers, against independent computations (same seeded q, k, W as the page)
    q, k = posenc.seeded_normal((2, 64), seed=0)
    w_q, w_k = posenc.seeded_normal((2, 64, 64), seed=1, std=64**-0.5)
    assert sin_dev == pytest.approx(ref_additive_deviation(q, k, w_q, w_k, 64, 16), rel=5e-3)
    eps = 2.0**-52
    assert tol == pytest.approx(eps * np.linalg.norm(q) * np.linalg.norm(k) * (4 * 79 + 2 * 64 + 8), rel=0.05)
    # the deviation chart starts at t = 16 and carries these very numbers there: RoPE passes, the others fail
    assert live_slider(at) == {"value": 16, "min": 1, "max": 500}  # N = 64, d = 64: shift_reach
    row = chart_row(at, 16)
    assert [f"{row['rope']:.2e}", f"{row['sinusoidal']:.2e}", f"{row['learned']:.2e}", f"{row['tolerance']:.1e}"] == [
        shown["RoPE (float64)"],
        shown["sinusoidal, added"],
        shown["learned table, added"],
        shown["pass mark"],
    ]
    assert verdicts(row) == ["pass", "fail", "fail"]


def test_rope_heatmap_has_constant_diagonals_and_additive_does_not():
    at = run()
    rope = png_pixels(chart_titled(at, "RoPE"))
    sinus = png_pixels(chart_titled(at, "sinusoidal PE added"))
    assert rope.shape[:2] == (64, 64)
    same_rope = np.mean(np.all(rope[:-1, :-1] == rope[1:, 1:], axis=-1))
    same_sin = np.mean(np.all(sinus[:-1, :-1] == sinus[1:, 1:], axis=-1))
    assert same_rope > 0.99  # one colour per diagonal (colour bins may round at an edge)
    assert same_sin < 0.5
    assert image_meta(chart_titled(at, "learned table added"))["shape"] == [64, 64]


def test_shift_matrix_and_residual():
    at = run(shift_t=5, head_dim=8, inv_view="Sinusoid shift")
    assert_page_complete(at, "Sinusoid shift")
    spec = chart_titled(at, "R_k for k = 5 (8 × 8, interleaved layout)")
    assert image_meta(spec)["domain"] == [-1.0, 1.0]
    res = chart_titled(at, "PE(p + 5) = R_k·PE(p) for every p")
    (line,) = find(res, "line")
    values = frame(res, line)["residual"]
    assert len(values) == 64 and values.max() < 1e-13


def test_decay_curve_matches_the_bound():
    at = run(head_dim=8, inv_view="Decay")
    assert_page_complete(at, "Decay")
    # d = 8: four pairs, the bound ripples without falling below 0.9 of its start (the title says so)
    (spec,) = [
        c
        for c in charts(at)
        if c.get("title", {}).get("text", "").startswith("RoPE's score bound ripples without a clear fall")
    ]
    (line,) = find(spec, "line")
    assert line["encoding"]["x"]["scale"]["type"] == "log"
    df = frame(spec, line)
    assert df["distance"].min() == 1 and df["distance"].max() == 20000
    for row in df.iloc[::40].itertuples():
        assert row.bound == pytest.approx(loop_decay_bound(row.distance, 8, 10000.0))
    # the numbers in the title: the value at r = 1 and the largest over the last decade drawn
    tail = df[df["distance"] >= 2000]
    far, far_r = tail["bound"].max(), tail["distance"].iloc[0]
    first = loop_decay_bound(1, 8, 10000.0)
    assert far > 0.9 * first
    assert spec["title"]["text"].endswith(f"still {far:.3g} beyond r = {far_r:,.0f} ({first:.3g} at r = 1)")
    assert f"it still reaches {far:.3g} ({first:.3g} at distance 1)" in notices(at)


def loop_decay_bound(r: float, d: int, base: float) -> float:
    """RoFormer §3.4.3's (1/(d/2))·Σ_j |Σ_(i<j) e^(i·r·θ_i)|, by loop."""
    partial, total = 0j, 0.0
    for i in range(d // 2):
        t = base ** (-2 * i / d)
        partial += complex(math.cos(r * t), math.sin(r * t))
        total += abs(partial)
    return total / (d // 2)


def test_float32_scores_pass_at_a_float32_tolerance():
    at64, at32 = run(), run(score_dtype="float32")
    dev64, dev32 = float(metrics(at64)["RoPE (float64)"]), float(metrics(at32)["RoPE (float32)"])
    tol32 = float(metrics(at32)["pass mark"])
    assert dev64 < 1e-12 < dev32 <= tol32 < 1e-1
    assert badges(at32)[0] == RUNS_OK
    assert float(metrics(at32)["sinusoidal, added"]) > 1000 * tol32


# --- the shift t: the chart's own slider ------------------------------------------------------------
def _page_after_a_report():
    """The page as Streamlit runs it after the shift test's chart reported its slider: the chart's
    on_select callback (explorer.liveparam.report, with the page's limit) first, then the page."""
    import runpy

    import streamlit as st

    from explorer import liveparam
    from explorer.charts import invariance as charts

    report = st.session_state.pop("test_report", None)
    if report is not None:
        limits = {"shift_t": {"max": st.session_state["test_reach"]}}
        liveparam.report("inv_live", charts.live_params(True), report, limits)
    runpy.run_path(st.session_state["test_page"], run_name="__main__")


def test_the_links_shift_t_is_where_the_charts_slider_starts():
    at = run(shift_t="37", seq_len="48")
    assert_page_complete(at)
    assert not [s for s in at.slider if s.key == "shift_t"]  # one control: the chart's slider
    assert live_slider(at) == {"value": 37, "min": 1, "max": 500}
    assert at.query_params["shift_t"] == "37"
    assert "**At t = 37**" in "\n".join(md.value for md in at.markdown)
    assert "At t = 37," in notices(at) and "R_k" in notices(at)
    # the numbers below the chart are the chart's own at t = 37
    shown, row = metrics(at), chart_row(at, 37)
    assert shown["RoPE (float64)"] == f"{row['rope']:.2e}" and shown["pass mark"] == f"{row['tolerance']:.1e}"


def test_a_shift_beyond_the_charts_reach_is_clamped_with_a_notice():
    at = run(shift_t="300", seq_len="200", head_dim="16")  # N = 200, d = 16: the chart reaches t = 100
    assert_page_complete(at, n_charts=N_CHARTS["Scores"] - 1)  # 200 positions, the table has 128 rows
    (warning,) = at.warning
    assert "shift\\_t" in warning.value and "300" in warning.value and "used 100 instead" in warning.value
    assert live_slider(at) == {"value": 100, "min": 1, "max": 100}
    assert at.query_params["shift_t"] == "100"


def test_a_report_from_the_chart_reaches_the_page_and_the_link():
    """What the chart's on_select callback does when a drag ends: the value goes into the session and
    the link, the page computes at it, and the chart keeps its spec (its start), so the browser keeps
    the chart the hand is on; a value from the link (a tour step, back/forward) starts a new chart there."""
    at = AppTest.from_function(_page_after_a_report, default_timeout=60)
    at.session_state["test_page"] = PAGE
    at.session_state["test_reach"] = 500
    at.query_params["shift_t"] = "20"
    run_page("", at)
    assert live_slider(at)["value"] == 20 and at.get("vega_lite_chart")[0].proto.id
    key = at.get("vega_lite_chart")[0].key
    at.session_state["test_report"] = {"shift_t": [{"shift_t": 90}]}
    run_page("", at)
    assert at.query_params["shift_t"] == "90"
    assert "**At t = 90**" in "\n".join(md.value for md in at.markdown)
    shown, row = metrics(at), chart_row(at, 90)
    assert shown["sinusoidal, added"] == f"{row['sinusoidal']:.2e}" and shown["learned table, added"] == "no row"
    assert live_slider(at)["value"] == 20 and at.get("vega_lite_chart")[0].key == key  # the same chart
    at.session_state["test_report"] = {"shift_t": [{"shift_t": 999}]}  # past this chart's reach: clamped
    run_page("", at)
    assert at.query_params["shift_t"] == "500"
    at.session_state["test_report"] = {"shift_t": [{"shift_t": 16}]}  # the default leaves the link
    run_page("", at)
    assert "shift_t" not in at.query_params and "**At t = 16**" in "\n".join(md.value for md in at.markdown)
    at.session_state["shift_t"] = 45  # set by something else (a tour step): a new chart, starting there
    run_page("", at)
    assert live_slider(at)["value"] == 45 and at.get("vega_lite_chart")[0].key != key
    assert at.query_params["shift_t"] == "45"


def test_the_chart_carries_every_n_and_every_d_of_its_windows_at_the_pages_t():
    """Besides every t at the page's N and d, the chart holds the test at the page's t for every N of a window
    around N, and for every d of a window around d (each d its own seeded q and k); the page narrows the N and d
    sliders to those windows; the numbers are posenc.shift_test_report's, computed here on their own."""
    at = run(shift_t="40")
    rows = chart_rows(at)
    (n_lo, n_hi), (d_lo, d_hi) = (
        (live_slider(at, k)["min"], live_slider(at, k)["max"]) for k in ("seq_len", "head_dim")
    )
    assert n_lo <= 64 <= n_hi and d_lo <= 64 <= d_hi and (n_lo, n_hi, d_lo, d_hi) != (1, 256, 2, 256)
    home = [r for r in rows if r["hand"] == 40 and r["b"] == 10000]
    assert sorted(r["n"] for r in home if r["d"] == 64) == list(range(int(n_lo), int(n_hi) + 1))
    assert sorted(r["d"] for r in home if r["n"] == 64) == list(range(int(d_lo), int(d_hi) + 1, 2))
    b_lo, b_hi = page_ranges(at)["base"].values()  # the base slider runs over the options' indices
    from explorer.compute.invariance import B_OPTIONS

    assert sorted(r["b"] for r in rows if r["hand"] == 40 and r["n"] == 64 and r["d"] == 64) == list(
        B_OPTIONS[int(b_lo) : int(b_hi) + 1]
    )
    for n, d in ((int(n_lo), 64), (100, 64), (int(n_hi), 64), (64, int(d_lo)), (64, 62), (64, int(d_hi))):
        row = chart_row(at, 40, n=n, d=d)
        q, k = posenc.seeded_normal((2, d), seed=0)  # the page's seeded vectors at that d
        report = posenc.shift_test_report(q, k, n_positions=n, offset=row["t"], table_len=128, seed=0)
        assert (row["rope"], row["sinusoidal"], row["tolerance"]) == (
            report["rope_dev"],
            report["sinusoidal_dev"],
            report["tolerance"],
        ), (n, d)
        assert row["t"] == 40 or (row["t"] < 40 and n > 64), (n, d)  # clamped to a larger N's shorter reach
    q, k = posenc.seeded_normal((2, 64), seed=0)
    for b in B_OPTIONS[int(b_lo) : int(b_hi) + 1]:  # the base arm: every number, the learned table's too
        row = chart_row(at, 40, n=64, d=64, b=b)
        report = posenc.shift_test_report(q, k, n_positions=64, offset=40, base=b, table_len=128, seed=0)
        got = (row["rope"], row["sinusoidal"], row["learned"], row["tolerance"])
        assert got == tuple(report[key] for key in ("rope_dev", "sinusoidal_dev", "learned_dev", "tolerance")), b
    said = "\n".join(c.value for c in at.caption)
    spans = f"**positions N** ({n_lo:.0f} … {n_hi:.0f}), **head dim d** ({d_lo:.0f} … {d_hi:.0f}), **base b** ("
    assert "Drag " + spans in said and text_sidebar() in said
    assert not [s for s in at.slider if s.key in ("seq_len", "head_dim", "shift_t")]  # the chart's own, only
    assert not [s for s in at.select_slider if s.key == "base"]


def test_a_drag_of_n_d_or_b_reaches_the_page_and_the_chart_keeps_its_view():
    """The chart reports N (then d, then b) when a drag ends: the page, the link and the numbers follow, the chart keeps
    its element and its spec's starts (the browser keeps the view and takes the new rows in place), and its rows
    are the new N's (and d's)."""
    at = AppTest.from_function(_page_after_a_report, default_timeout=60)
    at.session_state["test_page"] = PAGE
    at.session_state["test_reach"] = 500
    run_page("", at)
    key = at.get("vega_lite_chart")[0].key
    at.session_state["test_report"] = {"seq_len": [{"seq_len": 80}]}
    run_page("", at)
    assert at.query_params["seq_len"] == "80" and at.get("vega_lite_chart")[0].key == key
    assert live_slider(at, "seq_len")["value"] == 64  # the spec's start: unchanged
    shown = metrics(at)
    row = chart_row(at, 16, n=80, d=64)
    assert shown["RoPE (float64)"] == f"{row['rope']:.2e}" and shown["pass mark"] == f"{row['tolerance']:.1e}"
    assert "m, n < 80" in "\n".join(md.value for md in at.markdown)
    at.session_state["test_report"] = {"head_dim": [{"head_dim": 32}]}
    run_page("", at)
    assert at.query_params["head_dim"] == "32" and at.get("vega_lite_chart")[0].key == key
    row = chart_row(at, 16, n=80, d=32)
    q, k = posenc.seeded_normal((2, 32), seed=0)
    report = posenc.shift_test_report(q, k, n_positions=80, offset=16, table_len=128, seed=0)
    assert metrics(at)["sinusoidal, added"] == f"{report['sinusoidal_dev']:.2e}" == f"{row['sinusoidal']:.2e}"
    # the base slider runs over the options' indices: the page hears the option
    from explorer.compute.invariance import B_OPTIONS

    at.session_state["test_report"] = {"base": [{"base": B_OPTIONS.index(1000.0)}]}
    run_page("", at)
    assert at.query_params["base"] == "1000" and at.get("vega_lite_chart")[0].key == key
    report = posenc.shift_test_report(q, k, n_positions=80, offset=16, base=1000.0, table_len=128, seed=0)
    row = chart_row(at, 16, n=80, d=32, b=1000.0)
    assert metrics(at)["sinusoidal, added"] == f"{report['sinusoidal_dev']:.2e}" == f"{row['sinusoidal']:.2e}"
    # the learned table's rows: a chart slider too (no sidebar box); 40 rows cannot hold N − 1 + t = 95
    assert not [w for w in at.sidebar.number_input if w.key == "table_len"]
    assert metrics(at)["learned table, added"] != "no row"
    rows_before = chart_rows(at)
    at.session_state["test_report"] = {"table_len": [{"table_len": 40}]}
    run_page("", at)
    assert at.query_params["table_len"] == "40" and at.get("vega_lite_chart")[0].key == key
    assert live_slider(at, "table_len")["value"] == 128  # the spec's start: unchanged, the browser holds 40
    assert metrics(at)["learned table, added"] == "no row"
    assert "At t = 16 the learned table has no row" in notices(at) and "95" in notices(at)
    assert chart_rows(at) == rows_before  # the rows do not depend on the table's length: no new ones


# --- typed vectors --------------------------------------------------------------------------------
def test_typed_vectors_set_the_head_dim():
    at = run(qk_source="typed", q_text="1, 0, 0.5, -2", k_text="[0, 1, 2, 0.25]")
    assert_page_complete(at)
    assert not at.error
    assert any("head dim d = 4" in c.value for c in at.sidebar.caption)
    assert float(metrics(at)["RoPE (float64)"]) < 1e-9
    assert image_meta(chart_titled(at, "RoPE"))["shape"] == [64, 64]
    assert "d = 4" in main_chart(at)["description"]


@pytest.mark.parametrize(
    "q_text, k_text, message",
    [
        ("1, two, 3, 4", "1, 2, 3, 4", "item 2"),
        ("", "1, 2", "empty"),
        ("1, 2, 3", "1, 2, 3", "even number"),
        ("1, 2", "1, 2, 3, 4", "same number"),
        ("0, 0", "1, 2", "all zeros"),
        ("1e999, 1", "1, 2", "finite"),
        ("<b>1</b>, 2", "1, 2", "item 1"),
        # finite, but the scores or their pass mark would leave the normal numbers (overflow, or 1e-320 → 0)
        ("1e154, 1e154", "1e154, 1e154", "item 1 must be 0 or between"),
        ("1, 1e-160", "1, 2", "item 2 must be 0 or between"),
        ("1, 2", "3, -2e7", "item 2 must be 0 or between 1e-6 and 1e6"),
        ("1, 0.00000099999999", "1, 2", "got 9.9999999e-07"),  # not rounded onto the bound it breaks
        ("1000000.4, 1", "1, 2", "got 1000000.4"),
    ],
)
def test_typed_garbage_falls_back_to_seeded(q_text, k_text, message):
    at = run(qk_source="typed", q_text=q_text, k_text=k_text)
    assert_page_complete(at)
    (error,) = at.error
    assert message in error.value.replace("\\", "") and "seeded random vectors (d = 8)" in error.value
    assert float(metrics(at)["RoPE (float64)"]) < 1e-9
    assert "d = 8" in main_chart(at)["description"]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_typed_entries_at_the_ends_of_their_range_give_finite_scores(dtype):
    # the largest and smallest sizes a typed entry may have (compute.invariance.TYPED_MAGNITUDE), in both dtypes
    at = run(qk_source="typed", q_text="1e6, -1e-6", k_text="-1e6, 1e-6", score_dtype=dtype)
    assert_page_complete(at)
    assert not at.error
    shown = metrics(at)
    assert math.isfinite(float(shown[f"RoPE ({dtype})"])) and float(shown["pass mark"]) > 0


# --- the learned table runs out -------------------------------------------------------------------
def test_shift_past_the_learned_table_is_an_error_not_a_guess():
    at = run(shift_t=200)  # needs rows up to 63 + 200 = 263, the table has 128
    assert_page_complete(at)
    assert metrics(at)["learned table, added"] == "no row"
    assert badges(at)[2] == ":gray-badge[cannot run: no row]"
    assert any("t = 200" in i.value and "263" in i.value and "cannot extrapolate" in i.value for i in at.info)
    assert verdicts(chart_row(at, 200)) == ["pass", "fail", "n/a"]
    assert verdicts(chart_row(at, 64)) == ["pass", "fail", "fail"]  # 63 + 64 = 127: the table's last row
    assert verdicts(chart_row(at, 65))[2] == "n/a"
    assert "Push t" not in notices(at) and "At t = 200 the learned table has no row" in notices(at)


def test_positions_beyond_the_table_have_no_heatmap():
    at = run(seq_len=200, table_len=100)
    assert_page_complete(at, n_charts=N_CHARTS["Scores"] - 1)
    (scores,) = [t for t in at.tabs if t.label == "Scores"]
    assert any("199" in i.value for i in scores.info)
    assert float(metrics(at)["RoPE (float64)"]) < 1e-9


# --- extremes ------------------------------------------------------------------------------------
def test_every_control_at_its_minimum():
    views = run_views(**MINIMUM)
    for view, at in views.items():
        assert_page_complete(at, view)
        assert not at.warning and not at.error
        assert live_slider(at, "seq_len")["value"] == 1 and live_slider(at)["value"] == 1
        assert live_slider(at, "head_dim")["value"] == 2
        assert float(metrics(at)["RoPE (float64)"]) < 1e-9
    assert image_meta(chart_titled(views["Scores"], "RoPE"))["shape"] == [1, 1]
    assert chart_titled(views["Sinusoid shift"], "R_k for k = 1 (2 × 2, concatenated layout)")
    res = chart_titled(views["Sinusoid shift"], "PE(p + 1) = R_k·PE(p) for every p")
    assert len(frame(res, find(res, "line")[0])) == 1  # one position
    # one pair: |e^(i·r·θ_0)| = 1 at every distance, so the bound is flat and the page says so
    decay = chart_titled(views["Decay"], "RoPE's score bound is flat: 1 at every distance")
    assert "d = 2, base = 10" in decay["title"]["subtitle"]
    assert set(frame(decay, find(decay, "line")[0])["bound"].round(12)) == {1.0}
    assert "it is 1 at every distance and does not fall" in notices(views["Decay"])
    assert "With N = 1 the heatmaps (tab **Scores**) have one cell each" in notices(views["Decay"])


def test_every_control_at_its_maximum():
    """At N = d = 256 the shift test's chart reaches t = 20 only (shift_reach): the link's 1000 is
    clamped to it, with a notice naming the parameter."""
    views = run_views(**MAXIMUM)
    for view, at in views.items():
        assert_page_complete(at, view)
        assert not at.error
        (warning,) = at.warning
        assert "shift\\_t" in warning.value and "1000" in warning.value and "used 20 instead" in warning.value
        assert live_slider(at) == {"value": 20, "min": 1, "max": 20}
        assert at.query_params["shift_t"] == "20"
        shown = metrics(at)
        assert float(shown["RoPE (float32)"]) <= float(shown["pass mark"])
        assert float(shown["sinusoidal, added"]) > 10 * float(shown["pass mark"])
        assert badges(at) == [RUNS_OK, FAILS, FAILS]  # 255 + 20 is within the longest table (4096 rows)
    assert image_meta(chart_titled(views["Scores"], "RoPE"))["shape"] == [256, 256]
    assert chart_titled(views["Sinusoid shift"], "R_k for k = 20 (256 × 256, interleaved layout)")
    (decay,) = [c for c in charts(views["Decay"]) if c.get("title", {}).get("text", "").startswith(DECAY_SHRINKS)]
    assert "d = 256, base = 1e+06" in decay["title"]["subtitle"]


def test_seq_len_above_the_page_maximum_is_clamped():
    at = run(seq_len=5000)
    assert_page_complete(at, n_charts=N_CHARTS["Scores"] - 1)  # 256 positions, the table has 128 rows
    assert live_slider(at, "seq_len")["value"] == 256 and at.query_params["seq_len"] == "256"
    assert any("seq" in w.value and "256" in w.value for w in at.warning)


# --- bad URLs ------------------------------------------------------------------------------------
def test_garbage_in_every_url_parameter():
    at = run(**{key: "abc" for key in KEYS})
    assert_page_complete(at, "Scores")  # inv_view=abc: the first tab is open
    assert chart_titles(at) == [MAIN_CHART, *TAB_CHARTS["Scores"]]
    (warning,) = at.warning
    for key in KEYS:
        if key not in ("q_text", "k_text"):  # text is never garbage to the URL; random mode hides them
            assert key.replace("_", "\\_") in warning.value
    assert "inv_view" not in at.query_params
    assert not at.error
    assert badges(at) == [RUNS_OK, FAILS, FAILS]


@pytest.mark.parametrize("view", VIEWS)
def test_garbage_in_the_other_parameters_with_each_tab_open(view):
    at = run(**{key: "abc" for key in KEYS if key != "inv_view"}, inv_view=view)
    assert_page_complete(at, view)
    assert chart_titles(at) == [MAIN_CHART, *TAB_CHARTS[view]]  # every value back at its default
    (warning,) = at.warning
    assert "shift\\_t" in warning.value and "inv\\_view" not in warning.value
    assert dict(at.query_params).get("inv_view", VIEWS[0]) == view


def test_garbage_typed_text_from_the_url():
    at = run(qk_source="typed", q_text="abc", k_text="abc")
    assert_page_complete(at)
    (error,) = at.error
    assert "item 1" in error.value


@pytest.mark.parametrize("value", ["1e9", "-5", "nan", "inf", "3.5", "<script>", ""])
def test_out_of_range_numbers(value):
    at = run(seq_len=value, shift_t=value, table_len=value, seed=value)
    assert_page_complete(at)
    assert live_slider(at)["value"] == 16 and "shift_t" not in at.query_params


def test_typed_text_is_shown_literally_never_as_markup():
    at = run(qk_source="typed", q_text="[x](http://example.com), <b>2</b>", k_text="1, 2")
    (error,) = at.error
    assert "[x](" not in error.value and "\\[x\\]" in error.value


@pytest.mark.parametrize(
    "query",
    [
        {},
        {"shift_t": "1", "seq_len": "2", "score_dtype": "float32"},
        {"qk_source": "typed", "q_text": "0, 0", "k_text": "1, 1"},
        {"shift_t": "500", "table_len": "64", "base": "10"},
    ],
    ids=["defaults", "small", "zero-q", "past-the-table"],
)
def test_the_headline_and_the_round_off_sentence_follow_the_verdicts(query):
    """The chart's verdicts at the reported t are the badges', so its headline (the survivors phrase of
    those verdicts, picked in the browser) names exactly the methods whose badge says PASS; and the
    notice calls RoPE's deviation round-off only when it is under the pass mark shown."""
    at = run(**query)
    assert not at.exception
    t = live_slider(at)["value"]
    badge_of = {"pass": RUNS_OK, "fail": FAILS, "n/a": ":gray-badge[cannot run: no row]"}
    assert [badge_of[v] for v in verdicts(chart_row(at, t))] == badges(at)
    m = metrics(at)
    rope_dev = float(next(v for k, v in m.items() if k.startswith("RoPE")))
    mark = float(m["pass mark"])
    text = next(md.value for md in at.markdown if md.value.startswith("**What to notice**"))
    assert ("is round-off, under the pass mark" in text) == (rope_dev <= mark)


def test_on_the_dark_theme_the_score_maps_and_r_k_are_their_own_images_dark_where_zero(monkeypatch):
    """The Scores tab's three maps and the shift tab's R_k are drawn for the theme the browser shows
    (explorer.render.dark_theme): on the dark theme R_k's zero cells sit just off the dark card (redblue's near-white
    glared there) and every map is drawn for the dark card (its legend's colours are its image's); a light session and a
    dark one never get each other's images from the charts every session shares."""
    from _chartspec import contrast

    from explorer import render
    from explorer.charts import style

    def looks() -> tuple[str, int]:
        images = [
            s
            for view in ("Scores", "Sinusoid shift")
            for s in charts(run(inv_view=view, seq_len=16))
            if find(s, "image")
        ]
        assert len(images) == 4
        r_k = images[-1]
        zero = hex_colour(png_pixels(r_k)[0, 5])  # R_k is zero off its 2 × 2 blocks
        return zero, sum(style.DARK_REDBLUE[0] in str(s) for s in images)  # legends built for the dark card

    light = looks()
    assert contrast(light[0], style.CARD_BACKGROUND) < 1.2 and light[1] == 0  # the light theme: as before
    monkeypatch.setattr(render, "dark_theme", lambda: True)
    dark = looks()
    assert contrast(dark[0], style.DARK_BACKGROUND) < 1.3 and dark[1] == 4
    monkeypatch.setattr(render, "dark_theme", lambda: False)
    assert looks() == light
