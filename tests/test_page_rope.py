"""The RoPE-rotation page through Streamlit's AppTest: defaults, both input modes, every control at
its minimum and maximum, garbage in every URL parameter, the pair index clamped to head_dim, and
the numbers it shows (angles, norms, scores, the rotated vector) against values computed here."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from _apptest import metrics, run_page
from _chartspec import by_field, element_spec, facts, find, frame, hex_colour, unit_rows

from explorer.imagechart import meta as image_meta
from explorer.widgets import PARAMS

PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "3_RoPE_rotation.py")
N_CHARTS = 2  # the live plane (m, n, d and j are its sliders), then tab "One pair": the rotation plane
HEAD = {"rope_view": "Whole head"}  # the other tab: the d×d matrix and the pair map
KEYS = (
    "rope_view",
    "vec_input",
    "qx",
    "qy",
    "kx",
    "ky",
    "q_angle",
    "q_len",
    "k_angle",
    "k_len",
    "m",
    "n",
    "head_dim",
    "j",
    "base",
    "traj_m",
    "layout_rope",
)
MINIMUM = {
    "qx": -3,
    "qy": -3,
    "kx": -3,
    "ky": -3,
    "m": 0,
    "n": 0,
    "head_dim": 2,
    "j": 0,
    "base": 10,
    "traj_m": 0,
    "layout_rope": "interleaved",
}
MAXIMUM = {
    "qx": 3,
    "qy": 3,
    "kx": 3,
    "ky": 3,
    "m": 8192,
    "n": 8192,
    "head_dim": 256,
    "j": 127,
    "base": 1000000,
    "traj_m": 256,
}


def run(at=None, **query):
    return run_page(PAGE, at, **query)


def wrap(a: float) -> float:
    while a > math.pi:
        a -= 2 * math.pi
    while a <= -math.pi:
        a += 2 * math.pi
    return a


def rotate(v, angle):
    c, s = math.cos(angle), math.sin(angle)
    return (v[0] * c - v[1] * s, v[0] * s + v[1] * c)


def expected_numbers(q, k, m, n, theta) -> dict[str, str]:
    """What the metric cards must say, from math alone."""
    qm, kn = rotate(q, m * theta), rotate(k, n * theta)
    before = wrap(math.atan2(q[1], q[0]) - math.atan2(k[1], k[0]))
    measured = wrap(math.atan2(qm[1], qm[0]) - math.atan2(kn[1], kn[0]))
    kd = rotate(k, (n - m) * theta)
    return {
        "∠(k → q) before": f"{math.degrees(before):.2f}°",
        "(m − n)·θ_j": f"{math.degrees(wrap((m - n) * theta)):.2f}°",
        "predicted ∠ after": f"{math.degrees(wrap(before + (m - n) * theta)):.2f}°",
        "measured ∠ after": f"{math.degrees(measured):.2f}°",
        "‖q‖ before": f"{math.hypot(*q):.6f}",
        f"‖q‖ after (m = {m})": f"{math.hypot(*qm):.6f}",
        "⟨R_m q, R_n k⟩": f"{qm[0] * kn[0] + qm[1] * kn[1]:.6f}",
        "⟨q, R_(n−m) k⟩": f"{q[0] * kd[0] + q[1] * kd[1]:.6f}",
    }


def assert_page_complete(at):
    assert at.title[0].value == "RoPE rotation"
    assert len(at.get("vega_lite_chart")) == N_CHARTS
    assert len(at.latex) >= 2
    assert any("What to notice" in md.value for md in at.markdown)
    assert len(at.metric) == 8
    assert [t.label for t in at.tabs] == ["One pair", "Whole head"]


def assert_whole_head(at, head_dim):
    """The other tab: the d×d matrix and the pair map, and none of the one-pair view."""
    specs = [element_spec(c) for c in at.get("vega_lite_chart")][1:]  # after the live plane
    assert len(specs) == 2 and len(at.metric) == 0
    assert image_meta(specs[0])["shape"] == [head_dim, head_dim]
    return specs


def plane(at) -> dict:
    return element_spec(at.get("vega_lite_chart")[1])


def live_starts(at) -> dict[str, int]:
    """{m, n, head_dim, j: the value the live plane's in-chart slider shows} (the page's first chart)."""
    spec = element_spec(at.get("vega_lite_chart")[0])
    return {p["name"]: p["value"] for p in spec["params"] if "bind" in p}


def j_range_on_the_page(at) -> int:
    """The largest j the page lets the plane's j slider reach (explorer.liveparam.ranges_html)."""
    (found,) = {int(v) for h in at.get("html") for v in re.findall(r'data-max-j_j="([0-9]+)"', h.proto.body)}
    return found


