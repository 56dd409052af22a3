"""Chart builders of the relative-invariance page (explorer/charts/invariance.py), via to_dict():
marks, encodings, titles and data values against numbers computed here independently."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from _chartspec import (
    by_field,
    contrast,
    diverging_on_dark,
    find,
    frame,
    hex_colour,
    layers,
    legible,
    png_pixels,
    unit_rows,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc
from explorer.charts import invariance as charts
from explorer.charts import live, style
from explorer.imagechart import colorize
from explorer.imagechart import meta as image_meta
from explorer.text import invariance as text


def ref_scores(q, k, positions, base=10000.0):
    """s(m, n) = Σ_j over half-layout pairs of the rotated q·k, written as a loop with math."""
    d = len(q)
    h = d // 2
    out = np.zeros((len(positions), len(positions)))
    for a, m in enumerate(positions):
        for b, n in enumerate(positions):
            total = 0.0
            for j in range(h):
                th = base ** (-2 * j / d)
                cm, sm, cn, sn = math.cos(m * th), math.sin(m * th), math.cos(n * th), math.sin(n * th)
                qa, qb = q[j] * cm - q[j + h] * sm, q[j] * sm + q[j + h] * cm
                ka, kb = k[j] * cn - k[j + h] * sn, k[j] * sn + k[j + h] * cn
                total += qa * ka + qb * kb
            out[a, b] = total
    return out


# --------------------------------------------------------------------------------- heatmaps
def test_score_heatmap_draws_the_scores(rng):
    q, k = rng.normal(size=(2, 8))
    pos = np.arange(12.0)
    scores = posenc.rope_score_matrix(q, k, pos, pos)
    spec = charts.score_heatmap(scores, pos, title="RoPE", subtitle="constant diagonals").to_dict()
    meta = image_meta(spec)
    assert meta["shape"] == [12, 12] and meta["reduce"] == "none"
    lo, hi = meta["domain"]
    assert lo == -hi == pytest.approx(-np.abs(scores).max())
    pixels = png_pixels(spec)
    expected = colorize(ref_scores(q, k, range(12)), scheme="redblue", domain=(lo, hi))
    assert np.mean(np.all(pixels == expected, axis=-1)) > 0.99
    # hover rects carry exact values at their centre cells
    hover = [layer for layer in layers(spec) if "tooltip" in layer.get("encoding", {})]
    cells = frame(spec, hover[0])
    ref = ref_scores(q, k, range(12))
    for row in cells.itertuples():
        assert row.value == pytest.approx(ref[int(row.yv), int(row.xv)], abs=1e-12)
    enc = hover[0]["encoding"]
    assert enc["x"]["title"] == "key position n" and enc["y"]["title"] == "query position m"
    legend = [layer for layer in layers(spec) if "color" in layer.get("encoding", {})]
    assert len(legend) == 1 and legend[0]["encoding"]["color"]["legend"]["orient"] == "bottom"
    assert sorted(frame(spec, legend[0])["value"]) == [lo, hi]
    assert spec["title"] == {"text": "RoPE", "subtitle": "constant diagonals", "anchor": "start"}
    # drawn on a canvas: its hover grid as SVG nodes took ~110 ms of every redraw in the browser
    assert spec["usermeta"]["embedOptions"]["renderer"] == "canvas"
    legible(spec)


def test_score_heatmap_hover_grid_is_coarse_but_exact(rng):
    """At N = 64 the hover grid is coarse (about 20 px a rect on the 330 × 420 plot: 16 × 16 rects of
    4 × 4 cells); together they cover every (m, n) once, and each reports the exact score of a real
    cell inside it (its centre)."""
    q, k = rng.normal(size=(2, 8))
    pos = np.arange(64.0)
    spec = charts.score_heatmap(posenc.rope_score_matrix(q, k, pos, pos), pos, title="RoPE").to_dict()
    hover = [layer for layer in layers(spec) if "tooltip" in layer.get("encoding", {})]
    cells = frame(spec, hover[0])
    assert len(cells) == 256
    covered = np.zeros((64, 64), dtype=int)
    ref = ref_scores(q, k, range(64))
    for row in cells.itertuples():  # a rect spans cell edges: position ± 0.5
        m0, m1, n0, n1 = (int(round(v + 0.5)) for v in (row.y0, row.y1, row.x0, row.x1))
        covered[m0:m1, n0:n1] += 1
        assert m0 <= row.yv < m1 and n0 <= row.xv < n1
        assert row.value == pytest.approx(ref[int(row.yv), int(row.xv)], abs=1e-12)
    assert np.all(covered == 1)


def test_score_heatmap_rejects_wrong_shape():
    with pytest.raises(ValueError, match="square"):
        charts.score_heatmap(np.zeros((3, 4)), np.arange(3), title="t")


def test_shift_matrix_heatmap_matches_loop():
    d, k = 8, 3
    spec = charts.shift_matrix_heatmap(posenc.shift_matrix(k, d), k=k, layout="interleaved").to_dict()
    ref = np.zeros((d, d))
    for j in range(d // 2):
        th = 10000.0 ** (-2 * j / d)
        c, s = math.cos(k * th), math.sin(k * th)
        ref[2 * j, 2 * j], ref[2 * j, 2 * j + 1], ref[2 * j + 1, 2 * j], ref[2 * j + 1, 2 * j + 1] = c, s, -s, c
    pixels = png_pixels(spec)
    assert np.array_equal(pixels, colorize(ref, scheme="redblue", domain=(-1.0, 1.0)))
    assert image_meta(spec)["domain"] == [-1.0, 1.0]
    assert spec["title"]["text"] == "R_k for k = 3 (8 × 8, interleaved layout)"
    legible(spec)


# ------------------------------------------------------------------------------ deviations
SEED, N_POS, TABLE, D, T0, B0 = 3, 12, 40, 8, 16, 10000.0
#: The learned table the rows are computed with, as the page computes them: long enough for every point (a seeded
#: table's rows do not depend on its length), while the chart's table slider starts at TABLE rows.
LONG_TABLE = 1100
TABLE_SPAN = (8, 4096)
SPAN_D = (2, 256, 2)
B_OPTIONS = (10.0, 100.0, 500.0, 1000.0, 10000.0, 50000.0, 100000.0)  # a base slider's options, as the chart gets them
B_ARM = (1000.0, 10000.0, 50000.0)


def b_index(b: float) -> int:
    """The base slider's position (it runs over the options' indices)."""
    return B_OPTIONS.index(b)


def sweep_table(t_max=60, dtype="float64", d=D, n_pos=N_POS, table_len=LONG_TABLE) -> pd.DataFrame:
    """posenc.shift_test_sweep at every t in 1 … t_max, as the page passes it to `live_rows`."""
    q, k = posenc.seeded_normal((2, d), seed=SEED)
    sweep = posenc.shift_test_sweep(
        q, k, n_positions=n_pos, offsets=np.arange(1, t_max + 1), dtype=dtype, table_len=table_len, seed=SEED
    )
    return charts.sweep_frame(sweep)


def arm_tables(dtype="float64", t=T0, n_span=(1, 20), d_span=(2, 12)) -> list[pd.DataFrame]:
    """The N arm (every N in n_span at head dim D), the d arm (every even d in d_span at N_POS, each with its own
    seeded vectors) and the b arm (B_ARM at N_POS and D), at the slider's t (the cap 1000 is past every reach
    here)."""
    settings = dict(dtype=dtype, table_len=LONG_TABLE, seed=SEED)
    q, k = posenc.seeded_normal((2, D), seed=SEED)
    ns = np.arange(n_span[0], n_span[1] + 1)
    along_n = posenc.shift_test_points(q, k, n_positions=ns, offsets=[t] * ns.size, **settings)
    frames = [charts.points_frame(along_n, d=D, b=B0, hand=t)]
    for d in range(d_span[0], d_span[1] + 1, 2):
        qd, kd = posenc.seeded_normal((2, d), seed=SEED)
        frames.append(
            charts.points_frame(
                posenc.shift_test_points(qd, kd, n_positions=[N_POS], offsets=[t], **settings), d=d, b=B0, hand=t
            )
        )
    for b in B_ARM:
        at_b = posenc.shift_test_points(q, k, n_positions=[N_POS], offsets=[t], base=b, **settings)
        frames.append(charts.points_frame(at_b, d=D, b=b, hand=t))
    return frames


def rows_table(dtype="float64", sweep=None, arms=None) -> pd.DataFrame:
    sweep = sweep_table(dtype=dtype) if sweep is None else sweep
    return charts.live_rows(sweep, n_pos=N_POS, d=D, b=B0, arms=arm_tables(dtype) if arms is None else arms)


#: Which points `rows_table` holds: every t at (N_POS, D), N 1 … 20 at (D, T0), d 2 … 12 at (N_POS, T0).
REACH = {"seq_len": (1, 20), "head_dim": (2, 12), "base": (B_ARM[0], B_ARM[-1]), "shift_t": (1, 60)}


def home_table(typed=False) -> pd.DataFrame:
    reach = {k: v for k, v in REACH.items() if not (typed and k == "head_dim")}
    return charts.home_frame(N_POS, D, B0, T0, reach)


def deviation_spec(rows=None, start=T0, dtype="float64", typed=False) -> dict:
    rows = rows_table(dtype=dtype) if rows is None else rows
    starts = {"seq_len": N_POS, "base": B0, "shift_t": start, "table_len": TABLE, **({} if typed else {"head_dim": D})}
    return charts.deviation_chart(
        rows,
        home_table(typed),
        starts=starts,
        dtype=dtype,
        n_max=256,
        d_range=None if typed else SPAN_D,
        t_cap=1000,
        b_options=B_OPTIONS,
        table_span=TABLE_SPAN,
        typed_d=D if typed else None,
    ).to_dict()


def calculated(layer: dict) -> dict[str, str]:
    """{field: Vega expression} of a layer's calculate transforms."""
    return {t["as"]: t["calculate"] for t in layer.get("transform", []) if "calculate" in t}


