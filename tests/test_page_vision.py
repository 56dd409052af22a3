"""The Images-and-video page through Streamlit's AppTest: defaults, the deep link, every preset, every
tab, every control at its maximum, garbage and out-of-range URL values, and the numbers it shows
(heatmap cells, tables, metrics, "What to notice") against values computed here from the formulas.
The query patch is the heatmaps' own (explorer.liveparam): the link's query is where the chart
starts, the cells are what the browser computes there (the chart's transforms, evaluated here), and
a report from the chart moves the page and the link."""

from __future__ import annotations

import contextlib
import io
import math
import re
from pathlib import Path

import numpy as np
import pytest
from _apptest import metrics, run_page
from _chartspec import element_spec, find, frame, spec_value, unit_rows
from streamlit.testing.v1 import AppTest

import posenc
from explorer.charts.vision import GRID_PARAMS, LIVE_PARAMS, QUERY_PARAMS
from explorer.compute import vision as compute
from explorer.site.vision import PAGE as DECL
from explorer.text import vision as text
from posenc.mrope import VISION_PRESETS

PAGE = str(Path(__file__).resolve().parent.parent / DECL.script)
KEYS = tuple(p.key for p in DECL.params)
MAXIMUM = {
    "vis_model": "custom",
    "vis_head_dim": 256,
    "vis_base": 5000000,
    "vis_rows": 64,
    "vis_cols": 64,
    "vis_qrow": 63,
    "vis_qcol": 63,
    "vis_frames": 16,
    "vis_frame": 15,
    "vis_krow": 63,
    "vis_kcol": 63,
    "vis_train": 32,
    "vis_new": 64,
    "vis_text_before": 64,
    "vis_text_after": 64,
}
TITLES = {
    "qwen2.5-vl-7b": ("M-RoPE, contiguous [16, 24, 24]", "M-RoPE, interleaved [24, 20, 20]", 128, 1e6),
    "qwen3-vl-8b": ("M-RoPE, contiguous [16, 24, 24]", "M-RoPE, interleaved [24, 20, 20]", 128, 5e6),
    "rope-vit-b16": ("M-RoPE, contiguous [8, 12, 12]", "M-RoPE, interleaved [12, 10, 10]", 64, 100.0),
}


def run(at=None, **query):
    return run_page(PAGE, at, **query)


def specs(at) -> list[dict]:
    return [element_spec(c) for c in at.get("vega_lite_chart")]


def notices(at) -> str:
    return next(md.value for md in at.markdown if "What to notice" in md.value)


def live_spec(at) -> dict:
    """The query heatmaps (the page's first chart; its sliders are the query patch)."""
    return element_spec(at.get("vega_lite_chart")[0])


def slider_starts(spec: dict) -> dict[str, int]:
    """Where the chart's own sliders start: {vis_rows, vis_cols, vis_qrow, vis_qcol: value}."""
    return {p["name"]: p["value"] for p in spec["params"] if "bind" in p}


def starts(spec: dict) -> tuple[int, int]:
    """(row, column): where the chart's query sliders start."""
    values = slider_starts(spec)
    return values["vis_qrow"], values["vis_qcol"]


def grid_starts(spec: dict) -> tuple[int, int]:
    """(rows, columns): where the chart's grid sliders start."""
    values = slider_starts(spec)
    return values["vis_rows"], values["vis_cols"]


def query_ranges(at) -> dict[str, str]:
    """{vis_qrow, vis_qcol: the largest value}: the page's range of the query sliders, which the
    browser's script applies to them (explorer.liveparam.ranges_html), beside the chart it names."""
    (body,) = [h.proto.body for h in at.get("html") if h.proto.body.startswith("<span hidden data-posenc-ranges")]
    (chart,) = re.findall(r'data-posenc-ranges="([a-z0-9_]+)"', body)
    assert chart.startswith("vis_live_")  # the query heatmaps' element key (explorer.liveparam.LiveChart)
    found = dict(re.findall(r'data-max-([a-z0-9_]+)="([0-9]+)"', body))
    return {key: found[f"{key}_{key}"] for key in (*QUERY_PARAMS, "vis_frame") if f"{key}_{key}" in found}


def panel_grids(
    spec: dict,
    query: tuple[int, int] | None = None,
    grid: tuple[int, int] | None = None,
    frame: int | None = None,
    frames: int | None = None,
) -> list[np.ndarray]:
    """Each panel's heatmap as the browser computes it with the query at `query`, the grid at `grid`, the video's
    frames at `frames` and the frame at `frame` (default: where the chart starts): the cells layer's transforms as
    sent, evaluated here."""
    query = starts(spec) if query is None else query
    rows, cols = grid_starts(spec) if grid is None else grid
    frame = slider_starts(spec)["vis_frame"] if frame is None else frame
    frames = slider_starts(spec)["vis_frames"] if frames is None else frames
    out = []
    for panel in spec["concat"]:
        (layer,) = [v for v in panel["layer"] if any("filter" in t for t in v.get("transform", []))]
        df = unit_rows(spec, layer, **dict(zip(LIVE_PARAMS, (rows, cols, *query, frames, frame), strict=True)))
        assert len(df) == rows * cols  # one cell per patch
        grid_ = np.full((rows, cols), np.nan)
        grid_[df["vis_qrow"].astype(int), df["vis_qcol"].astype(int)] = df["s"]
        out.append(grid_)
    return out


