"""Context-extension page: the rope-block helper (explorer.ropeblock) and the chart builders
(explorer.charts.extension), checked through ``chart.to_dict()`` against independent numbers:
REFERENCE.md's table and the loops in tests/_posenc_reference_impl.py."""

import itertools
import json
import math

import _chartspec as cs
import numpy as np
import pandas as pd
import pytest
from _posenc_reference_impl import (
    ref_dynamic,
    ref_inverse_frequencies,
    ref_llama3,
    ref_longrope,
    ref_yarn,
    ref_yarn_correction_range,
)

import posenc
from explorer import ropeblock, widgets
from explorer.charts import extension as charts
from explorer.text import extension as ext_text
from explorer.vocabulary import TARGET_STOPS

LLAMA31 = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0}
YARN = {
    "factor": 4.0,
    "beta_fast": 32.0,
    "beta_slow": 1.0,
    "mscale": 0.0,
    "mscale_all_dim": 0.0,
    "attention_factor": 0.0,
    "truncate": True,
}


def ext_for(rope_type, values=None, *, head_dim=64, base=10000, train_len=4096, target_len=16384):
    values = {**LLAMA31, **YARN, "short_gen": "ones", "long_gen": "ramp", **(values or {})}  # factor 4
    block = ropeblock.build_rope_block(rope_type, values, base=base, train_len=train_len, head_dim=head_dim)
    return ropeblock.extension_data(block, head_dim, train_len=train_len, target_len=target_len)


def layer_frame(spec, i):
    return cs.frame(spec, cs.drawn(spec)[i])


def line_rows(spec):
    """Every row drawn by a line layer (one per series per pair/x)."""
    frames = [layer_frame(spec, i) for i, layer in enumerate(cs.drawn(spec)) if layer["mark"]["type"] == "line"]
    return pd.concat(frames, ignore_index=True)


def rule_values(spec, axis):
    """The positions of the dashed reference rules: axis "y" = horizontal, "x" = vertical."""
    out = []
    for i, layer in enumerate(cs.drawn(spec)):
        if layer["mark"]["type"] == "rule" and layer["encoding"].get(axis, {}).get("field") == "rule_at":
            out += layer_frame(spec, i)["rule_at"].tolist()
    return out


def ringed(spec):
    """The pairs highlighted with a red ring (large unfilled points)."""
    (i,) = [
        i
        for i, layer in enumerate(cs.drawn(spec))
        if layer["mark"]["type"] == "point" and layer["mark"].get("color") == charts.WARN  # the warning ring
    ]
    return layer_frame(spec, i)


def mark_types(spec):
    return [cs.mark_type(layer) for layer in cs.drawn(spec)]


def title_text(spec):
    """The title as the browser shows it on a wide screen (read from the chart's facts row)."""
    return cs.readable_titles(spec)["title"]["text"]


# --- rope block --------------------------------------------------------------------------------
def test_methods_come_from_the_registry():
    assert set(ropeblock.METHOD_PARAMS) == set(posenc.ROPE_SCALING)
    assert widgets.get("rope_type").options == tuple(posenc.ROPE_SCALING)
    for names in ropeblock.METHOD_PARAMS.values():
        for name in names:
            widgets.get(name)  # every method parameter is a registered, URL-bound widget


def test_build_rope_block_uses_config_json_keys():
    assert ropeblock.build_rope_block("default", {}, base=10000, train_len=4096, head_dim=64) == {
        "rope_type": "default",
        "rope_theta": 10000.0,
    }
    assert ropeblock.build_rope_block("linear", {"factor": 4.0}, base=500000, train_len=8192, head_dim=64) == {
        "rope_type": "linear",
        "rope_theta": 500000.0,
        "factor": 4.0,
    }  # HF's linear reads no original_max_position_embeddings (it warns about unrecognized keys)
    yarn = ropeblock.build_rope_block("yarn", YARN, base=10000, train_len=4096, head_dim=64)
    assert set(yarn) == {
        "rope_type",
        "rope_theta",
        "original_max_position_embeddings",
        "factor",
        "beta_fast",
        "beta_slow",
        "truncate",
    }  # 0 = "not set" keys are left out
    deepseek = ropeblock.build_rope_block(
        "yarn",
        {**YARN, "mscale": 0.707, "mscale_all_dim": 0.707, "attention_factor": 1.5},
        base=10000,
        train_len=4096,
        head_dim=64,
    )
    assert (deepseek["mscale"], deepseek["mscale_all_dim"], deepseek["attention_factor"]) == (0.707, 0.707, 1.5)
    llama = ropeblock.build_rope_block("llama3", LLAMA31, base=500000, train_len=8192, head_dim=128)
    assert llama["low_freq_factor"] == 1.0 and llama["high_freq_factor"] == 4.0
    longrope = ropeblock.build_rope_block(
        "longrope",
        {"factor": 4.0, "short_gen": "ones", "long_gen": "ramp", "attention_factor": 0.0},
        base=10000,
        train_len=4096,
        head_dim=64,
    )
    assert longrope["short_factor"] == [1.0] * 32 and "attention_factor" not in longrope  # 0: not set
    assert len(longrope["long_factor"]) == 32 and longrope["long_factor"][0] == 1.0
    assert longrope["long_factor"][-1] == pytest.approx(4.0)


def test_longrope_factors():
    assert ropeblock.longrope_factors("ones", 3, 8.0) == [1.0, 1.0, 1.0]
    assert ropeblock.longrope_factors("constant", 2, 8.0) == [8.0, 8.0]
    assert ropeblock.longrope_factors("ramp", 5, 5.0) == pytest.approx([1.0, 2.0, 3.0, 4.0, 5.0])
    with pytest.raises(ValueError, match="kind"):
        ropeblock.longrope_factors("zigzag", 4, 2.0)


# --- extension_data against the reference numbers ----------------------------------------------
def test_yarn_reference_case():
    # REFERENCE.md: yarn d=128, b=1e4, L=4096, s=4 -> range (20, 46), af 1.13863 (logits ×1.2965)
    ext = ext_for("yarn", head_dim=128)
    assert ext.yarn_range == (20, 46)
    assert ext.attention_factor == pytest.approx(1.13863, abs=5e-6)
    assert ext.logit_multiplier == pytest.approx(1.2965, abs=5e-5)
    ref_inv, _ = ref_yarn(128, 10000.0, 4.0, 4096)
    np.testing.assert_allclose(ext.scaled_inv_freq, ref_inv, rtol=1e-12)


def test_llama31_bands():
    ext = ext_for("llama3", LLAMA31, head_dim=128, base=500000, train_len=8192, target_len=131072)
    ref_inv, _, ref_bands = ref_llama3(128, 500000.0, 8.0, 1.0, 4.0, 8192)
    assert [int((ext.bands == b).sum()) for b in ("kept", "smoothed", "divided")] == [29, 6, 29]
    assert ext.bands.tolist() == ref_bands
    np.testing.assert_allclose(ext.scaled_inv_freq, ref_inv, rtol=1e-12)


def test_dynamic_uses_the_target_as_current_length():
    # REFERENCE.md: d=128, b=1e4, max_pos 4096, s=2: seq 8192 -> base 30527.74; seq <= 4096 -> 10000
    ext = ext_for("dynamic", {"factor": 2.0}, head_dim=128, target_len=8192)
    np.testing.assert_allclose(ext.scaled_inv_freq, posenc.inverse_frequencies(128, base=30527.74), rtol=1e-6)
    np.testing.assert_allclose(ext.scaled_inv_freq, ref_dynamic(128, 10000.0, 2.0, 4096, 8192)[0], rtol=1e-12)
    short = ext_for("dynamic", {"factor": 2.0}, head_dim=128, target_len=4096)
    np.testing.assert_array_equal(short.scaled_inv_freq, short.inv_freq)


def test_longrope_attention_factor():
    # REFERENCE.md: longrope s=32, L=4096 -> af 1.19024; T > L picks long_factor
    ext = ext_for("longrope", {"factor": 32.0}, target_len=131072)
    assert ext.attention_factor == pytest.approx(1.19024, abs=5e-6)
    long_factor = ropeblock.longrope_factors("ramp", 32, 32.0)
    ref_inv, ref_af = ref_longrope(64, 10000.0, 32.0, 4096, [1.0] * 32, long_factor, 131072)
    np.testing.assert_allclose(ext.scaled_inv_freq, ref_inv, rtol=1e-12)
    assert ext.attention_factor == pytest.approx(ref_af, rel=1e-12)


def test_yarn_beta_fast_below_beta_slow_is_hfs_reversed_ramp():
    # HF 5.23 only warns and computes: low = floor(cd(beta_fast)) > high = ceil(cd(beta_slow))
    ext = ext_for("yarn", {"beta_fast": 1.0, "beta_slow": 2.0})
    assert ext.error is None
    low, high = ext.yarn_range
    assert low > high
    ratio = ext.scaled_inv_freq / ext.inv_freq
    assert ratio[0] == pytest.approx(1 / 4.0) and ratio[-1] == pytest.approx(1.0)  # fast divided, slow kept
    title = ext_text.ratio_title("yarn", ratio, 4.0, None, ext.yarn_range, None)
    assert "reversed" in title and f"up to {high:g} are divided" in title


def test_invalid_block_falls_back_to_default():
    ext = ext_for("linear", {"factor": -1.0})
    assert ext.error is not None and "factor" in ext.error
    assert ext.block == {"rope_type": "default", "rope_theta": 10000.0}
    np.testing.assert_array_equal(ext.scaled_inv_freq, ext.inv_freq)
    assert ext.attention_factor == 1.0 and ext.yarn_range is None
    # dynamic NTK needs d > 2
    tiny = ext_for("dynamic", {"factor": 2.0}, head_dim=2)
    assert tiny.error is not None and "dim" in tiny.error