def report_at(n: int, d: int, t: int, b: float = B0, table_len: int = TABLE) -> dict:
    """posenc.shift_test_report on the seeded vectors of head dim d, computed here on its own."""
    q, k = posenc.seeded_normal((2, d), seed=SEED)
    return posenc.shift_test_report(q, k, n_positions=n, offset=t, base=b, table_len=table_len, seed=SEED)


def assert_row_is_the_report(row, n: int, d: int, t: int, b: float = B0, table_len: int = TABLE) -> None:
    """A drawn row (the bars' transforms run, the table slider at `table_len`) is the report at that table length."""
    report = report_at(n, d, t, b, table_len)
    assert (row["rope"], row["sinusoidal"], row["tolerance"]) == (
        report["rope_dev"],
        report["sinusoidal_dev"],
        report["tolerance"],
    ), (n, d, t)
    if report["learned_dev"] is None:
        assert row["learned_held"] is None or math.isnan(row["learned_held"]), (n, d, t)
    else:
        assert row["learned_held"] == report["learned_dev"], (n, d, t)


def test_the_chart_picks_the_shift_test_at_its_sliders_n_d_b_and_t():
    """The data sent once: every t at the page's N, d and b, every N of a window at its t, every d of a window and
    every base of a window at its N and t; at each slider setting the browser picks (the bars' transforms, run here)
    the one row whose numbers are posenc.shift_test_report's at that N, d, b and t, computed here on its own; where
    no row answers (two sliders moved before the page caught up), no bar."""
    spec = deviation_spec()
    (bars,) = find(spec, "bar")
    settings = [(N_POS, D, B0, t) for t in (1, 16, 28, 29, 60)]  # the table (40 rows) has a row for 11 + t ≤ 39
    settings += [(n, D, B0, T0) for n in (1, 5, 20)] + [(N_POS, d, B0, T0) for d in (2, 6, 12)]
    settings += [(N_POS, D, b, T0) for b in B_ARM]
    for n, d, b, t in settings:
        drawn_rows = unit_rows(spec, bars, seq_len=n, head_dim=d, base=b_index(b), shift_t=t)
        assert set(drawn_rows["n"]) == {n} and set(drawn_rows["d"]) == {d} and set(drawn_rows["t"]) == {t}
        assert set(drawn_rows["b"]) == {b}
        ok = drawn_rows[drawn_rows["key"] == "rope"].iloc[0]
        assert_row_is_the_report(ok, n, d, t, b)
        report = report_at(n, d, t, b)
        want = [
            f"{report[f'{key}_dev']:.2e} · {'pass' if report[f'{key}_dev'] <= report['tolerance'] else 'fail'}"
            for key in ("rope", "sinusoidal", "learned")
            if report[f"{key}_dev"] is not None and report[f"{key}_dev"] > 0
        ]
        assert [x for x in drawn_rows["text"] if "(exact)" not in x] == want  # the labels Python would write
    assert unit_rows(spec, bars, seq_len=5, head_dim=6, shift_t=T0).empty  # two sliders moved: no row
    assert unit_rows(spec, bars, seq_len=5, head_dim=D, shift_t=20).empty
    assert unit_rows(spec, bars, seq_len=5, base=b_index(1000.0), shift_t=T0).empty
    params = {p["name"]: p for p in spec["params"]}
    for key, (lo, hi, step), start, label in (
        ("seq_len", (1, 256, 1), N_POS, "positions N "),
        ("head_dim", SPAN_D, D, "head dim d "),
        ("base", (0, len(B_OPTIONS) - 1, 1), b_index(B0), "base b "),
        ("shift_t", (1, 1000, 1), T0, "shift t "),
        ("table_len", (*TABLE_SPAN, 1), TABLE, "learned table rows "),
    ):
        param = params[key]
        assert param["select"] == {"type": "point", "fields": [key], "on": "none", "clear": False}
        assert param["value"] == start and param["bind"]["input"] == "range" and param["bind"]["name"] == label
        assert (param["bind"]["min"], param["bind"]["max"], param["bind"].get("step", 1)) == (lo, hi, step)
    # vega-embed lists the inputs in reverse order of the params: N first, then d, b, t and the table's rows
    assert [p["name"] for p in spec["params"] if "bind" in p and p["name"] in params] == [
        "table_len",
        "shift_t",
        "base",
        "head_dim",
        "seq_len",
    ]