def arrows(at):
    spec = plane(at)
    # the arrows' shafts: the rule drawn from (x0, y0) to each vector's point (x, y)
    (shafts,) = [layer for layer in by_field(spec, "rule", "x2", "x") if layer["encoding"]["y2"]["field"] == "y"]
    return frame(spec, shafts).set_index("label")


# --- defaults ----------------------------------------------------------------------------------
def test_defaults_show_the_angle_identity():
    at = run()
    assert_page_complete(at)
    assert not at.error and not at.warning
    q, k, m, n, theta = (1.0, 0.5), (-0.4, 1.2), 5, 12, 1.0  # j = 0: θ_0 = 1 for any base
    shown = metrics(at)
    assert shown == expected_numbers(q, k, m, n, theta)
    assert shown["predicted ∠ after"] == shown["measured ∠ after"] == "-122.94°"
    assert shown["‖q‖ before"] == shown["‖q‖ after (m = 5)"]
    assert shown["⟨R_m q, R_n k⟩"] == shown["⟨q, R_(n−m) k⟩"]
    df = arrows(at)
    assert df.loc["q at m=5", ["x", "y"]].tolist() == pytest.approx(rotate(q, m * theta))
    assert df.loc["k at n=12", ["x", "y"]].tolist() == pytest.approx(rotate(k, n * theta))
    qm = rotate(q, m * theta)
    tex = at.latex[1].value
    assert f"{qm[0]:.3f}" in tex and f"{qm[1]:.3f}" in tex and f"{math.cos(5):.3f}" in tex


def plane_slider_starts(at) -> dict[str, int]:
    """{traj_m: where the rotation plane's own slider starts} (the page's second chart)."""
    return {p["name"]: p["value"] for p in plane(at).get("params", []) if "bind" in p}


def test_trajectory_is_q_at_positions_0_to_m():
    """Issue #36: M is the rotation plane's own slider. The chart holds q at every position the slider can reach
    (0 … its maximum, each one rotated here by hand) and draws 0 … M in the browser; the slider starts at the link's
    M, and the numbers beside the dots are those of the M drawn."""
    at = run(traj_m=20, j=3, head_dim=16, base=100)
    theta = 100 ** (-2 * 3 / 16)
    spec = plane(at)
    assert plane_slider_starts(at) == {"traj_m": 20}
    assert not [s for s in at.slider if s.key == "traj_m"]  # no second control for it in the sidebar
    (points,) = find(spec, "circle")
    held = frame(spec, points)
    assert held["position"].tolist() == list(range(PARAMS["traj_m"].max + 1))
    for row in held.itertuples():
        assert (row.x, row.y) == pytest.approx(rotate((1.0, 0.5), row.position * theta))
    for m in (20, 5, 0, PARAMS["traj_m"].max):
        assert unit_rows(spec, points, traj_m=m)["position"].tolist() == list(range(m + 1))
    (numbers,) = [
        layer for layer in find(spec, "text") if layer.get("encoding", {}).get("text", {}).get("field") == "position"
    ]
    for m in (20, 7):  # (q at 5 is the arrow "q at m=5": its label names that dot)
        numbered = set(unit_rows(spec, numbers, traj_m=m)["position"])
        assert numbered <= set(range(1, m + 1)) - {5} and m in numbered  # the last position is always named
    assert f"θ_j = {theta:.4g} rad" in spec["title"]["text"]


@pytest.mark.parametrize("m, n, j", [(300, 7, 2), (7, 300, 20), (8192, 0, 1), (40, 40, 31)])
def test_angle_identity_numbers(m, n, j):
    at = run(m=m, n=n, j=j)
    theta = 10000.0 ** (-2 * j / 64)
    shown = metrics(at)
    assert shown == expected_numbers((1.0, 0.5), (-0.4, 1.2), m, n, theta)
    assert shown["predicted ∠ after"] == shown["measured ∠ after"]


