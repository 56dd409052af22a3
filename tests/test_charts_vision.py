"""Chart builders of the Images-and-video page (explorer/charts/vision.py), through to_dict(): marks,
encodings, the data each layer draws, the description, and the input checks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _chartspec import find, frame, layers, legible, png_pixels

from explorer.charts import vision as charts
from explorer.imagechart import colorize


def heat(scores=None, **kw):
    scores = np.linspace(-1, 1, 12).reshape(3, 4) if scores is None else scores
    kw.setdefault("query", (1, 2))
    kw.setdefault("title", "t")
    kw.setdefault("description", "what it shows")
    return charts.grid_heatmap(scores, **kw).to_dict()


def test_grid_heatmap_draws_the_scores_and_rings_the_query():
    scores = np.linspace(-1, 1, 12).reshape(3, 4)
    spec = heat(scores, subtitle=["line one", "line two"])
    assert spec["description"] == "what it shows"
    assert spec["usermeta"]["imagechart"]["shape"] == [3, 4]
    assert spec["usermeta"]["imagechart"]["domain"] == [-1.0, 1.0]
    assert spec["title"]["subtitle"] == ["line one", "line two"]
    (ring,) = find(spec, "point")
    assert frame(spec, ring)[["x0", "y0"]].values.tolist() == [[2, 1]]  # (column, row)
    pixels = png_pixels(spec)[..., :3]  # one pixel per cell, row 0 at the top
    assert pixels.shape[:2] == (3, 4)
    np.testing.assert_array_equal(pixels, colorize(scores, scheme="redblue", domain=(-1, 1))[..., :3])
    legible(spec)


def test_grid_heatmap_own_range_and_no_query():
    scores = np.full((2, 5), 0.999) + np.arange(10).reshape(2, 5) * 1e-5
    spec = heat(scores, query=None, domain=None)
    meta = spec["usermeta"]["imagechart"]
    assert meta["scheme"] == "viridis"
    assert meta["domain"] == pytest.approx([scores.min(), scores.max()])
    assert not find(spec, "point")
    flat = heat(np.ones((2, 2)), domain=None)["usermeta"]["imagechart"]["domain"]  # a flat panel still draws
    assert flat[0] < 1 < flat[1]


def test_grid_height_keeps_patches_roughly_square_within_bounds():
    assert charts.grid_height(12, 16, width=520) == 390
    assert charts.grid_height(1, 64) == 150 and charts.grid_height(64, 1) == 420


def test_grid_heatmap_rejects_a_vector():
    with pytest.raises(ValueError, match="rows, cols"):
        charts.grid_heatmap(np.ones(4), query=None, title="t", description="d")


def strip_data():
    return pd.DataFrame(
        {
            "scheme": ["a"] * 4 + ["b"] * 4,
            "pair": [0, 1, 2, 3] * 2,
            "axis": ["row (h)", "row (h)", "column (w)", "column (w)", "time (t)", "row (h)", "column (w)", "time (t)"],
            "wavelength": [6.28, 62.8, 6.28, 62.8, 6.28, 20.0, 60.0, 200.0],
        }
    )


@pytest.mark.parametrize("x", ["pair", "wavelength"])
def test_pair_axis_strip(x):
    spec = charts.pair_axis_strip(strip_data(), x=x, title="t", subtitle="s", description="d").to_dict()
    assert spec["description"] == "d"
    (layer,) = layers(spec)
    enc = layer["encoding"]
    assert enc["y"]["field"] == "scheme" and enc["y"]["sort"] == ["a", "b"]
    assert enc["color"]["scale"]["domain"] == ["time (t)", "row (h)", "column (w)"]
    assert enc["color"]["scale"]["range"] == [charts.AXIS_COLORS[a] for a in ("time (t)", "row (h)", "column (w)")]
    if x == "pair":
        assert layer["mark"]["type"] == "rect" and enc["x"]["scale"]["domain"] == [0, 4]
        assert frame(spec, layer)["pair_end"].tolist() == [1, 2, 3, 4] * 2
    else:
        assert layer["mark"]["type"] == "tick" and enc["x"]["scale"]["type"] == "log"
        assert enc["yOffset"]["field"] == "axis"
    assert spec["config"]["legend"]["orient"] == "bottom"


def test_pair_axis_strip_checks_its_input():
    with pytest.raises(ValueError, match="columns"):
        charts.pair_axis_strip(strip_data().drop(columns="axis"), title="t", description="d")
    with pytest.raises(ValueError, match="x must be"):
        charts.pair_axis_strip(strip_data(), x="frequency", title="t", description="d")


def test_shift_diagram():
    points = pd.DataFrame(
        {
            "label": ["q", "k", "q + Δ", "k + Δ"],
            "state": ["before", "before", "after", "after"],
            "row": [1, 2, 3, 4],
            "col": [1, 5, 2, 6],
        }
    )
    spec = charts.shift_diagram(points, rows=12, cols=16, title="t", description="d").to_dict()
    assert spec["description"] == "d"
    (dots,) = find(spec, "circle")
    assert frame(spec, dots)["label"].tolist() == ["q", "k", "q + Δ", "k + Δ"]
    assert dots["encoding"]["y"]["scale"]["reverse"] is True  # row 0 at the top, as in the heatmaps
    assert dots["encoding"]["x"]["scale"]["domain"] == [-0.5, 15.5]
    (line,) = find(spec, "line")
    assert line["encoding"]["detail"]["field"] == "state"


def test_sequence_chart_shades_the_segments():
    tokens = pd.DataFrame(
        {
            "index": [0, 1, 2, 3] * 3,
            "segment": ["text", "image or video", "image or video", "text"] * 3,
            "axis": ["time (t)"] * 4 + ["row (h)"] * 4 + ["column (w)"] * 4,
            "position": [0, 1, 1, 3, 0, 1, 2, 3, 0, 1, 1, 3],
        }
    )
    spec = charts.sequence_chart(tokens, title="t", description="d").to_dict()
    assert spec["description"] == "d"
    (shade,) = find(spec, "rect")
    spans = frame(spec, shade)
    assert spans[["segment", "start", "end"]].values.tolist() == [
        ["text", -0.5, 0.5],
        ["image or video", 0.5, 2.5],
        ["text", 2.5, 3.5],
    ]


def test_resolution_chart_marks_positions_beyond_training():
    positions = pd.DataFrame({"grid": ["a", "a", "b"], "position": [0.0, 15.0, 20.0], "beyond": [False, False, True]})
    spec = charts.resolution_chart(positions, trained_max=15, title="t", description="d").to_dict()
    assert spec["description"] == "d"
    (rule,) = find(spec, "rule")
    assert frame(spec, rule)["position"].tolist() == [15]
    (ticks,) = find(spec, "tick")
    assert ticks["encoding"]["x"]["scale"]["domain"] == [-0.5, 20.5]


@pytest.mark.parametrize(
    "builder, bad",
    [
        (lambda df: charts.sequence_chart(df, title="t", description="d"), pd.DataFrame({"index": [0]})),
        (
            lambda df: charts.resolution_chart(df, trained_max=1, title="t", description="d"),
            pd.DataFrame({"grid": ["a"]}),
        ),
        (lambda df: charts.shift_diagram(df, rows=2, cols=2, title="t", description="d"), pd.DataFrame({"row": [0]})),
    ],
)
def test_builders_name_missing_columns(builder, bad):
    with pytest.raises(ValueError, match="columns"):
        builder(bad)
