"""AppTest of pages/1_Sinusoidal_heatmap.py: defaults, every control at its minimum and at its
maximum, garbage in every URL parameter, and a widget change. After every run: no exception,
and the charts / numbers the page shows are checked (against numbers computed here). The zoom
window's start (zoom_p0, zoom_d0) is the zoom chart's own pair of sliders (explorer.liveparam): its
cells are computed by the chart's transforms, run here in Python (tests/_chartspec.py)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from _apptest import run_page
from _chartspec import drawn, element_spec, facts, hex_colour, proto_spec, readable_titles, view_rows
from streamlit.testing.v1 import AppTest

import posenc
from explorer.charts import sinusoidal as charts
from explorer.imagechart import meta as image_meta
from explorer.widgets import PARAMS

PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "1_Sinusoidal_heatmap.py")
KEYS = (
    "seq_len",
    "d_model",
    "base",
    "layout_sin",
    "scheme",
    "zoom_p0",
    "zoom_np",
    "zoom_d0",
    "zoom_nd",
    "curve_dims",
    "sim_n",
    "sin_view",
)
VIEWS = ("Curves", "Wavelengths", "Similarity", "Numbers")


def run(query: dict | None = None) -> AppTest:
    return run_page(PAGE, timeout=120, **(query or {}))


def run_views(query: dict | None = None) -> dict[str, AppTest]:
    """The page once per tab (?sin_view=…): only the open tab is drawn."""
    return {view: run({**(query or {}), "sin_view": view}) for view in VIEWS}


def all_specs(views: dict[str, AppTest]) -> dict[str, dict]:
    out = {}
    for at in views.values():
        out.update(charts_by_title(at))
    return out


def charts_by_title(at: AppTest) -> dict[str, dict]:
    """Every chart's Vega-Lite spec (with its datasets decoded), keyed by its title text (the zoom
    chart's title is computed in the browser: keyed by its expression)."""
    out = {}
    for element in at.get("vega_lite_chart"):
        spec = proto_spec(element.proto)
        spec["_data"] = {d.name: pa.ipc.open_stream(d.data.data).read_all().to_pandas() for d in element.proto.datasets}
        spec["datasets"] = {name: frame.to_dict("records") for name, frame in spec["_data"].items()}  # image_meta
        spec = readable_titles(spec)  # a title from the chart's facts row, as the browser shows it
        text = spec["title"]["text"]
        out[text["expr"] if isinstance(text, dict) else text] = spec
    return out


def zoom_chart(at: AppTest) -> dict:
    """The zoom chart's spec with its datasets (the one chart with in-chart sliders)."""
    (chart,) = [e for e in at.get("vega_lite_chart") if '"bind"' in e.proto.spec]
    return element_spec(chart)


def zoom_params(at: AppTest) -> list[dict]:
    """The zoom chart's parameters (top level and its layer's)."""
    spec = zoom_chart(at)
    return [*spec.get("params", []), *(p for layer in spec.get("layer", []) for p in layer.get("params", []))]


def zoom_starts(at: AppTest, keys=charts.WINDOW_PARAMS) -> dict[str, int]:
    """{zoom_p0, zoom_d0 (or other `keys`): where the zoom chart's sliders start} (b: its option's index)."""
    return {p["name"]: p["value"] for p in zoom_params(at) if "bind" in p and p["name"] in keys}


def zoom_ranges(at: AppTest) -> dict[str, tuple[str, str]]:
    """{zoom_p0, zoom_d0, zoom_np, zoom_nd: (which chart, the largest value)}: the page's range of the zoom chart's
    window sliders, which the browser's script applies to them (explorer.liveparam.ranges_html)."""
    (body,) = [h.proto.body for h in at.get("html") if h.proto.body.startswith("<span hidden data-posenc-ranges")]
    (chart,) = re.findall(r'data-posenc-ranges="([a-z0-9_]+)"', body)
    found = dict(re.findall(r'data-max-([a-z0-9_]+)="([0-9]+)"', body))
    return {key: (chart, found[f"{key}_{key}"]) for key in (*charts.WINDOW_PARAMS, *charts.SIZE_PARAMS)}


