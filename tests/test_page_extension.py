"""The context-extension page through Streamlit's AppTest: defaults, every method, every control at
its minimum and maximum, garbage in every URL parameter, and the numbers the page shows checked
against independent values (REFERENCE.md's table and hand formulas)."""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from _apptest import metrics, run_page

import _chartspec as cs
import posenc
from _posenc_reference_impl import ref_inverse_frequencies, ref_yarn_correction_range
from explorer import params, ropeblock

PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "5_Context_extension.py")
N_CHARTS = 8
#: Every URL key the page reads (shared ones first).
KEYS = ("head_dim", "base", "train_len", "target_len", "rope_type") + tuple(
    dict.fromkeys(name for names in ropeblock.METHOD_PARAMS.values() for name in names))


def run(at=None, **query):
    return run_page(PAGE, at, **query)




def specs(at):
    """Every chart's spec with its Arrow datasets decoded (tests/_chartspec.py)."""
    return [cs.element_spec(chart) for chart in at.get("vega_lite_chart")]


def chart_data(at, index, layer=0):
    """The rows behind layer `layer` of chart `index`."""
    spec = specs(at)[index]
    return cs.frame(spec, cs.layers(spec)[layer])


def layers_where(at, index, predicate):
    """Concatenated rows of the layers of chart `index` whose spec satisfies `predicate`."""
    spec = specs(at)[index]
    return pd.concat([cs.frame(spec, layer) for layer in cs.layers(spec) if predicate(layer)],
                     ignore_index=True)


def line_rows(at, index):
    return layers_where(at, index, lambda layer: layer["mark"]["type"] == "line")


def titles(at):
    return [spec["title"]["text"] for spec in specs(at)]


def assert_page_complete(at):
    assert at.title[0].value == "Context extension"
    assert len(at.get("vega_lite_chart")) == N_CHARTS
    assert len(at.latex) >= 2
    assert any("What to notice" in md.value for md in at.markdown)
    assert len(at.metric) == 4


# --- defaults ----------------------------------------------------------------------------------
def test_defaults():
    at = run()
    assert_page_complete(at)
    assert not at.error and not at.warning
    # yarn, d = 64, b = 1e4, L = 4096, T = 16384, s = 4
    af = 0.1 * math.log(4) + 1
    low, high = ref_yarn_correction_range(64, 10000.0, 4096)
    shown = metrics(at)
    assert shown["Attention factor a"] == f"{af:.4f}" == "1.1386"
    assert shown["Logit multiplier a²"] == f"{af * af:.4f}" == "1.2965"
    assert shown["Pairs out of distribution"] == "0 of 32"
    assert shown["YaRN correction range"] == f"pairs {low} – {high}" == "pairs 10 – 23"
    assert at.radio(key="rope_type").value == "yarn"
    # the ratio chart: θ'/θ for every pair against the hand-computed YaRN ramp
    ratio = chart_data(at, 2).sort_values("pair").value.to_numpy()
    ramp = np.clip((np.arange(32) - low) / (high - low), 0, 1)
    np.testing.assert_allclose(ratio, ramp / 4 + (1 - ramp), rtol=1e-12)


def test_method_labels_are_shown():
    at = run()
    radio = at.radio(key="rope_type")
    assert radio.options == list(posenc.ROPE_SCALING)
    caption_texts = [c for c in radio.proto.captions]
    assert caption_texts == [ropeblock.method_label(m) for m in posenc.ROPE_SCALING]


# --- every method ------------------------------------------------------------------------------
@pytest.mark.parametrize("method", list(posenc.ROPE_SCALING))
def test_every_method_selected_in_the_session(method):
    at = run()
    at.radio(key="rope_type").set_value(method)
    at = run(at)
    assert_page_complete(at)
    assert not at.error
    shown_keys = {w.key for w in at.sidebar.number_input} | {w.key for w in at.sidebar.toggle} \
        | {w.key for w in at.sidebar.selectbox}
    own = set(ropeblock.METHOD_PARAMS[method])
    others = set().union(*ropeblock.METHOD_PARAMS.values()) - own
    assert own <= shown_keys and not (others & shown_keys)
    assert at.subheader[0].value == ropeblock.method_label(method)
    if method == "yarn":
        assert "YaRN correction range" in metrics(at)
    else:
        assert "YaRN correction range" not in metrics(at)


@pytest.mark.parametrize("method", list(posenc.ROPE_SCALING))
def test_every_method_from_the_url(method):
    at = run(rope_type=method)
    assert at.radio(key="rope_type").value == method
    assert_page_complete(at)


def test_linear_ratio_is_exactly_one_over_factor():
    at = run(rope_type="linear", factor=8)
    ratio = chart_data(at, 2).value.to_numpy()
    assert ratio.size == 32
    np.testing.assert_allclose(ratio, 1 / 8, rtol=1e-12)
    assert metrics(at)["Pairs out of distribution"].startswith("0 of")  # T = 4L < sL: all inside
    step = line_rows(at, 3)
    after = step[step.series.str.startswith("after")].sort_values("pair").value
    np.testing.assert_allclose(after, [t / 8 for t in ref_inverse_frequencies(64)], rtol=1e-12)