# --- independent references (formulas, not posenc) ---------------------------------------------
def thetas(d, b):
    return np.array([b ** (-2 * j / d) for j in range(d // 2)])


def mean_cos(deltas, inv):
    """(1/n) Σ_j cos(Δ_j θ_j) for per-pair position differences Δ_j."""
    return float(np.mean(np.cos(np.asarray(deltas) * inv)))


def axes_contiguous(section):
    return [0] * section[0] + [1] * section[1] + [2] * section[2]


def axes_interleaved(section, n):
    a = [0] * n
    for j in range(1, 3 * section[1], 3):
        a[j] = 1
    for j in range(2, 3 * section[2], 3):
        a[j] = 2
    return a


def expected_grids(rows, cols, q, frame, d, b, sec_c, sec_i, first="row"):
    inv = thetas(d, b)
    half = np.array([b ** (-4 * i / d) for i in range(d // 4)])
    inv_ax = np.concatenate([half, half])
    ax_c, ax_i = axes_contiguous(sec_c), axes_interleaved(sec_i, d // 2)
    out = {name: np.zeros((rows, cols)) for name in ("raster", "axial", "contiguous", "interleaved")}
    for r in range(rows):
        for c in range(cols):
            diff = (frame, r - q[0], c - q[1])  # t, h, w differences (query in frame 0)
            out["raster"][r, c] = mean_cos(np.full(d // 2, frame * rows * cols + (r - q[0]) * cols + c - q[1]), inv)
            by_half = [diff[1]] * (d // 4) + [diff[2]] * (d // 4)
            out["axial"][r, c] = mean_cos(by_half if first == "row" else by_half[::-1], inv_ax)
            out["contiguous"][r, c] = mean_cos([diff[a] for a in ax_c], inv)
            out["interleaved"][r, c] = mean_cos([diff[a] for a in ax_i], inv)
    return out


def assert_grids(at, rows, cols, q, frame, d, b, sec_c, sec_i, first="row"):
    """The page's one chart of four heatmaps starts at the query `q` and shows the formulas' scores
    there and at two other queries the sliders can reach."""
    spec = live_spec(at)
    assert starts(spec) == q
    assert spec["description"].startswith("Four heatmaps over the patch grid")
    assert grid_starts(spec) == (rows, cols) and slider_starts(spec)["vis_frame"] == frame
    for query in dict.fromkeys([q, (0, 0), (rows - 1, cols // 2)]):
        want = expected_grids(rows, cols, query, frame, d, b, sec_c, sec_i, first)
        for got, name in zip(panel_grids(spec, query), ("raster", "axial", "contiguous", "interleaved"), strict=True):
            assert got.shape == (rows, cols)
            np.testing.assert_allclose(got, want[name], atol=1e-9, err_msg=f"{name} at {query}")
    return spec


def panel_titles(spec: dict) -> list[str]:
    return [panel["title"]["text"] for panel in spec["concat"]]


def assert_page_complete(at):
    assert at.title[0].value == "Images and video"
    assert [t.label for t in at.tabs] == list(DECL.params[0].options)
    assert any("What to notice" in md.value for md in at.markdown)
    assert any(e.label == "Reproduce in Python" for e in at.expander)


# --- defaults ----------------------------------------------------------------------------------
def test_defaults_show_four_schemes_with_the_right_scores():
    at = run()
    assert_page_complete(at)
    assert not at.warning and not at.error
    assert len(at.get("vega_lite_chart")) == 1  # one chart: the four heatmaps share the query
    assert not [s for s in at.slider if s.key in LIVE_PARAMS]  # the grid and the query: the chart's own sliders
    assert [n.key for n in at.number_input] == [*GRID_PARAMS, "vis_frames", "vis_frame"]  # and boxes for exact entry
    shown = assert_grids(at, 12, 16, (5, 7), 0, 128, 1e6, (16, 24, 24), (24, 20, 20))
    assert panel_titles(shown) == [
        "1D RoPE over the raster order",
        "Axial 2D RoPE (rows first)",
        "M-RoPE, contiguous [16, 24, 24]",
        "M-RoPE, interleaved [24, 20, 20]",
    ]
    assert metrics(at) == {"Head dimension d": "128", "Base b": "1,000,000"}
    want = expected_grids(12, 16, (5, 7), 0, 128, 1e6, (16, 24, 24), (24, 20, 20))
    text = notices(at)
    assert f"similarity {want['raster'][6, 7]:.4f} against {want['raster'][5, 8]:.4f}" in text
    assert "puts the patch below a query 16 positions after it and the patch to its right 1 after it" in text
    assert "for every query that has them" in text  # true wherever the chart moves the query
    assert f"Axial 2D: {want['axial'][6, 7]:.4f} and {want['axial'][5, 8]:.4f}" in text
    # across a row end: (r, 15) and (r + 1, 0) are raster neighbours, for every r
    assert "the last patch of a row (column 15) and the first of the next (column 0)" in text
    assert f"(1 apart), similarity {mean_cos(np.ones(64), thetas(128, 1e6)):.4f}" in text
    assert "raster order counts 192 positions per frame" in text


def colour_scale(spec: dict) -> dict:
    (layer,) = [v for v in spec["concat"][0]["layer"] if "color" in v.get("encoding", {})]
    return layer["encoding"]["color"]["scale"]


def test_own_range_and_fixed_range_colour_scales():
    own, fixed = live_spec(run()), live_spec(run(vis_colour="−1 … 1"))
    assert colour_scale(own)["scheme"] == "viridis" and "domain" not in colour_scale(own)  # the browser's, per panel
    assert own["resolve"]["scale"]["color"] == "independent"
    assert colour_scale(fixed)["scheme"] == "redblue" and colour_scale(fixed)["domain"] == [-1.0, 1.0]
    assert "resolve" not in fixed


# --- the deep link, presets, frames --------------------------------------------------------------
def test_the_deep_link():
    at = run(**{k: str(v) for k, v in DECL.deep_link.query.items()})
    assert_page_complete(at)
    assert not at.warning
    q = DECL.deep_link.query
    assert not [s for s in at.slider if s.key in LIVE_PARAMS]
    shown = assert_grids(  # the link's query patch is where the chart starts
        at,
        q["vis_rows"],
        q["vis_cols"],
        (q["vis_qrow"], q["vis_qcol"]),
        q["vis_frame"],
        32,
        100.0,
        (4, 6, 6),
        (6, 5, 5),
    )
    rings = [v for v in shown["concat"][0]["layer"] if v["mark"].get("filled") is False]
    dashes = [spec_value(shown, v["mark"]["strokeDash"]["expr"]) for v in rings if "strokeDash" in v["mark"]]
    assert dashes == [[3, 2]]  # the query is in frame 0, the keys in frame 1: dashed (its white halo is not)
    assert spec_value(shown, shown["title"]["text"]["expr"])[1] == "keys in frame 1 (frames 0 … 4)"
    assert "every frame scores exactly like frame 0" in notices(at)


@pytest.mark.parametrize("model", list(TITLES))
def test_every_preset(model):
    at = run(vis_model=model)
    assert_page_complete(at)
    title_c, title_i, d, b = TITLES[model]
    assert panel_titles(live_spec(at))[2:] == [title_c, title_i]
    sec_c = tuple(int(x) for x in title_c.split("[")[1].rstrip("]").split(", "))
    sec_i = tuple(int(x) for x in title_i.split("[")[1].rstrip("]").split(", "))
    first = "column" if model == "rope-vit-b16" else "row"
    assert_grids(at, 12, 16, (5, 7), 0, d, b, sec_c, sec_i, first)
    assert metrics(at)["Head dimension d"] == str(d)
    assert any(model.split("-")[0][:4].lower() in c.value.lower() for c in at.caption)  # the source is named


def test_custom_model_shows_its_own_controls():
    at = run(vis_model="custom", vis_head_dim=16, vis_base=1000)
    assert at.select_slider(key="vis_head_dim").value == 16 and not metrics(at)
    assert_grids(at, 12, 16, (5, 7), 0, 16, 1000.0, (2, 3, 3), (3, 3, 2))


def test_a_later_frame_turns_only_the_time_pairs():
    at = run(vis_frame=3)
    want = expected_grids(12, 16, (5, 7), 3, 128, 1e6, (16, 24, 24), (24, 20, 20))
    assert_grids(at, 12, 16, (5, 7), 3, 128, 1e6, (16, 24, 24), (24, 20, 20))
    same = expected_grids(12, 16, (5, 7), 0, 128, 1e6, (16, 24, 24), (24, 20, 20))
    np.testing.assert_allclose(want["axial"], same["axial"])  # no time axis
    assert ", plus 3 whole frames of 192 (the keys are in frame 3)" in notices(at)


# --- the other tabs ------------------------------------------------------------------------------
def test_pairs_and_axes():
    at = run(vis_view="Pairs and axes")
    assert_page_complete(at)
    strip, _ = specs(at)
    df = frame(strip, find(strip, "rect")[0])
    counts = df.groupby(["scheme", "axis"]).size().to_dict()
    assert counts[("M-RoPE contiguous", "time (t)")] == 16
    assert counts[("M-RoPE interleaved", "row (h)")] == 20
    assert counts[("axial 2D", "column (w)")] == 32
    assert strip["title"]["subtitle"][1] == "M-RoPE sections: contiguous [16, 24, 24], interleaved [24, 20, 20]"
    inter = df[df["scheme"] == "M-RoPE interleaved"].sort_values("pair")
    assert inter["axis"].tolist()[:6] == ["time (t)", "row (h)", "column (w)"] * 2
    wl = 2 * math.pi / thetas(128, 1e6)
    text = notices(at)
    assert f"time has pairs 0–15, wavelengths {wl[0]:.3g}–{wl[15]:.3g}" in text
    assert f"width has pairs 40–63, wavelengths {wl[40]:.3g}–{wl[63]:.3g}" in text
    table = at.dataframe[0].value
    assert table["pairs"].sum() == 4 * 64


def test_shift_test_numbers():
    at = run(vis_view="Shift test", vis_krow=8, vis_kcol=12, vis_drow=2, vis_dcol=-5)
    assert_page_complete(at)
    table = at.dataframe[0].value.set_index("scheme")
    assert (table["shifted by Δ"] - table["q, k"]).abs().max() < 1e-12
    inv = thetas(128, 1e6)
    # raster: offset 3·16 + 5 = 53 on a 16-wide grid, 3·17 + 5 = 56 on a 17-wide one
    assert table.loc["raster 1D", "q, k"] == pytest.approx(mean_cos(np.full(64, 53), inv), abs=1e-12)
    assert table.loc["raster 1D", "grid 17 wide"] == pytest.approx(mean_cos(np.full(64, 56), inv), abs=1e-12)
    others = table.loc[["axial 2D", "M-RoPE contiguous", "M-RoPE interleaved"]]
    assert (others["grid 17 wide"] == others["q, k"]).all()
    text = notices(at)
    assert "3·16 + 5 = 53" in text and "are 56 apart" in text
    (diagram,) = specs(at)
    assert slider_starts(diagram) == {"vis_krow": 8, "vis_kcol": 12, "vis_drow": 2, "vis_dcol": -5}
    assert shift_points(diagram) == {"q": (5, 7), "k": (8, 12), "q + Δ": (7, 2), "k + Δ": (10, 7)}


def shift_points(spec: dict) -> dict[str, tuple[int, int]]:
    """{label: (row, column)} the shift diagram draws with its sliders where they start."""
    (dots,) = find(spec, "circle")
    rows = unit_rows(spec, dots, **{k: str(v) for k, v in slider_starts(spec).items()})
    return {r.label: (int(r.row), int(r.col)) for r in rows.itertuples()}


def test_shift_is_clamped_to_keep_both_patches_on_the_grid():
    at = run(vis_view="Shift test", vis_drow=40, vis_dcol=-40)
    assert_page_complete(at)
    (diagram,) = specs(at)
    # key row 8 is the lower patch, query column 7 the left one
    assert slider_starts(diagram) == {"vis_krow": 8, "vis_kcol": 12, "vis_drow": 12 - 1 - 8, "vis_dcol": -7}
    assert at.query_params["vis_drow"] == "3" and at.query_params["vis_dcol"] == "-7"
    assert any("vis\\_drow" in w.value for w in at.warning)
    table = at.dataframe[0].value.set_index("scheme")  # scored with the clamped shift: both patches on the grid
    assert (table["shifted by Δ"] - table["q, k"]).abs().max() < 1e-12


def res_sliders(spec: dict) -> dict[str, int]:
    """Where the resolution chart's sliders start, as sides (they run over the options' indices)."""
    from explorer.vocabulary import NEW_GRIDS, TRAINED_GRIDS

    starts = slider_starts(spec)
    return {"vis_train": TRAINED_GRIDS[starts["vis_train"]], "vis_new": NEW_GRIDS[starts["vis_new"]]}


def res_panels(spec: dict) -> list[np.ndarray]:
    """The resolution chart's three heatmaps as the browser computes them where its sliders start."""
    out = []
    for k, panel in enumerate(spec["vconcat"][1]["concat"]):
        (cells,) = [v for v in panel["layer"] if v.get("name", "").startswith(f"res_cells_{k}")]
        df = unit_rows(spec, cells, **{key: str(v) for key, v in slider_starts(spec).items()})
        n = math.isqrt(len(df))
        grid = np.full((n, n), np.nan)
        grid[df["r"].astype(int), df["c"].astype(int)] = df["s"].astype(float)
        out.append(grid)
    return out


def test_resolution_numbers():
    """The link's sides are where the resolution chart's sliders start; its heatmaps there are the axial 2D scores
    of the centre patch computed here from posenc's angles (a 16 × 16 grid, a 32 × 32 one as is and × 16/32); the
    notices count the unseen patches."""
    at = run(vis_view="Resolution", vis_train=16, vis_new=32)
    assert_page_complete(at)
    (chart,) = specs(at)
    assert res_sliders(chart) == {"vis_train": 16, "vis_new": 32}
    inv = posenc.axial_inverse_frequencies(128, base=1e6)
    for got, (n, s) in zip(res_panels(chart), ((16, 1.0), (32, 1.0), (32, 0.5)), strict=True):
        a = posenc.axial_rope_angles(n, n, inv, row_scale=s, col_scale=s)
        want = posenc.angle_scores(a[[(n // 2) * n + n // 2]], a)[0].reshape(n, n)
        np.testing.assert_allclose(got, want, atol=1e-12)
    text = notices(at)
    assert "768 of its 1,024 patches (75%)" in text
    assert "largest position is 15.5, 0.5 past the last trained one (15)" in text
    inv = np.concatenate([[1e6 ** (-4 * i / 128) for i in range(32)]] * 2)
    near = mean_cos([0] * 32 + [0.5] * 32, inv)
    assert f"right-hand neighbour scores {near:.4f}" in text
    smaller = notices(run(vis_view="Resolution", vis_train=32, vis_new=16))
    assert "The new grid is not larger" in smaller


def test_a_report_from_the_resolution_chart_moves_its_notes_and_the_link():
    """Issue #36: the trained and the new side are the resolution chart's own sliders (over their options' indices).
    A report reaches the session and the link as sides; the chart keeps its spec (the browser holds the values) and
    the notices follow; an index past the options is ignored; a link read with the tab closed keeps the sides."""
    at = AppTest.from_function(_page_after_a_report, args=(PAGE,), default_timeout=120)
    at.query_params["vis_view"] = "Resolution"
    run(at)
    (first,) = specs(at)
    key = at.get("vega_lite_chart")[0].proto.id
    assert res_sliders(first) == {"vis_train": 16, "vis_new": 32}
    at.session_state["fake_res_report"] = {"vis_train": [{"vis_train": 4}], "vis_new": [{"vis_new": 8}]}
    run(at)
    assert not at.exception
    assert (at.query_params["vis_train"], at.query_params["vis_new"]) == ("32", "64")
    assert specs(at) == [first] and at.get("vega_lite_chart")[0].proto.id == key  # kept, as the browser holds it
    assert "3,072 of its 4,096 patches (75%)" in notices(at)
    assert "multiplies rows and columns by 32/64 = 0.5" in notices(at)
    at.session_state["fake_res_report"] = {"vis_new": [{"vis_new": 9}]}  # no 10th option: ignored
    run(at)
    assert at.query_params["vis_new"] == "64" and not at.exception
    closed = run(vis_view="Patch grid", vis_train=24, vis_new=48)  # the tab closed: the link keeps the sides
    assert (closed.query_params["vis_train"], closed.query_params["vis_new"]) == ("24", "48")
    # ... and they are read with it closed: a side that is not an option is named, and leaves the link
    bad = run(vis_view="Patch grid", vis_train=30)
    assert not bad.exception and "vis_train" not in bad.query_params
    assert any('vis_train** = "30" is not one of 8, 14, 16, 24, 32' in w.value.replace("\\", "") for w in bad.warning)


def test_sequence_numbers():
    at = run(vis_view="Sequence", vis_text_before=5, vis_text_after=3)
    assert_page_complete(at)
    shown = metrics(at)
    assert shown["Video tokens"] == "768" and shown["Video starts at"] == "5"
    assert shown["Next text token's position"] == str(5 + 16)
    (chart,) = specs(at)
    # what the browser draws with the chart's own sliders where the link put them (text, then the video's dots)
    df = [unit_rows(chart, layer, vis_text_before="5", vis_text_after="3") for layer in find(chart, "circle")]
    text_after = [row for rows in df for row in rows.to_dict("records") if row["index"] >= 5 + 768]
    assert sorted({row["position"] for row in text_after}) == [21, 22, 23]  # t = h = w for text
    assert len(text_after) == 3 * 3
    assert "continues at 21 = 5 + max(4, 12, 16)" in notices(at)


# --- extremes and bad links ----------------------------------------------------------------------
def test_every_control_at_its_maximum():
    at = run(**{k: str(v) for k, v in MAXIMUM.items()})
    assert_page_complete(at)
    assert not at.warning
    spec = live_spec(at)
    assert starts(spec) == (63, 63)
    # data sent once: the ring's row; every patch of the 64 × 64 grid; one lookup table: raster order's scores by
    # position offset, Δp = −(64² − 1) … 16·64² − 1, three offset tables of 127 × 127 and M-RoPE's share of 16 frames
    lookup = 17 * 64**2 - 1 + 3 * 127 * 127 + 2 * 16
    assert sorted(len(rows) for rows in spec["datasets"].values()) == [1, 64 * 64, lookup]
    assert spec["usermeta"]["embedOptions"]["renderer"] == "canvas"
    grids = panel_grids(spec, (0, 63))  # a far corner of the largest grid, as the browser computes it
    want = expected_grids(64, 64, (0, 63), 15, 256, 5e6, (32, 48, 48), (48, 40, 40))
    for got, name in zip(grids, ("raster", "axial", "contiguous", "interleaved"), strict=True):
        np.testing.assert_allclose(got[::9, ::9], want[name][::9, ::9], atol=1e-9, err_msg=name)
    for view in DECL.params[0].options[1:]:
        other = run(**{k: str(v) for k, v in MAXIMUM.items()}, vis_view=view)
        assert_page_complete(other)
        assert not other.warning


def test_a_one_patch_image():
    at = run(vis_rows=1, vis_cols=1, vis_frames=1)
    assert_page_complete(at)
    assert_grids(at, 1, 1, (0, 0), 0, 128, 1e6, (16, 24, 24), (24, 20, 20))


def test_garbage_in_every_url_parameter():
    at = run(**{key: "abc" for key in KEYS})
    assert_page_complete(at)
    (warning,) = at.warning
    for key in KEYS:
        if key not in ("vis_head_dim", "vis_base"):  # drawn for the custom model only
            assert key.replace("_", "\\_") in warning.value, key
    assert "<" not in warning.value
    assert_grids(at, 12, 16, (5, 7), 0, 128, 1e6, (16, 24, 24), (24, 20, 20))


@pytest.mark.parametrize("value", ["1e9", "-5", "nan", "inf", "3.5", "<script>", ""])
def test_out_of_range_numbers(value):
    at = run(vis_rows=value, vis_qcol=value, vis_frames=value)
    assert_page_complete(at)
    assert at.number_input(key="vis_rows").value == 12 and at.number_input(key="vis_frames").value == 4
    defaults = {"vis_rows": 12, "vis_cols": 16, "vis_qrow": 5, "vis_qcol": 7, "vis_frames": 4, "vis_frame": 0}
    assert slider_starts(live_spec(at)) == defaults


def test_query_outside_a_smaller_grid_is_clamped():
    at = run(vis_rows=4, vis_cols=5, vis_qrow=30, vis_qcol=30)
    assert_page_complete(at)
    spec = assert_grids(at, 4, 5, (3, 4), 0, 128, 1e6, (16, 24, 24), (24, 20, 20))
    bounds = {p["name"]: (p["bind"]["min"], p["bind"]["max"]) for p in spec["params"] if "bind" in p}
    # the widest grid's, in the spec
    assert bounds == {
        "vis_rows": (1, 64),
        "vis_cols": (1, 64),
        "vis_qrow": (0, 63),
        "vis_qcol": (0, 63),
        "vis_frames": (1, 16),
        "vis_frame": (0, 15),  # every frame of the longest video: the page narrows it to this one's in the browser
    }
    assert query_ranges(at) == {
        "vis_qrow": "3",
        "vis_qcol": "4",
        "vis_frame": "3",
    }  # narrowed in the browser: every patch, no further
    (warning,) = at.warning
    assert "vis\\_qrow" in warning.value and "vis\\_qcol" in warning.value
    # (3, 4) is also where the defaults (5, 7) clamp to on this grid: the link leaves them out, as a widget does
    assert "vis_qrow" not in at.query_params and "vis_qcol" not in at.query_params


# --- "Reproduce in Python" -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "query",
    [
        {},
        dict(DECL.deep_link.query),
        {"vis_model": "rope-vit-b16", "vis_qrow": 11, "vis_qcol": 15, "vis_text_after": 0},
        {"vis_model": "rope-vit-b16", "vis_view": "Resolution", "vis_train": 24, "vis_new": 56},
    ],
)
def test_the_snippet_reproduces_the_page(query):
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["code_vision"] = True  # open "Reproduce in Python" (drawn only while open)
    for key, value in query.items():
        at.query_params[key] = str(value)
    run(at)
    (code,) = [c.value for c in at.code if c.language == "python"]
    namespace: dict = {"__name__": "__snippet__"}
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(compile(code, "<snippet>", "exec"), namespace)
    assert out.getvalue().strip()
    assert (namespace["train"], namespace["new"]) == (int(query.get("vis_train", 16)), int(query.get("vis_new", 32)))
    if query.get("vis_view") == "Resolution":  # the resolution chart's heatmaps, where its sliders start
        (chart,) = specs(at)
        for got, name in zip(res_panels(chart), ("trained", "as is", "interpolated"), strict=True):
            np.testing.assert_allclose(got, namespace["resolution"][name], rtol=0, atol=1e-12, err_msg=name)
        return
    spec = live_spec(at)
    assert starts(spec) == (namespace["q_row"], namespace["q_col"])
    for grid, name in zip(panel_grids(spec), namespace["angles"], strict=True):
        a = namespace["angles"][name]
        query_index = namespace["q_row"] * namespace["cols"] + namespace["q_col"]
        scores = namespace["posenc"].angle_scores(a[[query_index]], a[namespace["keys"]])[0]
        np.testing.assert_allclose(grid.ravel(), scores, atol=1e-12, err_msg=name)
    pos = namespace["pos"]
    assert pos.shape[1] == namespace["text_before"] + namespace["frames"] * namespace["n"] + namespace["text_after"]


def test_edge_wordings_stay_true():
    same = notices(run(vis_view="Resolution", vis_train=16, vis_new=16))
    assert "would multiply by 1 and change nothing" in same and "past the last trained" not in same
    none_after = notices(run(vis_view="Sequence", vis_text_after=0))
    assert "A text token after it would continue at 20" in none_after


# --- the chart's report (explorer.liveparam) -----------------------------------------------------
def _page_after_a_report(page: str) -> None:
    """The page, after what the chart's on_select callback does when the browser reports the query
    (`explorer.liveparam.report`, before the rerun)."""
    import runpy

    import streamlit as st

    from explorer import liveparam
    from explorer.charts.vision import LIVE_PARAMS, RES_PARAMS, SHIFT_PARAMS, TEXT_PARAMS, shift_limits

    reported = st.session_state.pop("fake_report", None)
    if reported is not None:
        liveparam.report("vis_live", LIVE_PARAMS, reported)
    reported = st.session_state.pop("fake_shift_report", None)
    if reported is not None:  # with the page's ranges of the last run, as the chart's callback has them
        shown = st.session_state.pop("fake_shift_shown")
        liveparam.report("vis_shift_live", SHIFT_PARAMS, reported, shift_limits(shown, 12, 16, (5, 7)))
    reported = st.session_state.pop("fake_seq_report", None)
    if reported is not None:
        liveparam.report("vis_seq_live", TEXT_PARAMS, reported)
    reported = st.session_state.pop("fake_res_report", None)
    if reported is not None:
        liveparam.report("vis_res_live", RES_PARAMS, reported)
    runpy.run_path(page, run_name="__main__")


def test_a_report_from_the_chart_moves_the_page_and_the_link():
    """A click or a drag ends: the reported query goes into the session and the link, the Shift test
    and the snippet compute with it, and the chart is kept as the browser holds it (same element,
    same start values: Streamlit keeps it and its state)."""
    at = AppTest.from_function(_page_after_a_report, args=(PAGE,), default_timeout=120)
    at.query_params["vis_qrow"] = "2"
    at.session_state["code_vision"] = True  # "Reproduce in Python" open
    run(at)
    assert starts(live_spec(at)) == (2, 7)
    key = at.get("vega_lite_chart")[0].proto.id
    at.session_state["fake_report"] = {"vis_qrow": [{"vis_qrow": 9}], "vis_qcol": [{"vis_qcol": 3}]}
    run(at)
    assert (at.query_params["vis_qrow"], at.query_params["vis_qcol"]) == ("9", "3")
    assert starts(live_spec(at)) == (2, 7) and at.get("vega_lite_chart")[0].proto.id == key  # not rebuilt
    assert any("`Images_and_video?vis_qcol=3&vis_qrow=9`" in md.value for md in at.markdown)
    (code,) = [c.value for c in at.code if c.language == "python"]
    assert "(q_row, q_col) = 12, 16, (9, 3)" in code
    at.query_params["vis_view"] = "Shift test"
    at.session_state["vis_view"] = "Shift test"
    run(at)
    (diagram,) = [element_spec(c) for c in at.get("vega_lite_chart")]
    assert shift_points(diagram)["q"] == (9, 3)  # q, as reported


def test_another_grid_from_the_chart_keeps_it_and_a_typed_one_starts_it_anew():
    """Issue #36: the grid is the chart's own (sliders "grid rows" and "grid columns"), and its spec depends on
    neither the grid nor the query (every patch of the widest grid and one lookup table are its data). A grid the
    chart reports keeps the chart as the browser holds it (same element, same start values) while the page, the
    link and the range of the query sliders follow; a size typed in a box is a new chart at the new grid."""
    at = AppTest.from_function(_page_after_a_report, args=(PAGE,), default_timeout=120)
    at.query_params.update(vis_rows="6", vis_cols="8", vis_qrow="2", vis_qcol="3")
    at.session_state["code_vision"] = True  # "Reproduce in Python" open
    run(at)
    spec = live_spec(at)
    key = at.get("vega_lite_chart")[0].proto.id
    at.session_state["fake_report"] = {"vis_rows": [{"vis_rows": 7}], "vis_cols": [{"vis_cols": 9}]}
    run(at)
    assert live_spec(at) == spec and at.get("vega_lite_chart")[0].proto.id == key  # kept, data and all
    assert (at.query_params["vis_rows"], at.query_params["vis_cols"]) == ("7", "9")
    assert (at.number_input(key="vis_rows").value, at.number_input(key="vis_cols").value) == (7, 9)
    assert query_ranges(at) == {"vis_qrow": "6", "vis_qcol": "8", "vis_frame": "3"}
    assert "rows, cols, (q_row, q_col) = 7, 9, (2, 3)" in next(c.value for c in at.code if c.language == "python")
    # what the browser shows there: the formula at the reported grid
    for got, name in zip(panel_grids(spec, (2, 3), (7, 9)), ("raster", "axial", "contiguous", "interleaved")):
        want = expected_grids(7, 9, (2, 3), 0, 128, 1e6, (16, 24, 24), (24, 20, 20))[name]
        np.testing.assert_allclose(got, want, atol=1e-9, err_msg=name)
    at.number_input(key="vis_cols").set_value(12)
    run(at)
    assert not at.exception
    assert at.get("vega_lite_chart")[0].proto.id != key  # a new chart, starting at the typed grid
    assert_grids(at, 7, 12, (2, 3), 0, 128, 1e6, (16, 24, 24), (24, 20, 20))


def test_another_video_length_from_the_chart_keeps_it_and_the_page_follows():
    """Issue #36: the video's number of frames is the chart's own slider too (1 … 16): a length the chart reports
    keeps the chart (same element, spec and data: the tables hold every length's scores) while the link, the box, the
    frame slider's range and the notices follow. A video too short for the frame shown clamps the frame to its last
    and starts a new chart there (as a query past a smaller grid does): the browser's frame slider would otherwise
    hold the old frame, past its narrowed range."""
    at = AppTest.from_function(_page_after_a_report, args=(PAGE,), default_timeout=120)
    run(at)
    spec, key = live_spec(at), at.get("vega_lite_chart")[0].proto.id
    at.session_state["fake_report"] = {"vis_frame": [{"vis_frame": 3}]}
    run(at)
    for frames, clamped, kept in ((9, 3, True), (4, 3, True), (2, 1, False)):
        at.session_state["fake_report"] = {"vis_frames": [{"vis_frames": frames}]}
        run(at)
        assert not at.exception and not at.error
        assert at.query_params.get("vis_frames", "4") == str(frames)  # the link (4, the default: not in it)
        assert at.number_input(key="vis_frames").value == frames and query_ranges(at)["vis_frame"] == str(frames - 1)
        assert at.number_input(key="vis_frame").value == clamped and at.query_params["vis_frame"] == str(clamped)
        assert any(c.value == text.grid_caption(frames) for c in at.caption)
        if kept:  # the same element, spec and data: what the browser shows with its sliders at frames and frame 3
            assert live_spec(at) == spec and at.get("vega_lite_chart")[0].proto.id == key
        else:  # a new chart starting at the clamped frame
            assert at.get("vega_lite_chart")[0].proto.id != key
            assert slider_starts(live_spec(at))["vis_frame"] == clamped == frames - 1
        expected = expected_grids(12, 16, (5, 7), clamped, 128, 1e6, (16, 24, 24), (24, 20, 20))
        shown = live_spec(at)
        for got, name in zip(
            panel_grids(shown, frame=3, frames=frames), ("raster", "axial", "contiguous", "interleaved"), strict=True
        ):  # the frame slider at 3, or left there during a drag: past a shorter video, it reads as its last frame
            np.testing.assert_allclose(got, expected[name], atol=1e-9, err_msg=f"{name} {frames}")


def test_a_smaller_grid_after_a_drag_keeps_the_chart_and_a_new_spec_starts_it_at_the_query():
    """After a drag, the chart's spec still starts where it was built (the browser holds the dragged
    values). A grid the chart reports smaller than that start keeps the chart (no error: the start may lie past
    the grid, read as its edge in the browser), and so does the largest grid. A control that changes the
    spec (the colour range) starts the new one at the grid and the query the browser reported."""
    at = AppTest.from_function(_page_after_a_report, args=(PAGE,), default_timeout=120)
    run(at)
    assert starts(live_spec(at)) == (5, 7)  # the defaults
    key = at.get("vega_lite_chart")[0].proto.id
    at.session_state["fake_report"] = {"vis_qrow": [{"vis_qrow": 1}], "vis_qcol": [{"vis_qcol": 1}]}
    run(at)
    at.session_state["fake_report"] = {"vis_rows": [{"vis_rows": 4}]}
    run(at)
    assert not at.exception
    assert at.get("vega_lite_chart")[0].proto.id == key and slider_starts(live_spec(at))["vis_qrow"] == 5  # kept
    assert query_ranges(at) == {"vis_qrow": "3", "vis_qcol": "15", "vis_frame": "3"}
    np.testing.assert_allclose(  # what the browser shows with its query (1, 1) on the 4 × 16 grid: the formula there
        panel_grids(live_spec(at), (1, 1), (4, 16))[0],
        expected_grids(4, 16, (1, 1), 0, 128, 1e6, (16, 24, 24), (24, 20, 20))["raster"],
        atol=1e-9,
    )
    at.session_state["fake_report"] = {"vis_rows": [{"vis_rows": 64}], "vis_cols": [{"vis_cols": 64}]}
    run(at)
    assert not at.exception
    assert at.get("vega_lite_chart")[0].proto.id == key and starts(live_spec(at)) == (5, 7)  # kept
    assert (at.query_params["vis_rows"], at.query_params["vis_cols"]) == ("64", "64")
    assert live_spec(at)["usermeta"]["embedOptions"]["renderer"] == "canvas"  # at every grid
    at.segmented_control(key="vis_colour").set_value("−1 … 1")  # another colour scale: a new spec
    run(at)
    assert not at.exception
    spec = live_spec(at)
    assert "resolve" not in spec  # one fixed colour scale: the new spec
    want = {"vis_rows": 64, "vis_cols": 64, "vis_qrow": 1, "vis_qcol": 1, "vis_frames": 4, "vis_frame": 0}
    assert slider_starts(spec) == want  # the browser's


@pytest.mark.parametrize("model", [None, *VISION_PRESETS])
def test_the_tables_of_the_widest_grid_hold_every_grids(model):
    """The query heatmaps look up every grid's scores in the tables of the widest grid (issue #36), and so do the
    page's notices and download: on grids of every shape (one row, one column, the widest) and in later frames,
    they equal posenc.offset_scores of that very grid (up to float rounding: another corner patch as the query)."""
    m = compute.Model.of(VISION_PRESETS[model]) if model else compute.Model.of(None, 32, 100.0)
    for rows, cols, frames, shown in ((12, 16, 4, 0), (1, 64, 2, 1), (64, 1, 16, 15), (64, 64, 3, 2), (5, 3, 1, 0)):
        angles = compute.angles(rows, cols, frames, m)
        got = compute.offset_tables(rows, cols, frames, shown, m)
        for name in got:
            want = posenc.offset_scores(angles[name], rows, cols, frame=shown)
            np.testing.assert_allclose(got[name], want, rtol=0, atol=1e-12, err_msg=f"{name} {rows}x{cols} f{shown}")
    tables = compute.grid_tables(m)  # every video length's: the longest's (16 frames)
    raster = tables["raster 1D"].positions
    assert (raster.index[0], raster.index[-1]) == (
        1 - 64 * 64,
        16 * 64 * 64 - 1,
    ) and raster.index.is_monotonic_increasing
    assert tables["axial 2D"].frames is None  # no time axis
    # M-RoPE's share of frame f: the time pairs' (cos(f·θ_j) − 1) over the d/2 pairs, with math
    inv, n = thetas(m.head_dim, m.base), m.head_dim // 2
    for name, axes in (
        ("M-RoPE contiguous", axes_contiguous(m.section_c)),
        ("M-RoPE interleaved", axes_interleaved(m.section_i, n)),
    ):
        want = [sum(math.cos(f * inv[j]) - 1 for j in range(n) if axes[j] == 0) / n for f in range(16)]
        np.testing.assert_allclose(tables[name].frames.to_numpy(), want, rtol=0, atol=1e-12, err_msg=name)
    with pytest.raises(ValueError, match="rows and cols must be in 1 … 64"):
        compute.offset_tables(65, 3, 1, 0, m)


def test_another_frame_from_the_chart_keeps_it_and_the_page_follows():
    """Issue #36: the frame shown is the chart's own slider too (0 … frames − 1): a frame the chart reports keeps
    the chart (same element and spec) while the link, the box, the notices and the download follow."""
    at = AppTest.from_function(_page_after_a_report, args=(PAGE,), default_timeout=120)
    run(at)
    spec, key = live_spec(at), at.get("vega_lite_chart")[0].proto.id
    # the slider spans every frame of the longest video; the page narrows it to this one's 4 in the browser
    assert {p["name"]: p["bind"]["max"] for p in spec["params"] if "bind" in p}["vis_frame"] == 15
    assert query_ranges(at)["vis_frame"] == "3"
    at.session_state["fake_report"] = {"vis_frame": [{"vis_frame": 2}]}
    run(at)
    assert not at.exception
    assert live_spec(at) == spec and at.get("vega_lite_chart")[0].proto.id == key  # kept, data and all
    assert at.query_params["vis_frame"] == "2" and at.number_input(key="vis_frame").value == 2
    assert "(the keys are in frame 2)" in notices(at)
    for got, name in zip(panel_grids(spec, frame=2), ("raster", "axial", "contiguous", "interleaved"), strict=True):
        want = expected_grids(12, 16, (5, 7), 2, 128, 1e6, (16, 24, 24), (24, 20, 20))[name]
        np.testing.assert_allclose(got, want, atol=1e-9, err_msg=name)


def test_a_report_from_the_shift_diagram_moves_its_scores_and_the_link():
    """Issue #36: the key patch and the shift are the shift diagram's own sliders. A report reaches the session and
    the link, clamped so both patches stay on the grid; the diagram keeps its spec while the browser holds what it
    reported, and is rebuilt at the new start where the page clamped a value the browser did not report (a key moved
    down leaves less room for the shift); the scores follow."""
    at = AppTest.from_function(_page_after_a_report, args=(PAGE,), default_timeout=120)
    at.query_params["vis_view"] = "Shift test"
    run(at)
    (first,) = specs(at)
    at.session_state["fake_shift_report"] = {"vis_drow": [{"vis_drow": 3}], "vis_dcol": [{"vis_dcol": 1}]}
    at.session_state["fake_shift_shown"] = {"vis_krow": 8, "vis_kcol": 12}
    run(at)
    assert (at.query_params["vis_drow"], at.query_params["vis_dcol"]) == ("3", "1")
    assert specs(at) == [first]  # the browser holds these values: the chart is kept
    assert "(Δrow, Δcolumn) = (3, 1)" in notices(at)
    at.session_state["fake_shift_report"] = {"vis_krow": [{"vis_krow": 11}], "vis_kcol": [{"vis_kcol": 2}]}
    at.session_state["fake_shift_shown"] = {"vis_krow": 8, "vis_kcol": 12}
    run(at)
    (moved,) = specs(at)
    # row 11 is the last: no room to shift down; column 2 leaves room for 16 − 1 − 7 = 8 to the right
    assert slider_starts(moved) == {"vis_krow": 11, "vis_kcol": 2, "vis_drow": 0, "vis_dcol": 1}
    assert shift_points(moved) == {"q": (5, 7), "k": (11, 2), "q + Δ": (5, 8), "k + Δ": (11, 3)}
    # 0 is the default (2) clamped into this range: the link leaves it out, as for a widget, and reproduces it
    assert at.query_params["vis_krow"] == "11" and "vis_drow" not in at.query_params
    at.session_state["fake_shift_report"] = {"vis_dcol": [{"vis_dcol": 40}]}  # past the page's range: clamped
    at.session_state["fake_shift_shown"] = {"vis_krow": 11, "vis_kcol": 2}
    run(at)
    assert at.query_params["vis_dcol"] == str(16 - 1 - 7)
    table = at.dataframe[0].value.set_index("scheme")
    assert (table["shifted by Δ"] - table["q, k"]).abs().max() < 1e-12


def test_a_report_from_the_sequence_chart_moves_its_numbers_and_the_link():
    """Issue #36: the text before and after the video are the sequence chart's own sliders. Their report reaches the
    session and the link (a value past the slider's range, or junk: ignored); the chart keeps its spec (the browser
    keeps the chart it was dragging), and the metrics and the notices follow."""
    at = AppTest.from_function(_page_after_a_report, args=(PAGE,), default_timeout=120)
    at.query_params["vis_view"] = "Sequence"
    run(at)
    (first,) = specs(at)
    assert metrics(at)["Video starts at"] == "4"  # the default 4 text tokens before
    at.session_state["fake_seq_report"] = {"vis_text_before": [{"vis_text_before": 30}],
                                           "vis_text_after": [{"vis_text_after": 0}]}  # fmt: skip
    run(at)
    assert at.query_params["vis_text_before"] == "30" and at.query_params["vis_text_after"] == "0"
    assert specs(at) == [first]
    assert metrics(at)["Video starts at"] == "30" and metrics(at)["Next text token's position"] == str(30 + 16)
    assert "A text token after it would continue at 46 = 30 + max(4, 12, 16)" in notices(at)
    at.session_state["fake_seq_report"] = {"vis_text_before": [{"vis_text_before": 99}],
                                           "vis_text_after": [{"vis_text_after": "x"}]}  # fmt: skip
    run(at)
    assert at.query_params["vis_text_before"] == "30" and at.query_params["vis_text_after"] == "0"