def test_attention_factor_curve():
    ext = ext_for("yarn")
    expected = [1.0 if s <= 1 else 0.1 * math.log(s) + 1 for s in ext.af_factors]
    np.testing.assert_allclose(ext.af_curve, expected, rtol=1e-12)
    np.testing.assert_allclose(ropeblock.yarn_reference_curve(), expected, rtol=1e-12)
    assert ext_for("default").af_curve is None
    np.testing.assert_array_equal(ext_for("linear").af_curve, 1.0)


def test_phase_error_positions_stay_in_float16_range():
    positions = ropeblock.precision_positions(1_048_576)
    assert positions[0] == 1 and positions[-1] == 65504
    assert ropeblock.precision_positions(1000)[-1] == 1000


# --- chart builders ----------------------------------------------------------------------------
def test_angle_reach_chart():
    ext = ext_for("default")
    spec = charts.angle_reach_chart(
        ext.train_angle, ext.target_angle, ext.out_of_distribution, train_len=4096, target_len=16384
    ).to_dict()
    assert mark_types(spec) == ["line", "line", "point", "rule", "text"]  # 2 series (with dots), rings, 2π
    assert cs.drawn(spec)[0]["encoding"]["y"]["scale"]["type"] == "log"
    assert title_text(spec).startswith("9 of 32 pairs")
    data = line_rows(spec)
    theta = ref_inverse_frequencies(64)
    train = data[data.series.str.startswith("in training")].value.to_numpy()
    target = data[data.series.str.startswith("at the target")].value.to_numpy()
    np.testing.assert_allclose(train, [4096 * t for t in theta], rtol=1e-12)
    np.testing.assert_allclose(target, [16384 * t for t in theta], rtol=1e-12)
    rings = ringed(spec)  # the highlighted pairs: wavelength > L (they never turned once)
    assert rings.pair.tolist() == [j for j, t in enumerate(theta) if 2 * math.pi / t > 4096]
    assert rule_values(spec, "y") == [pytest.approx(2 * math.pi)]


def test_angle_reach_chart_without_problem_pairs():
    ext = ext_for("linear")
    spec = charts.angle_reach_chart(
        ext.train_angle, ext.target_angle, ext.out_of_distribution, train_len=4096, target_len=16384
    ).to_dict()
    assert mark_types(spec) == ["line", "line", "rule", "text"]  # no ring layer
    assert title_text(spec).startswith("No pair")


def test_wavelength_chart():
    ext = ext_for("linear")
    spec = charts.wavelength_chart(ext.inv_freq, ext.scaled_inv_freq, train_len=4096, target_len=16384).to_dict()
    data = line_rows(spec)
    before = data[data.series.str.startswith("before")].value.to_numpy()
    after = data[data.series.str.startswith("after")].value.to_numpy()
    np.testing.assert_allclose(before, [2 * math.pi / t for t in ref_inverse_frequencies(64)], rtol=1e-12)
    np.testing.assert_allclose(after, 4 * before, rtol=1e-12)
    assert rule_values(spec, "y") == [4096, 16384]
    assert "32 of 32 wavelengths" in title_text(spec) and "9 pairs are longer than L" in title_text(spec)


@pytest.mark.parametrize("factor", [2.0, 4.0, 32.0])
def test_linear_ratio_is_one_over_factor_for_every_pair(factor):
    ext = ext_for("linear", {"factor": factor})
    spec = charts.frequency_ratio_chart(ext.inv_freq, ext.scaled_inv_freq, rope_type="linear", factor=factor).to_dict()
    ratio = layer_frame(spec, 0).value.to_numpy()
    assert ratio.size == 32
    np.testing.assert_allclose(ratio, 1 / factor, rtol=1e-12)
    assert rule_values(spec, "y") == [1.0, pytest.approx(1 / factor)]
    assert f"1/{factor:g} everywhere" in title_text(spec)


def test_yarn_ratio_marks_the_correction_range():
    ext = ext_for("yarn", head_dim=128)
    spec = charts.frequency_ratio_chart(
        ext.inv_freq, ext.scaled_inv_freq, rope_type="yarn", factor=4.0, yarn_range=ext.yarn_range
    ).to_dict()
    # horizontal rules 1 and 1/s (labels at the right and left ends), vertical rules low and high
    assert mark_types(spec) == ["line", "rule", "text", "text", "rule", "text"]
    assert rule_values(spec, "x") == list(ref_yarn_correction_range(128, 10000.0, 4096))
    assert layer_frame(spec, 5).label.tolist() == ["low = 20", "high = 46"]
    ratio = layer_frame(spec, 0).value.to_numpy()
    assert np.all(ratio[:21] == 1.0) and np.allclose(ratio[46:], 0.25)
    assert np.all(np.diff(ratio[20:47]) < 0)  # the ramp falls from 1 to 1/s


def test_llama3_ratio_coloured_by_band():
    ext = ext_for("llama3", LLAMA31, head_dim=128, base=500000, train_len=8192, target_len=131072)
    spec = charts.frequency_ratio_chart(
        ext.inv_freq, ext.scaled_inv_freq, rope_type="llama3", factor=8.0, bands=ext.bands
    ).to_dict()
    data = layer_frame(spec, 1)
    counts = data.category.str.split(" ").str[0].value_counts().to_dict()
    assert counts == {"kept": 29, "smoothed": 6, "divided": 29}
    assert cs.drawn(spec)[1]["encoding"]["color"]["field"] == "category"
    assert title_text(spec) == "Llama 3: 29 pairs kept, 6 smoothed, 29 divided by s = 8"
    kept = data[data.category.str.startswith("kept")].value
    divided = data[data.category.str.startswith("divided")].value
    assert np.all(kept == 1.0) and np.allclose(divided, 1 / 8)


def test_ntk_ratio_title():
    ext = ext_for("ntk", head_dim=128)
    spec = charts.frequency_ratio_chart(ext.inv_freq, ext.scaled_inv_freq, rope_type="ntk", factor=4.0).to_dict()
    ratio = layer_frame(spec, 0).value.to_numpy()
    assert ratio[0] == 1.0 and ratio[-1] == pytest.approx(0.25)
    assert np.all(np.diff(ratio) < 0)
    assert "divides the slowest by 4" in title_text(spec)


def test_angle_step_chart_shows_pi_resolution_loss():
    ext = ext_for("linear", {"factor": 4.0})
    spec = charts.angle_step_chart(ext.inv_freq, ext.scaled_inv_freq).to_dict()
    assert "0.25 rad per token instead of 1" in title_text(spec) and "4× harder" in title_text(spec)
    data = line_rows(spec)
    np.testing.assert_allclose(data[data.series.str.startswith("after")].value, ref_linear_inv(64, 4.0), rtol=1e-12)
    yarn = charts.angle_step_chart(*(lambda e: (e.inv_freq, e.scaled_inv_freq))(ext_for("yarn"))).to_dict()
    assert "still moves 1 rad" in title_text(yarn)


def ref_linear_inv(dim, factor):
    return [t / factor for t in ref_inverse_frequencies(dim)]


def test_score_chart():
    ext = ext_for("yarn")
    spec = charts.score_chart(
        ext.distances,
        ext.score_before,
        ext.score_after,
        train_len=4096,
        target_len=16384,
        attention_factor=ext.attention_factor,
    ).to_dict()
    assert mark_types(spec) == ["line", "rule", "text", "text"]
    # L's label at the foot of its line, T's at the top: on a phone the two lines come close
    labels = {
        tuple(cs.frame(spec, layer)["label"]): layer["encoding"]["y"]["value"]
        for layer in cs.drawn(spec)
        if cs.mark_type(layer) == "text"
    }
    assert labels == {("L = 4,096",): "height", ("T = 16,384",): 0}
    assert cs.drawn(spec)[0]["encoding"]["x"]["scale"]["type"] == "log"
    data = layer_frame(spec, 0)
    af2 = ext.attention_factor**2
    after = data[data.curve.str.startswith("scaled")]
    ref_inv, _ = ref_yarn(64, 10000.0, 4.0, 4096)
    for r, y in list(zip(after.x, after.y))[::50]:
        assert y == pytest.approx(af2 * sum(math.cos(r * t) for t in ref_inv) / 32, abs=1e-12)
    trained = data[data.curve.str.contains("trained") & ~data.curve.str.contains("never")]
    assert trained.x.max() <= 4096 and trained.x.min() == 1
    assert data[data.curve.str.contains("never")].x.max() == 16384
    assert rule_values(spec, "x") == [4096, 16384]
    assert f"scaled θ′, × a² = {af2:.4g}" in set(data.curve)


@pytest.mark.parametrize(("train_len", "target_len"), [(4096, 16384), (16384, 4096), (4096, 4096)])
def test_unscaled_score_chart_title_follows_t_against_l(train_len, target_len):
    """No scaling: only a target past L meets distances never trained; with T ≤ L every one was seen."""
    ext = ropeblock.extension_data(
        {"rope_type": "default", "rope_theta": 10000.0}, 64, train_len=train_len, target_len=target_len
    )
    spec = charts.score_chart(
        ext.distances,
        ext.score_before,
        ext.score_after,
        train_len=train_len,
        target_len=target_len,
        attention_factor=1.0,
    ).to_dict()
    assert "the slow pairs set the long-range decay" in spec["title"]["subtitle"][1]
    one_pair = ropeblock.extension_data(
        {"rope_type": "default", "rope_theta": 10000.0}, 2, train_len=train_len, target_len=target_len
    )
    single = charts.score_chart(
        one_pair.distances,
        one_pair.score_before,
        one_pair.score_after,
        train_len=train_len,
        target_len=target_len,
        attention_factor=1.0,
        n_pairs=1,
    ).to_dict()
    assert "nothing decays" in single["title"]["subtitle"][1]
    never = layer_frame(spec, 0).curve.str.contains("never")
    if target_len > train_len:
        assert title_text(spec) == "No scaling: distances beyond L get scores the model never saw in training"
        assert never.any()
    else:
        assert title_text(spec) == "No scaling, and T ≤ L: every distance up to T was seen in training"
        assert not never.any()