@settings(max_examples=40, deadline=None)
@given(
    past=st.integers(-2, 2) | st.integers(-100, 4096),
    t=st.integers(1, 60),
    n=st.integers(1, 20),
    arm=st.sampled_from("tnb"),
)
def test_the_table_slider_hides_the_learned_bar_exactly_where_the_report_has_no_row(past, t, n, arm):
    """The learned table's rows are the chart's slider too, with no data of its own: the rows hold the learned test
    with a table long enough for every point, and at any table length the bars drawn (transforms run here) are
    posenc.shift_test_report's at that length, computed here on its own: its number where the table has a row for
    N − 1 + t, "no row" where it has none; the headline's verdict follows. The table's length is drawn around the
    last position the test needs (`past` rows beyond it), where a wrong comparison would show."""
    spec = deviation_spec()
    (values,) = by_field(spec, "text", "text", "text")  # a row per encoding, with or without a number
    point = {"t": dict(n=N_POS, t=t, b=B0), "n": dict(n=n, t=T0, b=B0), "b": dict(n=N_POS, t=T0, b=B_ARM[t % 3])}[arm]
    table_len = min(max(point["n"] - 1 + point["t"] + past, TABLE_SPAN[0]), TABLE_SPAN[1])
    at = dict(seq_len=point["n"], head_dim=D, base=b_index(point["b"]), shift_t=point["t"], table_len=table_len)
    report = report_at(point["n"], D, point["t"], point["b"], table_len)
    drawn = unit_rows(spec, values, **at).set_index("key")
    assert_row_is_the_report(drawn.loc["rope"], point["n"], D, point["t"], point["b"], table_len)
    learned = drawn.loc[charts.SHOWN["learned"]]
    if report["learned_dev"] is None:
        assert learned["text"] == text.NO_ROW and not learned["ok"]
    else:
        assert learned["deviation"] == report["learned_dev"] and learned["ok"]
    (headline,) = by_field(spec, "text", "text", "lines")
    up_to_code = {**headline, "transform": [t for t in headline["transform"] if t.get("as") not in ("lines", "top")]}
    (line,) = unit_rows(spec, up_to_code, **at)["code"]
    passed = [
        report[f"{key}_dev"] is not None and report[f"{key}_dev"] <= report["tolerance"]
        for key in ("rope", "sinusoidal", "learned")
    ]
    assert line == 4 * passed[0] + 2 * passed[1] + passed[2]


def test_where_no_row_answers_a_note_says_what_the_chart_holds():
    """The note is drawn exactly where the bars find no row (checked at every combination of a grid of N, d, b and t
    around the home point), and names the point the rows were computed from."""
    spec = deviation_spec()
    (bars,) = find(spec, "bar")
    (note,) = [layer for layer in layers(spec) if layer.get("name") == "shift_not_held"]
    for n in (1, 12, 13, 20, 21):
        for d in (2, 8, 12, 14):
            for b in (500.0, 1000.0, B0, 50000.0, 100000.0):
                for t in (1, 16, 17, 60, 61):
                    at = dict(seq_len=n, head_dim=d, base=b_index(b), shift_t=t)
                    has_row = not unit_rows(spec, bars, **at).empty
                    noted = unit_rows(spec, note, **at)
                    assert has_row != (len(noted) == 1), (n, d, b, t)
    (lines,) = unit_rows(spec, note, seq_len=5, head_dim=6, shift_t=T0)["note"]
    assert lines == [*charts.NOT_HELD[:3], f"N = {N_POS}, d = {D}, b = 10,000 and t = {T0}.", *charts.NOT_HELD[3:]]
    typed = deviation_spec(typed=True)
    (note,) = [layer for layer in layers(typed) if layer.get("name") == "shift_not_held"]
    (lines,) = unit_rows(typed, note, seq_len=5, shift_t=T0 + 1)["note"]
    assert lines[3] == f"N = {N_POS}, b = 10,000 and t = {T0}."
    assert unit_rows(typed, note, seq_len=5, shift_t=T0).empty


def test_with_typed_vectors_the_chart_has_no_d_slider():
    spec = deviation_spec(typed=True)
    assert "head_dim" not in {p["name"] for p in spec["params"]}
    (bars,) = find(spec, "bar")
    drawn_rows = unit_rows(spec, bars, seq_len=7, shift_t=T0)
    assert set(drawn_rows["n"]) == {7} and set(drawn_rows["d"]) == {D}
    assert "head dim d = 8" in spec["description"]


