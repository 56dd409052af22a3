"""explorer.text.invariance: the Relative-position invariance page's sentences, each checked against the
values it describes (worked out here by hand, with numpy from the formula, or with posenc's shift test
run at the t a sentence names), not against the text module itself."""

from __future__ import annotations

import math

import numpy as np
import pytest

import posenc
from explorer.text import invariance as text

TOL = 1e-9


def ref_spread(scores: np.ndarray) -> float:
    """Largest max − min along one diagonal s(m, m + k), k of either sign, by loop."""
    n = scores.shape[0]
    worst = 0.0
    for k in range(-(n - 1), n):
        diag = [scores[m, m + k] for m in range(n) if 0 <= m + k < n]
        worst = max(worst, max(diag) - min(diag))
    return worst


def ref_decay_bound(r: float, d: int, base: float) -> float:
    """RoFormer §3.4.3 written out: (1/(d/2))·Σ_j |Σ_(i≤j) e^(i·r·θ_i)|."""
    partial, total = 0j, 0.0
    for i in range(d // 2):
        theta = base ** (-2 * i / d)
        partial += complex(math.cos(r * theta), math.sin(r * theta))
        total += abs(partial)
    return total / (d // 2)


def report(rope=1e-13, sinusoid=3.0, learned=None, spreads=None, tol=TOL) -> dict:
    return {
        "rope_dev": rope,
        "sinusoidal_dev": sinusoid,
        "learned_dev": learned,
        "tolerance": tol,
        "spreads": spreads or {"rope": 1e-13, "sinusoidal": 19.0, "learned": None},
    }


# --- the metrics under the chart ------------------------------------------------------------------
def test_the_metrics_show_each_deviation_and_its_verdict():
    shown = text.metrics(report(rope=2.5e-14, sinusoid=17.31, learned=38.7, tol=5.8e-12), "float32")
    labels = [label for label, *_ in shown]
    assert labels == ["RoPE (float32)", "sinusoidal, added", "learned table, added", "pass mark"]
    values = [float(value) for _, value, _, _ in shown]
    assert values == [2.5e-14, 17.3, 38.7, 5.8e-12]  # three significant digits (two for the mark)
    # 2.5e-14 ≤ 5.8e-12 passes; 17.31 and 38.7 are far above it
    assert [badge for *_, badge in shown] == [":green-badge[PASS]", ":red-badge[FAIL]", ":red-badge[FAIL]", None]
    assert "float32" in shown[3][2]  # the pass mark's epsilon is that of the dtype shown


def test_a_learned_table_without_rows_has_no_number_and_cannot_run():
    (_, _, (label, value, help_text, badge), _) = text.metrics(report(learned=None), "float64")
    assert (label, value, badge) == ("learned table, added", "no row", ":gray-badge[cannot run: no row]")
    assert "ends before position N − 1 + t" in help_text


def test_the_badges_follow_the_pass_mark():
    assert text.verdict_badge(None, TOL).startswith(":gray-badge")
    assert text.verdict_badge(TOL, TOL) == ":green-badge[PASS]"  # at the mark: passes
    assert text.verdict_badge(1e-3, TOL) == ":red-badge[FAIL]"


# --- the headline and the heatmaps' words ----------------------------------------------------------
def test_the_headline_names_the_survivors():
    assert text.join_names(["a"]) == "a" and text.join_names(["a", "b", "c"]) == "a, b and c"
    assert text.survivors_title(report(rope=1e-12, sinusoid=3.0), TOL) == "Only RoPE's scores survive the shift"
    both = report(rope=1e-12, sinusoid=1e-12, learned=2.0)
    assert text.survivors_title(both, TOL) == "RoPE's and the added sinusoid's scores survive the shift"
    assert text.survivors_title(report(rope=1.0, sinusoid=1.0, learned=1.0), TOL).startswith("No ")


def test_the_heatmap_words_follow_the_diagonals_of_posencs_scores():
    """At the page's defaults (d = 8 typed vectors), RoPE's diagonals are constant to round-off and the
    added sinusoid's drift: by the spread measured here by loop."""
    q = np.array([1, 0, 0.5, -0.5, 0.25, 2, -1, 0.75])
    k = np.array([0.5, 1, -1, 0.25, 2, 0, 0.5, -0.75])
    rep = posenc.shift_test_report(q, k, n_positions=12, offset=3, table_len=128)
    tol = rep["tolerance"]
    rope, sinusoid = ref_spread(rep["rope"]), ref_spread(rep["sinusoidal"])
    assert rope <= tol < sinusoid
    assert text.diagonal_words(rope, tol, 12) == "constant diagonals"
    drift = text.diagonal_words(sinusoid, tol, 12)
    assert drift.startswith("diagonals drift (by up to ")
    assert float(drift.split("by up to ")[1].rstrip(")")) == pytest.approx(sinusoid, rel=0.05)
    assert text.diagonal_words(0.0, tol, 1) == "one cell: no diagonal to compare"
    assert text.diagonal_words(None, tol, 12) == ""
    spreads = {"rope": rope, "sinusoidal": sinusoid, "learned": None}
    sentence = text.diagonal_sentence(spreads, tol, 12)
    assert "RoPE: every diagonal" in sentence and "the added sinusoid: the colour drifts" in sentence
    assert "learned" not in sentence  # no heatmap drawn, nothing said
    assert "one cell each" in text.diagonal_sentence(spreads, tol, 1)


# --- the learned table ------------------------------------------------------------------------------
@pytest.mark.parametrize("n_pos, table_len", [(64, 128), (10, 20), (48, 60)])
def test_the_learned_sentence_names_the_first_t_without_a_row(n_pos, table_len):
    """'Push t to X or more': at t = X posenc's learned table has no row for the shift test, at X − 1 it has."""
    q, k = posenc.seeded_normal((2, 4), seed=1)
    sentence = text.learned_sentence(True, n_pos=n_pos, t=1, t_reach=500, table_len=table_len)
    first = int(sentence.split("Push t to ")[1].split(" ")[0])

    def learned_dev(t):
        return posenc.shift_test_report(q, k, n_positions=n_pos, offset=t, table_len=table_len)["learned_dev"]

    assert learned_dev(first) is None and learned_dev(first - 1) is not None
    assert f"last row ({table_len - 1})" in sentence


def test_the_learned_sentence_without_a_row_or_beyond_the_slider():
    no_row = text.learned_sentence(False, n_pos=64, t=200, t_reach=500, table_len=128)
    assert "rows 0 … 127" in no_row and "N − 1 + t = 263" in no_row  # 64 − 1 + 200
    far = text.learned_sentence(True, n_pos=64, t=16, t_reach=500, table_len=4096)
    assert "rows 0 … 4095 cover N − 1 + t for every t the slider reaches (up to 500)" in far  # 63 + 500 < 4096
    assert text.learned_error("no row 130", 70) == "Learned table at t = 70: no row 130."
    assert text.learned_error("no row 130") == "Learned table: no row 130."


def test_the_additive_explanation_names_the_tables_last_row():
    table = posenc.learned_table(60, 4, seed=0)
    assert table.shape[0] == 60
    assert "rows 0 … 59 only" in text.additive_explanation(60)
    with pytest.raises(ValueError):
        posenc.learned_lookup(table, [60])  # past the end: an error, as the sentence says


# --- the decay bound --------------------------------------------------------------------------------
def test_decay_summary_is_flat_for_one_pair_and_says_its_value():
    r = np.unique(np.round(np.geomspace(1, 20_000, 400)))
    title, sentence = text.decay_summary(r, [ref_decay_bound(x, 2, 10.0) for x in r])
    assert title == "RoPE's score bound is flat: 1 at every distance"
    assert sentence.startswith("it is 1 at every distance and does not fall")


def test_decay_summary_shrinks_or_ripples_by_the_numbers_it_quotes():
    r = np.array([1.0, 10.0, 100.0, 1000.0, 2000.0, 5000.0, 10000.0])
    falling = np.array([8.0, 6.0, 4.0, 3.0, 2.5, 2.0, 1.0])  # last decade (r >= 1000): at most 3.0
    title, sentence = text.decay_summary(r, falling)
    assert title == "RoPE's score bound shrinks with distance: 8 at r = 1, at most 3 beyond r = 1,000"
    assert "falls from 8 at distance 1 to at most 3 beyond distance 1,000" in sentence
    rippling = np.array([2.0, 1.0, 2.2, 0.5, 1.9, 0.6, 1.5])  # the last decade still reaches 1.9 > 0.9·2
    title, sentence = text.decay_summary(r, rippling)
    assert title == "RoPE's score bound ripples without a clear fall: still 1.9 beyond r = 1,000 (2 at r = 1)"
    assert "beyond distance 1,000 it still reaches 1.9 (2 at distance 1)" in sentence
    with pytest.raises(ValueError, match="distance and bound"):
        text.decay_summary(r, rippling[:-1])


def test_decay_summary_of_the_default_head_quotes_roformers_bound():
    """d = 64, b = 10,000 at the page's distances: the bound at r = 1 and the largest over the last
    decade, both from the formula written out here."""
    r = np.unique(np.round(np.geomspace(1, 20_000, 400)))
    bound = np.array([ref_decay_bound(x, 64, 10000.0) for x in r])
    title, _ = text.decay_summary(r, posenc.rope_decay_bound(r, 64, base=10000.0))
    tail = r >= r.max() / 10
    assert title == (
        f"RoPE's score bound shrinks with distance: {bound[0]:.3g} at r = 1, "
        f"at most {bound[tail].max():.3g} beyond r = {r[tail][0]:,.0f}"
    )
    assert "d = 64, base = 10000" in text.decay_subtitle(64, 10000.0)


# --- the notices --------------------------------------------------------------------------------------
def notices(rep, **kw):
    args = dict(n_pos=64, t=16, t_reach=500, table_len=128, dtype="float64", d=8, base=10000.0, decay="it falls")
    return text.notices(rep, **{**args, **kw})


def test_the_round_off_notice_says_pass_only_under_the_pass_mark():
    under = notices(report(rope=3e-15, sinusoid=17.3, tol=1e-12))[1]
    assert under == (
        "At t = 16, RoPE's shift deviation (3.0e-15 in float64) is round-off, under the pass mark 1.0e-12 "
        "that scales with float64's machine epsilon; the added sinusoid's is 1.7e+01."
    )
    over = notices(report(rope=2e-10, sinusoid=17.3, tol=1e-12), dtype="float32")[1]
    assert "(2.0e-10 in float32) is above the pass mark 1.0e-12" in over and "round-off, under" not in over


def test_the_sinusoid_notice_follows_its_deviation():
    drifts = notices(report(sinusoid=0.25))[3]
    assert "yet at t = 16 the added sinusoid's score changes by 2.5e-01" in drifts
    stays = notices(report(sinusoid=1e-13))[3]
    assert "also stays within the pass mark (1.0e-13)" in stays


def test_the_notices_carry_the_head_the_decay_and_the_learned_table():
    said = notices(report(learned=None), t=200, d=32, base=500.0, decay="it ripples")
    assert len(said) == 5
    assert said[0].startswith("In the heatmaps")
    assert said[2].startswith("At t = 200 the learned table has no row")
    assert said[4].endswith("here (d = 32, base 500) it ripples.")


# --- the page's other sentences -----------------------------------------------------------------------
def test_the_sentences_quote_their_numbers():
    assert text.typed_dim(6) == "head dim d = 6, from the typed vectors"
    fallback = text.typed_fallback("q must not be all zeros", 8)
    assert "q must not be all zeros" in fallback and "(d = 8)" in fallback
    assert "m, n < 48" in text.shift_test_intro(48, "float32") and "float32 round-off" in text.shift_test_intro(
        48, "float32"
    )
    full = {"seq_len": (1, 256), "head_dim": (2, 256)}
    every = text.slider_caption({**full, "shift_t": (1, 100)}, full)
    assert "**positions N** (1 … 256), **head dim d** (2 … 256) or **shift t** (1 … 100)" in every
    assert "short" not in every  # each slider reaches its whole range
    one = text.slider_caption({"seq_len": (1, 215), "head_dim": (2, 256), "shift_t": (1, 100)}, full)
    assert "so positions N stops short of the full range; letting go re-centres it on" in one
    two = text.slider_caption({"seq_len": (243, 256), "head_dim": (242, 256), "shift_t": (1, 20)}, full)
    assert "so positions N and head dim d stop short of the full range; letting go re-centres them" in two
    typed = text.slider_caption({"seq_len": (1, 256), "shift_t": (1, 1000)}, full)
    assert "Drag **positions N** (1 … 256) or **shift t** (1 … 1,000) above" in typed and "head dim" not in typed
    three = text.slider_caption(
        {"seq_len": (243, 256), "head_dim": (242, 256), "base": (100000, 5000000), "shift_t": (1, 20)},
        {**full, "base": (10, 5000000)},
    )
    assert "**base b** (100,000 … 5,000,000) or **shift t** (1 … 20)" in three
    assert "so positions N, head dim d and base b stop short of the full range" in three
    assert text.at_t(37).startswith("**At t = 37**")
    assert "Here k is the shift t, 9 " in text.shift_caption(9)
    residual = posenc.shift_residual(np.arange(16.0), 5, 8)
    title, subtitle = text.residual_titles(5, "float64", residual.max())
    assert title == "PE(p + 5) = R_k·PE(p) for every p"
    assert subtitle.endswith(f"(max {residual.max():.1e})") and residual.max() < 1e-12


def test_the_shift_charts_description_quotes_the_precision_and_a_typed_head_dim():
    said = text.shift_chart_description("float32", None)
    assert said.startswith("The shift test for RoPE (float32), an added sinusoid and an added learned table")
    assert "head dim d (the slider d above): one bar per encoding" in said
    assert "the sliders N, d, b, t and the learned table's rows above" in said
    assert "no bar where N − 1 + t is past its last row" in said
    typed = text.shift_chart_description("float64", 6)
    assert "with the typed vectors' head dim d = 6: one bar" in typed
    assert "the sliders N, b, t and the learned table's rows above" in typed


@pytest.mark.parametrize(
    ("row", "label"),
    [
        ({"ok": True, "deviation": 3.5e-07, "verdict": "fail"}, "3.5e-7 · fail"),
        ({"ok": True, "deviation": 0.0, "verdict": "pass"}, "0 (exact) · pass"),
        ({"ok": False, "deviation": float("nan"), "verdict": "n/a"}, "no row: the table is too short"),
    ],
)
def test_a_shift_bars_label_expression(row, label):
    """Evaluated on a bar's row as the browser does (tests/_chartspec); the number's own format is a stand-in."""
    from _chartspec import run_transforms, vega_names

    expr = text.deviation_label_expr("'3.5e-7'")
    (out,) = run_transforms([row], [{"calculate": expr, "as": "text"}], vega_names())
    assert out["text"] == label
