"""AppTest of pages/2_Clock_hands.py: defaults, every control at its minimum and at its maximum,
garbage in every URL parameter, a widget change; after every run no exception, and the chart's
parameters / data and the table are checked against numbers computed here. One browser test
(Playwright, skipped without Chromium) checks that "play" animates with no server round trip."""

from __future__ import annotations

import math
from pathlib import Path

import pyarrow as pa
import pytest
from _apptest import run_page
from _chartspec import proto_spec
from _vegaexpr import vega_eval
from e2e_support import APP_IDLE, StreamlitServer, launch_chromium, require_browser
from streamlit.testing.v1 import AppTest

from explorer.widgets import PARAMS

ROOT = Path(__file__).resolve().parent.parent
PAGE = str(ROOT / "pages" / "2_Clock_hands.py")
KEYS = ("d_model", "base", "n_clocks", "m")


def run(query: dict | None = None) -> AppTest:
    return run_page(PAGE, timeout=120, **(query or {}))


def clock_spec(at: AppTest) -> tuple[dict, dict]:
    """(spec, datasets) of the page's only chart."""
    (element,) = at.get("vega_lite_chart")
    spec = proto_spec(element.proto)
    data = {d.name: pa.ipc.open_stream(d.data.data).read_all().to_pandas() for d in element.proto.datasets}
    return spec, data


def faces(spec: dict, data: dict):
    hands = spec["vconcat"][0]["layer"][2]
    return hands, data[hands["data"]["name"]]


