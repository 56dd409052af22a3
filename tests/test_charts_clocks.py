"""Chart builders of the Frequency clock hands page (explorer/charts/clocks.py), via
`chart.to_dict()`: the client-side parameters and their timer, the marks and encodings, the
hand formula in the calculate transforms, titles, and data values checked against numbers
computed here (math, not posenc)."""

from __future__ import annotations

import itertools
import json
import math
import re
import shutil
import subprocess

import altair as alt
import numpy as np
import pandas as pd
import pytest

from explorer.assets import CLOCK_BRIDGE_JS
from explorer.charts import clocks as charts
from explorer.charts import live


def theta_loop(d: int, base: float) -> np.ndarray:
    return np.array([base ** (-2.0 * j / d) for j in range(d // 2)])


def build(d=16, base=10000.0, n_clocks=4, position=7, p_max=8192):
    theta = theta_loop(d, base)
    wl = 2 * math.pi / theta
    pairs = charts.clock_pairs(d // 2, n_clocks)
    chart = charts.clock_chart(
        pairs, theta[pairs], wl[pairs], all_theta=theta, position=position, p_max=p_max, base=base, d_model=d
    )
    return chart, chart.to_dict(), pairs, theta


def data(spec: dict, layer: dict) -> pd.DataFrame:
    return pd.DataFrame(spec["datasets"][layer["data"]["name"]])


def mark_type(layer: dict) -> str:
    mark = layer["mark"]
    return mark if isinstance(mark, str) else mark["type"]


def calculate(layer: dict) -> dict[str, str]:
    return {t["as"]: t["calculate"] for t in layer.get("transform", []) if "calculate" in t}


def eval_expr(expr: str, **env) -> float:
    """Evaluate one of the chart's Vega expressions (sin, cos, PI, datum.x, pos) in Python."""
    py = expr.replace("datum.", "datum_").replace("PI", "math.pi")
    py = py.replace("sin(", "math.sin(").replace("cos(", "math.cos(")
    return eval(py, {"math": math}, env)


# ------------------------------------------------------------------------------ data helpers
@pytest.mark.parametrize(
    "n_pairs, n_clocks, expected",
    [(64, 8, [0, 9, 18, 27, 36, 45, 54, 63]), (4, 8, [0, 1, 2, 3]), (10, 1, [0]), (10, 2, [0, 9]), (1, 1, [0])],
)
def test_clock_pairs_spread_from_fastest_to_slowest(n_pairs, n_clocks, expected):
    assert charts.clock_pairs(n_pairs, n_clocks).tolist() == expected


def test_clock_pairs_rejects_bad_input():
    with pytest.raises(ValueError, match="n_clocks"):
        charts.clock_pairs(4, 0)


@pytest.mark.parametrize("n, shape", [(1, (1, 1)), (6, (6, 1)), (8, (4, 2)), (16, (6, 3)), (64, (8, 8))])
def test_grid_shape(n, shape):
    assert charts.grid_shape(n) == shape


@pytest.mark.parametrize("lam, text", [(6.283185, "6.28"), (19.87, "19.9"), (628.3, "628"), (54410.2, "54,410")])
def test_wavelength_label(lam, text):
    assert charts.wavelength_label(lam) == text


def test_pair_table_numbers():
    p, d, base = 5, 8, 100.0
    theta = theta_loop(d, base)
    angle = p * theta
    table = charts.pair_table(np.arange(4), theta, 2 * math.pi / theta, angle, np.sin(angle), np.cos(angle))
    assert list(table.columns) == [
        "pair j",
        "θ_j (rad/token)",
        "λ_j (tokens)",
        "angle p·θ_j (rad)",
        "turns",
        "hand angle (° clockwise from 12)",
        "sin = x",
        "cos = y",
    ]
    assert table.loc[0, "turns"] == pytest.approx(5 / (2 * math.pi))
    assert table.loc[0, "hand angle (° clockwise from 12)"] == pytest.approx(math.degrees(5.0))
    assert table.loc[1, "sin = x"] == pytest.approx(math.sin(5 * 100 ** (-0.25)))
    with pytest.raises(ValueError, match="entries"):
        charts.pair_table(np.arange(4), theta[:3], theta, angle, angle, angle)


# ------------------------------------------------------------------------------ clock chart
NODE = shutil.which("node")


def test_parameters_live_in_the_browser_and_pos_has_a_timer():
    _, spec, _, _ = build(position=7, p_max=8192)
    params = {p["name"]: p for p in spec["params"]}
    assert set(params) == {"pos", "exact", "playing", "speed", charts.LIVE_KEY}
    pos = params["pos"]
    assert pos["value"] == 7.0
    # the slider is the URL's p: explorer.charts.live.position, starting at 7; pos follows its input signal
    p_live = params[charts.LIVE_KEY]
    assert p_live["select"] == {"type": "point", "fields": ["m"], "on": "none", "clear": False}
    assert p_live["value"] == 7
    assert p_live["bind"] == {"input": "range", "min": 0, "max": 8192, "step": 1, "name": "position p "}
    assert pos["on"][2] == {"events": {"signal": live.input_signal("m")}, "update": "isValid(m_m) ? m_m : pos"}
    # the page's bridge (play stopped, a number typed -> the slider's own input event) names the same inputs
    for name in (live.input_signal(charts.LIVE_KEY), "exact", "playing"):
        assert f'input[name="{name}"]' in CLOCK_BRIDGE_JS
    assert ".st-key-clock_chart" in CLOCK_BRIDGE_JS and re.search(r"<[A-Za-z/!]", CLOCK_BRIDGE_JS[8:-9]) is None
    assert params["playing"]["bind"]["input"] == "checkbox" and params["playing"]["value"] is False
    assert params["speed"]["bind"]["input"] == "select"
    assert params["speed"]["bind"]["options"] == list(charts.SPEEDS)
    assert params["speed"]["value"] in charts.SPEEDS
    # the Vega timer handler that makes "play" work without the server
    handler, typed, _ = pos["on"]
    assert handler["events"] == {"type": "timer", "throttle": charts.FRAME_MS}
    assert handler["update"].startswith("playing ?") and handler["update"].endswith(": pos")
    # fine control: a number box showing floor(p), with the whole range and step 1; typing in it moves p
    exact = params["exact"]
    assert exact["value"] == 7 and exact["on"] == [{"events": {"signal": "pos"}, "update": "floor(pos)"}]
    assert exact["bind"] == {"input": "number", "name": "exact p (type, or ±1) ", "min": 0, "max": 8192, "step": 1}
    assert typed["events"] == {"source": "window", "type": "input", "filter": "event.target.name === 'exact'"}


def run_typed(update: str, *, pos: float, value: str) -> float:
    """Evaluate the number box's Vega handler with node (Vega's isValid, toNumber and clamp typed out)."""
    script = (
        "const round = Math.round, floor = Math.floor, isFinite = Number.isFinite;"
        "const isValid = (x) => x != null && x === x; const toNumber = (x) => x == null || x === '' ? null : +x;"
        "const clamp = (x, lo, hi) => Math.max(lo, Math.min(hi, x));"
        f"const pos = {pos}, event = {{target: {{value: {json.dumps(value)}}}}}; console.log(JSON.stringify({update}));"
    )
    out = subprocess.run([NODE, "-e", script], capture_output=True, text=True, check=True, timeout=30)
    return float(out.stdout)


@pytest.mark.skipif(NODE is None, reason="node is needed to evaluate the Vega expression")
def test_the_number_box_sets_whole_positions_and_leaves_a_fractional_p_alone():
    _, spec, _, _ = build(position=7, p_max=100)
    update = next(p for p in spec["params"] if p["name"] == "pos")["on"][1]["update"]
    assert run_typed(update, pos=7, value="8") == 8  # the box's up arrow: +1
    assert run_typed(update, pos=7.4, value="6") == 6  # its down arrow from floor(7.4) = 7: −1
    assert run_typed(update, pos=7.4, value="7") == 7.4  # the box merely follows p: p stays
    assert run_typed(update, pos=3, value="250") == 100  # typed past the end: clamped
    assert run_typed(update, pos=3, value="") == 3  # cleared: p stays


def run_update(update: str, *, pos: float, playing: bool, speed: float) -> float:
    """Evaluate the timer's Vega expression with node (Vega expressions are JavaScript
    expressions; `round` is Math.round)."""
    script = (
        f"const round = Math.round; const pos = {pos}, playing = {str(playing).lower()}, "
        f"speed = {speed}; console.log(JSON.stringify({update}));"
    )
    out = subprocess.run([NODE, "-e", script], capture_output=True, text=True, check=True, timeout=30)
    return float(out.stdout)


@pytest.mark.skipif(NODE is None, reason="node is needed to evaluate the Vega expression")
def test_timer_update_advances_pauses_and_wraps():
    _, spec, _, _ = build(position=7, p_max=100)
    update = next(p for p in spec["params"] if p["name"] == "pos")["on"][0]["update"]
    frame = 1 / charts.FPS
    assert run_update(update, pos=7, playing=True, speed=4) == pytest.approx(7 + 4 * frame)
    assert run_update(update, pos=7, playing=False, speed=4) == 7  # paused: unchanged
    assert run_update(update, pos=99.99, playing=True, speed=64) == 0  # past p_max: wraps to 0
    assert run_update(update, pos=0.1, playing=True, speed=0.25) == pytest.approx(0.11)  # 1/100 steps


def test_timer_survives_copies_and_is_stored_in_usermeta():
    chart, spec, _, _ = build()
    assert isinstance(chart, charts.ClockChart)
    assert spec["usermeta"]["client_timer"]["pos"] == next(p for p in spec["params"] if p["name"] == "pos")["on"]
    copied = chart.properties(title="x")  # Altair copies keep the class and the usermeta
    assert any("on" in p for p in copied.to_dict()["params"])


def test_spec_without_the_timer_is_valid_vega_lite():
    _, spec, _, _ = build()
    stripped = json.loads(json.dumps(spec))
    for p in stripped["params"]:
        p.pop("on", None)
        if p["name"] == "exact":  # the input element's attributes, added after validation
            p["bind"] = {k: v for k, v in p["bind"].items() if k not in ("min", "max", "step")}
    alt.VConcatChart.from_dict(stripped, validate=True)  # raises if the rest were not valid


def test_clock_faces_hands_and_labels():
    _, spec, pairs, _ = build(d=16, base=10000.0, n_clocks=4, position=7)
    faces_panel, _odometer = spec["vconcat"]
    kinds = [mark_type(layer) for layer in faces_panel["layer"]]
    assert kinds == ["line", "rule", "rule", "circle", "circle", "text", "text"]
    dials, _noon, hands, _tips, _hubs, labels, readout = faces_panel["layer"]
    faces = data(spec, hands)
    assert faces["j"].tolist() == pairs.tolist() == [0, 2, 5, 7]
    np.testing.assert_allclose(faces["theta"], [10000.0 ** (-2.0 * j / 16) for j in pairs], rtol=1e-15)
    np.testing.assert_allclose(faces["wavelength"], [2 * math.pi * 10000.0 ** (2.0 * j / 16) for j in pairs])
    assert faces["label"][0] == "j = 0\nλ = 6.28"
    # hand tip = centre + HAND·(sin(pθ), cos(pθ)): x is the sin coordinate, y the cos coordinate
    calc = {}
    for t in hands["transform"]:
        calc[t["as"]] = t["calculate"]
    for _, face in faces.iterrows():
        angle = eval_expr(calc["angle"], pos=7.0, datum_theta=face["theta"])
        assert angle == pytest.approx(7.0 * face["theta"])
        tip_x = eval_expr(calc["tip_x"], datum_cx=face["cx"], datum_angle=angle)
        tip_y = eval_expr(calc["tip_y"], datum_cy=face["cy"], datum_angle=angle)
        assert tip_x == pytest.approx(face["cx"] + charts.HAND * math.sin(7.0 * face["theta"]))
        assert tip_y == pytest.approx(face["cy"] + charts.HAND * math.cos(7.0 * face["theta"]))
    assert hands["encoding"]["x2"]["field"] == "tip_x" and hands["encoding"]["y2"]["field"] == "tip_y"
    tooltip_titles = [t["title"] for t in hands["encoding"]["tooltip"]]
    assert "x = sin(p·θ_j)" in tooltip_titles and "y = cos(p·θ_j)" in tooltip_titles
    # dials are unit circles around the centres
    ring = data(spec, dials)
    first = ring[ring["j"] == 0]
    radius = np.hypot(first["x"] - faces["cx"][0], first["y"] - faces["cy"][0])
    np.testing.assert_allclose(radius, 1.0, atol=1e-12)
    assert labels["encoding"]["text"]["field"] == "label" and labels["mark"]["fontSize"] >= 13
    assert "'position p = '" in calculate(readout)["text"]
    title = faces_panel["title"]
    assert "turns by θ_j per token" in title["text"]
    assert any("x is dimension 2j, y dimension 2j + 1" in line for line in title["subtitle"])
    assert any("wavelength λ_j in tokens" in line for line in title["subtitle"])


def test_equal_aspect_so_dials_are_circles():
    for n in (1, 4, 8, 64):
        _, spec, _, _ = build(d=256, n_clocks=n)
        panel = spec["vconcat"][0]
        enc = panel["layer"][0]["encoding"]
        x_lo, x_hi = enc["x"]["scale"]["domain"]
        y_lo, y_hi = enc["y"]["scale"]["domain"]
        assert panel["width"] / (x_hi - x_lo) == pytest.approx(panel["height"] / (y_hi - y_lo), rel=0.02)


def test_many_clocks_are_drawn_large_within_a_laptop_column():
    """64 clocks: 8 per row, dials at least ~76 px across (they were 65 px), and the panel no
    wider than the main column of a 1280-px screen with the sidebar open (≈ 790 px)."""
    _, spec, _, _ = build(d=128, n_clocks=64)
    panel = spec["vconcat"][0]
    x_lo, x_hi = panel["layer"][0]["encoding"]["x"]["scale"]["domain"]
    px_per_radius = panel["width"] / (x_hi - x_lo)
    assert 2 * px_per_radius >= 76
    assert panel["width"] <= 770
    cx = sorted(set(data(spec, panel["layer"][2])["cx"]))
    assert len(cx) == 8
    # neighbouring centres leave room for the widest label ("λ = 54,410", ~70 px at 14 px)
    assert (cx[1] - cx[0]) * px_per_radius >= 85
    assert all(len(line) <= 90 for line in panel["title"]["subtitle"])  # the panel sets the width


@pytest.mark.parametrize("e_lo, e_hi", [(-5, 4), (-7, 4), (-2, 2), (-1, 4), (-12, 5)])
def test_odometer_ticks_are_few_whole_decades_including_one(e_lo, e_hi):
    ticks = charts.odometer_ticks(e_lo, e_hi)
    exps = [round(math.log10(t)) for t in ticks]
    assert all(t == pytest.approx(10.0**e) for t, e in zip(ticks, exps))
    assert exps == sorted(exps) and e_lo <= exps[0] and exps[-1] <= e_hi
    assert 1.0 in ticks
    assert len(ticks) <= charts.ODOMETER_MAX_LABELS + 1
    assert len(set(b - a for a, b in itertools.pairwise(exps))) <= 1  # evenly spaced


def test_odometer_axis_labels_do_not_crowd():
    _, spec, _, _ = build(d=128, base=10000.0, n_clocks=64, position=5, p_max=8192)
    line = spec["vconcat"][1]["layer"][2]
    axis = line["encoding"]["y"]["axis"]
    lo, hi = line["encoding"]["y"]["scale"]["domain"]
    assert lo == pytest.approx(1e-5) and hi == pytest.approx(1e4)  # 9 decades in 230 px
    assert axis["values"] == pytest.approx([1e-4, 1e-2, 1.0, 1e2, 1e4])  # ≥ 45 px apart
    assert axis["labelFlush"] is False  # end labels sit on their ticks, not pushed inwards
    # the y axis on the right: the concatenation aligns the plots' left edges, so the odometer
    # plus its axis stays within the clock panel's width instead of widening the chart by ~90 px
    assert axis["orient"] == "right"
    panel, odometer = spec["vconcat"]
    assert odometer["width"] + 80 <= panel["width"]
    assert line["encoding"]["x"]["axis"]["format"] == "d"  # pairs are whole numbers


def test_odometer_shows_total_turns_of_every_pair_on_a_log_axis():
    _, spec, pairs, theta = build(d=32, base=500.0, n_clocks=3, position=100)
    odometer = spec["vconcat"][1]
    rule, text, line, marks = odometer["layer"]
    assert [mark_type(x) for x in (rule, text, line, marks)] == ["rule", "text", "line", "circle"]
    assert line["encoding"]["y"]["scale"]["type"] == "log"
    odo = data(spec, line)
    np.testing.assert_allclose(odo["theta"], [500.0 ** (-2.0 * j / 32) for j in range(16)], rtol=1e-15)
    assert odo["clock"].tolist() == [j in pairs for j in range(16)]
    turns = calculate(line)["turns"]
    for j in (0, 7, 15):
        assert eval_expr(turns, pos=100.0, datum_theta=odo["theta"][j]) == pytest.approx(
            100 * 500.0 ** (-2.0 * j / 32) / (2 * math.pi)
        )
    lo, hi = line["encoding"]["y"]["scale"]["domain"]
    assert lo <= min(theta) / (2 * math.pi) and hi >= 8192 * max(theta) / (2 * math.pi)
    assert data(spec, rule)["turns"].tolist() == [1.0]
    assert "Odometer" in odometer["title"]["text"]


def test_config_is_projector_legible():
    _, spec, _, _ = build()
    config = spec["config"]
    assert config["axis"]["labelFontSize"] >= 13 and config["title"]["fontSize"] >= 13
    assert config["title"]["subtitleFontSize"] >= 13


def test_bad_input_is_rejected():
    theta = theta_loop(8, 100.0)
    with pytest.raises(ValueError, match="position"):
        charts.clock_chart([0], theta[:1], theta[:1], all_theta=theta, position=9000, p_max=8192, base=100.0, d_model=8)
    with pytest.raises(ValueError, match="equal-length"):
        charts.clock_chart([0, 1], theta[:1], theta[:1], all_theta=theta, position=0, p_max=10, base=100.0, d_model=8)


def test_the_chart_describes_its_clocks_with_their_numbers():
    _, spec, pairs, _ = build(d=16, base=10000.0, n_clocks=4, position=7)
    text = spec["description"]
    assert text.startswith("Clock hands, starting at position p = 7 ")
    for j in pairs:
        assert (
            f"pair {j} (wavelength {charts.wavelength_label(2 * math.pi * 10000.0 ** (2.0 * j / 16))} tokens)" in text
        )
    assert "every one of the 8 pairs" in text
