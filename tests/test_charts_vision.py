"""Chart builders of the Images-and-video page (explorer/charts/vision.py), through to_dict(): marks,
encodings, the data each layer draws, the description, and the input checks. The query heatmaps
compute in the browser: their transforms are evaluated here from the spec as sent (`unit_rows`) and
compared with the formulas, re-typed, and with posenc.angle_scores."""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd
import pytest
from _chartspec import find, frame, layers, legible, png_pixels, sent_spec, spec_value, unit_rows
from hypothesis import given
from hypothesis import strategies as st

import posenc
from explorer.charts import vision as charts
from explorer.imagechart import colorize
from explorer.imagechart import meta as image_meta


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
    assert image_meta(spec)["shape"] == [3, 4]
    assert image_meta(spec)["domain"] == [-1.0, 1.0]
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
    meta = image_meta(spec)
    assert meta["scheme"] == "viridis"
    assert meta["domain"] == pytest.approx([scores.min(), scores.max()])
    assert not find(spec, "point")
    flat = image_meta(heat(np.ones((2, 2)), domain=None))["domain"]  # a flat panel still draws
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


# --- the query heatmaps: the query patch lives in the chart ----------------------------------------
D, B = 16, 100.0
SCHEMES = ("raster", "axial", "contiguous", "interleaved")
AXES = {"contiguous": [0, 0, 1, 1, 1, 2, 2, 2], "interleaved": [0, 1, 2, 0, 1, 2, 0, 0]}  # [2,3,3] / [4,2,2]


def scheme_angles(rows, cols, frames):
    """Every patch's angles under each scheme (posenc), frame by frame, row by row."""
    inv = posenc.inverse_frequencies(D, base=B)
    vision = posenc.qwen2vl_position_ids([("video", frames, rows, cols)])
    return {
        "raster": posenc.rope_angles(np.arange(frames * rows * cols), inv),
        "axial": np.tile(
            posenc.axial_rope_angles(rows, cols, posenc.axial_inverse_frequencies(D, base=B)), (frames, 1)
        ),
        "contiguous": posenc.mrope_angles(vision, inv, [2, 3, 3]),
        "interleaved": posenc.mrope_angles(vision, inv, [4, 2, 2], interleaved=True),
    }