def test_polar_input():
    at = run(vec_input="polar", q_angle=90, q_len=2, k_angle=-45, k_len=0.5)
    starts = live_starts(at)  # the plane's own sliders (issue #36), none in the sidebar
    assert {key: starts[key] for key in ("q_angle", "q_len", "k_angle", "k_len")} == {
        "q_angle": 90,
        "q_len": 2.0,
        "k_angle": -45,
        "k_len": 0.5,
    }
    assert not [s for s in at.slider if s.key in ("q_angle", "q_len", "k_angle", "k_len", "qx", "qy", "kx", "ky")]
    q = (0.0, 2.0)
    k = (0.5 * math.cos(-math.pi / 4), 0.5 * math.sin(-math.pi / 4))
    assert metrics(at) == expected_numbers(q, k, 5, 12, 1.0)
    assert metrics(at)["∠(k → q) before"] == "135.00°"
    df = arrows(at)
    assert df.loc["q", ["x", "y"]].tolist() == pytest.approx(q, abs=1e-12)


# --- the whole matrix and the layouts ------------------------------------------------------------
@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_matrix_and_pair_map_follow_the_layout(layout):
    at = run(layout_rope=layout, head_dim=16, j=5, m=3, **HEAD)
    heat, pairs = assert_whole_head(at, 16)
    meta = image_meta(heat)
    assert meta["shape"] == [16, 16] and meta["domain"] == [-1.0, 1.0]
    # the outline of pair j's cells: the visible rect layer over cell spans (the hover layer over the
    # same cells is invisible: it only carries the tooltips)
    (boxes,) = [layer for layer in by_field(heat, "rect", "x2", "x1") if layer["mark"].get("opacity") != 0]
    cells = frame(heat, boxes)
    expected = (5, 13) if layout == "half" else (10, 11)
    assert sorted(set((cells["x0"] + cells["x1"]) / 2)) == list(expected)
    df = frame(pairs, pairs)
    assert sorted(df.loc[df["selected"], "coordinate"]) == list(expected)
    assert layout in pairs["title"]["text"]


def test_the_matrix_on_the_dark_theme_is_its_own_image_dark_where_it_is_zero(monkeypatch):
    """The page draws R_m for the theme the browser shows (explorer.render.dark_theme): on the dark theme its zero
    cells, nearly all of them, sit just off the dark card (redblue's near-white zero glared there), and a light
    session and a dark one never get each other's image from the charts every session shares (built light, then dark,
    then light again in one server)."""
    from _chartspec import contrast, png_pixels

    from explorer import render
    from explorer.charts import style

    def zero_colours(at) -> set[str]:
        heat, _ = assert_whole_head(at, 16)
        pixels = png_pixels(heat)[..., :3]
        zero = pixels[0, 1]  # R_m's row 0 is zero but for columns 0 and 8 (half layout, d = 16)
        assert all((p == zero).all() for p in pixels[0, [1, 2, 3, 4, 5, 6, 7, 9, 15]])
        return hex_colour(zero)

    query = dict(layout_rope="half", head_dim=16, j=5, m=3, **HEAD)
    light = zero_colours(run(**query))
    assert contrast(light, style.CARD_BACKGROUND) < 1.2  # the light theme: redblue's near-white, as before
    monkeypatch.setattr(render, "dark_theme", lambda: True)
    dark = zero_colours(run(**query))
    assert contrast(dark, style.DARK_BACKGROUND) < 1.3
    monkeypatch.setattr(render, "dark_theme", lambda: False)
    assert zero_colours(run(**query)) == light


# --- extremes ------------------------------------------------------------------------------------
def test_every_control_at_its_minimum():
    at = run(**MINIMUM)
    assert_page_complete(at)
    assert not at.warning
    assert live_starts(at)["head_dim"] == 2 and live_starts(at)["j"] == 0
    assert j_range_on_the_page(at) == 0  # one pair only: the j slider is narrowed to 0 … 0
    shown = metrics(at)
    assert shown["∠(k → q) before"] == "0.00°" and shown["(m − n)·θ_j"] == "0.00°"
    assert shown["predicted ∠ after"] == shown["measured ∠ after"] == "0.00°"


