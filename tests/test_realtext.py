"""The real-model page's sentences (explorer/realtext.py) and chart builders (explorer/charts/realmodel.py),
each claim checked against numbers recomputed here, and each verdict shown to flip with its interval."""

from __future__ import annotations

import re

import numpy as np
import pytest
from _chartspec import by_field, frame
from statsmodels.stats.proportion import proportion_confint

from explorer import realtext
from explorer.charts import realmodel as charts
from posenc import realmodel
from posenc.realmodel import MODEL, HeadRules


def _products(slow_weight: float) -> np.ndarray:
    p = np.ones((MODEL.layers, MODEL.q_heads, MODEL.pairs))
    p[..., 20:] = slow_weight
    return p


def test_frequency_notes_name_the_slow_pairs_and_their_share():
    p = _products(5.0)
    share = realmodel.share(p, realtext.slow_pairs(MODEL))
    notes = realtext.frequency_notes(p, (share, share - 0.01, share + 0.01), MODEL, tokens=256, block=16)
    lam = 2 * np.pi * 1e5 ** (np.arange(32) * 2 / 64)
    assert f"wavelengths {lam[20]:,.0f}–{lam[31]:,.0f} tokens" in notes[0]
    assert f"**{100 * share:.1f} %**" in notes[0]
    assert "more than the 37.5 %" in notes[0] and "Barbero" in notes[0]


@pytest.mark.parametrize(
    ("interval", "word"),
    [((0.3, 0.2, 0.36), "less than"), ((0.37, 0.3, 0.45), "not distinguishable"), ((0.5, 0.4, 0.6), "more than")],
)
def test_the_verdict_follows_the_interval(interval, word):
    note = realtext.frequency_notes(_products(1.0), interval, MODEL, tokens=256, block=16)[0]
    assert word in note
    assert ("Barbero" in note) == (word == "more than")


def test_layer_and_head_notes():
    p = _products(1.0)
    p[3, 4, 20:] = 9.0
    assert "In layer 3, head 4 puts the most" in realtext.layer_note(p, 3, MODEL)
    att = {
        "label": np.full((30, 9), "spread", dtype=object),
        "sink": np.full((30, 9), 0.1),
        "previous": np.full((30, 9), 0.2),
        "local": np.full((30, 9), 0.3),
    }
    att["label"][3, 4] = "local"
    note = realtext.head_note(att, p, 3, 4, MODEL)
    assert "Layer 3, head 4 is **local**: first token 10.0 %, previous token 20.0 %, nearest tokens 30.0 %" in note
    top = re.search(r"pairs (\d+) \(", note).group(1)
    assert int(top) >= 20  # the head's product is largest in a slow pair
    assert realtext.head_counts(att["label"]) == "Of the 270 heads: 0 sink, 0 previous, 1 local, 269 spread."


def test_rules_caption_states_the_rules():
    text = realtext.rules_caption(HeadRules(sink=0.4, window=5, min_query=10))
    assert "at least 40% of its weight on the first token" in text
    assert "5 nearest tokens" in text and "positions ≥ 10" in text


@pytest.mark.parametrize(
    ("diff", "word"), [((0.2, 0.1, 0.3), "worse"), ((-0.2, -0.3, -0.1), "better"), ((0.01, -0.02, 0.04), "cannot tell")]
)
def test_change_note_compares_only_where_the_interval_says(diff, word):
    note = realtext.change_note("YaRN, factor 2", diff, tokens=511, block=32)
    assert word in note and f"{diff[0]:+.3f} nats per token" in note and "511 predicted tokens" in note