def test_the_rows_hold_each_point_once_the_sweeps_first():
    """live_rows: the sweep's rows answer the slider's t at the page's N and d; an arm's row at that same point is
    the same numbers and is dropped; every row carries the axis's ends (`deviation_axis` of all rows)."""
    sweep, arms = sweep_table(), arm_tables()
    rows = charts.live_rows(sweep, n_pos=N_POS, d=D, b=B0, arms=arms)
    assert list(rows.columns) == list(charts.ROW_COLUMNS)
    assert not rows.duplicated(["n", "d", "b", "hand"]).any()
    assert len(rows) == 60 + 20 + 6 + 3 - 3  # N = 12, d = 8 and b = 10,000 at t = 16 are the sweep's
    along_t = rows[(rows["n"] == N_POS) & (rows["d"] == D) & (rows["b"] == B0)].set_index("hand")
    assert along_t.loc[T0, "rope"] == sweep.set_index("t").loc[T0, "rope"]
    floor, top = charts.deviation_axis(pd.concat([sweep, *arms]))
    assert set(rows["lo"]) == {floor} and set(rows["hi"]) == {top}
    assert (rows["hand"] == rows["t"]).all()  # nothing clamped here: every t is within reach


def test_the_bars_verdicts_and_labels_are_computed_from_the_row():
    spec = deviation_spec()
    (bars,) = find(spec, "bar")
    expr = calculated(bars)
    assert expr["verdict"] == "!datum.ok ? 'n/a' : datum.deviation <= datum.tolerance ? 'pass' : 'fail'"
    assert expr["ok"] == "isValid(datum.deviation) && isFinite(datum.deviation)"
    assert {"filter": "datum.ok"} in bars["transform"]  # an encoding with no number has no bar
    fold = next(t for t in bars["transform"] if "fold" in t)
    # the learned test as the table slider allows it (its own field, `charts.SHOWN`)
    assert fold == {"fold": ["rope", "sinusoidal", "learned_held"], "as": ["key", "deviation"]}
    # the label: Python's format of the number (explorer.charts.live.sci), "0 (exact)", or the note
    assert live.sci("datum.deviation", 2) in expr["text"] and "'0 (exact)'" in expr["text"]
    assert f"'{text.NO_ROW}'" in expr["text"] and "' · ' + datum.verdict" in expr["text"]
    assert expr["text_x"] == "max(datum.shown, datum.tolerance)"  # never across the pass mark's rule
    rule, over_bars = find(spec, "rule", strokeDash=[6, 4])  # the full-height mark, and its segments over the bars
    assert rule["encoding"]["x"]["field"] == over_bars["encoding"]["x"]["field"] == "tolerance"
    (mark_label,) = by_field(spec, "text", "text", "label")
    assert calculated(mark_label)["label"] == f"'pass mark ' + {live.sci('datum.tolerance', 1)}"
    # the names above the bars, in a fixed order; no y axis
    names = by_field(spec, "text", "text", "name")[0]
    assert names["encoding"]["y"]["scale"]["domain"] == ["RoPE (float64)", "sinusoidal PE added", "learned table added"]
    assert names["encoding"]["y"]["axis"] is None
    # the learned table's name says how far the slider's table reaches and which row the test needs
    at = dict(seq_len=N_POS, head_dim=D, shift_t=T0, table_len=57, font_scale=1)
    written = unit_rows(spec, names, **at, width=620).set_index("key")["name"]
    assert written.tolist() == [
        "RoPE (float64)",
        "sinusoidal PE added",
        f"learned table added (rows 0 … 56; the test needs row {N_POS - 1 + T0})",
    ]
    narrow = unit_rows(spec, names, **at, width=330)  # a phone's plot
    assert narrow.set_index("key")["name"].iloc[-1] == f"learned table (rows 0 … 56, needs {N_POS - 1 + T0})"
    assert (
        unit_rows(spec, names, **{**at, "font_scale": 1.5}, width=620)
        .set_index("key")["name"]
        .iloc[-1]
        .startswith("learned table (")
    )  # presentation mode's larger text: the short form at a width the long one would overflow
    assert "RoPE (float32)" in calculated(find(deviation_spec(dtype="float32"), "bar")[0])["method"]
    # at a point past the table, the learned bar is gone and its label says why
    drawn_rows = unit_rows(spec, bars, seq_len=N_POS, head_dim=D, shift_t=40)
    assert drawn_rows["key"].tolist() == ["rope", "sinusoidal"]
    legible(spec)


def test_each_name_is_drawn_over_a_halo_above_the_pass_marks_rule():
    """The pass mark's dashed rule runs through the names above the bars where the mark sits left (at 1e-12 on the log
    axis it crossed "sinusoidal PE added" at every width): each name is drawn over the same text stroked wide in the
    card's colour (dark on the dark theme), both after the rule."""
    from explorer.charts import style

    all_layers = layers(deviation_spec())
    marks = [(layer["mark"] if isinstance(layer["mark"], dict) else {"type": layer["mark"]}) for layer in all_layers]
    rule = next(i for i, m in enumerate(marks) if m["type"] == "rule" and m.get("strokeDash"))
    named = [
        i for i, layer in enumerate(all_layers) if layer.get("encoding", {}).get("text", {}).get("field") == "name"
    ]
    assert len(named) == 2 and rule < named[0] < named[1]
    halo, name = (marks[i] for i in named)
    assert halo["color"] == halo["stroke"] == style.HALO and halo["strokeWidth"] >= 4
    assert name["color"] == "#0F172A" and "stroke" not in name
    assert {k: halo[k] for k in ("dy", "fontSize", "align", "baseline")} == {
        k: name[k] for k in ("dy", "fontSize", "align", "baseline")
    }
    dark = style.style_spec(deviation_spec(), dark=True)
    dark_halo = layers(dark)[named[0]]["mark"]
    assert dark_halo["stroke"] == style.DARK_BACKGROUND  # the dark card's own colour: no glow around the name