def test_every_control_at_its_maximum():
    at = run(**MAXIMUM)
    assert_page_complete(at)
    assert not at.warning
    assert live_starts(at)["j"] == 127 and j_range_on_the_page(at) == 127
    theta = 1e6 ** (-2 * 127 / 256)
    assert metrics(at) == expected_numbers((3.0, 3.0), (3.0, 3.0), 8192, 8192, theta)
    assert_whole_head(run(**MAXIMUM, **HEAD), 256)


@pytest.mark.parametrize("extreme", ["min", "max"])
def test_polar_extremes(extreme):
    values = {
        "min": dict(q_angle=-180, q_len=0.1, k_angle=-180, k_len=0.1),
        "max": dict(q_angle=180, q_len=3, k_angle=180, k_len=3),
    }[extreme]
    at = run(vec_input="polar", **values)
    assert_page_complete(at)
    shown = metrics(at)
    assert shown["∠(k → q) before"] == "0.00°"
    assert shown["predicted ∠ after"] == shown["measured ∠ after"]


def test_zero_vector_falls_back_with_a_warning():
    at = run(qx=0, qy=0)
    assert_page_complete(at)
    assert any("q is the zero vector" in w.value for w in at.warning)
    assert metrics(at) == expected_numbers((1.0, 0.5), (-0.4, 1.2), 5, 12, 1.0)


# --- bad URLs ------------------------------------------------------------------------------------
def test_garbage_in_every_url_parameter():
    at = run(**{key: "abc" for key in KEYS})
    assert_page_complete(at)
    (warning,) = at.warning
    for key in KEYS:
        if key not in ("q_angle", "q_len", "k_angle", "k_len"):  # polar widgets are not drawn
            assert key.replace("_", "\\_") in warning.value  # markdown-escaped key
    assert "<" not in warning.value  # shown as text, never HTML
    assert metrics(at) == expected_numbers((1.0, 0.5), (-0.4, 1.2), 5, 12, 1.0)


@pytest.mark.parametrize("value", ["1e9", "-5", "nan", "inf", "3.5", "<script>", ""])
def test_out_of_range_numbers(value):
    at = run(m=value, head_dim=value, traj_m=value)
    assert_page_complete(at)
    assert live_starts(at)["m"] == 5 and live_starts(at)["head_dim"] == 64
    assert "m" not in at.query_params  # a bad value is removed from the link


def test_pair_index_too_large_for_head_dim_is_clamped():
    at = run(head_dim=8, j=60)
    assert_page_complete(at)
    assert live_starts(at)["j"] == 3 and j_range_on_the_page(at) == 3
    assert any("j" in w.value and "3" in w.value for w in at.warning)
    theta = 10000.0 ** (-2 * 3 / 8)
    assert metrics(at) == expected_numbers((1.0, 0.5), (-0.4, 1.2), 5, 12, theta)


def _page_after_a_report():
    """The page as Streamlit runs it after the live plane reported its sliders: the chart's on_select
    callback (explorer.liveparam.report, with the page's limits) first, then the page."""
    import runpy

    import streamlit as st

    from explorer import liveparam
    from explorer.charts import rope as rope_charts

    report = st.session_state.pop("test_report", None)
    if report is not None:
        keys = rope_charts.live_params(st.session_state.get("vec_input", "cartesian"))
        values = {k: v for k, v in st.session_state.items() if k in keys}
        values.update({k: entry[0][k] for k, entry in report.items()})
        liveparam.report("rope_live", keys, report, rope_charts.live_limits(values))
    traj = st.session_state.pop("test_traj_report", None)
    if traj is not None:
        liveparam.report("rope_traj_live", rope_charts.TRAJ_PARAMS, traj)
    runpy.run_path(st.session_state["test_page"], run_name="__main__")


