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
from _vegaexpr import vega_eval
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc
from explorer.assets import CLOCK_BRIDGE_JS
from explorer.charts import clocks as charts
from explorer.charts import live
from explorer.text import clocks as clock_text


def theta_loop(d: int, base: float) -> np.ndarray:
    return np.array([base ** (-2.0 * j / d) for j in range(d // 2)])


#: The base options the chart is built with here (the page passes the registry's: explorer.vocabulary).
BASES = (10, 100, 500, 1000, 10000, 50000, 100000, 150000, 500000, 1000000, 2000000, 5000000)
#: posenc's slowest θ at the largest d and base (the page's SLOWEST_THETA), computed here by a loop.
SLOWEST = 5000000.0 ** (-2.0 * 1023 / 2048)


def build(d=16, base=10000.0, n_clocks=4, position=7, p_max=8192):
    chart = charts.clock_chart(
        position=position,
        d_model=d,
        base=base,
        n_clocks=n_clocks,
        p_max=p_max,
        base_options=BASES,
        slowest_theta=SLOWEST,
    )
    pairs = posenc.spread_pairs(d // 2, n_clocks)
    return chart, chart.to_dict(), pairs, theta_loop(d, base)


def shown(d: int, base: float, n_clocks: int) -> dict:
    """What the chart's expressions make of the sliders at (d, base, n_clocks): the number of clocks,
    their pairs and θ_j, the grid's columns and the dial radius (evaluated in Python, tests/_vegaexpr.py)."""
    ex = charts.clock_expressions(BASES)
    sel = {"d_model": d, "base": BASES.index(base), "n_clocks": n_clocks}
    clocks = vega_eval(ex["clocks"], selections=sel)
    pairs = [vega_eval(ex["pair"], selections=sel, i=i) for i in range(int(clocks))]
    theta = [vega_eval(ex["theta"], selections=sel, j=j) for j in pairs]
    cols = vega_eval(ex["cols"], selections=sel)
    radius = vega_eval(ex["radius"], selections=sel, signals={charts.COLS_SIGNAL: cols})
    return {"clocks": clocks, "pairs": pairs, "theta": theta, "cols": cols, "radius": radius}


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
def test_spread_pairs_spread_from_fastest_to_slowest(n_pairs, n_clocks, expected):
    assert posenc.spread_pairs(n_pairs, n_clocks).tolist() == expected


def test_spread_pairs_rejects_bad_input():
    with pytest.raises(ValueError, match="count"):
        posenc.spread_pairs(4, 0)
    with pytest.raises(ValueError, match="n_pairs"):
        posenc.spread_pairs(0, 3)


@pytest.mark.parametrize("n, shape", [(1, (1, 1)), (6, (6, 1)), (8, (4, 2)), (16, (6, 3)), (64, (8, 8))])
def test_grid_shape(n, shape):
    assert charts.grid_shape(n) == shape


@pytest.mark.parametrize("lam, text", [(6.283185, "6.28"), (19.87, "19.9"), (628.3, "628"), (54410.2, "54,410")])
def test_wavelength_label(lam, text):
    assert clock_text.wavelength_label(lam) == text


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
    assert set(params) == {
        "pos",
        "exact",
        "playing",
        "speed",
        *charts.LIVE_PARAMS,
        charts.COLS_SIGNAL,
        charts.RADIUS_SIGNAL,
    }
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


def test_the_settings_are_the_charts_own_sliders_over_their_whole_range():
    """d, b and the number of clocks are in-chart sliders (point selections named after the registry
    keys, bound to range inputs): d over 2 … 2048 in steps of 2, b over the index of its options (a
    range moves in even steps), the clocks over 1 … 64; each starts at the value given."""
    _, spec, _, _ = build(d=16, base=500.0, n_clocks=4)
    params = {p["name"]: p for p in spec["params"]}
    for key, start, lo, hi, step in (
        ("d_model", 16, 2, 2048, 2),
        ("base", BASES.index(500), 0, len(BASES) - 1, 1),
        ("n_clocks", 4, 1, 64, 1),
    ):
        assert params[key]["select"] == {"type": "point", "fields": [key], "on": "none", "clear": False}
        assert params[key]["value"] == start
        bind = params[key]["bind"]
        assert (bind["input"], bind["min"], bind["max"], bind["step"]) == ("range", lo, hi, step)
    # the chart's spec depends on nothing but the starts: two settings, the same marks and data
    _, other, _, _ = build(d=64, base=10.0, n_clocks=9)
    strip = ("params", "description")
    assert {k: v for k, v in spec.items() if k not in strip} == {k: v for k, v in other.items() if k not in strip}


@settings(max_examples=200, deadline=None)
@given(half=st.integers(1, 1024), base=st.sampled_from(BASES), j=st.integers(0, 1023))
def test_theta_in_the_chart_is_posencs_bit_for_bit(half, base, j):
    """θ_j = b^(−2j/d) as the chart's expression computes it (same float64 operations) equals
    posenc.inverse_frequencies exactly (in the browser: tests/test_e2e_clocks_live.py)."""
    d, j = 2 * half, min(j, half - 1)
    ex = charts.clock_expressions(BASES)
    got = vega_eval(ex["theta"], selections={"d_model": d, "base": BASES.index(base)}, j=j)
    assert got == float(posenc.inverse_frequencies(d, base=float(base))[j])


def test_the_charts_pairs_and_grid_are_spread_pairs_and_grid_shape_at_every_setting():
    """Which pairs get a clock (np.linspace rounded half to even, as `posenc.spread_pairs`) and the grid's
    columns (`grid_shape`), as the chart computes them, at every number of clocks and many d; the dial
    radius fits the columns into the panel."""
    for half in [*range(1, 130), *range(130, 1025, 17)]:
        for n in range(1, 65):
            got = shown(2 * half, 10000, n)
            assert got["pairs"] == posenc.spread_pairs(half, n).tolist(), (half, n)
            assert got["clocks"] == min(n, half)
            cols, _rows = charts.grid_shape(min(n, half))
            assert got["cols"] == cols
            assert (
                got["radius"] <= charts.MAX_RADIUS and cols * charts.SPACING * got["radius"] <= charts.MAX_WIDTH + 1e-9
            )
    assert shown(12, 10000, 3)["pairs"] == [0, 2, 5]  # linspace(0, 5, 3) = 0, 2.5, 5: 2.5 rounds to even


def test_clock_faces_hands_and_labels():
    _, spec, _, _ = build(d=16, base=10000.0, n_clocks=4, position=7)
    faces_panel, _odometer = spec["vconcat"]
    kinds = [mark_type(layer) for layer in faces_panel["layer"]]
    assert kinds == ["point", "point", "point", "point", "circle", "text", "text", "text"]
    dials, noon, hands, tips, _hubs, labels, readout, settings_readout = faces_panel["layer"]
    assert data(spec, hands)["i"].tolist() == list(range(64))  # one slot per clock the slider can ask for
    calc = calculate(hands)
    # the hand's angle p·θ_j in degrees, turned clockwise from 12 (a path pointing up, rotated)
    assert calc["angle"] == "pos * datum.theta" and calc["deg"] == "(datum.angle % (2 * PI)) * 180 / PI"
    assert hands["encoding"]["angle"] == {"field": "deg", "type": "quantitative", "scale": None}
    assert hands["mark"]["shape"] == f"M0,0L0,-{charts.HAND}" and tips["encoding"]["angle"]["field"] == "deg"
    assert calc["wavelength"] == "2 * PI / datum.theta"
    assert calc["sin_value"] == "sin(datum.angle)" and calc["cos_value"] == "cos(datum.angle)"
    assert calc["j"] == charts.clock_expressions(BASES)["pair"]
    assert calc["theta"] == charts.clock_expressions(BASES)["theta"]  # both tested above
    # every dial symbol spans its radius: a symbol of area (2r)² draws path units as r pixels
    for layer in (dials, noon, hands, tips):
        assert layer["mark"]["size"] == {"expr": f"pow(2 * {charts.RADIUS_SIGNAL}, 2)"}
    assert dials["mark"]["shape"] == "circle" and dials["mark"]["filled"] is False
    tooltip_titles = [t["title"] for t in hands["encoding"]["tooltip"]]
    assert "x = sin(p·θ_j)" in tooltip_titles and "y = cos(p·θ_j)" in tooltip_titles
    assert labels["encoding"]["text"]["field"] == "label" and labels["mark"]["fontSize"] >= 13
    assert "'position p = '" in calculate(readout)["text"]
    assert calculate(settings_readout)["text"].startswith("'b = ' + format(" + charts.clock_expressions(BASES)["b"])
    title = faces_panel["title"]
    assert "turns by θ_j per token" in title["text"]["expr"]
    assert any("x is dimension 2j, y dimension 2j + 1" in line for line in title["subtitle"])
    assert any("wavelength λ_j in tokens" in line for line in title["subtitle"])
    assert faces_panel["height"] == {"step": charts.ROW_PX}  # the panel grows with the rows in the browser


def test_many_clocks_are_drawn_large_within_a_laptop_column():
    """64 clocks: 8 per row, dials at least ~76 px across, the panel no wider than the main column of a
    1280-px screen with the sidebar open (≈ 790 px), neighbouring centres ≥ 85 px apart (room for the
    widest label, "λ = 54,410"); few clocks get the largest dials."""
    _, spec, _, _ = build(d=128, n_clocks=64)
    panel = spec["vconcat"][0]
    assert panel["width"] <= 770
    many = shown(128, 10000, 64)
    assert many["cols"] == 8 and 2 * many["radius"] >= 76 and charts.SPACING * many["radius"] >= 85
    assert shown(128, 10000, 4)["radius"] == charts.MAX_RADIUS
    assert charts.ROW_PX >= 2 * charts.MAX_RADIUS + charts.LABEL_PX  # a row holds the largest dial and its labels
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


def test_odometer_axis_spans_every_setting_and_its_labels_do_not_crowd():
    _, spec, _, _ = build(d=128, base=10000.0, n_clocks=64, position=5, p_max=8192)
    line = spec["vconcat"][1]["layer"][2]
    axis = line["encoding"]["y"]["axis"]
    lo, hi = line["encoding"]["y"]["scale"]["domain"]
    # from the slowest hand the sliders reach at p = 1 to the fastest (1 rad per token) at p = 8192
    assert lo <= SLOWEST / (2 * math.pi) < 10 * lo and hi / 10 < 8192 / (2 * math.pi) <= hi
    assert (lo, hi) == pytest.approx((1e-8, 1e4))
    assert axis["values"] == pytest.approx([1e-8, 1e-6, 1e-4, 1e-2, 1.0, 1e2, 1e4])  # ≥ 30 px apart
    assert axis["labelFlush"] is False  # end labels sit on their ticks, not pushed inwards
    # the y axis on the right: the concatenation aligns the plots' left edges, so the odometer
    # plus its axis stays within the clock panel's width instead of widening the chart by ~90 px
    assert axis["orient"] == "right"
    panel, odometer = spec["vconcat"]
    assert odometer["width"] + 80 <= panel["width"]
    assert line["encoding"]["x"]["axis"]["format"] == "d"  # pairs are whole numbers


def test_odometer_shows_total_turns_of_every_pair_on_a_log_axis():
    _, spec, _, _ = build(d=32, base=500.0, n_clocks=3, position=100)
    odometer = spec["vconcat"][1]
    rule, text, line, marks = odometer["layer"]
    assert [mark_type(x) for x in (rule, text, line, marks)] == ["rule", "text", "line", "circle"]
    assert line["encoding"]["y"]["scale"]["type"] == "log"
    odo = data(spec, line)
    assert odo["j"].tolist() == list(range(1024))  # a row per pair of the largest d; the browser keeps d/2
    ex = charts.clock_expressions(BASES)
    filters = [t["filter"] for t in line["transform"] if "filter" in t]
    assert filters[0] == f"datum.j < {ex['pairs']}"
    assert calculate(line)["theta"] == ex["theta"]
    assert calculate(line)["turns"] == "pos * datum.theta / (2 * PI)"
    assert data(spec, marks)["i"].tolist() == list(range(64))  # the clocks' own rows: red where a clock is
    assert data(spec, rule)["turns"].tolist() == [1.0]
    assert "Odometer" in odometer["title"]["text"]


def test_config_is_projector_legible():
    _, spec, _, _ = build()
    config = spec["config"]
    assert config["axis"]["labelFontSize"] >= 13 and config["title"]["fontSize"] >= 13
    assert config["title"]["subtitleFontSize"] >= 13


def test_bad_input_is_rejected():
    for kwargs, word in (
        (dict(position=9000), "position"),
        (dict(d=3), "d_model"),
        (dict(d=4096), "d_model"),
        (dict(base=777.0), "base"),
        (dict(n_clocks=0), "n_clocks"),
        (dict(n_clocks=65), "n_clocks"),
    ):
        with pytest.raises(ValueError, match=word):
            build(**kwargs)


def test_the_chart_describes_its_starting_settings():
    _, spec, _, _ = build(d=16, base=10000.0, n_clocks=4, position=7)
    text = spec["description"]
    assert text.startswith("Clock hands, starting at position p = 7, head size d = 16, base b = 10000 and 4 clocks")
    assert "θ_j = b^(−2j/d)" in text and "odometer" in text


def test_a_phones_panel_is_narrow_with_at_most_three_clocks_a_row():
    """On a phone (explorer.mode.on_a_phone) the panel is PHONE_WIDTH wide and its grid has at most
    PHONE_COLS columns (grid_shape with that cap), so the browser shows it near its own size."""
    ex = charts.clock_expressions(BASES, width=charts.PHONE_WIDTH, max_cols=charts.PHONE_COLS)
    for n in range(1, 65):
        sel = {"d_model": 128, "base": BASES.index(10000.0), "n_clocks": n}
        cols = vega_eval(ex["cols"], selections=sel)
        assert cols == charts.grid_shape(n, max_cols=charts.PHONE_COLS)[0] <= charts.PHONE_COLS
        radius = vega_eval(ex["radius"], selections=sel, signals={charts.COLS_SIGNAL: cols})
        assert cols * charts.SPACING * radius <= charts.PHONE_WIDTH + 1e-9
    chart = charts.clock_chart(
        position=5,
        d_model=128,
        base=10000.0,
        n_clocks=8,
        p_max=8192,
        base_options=BASES,
        slowest_theta=1e-6,
        phone=True,
    )
    spec = chart.to_dict()
    assert spec["vconcat"][0]["width"] == charts.PHONE_WIDTH
    assert spec["vconcat"][1]["width"] < charts.PHONE_WIDTH
