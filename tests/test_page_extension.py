"""The context-extension page through Streamlit's AppTest: defaults, every method, every tab
(?ext_view=…), every control at its minimum and maximum, garbage in every URL parameter, and the
numbers the page shows checked against independent values (REFERENCE.md's table and hand formulas).

Always drawn: the controls, the method summary (formula, metrics, rope block) and the angle-reach
chart (chart 0). The other charts sit in lazy tabs: only the open one is computed and drawn, so a
tab's charts are charts 1, 2 of a run with that tab open."""

import json
import math
from pathlib import Path

import _chartspec as cs
import numpy as np
import pandas as pd
import pytest
from _apptest import metrics, page_path, run_page
from _posenc_reference_impl import ref_inverse_frequencies, ref_yarn_correction_range
from streamlit.testing.v1 import AppTest

import posenc
from explorer import ropeblock, tour, widgets
from explorer.text import methods
from explorer.vocabulary import TARGET_STOPS

PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "5_Context_extension.py")
#: The tabs (?ext_view=…) and, per tab, a phrase from the spec of each chart it draws, in order.
TAB_CHARTS = {
    "Wavelengths": ("Wavelength per pair in tokens",),
    "Rescaling": ("frequency ratio θ′_j / θ_j", "angle step (rad per token"),
    "Attention": ("score per |q|²", "The model multiplies cos and sin by a", "Two ways to sharpen attention far out"),
    "Interpolation": ("token m is rotated as if it sat at m/s",),
    "Precision": ("phase error (log scale)",),
}
VIEWS = tuple(TAB_CHARTS)
REACH = "Largest rotation angle per pair"  # the always-visible chart
#: Every URL key the page reads (shared ones first, the tab last).
KEYS = (
    *("head_dim", "base", "train_len", "target_len", "rope_type"),
    *dict.fromkeys(name for names in ropeblock.METHOD_PARAMS.values() for name in names),  # each once, in order
    "ext_view",
)


def run(at=None, **query):
    return run_page(PAGE, at, **query)


def specs(at):
    """Every chart's spec with its Arrow datasets decoded (tests/_chartspec.py)."""
    return [cs.element_spec(chart) for chart in at.get("vega_lite_chart")]


def chart_data(at, index, layer=0):
    """The rows behind layer `layer` of chart `index`."""
    spec = specs(at)[index]
    return cs.frame(spec, cs.drawn(spec)[layer])


def layers_where(at, index, predicate):
    """Concatenated rows of the layers of chart `index` whose spec satisfies `predicate`."""
    spec = specs(at)[index]
    return pd.concat([cs.frame(spec, layer) for layer in cs.drawn(spec) if predicate(layer)], ignore_index=True)


def line_rows(at, index):
    return layers_where(at, index, lambda layer: layer["mark"]["type"] == "line")


def titles(at):
    return [spec["title"]["text"] for spec in specs(at)]


def main_readout(at, **sliders) -> str:
    """The main chart's read-out (its bold text lines), as the browser computes it with the in-chart sliders at
    `sliders` (name=value; the others where the chart starts them)."""
    spec = cs.element_spec(at.get("vega_lite_chart")[0])
    *_halo, layer = [lay for lay in cs.layers(spec) if any("aggregate" in t for t in lay.get("transform", []))]
    return cs.unit_rows(spec, layer, **sliders)["text"].item()


def method_heading(at) -> str:
    """The heading of the method's formula: the one after the main chart's."""
    headings = [h.value for h in at.subheader]
    return headings[headings.index("Which pairs leave the training range") + 1]


def assert_charts(at, view):
    """Exactly the angle-reach chart and the charts of tab `view`, in page order."""
    drawn = [json.dumps(spec, ensure_ascii=False) for spec in specs(at)]
    expected = (REACH,) + TAB_CHARTS[view]
    assert len(drawn) == len(expected), (view, titles(at))
    for spec, phrase in zip(drawn, expected):
        assert phrase in spec, (view, phrase)
    assert [t.label for t in at.tabs] == list(VIEWS)


def assert_page_complete(at, view="Wavelengths"):
    assert at.title[0].value == "Context extension"
    assert_charts(at, view)
    assert len(at.latex) >= 2
    assert any("What to notice" in md.value for md in at.markdown)
    assert len(at.metric) == 4