def test_the_headline_names_the_survivors_of_every_verdict_and_the_t():
    """The headline's phrases are survivors_title's, one per combination of verdicts, picked by a code
    whose bits are the three verdicts; "by t = …" carries the row's t (the t its numbers are at); wrapped by the
    chart's width."""
    phrases = charts.survivor_phrases()
    for code, phrase in enumerate(phrases):
        nums = {
            "rope_dev": 0.0 if code & 4 else 1.0,
            "sinusoidal_dev": 0.0 if code & 2 else 1.0,
            "learned_dev": 0.0 if code & 1 else None,
        }
        assert phrase == text.survivors_title(nums, 0.5)
    assert phrases[4] == "Only RoPE's scores survive the shift" and phrases[0].startswith("No ")
    spec = deviation_spec()
    (headline,) = by_field(spec, "text", "text", "lines")
    expr = calculated(headline)
    assert expr["code"] == (
        "(isValid(datum.rope) && datum.rope <= datum.tolerance ? 4 : 0) + "
        "(isValid(datum.sinusoidal) && datum.sinusoidal <= datum.tolerance ? 2 : 0) + "
        "(isValid(datum.learned_held) && datum.learned_held <= datum.tolerance ? 1 : 0)"
    )
    assert "replace(join(" in expr["lines"] and "'0000', datum.t)" in expr["lines"]
    widest = json.loads(expr["lines"][expr["lines"].index("? ") + 2 : expr["lines"].index(" : (")])
    assert [" ".join(lines) for lines in widest] == [f"{p} by t = 0000" for p in phrases]
    assert any(p["name"] == "font_scale" for p in spec["params"])  # presentation mode's larger text


def test_the_headline_says_the_t_a_clamped_row_is_at():
    """Dragged to an N whose reach is shorter than the slider's t, the row is the test at that reach (as the page
    clamps t on release): the bars are its numbers, and the headline's "by t = …" is the row's t."""
    sweep = sweep_table()
    q, k = posenc.seeded_normal((2, D), seed=SEED)
    clamped = posenc.shift_test_points(q, k, n_positions=[30], offsets=[20], table_len=LONG_TABLE, seed=SEED)
    rows = charts.live_rows(sweep, n_pos=N_POS, d=D, b=B0, arms=[charts.points_frame(clamped, d=D, b=B0, hand=T0 + 10)])
    spec = deviation_spec(rows, start=T0)
    (bars,) = find(spec, "bar")
    drawn_rows = unit_rows(spec, bars, seq_len=30, head_dim=D, shift_t=T0 + 10)
    assert set(drawn_rows["t"]) == {20} and set(drawn_rows["hand"]) == {T0 + 10}
    assert_row_is_the_report(drawn_rows.iloc[0], 30, D, 20)
    (headline,) = by_field(spec, "text", "text", "lines")
    assert "'0000', datum.t)" in calculated(headline)["lines"]


def test_the_axis_spans_every_row_and_is_in_the_data_not_the_spec():
    """The log axis is the same at every point: an invisible rule over the whole table spans lo … hi (columns of every
    row), and no layer's scale names a domain, so new rows change only the data."""
    rows = rows_table()
    spec = deviation_spec(rows)
    (axis,) = [layer for layer in layers(spec) if layer.get("name") == "shift_axis"]
    assert axis["mark"]["opacity"] == 0 and axis["transform"] == [
        {"aggregate": [{"op": "min", "field": "lo", "as": "lo"}, {"op": "max", "field": "hi", "as": "hi"}]}
    ]
    ((spanned,),) = [unit_rows(spec, axis).to_dict("records")]
    floor, top = charts.deviation_axis(rows)
    assert (spanned["lo"], spanned["hi"]) == (floor, top)
    for layer in layers(spec):
        x = layer.get("encoding", {}).get("x", {})
        if "scale" in x:
            assert x["scale"] == {"type": "log", "nice": False}
    devs = rows[["rope", "sinusoidal", "learned"]].to_numpy().ravel()
    # a log axis has no place for 0: a RoPE deviation that is exactly 0 (the scores equal to the last bit, as one CI
    # run's BLAS gave) is drawn at the floor, which is set by the positive ones
    devs = devs[np.isfinite(devs) & (devs > 0)]
    assert floor <= min(devs.min(), rows["tolerance"].min()) / 100 and top >= devs.max() * 100
    right = math.log10(top) - math.log10(rows["tolerance"].max())
    assert right >= 4 and right / (math.log10(top) - math.log10(floor)) >= 0.35


def test_new_rows_change_only_the_charts_data():
    """Another t (new arms), another N or d: the spec without its data is the same, so the browser keeps the chart
    (and the slider under the hand) and only replaces the rows (explorer.render.stable_dataset_names)."""
    from explorer import compat
    from explorer.render import stable_dataset_names

    def without_data(rows):
        starts = {"seq_len": N_POS, "head_dim": D, "base": B0, "shift_t": T0, "table_len": TABLE}
        chart = charts.deviation_chart(
            rows,
            home_table(),
            starts=starts,
            dtype="float64",
            n_max=256,
            d_range=SPAN_D,
            t_cap=1000,
            b_options=B_OPTIONS,
            table_span=TABLE_SPAN,
        )
        spec = stable_dataset_names(compat.vega_lite_spec(chart))
        return {k: v for k, v in spec.items() if k != "datasets"}, spec["datasets"]

    one, data_one = without_data(rows_table())
    other, data_other = without_data(rows_table(arms=arm_tables(t=30, n_span=(3, 9), d_span=(4, 20))))
    # (the home row is data too: another N, d, t or window changes only a dataset)
    assert one == other and data_one != data_other


def test_the_spec_built_once_for_all_rows_is_each_rows_own():
    """The page builds the chart once for every table of rows (explorer.render.Rows): the spec holds no number of them.
    For rows of other t, windows and arms, the shared spec with the rows put in is the one built from those rows."""
    from explorer import compat, render

    render._shared_template.clear()
    starts = {"seq_len": N_POS, "head_dim": D, "base": B0, "shift_t": T0, "table_len": TABLE}
    args = dict(starts=starts, dtype="float64", n_max=256, d_range=SPAN_D, t_cap=1000, b_options=B_OPTIONS)
    args["table_span"] = TABLE_SPAN
    tables = [
        (rows_table(), home_table()),
        (rows_table(arms=arm_tables(t=30, n_span=(3, 9), d_span=(4, 20))), charts.home_frame(N_POS, D, B0, 30, REACH)),
        (rows_table(sweep=sweep_table(t_max=20, n_pos=5)), charts.home_frame(5, D, B0, T0, REACH)),
    ]
    for rows, home in tables:
        shared = render.shared(charts.deviation_chart)(render.Rows(rows), render.Rows(home), **args).spec()
        own = render.stable_dataset_names(compat.vega_lite_spec(charts.deviation_chart(rows, home, **args)))
        assert shared == own
    assert render._shared_template(
        "explorer.charts.invariance.deviation_chart", None, (render.Rows(tables[0][0]), render.Rows(tables[0][1])), args
    )[1] == ("data-0", "data-1")  # a template: the rows and the home row are datasets of their own


