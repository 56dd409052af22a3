"""explorer.liveparam / explorer.charts.live: a position that lives in a chart (issue #23).

The browser's report (Streamlit's selection state) becomes the parameter's value in the session and
the URL; what the chart starts at never rebuilds it because of its own drag, and a value set by
anything else gives a fresh chart."""

from __future__ import annotations

import re

import pytest
from _apptest import run_page
from streamlit.testing.v1 import AppTest

from explorer import assets, liveparam, manifest  # noqa: F401  (manifest registers the pages' parameters)
from explorer.charts import live
from explorer.liveparam import View, from_selection, plan, ranges_html


def test_the_in_chart_slider_is_a_point_selection_bound_to_a_range_input():
    spec = live.position("m", start=7, lo=0, hi=100, label="m ").param.to_dict()
    assert spec["name"] == "m" and spec["select"]["type"] == "point" and spec["select"]["fields"] == ["m"]
    assert spec["select"]["on"] == "none" and spec["select"]["clear"] is False  # only the slider sets it
    assert spec["value"] == 7 and spec["bind"]["input"] == "range"
    assert (spec["bind"]["min"], spec["bind"]["max"], spec["bind"]["step"]) == (0, 100, 1)
    assert live.value("m") == "m.m"
    with pytest.raises(ValueError, match="outside"):
        live.position("m", start=101, lo=0, hi=100, label="m ")


def test_chart_text_in_pythons_scientific_format():
    """live.sci pads the exponent Vega's format writes with one digit (JavaScript's toExponential:
    1.23e-5, 1.23e+0) to Python's two; the pattern, applied here with Python's re (the same syntax
    for this pattern), leaves a two- or three-digit exponent alone. The browser test of the invariance
    chart compares its text with the page's Python-formatted numbers."""
    expr = live.sci("datum.x", 2)
    assert expr == "replace(format(datum.x, '.2e'), regexp('[+-](?=[0-9]$)'), '$&0')"
    pattern = expr.split("regexp('")[1].split("')")[0]
    for js, python in (
        ("1.23e-5", "1.23e-05"),
        ("1.23e+0", "1.23e+00"),
        ("9.99e-15", "9.99e-15"),
        ("1.00e-300", "1.00e-300"),
    ):
        assert re.sub(pattern, r"\g<0>0", js) == python
    with pytest.raises(ValueError, match="digits"):
        live.sci("x", -1)


def test_a_slider_that_a_click_on_a_mark_sets_too():
    on = {"type": "click", "filter": ["event.item && isValid(event.item.datum.m)"]}
    spec = live.position("m", start=7, lo=0, hi=100, label="m ", on=on).param.to_dict()
    assert spec["select"]["on"] == on and spec["select"]["fields"] == ["m"] and spec["bind"]["input"] == "range"
    assert spec["select"]["toggle"] is False and spec["select"]["clear"] is False  # always exactly one value


def test_the_browsers_report_is_validated_by_the_registry():
    assert from_selection({"m": [{"m": 40}], "n": {}}, ("m", "n")) == {"m": 40}
    assert from_selection({"m": [{"m": 40.0}], "n": [{"n": 3}]}, ("m", "n")) == {"m": 40, "n": 3}
    for bad in (
        {"m": [{"m": 9000}]},
        {"m": [{"m": "4"}]},
        {"m": [{"m": True}]},
        {"m": [{"m": 2.5}]},
        {"m": []},
        {"m": 4},
        {"m": [{"m": 40}, {"m": 41}]},  # two values: which one?
        {"m": [40, 40]},
    ):
        assert from_selection(bad, ("m",)) == {}, bad
    assert from_selection({"x": [{"x": 1}]}, ("m",)) == {}
    # a faceted chart (Compare methods' score panels) stores the same tuple once per panel
    assert from_selection({"m": [{"m": 40}] * 5}, ("m",)) == {"m": 40}