# --- defaults ----------------------------------------------------------------------------------
def test_defaults_draw_the_summary_the_angle_reach_and_the_first_tab_only():
    at = run()
    assert_page_complete(at, "Wavelengths")  # the other tabs are not computed until opened
    assert not at.error and not at.warning
    assert "ext_view" not in at.query_params  # the default tab stays out of the URL
    # yarn, d = 64, b = 1e4, L = 4096, T = 16384, s = 4
    af = 0.1 * math.log(4) + 1
    low, high = ref_yarn_correction_range(64, 10000.0, 4096)
    shown = metrics(at)
    assert shown["Attention factor a"] == f"{af:.4f}" == "1.1386"
    assert shown["Logit multiplier a²"] == f"{af * af:.4f}" == "1.2965"
    assert shown["Pairs out of distribution"] == "0 of 32"
    assert shown["YaRN ramp: pairs"] == f"{low} – {high}" == "10 – 23"
    assert at.radio(key="rope_type").value == "yarn"
    assert len(at.json) == 1  # the rope block
    assert not any("is rotated as position" in c.value for c in at.caption)  # the PI tab's caption
    # the wavelength chart: 2π/θ_j before and 2π/θ'_j after, for every pair
    rows = line_rows(at, 1)
    before = rows[rows.series.str.startswith("before")].sort_values("pair").value.to_numpy()
    np.testing.assert_allclose(before, [2 * math.pi / t for t in ref_inverse_frequencies(64)], rtol=1e-12)


def test_the_yarn_ramp_in_the_rescaling_tab():
    at = run(ext_view="Rescaling")
    assert_page_complete(at, "Rescaling")
    assert not at.warning
    # the ratio chart: θ'/θ for every pair against the hand-computed YaRN ramp
    low, high = ref_yarn_correction_range(64, 10000.0, 4096)
    ratio = chart_data(at, 1).sort_values("pair").value.to_numpy()
    ramp = np.clip((np.arange(32) - low) / (high - low), 0, 1)
    np.testing.assert_allclose(ratio, ramp / 4 + (1 - ramp), rtol=1e-12)
    assert titles(at)[2].startswith("The fastest pair still moves 1 rad per token")


def test_the_attention_tab():
    at = run(ext_view="Attention")
    assert_page_complete(at, "Attention")
    af = 0.1 * math.log(4) + 1
    # YaRN's keys are that chart's sliders: its title names them, its read-out says a and a² (the browser computes it)
    assert titles(at)[2] == "Drag mscale, mscale_all_dim or attention_factor: YaRN's attention factor a against s"
    *_halo, readout = [lay for lay in cs.layers(af_chart(at)) if cs.mark_type(lay) == "text"]
    said = cs.unit_rows(af_chart(at), readout)["text"].item().split("\n")[0]
    assert said == f"a = {af:.4g} at s = 4: logits × a² = {af * af:.4g}"
    score = line_rows(at, 1)
    assert set(score.curve) == {
        "original θ, r ≤ L (trained)",
        "original θ, r > L (never trained)",
        f"scaled θ′, × a² = {af * af:.4g}",
    }
    # r = 1 after scaling: a²·mean_j cos(θ'_j), θ'_j from the hand-computed YaRN ramp
    low, high = ref_yarn_correction_range(64, 10000.0, 4096)
    ramp = np.clip((np.arange(32) - low) / (high - low), 0, 1)
    scaled = np.array(ref_inverse_frequencies(64)) * (ramp / 4 + (1 - ramp))
    after = score[score.curve.str.startswith("scaled")].sort_values("x")
    assert after.x.iloc[0] == 1
    assert after.y.iloc[0] == pytest.approx(af * af * np.cos(scaled).mean(), rel=1e-9)
    assert metrics(at)["Attention factor a"] == "1.1386"  # the summary is drawn in every tab


def test_the_attention_tab_without_scaling_shows_what_yarn_would_do():
    at = run(rope_type="default", ext_view="Attention")
    assert_page_complete(at, "Attention")
    s = 16384 / 4096
    af = 0.1 * math.log(s) + 1
    assert titles(at)[2].startswith(f"YaRN with defaults: 0.1·ln s + 1: a = {af:.4g} at s = {s:g}")


def test_the_precision_tab():
    at = run(ext_view="Precision")
    assert_page_complete(at, "Precision")
    curves = set(line_rows(at, 1).curve)
    assert {"float32", "float16", "bfloat16"} <= curves
    stop = f"Positions stop at {ropeblock.FLOAT16_MAX_POSITION:,}"
    assert not any(stop in c.value for c in at.caption)  # T = 16,384 fits a float16
    at = run(ext_view="Precision", target_len=100000)
    assert_page_complete(at, "Precision")
    assert any(stop in c.value for c in at.caption)
    assert line_rows(at, 1).x.max() <= ropeblock.FLOAT16_MAX_POSITION


def test_every_tab_from_the_url():
    for view in VIEWS:
        at = run(ext_view=view)
        assert_page_complete(at, view)
        assert not at.warning and not at.error
        assert metrics(at)["Pairs out of distribution"] == "0 of 32"