def zoom_window(at: AppTest) -> np.ndarray:
    """The zoom window as the browser computes it from the chart's start, (positions, dimensions),
    with the positions and dimensions it covers (d and b at their sliders' starts)."""
    starts = zoom_starts(at, charts.LIVE_PARAMS)
    cells = view_rows(zoom_chart(at), **{key: str(value) for key, value in starts.items()})
    table = cells.pivot(index="p", columns="i", values="value")
    return table.to_numpy(), table.index.astype(int).tolist(), table.columns.astype(int).tolist()


def box(at: AppTest) -> tuple[float, float, float, float]:
    """The outline of the zoom window on the overview: (first, last position, first, last dimension)."""
    overview = element_spec(at.get("vega_lite_chart")[0])
    outline = [layer for layer in overview["layer"] if layer["mark"].get("filled") is False]
    (edges,) = {tuple(overview["datasets"][o["data"]["name"]][0][k] for k in ("y0", "y1", "x0", "x1")) for o in outline}
    return edges[0] + 0.5, edges[1] - 0.5, edges[2] + 0.5, edges[3] - 0.5


def find(specs: dict, words: str) -> dict:
    matches = [spec for title, spec in specs.items() if words in title]
    assert len(matches) == 1, (words, list(specs))
    return matches[0]


def metric(at: AppTest, label_start: str) -> str:
    (m,) = [m for m in at.metric if m.label.startswith(label_start)]
    return m.value


def block_amplitude(k: int, theta: np.ndarray) -> np.ndarray:
    """|mean of e^(i·p·θ_j) over k consecutive positions|: what averaging k rows leaves of pair j."""
    return np.abs(np.exp(1j * np.outer(np.arange(k), theta)).mean(axis=0))