def test_long_notes_recompute():
    rng = np.random.default_rng(0)
    base = np.r_[rng.normal(1.5, 0.2, 16), rng.normal(4.0, 0.3, 16)]  # breaks past 8,192 (chunks of 512)
    good = np.r_[base[:16] + 0.05, rng.normal(1.6, 0.2, 16)]
    res = {"default": {"nll_by_chunk": list(base)}, "yarn:factor=2": {"nll_by_chunk": list(good)}}
    labels = {m: realtext.method_label(m) for m in res}
    notes = realtext.long_notes(res, chunk=512, trained=8192, labels=labels)
    est = base[16:].mean() - base[:16].mean()
    assert f"{est:+.3f} nats per token from its mean inside" in notes[0] and notes[0].endswith("higher.")
    past = (good[16:] - base[16:]).mean()
    assert f"{past:+.3f} nats per token against no scaling" in notes[1] and "lower than no scaling" in notes[1]
    assert "it costs +0.050" in notes[1]
    # issue #37: the 16 chunks past L trend, so runs of ⌈16^(1/3)⌉ = 3 neighbouring chunks are resampled
    # together (Künsch's moving blocks, by hand here: numpy's generator, seed 0, 1000 resamples)
    d = good[16:] - base[16:]
    starts = np.random.default_rng(0).integers(0, 16 - 3 + 1, size=(1000, 6))
    means = d[(starts[:, :, None] + np.arange(3)).reshape(1000, -1)[:, :16]].mean(axis=1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    assert f"(95 % interval {lo:+.3f} to {hi:+.3f}, resampling runs of 3 neighbouring 512-token chunks)" in notes[1]


def test_passkey_notes_and_labels():
    summary = {
        "default": {
            "6144": {"found": 2, "trials": 2, "ci95": [0.34, 1.0]},
            "12288": {"found": 0, "trials": 2, "ci95": [0.0, 0.66]},
        }
    }
    note = realtext.passkey_notes(summary, {"default": "no scaling"}, 8192)[0]
    assert "2 of 2 at 6,144 tokens (inside" in note and "0 of 2 at 12,288 tokens (past" in note
    for k, n in ((2, 2), (0, 2)):  # Wilson's interval from the counts (statsmodels), not the file's ci95
        lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
        assert f"{k} of {n} at" in note and f"95 % interval {lo:.2f}–{hi:.2f})" in note
    assert realtext.method_label("yarn:factor=2") == "YaRN, factor 2"
    assert realtext.method_label("default") == "no scaling (its own rope)"
    assert realtext.method_label("proportional:partial_rotary_factor=0.25:factor=1.0").startswith(
        "Proportional (p-RoPE), partial rotary factor 0.25"
    )


# ------------------------------------------------------------------------------ charts, by what they draw
def test_pair_chart_colours_pairs_by_turns():
    shares = np.full(32, 1 / 32)
    spec = charts.pair_chart(charts.pair_frame(shares, MODEL.wavelengths(), 8192), title="t", y_title="y").to_dict()
    bars = frame(spec, by_field(spec, "bar", "y", "share")[0])
    assert list(bars["pair"]) == list(range(32))
    assert bars["share"].tolist() == pytest.approx([100 / 32] * 32)
    assert (bars["turns"] >= 1).tolist() == [True] * 20 + [False] * 12


def test_loss_chart_marks_the_trained_length_only_inside_the_range():
    f = charts.loss_frame({"a": [1.0, 2.0, 3.0], "b": [1.0, 1.0, 1.0]}, 4096)
    spec = charts.loss_chart(f, trained=8192, title="t", chunk=4096).to_dict()
    assert frame(spec, by_field(spec, "rule", "x", "position")[0])["position"].tolist() == [8192]
    lines = frame(spec, by_field(spec, "line", "y", "value")[0])
    assert lines[lines["rope"] == "a"]["position"].tolist() == [4096, 8192, 12288]
    spec = charts.loss_chart(charts.loss_frame({"a": [1.0]}, 512), trained=8192, title="t", chunk=512).to_dict()
    assert not by_field(spec, "rule", "x", "position")


def test_grid_and_passkey_frames():
    g = charts.grid_frame(np.arange(6).reshape(2, 3), np.array([["sink"] * 3, ["local"] * 3], dtype=object))
    assert g[(g["layer"] == 1) & (g["head"] == 2)]["value"].item() == 5 and set(g["label"]) == {"sink", "local"}
    pk = charts.passkey_frame({"x": {"6144": {"found": 1, "trials": 2, "ci95": [0.1, 0.9]}}})
    low, high = proportion_confint(1, 2, alpha=0.05, method="wilson")  # from the counts, not the file's ci95
    assert pk.iloc[0].to_dict() | {} == {
        "rope": "x",
        "length": 6144,
        "found": 1,
        "trials": 2,
        "rate": 0.5,
        "low": pytest.approx(low),
        "high": pytest.approx(high),
        "text": "1 of 2",
    }


def test_paper_notes_agree_or_disagree_by_the_interval():
    rng = np.random.default_rng(1)
    base = np.r_[rng.normal(1.5, 0.2, 16), rng.normal(4.0, 0.3, 16)]
    res = {
        "default": {"nll_by_chunk": list(base)},
        "linear:factor=2": {"nll_by_chunk": list(base + 1.0)},  # costs inside
        "yarn:factor=2": {"nll_by_chunk": list(np.r_[base[:16], base[16:] - 2.0])},  # better past
        "ntk:factor=2": {"nll_by_chunk": list(np.r_[base[:16], base[16:] + 1.0])},  # worse past
    }
    labels = {m: realtext.method_label(m) for m in res}
    notes = realtext.paper_notes(res, chunk=512, trained=8192, labels=labels)
    assert notes[0].startswith("Linear (Position Interpolation), factor 2 costs +1.000") and "Chen et al." in notes[0]
    assert "below no scaling's" in notes[1] and "Peng et al." in notes[1]
    assert "does worse than no scaling" in notes[2] and "bloc97" in notes[2]


def test_short_labels():
    assert realtext.short_label("default") == "no scaling"
    assert realtext.short_label("yarn:factor=2") == "YaRN ×2"
    assert realtext.short_label("proportional:partial_rotary_factor=0.25:factor=1.0") == "p-RoPE p=0.25 ×1"
    assert realtext.short_label("longrope:factor=4.0") == "LongRoPE ×4"


def test_passkey_notes_say_when_the_model_is_too_small():
    fails = {"default": {"6144": {"found": 1, "trials": 5, "ci95": [0.04, 0.62]}}}
    assert "misses keys inside its trained length" in realtext.passkey_notes(fails, {}, 8192)[-1]
    fine = {"default": {"6144": {"found": 5, "trials": 5, "ci95": [0.57, 1.0]}}}
    assert not any("misses keys" in n for n in realtext.passkey_notes(fine, {}, 8192))