def test_attention_factor_chart():
    ext = ext_for("yarn")
    spec = charts.attention_factor_chart(
        ext.af_factors,
        {"YaRN": ext.af_curve},
        factor=4.0,
        attention_factor=ext.attention_factor,
    ).to_dict()
    assert mark_types(spec) == ["line", "point", "text"]
    point = layer_frame(spec, 1)
    assert point.x.tolist() == [4.0] and point.y.tolist() == [pytest.approx(0.1 * math.log(4) + 1)]
    assert title_text(spec) == "YaRN: a = 1.139 at s = 4, so every logit is multiplied by a² = 1.296"


def test_the_attention_factor_reference_is_dashed_and_grey_only_beside_another_curve():
    """The page passes YaRN's default curve as `reference`: dashed in the 'before' grey beside the block's
    own curve (whose point is marked and named in the title), the plain blue line when it is alone."""
    ext, ref = ext_for("linear"), ropeblock.yarn_reference_curve()

    def line_of(curves):
        spec = charts.attention_factor_chart(
            ext.af_factors, curves, factor=4.0, attention_factor=1.0, reference="YaRN ref"
        ).to_dict()
        (line,) = [layer for layer in cs.drawn(spec) if cs.mark_type(layer) == "line"]
        return spec, line["encoding"]

    spec, both = line_of({"Linear": ext.af_curve, "YaRN ref": ref})
    assert both["strokeDash"]["scale"] == {"domain": ["Linear", "YaRN ref"], "range": [[1, 0], [7, 4]]}
    assert both["color"]["scale"]["range"] == [charts.AFTER, charts.BEFORE]
    assert title_text(spec).startswith("Linear: a = 1 at s = 4")
    spec, alone = line_of({"YaRN ref": ref})
    assert alone["strokeDash"]["scale"]["range"] == [[1, 0]] and alone["color"]["scale"]["range"] == [charts.AFTER]
    assert title_text(spec).startswith("YaRN ref: a = 1 at s = 4")


def test_interpolation_strip_is_the_seed_example():
    m = list(range(9))
    spec = charts.interpolation_strip_chart(
        m, posenc.interpolate_positions(m, factor=2.0), factor=2.0, train_len=2048
    ).to_dict()
    assert mark_types(spec) == ["rule", "point", "text", "text"]
    dots = layer_frame(spec, 1)
    assert dots[dots.row == 0].x.tolist() == [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4]
    assert dots[dots.row == 1].x.tolist() == m
    links = layer_frame(spec, 0)
    assert (links.x / 2 == links.x2).all()
    assert "2,048 → 4,096 tokens" in spec["title"]["subtitle"][0]
    assert "neighbours 1/2 apart instead of 1" in spec["title"]["subtitle"][0]
    same = charts.interpolation_strip_chart(m, m, factor=1.0, train_len=2048).to_dict()
    assert same["title"]["subtitle"] == ["s = 1 changes nothing: every token is rotated at its own position."]


def _strip_labels_shown(spec, width: float, font_scale: float = 1.0) -> list[float]:
    """The bottom labels' positions the browser draws at plot width `width`: the text layer's filter
    evaluated by node (JavaScript) for every row of its data."""
    import json
    import shutil
    import subprocess

    text = cs.drawn(spec)[3]
    (flt,) = [t["filter"] for t in text.get("transform", []) if "filter" in t]
    rows = cs.frame(spec, text).to_dict("records")
    script = (
        f"const rows = {json.dumps(rows, default=float)}; const width = {width}, font_scale = {font_scale};"
        f"console.log(JSON.stringify(rows.filter((datum) => ({flt})).map((d) => d.x)));"
    )
    out = subprocess.run([shutil.which("node"), "-e", script], capture_output=True, text=True, check=True, timeout=30)
    return json.loads(out.stdout)


@pytest.mark.skipif(__import__("shutil").which("node") is None, reason="node evaluates the label filter")
@pytest.mark.parametrize("factor", [2.0, 4.0, 16.0])
@pytest.mark.parametrize(
    ("width", "font_scale"), [(170, 1), (210, 1), (260, 1), (300, 1), (450, 1), (700, 1), (700, 1.5), (1200, 1)]
)
def test_interpolation_strip_labels_never_overlap_at_the_plots_width(factor, width, font_scale):
    m = list(range(9))
    mi = posenc.interpolate_positions(m, factor=factor)
    spec = charts.interpolation_strip_chart(m, mi, factor=factor, train_len=4096).to_dict()
    shown = _strip_labels_shown(spec, width, font_scale)
    assert shown[0] == 0.0  # the first label is always drawn
    span = max(m) - 0 + 0.6  # the strip's x domain: [min - 0.3, max + 0.3]
    # a 15 px label slanted at 40 degrees needs 15 / sin(40 deg) ≈ 23.3 px from the next (times the font scale)
    need = 15 * font_scale / math.sin(math.radians(40))
    gaps = [(b - a) * width / span for a, b in itertools.pairwise(shown)]
    assert all(g >= need for g in gaps), (shown, gaps)
    if (mi[-1] - mi[0]) * width / span >= 1.25 * 26 * font_scale:
        assert len(shown) >= 2, shown  # thinned, not emptied: a second label where there is room for one
    if factor == 2.0 and width >= 700 and font_scale == 1:
        assert shown == [v for v in mi]  # room for every label on a desktop plot


def test_phase_error_chart():
    positions = np.array([0.0, 1000.0, 2000.0])
    errors = {"float32": np.array([0.0, 1e-5, 2e-5]), "float16": np.array([0.0, 0.3, 0.78])}
    spec = charts.phase_error_chart(positions, errors).to_dict()
    assert cs.drawn(spec)[0]["encoding"]["y"]["scale"]["type"] == "log"
    data = layer_frame(spec, 0)
    assert data[data.curve == "float16"].y.tolist() == [1e-9, 0.3, 0.78]  # 0 drawn at the floor
    # no dtype reaches error 1 here: the title says so and quotes the largest errors drawn
    assert title_text(spec) == (
        "Up to m = 2,000 no dtype reaches error 1: the largest errors are float32 2e-05, float16 0.78"
    )
    lost = {"float32": errors["float32"], "float16": np.array([0.0, 1.0, 1.5]), "bfloat16": np.array([0.0, 2, 3])}
    assert title_text(charts.phase_error_chart(positions, lost).to_dict()) == (
        "Low precision loses the phase at long positions: error 1 (as good as random) for "
        "float16 by m = 1,000, bfloat16 by m = 1,000"
    )
    colors = dict(zip(*(cs.drawn(spec)[0]["encoding"]["color"]["scale"][k] for k in ("domain", "range"))))
    assert colors == {"float32": charts.DTYPE_COLORS["float32"], "float16": charts.DTYPE_COLORS["float16"]}


def _all_charts():
    ext = ext_for("yarn")
    positions = ropeblock.precision_positions(2000)
    errors = {"float32": np.full(positions.size, 1e-6), "float16": np.full(positions.size, 1e-2)}
    return [
        charts.angle_reach_chart(
            ext.train_angle, ext.target_angle, ext.out_of_distribution, train_len=4096, target_len=16384
        ),
        charts.wavelength_chart(ext.inv_freq, ext.scaled_inv_freq, train_len=4096, target_len=16384),
        charts.frequency_ratio_chart(
            ext.inv_freq, ext.scaled_inv_freq, rope_type="yarn", factor=4.0, yarn_range=ext.yarn_range
        ),
        charts.angle_step_chart(ext.inv_freq, ext.scaled_inv_freq),
        charts.score_chart(
            ext.distances,
            ext.score_before,
            ext.score_after,
            train_len=4096,
            target_len=16384,
            attention_factor=ext.attention_factor,
        ),
        charts.attention_factor_chart(
            ext.af_factors,
            {"YaRN": ext.af_curve},
            factor=4.0,
            attention_factor=ext.attention_factor,
        ),
        charts.interpolation_strip_chart([0, 1, 2], [0, 0.25, 0.5], factor=4.0, train_len=4096),
        charts.phase_error_chart(positions, errors),
    ]


def test_every_chart_is_legible():
    for chart in _all_charts():
        spec = chart.to_dict()
        assert title_text(spec) and spec["title"]["subtitle"]
        cs.legible(spec)
        assert spec["config"]["title"]["subtitleFontSize"] >= 13
        for layer in cs.drawn(spec):
            for channel in ("x", "y"):
                enc = layer["encoding"].get(channel)
                if enc and "field" in enc and "title" in enc and enc["title"] is not None:
                    assert len(enc["title"]) > 3  # axis titles say what and in which unit


def test_longrope_takes_an_attention_factor_as_hf_does():
    # HF's _compute_longrope_parameters reads attention_factor (else sqrt(1 + ln s / ln L)); the
    # widget's 0 means "not set", as for YaRN.
    values = {"factor": 8.0, "short_gen": "ones", "long_gen": "ramp", "attention_factor": 0.0}
    unset = ropeblock.build_rope_block("longrope", values, base=10000, train_len=4096, head_dim=64)
    assert "attention_factor" not in unset
    given = ropeblock.build_rope_block(
        "longrope", {**values, "attention_factor": 1.5}, base=10000, train_len=4096, head_dim=64
    )
    assert given["attention_factor"] == 1.5
    _, af = posenc.rope_inverse_frequencies(given, 64, max_position_embeddings=32768)
    assert af == 1.5
    _, af_unset = posenc.rope_inverse_frequencies(unset, 64, max_position_embeddings=32768)
    assert af_unset == pytest.approx(math.sqrt(1 + math.log(8.0) / math.log(4096)))


# ------------------------------------------------------------- the factor in the chart (issue #36)
GRID = ropeblock.factor_grid(widgets.get("factor").min, widgets.get("factor").max, widgets.get("factor").step)


def test_the_factor_grid_is_the_parameters_range_in_its_steps():
    assert GRID[0] == 1.0 and GRID[-1] == 128.0 and len(GRID) == 509
    assert np.array_equal(np.diff(GRID), np.full(508, 0.25))
    assert ropeblock.on_grid(4.0, GRID) and ropeblock.on_grid(128, GRID)
    assert not ropeblock.on_grid(4.1, GRID) and not ropeblock.on_grid(0.75, GRID) and not ropeblock.on_grid(True, GRID)
    with pytest.raises(ValueError, match="step > 0"):
        ropeblock.factor_grid(1.0, 2.0, 0.0)