def test_plan_keeps_the_chart_while_its_own_drag_moves_the_value():
    first = plan(None, {"m": 5, "n": 12}, "ctx")
    assert first.gen == 0 and dict(first.starts) == {"m": 5, "n": 12}
    # the chart reported m = 40 (report() records it as shown): the spec keeps its start, same element
    dragged = View(first.gen, first.starts, (("m", 40), ("n", 12)), "ctx")
    again = plan(dragged, {"m": 40, "n": 12}, "ctx")
    assert again == dragged and dict(again.starts) == {"m": 5, "n": 12}
    # something else in the spec changed: it is rebuilt anyway, starting where the browser is
    rebuilt = plan(again, {"m": 40, "n": 12}, "other")
    assert rebuilt.gen == 0 and dict(rebuilt.starts) == {"m": 40, "n": 12}
    # a value from elsewhere (a link, a tour step): a new element at the new values
    fresh = plan(rebuilt, {"m": 3, "n": 12}, "other")
    assert fresh.gen == 1 and dict(fresh.starts) == dict(fresh.shown) == {"m": 3, "n": 12}


def _script():
    import altair as alt
    import pandas as pd
    import streamlit as st

    from explorer import liveparam
    from explorer.charts import live

    if "fake_report" in st.session_state:  # what the on_select callback does before the rerun
        liveparam.report("t_live", ("m", "n"), st.session_state.pop("fake_report"))
    chart = liveparam.LiveChart("t_live", ("m", "n"))
    starts = chart.starts(("ctx",))
    st.write(f"values {chart.values['m']} {chart.values['n']}")
    st.write(f"starts {starts['m']} {starts['n']} key {chart.element_key}")
    if st.session_state.get("drawn", True):  # the chart on the page (False: its tab is closed)
        sliders = [live.position(key, start=value, lo=0, hi=8192, label=key) for key, value in starts.items()]
        chart.show(alt.Chart(pd.DataFrame({"x": [0]})).mark_point().encode(x="x:Q").add_params(*sliders))


def shown(at) -> list[str]:
    return [md.value for md in at.markdown]


def test_a_report_reaches_the_session_and_the_url_and_keeps_the_chart():
    at = AppTest.from_function(_script)
    at.query_params["m"] = "7"
    run_page("", at)
    assert shown(at) == ["values 7 12", "starts 7 12 key t_live_0"]
    at.session_state["fake_report"] = {"m": [{"m": 40}], "n": {}}
    run_page("", at)
    assert shown(at) == ["values 40 12", "starts 7 12 key t_live_0"]  # same spec, same element
    assert at.query_params["m"] == "40" and "n" not in at.query_params
    at.session_state["fake_report"] = {"m": [{"m": 5}], "n": [{"n": 12}]}  # back to both defaults
    run_page("", at)
    assert shown(at) == ["values 5 12", "starts 7 12 key t_live_0"]
    assert "m" not in at.query_params  # a default leaves the link, as a widget's does
    at.session_state["m"] = 100  # set by something else (a tour step): a fresh chart there
    run_page("", at)
    assert shown(at) == ["values 100 12", "starts 100 12 key t_live_1"]
    assert at.query_params["m"] == "100"


def test_a_chart_that_left_the_page_comes_back_where_the_value_is():
    """A drag moved m in the browser (the spec kept its start); the chart's tab closed (a finished run
    without it: Streamlit dropped its element); when it is drawn again the browser builds it from its
    spec, so the spec starts at the value now, on a new element."""
    at = AppTest.from_function(_script)
    run_page("", at)
    at.session_state["fake_report"] = {"m": [{"m": 40}], "n": {}}
    run_page("", at)
    assert shown(at) == ["values 40 12", "starts 5 12 key t_live_0"]  # kept while on the page
    at.session_state["drawn"] = False
    run_page("", at)
    at.session_state["drawn"] = True
    run_page("", at)
    assert shown(at) == ["values 40 12", "starts 40 12 key t_live_1"]
    run_page("", at)  # on the page again: kept
    assert shown(at) == ["values 40 12", "starts 40 12 key t_live_1"]


