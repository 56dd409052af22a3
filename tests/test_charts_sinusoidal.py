"""Chart builders of the Sinusoidal heatmap page (explorer/charts/sinusoidal.py), via
`chart.to_dict()`: mark types, encodings, titles, and data values checked against numbers
computed here independently (math.sin / math.cos loops, not posenc; the live zoom window's values, which
the browser computes, against both posenc and such a loop)."""

from __future__ import annotations

import json
import math
import shutil
import subprocess

import altair as alt
import numpy as np
import pandas as pd
import pytest
from _chartspec import (
    _Row,
    channels_apart,
    contrast,
    diverging_on_dark,
    drawn,
    facts,
    facts_text,
    hex_colour,
    is_facts,
    png_pixels,
    py_expr,
    sent_spec,
    vega_fills,
    vega_names,
    view_rows,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc
from explorer.charts import sinusoidal as charts
from explorer.charts import style
from explorer.charts.style import label_step
from explorer.imagechart import colormap_lut, colour_indices
from explorer.imagechart import meta as image_meta
from explorer.render import stable_dataset_names
from explorer.vocabulary import BASE_OPTIONS


@pytest.fixture(autouse=True)
def _no_row_limit():
    with alt.data_transformers.enable("default", max_rows=None):
        yield


def pe_loop(positions, d: int, base: float = 10000.0) -> np.ndarray:
    """Interleaved encoding, element by element."""
    return np.array(
        [
            [(math.sin if i % 2 == 0 else math.cos)(p * base ** (-2.0 * (i // 2) / d)) for i in range(d)]
            for p in positions
        ]
    )


def spec_of(chart) -> dict:
    return chart.to_dict()


def layers(spec: dict) -> list[dict]:
    """The layers that draw something (a facts layer, which carries a title's text, draws nothing)."""
    return [layer for layer in spec.get("layer", [spec]) if not is_facts(layer)]


def rows(spec: dict, layer: dict) -> pd.DataFrame:
    """The inline data a layer (or the top-level chart) draws."""
    data = layer.get("data", spec.get("data"))
    return pd.DataFrame(spec["datasets"][data["name"]])


def mark_type(layer: dict) -> str:
    mark = layer["mark"]
    return mark if isinstance(mark, str) else mark["type"]


def title_lines(spec: dict) -> tuple[str, list[str]]:
    """The title (as the browser reads it from the facts row, where it travels there) and the subtitle lines."""
    title = spec["title"]
    sub = title.get("subtitle", [])
    return facts_text(spec, title["text"]), [sub] if isinstance(sub, str) else list(sub)


def test_config_is_projector_legible():
    spec = spec_of(charts.wavelength_chart(np.array([6.28, 62.8]), seq_len=10, base=100.0, d_model=4))
    config = spec["config"]
    assert config["axis"]["labelFontSize"] >= 13 and config["axis"]["titleFontSize"] >= 13
    assert config["legend"]["labelFontSize"] >= 13 and config["title"]["fontSize"] >= 13
    assert config["title"]["subtitleFontSize"] >= 13


# ------------------------------------------------------------------------------ data helpers
def test_overview_blocks_fit_the_screen():
    assert charts.overview_blocks(128, 128) == (128, 1)  # full resolution
    assert charts.overview_blocks(8192, 2048) == (charts.OVERVIEW_MAX_ROWS, 2)
    assert charts.overview_blocks(1, 2) == (1, 1)
    rows_, g = charts.overview_blocks(5000, 1030)  # 515 pairs > 512 -> groups of 2
    assert rows_ == charts.OVERVIEW_MAX_ROWS and g == 2
    with pytest.raises(ValueError, match="seq_len"):
        charts.overview_blocks(0, 8)


def test_overview_axes_are_block_centres():
    y, x = charts.overview_axes(100, 8, 100, 1)
    np.testing.assert_array_equal(y, np.arange(100))
    np.testing.assert_array_equal(x, np.arange(8))
    y, x = charts.overview_axes(8192, 2048, 480, 2)
    assert y.size == 480 and x.size == 1024
    assert y[0] == pytest.approx(8192 / 480 / 2 - 0.5) and y[-1] < 8191.5
    assert x[0] == 0.5 and x[1] == 2.5  # column c covers pairs of 2 -> centre 2c + 0.5


@pytest.mark.parametrize(
    "dim, d, layout, expected",
    [
        (0, 8, "interleaved", ("sin", 0)),
        (5, 8, "interleaved", ("cos", 2)),
        (3, 8, "concatenated", ("sin", 3)),
        (5, 8, "concatenated", ("cos", 1)),
    ],
)
def test_dimension_role(dim, d, layout, expected):
    assert charts.dimension_role(dim, d, layout) == expected


def test_dimension_role_rejects_bad_input():
    with pytest.raises(ValueError, match="dim"):
        charts.dimension_role(8, 8, "interleaved")
    with pytest.raises(ValueError, match="layout"):
        charts.dimension_role(0, 8, "half")


@pytest.mark.parametrize(
    "text, d, dims, problem_words",
    [
        ("0, 1, 20", 128, [0, 1, 20], []),
        ("3 3;4", 8, [3, 4], []),
        ("", 8, [], []),
        ("abc, 2, 1.5", 8, [2], ["not whole numbers, skipped: abc, 1.5"]),
        # a negative or a very long whole number is a whole number outside the range, shown cut short
        ("-1, 2, 1234567, 123456789012345678", 8, [2], ["outside 0 … 7, skipped: -1, 1234567, 12345678901…"]),
        ("0000000000005, +000000000001", 8, [5, 1], []),  # leading zeros do not make a number large
        ("5, 100", 128, [5, 100], []),
        ("5, 200", 64, [5], ["outside 0 … 63"]),
        ("0 1 2 3 4 5 6 7 8 9", 64, [0, 1, 2, 3, 4, 5, 6, 7], ["only the first 8"]),
    ],
)
def test_parse_dims(text, d, dims, problem_words):
    got, problems = charts.parse_dims(text, d)
    assert got == dims
    joined = " ".join(problems)
    for word in problem_words:
        assert word in joined
    if not problem_words:
        assert problems == []


def test_value_table():
    values = pe_loop(range(3, 6), 4)
    table = charts.value_table(values, np.arange(3, 6), np.arange(4))
    assert list(table.columns) == ["position", "dim 0", "dim 1", "dim 2", "dim 3"]
    assert table["position"].tolist() == [3, 4, 5]
    assert table.loc[0, "dim 0"] == pytest.approx(math.sin(3.0))
    with pytest.raises(ValueError, match="shape"):
        charts.value_table(values, np.arange(2), np.arange(4))


# ----------------------------------------------------------------------------------- charts
@pytest.mark.parametrize("layout, word", [("interleaved", "Interleaved"), ("concatenated", "Concatenated")])
def test_encoding_heatmap_is_one_image_with_hover_and_states_the_layout(layout, word):
    positions, d = np.arange(0, 20), 8
    values = pe_loop(positions, d)
    if layout == "concatenated":
        values = np.concatenate([values[:, 0::2], values[:, 1::2]], axis=1)
    spec = spec_of(
        charts.encoding_heatmap(
            values, positions=positions, dims=np.arange(d), layout=layout, title="T", subtitle="extra"
        )
    )
    assert [mark_type(layer) for layer in layers(spec)] == ["image", "rect", "rect"]
    meta = image_meta(spec)
    assert meta["shape"] == [20, 8] and meta["shown"] == [20, 8] and meta["reduce"] == "none"
    assert meta["domain"] == [-1.0, 1.0]
    text, sub = title_lines(spec)
    assert text == "T" and sub[0].startswith(word) and sub[-1] == "extra"
    hover = layers(spec)[1]
    assert hover["encoding"]["x"]["title"] == "dimension i"
    assert hover["encoding"]["y"]["title"] == "position p"
    assert sorted(rows(spec, layers(spec)[2])["value"]) == [-1.0, 1.0]  # the legend's ends
    # every hover cell reports the exact value at its (position, dimension)
    cells = rows(spec, hover)
    for _, cell in cells.iterrows():
        p, i = int(cell["yv"]), int(cell["xv"])
        expected = values[p, i]
        assert cell["value"] == pytest.approx(expected, abs=1e-12)


def test_encoding_heatmap_hover_grid_is_bounded():
    values = np.zeros((480, 1024))
    spec = spec_of(
        charts.encoding_heatmap(values, positions=np.arange(480), dims=np.arange(1024), layout="interleaved", title="T")
    )
    n_cells = len(rows(spec, layers(spec)[1]))
    assert charts.ENCODING_HOVER_CELLS // 2 <= n_cells <= charts.ENCODING_HOVER_CELLS


def test_encoding_heatmap_rejects_unknown_layout():
    with pytest.raises(ValueError, match="layout"):
        charts.encoding_heatmap(np.zeros((2, 2)), positions=np.arange(2), dims=np.arange(2), layout="half", title="T")


def test_dimension_curves_values_and_legend():
    positions = np.arange(10, 30)
    dims = [0, 1, 6]
    values = pe_loop(positions, 8)[:, dims]
    wl = [2 * math.pi * 10000.0 ** (2 * j / 8) for j in range(4)]
    spec = spec_of(charts.dimension_curves(positions, values, dims, d_model=8, layout="interleaved", wavelengths=wl))
    assert mark_type(spec) == "line"
    enc = spec["encoding"]
    assert enc["x"]["field"] == "position" and enc["y"]["field"] == "value"
    assert enc["color"]["field"] == "curve"
    assert enc["y"]["scale"]["domain"] == [-1.05, 1.05]
    data = rows(spec, spec)
    assert len(data) == positions.size * len(dims)
    dim0 = data[data["dim"] == 0].sort_values("position")
    np.testing.assert_allclose(dim0["value"], [math.sin(p) for p in positions], atol=1e-12)
    dim1 = data[data["dim"] == 1].sort_values("position")
    np.testing.assert_allclose(dim1["value"], [math.cos(p) for p in positions], atol=1e-12)
    names = enc["color"]["sort"]
    assert names[0].startswith("i = 0: sin, pair 0") and "λ = 6.283" in names[0]
    assert names[2].startswith("i = 6: sin, pair 3")
    # The title names the fastest and the slowest curve drawn, with their wavelengths (pair 0: 2π; pair 3).
    assert title_lines(spec)[0] == (
        f"Dimension 0 turns once every {2 * math.pi:.4g} tokens, dimension 6 once every {wl[3]:,.0f}"
    )
    one_pair = spec_of(
        charts.dimension_curves(positions, values[:, :2], [0, 1], d_model=8, layout="interleaved", wavelengths=wl)
    )
    assert title_lines(one_pair)[0] == f"Pair 0: one turn every {2 * math.pi:.4g} tokens"
    with pytest.raises(ValueError, match="shape"):
        charts.dimension_curves(positions, values[:, :2], dims, d_model=8, layout="interleaved", wavelengths=wl)


def test_wavelength_chart_log_axis_rule_and_values():
    d, base, seq_len = 16, 10000.0, 100
    wl = np.array([2 * math.pi * base ** (2 * j / d) for j in range(d // 2)])
    spec = spec_of(charts.wavelength_chart(wl, seq_len=seq_len, base=base, d_model=d))
    line, rule, text = layers(spec)
    assert (mark_type(line), mark_type(rule), mark_type(text)) == ("line", "rule", "text")
    assert line["encoding"]["y"]["scale"]["type"] == "log"
    assert "log" in line["encoding"]["y"]["title"] and "tokens" in line["encoding"]["y"]["title"]
    data = rows(spec, line)
    np.testing.assert_allclose(data["wavelength"], wl, rtol=1e-12)
    np.testing.assert_allclose(data["turns"], seq_len / wl, rtol=1e-12)
    assert rows(spec, rule)["wavelength"].tolist() == [float(seq_len)]
    above = sum(1 for w in wl if w > seq_len)
    _, sub = title_lines(spec)
    assert f"{above} of {d // 2} pairs" in sub[1]


@pytest.mark.parametrize("scheme, expected", [("redblue", "viridis"), ("magma", "magma")])
def test_matrix_heatmap_kinds(scheme, expected):
    n, d = 12, 8
    pe = pe_loop(range(n), d)
    sim = pe @ pe.T
    spec = spec_of(charts.matrix_heatmap(sim, kind="similarity", scheme=scheme, d_model=d, subtitle="s"))
    assert image_meta(spec)["domain"] == [-d / 2, d / 2]
    assert image_meta(spec)["scheme"] == scheme
    assert "constant along every diagonal" in title_lines(spec)[0]
    assert spec["autosize"]["type"] == "pad" and spec["width"] == spec["height"]
    dist = np.sqrt(np.maximum(np.add.outer((pe**2).sum(1), (pe**2).sum(1)) - 2 * sim, 0))
    spec = spec_of(charts.matrix_heatmap(dist, kind="distance", scheme=scheme, d_model=d))
    meta = image_meta(spec)
    assert meta["scheme"] == expected and meta["domain"][0] == 0.0
    assert meta["domain"][1] == pytest.approx(dist.max())
    with pytest.raises(ValueError, match="kind"):
        charts.matrix_heatmap(sim, kind="other", scheme=scheme, d_model=d)


def test_offset_distance_chart_marks_the_closest_offset():
    # d = 2: one pair, θ = 1, distance 2|sin(k/2)|, smallest at k = 44 for k < 60
    k = np.arange(1, 60)
    dist = np.array([2 * abs(math.sin(kk / 2)) for kk in k])
    spec = spec_of(charts.offset_distance_chart(k, dist, seq_len=60))
    line, dot, label = layers(spec)
    assert [mark_type(x) for x in (line, dot, label)] == ["line", "point", "text"]
    best = rows(spec, label)
    assert best["k"].tolist() == [44.0]
    assert best["label"][0].startswith("closest: k = 44")
    assert "unique" in title_lines(spec)[0]
    with pytest.raises(ValueError, match="offsets"):
        charts.offset_distance_chart([], [], seq_len=2)


# ----------------------------------------------------------------------- the live zoom window
def pe_column(p: int, i: int, d: int, base: float, layout: str) -> float:
    """PE(p, i), typed out from the paper (interleaved) and tensor2tensor (concatenated)."""
    if layout == "interleaved":
        fn, j = (math.sin if i % 2 == 0 else math.cos), i // 2
    else:
        fn, j = (math.sin, i) if i < d // 2 else (math.cos, i - d // 2)
    return fn(p * base ** (-2.0 * j / d))


BASES = tuple(float(b) for b in BASE_OPTIONS)


class _Datum(dict):
    __getattr__ = dict.__getitem__


def eval_expr(expr: str, names: dict, row: dict | None = None):
    """One Vega expression of the chart in Python (`_chartspec.py_expr`: the same evaluator that runs
    the chart's transforms), with ``datum`` the given row."""
    return eval(py_expr(expr), {"__builtins__": {}}, {**names, "datum": _Datum(row or {})})


def zoom_spec(
    seq_len=128,
    d=128,
    base=10000.0,
    layout="interleaved",
    p0=0,
    d0=0,
    n_positions=128,
    n_dims=64,
    slider_max=None,
    d_range=(2, 2048),
    size_max=(128, 64),
    scheme="redblue",
):
    """The zoom chart's spec as the page sends it (`explorer.render.show_chart`: Streamlit's conversion,
    datasets named in order). The grid's largest window is smaller than the page's (256 × 256): the transforms run
    in Python here, one expression at a time."""
    chart = charts.zoom_chart(
        size=charts.zoom_size(seq_len),
        d_model=d,
        base=base,
        base_options=BASES,
        layout=layout,
        scheme=scheme,
        p0=p0,
        d0=d0,
        n_positions=n_positions,
        n_dims=n_dims,
        size_max=size_max,
        d_range=d_range,
        slider_max=slider_max,
    )
    return sent_spec(chart)


def cells_layer(spec: dict) -> dict:
    """The zoom chart's layer of cells (the other one is its facts row: the table's length)."""
    (cells,) = drawn(spec)
    return cells


def all_params(spec: dict) -> list[dict]:
    return [*spec.get("params", []), *cells_layer(spec).get("params", [])]


def sliders_at(p0, d0, d=None, base=None) -> dict[str, str]:
    """The sliders' values as the range inputs' text, as in the browser (b: the index of its option)."""
    out = {"zoom_p0": str(p0), "zoom_d0": str(d0)}
    if d is not None:
        out["d_model"] = str(d)
    if base is not None:
        out["base"] = str(BASES.index(float(base)))
    return out


def zoom_rows(spec: dict, p0, d0, d=None, base=None) -> pd.DataFrame:
    cells = view_rows(spec, **sliders_at(p0, d0, d, base))
    cells["p"], cells["i"] = cells["p"].astype(int), cells["i"].astype(int)
    return cells


def zoom_cells(spec: dict, p0, d0, d=None, base=None) -> pd.DataFrame:
    """The cells the browser draws with the sliders at p0, d0 (and d, b): (p, i) → value, one row per
    position."""
    return zoom_rows(spec, p0, d0, d, base).pivot(index="p", columns="i", values="value")


#: (seq_len, d, base, p0, n_positions, d0, n_dims): the defaults, the deep link's window, a window cut
#: at both edges, the table's far corner at the largest settings, a single cell
WINDOWS = [
    (128, 128, 10000.0, 0, 128, 0, 64),
    (300, 64, 1000.0, 10, 40, 4, 24),
    (100, 16, 10.0, 90, 50, 10, 20),
    (8192, 2048, 1e6, 8180, 16, 2030, 24),
    (1, 2, 10000.0, 0, 1, 1, 1),
]


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
@pytest.mark.parametrize("seq_len, d, base, p0, n_positions, d0, n_dims", WINDOWS)
@pytest.mark.parametrize("slider_max", [None, (8191, 2047)])
def test_zoom_values_computed_in_the_browser_are_posencs(
    layout, seq_len, d, base, p0, n_positions, d0, n_dims, slider_max
):
    """The chart's own transforms (calculate, filter, flatten …), run in Python with the same float64
    operations as the browser (θ_j = pow(b, −2j/d), one multiply p·θ, one sin or cos), give posenc's
    table and the formula typed out here, cell for cell, for the window cut at the table's edges; the
    chart starts at other slider values (another d and b too), as after a drag; the window's sliders
    span the table or the page's widest range."""
    spec = zoom_spec(
        seq_len, 2048, 10.0, layout, p0=0, d0=0, n_positions=n_positions, n_dims=n_dims, slider_max=slider_max
    )
    rows = zoom_rows(spec, p0, d0, d, base)
    shown = rows.pivot(index="p", columns="i", values="value")
    p_end, d_end = min(p0 + n_positions, seq_len), min(d0 + n_dims, d)
    assert shown.index.tolist() == list(range(p0, p_end)) and shown.columns.tolist() == list(range(d0, d_end))
    table = posenc.sinusoidal_encoding(np.arange(p0, p_end), d, base=base, layout=layout)[:, d0:d_end]
    # one ulp of 1 or so: numpy's SIMD sin/cos and the C library's may round the last bit differently
    np.testing.assert_allclose(shown.to_numpy(), table, rtol=0, atol=4e-16)
    typed = [[pe_column(p, i, d, base, layout) for i in range(d0, d_end)] for p in range(p0, p_end)]
    np.testing.assert_allclose(shown.to_numpy(), typed, rtol=0, atol=1e-12)
    theta = posenc.inverse_frequencies(d, base=base)
    for row in rows.itertuples():  # θ_j bit for bit, and each column's pair and function
        fn, j = charts.dimension_role(row.i, d, layout)
        assert (row.fn, row.j, row.theta) == (fn, j, theta[j])


def test_zoom_cells_stand_at_their_place_in_the_window():
    """Each cell spans its column c and row r of the grid (edges c ± 0.5 and r ± 0.5, computed in the browser from the
    cell's own c and r) and holds position p₀ + r and dimension i₀ + c, which the axes' labels (offset by p₀ and i₀)
    name; the cells carry no per-cell description and no stroke (a style of the config)."""
    spec = zoom_spec(64, 16, 10000.0, "interleaved", p0=0, d0=0, n_positions=8, n_dims=6)
    (cells,) = drawn(spec)
    enc = cells["encoding"]
    assert cells["mark"]["aria"] is False and spec["config"]["style"][cells["mark"]["style"]] == {"strokeWidth": 0}
    rows = zoom_rows(spec, 5, 3, 16, 10000.0)
    assert len(rows) == 8 * 6
    for row in rows.to_dict("records"):
        at = {**vega_names(), "datum": _Row(row)}
        edges = [eval(py_expr(enc[ch]["datum"]["expr"]), {"__builtins__": {}}, at) for ch in ("x", "x2", "y", "y2")]
        assert edges == [row["c"] - 0.5, row["c"] + 0.5, row["r"] - 0.5, row["r"] + 0.5], row
        assert (row["p"], row["i"]) == (5 + row["r"], 3 + row["c"]), row


@settings(max_examples=300, deadline=None)
@given(
    half=st.integers(1, 1024),
    base=st.sampled_from(BASES),
    layout=st.sampled_from(["interleaved", "concatenated"]),
    i=st.integers(0, 2047),
)
def test_zoom_expressions_give_each_column_its_pair_function_and_posencs_theta(half, base, layout, i):
    """`zoom_expressions` in Python (`run_transforms`' evaluator): column i of a table of width d holds
    `dimension_role`'s function of its pair j, and θ_j = b^(−2j/d) equals posenc's to the last bit."""
    d = 2 * half
    i = i % d
    ex = charts.zoom_expressions(layout, BASES)
    names = vega_names(d_model=str(d), base=str(BASES.index(base)))
    signals = {name: eval_expr(ex[key], names) for name, key in (("zoom_d", "d"), ("zoom_b", "b"))}
    names.update(signals)
    assert signals == {"zoom_d": d, "zoom_b": base}
    row = {"i": float(i)}
    row["j"] = eval_expr(ex["pair"], names, row)
    row["fn"] = eval_expr(ex["fn"], names, row)
    assert (row["fn"], row["j"]) == charts.dimension_role(i, d, layout)
    assert eval_expr(ex["theta"], names, row) == posenc.inverse_frequencies(d, base=base)[int(row["j"])]


def test_zoom_expressions_at_every_column_of_many_widths():
    """Every column i of every width d up to 256 and some wider, both layouts: `dimension_role`'s pair
    and function, and posenc's θ_j bit for bit, at every base."""
    for layout in ("interleaved", "concatenated"):
        ex = charts.zoom_expressions(layout, BASES)
        for d in [*range(2, 258, 2), 510, 1000, 2048]:
            base = BASES[d % len(BASES)]
            names = vega_names(d_model=str(d), base=str(BASES.index(base)))
            names.update(zoom_d=eval_expr(ex["d"], names), zoom_b=eval_expr(ex["b"], names))
            theta = posenc.inverse_frequencies(d, base=base)
            for i in range(d):
                row = {"i": float(i)}
                row["j"] = eval_expr(ex["pair"], names, row)
                row["fn"] = eval_expr(ex["fn"], names, row)
                assert (row["fn"], row["j"]) == charts.dimension_role(i, d, layout), (layout, d, i)
                assert eval_expr(ex["theta"], names, row) == theta[int(row["j"])], (layout, d, i)


def test_zoom_chart_is_sent_the_tables_length_and_nothing_else():
    """Data sent: the facts row with the table's length; the grid of the largest window's cells, each column's pair,
    function and θ_j are made in the browser from the sliders."""
    spec = zoom_spec(seq_len=300, d=64, base=500.0, layout="concatenated", n_positions=40, n_dims=24, size_max=(90, 70))
    cells = cells_layer(spec)
    assert "sequence" in cells["data"] and cells["data"]["sequence"]["stop"] == 70  # the largest window's columns
    assert facts(spec) == {"seq_len": 300}  # the table's length, read by the window's signals
    assert [name for name in spec["datasets"] if name != "data-0"] == []
    rows_of_grid = [t for t in cells["transform"] if t.get("as") == "r"]
    assert rows_of_grid == [{"calculate": "sequence(0, 90)", "as": "r"}]
    # Vega reruns a transform when a signal it reads moves, and every transform after it: nothing
    # before the position p reads p₀, so a p₀ step leaves each column's i, pair, function and θ alone;
    # the window's size is read first, by nothing else before p
    steps = [t.get("calculate") or t.get("filter") or "" for t in cells["transform"]]
    at_p = next(k for k, t in enumerate(cells["transform"]) if t.get("as") == "p")
    assert not any(charts.ZOOM_FIRST["zoom_p0"] in step for step in steps[:at_p])
    assert {t.get("as") for t in cells["transform"][:at_p]} >= {"i", "j", "fn", "theta"}
    # right after the grid is made (and flattened): whole blocks of rows and columns first, then the window's own
    assert steps[:6] == [
        "sequence(0, 90)",
        "",
        "datum.c < zoom_col_cover",
        "datum.r < zoom_row_cover",
        "datum.c < zoom_cols",
        "datum.r < zoom_rows",
    ]
    sized = [k for k, step in enumerate(steps) if any(n in step for n in (*charts.ZOOM_COUNT.values(),
                                                                           *charts.ZOOM_COVER.values()))]  # fmt: skip
    assert sized == [2, 3, 4, 5]


def test_the_window_size_sliders_add_and_remove_cells():
    """The window's size is the chart's: dragged to any rows × columns up to the largest window, the browser shows that
    many positions and dimensions from p₀ and i₀ (cut at the table's edge), each cell posenc's, without another spec."""
    spec = zoom_spec(seq_len=300, d=64, base=500.0, layout="interleaved", p0=0, d0=0, n_positions=40, n_dims=24,
                     size_max=(50, 30))  # fmt: skip
    for n_pos, n_dim, p0, d0, window in (
        ("1", "1", "0", "0", (0, 0, 0, 0)),
        ("50", "30", "10", "4", (10, 59, 4, 33)),
        ("7", "12", "295", "60", (295, 299, 60, 63)),  # cut at the table's last position and dimension
        ("13", "3", "100", "2", (100, 112, 2, 4)),
    ):
        rows = view_rows(spec, zoom_np=n_pos, zoom_nd=n_dim, zoom_p0=p0, zoom_d0=d0)
        shown = rows.assign(p=rows["p"].astype(int), i=rows["i"].astype(int)).pivot(index="p", columns="i",
                                                                                     values="value")  # fmt: skip
        assert (shown.index.min(), shown.index.max(), shown.columns.min(), shown.columns.max()) == window
        assert shown.shape == (window[1] - window[0] + 1, window[3] - window[2] + 1)
        table = posenc.sinusoidal_encoding(np.arange(window[0], window[1] + 1), 64, base=500.0)
        np.testing.assert_allclose(shown.to_numpy(), table[:, window[2] : window[3] + 1], rtol=0, atol=4e-16)


@pytest.mark.parametrize("rows, cols", [(1, 1), (40, 24), (128, 64), (173, 200), (256, 256)])
def test_the_window_size_sliders_move_the_scales_and_the_axis_steps(rows, cols):
    """The grid's scales span the rows and columns shown (cell k from k − 0.5 to k + 0.5), and each axis labels every
    `label_step`-th index of them: computed in the browser from the size sliders."""
    spec = zoom_spec(seq_len=8192, d=2048, n_positions=40, n_dims=24, size_max=(256, 256))
    names = vega_names(zoom_np=str(rows), zoom_nd=str(cols))
    for p in all_params(spec):
        if p.get("name") in (*charts.ZOOM_COUNT.values(), *charts.ZOOM_STEP.values(), *charts.ZOOM_COVER.values()):
            names[p["name"]] = eval_expr(p["expr"], names)
    assert names[charts.ZOOM_STEP["zoom_np"]] == label_step(rows)
    assert names[charts.ZOOM_STEP["zoom_nd"]] == label_step(cols)
    # the coarse filters keep whole blocks of 16 covering the window: their signals move once every 16 steps
    assert names[charts.ZOOM_COVER["zoom_np"]] == -(-rows // 16) * 16 and charts.ZOOM_BLOCK == 16
    assert names[charts.ZOOM_COVER["zoom_nd"]] == -(-cols // 16) * 16
    enc = cells_layer(spec)["encoding"]
    assert eval_expr(enc["x"]["scale"]["domain"]["expr"], names) == [-0.5, cols - 0.5]
    assert eval_expr(enc["y"]["scale"]["domain"]["expr"], names) == [-0.5, rows - 0.5]


def test_the_zoom_charts_height_follows_the_window_it_starts_at():
    """About 3 px a row, 240 … 520 px tall: the spec's only number that depends on the size's start (a start set by a
    link or a tour step; a drag of the size keeps the chart and its height: tests/test_page_sinusoidal.py)."""
    assert [charts.zoom_height(n) for n in (1, 64, 80, 81, 100, 173, 174, 256)] == [240, 240, 240, 243, 300, 519, 520,
                                                                                     520]  # fmt: skip
    small, large = (zoom_spec(n_positions=n, n_dims=24) for n in (50, 120))
    assert (small["height"], large["height"]) == (240, 360)


@pytest.mark.parametrize("slider_max, his", [(None, (299, 63)), ((8191, 2047), (8191, 2047))])
def test_zoom_chart_sliders_are_the_windows_start_d_and_b(slider_max, his):
    spec = zoom_spec(seq_len=300, d=64, base=1000.0, p0=10, d0=4, n_positions=40, n_dims=24, slider_max=slider_max)
    params = {p["name"]: p for p in all_params(spec) if "bind" in p}
    # Vega lists bound inputs in reverse: p₀, positions shown, i₀, dimensions shown, d, b on screen
    on_screen = ["zoom_p0", "zoom_np", "zoom_d0", "zoom_nd", "d_model", "base"]
    assert [p["name"] for p in all_params(spec) if "bind" in p] == on_screen[::-1]
    assert set(params) == set(charts.LIVE_PARAMS)
    for key, start, hi in zip(("zoom_np", "zoom_nd"), (40, 24), (128, 64), strict=True):  # the largest window
        param = params[key]
        assert param["value"] == start and (param["bind"]["min"], param["bind"]["max"], param["bind"]["step"]) == (
            1,
            hi,
            1,
        )
    with pytest.raises(ValueError, match="size_max"):
        zoom_spec(n_positions=129)
    for key, start, hi in zip(("zoom_p0", "zoom_d0"), (10, 4), his, strict=True):
        param = params[key]
        assert param["select"]["type"] == "point" and param["select"]["fields"] == [key]
        assert param["value"] == start and param["bind"]["input"] == "range"
        assert (param["bind"]["min"], param["bind"]["max"], param["bind"]["step"]) == (0, hi, 1)
    d, b = params["d_model"], params["base"]
    assert d["value"] == 64 and (d["bind"]["min"], d["bind"]["max"], d["bind"]["step"]) == (2, 2048, 2)
    assert b["value"] == BASES.index(1000.0) and (b["bind"]["min"], b["bind"]["max"], b["bind"]["step"]) == (
        0,
        len(BASES) - 1,
        1,
    )
    assert d["bind"]["name"].strip() == "model dimension d" and b["bind"]["name"].strip() == "base b"
    with pytest.raises(ValueError, match="outside"):
        zoom_spec(seq_len=300, d=64, p0=300)
    with pytest.raises(ValueError, match="slider_max"):  # a slider that cannot reach the table's end
        zoom_spec(seq_len=300, d=64, slider_max=(298, 2047))


def test_zoom_charts_spec_depends_on_d_b_and_the_size_only_through_the_sliders_starts():
    """Another d, b or window size is another start of the same sliders: everything else in the spec is the same (the
    height aside: a window of more than 80 positions starts taller, `zoom_height`)."""

    def without_starts(spec: dict) -> dict:
        out = json.loads(json.dumps(spec))
        for p in [*out.get("params", []), *cells_layer(out).get("params", [])]:
            if p.get("name") in ("d_model", "base", "zoom_np", "zoom_nd"):
                p.pop("value")
        return out

    a = zoom_spec(seq_len=300, d=64, base=1000.0, slider_max=(8191, 2047), n_positions=20, n_dims=5)
    b = zoom_spec(seq_len=300, d=512, base=500000.0, slider_max=(8191, 2047), n_positions=80, n_dims=64)
    assert a != b and without_starts(a) == without_starts(b)


@pytest.mark.parametrize(
    "p0, d0, d, window",
    [("500", "7", None, (299, 299, 7, 30)), ("20", "100", None, (20, 59, 63, 63)), ("0", "20", "16", (0, 39, 15, 15))],
)
def test_a_slider_past_the_tables_edge_shows_the_edge(p0, d0, d, window):
    """Where the browser's script has not narrowed the sliders (`LiveChart`), a value past the table's
    last position or dimension is read as that last one: the window holds its last cell (also when d is
    dragged below the window's first dimension)."""
    spec = zoom_spec(seq_len=300, d=64, n_positions=40, n_dims=24, slider_max=(8191, 2047))
    cells = view_rows(spec, zoom_p0=p0, zoom_d0=d0, **({"d_model": d} if d else {}))
    p, i = cells["p"].astype(int), cells["i"].astype(int)
    assert (p.min(), p.max(), i.min(), i.max()) == window


def test_zoom_chart_words_hold_for_every_slider_value():
    """The subtitle and the description name the table's edges, never a slider's value; the title is
    computed in the browser (`zoom_title`)."""
    spec = zoom_spec(seq_len=300, d=64, base=1000.0, p0=17, d0=5, n_positions=40, n_dims=24)
    words = " ".join(spec["title"]["subtitle"]) + spec["description"]
    assert "past the table's last position or dimension is cut there" in words
    assert "positions-shown and dimensions-shown sliders" in spec["description"]
    assert "17" not in words and " 5 " not in words and "40" not in words and "24" not in words
    assert "300" not in words and "64" not in words and "1000" not in words and "1,000" not in words
    signals = {p["name"]: p["expr"] for p in all_params(spec) if "expr" in p}
    # the axes' label steps: label_step in the browser (test_the_window_size_sliders_move_the_scales_…)
    assert signals.pop("zoom_row_step") and signals.pop("zoom_col_step")
    assert signals == {
        "zoom_seq_len": "data('data-0')[0].seq_len",
        "zoom_d": "toNumber(d_model.d_model)",
        "zoom_b": "[" + ", ".join(map(repr, BASES)) + "][floor(toNumber(base.base))]",
        "zoom_first_p": "min(toNumber(zoom_p0.zoom_p0), zoom_seq_len - 1)",
        "zoom_first_i": "min(toNumber(zoom_d0.zoom_d0), zoom_d - 1)",
        "zoom_rows": "toNumber(zoom_np.zoom_np)",
        "zoom_cols": "toNumber(zoom_nd.zoom_nd)",
        "zoom_row_cover": "ceil(zoom_rows / 16) * 16",
        "zoom_col_cover": "ceil(zoom_cols / 16) * 16",
    }
    title = spec["title"]["text"]["expr"]
    assert all(name in title for name in ("zoom_first_p", "zoom_first_i", "zoom_d", "zoom_b"))


def run_js(
    spec: dict,
    expression: str,
    *,
    p0: str,
    d0: str,
    d: str = "16",
    b: str = "3",
    n_rows: str = "50",
    n_cols: str = "20",
    width: float = 2000,
    value: float | None = None,
) -> object:
    """A Vega expression of the chart, evaluated by node (JavaScript, as in the browser) with Vega's
    functions it uses, the sliders' values as the inputs' text and the chart's parameters computed
    from them."""
    signals = "".join(f"const {p['name']} = {p['expr']};" for p in all_params(spec) if "expr" in p)
    rows = json.dumps(spec["datasets"])
    script = (
        f"const datasets = {rows}, data = (name) => datasets[name];"
        "const min = Math.min, floor = Math.floor, ceil = Math.ceil, length = (s) => s.length, toNumber = (x) => +x;"
        "const format = (x, f) => f === ',.0f' ? Math.round(x).toLocaleString('en-US') : String(Math.round(x));"
        "const sequence = (a, b, s) => { const out = []; for (let x = a; x < b; x += s) out.push(x); return out; };"
        f"const zoom_p0 = {{zoom_p0: {json.dumps(p0)}}}, zoom_d0 = {{zoom_d0: {json.dumps(d0)}}};"
        f"const zoom_np = {{zoom_np: {json.dumps(n_rows)}}}, zoom_nd = {{zoom_nd: {json.dumps(n_cols)}}};"
        f"const d_model = {{d_model: {json.dumps(d)}}}, base = {{base: {json.dumps(b)}}};{signals}"
        f"const width = {width}, font_scale = 1, datum = {{value: {json.dumps(value)}}};"
        f"console.log(JSON.stringify({expression}));"
    )
    out = subprocess.run([NODE, "-e", script], capture_output=True, text=True, check=True, timeout=30)
    return json.loads(out.stdout)


NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node evaluates the chart's JavaScript expressions")
def test_zoom_title_and_axis_labels_follow_the_sliders():
    spec = zoom_spec(seq_len=100, d=16, p0=0, d0=0, n_positions=50, n_dims=20)
    title = spec["title"]["text"]["expr"]
    one = "Positions 3 … 52, dimensions 10 … 15 (d = 16, b = 1,000): every value"
    assert run_js(spec, title, p0="3", d0="10") == [one]
    wide = "Positions 90 … 99, dimensions 0 … 19 (d = 512, b = 5,000,000): every value"
    assert run_js(spec, title, p0="90", d0="0", d="512", b="11") == [wide]
    two = ["Positions 90 … 99, dimensions 0 … 15:", "every value (d = 16, b = 1,000)"]
    assert run_js(spec, title, p0="90", d0="0", width=420) == two
    three = ["Positions 90 … 99,", "dimensions 0 … 15:", "every value (d = 16, b = 1,000)"]
    assert run_js(spec, title, p0="90", d0="0", width=340) == three
    four = ["Positions 90 … 99,", "dimensions 0 … 15:", "every value,", "d = 16, b = 1,000"]
    assert run_js(spec, title, p0="90", d0="0", width=200) == four
    # a tick on every row whose position is a multiple of 5 (label_step(50)), labelled with it; none
    # past the table's last position
    axis = cells_layer(spec)["encoding"]["y"]["axis"]
    assert label_step(50) == 5
    assert run_js(spec, axis["values"]["expr"], p0="3", d0="0") == list(range(2, 50, 5))
    assert run_js(spec, axis["labelExpr"], p0="3", d0="0", value=2) == "5"
    assert run_js(spec, axis["values"]["expr"], p0="90", d0="0") == [0, 5]  # positions 90 and 95
    x_axis = cells_layer(spec)["encoding"]["x"]["axis"]
    assert run_js(spec, x_axis["values"]["expr"], p0="0", d0="7") == [1, 3, 5, 7]  # dimensions 8 … 14
    assert run_js(spec, x_axis["values"]["expr"], p0="0", d0="7", d="12") == [1, 3]  # d = 12: up to 11
    # the window's size dragged: the title and the ticks follow (label_step(120) = 10, label_step(6) = 1)
    assert run_js(spec, title, p0="3", d0="2", n_rows="10", n_cols="6") == [
        "Positions 3 … 12, dimensions 2 … 7 (d = 16, b = 1,000): every value"
    ]
    assert run_js(spec, axis["values"]["expr"], p0="0", d0="0", n_rows="8") == list(range(8))
    assert run_js(spec, axis["values"]["expr"], p0="7", d0="0", n_rows="120") == [3, 13, 23, 33, 43, 53, 63, 73, 83]
    assert run_js(spec, x_axis["values"]["expr"], p0="0", d0="1", n_cols="6") == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("count, step", [(1, 1), (12, 1), (13, 2), (25, 5), (64, 10), (128, 20), (256, 50)])
def test_label_step(count, step):
    assert label_step(count) == step


@pytest.mark.parametrize(
    "kwargs, word",
    [
        (dict(d=15), "even"),
        (dict(d=4096), "d_model"),
        (dict(base=12345.0), "base"),
        (dict(layout="half"), "layout"),
        (dict(seq_len=0), "seq_len"),
        (dict(n_dims=0), "n_dims"),
    ],
)
def test_zoom_chart_rejects_bad_input_by_name(kwargs, word):
    with pytest.raises(ValueError, match=word):
        zoom_spec(**kwargs)
    with pytest.raises(ValueError, match="base_options"):
        charts.zoom_expressions("interleaved", [1.0])


def test_the_zoom_charts_spec_holds_the_tables_length_only_as_data():
    """The table's length reaches the zoom chart as its facts row alone (`zoom_size`): specs for two lengths differ
    in that row only, so a page passes it as `explorer.render.Rows` and builds the spec once for every length; a row
    that is not one whole length ≥ 1 is refused by name."""
    short, long = (zoom_spec(seq_len=n, d=64, n_positions=40, n_dims=24, slider_max=(8191, 2047)) for n in (60, 5000))
    assert {k: v for k, v in short.items() if k != "datasets"} == {k: v for k, v in long.items() if k != "datasets"}
    differ = [name for name in short["datasets"] if short["datasets"][name] != long["datasets"][name]]
    assert [rows for rows in (short["datasets"][differ[0]], long["datasets"][differ[0]])] == [
        [{"seq_len": 60}],
        [{"seq_len": 5000}],
    ]
    assert len(differ) == 1
    for bad, word in (
        (pd.DataFrame({"seq_len": [0]}), "seq_len must be >= 1, got 0"),
        (pd.DataFrame({"seq_len": [1.5]}), "one row of a whole seq_len"),
        (pd.DataFrame({"seq_len": [3, 4]}), "one row of a whole seq_len"),
        (pd.DataFrame({"n": [3]}), "one row of a whole seq_len"),
    ):
        with pytest.raises(ValueError, match=word):
            charts.check_zoom_size(bad)


def test_the_zoom_chart_is_built_once_for_every_table_length():
    """As the page calls it (`explorer.render.shared` with the length as `render.Rows`): the spec is built once, and
    each length's spec, its facts row put in, equals a build at that length (the template found the row's dataset)."""
    from explorer import render

    calls = []

    def counting(**kw):
        calls.append(int(kw["size"]["seq_len"].iloc[0]))
        return charts.zoom_chart(**kw)

    kw = dict(d_model=64, base=1000.0, base_options=BASES, layout="interleaved", scheme="redblue", p0=3, d0=2,
              n_positions=40, n_dims=24, size_max=(256, 256), slider_max=(8191, 2047))  # fmt: skip
    render._shared_template.clear()
    for n in (60, 300, 5000):
        got = render.shared(counting)(size=render.Rows(charts.zoom_size(n), check=charts.check_zoom_size), **kw)
        own = charts.zoom_chart(size=charts.zoom_size(n), **kw)
        assert got.spec() == render.stable_dataset_names(render.compat.vega_lite_spec(own)), n
    assert calls == [60]  # the first length only


def test_the_overview_outlines_the_zoom_window():
    values = pe_loop(np.arange(20), 8)
    spec = spec_of(
        charts.encoding_heatmap(
            values, positions=np.arange(20), dims=np.arange(8), layout="interleaved", title="T", box=(3, 12, 2, 5)
        )
    )
    boxes = [layer for layer in layers(spec) if mark_type(layer) == "rect" and layer["mark"].get("filled") is False]
    assert len(boxes) == 2  # a light halo under a dark line
    for box in boxes:
        edges = rows(spec, box).iloc[0]
        assert (edges["y0"], edges["y1"], edges["x0"], edges["x1"]) == (2.5, 12.5, 1.5, 5.5)
    plain = spec_of(
        charts.encoding_heatmap(values, positions=np.arange(20), dims=np.arange(8), layout="interleaved", title="T")
    )
    assert [mark_type(layer) for layer in layers(plain)] == ["image", "rect", "rect"]
    with pytest.raises(ValueError, match="box"):
        charts.window_box(5, 3, 0, 1)


def test_another_table_size_changes_only_the_overviews_rows():
    """The overview's title names the table's size and travels in its facts row; the description names
    no size. Another length or width then leaves the spec as it was (the browser redraws the chart in
    place; explorer.render.stable_dataset_names names the datasets as the page sends them)."""

    def overview(n: int, d: int) -> dict:
        chart = charts.encoding_heatmap(
            pe_loop(range(n), d),
            positions=np.arange(n),
            dims=np.arange(d),
            layout="interleaved",
            title=f"PE(p, i) for positions 0 … {n - 1} and dimensions 0 … {d - 1}",
            subtitle="Every value is drawn (nothing averaged). Hover for exact values.",
            box=(0, min(n, 4) - 1, 0, min(d, 4) - 1),
        )
        return stable_dataset_names(spec_of(chart))

    a, b, c = overview(20, 8), overview(20, 12), overview(30, 8)
    for other in (b, c):
        assert {k: v for k, v in a.items() if k != "datasets"} == {k: v for k, v in other.items() if k != "datasets"}
        assert a["datasets"] != other["datasets"]
    assert title_lines(b)[0] == "PE(p, i) for positions 0 … 19 and dimensions 0 … 11"
    assert "19" not in a["description"] and "positions p down the rows" in a["description"]


# --- the dark card --------------------------------------------------------------------------------------------------
def _hexes(pixels: np.ndarray) -> list[str]:
    return [hex_colour(p) for p in pixels.reshape(-1, pixels.shape[-1])]


@pytest.mark.parametrize("scheme", ["redblue", "blueorange"])
def test_the_zoom_window_on_the_dark_card_is_dark_where_the_encoding_is_zero(scheme):
    """Vega draws the zoom window with the page's scheme: a diverging one's near-white zero (sin 0 at p = 0, the slow
    pairs' sines) glared on the dark card. On the dark card every cell Vega draws is the colour the dark card's images
    give its value (`image_heatmap(..., dark=True)`'s lookup table; posenc's value): a zero just off the card, ±1 clearly
    off it; on the light card the cells are Vega's scheme's colours, as they were."""
    n_pos, n_dims = 4, 6
    spec = zoom_spec(seq_len=64, d=32, n_positions=n_pos, n_dims=n_dims, size_max=(8, 8), scheme=scheme)
    values = posenc.sinusoidal_encoding(np.arange(n_pos), 32)[:, :n_dims].T.ravel()  # Vega draws column by column
    idx = colour_indices(values[None, :], scheme=scheme, domain=(-1.0, 1.0))[0][0]
    for card in ("light", "dark"):
        cells = vega_fills(style.style_spec(spec, dark=card == "dark"))
        assert len(cells) == values.size
        table = _hexes(colormap_lut(scheme, dark=card == "dark")[idx])
        assert all(channels_apart(a, b) <= 2 for a, b in zip(cells, table, strict=True)), (card, cells, table)
        if card == "light":
            assert all(contrast(c, style.CARD_BACKGROUND) < 1.2 for c in np.array(cells)[values == 0])
    zero, ends = values == 0, np.abs(values) > 0.99
    assert zero.sum() == 3 and ends.sum() >= 3  # sin 0 and cos 0 at p = 0, one of each per pair
    diverging_on_dark(set(np.array(cells)[zero]), set(np.array(cells)[ends]), style.DARK_BACKGROUND)


@pytest.mark.parametrize("scheme", ["redblue", "blueorange"])
def test_the_overview_and_the_similarity_on_the_dark_card_are_dark_where_they_are_zero(scheme):
    """The overview PE(p, i) and the matrix PE(p)·PE(q) drawn for the dark card: their zeros (sin 0; cos 11 ≈ 0)
    sit just off the card and their ±1 (cos 0; the diagonal, cos 3 ≈ −1) stand off it; the numbers
    (hover, meta) are the light chart's; the light chart is as it was, its zeros near-white. The distance matrix, on a
    sequential map, is the same chart on either card."""
    pe = posenc.sinusoidal_encoding(np.arange(40), 8)
    pos, dims = np.arange(40), np.arange(8)

    def overview(**kw):
        return charts.encoding_heatmap(
            pe, positions=pos, dims=dims, layout="interleaved", scheme=scheme, title="t", **kw
        )

    sim = posenc.sinusoidal_encoding(np.arange(20), 2) @ posenc.sinusoidal_encoding(np.arange(20), 2).T  # cos(p − q)
    for values, build in (
        (pe, overview),
        (sim, lambda **kw: charts.matrix_heatmap(sim, kind="similarity", scheme=scheme, d_model=2, **kw)),
    ):
        plain, light, dark = (build(**kw).to_dict() for kw in ({}, {"dark": False}, {"dark": True}))
        assert light == plain
        assert image_meta(dark) == image_meta(light)
        colours = {
            name: np.array(_hexes(png_pixels(spec))).reshape(values.shape)
            for name, spec in (("light", light), ("dark", dark))
        }
        zero, ends = np.abs(values) < 0.01, np.abs(values) > 0.99
        diverging_on_dark(set(colours["dark"][zero]), set(colours["dark"][ends]), style.DARK_BACKGROUND)
        assert all(contrast(c, style.CARD_BACKGROUND) < 1.2 for c in colours["light"][zero])
    dist = np.abs(sim)
    assert charts.matrix_heatmap(dist, kind="distance", scheme=scheme, d_model=2, dark=True).to_dict() == (
        charts.matrix_heatmap(dist, kind="distance", scheme=scheme, d_model=2).to_dict()
    )