def test_a_tab_set_in_the_session_opens_it():
    """What a tour step does: the value goes into st.session_state before the run."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["ext_view"] = "Attention"
    at = run(at)
    assert_page_complete(at, "Attention")


def test_switching_method_keeps_the_open_tab():
    at = run(ext_view="Interpolation")
    at.radio(key="rope_type").set_value("linear")
    at = run(at)
    assert_page_complete(at, "Interpolation")
    assert titles(at)[1].startswith("Position Interpolation, s = 4:")


def test_method_labels_are_shown():
    at = run()
    radio = at.radio(key="rope_type")
    # one line per option, no caption under it: the HF name and the method's human name ("yarn · YaRN")
    assert radio.options == [f"{m} · {methods.label(m)}" for m in posenc.ROPE_SCALING]
    assert "yarn · YaRN" in radio.options and radio.value == "yarn"
    assert not list(radio.proto.captions)


# --- every method ------------------------------------------------------------------------------
@pytest.mark.parametrize("method", list(posenc.ROPE_SCALING))
def test_every_method_selected_in_the_session(method):
    at = run()
    at.radio(key="rope_type").set_value(method)
    at = run(at)
    assert_page_complete(at)
    assert not at.error
    shown_keys = {w.key for w in at.number_input} | {w.key for w in at.toggle} | {w.key for w in at.selectbox}
    own = set(ropeblock.METHOD_PARAMS[method])
    others = set().union(*ropeblock.METHOD_PARAMS.values()) - own
    assert own <= shown_keys and not (others & shown_keys)
    assert method_heading(at) == methods.label(method)
    if method == "yarn":
        assert "YaRN ramp: pairs" in metrics(at)
    else:
        assert "YaRN ramp: pairs" not in metrics(at)


@pytest.mark.parametrize("method", list(posenc.ROPE_SCALING))
def test_every_method_from_the_url_in_every_tab(method):
    for view in VIEWS:
        at = run(rope_type=method, ext_view=view)
        assert at.radio(key="rope_type").value == method
        assert_page_complete(at, view)
        assert not at.error


def test_linear_ratio_is_exactly_one_over_factor():
    at = run(rope_type="linear", factor=8, ext_view="Rescaling")
    ratio = chart_data(at, 1).value.to_numpy()
    assert ratio.size == 32
    np.testing.assert_allclose(ratio, 1 / 8, rtol=1e-12)
    assert metrics(at)["Pairs out of distribution"].startswith("0 of")  # T = 4L < sL: all inside
    step = line_rows(at, 2)
    after = step[step.series.str.startswith("after")].sort_values("pair").value
    np.testing.assert_allclose(after, [t / 8 for t in ref_inverse_frequencies(64)], rtol=1e-12)


def test_llama31_values_show_29_6_29_bands():
    at = run(
        rope_type="llama3", head_dim=128, base=500000, train_len=8192, target_len=131072, factor=8, ext_view="Rescaling"
    )
    assert metrics(at)["Pairs kept / smoothed / divided"] == "29 / 6 / 29"
    bands = chart_data(at, 1, layer=1).category.str.split(" ").str[0].value_counts().to_dict()
    assert bands == {"kept": 29, "smoothed": 6, "divided": 29}
    assert titles(at)[1] == "Llama 3: 29 pairs kept, 6 smoothed, 29 divided by s = 8"


def test_extrapolation_counts_the_slow_pairs():
    at = run(rope_type="default")
    theta = ref_inverse_frequencies(64)
    n_slow = sum(2 * math.pi / t > 4096 for t in theta)  # never a full turn in 4096 tokens
    assert metrics(at)["Pairs out of distribution"] == f"{n_slow} of 32"
    assert main_readout(at) == f"L = 4,096 · T = 16,384\nd = 64 · b = 10,000\n{n_slow} of 32 pairs meet unseen angles"
    spec = cs.element_spec(at.get("vega_lite_chart")[0])
    (ring_layer,) = [lay for lay in cs.layers(spec) if lay["mark"].get("size") == 260]  # red rings
    rings = cs.unit_rows(spec, ring_layer)
    assert sorted(rings.pair) == [j for j, t in enumerate(theta) if 2 * math.pi / t > 4096]


def test_dynamic_at_the_trained_length_changes_nothing():
    at = run(rope_type="dynamic", target_len=4096, ext_view="Rescaling")
    ratio = chart_data(at, 1).value.to_numpy()
    np.testing.assert_array_equal(ratio, 1.0)


def test_yarn_reference_numbers():
    at = run(head_dim=128)
    shown = metrics(at)
    assert shown["YaRN ramp: pairs"] == "20 – 46"
    assert shown["Attention factor a"] == "1.1386" and shown["Logit multiplier a²"] == "1.2965"


def test_seed_position_interpolation_example():
    at = run(rope_type="linear", train_len=2048, target_len=4096, factor=2, ext_view="Interpolation")
    dots = chart_data(at, 1, layer=1)
    assert sorted(dots[dots.row == 0].x)[:4] == [0.0, 0.5, 1.0, 1.5]
    assert any("is rotated as position 2,047.5" in c.value for c in at.caption)


def test_yarn_beta_fast_below_beta_slow_is_computed_as_hf_does():
    # HF 5.23 only warns when beta_fast < beta_slow and computes a reversed ramp (low > high)
    at = run(beta_fast=1, beta_slow=2)
    assert not at.exception and not at.error
    assert_page_complete(at)
    assert method_heading(at) == methods.label("yarn")
    low, high = (float(x) for x in metrics(at)["YaRN ramp: pairs"].split(" – "))
    assert low > high


# --- the tour ----------------------------------------------------------------------------------
#: Per tour step on this page, the tab whose charts its narration talks about.
TOUR_TABS = {"default": "Wavelengths", "linear": "Rescaling", "yarn": "Attention", "llama3": "Rescaling"}


@pytest.mark.parametrize("number", [i for i, step in enumerate(tour.TOUR, start=1) if step.page.slug == "extension"])
def test_tour_steps_open_the_tab_their_narration_is_about(number):
    step = tour.get_step(number)
    at = AppTest.from_file(page_path("app.py"), default_timeout=120)
    at.query_params["step"] = str(number)
    at = run(at)
    assert at.title[0].value == "Context extension"
    rope_type = step.params["rope_type"]
    view = TOUR_TABS[rope_type]
    assert step.params.get("ext_view", "Wavelengths") == view
    assert_charts(at, view)
    if rope_type == "linear":  # "the fastest pairs now step four times slower"
        assert titles(at)[2].startswith("The fastest pair now moves 0.25 rad per token instead of 1")
    if rope_type == "yarn":  # "multiplies cos and sin by a small factor above 1"
        *_halo, readout = [lay for lay in cs.layers(af_chart(at)) if cs.mark_type(lay) == "text"]
        assert cs.unit_rows(af_chart(at), readout)["text"].item().startswith("a = 1.139 at s = 4")
    if rope_type == "llama3":  # "three bands of pairs — kept, smoothly blended, or divided by 8"
        assert titles(at)[1] == "Llama 3: 29 pairs kept, 6 smoothed, 29 divided by s = 8"
    if rope_type == "default":  # "its slow pairs now reach angles it never met in training"
        n_slow = sum(2 * math.pi / t > 4096 for t in ref_inverse_frequencies(128))
        assert (
            main_readout(at) == f"L = 4,096 · T = 16,384\nd = 128 · b = 10,000\n{n_slow} of 64 pairs meet unseen angles"
        )
        # "the red rings appear as soon as T passes 4,096": none at T = L, all the slow pairs at the next stop
        assert main_readout(at, target_len=TARGET_STOPS.index(4096)).endswith("no pair meets an unseen angle")
        assert TARGET_STOPS[TARGET_STOPS.index(4096) + 1] == 6144
        assert main_readout(at, target_len=TARGET_STOPS.index(6144)).endswith(
            f"{n_slow} of 64 pairs meet unseen angles"
        )


# --- min, max, garbage -------------------------------------------------------------------------
def _extreme(key, which):
    p = widgets.get(key)
    if p.kind in widgets.NUMERIC_KINDS:
        return p.to_url(p.min if which == "min" else p.max)
    if p.kind in widgets.OPTION_KINDS:
        return p.to_url(p.options[0] if which == "min" else p.options[-1])
    if p.kind == "toggle":
        return "false" if which == "min" else "true"
    raise AssertionError(key)


@pytest.mark.parametrize("which", ["min", "max"])
@pytest.mark.parametrize("method", list(posenc.ROPE_SCALING))
def test_every_control_at_its_extreme(method, which):
    query = {key: _extreme(key, which) for key in KEYS if key not in ("rope_type", "ext_view")}
    for view in VIEWS:  # every tab at these settings
        at = run(rope_type=method, ext_view=view, **query)
        assert_charts(at, view)
        assert not at.warning  # every extreme value is a valid link
        for chart in at.get("vega_lite_chart"):
            spec = cs.proto_spec(chart.proto)
            assert spec["title"]["text"]
        # the extremes that posenc rejects are reported, never raised
        for error in at.error:
            assert "not valid" in error.value


def test_minimum_head_dim_with_dynamic_reports_the_error():
    at = run(rope_type="dynamic", head_dim=2)
    assert len(at.error) == 1 and "dim must be > 2" in at.error[0].value.replace("\\", "")


SHARED_KEYS = ("head_dim", "base", "train_len", "target_len")


@pytest.mark.parametrize("garbage", ["abc", "-1", "1e999", "nan", "", "<b>x</b>"])
def test_garbage_in_every_url_parameter(garbage):
    at = run(**{key: garbage for key in KEYS})
    assert_page_complete(at, "Wavelengths")  # ext_view garbage: the first tab is open
    assert len(at.warning) == 1  # one notice listing the unusable values
    # the parameters read in this run (the default method's) are named; markup stays escaped
    for key in SHARED_KEYS + ("rope_type", "ext_view") + ropeblock.METHOD_PARAMS["yarn"]:
        assert widgets.escape_markdown(key) in at.warning[0].value
    assert "<b>" not in at.warning[0].value
    assert metrics(at)["Attention factor a"] == "1.1386"  # all defaults again
    assert "ext_view" not in at.query_params  # the bad value is removed from the URL


def test_garbage_in_every_other_parameter_with_each_tab_open():
    for view in VIEWS:
        at = run(ext_view=view, **{key: "abc" for key in KEYS if key != "ext_view"})
        assert_page_complete(at, view)
        assert len(at.warning) == 1 and "ext\\_view" not in at.warning[0].value
        assert metrics(at)["Attention factor a"] == "1.1386"


@pytest.mark.parametrize("method", list(posenc.ROPE_SCALING))
def test_garbage_in_a_methods_own_parameters(method):
    at = run(rope_type=method, **{key: "x1" for key in KEYS if key != "rope_type"})
    assert_page_complete(at)
    assert not at.error  # the defaults of every method make a valid block
    for key in SHARED_KEYS + ropeblock.METHOD_PARAMS[method] + ("ext_view",):
        assert widgets.escape_markdown(key) in at.warning[0].value


def test_switching_method_keeps_the_shared_controls():
    at = run(head_dim=128, train_len=8192, ext_view="Rescaling")
    at.radio(key="rope_type").set_value("linear")
    at = run(at)
    assert at.number_input(key="train_len").value == 8192
    assert at.slider(key="head_dim").value == 128
    assert_charts(at, "Rescaling")
    np.testing.assert_allclose(chart_data(at, 1).value, 0.25, rtol=1e-12)


def test_ntk_is_shown_as_the_config_block_hf_reads():
    """HF has no rope_type "ntk": the page shows the equivalent plain block with the larger base,
    and that block gives the same frequencies (checked with the formula b' = b·s^(d/(d−2)))."""

    at = AppTest.from_file(page_path("pages/5_Context_extension.py"), default_timeout=120)
    at.query_params["rope_type"] = "ntk"
    at.query_params["factor"] = "8"
    at.query_params["head_dim"] = "64"
    at.run()
    assert not at.exception
    assert any("has no rope_type **ntk**" in m.value for m in at.markdown)
    blocks = [json.loads(j.proto.body) for j in at.get("json")]
    hf = next(b for b in blocks if b.get("rope_type") == "default")
    assert hf["rope_theta"] == pytest.approx(10000.0 * 8 ** (64 / 62))
    theta_hf = 1.0 / hf["rope_theta"] ** (np.arange(0, 64, 2) / 64)
    ntk, _ = posenc.rope_inverse_frequencies({"rope_type": "ntk", "factor": 8.0}, 64, max_position_embeddings=4096)
    np.testing.assert_allclose(ntk, theta_hf, rtol=1e-12)


def test_proportional_rope_says_the_slowest_pair_stopped():
    # p-RoPE zeroes the frequencies of the last (1 − p)·d/2 pairs: the slowest pair no longer turns,
    # so "slowed down by × inf" would be nonsense
    at = run(rope_type="proportional", partial_rotary_factor="0.25")
    assert metrics(at)["Slowest pair slowed down by"] == "stopped"
    full = run(rope_type="proportional", partial_rotary_factor="1", factor="2")
    assert metrics(full)["Slowest pair slowed down by"] == "× 2"


# --- redrawn in place (issue #23) ---------------------------------------------------------------
def test_a_new_head_dim_leaves_every_chart_spec_as_it_was():
    """The counts in the titles and the pair axis's end travel in each chart's facts row
    (explorer.charts.style.facts_layer), so a new head dimension changes the charts' rows only:
    the browser swaps them in place instead of building the charts anew."""
    at = run(head_dim=64)
    before = [chart.proto.spec for chart in at.get("vega_lite_chart")]
    assert "of 32 wavelengths" in titles(at)[1]
    at.slider(key="head_dim").set_value(66).run()
    assert not at.exception
    after = [chart.proto.spec for chart in at.get("vega_lite_chart")]
    assert after[1:] == before[1:]
    # the main chart carries d as its own slider: set from the sidebar, it starts at the new d (explorer.liveparam)
    # and nothing else of its spec changes
    main_before, main_after = (json.loads(spec) for spec in (before[0], after[0]))
    d_before, d_after = (next(p for p in m["params"] if p["name"] == "head_dim") for m in (main_before, main_after))
    assert (d_before.pop("value"), d_after.pop("value")) == (64, 66) and main_after == main_before
    assert "of 33 wavelengths" in titles(at)[1]  # 66 / 2 pairs
    for spec in specs(at):
        assert cs.facts(spec)["last_pair"] == 32


# ------------------------------------------------------------- the factor in the chart (issue #36)
def live_factor(at):
    """The main chart's in-chart factor slider (its Vega-Lite parameter), or None when it has none."""
    main = cs.element_spec(at.get("vega_lite_chart")[0])
    found = [p for p in main.get("params", []) if "bind" in p and p["name"] == "factor"]
    return found[0] if found else None


@pytest.mark.parametrize("rope_type", ["linear", "ntk", "dynamic", "yarn", "llama3", "longrope"])
def test_the_main_chart_carries_its_factor_slider_beside_the_box(rope_type):
    at = run(rope_type=rope_type, factor="8")
    param = live_factor(at)
    assert param is not None and param["name"] == "factor" and param["value"] == 8.0
    assert at.number_input(key="factor").value == 8.0  # the box stays, for exact entry
    # the chart's rows at s = 8 are the page's own numbers (which the tables below use)
    block = ropeblock.build_rope_block(
        rope_type,
        {k: at.session_state[k] for k in ropeblock.METHOD_PARAMS[rope_type]},
        base=10000,
        train_len=4096,
        head_dim=64,
    )
    want = ropeblock.extension_data(block, 64, train_len=4096, target_len=16384)
    spec = cs.element_spec(at.get("vega_lite_chart")[0])
    target = cs.layers(spec)[2]
    assert cs.unit_rows(spec, target, factor=8.0)["value"].tolist() == want.target_angle.tolist()


@pytest.mark.parametrize("query", [{"rope_type": "default"}, {"model": "phi3-mini-128k-instruct"}])
def test_a_method_whose_factor_the_chart_cannot_carry_keeps_the_chart_of_one_factor(query):
    """No factor (default), or a LongRoPE preset (its published lists do not follow the factor, which moves only the
    attention factor): the chart is drawn for the page's one factor, with no slider of its own."""
    at = run(**query)
    assert not at.exception
    assert live_factor(at) is None
    assert at.session_state["rope_type"] == query.get("rope_type", "longrope")


def test_a_factor_typed_between_two_steps_lands_on_a_step_the_chart_can_show():
    """The box keeps to the slider's steps (a factor between two would show its neighbour's rows in
    the chart: `ropeblock.on_grid` guards the chart against one all the same)."""
    at = run(rope_type="yarn")
    at.number_input(key="factor").set_value(4.1).run()
    assert not at.exception
    assert at.number_input(key="factor").value == 4.0
    assert live_factor(at)["value"] == 4.0


def _page_after_a_report():
    """The page as Streamlit runs it after the main chart reported its factor slider."""
    import runpy

    import streamlit as st

    from explorer import liveparam

    report = st.session_state.pop("test_report", None)
    if report is not None:  # the main chart's, or the one named in test_chart
        liveparam.report(st.session_state.get("test_chart", "ext_live"), tuple(report), report)
    runpy.run_path(st.session_state["test_page"], run_name="__main__")


def test_a_drag_of_the_charts_factor_reaches_the_box_the_link_and_the_page():
    at = AppTest.from_function(_page_after_a_report, default_timeout=60)
    at.session_state["test_page"] = PAGE
    at.query_params["rope_type"] = "linear"
    run_page("", at)
    key = at.get("vega_lite_chart")[0].key
    at.session_state["test_report"] = {"factor": [{"factor": 16.5}]}
    run_page("", at)
    assert at.query_params["factor"] == "16.5"
    assert at.number_input(key="factor").value == 16.5
    assert at.get("vega_lite_chart")[0].key == key  # the chart the hand is on is kept
    assert "s·L = 67,584 tokens" in " ".join(c.value for c in at.caption)  # 16.5 × 4,096


# ------------------------------------------------------------- T in the chart (issue #36)
def live_target(at):
    """The main chart's in-chart T slider (its Vega-Lite parameter), or None when it has none."""
    main = cs.element_spec(at.get("vega_lite_chart")[0])
    found = [p for p in main.get("params", []) if "bind" in p and p["name"] == "target_len"]
    return found[0] if found else None


@pytest.mark.parametrize(
    "rope_type", ["default", "linear", "ntk", "yarn", "llama3", "proportional", "dynamic", "longrope"]
)
def test_the_main_chart_carries_its_t_slider_where_the_angles_do_not_depend_on_t_or_the_browser_computes_them(
    rope_type,
):
    at = run(rope_type=rope_type, target_len="32768")
    param = live_target(at)
    assert param is not None and TARGET_STOPS[param["value"]] == 32768
    assert TARGET_STOPS[param["bind"]["min"]] == 1024 and TARGET_STOPS[param["bind"]["max"]] == 64 * 4096
    assert at.number_input(key="target_len").value == 32768  # the box stays, for any T


@pytest.mark.parametrize(
    "query", [{"rope_type": "linear", "target_len": "10000"}, {"rope_type": "longrope", "target_len": "10000"}]
)
def test_t_stays_a_server_run_where_it_is_off_the_stops(query):
    """A typed T between two stops has no slider position (every method's θ′ are the browser's, or do not depend on
    T: tests/test_charts_extension.py)."""
    at = run(**query)
    assert not at.exception
    assert live_target(at) is None


def test_a_drag_of_the_charts_t_reaches_the_box_the_link_and_the_page():
    at = AppTest.from_function(_page_after_a_report, default_timeout=60)
    at.session_state["test_page"] = PAGE
    at.query_params["rope_type"] = "linear"
    run_page("", at)
    key = at.get("vega_lite_chart")[0].key
    at.session_state["test_report"] = {"target_len": [{"target_len": TARGET_STOPS.index(65536)}]}
    run_page("", at)
    assert at.query_params["target_len"] == "65536"
    assert at.number_input(key="target_len").value == 65536
    assert at.get("vega_lite_chart")[0].key == key  # the chart the hand is on is kept
    # the page follows: at T = 16·L, s = 4 stretches only to 4·L, so every pair that never turned in training is out
    n_slow = sum(2 * math.pi / t > 4096 for t in ref_inverse_frequencies(64))
    assert metrics(at)["Pairs out of distribution"] == f"{n_slow} of 32"


# ------------------------------------------------------------- L in the chart (issue #36)
def live_train(at):
    """The main chart's in-chart L slider (its Vega-Lite parameter), or None when it has none."""
    main = cs.element_spec(at.get("vega_lite_chart")[0])
    found = [p for p in main.get("params", []) if "bind" in p and p["name"] == "train_len"]
    return found[0] if found else None


@pytest.mark.parametrize(
    "rope_type", ["default", "linear", "ntk", "proportional", "yarn", "llama3", "dynamic", "longrope"]
)
def test_the_main_chart_carries_its_l_slider_where_the_angles_do_not_depend_on_l(rope_type):
    """Where θ' do not depend on L, or the browser computes them (YaRN, Llama 3, dynamic NTK, LongRoPE)."""
    at = run(rope_type=rope_type, target_len="32768")
    assert not at.exception
    param = live_train(at)
    assert param is not None and TARGET_STOPS[param["value"]] == 4096
    assert TARGET_STOPS[param["bind"]["min"]] == 256 and TARGET_STOPS[param["bind"]["max"]] == 65536  # L/16 … 16·L
    assert at.number_input(key="train_len").value == 4096  # the box stays, for any L


@pytest.mark.parametrize(
    "query",
    [
        {"rope_type": "longrope", "train_len": "4000"},
        {"rope_type": "linear", "train_len": "4000"},
        {"rope_type": "yarn", "train_len": "4000"},
    ],
)
def test_l_stays_a_server_run_where_it_is_off_the_stops(query):
    at = run(**query)
    assert not at.exception
    assert live_train(at) is None


def test_a_drag_of_the_charts_l_reaches_the_box_the_link_and_the_page():
    at = AppTest.from_function(_page_after_a_report, default_timeout=60)
    at.session_state["test_page"] = PAGE
    at.query_params["rope_type"] = "linear"
    run_page("", at)
    assert not at.exception
    at.session_state["test_report"] = {"train_len": [{"train_len": TARGET_STOPS.index(16384)}]}
    run_page("", at)
    assert not at.exception
    assert at.query_params["train_len"] == "16384"
    assert at.number_input(key="train_len").value == 16384
    # the page follows: at L = T = 16,384 and s = 4 no pair leaves the angles of training
    assert metrics(at)["Pairs out of distribution"] == "0 of 32"
    assert live_train(at) is not None and TARGET_STOPS[live_train(at)["value"]] == 16384


# ------------------------------------------------------------- YaRN's β in the chart (issue #36)
def test_yarns_betas_are_the_charts_own_sliders_beside_their_boxes():
    at = run(rope_type="yarn", beta_fast="24", beta_slow="2")
    assert not at.exception
    main = cs.element_spec(at.get("vega_lite_chart")[0])
    bound = {p["name"]: p for p in main.get("params", []) if "bind" in p}
    assert set(bound) == {"factor", "target_len", "train_len", "head_dim", "base", "beta_fast", "beta_slow"}
    assert (bound["beta_fast"]["value"], bound["beta_slow"]["value"]) == (24.0, 2.0)
    assert at.number_input(key="beta_fast").value == 24.0  # the sidebar's boxes stay, for exact entry


def test_a_drag_of_the_charts_beta_reaches_the_box_the_link_and_the_page():
    """β_fast dragged from 32 to 4 in the chart: the box, the link and the ramp's range follow (low = floor of
    d·ln(L/(2π·β_fast))/(2·ln b), typed here from YaRN's definition), and the chart is kept."""
    at = AppTest.from_function(_page_after_a_report, default_timeout=60)
    at.session_state["test_page"] = PAGE
    at.query_params["rope_type"] = "yarn"
    at.query_params["ext_view"] = "Rescaling"
    run_page("", at)
    assert not at.exception
    spec = at.get("vega_lite_chart")[0].proto.spec
    at.session_state["test_report"] = {"beta_fast": [{"beta_fast": 4.0}]}
    run_page("", at)
    assert not at.exception
    assert at.query_params["beta_fast"] == "4"
    assert at.number_input(key="beta_fast").value == 4.0
    assert at.get("vega_lite_chart")[0].proto.spec == spec  # the browser keeps it: nothing else changed
    low = math.floor(64 * math.log(4096 / (4.0 * 2 * math.pi)) / (2 * math.log(10000.0)))
    high = math.ceil(64 * math.log(4096 / (1.0 * 2 * math.pi)) / (2 * math.log(10000.0)))
    assert [float(x) for x in metrics(at)["YaRN ramp: pairs"].split(" – ")] == [low, high]


def test_a_drag_of_the_charts_d_and_b_reaches_the_sidebar_the_link_and_the_page():
    """d dragged from 64 to 128 and b from 10,000 to 500,000 in the chart (b's slider reports the option's index):
    the sidebar's sliders, the link and the metrics follow, and agree with the chart's read-out there; the browser
    keeps the chart (its spec is unchanged: the new rows go in place)."""
    at = AppTest.from_function(_page_after_a_report, default_timeout=60)
    at.session_state["test_page"] = PAGE
    at.query_params["rope_type"] = "yarn"
    run_page("", at)
    assert not at.exception
    key, spec = at.get("vega_lite_chart")[0].key, at.get("vega_lite_chart")[0].proto.spec
    b_index = list(widgets.get("base").options).index(500000)
    at.session_state["test_report"] = {"head_dim": [{"head_dim": 128}], "base": [{"base": b_index}]}
    run_page("", at)
    assert not at.exception
    assert (at.query_params["head_dim"], at.query_params["base"]) == ("128", "500000")
    assert at.slider(key="head_dim").value == 128 and at.select_slider(key="base").value == 500000
    chart = at.get("vega_lite_chart")[0]
    assert chart.key == key and chart.proto.spec == spec  # kept: the browser shows the hand's values already
    # what the browser shows at the hand's d and b agrees with the page's sentences, which now follow them
    lines = main_readout(at, head_dim=128, base=b_index).split("\n")
    n = metrics(at)["Pairs out of distribution"].removesuffix(" of 64")
    assert lines[1] == "d = 128 · b = 500,000" and lines[-1] in (
        f"{n} of 64 pairs meet unseen angles",
        *(["no pair meets an unseen angle"] if n == "0" else []),
    )


# ------------------------------------------------------------- YaRN's attention factor in its chart (issue #36)
def af_chart(at) -> dict:
    """The attention-factor chart's spec (the Attention tab's second chart)."""
    (spec,) = [sp for sp in specs(at) if "The model multiplies cos and sin by a" in json.dumps(sp, ensure_ascii=False)]
    return spec


def test_yarns_mscales_and_attention_factor_are_the_attention_factor_charts_own_sliders():
    at = run(rope_type="yarn", ext_view="Attention", mscale="0.707", mscale_all_dim="1")
    assert not at.exception
    bound = {p["name"]: p for p in af_chart(at).get("params", []) if "bind" in p}
    assert set(bound) == {"mscale", "mscale_all_dim", "attention_factor"}
    assert (bound["mscale"]["value"], bound["mscale_all_dim"]["value"], bound["attention_factor"]["value"]) == (
        0.707,
        1.0,
        0.0,
    )
    for key in bound:  # the sidebar's box stays, for any value
        assert at.number_input(key=key).value == {"mscale": 0.707, "mscale_all_dim": 1.0, "attention_factor": 0.0}[key]
    other = run(rope_type="linear", ext_view="Attention")
    assert not other.exception and not [p for p in af_chart(other).get("params", []) if "bind" in p]


def test_a_drag_of_mscale_in_its_chart_reaches_the_box_the_link_and_the_page():
    """The drag's end writes mscale once; the box, the link and the page's attention factor follow (YaRN at s = 4 with
    mscale = 1 and mscale_all_dim = 0.5: a = g(4, 1)/g(4, 0.5) = (0.1·ln 4 + 1)/(0.05·ln 4 + 1))."""
    import math

    at = AppTest.from_function(_page_after_a_report, default_timeout=60)
    at.session_state["test_page"] = PAGE
    at.session_state["test_chart"] = "ext_af_live"
    at.query_params.update(rope_type="yarn", ext_view="Attention", mscale_all_dim="0.5")
    run_page("", at)
    assert not at.exception
    at.session_state["test_report"] = {"mscale": [{"mscale": 1.0}]}
    run_page("", at)
    assert not at.exception
    assert at.query_params["mscale"] == "1.0" or float(at.query_params["mscale"]) == 1.0
    assert at.number_input(key="mscale").value == 1.0
    want = (0.1 * math.log(4) + 1) / (0.05 * math.log(4) + 1)
    assert metrics(at)["Attention factor a"] == f"{want:.4f}"
