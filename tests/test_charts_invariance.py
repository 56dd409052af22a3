"""Chart builders of the relative-invariance page (explorer/charts/invariance.py), via to_dict():
marks, encodings, titles and data values against numbers computed here independently."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from _chartspec import find, frame, layers, legible, png_pixels

import posenc
from explorer.charts import invariance as charts
from explorer.imagechart import colorize


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
    meta = spec["usermeta"]["imagechart"]
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
    assert enc["color"]["legend"]["orient"] == "bottom"
    assert spec["title"] == {"text": "RoPE", "subtitle": "constant diagonals", "anchor": "start"}
    legible(spec)


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
    assert spec["usermeta"]["imagechart"]["domain"] == [-1.0, 1.0]
    assert spec["title"]["text"] == "R_k for k = 3 (8 × 8, interleaved layout)"
    legible(spec)


# ------------------------------------------------------------------------------ deviations
def deviation_spec(learned=38.7, note=""):
    results = pd.DataFrame(
        {
            "method": ["RoPE (float64)", "sinusoidal PE added", "learned table added"],
            "deviation": [2.3e-14, 17.3, learned],
            "note": ["", "", note],
        }
    )
    return charts.deviation_chart(results, tolerance=5.8e-12, title="Only RoPE survives", subtitle="t = 16").to_dict()


def test_deviation_chart_verdicts_and_log_axis():
    spec = deviation_spec()
    (bars,) = find(spec, "bar")
    df = frame(spec, bars)
    assert df["verdict"].tolist() == ["pass", "fail", "fail"]
    assert df["shown"].tolist() == pytest.approx([2.3e-14, 17.3, 38.7])
    assert bars["encoding"]["x"]["scale"]["type"] == "log"
    floor, top = bars["encoding"]["x"]["scale"]["domain"]
    assert floor <= 2.3e-14 / 100 and top >= 38.7 * 10
    assert bars["encoding"]["x2"]["field"] == "shown"
    assert bars["encoding"]["y"]["sort"] == df["method"].tolist()
    (rule,) = find(spec, "rule")
    assert frame(spec, rule)["tol"].tolist() == [5.8e-12]
    labels = [
        layer
        for layer in find(spec, "text")
        if "text" in layer["encoding"] and layer["encoding"]["text"]["field"] == "text"
    ]
    assert frame(spec, labels[0])["text"].tolist() == ["2.30e-14 · pass", "1.73e+01 · fail", "3.87e+01 · fail"]
    assert spec["title"]["text"] == "Only RoPE survives"
    legible(spec)


def test_deviation_chart_lists_a_method_that_could_not_run():
    spec = deviation_spec(learned=np.nan, note="no row: the table is too short")
    (bars,) = find(spec, "bar")
    assert frame(spec, bars)["method"].tolist() == ["RoPE (float64)", "sinusoidal PE added"]
    labels = [layer for layer in find(spec, "text") if layer["encoding"].get("text", {}).get("field") == "text"]
    texts = frame(spec, labels[0])
    assert texts["text"].iloc[2] == "no row: the table is too short"
    assert texts["verdict"].iloc[2] == "n/a"


def test_deviation_chart_shows_an_exact_zero():
    results = pd.DataFrame({"method": ["RoPE"], "deviation": [0.0]})
    spec = charts.deviation_chart(results, tolerance=1e-12, title="t").to_dict()
    (bars,) = find(spec, "bar")
    df = frame(spec, bars)
    assert df["shown"].iloc[0] > 0  # clipped to the axis floor, not dropped by the log scale
    labels = [layer for layer in find(spec, "text") if layer["encoding"].get("text", {}).get("field") == "text"]
    assert frame(spec, labels[0])["text"].iloc[0] == "0 (exact) · pass"


def label_rows(spec: dict) -> pd.DataFrame:
    (labels,) = [layer for layer in find(spec, "text") if layer["encoding"].get("text", {}).get("field") == "text"]
    assert labels["mark"]["align"] == "left" and labels["mark"]["dx"] > 0  # text runs right of text_x
    assert labels["encoding"]["x"]["field"] == "text_x"
    return frame(spec, labels)


@pytest.mark.parametrize("learned, note", [(38.7, ""), (np.nan, "no row: the table is too short")])
def test_deviation_labels_start_right_of_the_pass_mark(learned, note):
    """A passing bar ends left of the rule; its label (and a note) must not run across the rule."""
    rows = label_rows(deviation_spec(learned=learned, note=note))
    assert (rows["text_x"] >= 5.8e-12).all()
    assert rows["text_x"].iloc[0] == 5.8e-12  # RoPE passes: label just after the rule
    assert rows["text_x"].iloc[1] == pytest.approx(17.3)  # a failing bar's label at its end
    if note:
        assert rows["text_x"].iloc[2] == 5.8e-12


@pytest.mark.parametrize("deviations", [[1e-30, 1e-13], [2e-14], [0.0, 3e-15]])
def test_deviation_axis_leaves_room_right_of_the_pass_mark(deviations):
    """Everything passes, even by 18 decades: the axis still runs well past the rule, so the labels
    starting there fit (≥ 4 decades and ≥ 35 % of the axis)."""
    tol = 1e-12
    results = pd.DataFrame({"method": [f"m{i}" for i in range(len(deviations))], "deviation": deviations})
    spec = charts.deviation_chart(results, tolerance=tol, title="t").to_dict()
    (bars,) = find(spec, "bar")
    floor, top = bars["encoding"]["x"]["scale"]["domain"]
    right = math.log10(top) - math.log10(tol)
    assert right >= 4 and right / (math.log10(top) - math.log10(floor)) >= 0.35
    assert (label_rows(spec)["text_x"] >= tol).all()


@pytest.mark.parametrize("tol", [0.0, -1.0, float("nan")])
def test_deviation_chart_rejects_bad_tolerance(tol):
    with pytest.raises(ValueError, match="tolerance"):
        charts.deviation_chart(pd.DataFrame({"method": ["a"], "deviation": [1.0]}), tolerance=tol, title="t")


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


# --- decay_summary: the Decay chart's title and the page's sentence, from the curve on screen ------
def test_decay_summary_is_flat_for_one_pair_and_says_its_value():
    r = np.unique(np.round(np.geomspace(1, 20_000, 400)))
    title, sentence = charts.decay_summary(r, posenc.rope_decay_bound(r, 2, base=10.0))
    assert title == "RoPE's score bound is flat: 1 at every distance"
    assert sentence.startswith("it is 1 at every distance and does not fall")


def test_decay_summary_shrinks_or_ripples_by_the_numbers_it_quotes():
    r = np.array([1.0, 10.0, 100.0, 1000.0, 2000.0, 5000.0, 10000.0])
    falling = np.array([8.0, 6.0, 4.0, 3.0, 2.5, 2.0, 1.0])  # last decade (r >= 1000): at most 3.0
    title, sentence = charts.decay_summary(r, falling)
    assert title == "RoPE's score bound shrinks with distance: 8 at r = 1, at most 3 beyond r = 1,000"
    assert "falls from 8 at distance 1 to at most 3 beyond distance 1,000" in sentence
    rippling = np.array([2.0, 1.0, 2.2, 0.5, 1.9, 0.6, 1.5])  # the last decade still reaches 1.9 > 0.9·2
    title, sentence = charts.decay_summary(r, rippling)
    assert title == "RoPE's score bound ripples without a clear fall: still 1.9 beyond r = 1,000 (2 at r = 1)"
    assert "beyond distance 1,000 it still reaches 1.9 (2 at distance 1)" in sentence
    with pytest.raises(ValueError, match="distance and bound"):
        charts.decay_summary(r, rippling[:-1])


def test_the_pages_sentences_follow_the_numbers():
    tol = 1e-9
    assert charts.join_names(["a"]) == "a" and charts.join_names(["a", "b", "c"]) == "a, b and c"
    assert charts.verdict_badge(None, tol).startswith(":gray-badge")
    assert (
        charts.verdict_badge(1e-12, tol) == ":green-badge[PASS]"
        and charts.verdict_badge(1e-3, tol) == ":red-badge[FAIL]"
    )
    nums = {"rope_dev": 1e-12, "sinusoidal_dev": 3.0, "learned_dev": None}
    assert charts.survivors_title(nums, tol) == "Only RoPE's scores survive the shift"
    both = {"rope_dev": 1e-12, "sinusoidal_dev": 1e-12, "learned_dev": 2.0}
    assert charts.survivors_title(both, tol) == "RoPE's and the added sinusoid's scores survive the shift"
    assert charts.survivors_title({"rope_dev": 1.0, "sinusoidal_dev": 1.0, "learned_dev": 1.0}, tol).startswith("No ")
    assert charts.diagonal_words(0.0, tol, 1) == "one cell: no diagonal to compare"
    assert charts.diagonal_words(5e-13, tol, 8) == "constant diagonals"
    assert charts.diagonal_words(47.3, tol, 8) == "diagonals drift (by up to 47)"
    text = charts.diagonal_sentence(
        {"RoPE": 1e-13, "the added sinusoid": 19.0, "the added learned table": None}, tol, 8
    )
    assert "RoPE: every diagonal" in text and "the added sinusoid: the colour drifts" in text and "learned" not in text