def test_an_exact_zero_sits_on_the_axis_floor():
    sweep = pd.DataFrame(
        {
            "t": [1, 2],
            "rope": [0.0, 3e-15],
            "sinusoidal": [2.0, 3.0],
            "learned": [np.nan, 1.0],
            "tolerance": [1e-13, 2e-13],
        }
    )
    rows = charts.live_rows(sweep, n_pos=N_POS, d=D, b=B0)
    spec = deviation_spec(rows, start=1)
    (bars,) = find(spec, "bar")
    floor, _ = charts.deviation_axis(sweep)
    assert floor <= 3e-15 / 100
    assert calculated(bars)["shown"] == "datum.ok ? max(datum.deviation, datum.lo) : datum.lo"
    drawn_rows = unit_rows(spec, bars, seq_len=N_POS, head_dim=D, shift_t=1)
    assert drawn_rows.set_index("key").loc["rope", "shown"] == floor


STARTS = {"seq_len": N_POS, "head_dim": D, "base": B0, "shift_t": T0, "table_len": TABLE}


@pytest.mark.parametrize(
    "change, word",
    [
        (dict(rows=pd.DataFrame({"t": [1], "rope": [0.0]})), "columns"),
        (dict(starts={"seq_len": N_POS, "base": B0, "shift_t": T0, "table_len": TABLE}), "starts must give"),
        (dict(starts={**STARTS, "seq_len": 0}), "start of seq_len"),
        (dict(starts={**STARTS, "head_dim": 7}), "start of head_dim"),
        (dict(starts={**STARTS, "base": 777.0}), "start of base"),
        (dict(starts={**STARTS, "shift_t": 1001}), "start of shift_t"),
        (dict(starts={**STARTS, "table_len": 7}), "start of table_len"),
        (dict(d_range=None, starts={"seq_len": N_POS, "base": B0, "shift_t": T0, "table_len": TABLE}), "typed_d"),
        (dict(rows="duplicated"), "once"),
        (dict(home=pd.DataFrame({"n": [1]})), "home must be one row"),
        (dict(rows="zero tolerance"), "tolerance"),
    ],
)
def test_deviation_chart_rejects_bad_input_by_name(change, word):
    rows = rows_table()
    made = {"duplicated": pd.concat([rows, rows.iloc[:1]]), "zero tolerance": rows.assign(tolerance=0.0)}
    if isinstance(change.get("rows"), str):
        change = {"rows": made[change["rows"]]}
    args = dict(
        rows=rows,
        home=home_table(),
        starts=STARTS,
        dtype="float64",
        n_max=256,
        d_range=SPAN_D,
        t_cap=1000,
        b_options=B_OPTIONS,
        table_span=TABLE_SPAN,
    )
    with pytest.raises(ValueError, match=word):
        charts.deviation_chart(**{**args, **change})


def test_the_shift_chart_is_built_without_printing_its_rows(monkeypatch):
    """Its layers share one table, given to the layer chart: Altair, lifting a table the layers each
    carried, printed it (pandas' repr, about 1 ms a layer per run) to name layers the spec never names."""

    def no_repr(self):
        raise AssertionError("the rows were printed while building the chart")

    rows = rows_table()
    monkeypatch.setattr(pd.DataFrame, "__repr__", no_repr)
    spec = deviation_spec(rows)
    assert len(spec["layer"]) == 10 and "data" in spec
    assert [layer.get("name") for layer in spec["layer"] if "data" in layer] == ["shift_not_held"]  # the home row


def full_rule_layer(layers) -> int:
    """The index of the full-height pass mark (the first dashed rule) among `layers`."""
    return next(
        i for i, layer in enumerate(layers) if layer["mark"]["type"] == "rule" and layer["mark"].get("strokeDash")
    )


def test_the_pass_mark_runs_under_the_names_and_over_the_bars_that_reach_it():
    """The dashed pass mark crossed the learned table's long name ("… the test needs row 79") at every size: the
    full-height rule is drawn first, the names' halos (in the card's colour) over it, then the bars, and over each bar
    that reaches the mark the mark again (a vertical tick), then the names."""
    layers = deviation_spec()["layer"]

    def mark(layer):
        m = layer["mark"]
        return m if isinstance(m, dict) else {"type": m}

    kinds = [
        (m["type"], m.get("stroke") or m.get("color"), bool(m.get("strokeDash")))
        for m in map(mark, layers)
        if not m.get("opacity") == 0
    ]
    full_rule = next(i for i, (t, _, dashed) in enumerate(kinds) if t == "rule" and dashed)
    halo = next(i for i, (t, c, _) in enumerate(kinds) if t == "text" and c == style.HALO)
    bars = next(i for i, (t, _, _) in enumerate(kinds) if t == "bar")
    tick = next(i for i, (t, _, dashed) in enumerate(kinds) if t == "rule" and dashed and i > bars)
    names = next(i for i, (t, c, _) in enumerate(kinds) if t == "text" and c == "#0F172A" and i > halo)
    assert full_rule < halo < bars < tick < names, kinds
    visible = [layer for layer in layers if mark(layer).get("opacity") != 0]
    filters = [t["filter"] for t in visible[tick].get("transform", []) if "filter" in t]
    assert "datum.shown > datum.tolerance" in filters[-1], filters
    over_bar = visible[tick]  # a segment as tall as a bar, centred on it
    assert mark(over_bar)["yOffset"] == -mark(over_bar)["y2Offset"] == -charts.BAR_PX / 2
    assert over_bar["encoding"]["y"]["field"] == over_bar["encoding"]["y2"]["field"] == "method"
    assert mark(over_bar)["strokeDash"] == mark(layers[full_rule_layer(layers)])["strokeDash"]
    assert mark(visible[halo])["strokeWidth"] >= 8  # wide enough to close the gaps between a name's letters


def test_the_chart_describes_itself_without_a_value_a_drag_would_make_stale():
    """Not N, d or t, nor how far a slider reaches: the sliders above the chart show them."""
    text_ = deviation_spec(start=16)["description"]
    assert "the slider N above" in text_ and "the slider d above" in text_
    for number in ("16", str(N_POS), "d = 8", "60", "1000"):
        assert number not in text_