def reference(scheme, rows, cols, query, frame) -> np.ndarray:
    """The similarity of the query (frame 0) with every patch of `frame`, pair by pair with math."""
    inv = [B ** (-2 * j / D) for j in range(D // 2)]
    inv_ax = [B ** (-4 * i / D) for i in range(D // 4)] * 2
    out = np.zeros((rows, cols))
    for r in range(rows):
        for c in range(cols):
            dt, dr, dc = frame, r - query[0], c - query[1]
            if scheme == "raster":
                deltas, freqs = [dt * rows * cols + dr * cols + dc] * (D // 2), inv
            elif scheme == "axial":
                deltas, freqs = [dr] * (D // 4) + [dc] * (D // 4), inv_ax
            else:
                deltas, freqs = [(dt, dr, dc)[a] for a in AXES[scheme]], inv
            out[r, c] = sum(math.cos(x * t) for x, t in zip(deltas, freqs)) / len(freqs)
    return out


def live_chart(rows=4, cols=5, frames=2, frame=1, query=(1, 3), **kw):
    angles = scheme_angles(rows, cols, frames)
    tables = {name: posenc.offset_scores(a, rows, cols, frame=frame) for name, a in angles.items()}
    kw.setdefault("notes", {"raster": ["line one", "line two"]})
    kw.setdefault("domain", None)
    kw.setdefault("description", "what it shows")
    return sent_spec(charts.query_heatmaps(tables, query=query, frame=frame, **kw))


def cells_of(panel: dict) -> dict:
    (cells,) = [layer for layer in panel["layer"] if any("filter" in t for t in layer.get("transform", []))]
    return cells


def shown(spec: dict, panel: int, query: tuple[int, int]) -> np.ndarray:
    """Panel `panel`'s heatmap as the browser computes it with the sliders at `query`: (rows, cols)."""
    df = unit_rows(spec, cells_of(spec["concat"][panel]), vis_qrow=query[0], vis_qcol=query[1])
    rows, cols = int(df["vis_qrow"].max()) + 1, int(df["vis_qcol"].max()) + 1
    assert len(df) == rows * cols  # one mark per patch
    out = np.full((rows, cols), np.nan)
    out[df["vis_qrow"].astype(int), df["vis_qcol"].astype(int)] = df["s"]
    return out


@pytest.mark.parametrize("rows, cols, frames, frame", [(4, 5, 2, 1), (3, 3, 1, 0), (1, 6, 1, 0), (1, 1, 1, 0)])
def test_the_browser_shows_every_querys_scores(rows, cols, frames, frame):
    """For several positions of the in-chart query, every panel's patches (the transforms as sent,
    evaluated here) equal the scheme's formula and posenc.angle_scores for that query."""
    spec = live_chart(rows, cols, frames, frame, query=(0, 0))
    angles = scheme_angles(rows, cols, frames)
    n = rows * cols
    for query in {(0, 0), (rows - 1, cols - 1), (rows // 2, cols // 3), (rows - 1, 0)}:
        for i, scheme in enumerate(SCHEMES):
            got = shown(spec, i, query)
            np.testing.assert_allclose(got, reference(scheme, rows, cols, query, frame), atol=1e-12, err_msg=scheme)
            direct = posenc.angle_scores(
                angles[scheme][[query[0] * cols + query[1]]], angles[scheme][frame * n : (frame + 1) * n]
            )
            np.testing.assert_allclose(got.ravel(), direct[0], atol=1e-12, err_msg=scheme)


def test_the_query_is_the_charts_own_sliders_and_a_click_on_a_patch():
    spec = live_chart(rows=4, cols=5, query=(1, 3))
    params = {p["name"]: p for p in spec["params"] if "select" in p}
    assert list(params) == ["vis_qcol", "vis_qrow"]  # Vega lists bound inputs in reverse: row first on screen
    for key, start, top in (("vis_qrow", 1, 3), ("vis_qcol", 3, 4)):
        p = params[key]
        assert p["value"] == start and p["views"] == ["vis_cells_0"]
        assert p["select"]["type"] == "point" and p["select"]["fields"] == [key]
        assert p["select"]["toggle"] is False and p["select"]["clear"] is False
        assert p["select"]["on"] == charts.PATCH_CLICK  # a click sets it from the patch's own field
        assert (p["bind"]["input"], p["bind"]["min"], p["bind"]["max"], p["bind"]["step"]) == ("range", 0, top, 1)
    # every patch carries its row and column under the parameters' names (what a click reads)
    df = unit_rows(spec, cells_of(spec["concat"][2]), vis_qrow=0, vis_qcol=0)
    assert sorted(zip(df["vis_qrow"], df["vis_qcol"])) == [(r, c) for r in range(4) for c in range(5)]
    assert "isValid(event.item.datum.vis_qrow)" in charts.PATCH_CLICK["filter"][0]  # a click elsewhere: ignored
    # the ring and the title follow the query in the browser
    for panel in spec["concat"]:
        for ring in [layer for layer in panel["layer"] if layer["mark"].get("filled") is False]:
            row = unit_rows(spec, ring, vis_qrow=2, vis_qcol=4).iloc[0]
            assert (row["x0"], row["x1"], row["y0"], row["y1"]) == (3.5, 4.5, 1.5, 2.5)
            if ring["mark"]["stroke"] != "#FFFFFF":  # the line on its white halo
                assert ring["mark"]["strokeDash"] == [3, 2]  # the query is in frame 0, the keys in frame 1
            assert row["patch"] == "the query's place (it is in frame 0)"
    title = spec_value(spec, spec["title"]["text"]["expr"], vis_qrow=2, vis_qcol=4)
    assert title == ["Query patch (row 2, column 4)", "keys in frame 1"]
    assert spec["description"] == "what it shows"
    assert [p["title"]["text"] for p in spec["concat"]] == list(SCHEMES)
    assert spec["concat"][0]["title"]["subtitle"] == ["line one", "line two"]


def test_the_same_frame_has_a_solid_ring():
    spec = live_chart(frames=1, frame=0)
    (halo, line) = [layer for layer in spec["concat"][0]["layer"] if layer["mark"].get("filled") is False]
    assert "strokeDash" not in halo["mark"] and line["mark"]["strokeDash"] == []
    assert spec_value(spec, spec["title"]["text"]["expr"], vis_qrow=0, vis_qcol=0)[-1] == "keys in the same frame"


def test_colour_ranges():
    own = live_chart()
    assert own["resolve"]["scale"]["color"] == "independent"  # each panel's own lowest … highest, in the browser
    assert cells_of(own["concat"][0])["encoding"]["color"]["scale"]["scheme"] == "viridis"
    fixed = live_chart(domain=(-1.0, 1.0))
    assert "resolve" not in fixed
    scale = cells_of(fixed["concat"][3])["encoding"]["color"]["scale"]
    assert scale["scheme"] == "redblue" and scale["domain"] == [-1.0, 1.0]


def test_the_data_sent_once_is_bounded_by_the_offsets():
    """Four offset tables, (2·rows − 1)(2·cols − 1) rows each: 2 852 on the default grid, 64 516 on the
    largest (64 × 64), against 4·(rows·cols)² for every query's heatmaps. Drawn on a canvas at every grid."""
    for (rows, cols), total in (((12, 16), 2852), ((64, 64), 64516), ((22, 22), 7396)):
        tables = {name: np.full((2 * rows - 1, 2 * cols - 1), i / 4) for i, name in enumerate(SCHEMES)}
        chart = charts.query_heatmaps(tables, notes={}, query=(0, 0), frame=0, domain=None, description="d")
        with alt.data_transformers.enable("default", max_rows=None):  # the page sends Arrow, with no row limit
            spec = chart.to_dict()
        assert sum(len(rows_) for rows_ in spec["datasets"].values()) == total + 2  # + the ring's row, the facts row
        assert all(len(frame(spec, cells_of(p))) == (2 * rows - 1) * (2 * cols - 1) for p in spec["concat"])
        assert spec["usermeta"]["embedOptions"]["renderer"] == "canvas"


def test_another_grid_changes_the_data_not_the_spec():
    """The browser keeps a chart whose spec did not change (issue #23): the grid's size and place in
    the panels travel in the facts row, every panel has the same size, and the sliders span the
    widest range (narrowed in the browser by the page), so another rows or cols sends new rows only."""

    def without_data(**kw):
        spec = live_chart(frames=1, frame=0, query=(0, 0), slider_max=(63, 63), **kw)
        return spec, {k: v for k, v in spec.items() if k != "datasets"}

    for columns, width in ((2, 300), (1, 260)):
        specs = [
            without_data(rows=r, cols=c, columns=columns, panel_width=width)
            for r, c in ((4, 5), (12, 16), (1, 9), (9, 2))
        ]
        assert all(other[1] == specs[0][1] for other in specs[1:])
        for spec, _ in specs:  # every panel the same size at every grid
            assert {(p["width"], p["height"]) for p in spec["concat"]} == {(width, charts.panel_height(width))}
    # what does change: the facts row
    (small, _), (large, _) = without_data(rows=4, cols=5), without_data(rows=12, cols=16)
    assert (small["datasets"]["data-0"][0]["rows"], small["datasets"]["data-0"][0]["cols"]) == (4, 5)
    assert (large["datasets"]["data-0"][0]["rows"], large["datasets"]["data-0"][0]["cols"]) == (12, 16)


def test_the_panels_place_the_grid_as_the_facts_say():
    """The scale domains and axis ticks the browser computes from the facts row: the default 12 × 16
    grid fills a 300 × 225 panel; a square grid is centred with equal room left and right; each axis is
    labelled at whole rows and columns of the grid only."""
    spec = live_chart(rows=12, cols=16, frames=1, frame=0, query=(0, 0))
    cells = cells_of(spec["concat"][0])
    x, y = cells["encoding"]["x"], cells["encoding"]["y"]
    assert spec_value(spec, x["scale"]["domain"]["expr"]) == [-0.5, 15.5]
    assert spec_value(spec, y["scale"]["domain"]["expr"]) == [-0.5, 11.5]
    assert y["scale"]["reverse"] is True  # row 0 at the top
    # a label at most every 36 px across (300 // 36 = 8 of them) and 30 px down (225 // 30 = 7)
    assert spec_value(spec, x["axis"]["values"]["expr"]) == [0, 2, 4, 6, 8, 10, 12, 14]
    assert spec_value(spec, y["axis"]["values"]["expr"]) == [0, 2, 4, 6, 8, 10]
    square = live_chart(rows=8, cols=8, frames=1, frame=0, query=(0, 0))
    sx = spec_value(square, cells_of(square["concat"][0])["encoding"]["x"]["scale"]["domain"]["expr"])
    sy = spec_value(square, cells_of(square["concat"][0])["encoding"]["y"]["scale"]["domain"]["expr"])
    assert sy == [-0.5, 7.5]  # 225 px tall: 8 patches of 28.125 px
    assert sx[0] == pytest.approx(-0.5 - (300 / 28.125 - 8) / 2) and sx[0] + sx[1] == pytest.approx(7.0)
    # 225 px of grid: room for 225 // 36 = 6 labels, so every second column
    axis = cells_of(square["concat"][0])["encoding"]["x"]["axis"]
    assert spec_value(square, axis["values"]["expr"]) == [0, 2, 4, 6]


@given(rows=st.integers(1, 64), cols=st.integers(1, 64), width=st.sampled_from([260, 300]))
def test_grid_frame_keeps_patches_square_and_the_grid_centred(rows, cols, width):
    height = charts.panel_height(width)
    f = charts.grid_frame(rows, cols, width=width, height=height)
    px_col = width / (f["x_hi"] - f["x_lo"])  # pixels per column and per row
    px_row = height / (f["y_hi"] - f["y_lo"])
    box_w, box_h = cols * px_col, rows * px_row
    assert box_w <= width + 1e-9 and box_h <= height + 1e-9  # the grid is inside the panel
    assert max(box_w / width, box_h / height) == pytest.approx(1.0)  # as large as fits
    assert min(box_w, box_h) >= min(charts.LEAST_SIDE, height) - 1e-9
    if min(rows * min(width / cols, height / rows), cols * min(width / cols, height / rows)) >= charts.LEAST_SIDE:
        assert px_col == pytest.approx(px_row)  # square patches
    assert f["x_lo"] + f["x_hi"] == pytest.approx(cols - 1) and f["y_lo"] + f["y_hi"] == pytest.approx(rows - 1)
    assert f["x_step"] >= 1 and f["y_step"] >= 1
    # the axes sit at the grid's edges: moved inwards by the room between the panel's edge and the grid
    assert f["y_offset"] == pytest.approx(-(-0.5 - f["x_lo"]) * px_col)
    assert f["x_offset"] == pytest.approx(-(f["y_hi"] - (rows - 0.5)) * px_row)


def test_a_slider_past_the_grids_edge_reads_as_the_edge():
    """The sliders span the widest grid; on a smaller one a value past its last row or column shows
    that row or column (the page narrows the sliders in the browser at once)."""
    spec = live_chart(rows=4, cols=5, frames=1, frame=0, query=(1, 3), slider_max=(63, 63))
    params = {p["name"]: p for p in spec["params"] if "select" in p}
    assert (params["vis_qrow"]["bind"]["max"], params["vis_qcol"]["bind"]["max"]) == (63, 63)
    np.testing.assert_allclose(shown(spec, 1, (40, 50)), reference("axial", 4, 5, (3, 4), 0), atol=1e-12)
    ring = next(layer for layer in spec["concat"][0]["layer"] if layer["mark"].get("filled") is False)
    row = unit_rows(spec, ring, vis_qrow=40, vis_qcol=50).iloc[0]
    assert (row["x0"], row["y0"]) == (3.5, 2.5)
    assert (
        spec_value(spec, spec["title"]["text"]["expr"], vis_qrow=40, vis_qcol=50)[0] == "Query patch (row 3, column 4)"
    )
    with pytest.raises(ValueError, match=r"query must be in 0 … 63 × 0 … 63, got \(64, 0\)"):
        live_chart(rows=4, cols=5, query=(64, 0), slider_max=(63, 63))
    with pytest.raises(ValueError, match=r"slider_max must reach the grid's last row and column \(3, 4\)"):
        live_chart(rows=4, cols=5, slider_max=(3, 3))


@pytest.mark.parametrize(
    "tables, query, words",
    [
        ({}, (0, 0), "at least one"),
        ({"a": np.zeros((3, 3)), "b": np.zeros((3, 5))}, (0, 0), "same shape"),
        ({"a": np.zeros((4, 3))}, (0, 0), "2·rows − 1"),
        ({"a": np.zeros((3, 3))}, (2, 0), "patch of the 2 × 2 grid"),
    ],
)
def test_query_heatmaps_check_their_input(tables, query, words):
    with pytest.raises(ValueError, match=words):
        charts.query_heatmaps(tables, notes={}, query=query, frame=0, domain=None, description="d")


def test_a_phone_gets_one_heatmap_per_row():
    """Two per row by default; one per row for a phone (a compound chart cannot reflow: two would be
    scaled down to unreadable text); no other count."""
    assert live_chart()["columns"] == 2
    assert live_chart(columns=1, panel_width=260)["columns"] == 1
    assert {p["width"] for p in live_chart(columns=1, panel_width=260)["concat"]} == {260}
    with pytest.raises(ValueError, match="columns must be 1 or 2, got 3"):
        live_chart(columns=3)