def check_page(
    at: AppTest, *, d: int, base: float, n_clocks: int, p: int, built: dict | None = None, held: dict | None = None
) -> None:
    """The page at (d, base, n_clocks, p). A chart built before a drag of its own sliders keeps its
    spec (explorer.liveparam): it starts at `built`, and its sliders hold `held`, where the drag left
    them; by default the chart starts at the page's values."""
    assert not at.exception
    spec, data = clock_spec(at)
    params = {q["name"]: q for q in spec["params"]}
    assert params["pos"]["value"] == float(p)
    assert params["pos"]["on"][0]["events"]["type"] == "timer"
    # the position slider is the URL's p: a point selection named m, bound to a range over 0 … 8192,
    # starting at p; the hands' pos follows it
    assert params["m"]["value"] == p and params["m"]["select"]["fields"] == ["m"]
    assert params["m"]["bind"]["input"] == "range" and params["m"]["bind"]["max"] == 8192
    assert {"events": {"signal": "m_m"}, "update": "isValid(m_m) ? m_m : pos"} in params["pos"]["on"]
    assert "bind" not in params["pos"]
    assert params["playing"]["bind"]["input"] == "checkbox"
    # d, b and the clocks are the chart's own sliders too, starting at the page's values (b: its option's index)
    options = PARAMS["base"].options
    starts = {"d_model": d, "base": options.index(base), "n_clocks": n_clocks}
    for key, start in (built or starts).items():
        assert params[key]["value"] == start and params[key]["bind"]["input"] == "range"
    starts = {**starts, **(held or {})}
    # what the browser computes from them (the chart's own expressions, read from the spec): the table's
    # pairs and posenc's θ_j, bit for bit
    hands, slots = faces(spec, data)
    calc = {t["as"]: t["calculate"] for t in hands["transform"] if "calculate" in t}
    (keep,) = [t["filter"] for t in hands["transform"] if "filter" in t]
    shown = [i for i in slots["i"] if vega_eval(keep.replace("datum.i < ", ""), selections=starts) > i]
    pairs = [vega_eval(calc["j"], selections=starts, i=i) for i in shown]
    thetas = [vega_eval(calc["theta"], selections=starts, j=j) for j in pairs]
    assert len(pairs) == n_clocks
    assert pairs[0] == 0 and pairs[-1] == (d // 2 - 1 if n_clocks > 1 else 0)
    table = at.dataframe[0].value
    assert table["pair j"].tolist() == pairs
    assert table["θ_j (rad/token)"].tolist() == thetas
    for j, theta in zip(pairs, thetas):
        assert theta == pytest.approx(base ** (-2.0 * j / d), rel=1e-14)
    odometer = spec["vconcat"][1]
    odo = data[odometer["layer"][2]["data"]["name"]]
    assert len(odo) == 1024  # every pair the largest d has: the browser keeps d/2
    for _, row in table.iterrows():
        angle = p * base ** (-2.0 * row["pair j"] / d)
        assert row["angle p·θ_j (rad)"] == pytest.approx(angle, rel=1e-12, abs=1e-300)
        assert row["sin = x"] == pytest.approx(math.sin(angle), abs=1e-12)
        assert row["cos = y"] == pytest.approx(math.cos(angle), abs=1e-12)
        assert row["λ_j (tokens)"] == pytest.approx(2 * math.pi / base ** (-2.0 * row["pair j"] / d))
        assert row["turns"] == pytest.approx(angle / (2 * math.pi), rel=1e-12, abs=1e-300)
    assert at.subheader[0].value == f"The numbers at p = {p}"


def test_defaults():
    at = run()
    assert at.title[0].value == "Frequency clock hands"
    assert len(at.latex) >= 1
    check_page(at, d=128, base=10000.0, n_clocks=8, p=5)
    assert any("How the animation works" in e.label for e in at.expander)
    assert any("What to notice" in m.value for m in at.main.markdown)


@pytest.mark.parametrize("phone", [False, True])
def test_the_numbers_table_keeps_the_pair_in_view_and_says_it_scrolls_on_a_phone(monkeypatch, phone):
    """Eight columns are wider than a phone: the pair column is pinned (it stays while the rest scrolls sideways) and,
    on a phone only, the caption says the table scrolls."""
    import json

    from explorer import mode

    monkeypatch.setattr(mode, "on_a_phone", lambda: phone)
    at = run()
    assert not at.exception
    table = at.dataframe[0]
    assert table.value.columns[0] == "pair j" and len(table.value.columns) == 8
    assert json.loads(table.proto.columns)["pair j"].get("pinned") is True
    said = [c.value for c in at.caption if "pairs with a clock" in c.value]
    assert len(said) == 1 and ("Swipe the table sideways" in said[0]) is phone


def test_every_control_at_its_minimum():
    at = run({"d_model": "2", "base": "10", "n_clocks": "1", "m": "0"})
    check_page(at, d=2, base=10.0, n_clocks=1, p=0)
    table = at.dataframe[0].value
    assert table.loc[0, "sin = x"] == 0.0 and table.loc[0, "cos = y"] == 1.0


def test_every_control_at_its_maximum():
    at = run({"d_model": "2048", "base": "1000000", "n_clocks": "64", "m": "8192"})
    check_page(at, d=2048, base=1e6, n_clocks=64, p=8192)


def test_more_clocks_than_pairs_is_clamped_with_a_notice():
    at = run({"d_model": "4", "n_clocks": "64"})
    assert any("n\\_clocks" in w.value for w in at.warning)
    check_page(at, d=4, base=10000.0, n_clocks=2, p=5)


def test_garbage_in_every_url_parameter():
    at = run({key: "abc" for key in KEYS})
    warnings = " ".join(w.value for w in at.warning)
    for key in KEYS:
        assert key.replace("_", "\\_") in warnings
    check_page(at, d=128, base=10000.0, n_clocks=8, p=5)  # the defaults


def _page_after_a_report():
    """The page as Streamlit runs it after the chart reported its sliders: the chart's on_select
    callback (explorer.liveparam.report, with the page's limits) first, then the page."""
    import runpy

    import streamlit as st

    from explorer import liveparam
    from explorer.charts import clocks as clock_charts

    report = st.session_state.pop("test_report", None)
    if report is not None:
        got = liveparam.from_selection(report, clock_charts.LIVE_PARAMS)
        values = {k: v for k, v in st.session_state.items() if k in clock_charts.LIVE_PARAMS}
        liveparam.report("clocks_live", clock_charts.LIVE_PARAMS, report, clock_charts.live_limits({**values, **got}))
    runpy.run_path(st.session_state["test_page"], run_name="__main__")


def test_a_drag_of_d_b_and_the_clocks_reaches_the_page_once_it_ends():
    """The chart reports d = 16, the base slider at index 2 (b = 500: the slider runs over the options'
    indices) and 40 clocks: the link, the table and the sentences follow; 40 clocks of d/2 = 8 pairs are
    clamped to 8 (the chart itself reads them as at most d/2)."""
    at = AppTest.from_function(_page_after_a_report, default_timeout=120)
    at.session_state["test_page"] = PAGE
    at.run()
    check_page(at, d=128, base=10000.0, n_clocks=8, p=5)
    at.session_state["test_report"] = {
        "d_model": [{"d_model": 16}],
        "base": [{"base": PARAMS["base"].options.index(500)}],
        "n_clocks": [{"n_clocks": 40}],
    }
    at.run()
    link = {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    assert (link["d_model"], link["base"]) == ("16", "500") and "n_clocks" not in link  # 8: the default
    # the chart the hand is on keeps its spec (its starts); its sliders hold what was reported
    before = {"d_model": 128, "base": PARAMS["base"].options.index(10000), "n_clocks": 8}
    drag = {"d_model": 16, "base": PARAMS["base"].options.index(500), "n_clocks": 40}
    check_page(at, d=16, base=500.0, n_clocks=8, p=5, built=before, held=drag)
    text = notices(at)
    last = 500.0 ** (-14 / 16)  # the last hand's θ at d = 16, b = 500, computed here
    assert f"{2 * math.pi / last:,.0f} tokens for one turn" in text  # 1,436
    # a report the chart cannot make (an index past the options, a fraction) changes nothing
    at.session_state["test_report"] = {"base": [{"base": 12}], "d_model": [{"d_model": 17}]}
    at.run()
    check_page(at, d=16, base=500.0, n_clocks=8, p=5, built=before, held=drag)


def test_changing_widgets_reruns_with_the_new_values():
    at = run()
    assert not at.exception
    assert not at.slider  # no Streamlit slider: p, d, b and the clocks are the chart's own
    at.session_state["n_clocks"] = 3  # set by something else than the chart (a tour step): the chart starts there
    at.session_state["m"] = 1000
    at.run()
    check_page(at, d=128, base=10000.0, n_clocks=3, p=1000)


# ------------------------------------------------------------------------------- in a browser
@pytest.fixture(scope="module")
def server():
    require_browser()
    with StreamlitServer() as srv:
        yield srv


def test_play_animates_in_the_browser_without_the_server(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1600})
            sent = []
            page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
            page.goto(server.url("pages/2_Clock_hands.py", {"m": 20}))
            page.wait_for_selector(APP_IDLE, timeout=90_000)
            slider = page.locator('.st-key-clock_chart .vega-bindings input[name="m_m"]').first
            slider.wait_for(timeout=60_000)
            assert slider.input_value() == "20"  # the URL position is where the hands start
            before = len(sent)
            page.locator(".vega-bindings select").first.select_option("64")
            page.locator(".vega-bindings input[type=checkbox]").first.check()
            for _ in range(200):  # poll: the value must move on by itself
                if float(slider.input_value()) > 21:
                    break
                page.wait_for_timeout(100)
            assert float(slider.input_value()) > 21  # the one slider follows the hands
            assert len(sent) == before  # no message to the server while playing
            page.locator(".vega-bindings input[type=checkbox]").first.uncheck()
            # stopped: the whole position goes to the server once (the link follows; tests/test_e2e_drag.py)
            page.wait_for_function("() => new URLSearchParams(location.search).get('m') !== '20'", timeout=15_000)
        finally:
            browser.close()


# ------------------------------------------------------------- sentences true at every setting
def notices(at: AppTest) -> str:
    (text,) = [m.value for m in at.main.markdown if m.value.startswith("**What to notice**")]
    return text


def test_sentences_follow_a_small_base_and_d():
    """b = 10, d = 8: the last hand turns 10.2° per token (not "barely"), 232 turns by p = 8192."""
    at = run({"d_model": "8", "base": "10", "n_clocks": "2", "m": "0"})
    theta_last = 10.0 ** (-6 / 8)  # b^(−(d−2)/d), computed here
    text = notices(at)
    assert f"{2 * math.pi / theta_last:.3g} tokens for one turn" in text  # 35.3
    assert f"({math.degrees(theta_last):.3g}° per token)" in text  # 10.2°
    assert f"it makes {8192 * theta_last / (2 * math.pi):.3g} turns" in text  # 232
    assert "a larger base b slows it down" in text
    assert "creep" not in text and "barely" not in text
    spec, _ = clock_spec(at)
    faces_title, odometer_title = (panel["title"]["text"] for panel in spec["vconcat"])
    assert "barely" not in odometer_title and "wrapped many times" not in odometer_title
    # the clock panel's title is computed in the browser from the sliders (read there:
    # tests/test_e2e_clocks_live.py)
    assert "'One clock for each of ' + " in faces_title["expr"]


def test_sentences_with_a_single_pair():
    """d = 2: one hand, θ = 1 whatever b is; no sentence may speak of slower hands or of b slowing them."""
    at = run({"d_model": "2", "base": "1000000", "n_clocks": "1", "m": "44"})
    text = notices(at)
    assert "slower hands tell" not in text and "slows" not in text
    assert "With d = 2 it is the only hand" in text
    assert f"differ on it by only {math.degrees(abs(44 - 14 * math.pi)):.1f}°" in text  # 1.0°
    spec, _ = clock_spec(at)
    title = spec["vconcat"][0]["title"]["text"]["expr"]
    assert "'One clock per pair'" in title and "the hand of pair j turns by θ_j per token" in title
    assert "(a dot when d = 2)" in " ".join(spec["vconcat"][1]["title"]["subtitle"])
    assert any(c.value.startswith("The pair with a clock (of 1).") for c in at.caption)