STOPS = TARGET_STOPS


def live_spec(
    rope_type="linear",
    start=4.0,
    head_dim=64,
    *,
    train_len=4096,
    target_len=16384,
):
    """The main chart as the page builds it (`page_chart`), for `rope_type` with factor `start` (where it has one)."""
    values = {"factor": start} if "factor" in ropeblock.METHOD_PARAMS.get(rope_type, ()) else {}
    block = ext_for(rope_type, values, head_dim=head_dim, train_len=train_len, target_len=target_len).block
    spec, _, _ = page_chart(block, head_dim, train_len=train_len, target_len=target_len)
    return spec, block


def drawn_at(spec, **sliders):
    """(target curve, rings, read-out) rows with the in-chart sliders at `sliders` (transforms run here)."""
    layers = cs.layers(spec)
    target, rings = layers[2], layers[3]
    halo, readout = [layer for layer in layers if "aggregate" in json.dumps(layer.get("transform", []))]
    assert (
        halo["transform"] == readout["transform"] and halo["mark"]["stroke"] == charts.HALO
    )  # the same text, under it
    return (
        cs.unit_rows(spec, target, **sliders),
        cs.unit_rows(spec, rings, **sliders),
        cs.unit_rows(spec, readout, **sliders)["text"].item(),
    )


@pytest.mark.parametrize("rope_type", ["linear", "ntk"])  # the others: their own random tests below
@pytest.mark.parametrize("s", [1.0, 2.5, 4.0, 32.0, 128.0])
@pytest.mark.parametrize("T", [1024, 4096, 6144, 16384, 98304, 262144])
def test_the_live_chart_draws_posencs_angles_at_the_sliders_factor_and_length(rope_type, s, T):
    """With the chart's sliders at s and T (its transforms run here in Python), the target curve and the red
    rings are posenc's T·θ'_j and out-of-distribution pairs, and the read-out counts them: linear's bit for bit,
    static NTK's (two pows: posenc's b′ takes Python's **, the C library's pow) within 4 ulps."""
    spec, block = live_spec(rope_type)
    want = ropeblock.extension_data({**block, "factor": s}, 64, train_len=4096, target_len=T)
    target, rings, readout = drawn_at(spec, factor=s, target_len=STOPS.index(T))
    assert cs.unit_rows(spec, cs.layers(spec)[1], factor=s)["value"].tolist() == want.train_angle.tolist()
    assert target["pair"].tolist() == list(range(32))
    if rope_type == "linear":
        assert target["value"].tolist() == want.target_angle.tolist()  # equal floats
    else:
        np.testing.assert_array_max_ulp(target["value"].to_numpy(), np.asarray(want.target_angle), maxulp=4)
    assert set(target["series"]) == {"at the target: T·θ′_j"}
    assert (rings["pair"].tolist() if len(rings) else []) == np.flatnonzero(want.out_of_distribution).tolist()
    n = int(want.out_of_distribution.sum())
    words = f"{n} of 32 pairs meet unseen angles" if n else "no pair meets an unseen angle"
    assert readout == f"L = 4,096 · T = {T:,} · s = {s:g}\nd = 64 · b = 10,000\n{words}"


@pytest.mark.parametrize("T", [16, 1024, 4096, 6144, 24576, 262144])
def test_without_scaling_the_lengths_and_sizes_alone_move_the_angles(T):
    """The method without a factor: no s slider; T, L, d and b are; the pairs out at T are posenc's."""
    spec, block = live_spec("default", target_len=16384)
    assert [p["name"] for p in spec["params"] if "bind" in p] == ["base", "head_dim", "target_len", "train_len"]
    want = ropeblock.extension_data(block, 64, train_len=4096, target_len=T)
    target, rings, readout = drawn_at(spec, target_len=STOPS.index(T))
    assert target["value"].tolist() == want.target_angle.tolist()
    assert (rings["pair"].tolist() if len(rings) else []) == np.flatnonzero(want.out_of_distribution).tolist()
    assert readout.startswith(f"L = 4,096 · T = {T:,}\n")


def test_the_t_slider_runs_over_the_stops_from_a_quarter_of_l_to_64_l():
    spec, _ = live_spec(start=8.0, train_len=4096, target_len=16384)
    params = {p["name"]: p for p in spec["params"] if "bind" in p}
    f = params["factor"]
    assert (f["value"], f["bind"]["min"], f["bind"]["max"], f["bind"]["step"]) == (8.0, 1.0, 128.0, 0.25)
    t = params["target_len"]
    assert STOPS[t["value"]] == 16384 and STOPS[t["bind"]["min"]] == 1024 and STOPS[t["bind"]["max"]] == 262144
    assert t["bind"]["step"] == 1


def test_the_stops_are_powers_of_two_and_their_halfway_points():
    assert STOPS[:6] == (16, 24, 32, 48, 64, 96) and STOPS[-1] == 2**24
    assert all(b / a in (1.5, 4 / 3) for a, b in itertools.pairwise(STOPS))
    assert {4096, 8192, 32768, 131072} <= set(STOPS) and 10485760 not in STOPS


@pytest.mark.parametrize(
    "rope_type, T, want",
    [
        ("yarn", 16384, (1024, 262144)),
        ("linear", 1024, (1024, 262144)),
        ("linear", 96, (96, 262144)),  # a T below L/4 widens the window
        ("linear", 2**24, (1024, 2**24)),
        ("linear", 10000, None),  # off the stops: typed in the box
        ("dynamic", 16384, (1024, 262144)),  # θ' depend on T, and the browser computes them
        ("longrope", 16384, (1024, 262144)),  # the browser picks the list by T
    ],
)
def test_the_t_window(rope_type, T, want):
    assert ropeblock.target_window(4096, T) == want


def test_the_live_chart_keeps_its_spec_for_another_head_size_or_base():
    """What the sliders reach is computed in the browser or carried as rows: a release of d or b (the sliders stay
    where the hand left them, LiveChart's starts) changes the datasets only."""

    def shape(head_dim, base):
        block = ext_for("linear", {"factor": 4.0}, head_dim=head_dim, base=base).block
        spec, plan, _ = page_chart(block, head_dim, train_len=4096, target_len=16384, starts=(64, 10000.0))
        assert plan.shape == ("head_dim", "base")
        return {k: v for k, v in spec.items() if k != "datasets"}, spec["datasets"]

    (at_64, rows_64), (at_66, rows_66), (at_b, rows_b) = shape(64, 10000), shape(66, 10000), shape(64, 500000)
    assert at_64 == at_66 == at_b
    assert rows_64 != rows_66 and rows_64 != rows_b


@pytest.mark.parametrize(
    "kwargs, word",
    [
        (dict(start=0.5), "start must be in 1 … 128"),
        (dict(factors=GRID[:1]), "a grid of two or more"),
        (dict(shape_starts={"layers": 2}), "shape_starts: only"),
        (dict(factors=np.array([1.0, 1.5, 3.0])), "evenly spaced grid"),
        (dict(factors=None, t_window=None), "needs a factor grid, a T window, an L window or more"),
    ],
)
def test_the_live_chart_refuses_bad_input_by_name(kwargs, word):
    block = {"rope_type": "linear", "rope_theta": 10000.0, "factor": 4.0}
    args = dict(factors=GRID, start=4.0, train_len=4096, target_len=16384, t_window=(1024, 262144), browser_block=block)
    args.update(kwargs)
    with pytest.raises(ValueError, match=word):
        charts.angle_reach_live_chart(np.ones(4), **args)


@pytest.mark.parametrize("rope_type", ["default", "linear", "ntk"])
def test_the_l_slider_moves_the_training_side_as_posenc_computes_it(rope_type):
    """A method whose θ' do not depend on L: L is the chart's own slider too. At 12 random (s, L, T) of its sliders
    the training curve is posenc's L·θ_j, the target curve T·θ'_j, the rings posenc.out_of_distribution_pairs'
    and the read-out says L, T (and s) and counts them (the chart's transforms run here in Python)."""
    factor = rope_type != "default"
    spec, block = live_spec(rope_type, train_len=4096, target_len=16384)
    bound = {p["name"]: p for p in spec["params"] if "bind" in p}
    assert set(bound) == ({"factor"} if factor else set()) | {"train_len", "target_len", "head_dim", "base"}
    l_lo, l_hi = (STOPS[bound["train_len"]["bind"][k]] for k in ("min", "max"))
    assert (l_lo, l_hi) == (256, 65536) and STOPS[bound["train_len"]["value"]] == 4096  # L/16 … 16·L
    t_lo, t_hi = (STOPS.index(STOPS[bound["target_len"]["bind"][k]]) for k in ("min", "max"))
    rng = np.random.default_rng(len(rope_type))
    for _ in range(12):
        L = STOPS[int(rng.integers(STOPS.index(l_lo), STOPS.index(l_hi) + 1))]
        ti = int(rng.integers(t_lo, t_hi + 1))
        s = float(GRID[int(rng.integers(0, len(GRID)))]) if factor else None
        sliders = {"train_len": STOPS.index(L), "target_len": ti, **({"factor": s} if factor else {})}
        want = ropeblock.extension_data(
            {**block, "factor": s} if factor else block, 64, train_len=L, target_len=STOPS[ti]
        )
        train = cs.unit_rows(spec, cs.layers(spec)[1], **sliders)
        assert train["value"].tolist() == want.train_angle.tolist(), (L, STOPS[ti], s)
        assert set(train["series"]) == {"in training: L·θ_j"}
        target, rings, readout = drawn_at(spec, **sliders)
        if rope_type == "ntk":  # two pows (see test_the_live_chart_draws_posencs_angles_at_the_sliders_factor…)
            np.testing.assert_array_max_ulp(target["value"].to_numpy(), np.asarray(want.target_angle), maxulp=4)
        else:
            assert target["value"].tolist() == want.target_angle.tolist()
        assert (rings["pair"].tolist() if len(rings) else []) == np.flatnonzero(want.out_of_distribution).tolist()
        head = f"L = {L:,} · T = {STOPS[ti]:,}" + (f" · s = {s:g}" if factor else "")
        assert readout.split("\n")[0] == head