def test_an_arms_window_is_the_most_its_budget_buys_around_the_centre():
    """arm_window: contiguous around the centre, within the budget, grown on both sides in turn (lower first) so a
    hand can go either way, and one more value on either side is over the budget (or past the end)."""
    values = list(range(1, 41))

    def cost(v):
        return v * v

    for centre, budget in ((10, 500), (1, 10_000), (40, 3_000), (25, 625), (25, 100), (20, 5_000)):
        lo, hi = charts.arm_window(centre, values, cost, budget)
        assert lo <= centre <= hi
        spent = sum(cost(v) for v in range(lo, hi + 1))
        assert spent <= budget or lo == hi == centre
        for more in (lo - 1, hi + 1):
            if 1 <= more <= 40:
                assert spent + cost(more) > budget, (centre, budget, more)
    # both sides in turn: 19, then 21 (dearer, but its turn), then 18 … while both fit
    assert charts.arm_window(20, values, cost, 20**2 + 19**2 + 21**2) == (19, 21)
    assert charts.arm_window(20, values, cost, 20**2 + 19**2 + 21**2 - 1) == (18, 20)  # 21 is over: 18, 17 … go on
    assert charts.arm_window(3, values, cost, 10**9) == (1, 40)
    with pytest.raises(ValueError, match="center must be one of the values"):
        charts.arm_window(0, values, cost)


def test_an_arms_cost_grows_with_n_and_d():
    costs = [charts.point_cost(n, 64) for n in (1, 2, 64, 256)]
    assert costs == sorted(costs) and len(set(costs)) == 4
    assert charts.point_cost(64, 64, own_vectors=True) > charts.point_cost(64, 64)
    assert charts.point_cost(64, 256) > charts.point_cost(64, 64)


def test_how_far_the_slider_reaches():
    """As far as SHIFT_WORK allows (rounded down to 1, 2 or 5 × 10^k), at least SHIFT_FLOOR, at most the cap."""
    for n_pos, d in ((1, 2), (48, 4), (64, 8), (64, 64), (128, 128), (200, 16), (256, 64), (256, 256)):
        reach = charts.shift_reach(n_pos, d, 1000)
        most = charts.SHIFT_WORK / (n_pos * n_pos * (d + 16) + charts.SHIFT_CALL)
        assert charts.SHIFT_FLOOR <= reach <= 1000
        assert reach <= max(most, charts.SHIFT_FLOOR)
        assert reach == 1000 or reach == charts.SHIFT_FLOOR or reach * 2.5 > most  # the next nice step is too far
        assert int(str(reach).rstrip("0")) in (1, 2, 5)
    assert charts.shift_reach(64, 64, 1000) >= 100  # the tour's t = 100 at the default head
    assert charts.shift_reach(48, 4, 1000) >= 20  # the deep link's
    assert charts.shift_reach(1, 2, 30) == 30
    with pytest.raises(ValueError, match="n_pos"):
        charts.shift_reach(0, 8, 1000)


# ---------------------------------------------------------------------------------- curves
def test_curve_chart_log_x_with_mark():
    r = np.array([1.0, 2.0, 5.0, 10.0, 100.0])
    bound = posenc.rope_decay_bound(r, 8)
    df = pd.DataFrame({"distance": r, "bound": bound})
    spec = charts.curve_chart(
        df,
        x="distance",
        y="bound",
        x_title="relative distance",
        y_title="score bound",
        title="decay",
        subtitle="RoFormer",
        log_x=True,
        mark_x=63,
        mark_label="largest offset (63)",
    ).to_dict()
    (line,) = find(spec, "line")
    assert line["encoding"]["x"]["scale"]["type"] == "log"
    assert line["encoding"]["x"]["title"] == "relative distance" and line["encoding"]["y"]["title"] == "score bound"
    data = frame(spec, line)
    # RoFormer's bound, written out: (1/(d/2))·Σ_j |Σ_{i<j} e^{i r θ_i}| (i ≤ j, j = 1 … d/2)
    for row in data.itertuples():
        theta = [10000.0 ** (-2 * i / 8) for i in range(4)]
        partial, total = 0j, 0.0
        for t in theta:
            partial += complex(math.cos(row.distance * t), math.sin(row.distance * t))
            total += abs(partial)
        assert row.bound == pytest.approx(total / 4)
    (rule,) = find(spec, "rule")
    assert frame(spec, rule)["mx"].tolist() == [63]
    assert spec["title"] == {"text": "decay", "subtitle": "RoFormer"}
    legible(spec)


def test_curve_chart_linear_with_format_and_no_mark():
    df = pd.DataFrame({"p": np.arange(5.0), "residual": [0.0, 1e-16, 2e-16, 0.0, 3e-16]})
    spec = charts.curve_chart(
        df, x="p", y="residual", x_title="position p", y_title="‖·‖", title="t", y_format=".0e"
    ).to_dict()
    (line,) = find(spec, "line")
    assert line["encoding"]["y"]["axis"]["format"] == ".0e"
    assert "type" not in line["encoding"]["x"]["scale"]
    assert not find(spec, "rule")
    assert frame(spec, line)["residual"].tolist() == df["residual"].tolist()


def test_curve_chart_rejects_bad_input():
    df = pd.DataFrame({"x": [0.0, 1.0], "y": [1.0, 2.0]})
    with pytest.raises(ValueError, match="log x"):
        charts.curve_chart(df, x="x", y="y", x_title="x", y_title="y", title="t", log_x=True)
    with pytest.raises(ValueError, match="no column"):
        charts.curve_chart(df, x="x", y="nope", x_title="x", y_title="y", title="t")