def closest_distance(seq_len: int, d: int, base: float) -> tuple[int, float]:
    """(k, distance) of the closest two distinct positions, from PE(0) and PE(k) directly."""
    theta = base ** (-2.0 * np.arange(d // 2) / d)
    k = np.arange(1, seq_len)[:, None]
    dist = np.sqrt(np.sum(np.sin(k * theta) ** 2 + (np.cos(k * theta) - 1.0) ** 2, axis=1))
    i = int(np.argmin(dist))
    return i + 1, float(dist[i])


def test_defaults_draw_the_overview_the_zoom_and_the_curves_only():
    at = run()
    assert at.title[0].value == "Sinusoidal heatmap"
    specs = charts_by_title(at)
    assert len(specs) == 3  # the other tabs are not computed until opened
    find(specs, "PE(p, i) for positions 0 … 127")
    find(specs, "every value")  # above the tabs (issue #36): its sliders, d and b among them, on every tab
    find(specs, " turn")
    assert [t.label for t in at.tabs] == list(VIEWS)
    assert len(at.dataframe) == 0 and len(at.metric) == 0


def test_each_tab_draws_its_own_charts_below_the_overview_and_the_zoom():
    views = run_views()
    expected = {
        "Curves": [" turn"],
        "Wavelengths": ["Wavelengths grow geometrically"],
        "Similarity": ["constant along every diagonal", "zero only on the diagonal", "Every position is unique"],
        "Numbers": [],
    }
    for view, words in expected.items():
        specs = charts_by_title(views[view])
        assert len(specs) == 2 + len(words), (view, list(specs))
        assert len([e for e in views[view].get("vega_lite_chart") if '"bind"' in e.proto.spec]) == 1  # the zoom
        find(specs, "PE(p, i) for positions 0 … 127")
        find(specs, "every value")
        for w in words:
            find(specs, w)
    assert len(views["Numbers"].dataframe) == 1


def test_defaults():
    views = run_views()
    at = views["Similarity"]
    assert at.title[0].value == "Sinusoidal heatmap"
    assert len(at.latex) >= 1
    specs = all_specs(views)
    assert len(specs) == 7
    overview = find(specs, "PE(p, i) for positions 0 … 127")
    meta = image_meta(overview)
    assert meta["shape"] == [128, 128] and meta["reduce"] == "none"
    assert any("Interleaved layout" in line for line in overview["title"]["subtitle"])
    zoom = find(specs, "every value")
    values, positions, dims = zoom_window(views["Curves"])
    assert values.shape == (64, 32) and positions[0] == 0 and dims[0] == 0
    np.testing.assert_allclose(values, posenc.sinusoidal_encoding(np.arange(64), 128)[:, :32], rtol=0, atol=1e-12)
    assert "zoom_first_p" in zoom["title"]["text"]["expr"]  # computed in the browser from the slider
    assert box(views["Curves"]) == (0, 63, 0, 31)
    find(specs, " turn")
    find(specs, "Wavelengths grow geometrically")
    find(specs, "constant along every diagonal")
    find(specs, "zero only on the diagonal")
    find(specs, "Every position is unique")
    k, dist = closest_distance(128, 128, 10000.0)
    assert metric(at, "Closest distinct pair") == f"{dist:.4g}"
    assert metric(at, "…they are k apart") == f"k = {k}"
    assert float(metric(at, "Largest spread along a diagonal")) < 1e-10
    table = views["Numbers"].dataframe[0].value
    assert table.shape == (64, 33)  # 64 positions × (position + 32 dimensions)
    assert table.loc[3, "dim 0"] == pytest.approx(math.sin(3.0))
    assert table.loc[3, "dim 5"] == pytest.approx(math.cos(3.0 * 10000.0 ** (-4 / 128)))
    assert len(at.get("download_button")) == 1
    assert any("What to notice" in m.value for m in at.main.markdown)
    assert any("averaging, not sampling" in e.label for e in at.expander)


def test_every_control_at_its_minimum():
    views = run_views(
        {
            "seq_len": "1",
            "d_model": "2",
            "base": "10",
            "zoom_p0": "0",
            "zoom_np": "1",
            "zoom_d0": "0",
            "zoom_nd": "1",
            "curve_dims": "",
            "sim_n": "2",
        }
    )
    specs = all_specs(views)
    assert set(specs) >= {"PE(p, i) for positions 0 … 0 and dimensions 0 … 1"}
    values, positions, dims = zoom_window(views["Curves"])
    assert values.shape == (1, 1) and values[0, 0] == 0.0 and positions == dims == [0]  # sin(0)
    assert "at least two positions" in " ".join(i.value for i in views["Similarity"].info)
    assert "dimension indices" in " ".join(i.value for i in views["Curves"].info)
    assert all(len(at.metric) == 0 for at in views.values())
    assert views["Numbers"].dataframe[0].value.shape == (1, 2)


def test_two_positions_and_one_pair():
    at = run({"seq_len": "2", "d_model": "2", "base": "10", "sim_n": "2", "sin_view": "Similarity"})
    # d = 2: one pair with θ = 1, positions 0 and 1 are 2|sin(1/2)| apart
    assert metric(at, "Closest distinct pair") == f"{2 * abs(math.sin(0.5)):.4g}"
    specs = charts_by_title(at)
    sim = find(specs, "constant along every diagonal")
    assert image_meta(sim)["shape"] == [2, 2]


def test_every_control_at_its_maximum():
    views = run_views(
        {
            "seq_len": "8192",
            "d_model": "2048",
            "base": "1000000",
            "layout_sin": "concatenated",
            "scheme": "magma",
            "zoom_p0": "0",
            "zoom_np": "256",
            "zoom_d0": "0",
            "zoom_nd": "256",
            "curve_dims": "0, 1, 2, 3, 1024, 1025, 2046, 2047",
            "sim_n": "512",
        }
    )
    at = views["Similarity"]
    specs = all_specs(views)
    assert len(specs) == 7
    overview = find(specs, "PE(p, i) for positions 0 … 8191 and dimensions 0 … 2047")
    meta = image_meta(overview)
    assert meta["shape"] == [charts.OVERVIEW_MAX_ROWS, 1024]  # averaged before drawing
    assert meta["scheme"] == "magma" and meta["domain"] == [-1.0, 1.0]
    subtitle = " ".join(overview["title"]["subtitle"])
    assert "Concatenated layout" in subtitle and "17 or 18 consecutive positions" in subtitle
    # pairs with λ_j ≤ 17 turn at least once within every block (of 17 or 18 positions)
    theta = 1e6 ** (-2.0 * np.arange(1024) / 2048)
    fading = 2 * np.pi / theta <= 17
    most = np.max(np.maximum(block_amplitude(17, theta), block_amplitude(18, theta))[fading])
    assert f"{int(fading.sum())} of 1024 pairs turn at least once within a block" in subtitle
    assert f"at most {most:.0%} of its amplitude" in subtitle
    zoom = zoom_chart(views["Curves"])
    (cells,) = drawn(zoom)
    assert cells["data"]["sequence"]["stop"] == 256 and "sequence(0, 256)" in str(cells["transform"])  # 256 × 256
    assert facts(zoom) == {"seq_len": 8192}  # the table's length; d and b are the chart's own sliders
    assert [name for name in zoom["datasets"] if name != "data-0"] == []  # every θ_j computed in the browser
    bases = PARAMS["base"].options
    assert zoom_starts(views["Curves"], ("d_model", "base")) == {"d_model": 2048, "base": bases.index(1000000)}
    curves = find(specs, " turn")
    (data,) = [df for df in curves["_data"].values() if "curve" in df]
    assert sorted(data["dim"].unique()) == [0, 1, 2, 3, 1024, 1025, 2046, 2047]
    # concatenated: dimension 1024 is cos of pair 0
    row = data[(data["dim"] == 1024) & (data["position"] == 10)]
    assert float(row["value"].iloc[0]) == pytest.approx(math.cos(10.0))
    sim = find(specs, "constant along every diagonal")
    assert image_meta(sim)["shape"] == [512, 512]
    assert image_meta(sim)["domain"] == [-1024.0, 1024.0]
    k, dist = closest_distance(8192, 2048, 1e6)
    assert metric(at, "Closest distinct pair") == f"{dist:.4g}"
    assert metric(at, "…they are k apart") == f"k = {k}"
    assert views["Numbers"].dataframe[0].value.shape == (64, 65)


def test_zoom_window_is_cut_at_the_edges():
    at = run({"seq_len": "100", "d_model": "16", "zoom_p0": "90", "zoom_np": "50", "zoom_d0": "10", "zoom_nd": "20"})
    values, positions, dims = zoom_window(at)
    assert values.shape == (10, 6)  # positions 90 … 99, dims 10 … 15
    assert positions == list(range(90, 100)) and dims == list(range(10, 16))
    assert "A window past the table's last position or dimension is cut there" in " ".join(
        zoom_chart(at)["title"]["subtitle"]
    )
    assert box(at) == (90, 99, 10, 15)


def test_zoom_start_beyond_the_sequence_is_clamped_with_a_notice():
    at = run({"seq_len": "100", "d_model": "16", "zoom_p0": "5000", "zoom_d0": "40"})
    assert any("zoom\\_p0" in w.value and "used 99 instead" in w.value for w in at.warning)
    assert any("zoom\\_d0" in w.value and "used 15 instead" in w.value for w in at.warning)
    assert zoom_starts(at) == {"zoom_p0": 99, "zoom_d0": 15}
    assert at.query_params["zoom_p0"] == "99"
    values, positions, dims = zoom_window(at)
    assert positions == [99] and dims == [15] and values.shape == (1, 1)


def test_the_links_window_start_is_where_the_zoom_charts_sliders_start():
    """zoom_p0, zoom_np, zoom_d0 and zoom_nd have one control each, the zoom chart's own sliders (0 … seq_len − 1,
    1 … min(256, seq_len), 0 … d − 1 and 1 … min(256, d)), which start at the link's values; the box on the overview,
    the curves and the numbers use the same window."""
    query = {"seq_len": "300", "d_model": "64", "base": "1000", "layout_sin": "concatenated"}
    query |= {"zoom_p0": "10", "zoom_np": "40", "zoom_d0": "4", "zoom_nd": "24"}
    at = run(query)
    assert not [s for s in at.slider if s.key in charts.LIVE_PARAMS]  # no second control for them
    assert zoom_starts(at) == {"zoom_p0": 10, "zoom_d0": 4}
    # the sliders are built over the registry's range (the spec does not change with the table's
    # size) and narrowed in the browser to the table's: positions 0 … 299, dimensions 0 … 63
    bounds = {p["name"]: (p["bind"]["min"], p["bind"]["max"]) for p in zoom_params(at) if "bind" in p}
    last_base = len(PARAMS["base"].options) - 1  # b runs over its options' indices
    assert bounds == {
        "zoom_p0": (0, 8191),
        "zoom_d0": (0, 2047),
        "zoom_np": (1, 256),
        "zoom_nd": (1, 256),
        "d_model": (2, 2048),
        "base": (0, last_base),
    }
    assert zoom_starts(at, charts.SIZE_PARAMS) == {"zoom_np": 40, "zoom_nd": 24}
    assert zoom_starts(at, ("d_model", "base")) == {"d_model": 64, "base": PARAMS["base"].options.index(1000)}
    (zoom,) = [e for e in at.get("vega_lite_chart") if '"bind"' in e.proto.spec]
    key = zoom.proto.id.rsplit("-", 1)[-1]  # the chart's element key, which the span names
    assert key.startswith("sin_zoom_live_")
    assert zoom_ranges(at) == {"zoom_p0": (key, "299"), "zoom_d0": (key, "63"), "zoom_np": (key, "256"),
                               "zoom_nd": (key, "64")}  # fmt: skip
    values, positions, dims = zoom_window(at)
    assert positions == list(range(10, 50)) and dims == list(range(4, 28))
    expected = posenc.sinusoidal_encoding(np.arange(10, 50), 64, base=1000.0, layout="concatenated")[:, 4:28]
    np.testing.assert_allclose(values, expected, rtol=0, atol=1e-12)
    assert box(at) == (10, 49, 4, 27)
    numbers = run({**query, "sin_view": "Numbers"})
    table = numbers.dataframe[0].value
    assert table["position"].tolist()[:2] == [10, 11] and list(table.columns[1:3]) == ["dim 4", "dim 5"]
    assert "positions 10 … 49 × dimensions 4 … 27" in " ".join(c.value for c in numbers.caption)


def _report_then_run_the_page():
    """The page, after the zoom chart's on_select callback reported a drag (what
    explorer.liveparam's callback does before the rerun): the report is in the session."""
    import runpy
    from pathlib import Path

    import streamlit as st

    import explorer
    from explorer import liveparam
    from explorer.charts import sinusoidal as charts
    from explorer.widgets import PARAMS

    report = st.session_state.pop("fake_report", None)
    if report is not None:  # the ranges of the run before, as the chart's callback has them
        size_max = (PARAMS["zoom_np"].max, PARAMS["zoom_nd"].max)
        limits = charts.zoom_limits(st.session_state["seq_len"], size_max)({"d_model": st.session_state["d_model"]})
        liveparam.report("sin_zoom_live", charts.LIVE_PARAMS, report, limits)
    runpy.run_path(
        str(Path(explorer.__file__).parent.parent / "pages" / "1_Sinusoidal_heatmap.py"), run_name="__main__"
    )


def test_a_drag_reported_by_the_zoom_chart_reaches_the_url_and_the_rest_of_the_page():
    """explorer.liveparam.report (the zoom chart's on_select callback) writes the window's start into the
    session and the URL, clamped into the chart's range; the chart keeps its spec (its element and its
    sliders stay where the hand left them) while the box, the snippet and the footer follow."""
    at = AppTest.from_function(_report_then_run_the_page, default_timeout=120)
    at.query_params.update({"seq_len": "100", "d_model": "16", "zoom_np": "50", "zoom_nd": "20"})
    run_page("", at)
    first = zoom_chart(at)
    assert zoom_starts(at) == {"zoom_p0": 0, "zoom_d0": 0} and box(at) == (0, 49, 0, 15)
    at.session_state["fake_report"] = {"zoom_p0": [{"zoom_p0": 70}], "zoom_d0": [{"zoom_d0": 3}]}
    run_page("", at)
    assert at.query_params["zoom_p0"] == "70" and at.query_params["zoom_d0"] == "3"
    assert zoom_chart(at) == first  # the same spec: the browser keeps the chart it was dragging
    assert box(at) == (70, 99, 3, 15)
    at.session_state["fake_report"] = {"zoom_p0": [{"zoom_p0": 500}], "zoom_d0": [{"zoom_d0": "x"}]}
    run_page("", at)
    assert at.query_params["zoom_p0"] == "99" and at.query_params["zoom_d0"] == "3"  # clamped; junk ignored
    assert box(at) == (99, 99, 3, 15)


def test_a_drag_of_the_window_size_reported_by_the_zoom_chart_reaches_the_url_and_the_rest_of_the_page():
    """Issue #36: the window's size is the zoom chart's (positions shown, dimensions shown). Its report reaches the
    session and the URL once, clamped to the table; the chart keeps its spec (the browser keeps the chart it was
    dragging, its height too, even past 80 rows: a pause mid-drag must not rebuild it), and the box, the Numbers view
    and the snippet follow; a link that sets the size builds the chart at that size's height."""
    at = AppTest.from_function(_report_then_run_the_page, default_timeout=120)
    at.query_params.update({"seq_len": "100", "d_model": "16", "zoom_np": "50", "zoom_nd": "8", "zoom_p0": "20"})
    at.query_params.update({"sin_view": "Numbers"})
    run_page("", at)
    first = zoom_chart(at)
    assert zoom_starts(at, charts.SIZE_PARAMS) == {"zoom_np": 50, "zoom_nd": 8} and first["height"] == 240
    assert box(at) == (20, 69, 0, 7)
    at.session_state["fake_report"] = {"zoom_np": [{"zoom_np": 30}], "zoom_nd": [{"zoom_nd": 5}]}
    run_page("", at)
    assert at.query_params["zoom_np"] == "30" and at.query_params["zoom_nd"] == "5"
    assert zoom_chart(at) == first  # the same spec: the browser keeps the chart it was dragging
    assert box(at) == (20, 49, 0, 4)
    table = at.dataframe[0].value
    assert table["position"].tolist() == list(range(20, 50)) and list(table.columns[1:]) == [f"dim {i}" for i in
                                                                                              range(5)]  # fmt: skip
    assert "positions 20 … 49 × dimensions 0 … 4" in " ".join(c.value for c in at.caption)
    # past the table (16 dimensions, 100 positions): clamped to it; junk ignored
    at.session_state["fake_report"] = {"zoom_nd": [{"zoom_nd": 200}], "zoom_np": [{"zoom_np": "x"}]}
    run_page("", at)
    # 16: the table's width, and so the page's default at d = 16 (the default 32, clamped): it leaves the link
    assert at.session_state["zoom_nd"] == 16 and "zoom_nd" not in at.query_params and at.query_params["zoom_np"] == "30"
    assert box(at) == (20, 49, 0, 15)
    # 90 positions (a start of 90 would be 270 px tall): the same chart, its rows stretched
    at.session_state["fake_report"] = {"zoom_np": [{"zoom_np": 90}]}
    run_page("", at)
    assert at.query_params["zoom_np"] == "90" and box(at) == (20, 99, 0, 15)
    assert zoom_chart(at) == first and first["height"] == 240
    linked = run({"seq_len": "100", "d_model": "16", "zoom_np": "90", "zoom_p0": "20"})
    assert zoom_chart(linked)["height"] == 270 and zoom_starts(linked, charts.SIZE_PARAMS)["zoom_np"] == 90


def test_a_drag_of_d_and_b_reported_by_the_zoom_chart_reaches_the_url_and_the_rest_of_the_page():
    """Issue #36: d and b are the zoom chart's own sliders (b reported as its option's index). Their
    report reaches the session and the URL once; the chart keeps its spec (the browser keeps the chart
    it was dragging) while the overview, the sentences, the snippet and the link follow; the controls'
    line says the new d and b."""
    bases = PARAMS["base"].options
    at = AppTest.from_function(_report_then_run_the_page, default_timeout=120)
    at.query_params.update({"seq_len": "100", "d_model": "16", "zoom_np": "50", "zoom_nd": "8"})
    run_page("", at)
    first = zoom_chart(at)
    assert zoom_starts(at, ("d_model", "base")) == {"d_model": 16, "base": bases.index(10000)}
    at.session_state["fake_report"] = {"d_model": [{"d_model": 32}], "base": [{"base": bases.index(500)}]}
    run_page("", at)
    assert at.query_params["d_model"] == "32" and at.query_params["base"] == "500"
    assert zoom_chart(at) == first  # the same spec: the browser keeps the chart it was dragging
    overview = find(charts_by_title(at), "PE(p, i) for positions 0 … 99 and dimensions 0 … 31")
    assert image_meta(overview)["shape"] == [100, 32]
    assert any("**d = 32**" in m.value and "**b = 500**" in m.value for m in at.main.markdown)
    longest = float(posenc.wavelengths(32, base=500.0).max())
    assert f"to {charts.tokens(longest)} tokens" in notices(at)
    # a d outside the registry's range and an index past the options are untrusted input: ignored
    at.session_state["fake_report"] = {"d_model": [{"d_model": 5000}], "base": [{"base": 99}]}
    run_page("", at)
    assert at.query_params["d_model"] == "32" and at.query_params["base"] == "500"


def test_garbage_in_every_url_parameter():
    at = run({key: "abc" for key in KEYS})
    assert [t.label for t in at.tabs] == list(VIEWS)  # sin_view=abc: the default tab is open
    curves = run({**{key: "abc" for key in KEYS}, "sin_view": "Curves"})
    assert "not whole numbers" in " ".join(w.value for w in curves.warning)
    # A tab's own control is read (and its garbage reported) when that tab is open.
    views = run_views({key: "abc" for key in KEYS if key != "sin_view"})
    warnings = " ".join(w.value for view in views.values() for w in view.warning)
    warnings += " ".join(w.value for w in at.warning)
    for key in KEYS:
        if key != "curve_dims":  # free text: "abc" is a valid text, reported as a bad dimension
            assert key.replace("_", "\\_") in warnings or key in warnings
    specs = charts_by_title(at)
    overview = find(specs, "PE(p, i) for positions 0 … 127 and dimensions 0 … 127")  # defaults
    assert image_meta(overview)["shape"] == [128, 128]


def test_hostile_text_is_not_rendered_as_markup():
    at = run({"curve_dims": "<b>x</b>, [link](http://x), 3", "sin_view": "Curves"})
    warnings = " ".join(w.value for w in at.warning)
    assert "<b>" not in warnings and "](http" not in warnings
    curves = find(charts_by_title(at), " turn")
    (data,) = [df for df in curves["_data"].values() if "curve" in df]
    assert data["dim"].unique().tolist() == [3]


def test_changing_a_widget_reruns_with_the_new_value():
    at = run()
    at.slider(key="seq_len").set_value(300).run()
    assert not at.exception
    overview = find(charts_by_title(at), "PE(p, i) for positions 0 … 299")
    assert image_meta(overview)["shape"] == [300, 128]
    at.radio(key="layout_sin").set_value("concatenated").run()
    assert not at.exception
    overview = find(charts_by_title(at), "PE(p, i) for positions 0 … 299")
    assert any("Concatenated layout" in line for line in overview["title"]["subtitle"])


# ------------------------------------------------------------- sentences true at every setting
def notices(at: AppTest) -> str:
    (text,) = [m.value for m in at.main.markdown if m.value.startswith("**What to notice**")]
    return text


def test_averaging_sentence_when_no_pair_turns_within_a_block():
    """seq_len 1000 → blocks of 2 or 3 positions: no pair turns within one, nothing is grey."""
    at = run({"seq_len": "1000", "d_model": "128"})
    overview = find(charts_by_title(at), "PE(p, i) for positions")
    subtitle = " ".join(overview["title"]["subtitle"])
    assert "grey" not in subtitle
    assert f"shrinks the fastest pair to {block_amplitude(3, np.array([1.0]))[0]:.0%}" in subtitle  # 69%


def test_small_d_and_base_sentences():
    """d = 4, b = 10: the slowest wavelength is 2π·√10 ≈ 19.87 tokens (not rounded to 20)."""
    at = run({"seq_len": "128", "d_model": "4", "base": "10", "sin_view": "Wavelengths"})
    longest = 2 * math.pi * 10**0.5
    assert f"to {longest:.4g} tokens: a straight line" in notices(at)
    chart = find(charts_by_title(at), "Wavelengths grow")
    assert f"to {longest:.4g} tokens (b = 10" in " ".join(chart["title"]["subtitle"])


def test_distance_matrix_subtitle_at_d_2():
    """d = 2: positions 44 apart are 2|sin 22| ≈ 0.018 apart, dark like the diagonal: no claim that
    only the diagonal is dark; the farthest distance is stated instead."""
    at = run({"seq_len": "128", "d_model": "2", "sim_n": "128", "sin_view": "Similarity"})
    dist = find(charts_by_title(at), "zero only on the diagonal")
    subtitle = " ".join(dist["title"]["subtitle"])
    k = np.arange(1, 128)
    assert "dark only" not in subtitle
    assert f"are {np.min(2 * np.abs(np.sin(k / 2))):.4g} apart" in subtitle
    assert f"the farthest two {np.max(2 * np.abs(np.sin(k / 2))):.4g}" in subtitle


def test_tour_narration_does_not_depend_on_the_layout():
    """In the concatenated layout column d/2 is the fastest cosine: "left fast, right slow" is not a layout-free claim."""
    from explorer.site.sinusoidal import PAGE as SITE

    for step in SITE.tour:
        assert "left" not in step.narration and "right" not in step.narration


def test_another_table_size_keeps_the_zoom_chart_and_narrows_its_sliders():
    """Issue #23: a change of seq_len reaches the zoom chart as data (its facts row), and a d dragged on
    the chart's own slider is the chart's own state: the spec the page sends stays the same, so the
    browser keeps the chart, and the page's range of its sliders follows the table
    (explorer.liveparam.ranges_html)."""
    at = AppTest.from_function(_report_then_run_the_page, default_timeout=120)
    at.query_params.update({"seq_len": "300", "d_model": "64", "zoom_p0": "10", "zoom_d0": "4"})
    run_page("", at)
    before = {k: v for k, v in zoom_chart(at).items() if k not in ("datasets", "_data")}
    chart_key = zoom_ranges(at)["zoom_p0"][0]
    at.session_state["fake_report"] = {"d_model": [{"d_model": 66}]}
    run_page("", at)
    assert {k: v for k, v in zoom_chart(at).items() if k not in ("datasets", "_data")} == before
    at.slider(key="seq_len").set_value(301)
    run_page("", at)
    after = {k: v for k, v in zoom_chart(at).items() if k not in ("datasets", "_data")}
    assert after == before, "another seq_len gave the zoom chart a new spec"
    assert zoom_ranges(at) == {
        "zoom_p0": (chart_key, "300"),
        "zoom_d0": (chart_key, "65"),
        "zoom_np": (chart_key, "256"),
        "zoom_nd": (chart_key, "66"),
    }
    # the browser's d: 66, where the hand left it (the spec still starts at 64)
    table = view_rows(zoom_chart(at), zoom_p0="10", zoom_d0="4", d_model="66").pivot(
        index="p", columns="i", values="value"
    )
    values, positions, dims = table.to_numpy(), table.index.astype(int).tolist(), table.columns.astype(int).tolist()
    assert positions == list(range(10, 74)) and dims == list(range(4, 36))
    expected = posenc.sinusoidal_encoding(np.arange(10, 74), 66)[:, 4:36]
    np.testing.assert_allclose(values, expected, rtol=0, atol=1e-12)


def test_on_the_dark_theme_the_overview_and_the_similarity_are_their_own_images_dark_where_zero(monkeypatch):
    """The page draws its redblue images for the theme the browser shows (explorer.render.dark_theme): on the dark
    theme the overview's zero cell (sin 0 at p = 0, dimension 0) sits just off the dark card (redblue's near-white glared
    there) and the similarity matrix is drawn for the dark card too; a light session and a dark one never get each
    other's image from the charts every session shares (built light, then dark, then light again in one server)."""
    from _chartspec import contrast, png_pixels

    from explorer import render
    from explorer.charts import style

    query = {"seq_len": 64, "d_model": 16, "scheme": "redblue", "sin_view": "Similarity", "sim_n": 16}

    def looks(at: AppTest) -> tuple[str, bool]:
        overview, *_ = (element_spec(e) for e in at.get("vega_lite_chart"))
        zero = hex_colour(png_pixels(overview)[0, 0])
        # its legend built for the dark card (the dark styling leaves an image's legend as it was built)
        return zero, style.DARK_REDBLUE[0] in str(find(charts_by_title(at), "PE(p)·PE(q)"))

    light = looks(run(query))
    assert contrast(light[0], style.CARD_BACKGROUND) < 1.2 and not light[1]  # the light theme: as before
    monkeypatch.setattr(render, "dark_theme", lambda: True)
    dark = looks(run(query))
    assert contrast(dark[0], style.DARK_BACKGROUND) < 1.3 and dark[1]
    monkeypatch.setattr(render, "dark_theme", lambda: False)
    assert looks(run(query)) == light