def test_a_trajectory_length_reported_by_the_rotation_plane_reaches_the_link_and_keeps_the_plane():
    """Issue #36: M is the rotation plane's own slider. Its report reaches the URL (the default, 16, leaves it, as a
    widget's would; a value past the slider's range is ignored); the plane keeps its spec, since the browser already
    draws what it reported."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_page_after_a_report, default_timeout=60)
    at.session_state["test_page"] = PAGE
    at.query_params["traj_m"] = "20"
    run_page("", at)
    first = plane(at)
    assert plane_slider_starts(at) == {"traj_m": 20}
    at.session_state["test_traj_report"] = {"traj_m": [{"traj_m": 40}]}
    run_page("", at)
    assert not at.exception and at.query_params["traj_m"] == "40"
    assert plane(at) == first
    at.session_state["test_traj_report"] = {"traj_m": [{"traj_m": 16}]}
    run_page("", at)
    assert "traj_m" not in at.query_params and plane(at) == first
    at.session_state["test_traj_report"] = {"traj_m": [{"traj_m": 9999}]}
    run_page("", at)
    assert "traj_m" not in at.query_params and plane(at) == first
    assert_page_complete(at)


def test_shrinking_head_dim_in_the_plane_keeps_the_pair_index_valid():
    """The plane reports a drag of d to 8 while j stands at 31 (the chart itself reads j as at most
    d/2 − 1): the page clamps j to 3, and the whole head shows pair 3."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_page_after_a_report, default_timeout=60)
    at.session_state["test_page"] = PAGE
    at.query_params["j"] = "31"
    run_page("", at)
    assert live_starts(at)["j"] == 31
    at.session_state["test_report"] = {"head_dim": [{"head_dim": 8}], "j": [{"j": 31}]}
    run_page("", at)
    assert at.query_params["head_dim"] == "8" and at.query_params["j"] == "3"
    # the chart the hand is on keeps its spec (Streamlit keeps it); the page narrows its j slider to
    # 0 … 3, which moves the slider's 31 inside (explorer.assets.LIVE_RANGES_JS)
    assert j_range_on_the_page(at) == 3
    assert_page_complete(at)
    theta = 10000.0 ** (-2 * 3 / 8)
    assert metrics(at) == expected_numbers((1.0, 0.5), (-0.4, 1.2), 5, 12, theta)
    at.session_state["rope_view"] = "Whole head"  # open the other tab, as a click would
    run_page("", at)
    _, pairs = assert_whole_head(at, 8)
    df = frame(pairs, pairs)
    assert sorted(df.loc[df["selected"], "coordinate"]) == [3, 7]