def test_kept_points_are_each_points_own_report_whatever_was_asked_before():
    """The arms' points are kept across runs (compute.invariance.shift_points keeps each t's curve over N): a point
    asked for again, or next to new ones, or past a kept curve's end, or first asked for by the base arm without the
    learned test, is still shift_test_report's at that point, computed here on its own (the learned number too), in
    every dtype."""
    from explorer.compute import invariance as compute

    compute.forget_curves()
    q, k = posenc.seeded_normal((2, D), seed=SEED)
    for dtype in ("float64", "float32"):
        settings = (dtype, B0, "interleaved", SEED)
        # the base arm first: its other bases are kept without the learned number
        compute.b_arm.clear()
        compute.b_arm(q, k, 7, B_ARM[0], B_ARM[-1], 3, dtype, "interleaved", SEED)
        # a window, one that moved, one that holds both, one past the first curve's end (CURVE_STEP = 32)
        for lo, hi in ((5, 9), (7, 12), (5, 12), (30, 40)):
            points = compute.shift_points(q, k, np.arange(lo, hi + 1), [3] * (hi - lo + 1), settings)
            for n, rope, sinusoid, learned, tol in zip(
                points["n_positions"],
                points["rope_dev"],
                points["sinusoidal_dev"],
                points["learned_dev"],
                points["tolerance"],
            ):
                report = posenc.shift_test_report(
                    q, k, n_positions=int(n), offset=3, dtype=dtype, base=B0, table_len=int(n) + 3, seed=SEED
                )
                assert (rope, sinusoid, learned, tol) == (
                    report["rope_dev"],
                    report["sinusoidal_dev"],
                    report["learned_dev"],
                    report["tolerance"],
                ), (dtype, lo, hi, n)
        b = B_ARM[-1]  # kept by the base arm without its learned number: asked for with it, it has it
        points = compute.shift_points(q, k, [7], [3], (dtype, b, "interleaved", SEED))
        report = posenc.shift_test_report(q, k, n_positions=7, offset=3, dtype=dtype, base=b, table_len=10, seed=SEED)
        assert points["learned_dev"][0] == report["learned_dev"] and points["rope_dev"][0] == report["rope_dev"]
    assert 0 < compute._curve_rows[0] <= compute.CURVE_ROWS_KEPT
    assert compute._curve_rows[0] == sum(len(curve) for curve in compute._curves_kept.values())


def test_the_score_and_shift_heatmaps_on_the_dark_card_are_dark_where_they_are_zero():
    """redblue's zero is near-white: on the dark card R_k (nearly all zeros) was a white square and the score maps' small
    scores glared. Drawn for the dark card, a zero cell sits just off the card and a ±1 cell (scores of unit vectors: the
    diagonal, an offset of π; R_k's cosines at k = 0) stands clearly off it; the numbers are the light chart's; the light
    chart is as it was."""
    pos = np.arange(24, dtype=float)
    scores = np.cos(np.subtract.outer(pos, pos) * 0.5)  # 1 on the diagonal, cos 3 ≈ −1, cos 11 ≈ 0
    r = posenc.shift_matrix(0, 8)
    builds = (
        (scores, lambda **kw: charts.score_heatmap(scores, pos, title="s", **kw)),
        (r, lambda **kw: charts.shift_matrix_heatmap(r, k=0, layout="interleaved", **kw)),
    )

    def hexes(pixels, where):
        return {hex_colour(p) for p in pixels[where]}

    for values, build in builds:
        plain, light, dark = (build(**kw).to_dict() for kw in ({}, {"dark": False}, {"dark": True}))
        assert light == plain
        assert image_meta(dark) == image_meta(light)
        pixels = {name: png_pixels(spec)[..., :3] for name, spec in (("light", light), ("dark", dark))}
        assert pixels["dark"].shape[:2] == values.shape

        zero, ends = np.abs(values) < 0.04, np.abs(values) > 0.99
        diverging_on_dark(hexes(pixels["dark"], zero), hexes(pixels["dark"], ends), style.DARK_BACKGROUND)
        assert all(contrast(c, style.CARD_BACKGROUND) < 1.2 for c in hexes(pixels["light"], zero))


def test_the_kept_curves_drop_the_least_recently_used_first_and_share_one_digest_a_call(monkeypatch):
    """At most CURVE_ROWS_KEPT rows of curves are kept: a new curve drops the one used longest ago, a curve asked for
    again counts as used, and a point past a curve's end computes it again, longer (CURVE_STEP past the point); each
    call's keys hold one 16-byte digest of q and k, not the vectors themselves."""
    from explorer.compute import invariance as compute

    monkeypatch.setattr(compute, "CURVE_ROWS_KEPT", 3 * compute.CURVE_STEP)
    compute.forget_curves()
    q, k = posenc.seeded_normal((2, 256), seed=SEED)
    settings = ("float64", B0, "interleaved", SEED)

    def kept() -> list[tuple[int, int]]:  # (t, length) of each kept curve, the least recently used first
        return [(key[-1], len(curve)) for key, curve in compute._curves_kept.items()]

    step = compute.CURVE_STEP
    compute.shift_points(q, k, [2, 3, 4], [1, 1, 1], settings)
    compute.shift_points(q, k, [2, 7], [2, 3], settings)
    assert kept() == [(1, step), (2, step), (3, step)]
    compute.shift_points(q, k, [step], [1], settings)  # used again (its last row): now the most recent
    compute.shift_points(q, k, [5], [4], settings)  # a fourth: the least recently used (t = 2) goes
    assert kept() == [(3, step), (1, step), (4, step)]
    compute.shift_points(q, k, [step + 1], [3], settings)  # past its end: computed again, to the next step
    assert kept() == [(4, step), (3, 2 * step)] and compute._curve_rows[0] == 3 * step
    digests = {key[0] for key in compute._curves_kept}
    assert len(digests) == 1 and all(isinstance(d, bytes) and len(d) == 16 for d in digests)
    other = compute.shift_points(q[:-2], k[:-2], [5], [1], settings)  # other vectors: their own point
    report = posenc.shift_test_report(q[:-2], k[:-2], n_positions=5, offset=1, base=B0, table_len=6, seed=SEED)
    assert other["rope_dev"][0] == report["rope_dev"] and other["learned_dev"][0] == report["learned_dev"]
    assert all(curve.base is None for curve in compute._curves_kept.values())  # each its own array, nothing pinned
    assert kept()[0] == (3, 2 * step)  # the other vectors' curve dropped t = 4's
    compute._keep({next(iter(compute._curves_kept)): np.zeros((1, 4))})  # a shorter one (a race) keeps the longer
    assert kept()[-1] == (3, 2 * step) and compute._curve_rows[0] == 3 * step
    longer = compute.shift_points(q, k, [step + 1], [3], settings)
    report = posenc.shift_test_report(q, k, n_positions=step + 1, offset=3, base=B0, table_len=step + 4, seed=SEED)
    assert longer["rope_dev"][0] == report["rope_dev"] and longer["learned_dev"][0] == report["learned_dev"]
    with pytest.raises(ValueError, match="same 1 or more points"):
        compute.shift_points(q, k, [2, 3], [1], settings)
    with pytest.raises(ValueError, match="ns must be >= 1"):
        compute.shift_points(q, k, [0], [3], settings)  # a kept curve has no row for N = 0