def _script_with_a_range():
    import altair as alt
    import pandas as pd
    import streamlit as st

    from explorer import liveparam
    from explorer.charts import live

    if "fake_report" in st.session_state:
        liveparam.report("t_live", ("m",), st.session_state.pop("fake_report"), {"m": {"max": 30}})
    chart = liveparam.LiveChart("t_live", ("m",), limits={"m": {"max": 30}})
    starts = chart.starts(("ctx",))
    st.write(f"values {chart.values['m']} starts {starts['m']}")
    slider = live.position("m", start=starts["m"], lo=0, hi=30, label="m")
    chart.show(alt.Chart(pd.DataFrame({"x": [0]})).mark_point().encode(x="x:Q").add_params(slider))


def test_the_pages_range_clamps_the_link_and_the_report():
    """A page's own range for the parameter (the vision page's query: the grid) holds for a link's
    value and for a report alike (the browser's report is untrusted input)."""
    at = AppTest.from_function(_script_with_a_range)
    at.query_params["m"] = "50"
    run_page("", at)
    assert shown(at) == ["values 30 starts 30"] and at.query_params["m"] == "30"
    at.session_state["fake_report"] = {"m": [{"m": 40}]}  # valid for the registry (0 … 8192), not here
    run_page("", at)
    assert shown(at)[0].startswith("values 30") and at.query_params["m"] == "30"
    at.session_state["fake_report"] = {"m": [{"m": 12}]}
    run_page("", at)
    assert shown(at) == ["values 12 starts 30"] and at.query_params["m"] == "12"


def test_a_bad_url_value_falls_back_with_a_notice():
    at = AppTest.from_function(_script)
    at.query_params["m"] = "<b>x</b>"
    at.query_params["n"] = "99999"
    run_page("", at)
    assert "values 5 12" in shown(at) and "starts 5 12 key t_live_0" in shown(at)
    assert "m" not in at.query_params and "n" not in at.query_params


def test_the_pages_range_travels_beside_the_chart_for_the_browser_to_apply():
    """`ranges_html`: a hidden span naming the chart's element and, per parameter, the range input
    (Vega's signal name, `live.input_signal`) with the page's bounds, which explorer.assets'
    LIVE_RANGES_JS sets on that input; the page's CSS takes its row out of the layout."""
    html = ranges_html("sin_zoom_live_3", {"zoom_p0": {"max": 299}, "zoom_d0": {"min": 0, "max": 63.0}})
    assert html == (
        '<span hidden data-posenc-ranges="sin_zoom_live_3" data-max-zoom_p0_zoom_p0="299" '
        'data-min-zoom_d0_zoom_d0="0" data-max-zoom_d0_zoom_d0="63"></span>'
    )
    assert live.input_signal("zoom_p0") == "zoom_p0_zoom_p0"
    attribute = assets.LIVE_RANGES_ATTRIBUTE
    assert html.startswith(f'<span hidden {attribute}="') and f"'{attribute}'" in assets.LIVE_RANGES_JS
    assert "input[type=range][name=" in assets.LIVE_RANGES_JS
    assert f"span[{attribute}]:only-child) {{ display: none; }}" in assets.BASE_CSS
    with pytest.raises(ValueError, match="element_key"):
        ranges_html('x" onclick="alert(1)', {"zoom_p0": {"max": 1}})
    for bad in (float("nan"), "299", True, 12.5, None):
        with pytest.raises(ValueError, match="zoom_p0's max must be a whole number"):
            ranges_html("sin_zoom_live_0", {"zoom_p0": {"max": bad}})
    with pytest.raises(ValueError, match="'not_a_param' is not a registered parameter"):
        ranges_html("sin_zoom_live_0", {"not_a_param": {"max": 1}})
    # a slider over stops (the target length's: 16, 24, 32, 48, 64, …) runs over their indices: the page's
    # T > 40 and T ≤ 64 are the stops 48 (index 3) … 64 (index 4); a range with no stop in it is refused
    assert 'data-min-target_len_target_len="3" data-max-target_len_target_len="4"' in ranges_html(
        "cmp_live_0", {"target_len": {"min": 41, "max": 64, "default": 512}}
    )
    with pytest.raises(ValueError, match="no value of target_len's slider"):
        ranges_html("cmp_live_0", {"target_len": {"min": 2**25}})