def test_llama31_values_show_29_6_29_bands():
    at = run(rope_type="llama3", head_dim=128, base=500000, train_len=8192, target_len=131072, factor=8)
    assert metrics(at)["Pairs kept / smoothed / divided"] == "29 / 6 / 29"
    bands = chart_data(at, 2, layer=1).category.str.split(" ").str[0].value_counts().to_dict()
    assert bands == {"kept": 29, "smoothed": 6, "divided": 29}
    assert titles(at)[2] == "Llama 3: 29 pairs kept, 6 smoothed, 29 divided by s = 8"


def test_extrapolation_counts_the_slow_pairs():
    at = run(rope_type="default")
    theta = ref_inverse_frequencies(64)
    n_slow = sum(2 * math.pi / t > 4096 for t in theta)  # never a full turn in 4096 tokens
    assert metrics(at)["Pairs out of distribution"] == f"{n_slow} of 32"
    assert titles(at)[0].startswith(f"{n_slow} of 32 pairs")
    rings = layers_where(at, 0, lambda layer: layer["mark"].get("size") == 260)  # red rings
    assert sorted(rings.pair) == [j for j, t in enumerate(theta) if 2 * math.pi / t > 4096]


def test_dynamic_at_the_trained_length_changes_nothing():
    at = run(rope_type="dynamic", target_len=4096)
    ratio = chart_data(at, 2).value.to_numpy()
    np.testing.assert_array_equal(ratio, 1.0)


def test_yarn_reference_numbers():
    at = run(head_dim=128)
    shown = metrics(at)
    assert shown["YaRN correction range"] == "pairs 20 – 46"
    assert shown["Attention factor a"] == "1.1386" and shown["Logit multiplier a²"] == "1.2965"


def test_seed_position_interpolation_example():
    at = run(rope_type="linear", train_len=2048, target_len=4096, factor=2)
    dots = chart_data(at, 6, layer=1)
    assert sorted(dots[dots.row == 0].x)[:4] == [0.0, 0.5, 1.0, 1.5]
    assert any("is rotated as position 2,047.5" in c.value for c in at.caption)


def test_invalid_block_shows_an_error_and_falls_back():
    at = run(beta_fast=1, beta_slow=2)
    assert len(at.error) == 1 and "beta" in at.error[0].value
    assert_page_complete(at)
    assert at.subheader[0].value == ropeblock.method_label("default")
    assert metrics(at)["Attention factor a"] == "1.0000"


# --- min, max, garbage -------------------------------------------------------------------------
def _extreme(key, which):
    p = params.get(key)
    if p.kind in params.NUMERIC_KINDS:
        return p.to_url(p.min if which == "min" else p.max)
    if p.kind in params.OPTION_KINDS:
        return p.to_url(p.options[0] if which == "min" else p.options[-1])
    if p.kind == "toggle":
        return "false" if which == "min" else "true"
    raise AssertionError(key)


@pytest.mark.parametrize("which", ["min", "max"])
@pytest.mark.parametrize("method", list(posenc.ROPE_SCALING))
def test_every_control_at_its_extreme(method, which):
    query = {key: _extreme(key, which) for key in KEYS if key != "rope_type"}
    at = run(rope_type=method, **query)
    assert len(at.get("vega_lite_chart")) == N_CHARTS
    assert not at.warning  # every extreme value is a valid link
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
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
    assert_page_complete(at)
    assert len(at.warning) == 1  # one notice listing the unusable values
    # the parameters read in this run (the default method's) are named; markup stays escaped
    for key in SHARED_KEYS + ("rope_type",) + ropeblock.METHOD_PARAMS["yarn"]:
        assert params.escape_markdown(key) in at.warning[0].value
    assert "<b>" not in at.warning[0].value
    assert metrics(at)["Attention factor a"] == "1.1386"  # all defaults again


@pytest.mark.parametrize("method", list(posenc.ROPE_SCALING))
def test_garbage_in_a_methods_own_parameters(method):
    at = run(rope_type=method, **{key: "x1" for key in KEYS if key != "rope_type"})
    assert_page_complete(at)
    assert not at.error  # the defaults of every method make a valid block
    for key in SHARED_KEYS + ropeblock.METHOD_PARAMS[method]:
        assert params.escape_markdown(key) in at.warning[0].value


def test_switching_method_keeps_the_shared_controls():
    at = run(head_dim=128, train_len=8192)
    at.radio(key="rope_type").set_value("linear")
    at = run(at)
    assert at.number_input(key="train_len").value == 8192
    assert at.slider(key="head_dim").value == 128
    np.testing.assert_allclose(chart_data(at, 2).value, 0.25, rtol=1e-12)