@pytest.mark.parametrize(
    "rope_type, L, want",
    [
        ("linear", 4096, (256, 65536)),
        ("default", 65536, (4096, 262144)),  # L's own range ends at 262,144
        ("ntk", 32, (16, 512)),  # and starts at 16
        ("linear", 4000, None),  # off the stops: typed in the box
        ("yarn", 4096, (256, 65536)),  # θ' depend on L, and the browser computes them (ropeblock.BROWSER_THETA)
        ("llama3", 4096, (256, 65536)),
        ("dynamic", 4096, (256, 65536)),
        ("longrope", 4096, (256, 65536)),
    ],
)
def test_the_l_window(rope_type, L, want):
    assert ropeblock.train_window(L) == want


def test_the_live_title_names_every_slider():
    from explorer.text.extension import live_angle_title

    assert live_angle_title(True, True, 16384, True) == "Drag s, L and T: the largest angle per pair, against training"
    assert live_angle_title(False, True, 16384, True) == "Drag L and T: the largest angle per pair, against training"
    assert live_angle_title(True, False, 16384) == "Drag s: the largest angle per pair at T = 16,384, against training"
    # d and b (explorer.ropeblock.SHAPE_SLIDERS): after the lengths, before a method's knobs; alone where nothing else
    # moves (a length typed off its stops, no factor)
    both = live_angle_title(True, True, 16384, True, ("beta_fast", "beta_slow"), ("head_dim", "base"))
    assert both == "Drag s, L, T, d, b and β: the largest angle per pair, against training"
    alone = live_angle_title(False, False, 17, False, (), ("head_dim", "base"))
    assert alone == "Drag d and b: the largest angle per pair at T = 17, against training"


# ------------------------------------------------ YaRN's θ′ computed in the browser (issue #36: s, L, T and β)
def yarn_block(truncate=True, **keys):
    values = {k: widgets.get(k).default for k in ropeblock.METHOD_PARAMS["yarn"]}
    values.update(truncate=truncate, **keys)
    return ropeblock.build_rope_block("yarn", values, base=10000.0, train_len=4096, head_dim=64)


def page_chart(block, head_dim, *, train_len, target_len, kinds=None, starts=None):
    """(the spec sent, the live plan, the extension data) of the main chart as pages/5_Context_extension.py builds it
    for `block` (`kinds`: the generators of LongRoPE's lists, as the page passes them): explorer.compute.extension.
    live_plan decides the sliders, each starting at the block's value (d and b at `starts`, (d, b), if given: where
    the hand left them)."""
    from explorer.compute import extension as compute

    ext = ropeblock.extension_data(block, head_dim, train_len=train_len, target_len=target_len)
    plan = compute.live_plan(ext, head_dim, kinds)
    chart = charts.angle_reach_live_chart(
        ext.inv_freq,
        factors=plan.factors,
        start=block.get("factor") if plan.factors is not None else None,
        t_window=plan.t_window,
        l_window=plan.l_window,
        train_len=train_len,
        target_len=target_len,
        browser_block=plan.browser_block,
        knob_starts={k: block[k] for k in charts.KNOB_KEYS if k in plan.keys},
        columns=plan.columns,
        list_kinds=plan.list_kinds,
        shape_starts={
            k: dict(zip(ropeblock.SHAPE_SLIDERS, starts or (head_dim, block["rope_theta"])))[k] for k in plan.shape
        },
    )
    return cs.sent_spec(chart), plan, ext


def yarn_live_spec(truncate=True):
    spec, plan, _ = page_chart(yarn_block(truncate), 64, train_len=4096, target_len=16384)
    return spec, plan


@pytest.mark.parametrize("truncate", [True, False])
def test_yarns_angles_computed_by_the_chart_are_posencs_at_random_s_l_t_and_beta(truncate):
    """YaRN's θ′ depend on s, L, β_fast and β_slow: the chart computes them (yarn_theta) and carries a slider for each.
    At 40 random settings (β_fast below β_slow among them: the ramp reverses), the training curve, the target curve,
    the rings and the read-out are posenc's at that block, bit for bit (the transforms run here in Python)."""
    from explorer.compute import extension as compute

    spec, plan = yarn_live_spec(truncate)
    assert plan.keys == ("factor", "target_len", "train_len", "head_dim", "base", "beta_fast", "beta_slow")
    bound = {p["name"]: p["bind"] for p in spec["params"] if "bind" in p}
    for key in charts.KNOBS["yarn"]:  # over the widget's range in its steps
        w = widgets.get(key)
        assert (bound[key]["min"], bound[key]["max"], bound[key]["step"]) == (w.min, w.max, w.step)
    rng = np.random.default_rng(7 + truncate)
    reversed_seen = 0
    for _ in range(40):
        at = {
            k: float(compute.grid_of(k)[int(rng.integers(0, len(compute.grid_of(k))))])
            for k in ("factor", *charts.KNOBS["yarn"])
        }
        L = STOPS[int(rng.integers(STOPS.index(plan.l_window[0]), STOPS.index(plan.l_window[1]) + 1))]
        T = STOPS[int(rng.integers(STOPS.index(plan.t_window[0]), STOPS.index(plan.t_window[1]) + 1))]
        reversed_seen += at["beta_fast"] < at["beta_slow"]
        want = ropeblock.extension_data(
            {**yarn_block(truncate), **at, "original_max_position_embeddings": L}, 64, train_len=L, target_len=T
        )
        sliders = {**at, "train_len": STOPS.index(L), "target_len": STOPS.index(T)}
        train = cs.unit_rows(spec, cs.layers(spec)[1], **sliders)
        assert train["value"].tolist() == want.train_angle.tolist()
        target, rings, readout = drawn_at(spec, **sliders)
        assert target["value"].tolist() == want.target_angle.tolist(), (L, T, at)
        assert (rings["pair"].tolist() if len(rings) else []) == np.flatnonzero(want.out_of_distribution).tolist()
        n = int(want.out_of_distribution.sum())
        words = f"{n} of 32 pairs meet unseen angles" if n else "no pair meets an unseen angle"
        betas = f"β_fast = {at['beta_fast']:g} · β_slow = {at['beta_slow']:g}"
        assert readout == f"L = {L:,} · T = {T:,} · s = {at['factor']:g}\nd = 64 · b = 10,000\n{betas}\n{words}"
    assert reversed_seen  # the reversed ramp was among them


def test_what_the_live_chart_is_built_from_decides_whether_a_release_keeps_it():
    """A release of β or s changes neither the live plan's context nor the spec (the browser keeps the chart), nor does
    mscale (the chart does not read it); a discrete choice (truncate) or a fixed value the spec holds rebuilds it."""
    from explorer.compute import extension as compute

    def plan_at(**keys):
        block = yarn_block(**keys)
        return compute.live_plan(ropeblock.extension_data(block, 64, train_len=4096, target_len=16384), 64)

    same = {plan_at().context, plan_at(beta_fast=40.0).context, plan_at(beta_slow=2.5, factor=8.0).context}
    assert len(same) == 1 and plan_at(mscale=0.707).context in same
    assert plan_at().context != plan_at(truncate=False).context

    def linear_plan(factor):  # s typed off its steps (4.1): fixed in the spec, so part of the context
        block = ropeblock.build_rope_block("linear", {"factor": factor}, base=10000.0, train_len=4096, head_dim=64)
        return compute.live_plan(ropeblock.extension_data(block, 64, train_len=4096, target_len=16384), 64)

    assert "factor" not in linear_plan(4.1).keys and linear_plan(4.1).context != linear_plan(4.2).context
    assert linear_plan(4.0).context == linear_plan(4.25).context  # on the steps: a slider

    def longrope_plan(factor, short_gen="ones", long_gen="ramp"):  # lists made from s: they follow its slider
        values = {k: widgets.get(k).default for k in ropeblock.METHOD_PARAMS["longrope"]}
        values.update(factor=factor, short_gen=short_gen, long_gen=long_gen)
        block = ropeblock.build_rope_block("longrope", values, base=10000.0, train_len=4096, head_dim=64)
        ext = ropeblock.extension_data(block, 64, train_len=4096, target_len=16384)
        return compute.live_plan(ext, 64, {"short_factor": short_gen, "long_factor": long_gen})

    assert longrope_plan(4.0).context == longrope_plan(8.0).context and "factor" in longrope_plan(4.0).keys
    assert longrope_plan(4.0).context != longrope_plan(4.0, long_gen="constant").context  # other lists: rebuilt
    # both lists all ones: s moves nothing in this chart, so it is no slider there
    assert "factor" not in longrope_plan(4.0, long_gen="ones").keys


def test_yarns_equal_ramp_ends_are_drawn_as_posenc_computes_them():
    """L = 256, β_fast = 64, β_slow = 42: both correction dimensions fall below 0, so low = high = 0 and HF moves high by
    0.001 (posenc.methods.yarn_ramp): the chart's θ′ there equal posenc's, truncated or not."""
    for truncate in (True, False):
        spec, _ = yarn_live_spec(truncate)
        at = {"factor": 4.0, "beta_fast": 64.0, "beta_slow": 42.0}
        low, high = posenc.yarn_correction_range(
            64, base=10000.0, original_max_position_embeddings=256, beta_fast=64.0, beta_slow=42.0, truncate=truncate
        )
        assert low == high == 0 if truncate else low == 0
        want = ropeblock.extension_data(
            {**yarn_block(truncate), **at, "original_max_position_embeddings": 256}, 64, train_len=256, target_len=4096
        )
        target, _, _ = drawn_at(spec, **at, train_len=STOPS.index(256), target_len=STOPS.index(4096))
        assert target["value"].tolist() == want.target_angle.tolist()


