"""Chart builders of the Sinusoidal heatmap page (explorer/charts/sinusoidal.py), via
`chart.to_dict()`: mark types, encodings, titles, and data values checked against numbers
computed here independently (math.sin / math.cos loops, not posenc)."""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd
import pytest

from explorer.charts import sinusoidal as charts


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
    return spec.get("layer", [spec])


def rows(spec: dict, layer: dict) -> pd.DataFrame:
    """The inline data a layer (or the top-level chart) draws."""
    data = layer.get("data", spec.get("data"))
    return pd.DataFrame(spec["datasets"][data["name"]])


def mark_type(layer: dict) -> str:
    mark = layer["mark"]
    return mark if isinstance(mark, str) else mark["type"]


def title_lines(spec: dict) -> tuple[str, list[str]]:
    title = spec["title"]
    sub = title.get("subtitle", [])
    return title["text"], [sub] if isinstance(sub, str) else list(sub)


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


def test_reduction_note_says_what_a_pixel_is():
    assert charts.reduction_note(128, 128, 128, 1) == ""
    note = charts.reduction_note(8192, 2048, 480, 2)
    assert "17 or 18 consecutive positions" in note and "2 neighbouring pairs" in note
    assert "sines with sines" in note


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
        ("abc, 2, -1, 1.5", 8, [2], ["not whole numbers"]),
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
    assert [mark_type(layer) for layer in layers(spec)] == ["image", "rect"]
    meta = spec["usermeta"]["imagechart"]
    assert meta["shape"] == [20, 8] and meta["shown"] == [20, 8] and meta["reduce"] == "none"
    assert meta["domain"] == [-1.0, 1.0]
    text, sub = title_lines(spec)
    assert text == "T" and sub[0].startswith(word) and sub[-1] == "extra"
    hover = layers(spec)[1]
    assert hover["encoding"]["x"]["title"] == "dimension i"
    assert hover["encoding"]["y"]["title"] == "position p"
    assert hover["encoding"]["color"]["scale"]["domain"] == [-1.0, 1.0]
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
    assert spec["usermeta"]["imagechart"]["domain"] == [-d / 2, d / 2]
    assert spec["usermeta"]["imagechart"]["scheme"] == scheme
    assert "constant along every diagonal" in title_lines(spec)[0]
    assert spec["autosize"]["type"] == "pad" and spec["width"] == spec["height"]
    dist = np.sqrt(np.maximum(np.add.outer((pe**2).sum(1), (pe**2).sum(1)) - 2 * sim, 0))
    spec = spec_of(charts.matrix_heatmap(dist, kind="distance", scheme=scheme, d_model=d))
    meta = spec["usermeta"]["imagechart"]
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