def test_a_drag_of_q_or_k_reported_by_the_plane_reaches_the_url_and_the_rest_of_the_page():
    """Issue #36: q's and k's numbers are the live plane's own sliders. Their report reaches the session and the URL
    (a value outside the sliders' range, or junk: ignored); the plane keeps its spec (the browser keeps the chart it was
    dragging: only its facts row, the plane's reach, changes) while the metrics, the second plane and the link follow.
    A drag to the zero vector is drawn as it is by the plane, and the page says what the rest uses."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_page_after_a_report, default_timeout=60)
    at.session_state["test_page"] = PAGE
    run_page("", at)
    first = element_spec(at.get("vega_lite_chart")[0])
    # kx = 9 is outside the slider's range: untrusted input, ignored
    at.session_state["test_report"] = {
        "qx": [{"qx": -2.5}],
        "qy": [{"qy": 0.7}],
        "ky": [{"ky": 2.9}],
        "kx": [{"kx": 9.0}],
    }
    run_page("", at)
    assert (at.query_params["qx"], at.query_params["qy"], at.query_params["ky"]) == ("-2.5", "0.7", "2.9")
    assert "kx" not in at.query_params
    now = element_spec(at.get("vega_lite_chart")[0])
    assert {k: v for k, v in now.items() if k != "datasets"} == {k: v for k, v in first.items() if k != "datasets"}
    assert facts(now)["lim"] == pytest.approx(1.35 * math.hypot(-0.4, 2.9))  # the longer of the new pair
    assert metrics(at) == expected_numbers((-2.5, 0.7), (-0.4, 2.9), 5, 12, 1.0)
    assert arrows(at).loc["q", ["x", "y"]].tolist() == pytest.approx([-2.5, 0.7], abs=1e-12)
    at.session_state["test_report"] = {"qx": [{"qx": 0.0}], "qy": [{"qy": 0.0}], "kx": [{"kx": "x"}]}
    run_page("", at)
    assert at.query_params["qx"] == "0" and "kx" not in at.query_params
    assert any("q is the zero vector" in w.value and "The live plane draws it as it is" in w.value for w in at.warning)
    assert metrics(at) == expected_numbers((1.0, 0.5), (-0.4, 2.9), 5, 12, 1.0)


def test_switching_input_mode_keeps_the_page_working():
    at = run()
    at.radio(key="vec_input").set_value("polar")
    run(at)
    assert_page_complete(at)
    assert metrics(at)["∠(k → q) before"] == "-80.00°"  # 30° − 110°
    at.radio(key="vec_input").set_value("cartesian")
    run(at)
    assert metrics(at) == expected_numbers((1.0, 0.5), (-0.4, 1.2), 5, 12, 1.0)


# ------------------------------------------------------------- sentences true at every setting
def notices(at) -> str:
    (text,) = [m.value for m in at.main.markdown if m.value.startswith("**What to notice**")]
    return text


def test_notice_with_a_single_pair():
    """d = 2: pair 0 is also the slowest pair, and the base changes nothing."""
    text = notices(run(head_dim="2", j="0", base="10"))
    assert "the slowest pair, j = 0" not in text
    assert f"only pair 0, which turns exactly one radian ({math.degrees(1.0):.4g}°)" in text


def test_notice_names_the_slowest_pair_at_a_small_base():
    text = notices(run(head_dim="8", j="0", base="10"))
    assert f"the slowest pair, j = 3, {math.degrees(10 ** (-6 / 8)):.3g}° (base 10, d = 8)" in text  # 10.2°


def test_the_slow_pair_tour_step_fixes_the_base_it_quotes():
    """ "About four degrees" after 500 tokens holds for pair 31 of d = 64 at base 10,000 only (at base 10
    it is many turns), so the step sets the base it speaks of."""
    from explorer.site.rope import PAGE as SITE

    (step,) = [s for s in SITE.tour if "four degrees" in s.narration]
    values = step.params
    assert values["base"] == 10000 and "10,000" in step.narration
    angle = math.degrees(values["m"] * values["base"] ** (-2 * values["j"] / values["head_dim"]))
    assert values["j"] == values["head_dim"] // 2 - 1 and round(angle) == 4


def test_the_links_m_and_n_are_the_live_planes_sliders():
    """m and n have one control each: the live plane's in-chart sliders, which start at the link's
    values and reach every position; the rest of the page computes with the same values."""
    at = run(m="8100", n="40", j="3", head_dim="16", base="100")
    assert not at.exception
    assert not [s for s in at.slider if s.key in ("m", "n", "head_dim", "j")]  # no second control for them
    live = element_spec(at.get("vega_lite_chart")[0])
    params = {p["name"]: p for p in live["params"] if "bind" in p}
    assert (params["m"]["value"], params["n"]["value"]) == (8100, 40)
    assert (params["head_dim"]["value"], params["j"]["value"]) == (16, 3)
    assert (params["n"]["bind"]["min"], params["n"]["bind"]["max"]) == (0, 8192)
    assert (
        params["head_dim"]["bind"]["min"],
        params["head_dim"]["bind"]["max"],
        params["head_dim"]["bind"]["step"],
    ) == (2, 256, 2)
    assert j_range_on_the_page(at) == 7  # d = 16: pairs 0 … 7
    # the expressions compute θ_j from the in-chart b (an index into the base's options), d and j
    theta = 100.0 ** (-6 / 16)
    assert params["base"]["value"] == list(PARAMS["base"].options).index(100)
    assert "base" not in facts(live) and "base.base" in str(live["vconcat"][1]["transform"])
    assert not [s for s in at.select_slider if s.key == "base"]  # no second control for b
    assert metrics(at) == expected_numbers((1.0, 0.5), (-0.4, 1.2), 8100, 40, theta)
    assert (at.query_params["m"], at.query_params["n"]) == ("8100", "40")