@pytest.mark.parametrize(
    "keys, fixed",
    [
        (dict(beta_fast=32.25), "beta_fast"),  # between two of its slider's steps (0.5): typed, stays fixed
        (dict(beta_slow=0.3), "beta_slow"),
    ],
)
def test_a_beta_off_its_steps_stays_fixed_in_the_chart(keys, fixed):

    block = yarn_block(**keys)
    spec, plan, ext = page_chart(block, 64, train_len=4096, target_len=16384)
    assert fixed not in plan.keys and {"factor", "train_len", "target_len"} <= set(plan.keys)
    others = [k for k in charts.KNOBS["yarn"] if k != fixed]
    target, _, readout = drawn_at(
        spec, factor=4.0, train_len=STOPS.index(4096), target_len=STOPS.index(16384), **{k: block[k] for k in others}
    )
    assert target["value"].tolist() == ext.target_angle.tolist()  # at the typed β
    assert ext_text.KNOB_NAMES[fixed] not in readout


def test_the_live_title_names_beta_when_it_is_a_slider():
    from explorer.text.extension import live_angle_title

    want = "Drag s, L, T and β: the largest angle per pair, against training"
    assert live_angle_title(True, True, 16384, True, ("beta_fast", "beta_slow")) == want
    both = live_angle_title(True, True, 16384, True, ("low_freq_factor", "high_freq_factor"))
    assert both.startswith("Drag s, L, T and the band factors: ")
    one = live_angle_title(False, False, 16384, False, ("high_freq_factor",))  # the other typed off its steps
    assert one == "Drag high_freq: the largest angle per pair at T = 16,384, against training"


def llama3_block(**keys):
    values = {k: widgets.get(k).default for k in ropeblock.METHOD_PARAMS["llama3"]}
    values.update(keys)
    return ropeblock.build_rope_block("llama3", values, base=500000.0, train_len=8192, head_dim=128)


def test_llama3s_angles_computed_by_the_chart_are_posencs_at_random_s_l_t_and_band_factors():
    """Llama 3's θ′ depend on s, L and the band factors: the chart computes them (llama3_theta). At 60 random settings
    (high ≤ low among them: no pair is smoothed then, as HF computes it) the curves, rings and read-out are posenc's,
    bit for bit (the transforms run here in Python)."""
    from explorer.compute import extension as compute

    block = llama3_block()
    spec, plan, _ = page_chart(block, 128, train_len=8192, target_len=32768)
    assert plan.keys == ("factor", "target_len", "train_len", "head_dim", "base", "low_freq_factor", "high_freq_factor")
    knobs = charts.KNOBS["llama3"]
    rng = np.random.default_rng(3)
    smoothed_seen = not_smoothed = 0
    for i in range(60):
        at = {k: float(compute.grid_of(k)[int(rng.integers(0, len(compute.grid_of(k))))]) for k in ("factor", *knobs)}
        if i % 10 == 0:  # equal band factors: HF's smooth factor would divide by 0, for no pair it picks
            at["high_freq_factor"] = at["low_freq_factor"]
        L = STOPS[int(rng.integers(STOPS.index(plan.l_window[0]), STOPS.index(plan.l_window[1]) + 1))]
        T = STOPS[int(rng.integers(STOPS.index(plan.t_window[0]), STOPS.index(plan.t_window[1]) + 1))]
        full = {**block, **at, "original_max_position_embeddings": L}
        want = ropeblock.extension_data(full, 128, train_len=L, target_len=T)
        assert want.error is None
        bands = set(want.bands.tolist())
        smoothed_seen += "smoothed" in bands
        not_smoothed += at["high_freq_factor"] <= at["low_freq_factor"]
        sliders = {**at, "train_len": STOPS.index(L), "target_len": STOPS.index(T)}
        target, rings, readout = drawn_at(spec, **sliders)
        assert target["value"].tolist() == want.target_angle.tolist(), (L, T, at)
        assert (rings["pair"].tolist() if len(rings) else []) == np.flatnonzero(want.out_of_distribution).tolist()
        assert (
            readout.split("\n")[2] == f"low_freq = {at['low_freq_factor']:g} · high_freq = {at['high_freq_factor']:g}"
        )
    assert smoothed_seen and not_smoothed  # both kinds of band among them