def test_a_parameter_with_options_is_reported_as_its_options_index():
    """The base's in-chart slider runs over the index of its options (explorer.charts.clocks): the
    report maps the index back to the option; an index past the options, a fraction or text is ignored."""
    options = liveparam.widgets.get("base").options
    assert liveparam.from_selection({"base": [{"base": 2}]}, ["base"]) == {"base": options[2]}
    assert liveparam.from_selection({"base": [{"base": 0}]}, ["base"]) == {"base": options[0]}
    for bad in (len(options), -1, 1.5, "3", True, float("nan")):
        assert liveparam.from_selection({"base": [{"base": bad}]}, ["base"]) == {}


def test_a_parameter_with_stops_is_reported_as_its_stops_index():
    """The target length's in-chart slider (Context extension) runs over the index of its stops (16 … 2^24:
    powers of two and their halfway points, typed here): the report maps the index back to T."""
    stops = [16, 24, 32, 48, 64, 96, 128]
    assert list(liveparam.widgets.get("target_len").stops[:7]) == stops
    assert liveparam.from_selection({"target_len": [{"target_len": 4}]}, ["target_len"]) == {"target_len": 64}
    last = len(liveparam.widgets.get("target_len").stops) - 1
    assert liveparam.from_selection({"target_len": [{"target_len": last}]}, ["target_len"]) == {"target_len": 2**24}
    for bad in (last + 1, -1, 2.5, "3", True):
        assert liveparam.from_selection({"target_len": [{"target_len": bad}]}, ["target_len"]) == {}


@pytest.mark.parametrize(
    "stops, word",
    [((16,), "two or more"), ((32, 16), "ascending"), ((16, 16), "ascending"), ((16, 24.5), "whole numbers")],
)
def test_stops_are_checked_when_declared(stops, word):
    from explorer.paramspec import Param

    with pytest.raises(ValueError, match=word):
        Param("t", "T", "number", 16, min=16, max=2**24, stops=stops)
    with pytest.raises(ValueError, match="for numbers"):
        Param("c", "C", "select", "a", options=("a", "b"), stops=(1, 2))


def test_a_slider_over_option_indices_is_labelled_with_its_options():
    """The base's in-chart slider (clocks, RoPE) runs over option indices; the page's constant script
    writes the option beside it, from the registry's own options (in Chromium: tests/test_e2e_rope_base.py)."""
    import json as _json

    from explorer import assets
    from explorer.widgets import PARAMS

    options = PARAMS["base"].options
    assert assets.OPTION_LABELS["base_base"] == [f"{b:,}" for b in options]
    assert assets.OPTION_LABELS["target_len_target_len"][:3] == ["16", "24", "32"]
    assert assets.OPTION_LABELS["target_len_target_len"][-1] == "16,777,216"
    # every parameter declared with stops has its labels there, one per stop (a new one cannot be forgotten)
    from explorer.charts.live import input_signal

    stopped = [p for p in PARAMS.values() if p.stops is not None]
    assert {p.key for p in stopped} >= {"target_len", "ntk_alpha"}
    for p in stopped:
        assert len(assets.OPTION_LABELS[input_signal(p.key)]) == len(p.stops), p.key
    assert _json.dumps(assets.OPTION_LABELS) in assets.LIVE_RANGES_JS


def test_slider_ranges_are_in_the_sliders_own_units():
    """Numbers for a numeric slider; indices for a slider over a parameter's options (the base b): the first and last
    options inside the range; a bad end is refused by name."""
    from explorer.liveparam import slider_ranges
    from explorer.vocabulary import BASE_OPTIONS

    got = slider_ranges({"seq_len": {"min": 3, "max": 120, "default": 64}, "base": {"min": 1000, "max": 100000}})
    inside = [i for i, b in enumerate(BASE_OPTIONS) if 1000 <= b <= 100000]
    assert got == {"seq_len": {"min": 3, "max": 120}, "base": {"min": inside[0], "max": inside[-1]}}
    with pytest.raises(ValueError, match="seq_len's max must be a whole number"):
        slider_ranges({"seq_len": {"max": 2.5}})