def test_proportional_ropes_angles_computed_by_the_chart_are_posencs_at_random_s_p_l_and_t():
    """Proportional RoPE keeps the first ⌊p·d/2⌋ pairs and divides them by s: the chart computes it (proportional_theta)
    from 1/b^(2j/d) (theta_p), with s, p, L and T its sliders. At 40 random settings (p = 0 and 1 among them) the curves,
    rings and read-out are posenc's, bit for bit; the pairs that stop are not drawn."""
    from explorer.compute import extension as compute

    values = {k: widgets.get(k).default for k in ropeblock.METHOD_PARAMS["proportional"]}
    block = ropeblock.build_rope_block("proportional", values, base=10000.0, train_len=4096, head_dim=64)
    spec, plan, _ = page_chart(block, 64, train_len=4096, target_len=16384)
    assert plan.keys == ("factor", "target_len", "train_len", "head_dim", "base", "partial_rotary_factor")
    rng = np.random.default_rng(11)
    p_grid = compute.grid_of("partial_rotary_factor")
    for i in range(40):
        s = float(compute.grid_of("factor")[int(rng.integers(0, 509))])
        p = 0.0 if i == 0 else 1.0 if i == 1 else float(p_grid[int(rng.integers(0, len(p_grid)))])
        L = STOPS[int(rng.integers(STOPS.index(plan.l_window[0]), STOPS.index(plan.l_window[1]) + 1))]
        T = STOPS[int(rng.integers(STOPS.index(plan.t_window[0]), STOPS.index(plan.t_window[1]) + 1))]
        want = ropeblock.extension_data(
            {**block, "factor": s, "partial_rotary_factor": p}, 64, train_len=L, target_len=T
        )
        sliders = {"factor": s, "partial_rotary_factor": p, "train_len": STOPS.index(L), "target_len": STOPS.index(T)}
        target, rings, readout = drawn_at(spec, **sliders)
        kept = int(p * 64 // 2)  # HF: int(rope_proportion * head_dim // 2) pairs rotate
        assert (target["pair"].tolist() if kept else len(target)) == (list(range(kept)) if kept else 0)
        if kept:
            assert target["value"].tolist() == want.target_angle[:kept].tolist(), (s, p, L, T)
        assert (rings["pair"].tolist() if len(rings) else []) == np.flatnonzero(want.out_of_distribution).tolist()
        assert readout.split("\n")[1:3] == ["d = 64 · b = 10,000", f"p = {p:g}"]


def test_the_browser_computes_theta_for_every_method_posenc_knows_and_refuses_others():
    """Every method of posenc is one of ropeblock.BROWSER_THETA and has its transforms (the random tests check their
    numbers); a method posenc does not know is refused by name."""
    assert set(ropeblock.BROWSER_THETA) == set(posenc.ROPE_METHODS)
    for method in ropeblock.BROWSER_THETA:
        block = {"rope_type": method, "rope_theta": 10000.0, "factor": 2.0}
        knobs = {k: "1" for k in ropeblock.BROWSER_KNOBS[method]}
        assert charts.browser_theta(block, n_pairs="32", s="2", length="4096", target="8192", knobs=knobs)
    with pytest.raises(ValueError, match="got 'su'"):
        charts.browser_theta({"rope_type": "su"}, n_pairs="32", s="2", length="4096", target="8192", knobs={})


def test_dynamic_ntks_angles_computed_by_the_chart_are_posencs_at_random_s_l_and_t():
    """Dynamic NTK's θ′ depend on s, L and T (the base grows with T/L past L): the chart computes them (dynamic_theta),
    with s, L and T its sliders. At 60 random settings (T ≤ L among them: the trained rope) the curves, rings and
    read-out are posenc's within 4 ulps (the transforms run here in Python with numpy's pow; posenc's b′ takes
    Python's **, the C library's pow, and on a CPU with AVX-512 the two round the last bit differently now and then),
    and θ′ is HF's formula re-typed (tests/_posenc_reference_impl.ref_dynamic) to 1e-12."""
    block = ropeblock.build_rope_block("dynamic", {"factor": 4.0}, base=10000.0, train_len=4096, head_dim=64)
    spec, plan, _ = page_chart(block, 64, train_len=4096, target_len=16384)
    assert plan.keys == ("factor", "target_len", "train_len", "head_dim", "base") and plan.browser_block is not None
    assert "datasets" in spec and all(
        len(rows) <= 128 for rows in spec["datasets"].values()
    )  # a row per pair d reaches
    rng = np.random.default_rng(5)
    inside = 0
    for _ in range(60):
        s = float(GRID[int(rng.integers(0, len(GRID)))])
        L = STOPS[int(rng.integers(STOPS.index(plan.l_window[0]), STOPS.index(plan.l_window[1]) + 1))]
        T = STOPS[int(rng.integers(STOPS.index(plan.t_window[0]), STOPS.index(plan.t_window[1]) + 1))]
        inside += T <= L
        want = ropeblock.extension_data({**block, "factor": s}, 64, train_len=L, target_len=T)
        assert want.error is None
        sliders = {"factor": s, "train_len": STOPS.index(L), "target_len": STOPS.index(T)}
        target, rings, readout = drawn_at(spec, **sliders)
        np.testing.assert_array_max_ulp(target["value"].to_numpy(), np.asarray(want.target_angle), maxulp=4)
        ref = np.asarray(ref_dynamic(64, 10000.0, s, L, T)[0])
        np.testing.assert_allclose(target["value"].to_numpy() / T, ref, rtol=1e-12)
        assert (rings["pair"].tolist() if len(rings) else []) == np.flatnonzero(want.out_of_distribution).tolist()
        assert readout.split("\n")[0] == f"L = {L:,} · T = {T:,} · s = {s:g}"
    assert inside  # the trained rope (T ≤ L) among them


@pytest.mark.parametrize("lists", [("ramp", "ramp"), ("ones", "constant"), ("constant", "ramp")])
@pytest.mark.parametrize("head_dim", [64, 2, 6])
def test_longropes_angles_made_by_the_chart_are_posencs_at_random_s_l_and_t(lists, head_dim):
    """LongRoPE's θ′ are θ_j over its short list where T ≤ L and its long list where T > L. The page makes the lists
    from s ("ones", "constant" s, "ramp" 1 … s), and so does the chart (explorer.charts.extension.longrope_entry), with
    s, L and T its sliders. At 40 random (s, L, T) (both sides of L among them) the curves, rings and read-out are
    posenc's at the block the page would build there, bit for bit, and θ′ is θ_j / the list's entry typed here."""
    short_gen, long_gen = lists
    values = {k: widgets.get(k).default for k in ropeblock.METHOD_PARAMS["longrope"]}
    values.update(factor=4.0, short_gen=short_gen, long_gen=long_gen)
    kinds = {"short_factor": short_gen, "long_factor": long_gen}
    block = ropeblock.build_rope_block("longrope", values, base=10000.0, train_len=4096, head_dim=head_dim)
    spec, plan, _ = page_chart(block, head_dim, train_len=4096, target_len=16384, kinds=kinds)
    assert plan.keys[:3] == ("factor", "target_len", "train_len") and plan.list_kinds == kinds and plan.columns == {}
    assert plan.keys[3:] == ("head_dim", "base")
    n = head_dim // 2
    theta = 10000.0 ** (-np.arange(n) * 2 / head_dim)
    typed = {"ones": lambda s: np.ones(n), "constant": lambda s: np.full(n, s)}  # numpy's linspace for the ramp:
    typed["ramp"] = lambda s: np.array([1.0]) if n == 1 else 1 + np.arange(n) * (s - 1) / (n - 1)
    rng = np.random.default_rng(len(short_gen) + head_dim)
    sides = set()
    for _ in range(40):
        s = float(plan.factors[int(rng.integers(0, len(plan.factors)))])
        L = STOPS[int(rng.integers(STOPS.index(plan.l_window[0]), STOPS.index(plan.l_window[1]) + 1))]
        T = STOPS[int(rng.integers(STOPS.index(plan.t_window[0]), STOPS.index(plan.t_window[1]) + 1))]
        sides.add(T > L)
        at = ropeblock.build_rope_block(
            "longrope", {**values, "factor": s}, base=10000.0, train_len=L, head_dim=head_dim
        )
        want = ropeblock.extension_data(at, head_dim, train_len=L, target_len=T)
        assert want.error is None
        target, rings, readout = drawn_at(spec, factor=s, train_len=STOPS.index(L), target_len=STOPS.index(T))
        assert target["value"].tolist() == want.target_angle.tolist(), (s, L, T)
        listed = typed[long_gen if T > L else short_gen](s)
        np.testing.assert_allclose(target["value"].to_numpy() / T, theta / listed, rtol=1e-13)
        assert (rings["pair"].tolist() if len(rings) else []) == np.flatnonzero(want.out_of_distribution).tolist()
        assert readout.split("\n")[0] == f"L = {L:,} · T = {T:,} · s = {s:g}"
    assert sides == {True, False}


def test_longropes_published_lists_keep_s_fixed():
    """Lists the page did not make from s (a preset's published ones, or kinds that do not give them) do not follow
    s: the chart carries posenc's θ′ for both lists and picks by T > L, with L and T its sliders and s fixed."""
    values = {k: widgets.get(k).default for k in ropeblock.METHOD_PARAMS["longrope"]}
    values.update(factor=4.0, short_gen="ones", long_gen="ramp")
    block = ropeblock.build_rope_block("longrope", values, base=10000.0, train_len=4096, head_dim=64)
    published = {**block, "long_factor": [1.0 + 0.1 * j for j in range(32)]}
    for b, kinds in ((published, {"short_factor": "ones", "long_factor": "ramp"}), (block, None)):
        spec, plan, _ = page_chart(b, 64, train_len=4096, target_len=16384, kinds=kinds)
        assert plan.keys == ("target_len", "train_len") and plan.factors is None and plan.list_kinds is None
        assert set(plan.columns) == {"theta_short", "theta_long"}
        target, _, _ = drawn_at(spec, train_len=STOPS.index(4096), target_len=STOPS.index(16384))
        want = ropeblock.extension_data(b, 64, train_len=4096, target_len=16384)
        assert target["value"].tolist() == want.target_angle.tolist()
    assert ropeblock.list_kinds(block, 64, {"short_factor": "ramp", "long_factor": "ramp"}) is None  # not its lists


# ------------------------------------------------ YaRN's attention factor computed in the browser (issue #36)
def af_spec(**keys):
    """The live attention-factor chart as the page builds it for a YaRN block with `keys`: (spec, plan, block)."""
    from explorer.compute import extension as compute

    block = yarn_block(**keys)
    ext = ropeblock.extension_data(block, 64, train_len=4096, target_len=16384)
    plan = compute.attention_factor_plan(ext)
    chart = charts.attention_factor_live_chart(
        ext.af_factors,
        ropeblock.yarn_reference_curve(),
        factor=plan.factor,
        knob_starts={k: float(block.get(k) or 0.0) for k in plan.keys},
        fixed=plan.fixed,
    )
    return cs.sent_spec(chart), plan, block


def test_yarns_attention_factor_computed_by_the_chart_is_posencs_at_random_mscales():
    """a(s) depends on mscale, mscale_all_dim and attention_factor (0 = not set): the chart computes it
    (yarn_attention_factor) with a slider for each. At 60 random settings (each key unset among them) the curve is
    posenc's a at every s of the curve, bit for bit (the transforms run here, with C's log), the marked point is posenc's
    a at the block's s, and the read-out says a and a² there; the dashed curve is HF's defaults."""
    from explorer.compute import extension as compute

    spec, plan, block = af_spec()
    assert plan.keys == ("mscale", "mscale_all_dim", "attention_factor") and plan.fixed == {}
    layers = cs.layers(spec)
    reference, ours, point = layers[1], layers[2], layers[3]
    *_halo, readout = [lay for lay in layers if cs.mark_type(lay) == "text"]
    rng = np.random.default_rng(61)
    kinds = set()
    for i in range(60):
        at = {k: float(compute.grid_of(k)[int(rng.integers(0, len(compute.grid_of(k))))]) for k in plan.keys}
        unset = [("mscale",), ("mscale_all_dim",), ("attention_factor",), ("mscale", "attention_factor"), ()][i % 5]
        for k in plan.keys if i % 10 == 9 else unset:  # unset (0): one key, two, none or (every tenth) all three
            at[k] = 0.0
        kinds.add((at["mscale"] != 0, at["mscale_all_dim"] != 0, at["attention_factor"] != 0))
        full = {k: v for k, v in {**block, **at}.items() if not (k in at and v == 0)}
        want = ropeblock.extension_data(full, 64, train_len=4096, target_len=16384)
        assert want.error is None
        drawn = cs.unit_rows(spec, ours, **at)
        assert drawn["x"].tolist() == ropeblock.AF_CURVE_FACTORS.tolist()
        assert drawn["y"].tolist() == want.af_curve.tolist(), at
        (a,) = cs.unit_rows(spec, point, **at)["y"].tolist()
        assert a == want.attention_factor, at
        text_ = cs.unit_rows(spec, readout, **at)["text"].item()
        assert text_ == f"a = {a:.4g} at s = 4: logits × a² = {a * a:.4g}"
    # mscale's pair used, one of them unset (a = g(s, 1)), a written attention_factor over both, none set
    assert {(True, True, False), (False, True, False), (True, True, True), (False, False, False)} <= kinds
    ref = cs.unit_rows(spec, reference)
    assert ref["y"].tolist() == [posenc.yarn_get_mscale(s) for s in ropeblock.AF_CURVE_FACTORS]


def test_the_attention_factor_plan_moves_only_yarns_keys_on_their_steps():
    from explorer.compute import extension as compute

    assert af_spec(mscale=0.707)[1].keys == ("mscale", "mscale_all_dim", "attention_factor")
    _, plan, _ = af_spec(mscale=0.70715)  # between two of its slider's steps (0.001): typed, stays fixed
    assert plan.keys == ("mscale_all_dim", "attention_factor") and plan.fixed == {"mscale": 0.70715}
    assert af_spec()[1].context != plan.context  # the fixed value is in the spec: another one rebuilds the chart
    assert af_spec(mscale=1.0)[1].context == af_spec(mscale=2.0, attention_factor=1.5)[1].context  # sliders: kept
    for rope_type in ("linear", "dynamic", "llama3", "longrope", "default"):
        assert compute.attention_factor_plan(ext_for(rope_type)) is None, rope_type


def test_the_live_attention_factor_chart_refuses_a_key_both_or_neither_slider_and_fixed():
    args = dict(factor=4.0)
    f, r = ropeblock.AF_CURVE_FACTORS, ropeblock.yarn_reference_curve()
    with pytest.raises(ValueError, match="must share out"):
        charts.attention_factor_live_chart(f, r, knob_starts={"mscale": 1.0}, fixed={"mscale": 1.0}, **args)
    with pytest.raises(ValueError, match="must share out"):
        charts.attention_factor_live_chart(f, r, knob_starts={"mscale": 1.0}, fixed={}, **args)
    with pytest.raises(ValueError, match="at least one slider"):
        charts.attention_factor_live_chart(f, r, knob_starts={}, fixed=dict.fromkeys(charts.AF_LABELS, 0.0), **args)


def test_the_live_attention_factor_title_names_its_sliders():
    assert ext_text.af_live_title(("mscale", "mscale_all_dim", "attention_factor")) == (
        "Drag mscale, mscale_all_dim or attention_factor: YaRN's attention factor a against s"
    )
    assert ext_text.af_live_title(("attention_factor",)) == "Drag attention_factor: YaRN's attention factor a against s"


def _legend_symbol_opacities(vega: dict) -> list[float]:
    """The opacity each legend of a compiled Vega spec draws its swatches with (1 unless it says otherwise)."""
    out = []
    for legend in vega.get("legends", []):
        update = legend.get("encode", {}).get("symbols", {}).get("update", {})
        out.append(float(update.get("opacity", {}).get("value", legend.get("symbolOpacity", 1))))
    for mark in vega.get("marks", []):
        if mark.get("type") == "group":
            out += _legend_symbol_opacities(mark)
    return out


def test_legend_swatches_are_opaque_where_the_first_series_is_drawn_translucent():
    # The training series is drawn wide at 0.6 opacity underneath; Vega-Lite gives every swatch the first layer's
    # opacity unless the legend says otherwise, which made the target's swatch darker than its line on the dark card.
    import vl_convert as vlc

    specs = [live_spec("linear")[0], yarn_live_spec()[0], *(chart.to_dict() for chart in _all_charts())]
    opacities = [o for spec in specs for o in _legend_symbol_opacities(vlc.vegalite_to_vega(spec))]
    assert opacities and all(o == 1 for o in opacities), opacities


# ------------------------------------------- the head dimension d and the base b in the chart (issue #36)
@pytest.mark.parametrize("rope_type", list(posenc.ROPE_METHODS))
def test_every_methods_angles_computed_by_the_chart_are_posencs_at_random_d_b_s_l_and_t(rope_type):
    """d and b are the chart's sliders for every method (LongRoPE's with the lists the page makes from s): the browser
    computes θ_j = b^(−2j/d) too. At 30 random (d, b, s, L, T), the knobs at their defaults, the training curve, the
    target curve, the rings and the read-out are posenc's at the block the page would build there (the transforms run
    here in Python): bit for bit, but static and dynamic NTK's target curve (two pows, posenc's b′ with the C
    library's) within 4 ulps."""
    values = {k: widgets.get(k).default for k in ropeblock.METHOD_PARAMS.get(rope_type, ())}
    kinds = {key: values[gen] for key, gen in ropeblock.LIST_GENERATORS.items() if gen in values}
    block = ropeblock.build_rope_block(rope_type, values, base=10000.0, train_len=4096, head_dim=64)
    spec, plan, _ = page_chart(block, 64, train_len=4096, target_len=16384, kinds=kinds)
    assert plan.shape == ("head_dim", "base") and plan.browser_block is not None
    bound = {p["name"]: p["bind"] for p in spec["params"] if "bind" in p}
    d_lo = 4 if rope_type == "dynamic" else 2  # posenc refuses d = 2 for dynamic NTK
    assert (bound["head_dim"]["min"], bound["head_dim"]["max"], bound["head_dim"]["step"]) == (d_lo, 256, 2)
    assert (bound["base"]["min"], bound["base"]["max"]) == (0, len(charts.BASE_OPTIONS) - 1)
    rng = np.random.default_rng(len(rope_type) * 7)
    sizes, tops = set(), set()
    for i in range(30):
        d = 64 if i == 0 else int(rng.integers(d_lo // 2, 129)) * 2  # the page's own d and b first: posenc's θ_j
        b = 10000.0 if i == 0 else float(charts.BASE_OPTIONS[int(rng.integers(0, len(charts.BASE_OPTIONS)))])
        L = STOPS[int(rng.integers(STOPS.index(plan.l_window[0]), STOPS.index(plan.l_window[1]) + 1))]
        T = STOPS[int(rng.integers(STOPS.index(plan.t_window[0]), STOPS.index(plan.t_window[1]) + 1))]
        sliders = {"head_dim": d, "base": charts.BASE_OPTIONS.index(b)}
        sliders |= {"train_len": STOPS.index(L), "target_len": STOPS.index(T)}
        at = dict(values)
        if plan.factors is not None:
            at["factor"] = sliders["factor"] = float(GRID[int(rng.integers(0, len(GRID)))])
        want_block = ropeblock.build_rope_block(rope_type, at, base=b, train_len=L, head_dim=d)
        want = ropeblock.extension_data(want_block, d, train_len=L, target_len=T)
        assert want.error is None, (d, b, L, T, want.error)
        sizes.add((d, b))
        where = (d, b, L, T, at.get("factor"))
        train = cs.unit_rows(spec, cs.layers(spec)[1], **sliders)
        assert train["pair"].tolist() == list(range(d // 2))
        assert train["value"].tolist() == want.train_angle.tolist(), where
        target, rings, readout = drawn_at(spec, **sliders)
        assert target["pair"].tolist() == np.flatnonzero(want.target_angle > 0).tolist(), where
        drawn, expect = target["value"].to_numpy(), want.target_angle[want.target_angle > 0]
        if rope_type in ("ntk", "dynamic"):
            np.testing.assert_array_max_ulp(drawn, expect, maxulp=4)
        else:
            assert drawn.tolist() == expect.tolist(), where
        assert (rings["pair"].tolist() if len(rings) else []) == np.flatnonzero(want.out_of_distribution).tolist()
        # the y axis holds every drawn angle: its foot follows d and b, its top is fixed on a wide plot; on a narrow one
        # (a phone's) the top rises so that every point stays below the read-out in the top right
        scale = cs.layers(spec)[1]["encoding"]["y"]["scale"]
        names = cs.spec_names(spec, cs.layers(spec)[1], **sliders)
        shown = np.concatenate([train["value"].to_numpy(), drawn])
        foot, wide = cs.js_eval(scale["domain"]["expr"], {**names, "width": 700, "height": charts.HEIGHT})
        assert foot <= shown.min() and shown.max() <= wide, (where, foot, shown.min())
        tops.add(wide)
        n = int(want.out_of_distribution.sum())
        words = f"{n} of {d // 2} pairs meet unseen angles" if n else "no pair meets an unseen angle"
        lines = readout.split("\n")
        assert lines[1] == f"d = {d} · b = {b:,.0f}" and lines[-1] == words, (where, readout)
        narrow = {**names, "width": 300, "height": charts.HEIGHT}
        assert cs.js_eval(scale["domain"]["expr"], narrow)[0] == foot  # the foot does not follow the width
        top = cs.js_eval(scale["domain"]["expr"], narrow)[1]
        below_top = (
            charts.HEIGHT * np.log(top / shown.max()) / np.log(top / foot)
        )  # the highest centre's px from the top
        clear = readout_bottom(spec, narrow, len(lines)) + point_radius(spec)
        assert clear <= below_top, (where, clear, below_top)
    assert len(tops) == 1  # a wide plot's top does not move
    assert len(sizes) > 20


def readout_bottom(spec, names: dict, n_lines: int) -> float:
    """How far below the plot's top (px) the read-out of `n_lines` lines reaches: its mark's offset, and each line
    Vega's line height (the font size + 2 px, vega-scenegraph's default) at the mark's font size for `names`."""
    (readout,) = [v for v in cs.layers(spec) if v["mark"].get("color") == charts.WARN and v["mark"]["type"] == "text"]
    mark = readout["mark"]
    assert mark["baseline"] == "top" and "lineHeight" not in mark
    return mark["dy"] + n_lines * (cs.js_eval(mark["fontSize"]["expr"], names) + 2)


def point_radius(spec) -> float:
    """The largest radius (px) of the live angle chart's points: a point mark's size is its area in px²."""
    sizes = [v["mark"]["point"]["size"] for v in cs.layers(spec) if isinstance(v["mark"].get("point"), dict)]
    assert sizes, "no curve with points"
    return math.sqrt(max(sizes) / math.pi)


def test_the_pair_axis_ends_at_the_d_sliders_last_pair():
    """The x axis runs 0 … d/2 − 1 for the d the slider stands at (1 at least): a smaller d narrows it."""
    spec, _ = live_spec("yarn")
    view = cs.layers(spec)[1]
    domain = view["encoding"]["x"]["scale"]["domain"]["expr"]
    for d, last in ((64, 31), (256, 127), (4, 1), (2, 1)):
        assert cs.js_eval(domain, cs.spec_names(spec, view, head_dim=d)) == [0, last]


@pytest.mark.parametrize("rope_type", list(posenc.ROPE_METHODS))
def test_no_calculate_of_the_live_chart_reads_the_field_it_writes(rope_type):
    """Vega writes a calculate's result into the datum: one that read its own field would read its earlier result
    where only a later input moved (Llama 3's high_freq_factor alone, YaRN's β_fast after equal ramp ends). The
    Python evaluation of the transforms starts afresh each time and cannot see that, so the spec is checked."""
    values = {k: widgets.get(k).default for k in ropeblock.METHOD_PARAMS.get(rope_type, ())}
    kinds = {key: values[gen] for key, gen in ropeblock.LIST_GENERATORS.items() if gen in values}
    block = ropeblock.build_rope_block(rope_type, values, base=10000.0, train_len=4096, head_dim=64)
    spec, _, _ = page_chart(block, 64, train_len=4096, target_len=16384, kinds=kinds)
    assert cs.self_reading_calculates(spec) == []
    assert cs.self_reading_calculates({"calculate": "datum.inv + 1", "as": "inv"}) == [("inv", "datum.inv + 1")]
    assert cs.self_reading_calculates({"calculate": "datum.inv_band", "as": "inv"}) == []


def test_a_block_whose_theta_prime_reads_a_missing_factor_gets_the_still_chart():
    """A YaRN block whose factor is null reads s from L in posenc (θ′ follow L): the browser does not compute that, so
    the page draws the still chart (no L slider with θ′ left behind); the methods that need no factor stay live."""
    from explorer.compute import extension as compute

    null = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": None, "original_max_position_embeddings": 4096}
    ext = ropeblock.extension_data(null, 64, train_len=4096, target_len=16384)
    assert ext.error is None and compute.live_plan(ext, 64) is None
    for rope_type in ropeblock.FACTOR_OPTIONAL:
        values = {k: widgets.get(k).default for k in ropeblock.METHOD_PARAMS.get(rope_type, ())}
        block = ropeblock.build_rope_block(rope_type, values, base=10000.0, train_len=4096, head_dim=64)
        plan = compute.live_plan(ropeblock.extension_data(block, 64, train_len=4096, target_len=16384), 64, {})
        assert plan is not None and plan.browser_block == block
