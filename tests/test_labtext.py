"""explorer.labtext, the lab page's words: every claim checked against numbers this test recomputes
itself from data/lab/results.json (plain means over seeds, hand-written loops), never from labtext's
own helpers; the recipe, progress-bar and caption texts against hand-made inputs."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from explorer import labtext

SHIPPED = Path(__file__).resolve().parent.parent / "data" / "lab" / "results.json"
DOC = json.loads(SHIPPED.read_text())
L = 64
FIVE = ("nope", "learned", "sinusoidal", "rope", "alibi")


def _mean(runs: dict, length: int) -> float | None:
    values = [per[str(length)] for per in runs.values() if per.get(str(length)) is not None]
    return sum(values) / len(values) if values else None


def _text(task: str) -> str:
    return labtext.honest_section(labtext.shown(DOC, task))


def test_the_shipped_settings_are_the_ones_these_tests_assume():
    assert DOC["settings"]["train_len"] == L and DOC["settings"]["eval_lens"] == [64, 128, 256, 512]


@pytest.mark.parametrize("task", ["markov", "kback"])
def test_the_honest_section_quotes_the_shipped_numbers_and_says_what_they_show(task):
    """Every claim recomputed here from results.json (means over seeds)."""
    entry = DOC["tasks"][task]
    runs, loss = entry["runs"], entry["metric"] == "loss"
    text = _text(task)

    def m(name, n):
        return _mean(runs[name], n)

    def better(a, b):  # a better than b by more than 0.05 in the task's metric
        return (b - a if loss else a - b) > 0.05

    beyond = [128, 256, 512]  # 2L, 4L, 8L of L = 64
    names = {64: "L", 128: "2L", 256: "4L", 512: "8L"}
    paper, low = m("rope+yarn", 512), m("rope+yarn:beta_fast=2", 512)
    assert f"{paper:.3f} with β_fast = 32 and {low:.3f} with β_fast = 2" in text
    # ALiBi: flat or not, and behind the best at L; the unsupported "helps where the answer is near" is gone
    alibi_flat = abs(m("alibi", 512) - m("alibi", 64)) <= 0.05
    assert f"**ALiBi**: {m('alibi', 64):.3f} at L, {m('alibi', 512):.3f} at 512" in text
    assert ("flat, as in Press" in text) == alibi_flat and ("not flat on this task" in text) == (not alibi_flat)
    assert "where the answer is near" not in text
    at_l = {e: m(e, 64) for e in FIVE}
    best = (min if loss else max)(at_l, key=at_l.__getitem__)
    assert (f"even at L it is behind {best}" in text) == better(at_l[best], at_l["alibi"])
    if task == "kback":  # the audit's figure: ≈0.46 at every length
        assert all(abs(m("alibi", n) - 0.46) < 0.02 for n in (64, *beyond))
    # sinusoidal and RoPE: their values at L and at 512, and whether they held
    sin_flat = abs(m("sinusoidal", 512) - m("sinusoidal", 64)) <= 0.05
    assert f"gives {m('sinusoidal', 64):.3f} at L and {m('sinusoidal', 512):.3f} at 512" in text
    assert ("Press et al. (2022, Fig. 1) found the same" in text) == (not sin_flat)
    rope_flat = abs(m("rope", 512) - m("rope", 64)) <= 0.05
    assert (
        f"the trained model: {m('rope', 64):.3f} at L, {m('rope', 128):.3f} at 2L, {m('rope', 512):.3f} at 512" in text
    )
    assert ("a limit after all" in text) == (not rope_flat)
    # PI at evaluation, no fine-tune, against plain RoPE at 2L and beyond
    assert "PI gives " + ", ".join(f"{m('rope+linear', n):.3f} at {names[n]}" for n in beyond) in text
    assert "plain RoPE " + ", ".join(f"{m('rope', n):.3f}" for n in beyond) in text
    pi_worse = [n for n in beyond if better(m("rope", n), m("rope+linear", n))]
    assert pi_worse == beyond  # the shipped numbers: PI without fine-tuning loses everywhere past L
    assert "worse than no scaling at 2L, 4L, 8L." in text
    # both fine-tunes at 256 (seed 0 only)
    plain, pift = runs["rope@ft256"]["0"], runs["rope+linear@ft256"]["0"]
    lens = [64, *beyond]
    assert f"Fine-tuning at 256 tokens ({DOC['settings']['ft_steps']} steps)" in text
    assert "(`rope@ft256`) " + ", ".join(f"{plain[str(n)]:.3f} at {names[n]}" for n in lens) in text
    assert "s = 4) " + ", ".join(f"{pift[str(n)]:.3f}" for n in lens) in text
    plain_wins = [n for n in lens if better(plain[str(n)], pift[str(n)])]
    pi_wins = [n for n in lens if better(pift[str(n)], plain[str(n)])]
    assert ("disagrees with Chen et al." in text) == (bool(plain_wins) and not pi_wins)
    if task == "kback":  # the PI fine-tune fails: ≈0.22 against 1.00
        assert abs(pift["256"] - 0.22) < 0.02 and plain["256"] == pytest.approx(1.0, abs=1e-3)
        assert "plain fine-tune is better at L, 2L, 4L, 8L: this disagrees" in text
        assert "Here PI fails even at L" in text
    # NTK-aware (bloc97)
    assert "NTK-aware scaling** (bloc97" in text
    assert ", ".join(f"{m('rope+ntk', n):.3f} at {names[n]}" for n in beyond) in text
    ntk_better = [names[n] for n in beyond if better(m("rope+ntk", n), m("rope", n))]
    assert f"better at {', '.join(ntk_better) or 'no length'}" in text
    ntk_held = [names[n] for n in beyond if abs(m("rope+ntk", n) - m("rope+ntk", 64)) <= 0.05]
    assert f"within 0.05 of its value at L {'at ' + ', '.join(ntk_held) if ntk_held else 'at no length past L'}" in text
    # NoPE trained 900 steps, against 300
    long = runs["nope (900 steps)"]["0"]
    assert f"`nope (900 steps)` against 300 steps): {long['64']:.3f} at L (against {m('nope', 64):.3f})" in text
    assert f"{long['512']:.3f} at 512 (against {m('nope', 512):.3f})" in text
    assert ("Longer training helps inside L" in text) == better(long["64"], m("nope", 64))
    long_flat = abs(long["512"] - long["64"]) <= 0.05
    assert ("with 900 steps and 2 layers this one does not" in text) == (not long_flat)


def test_a_claim_whose_rows_are_missing_is_left_out_not_invented():
    doc = json.loads(SHIPPED.read_text())
    runs = doc["tasks"]["markov"]["runs"]
    for name in ("rope+linear", "rope@ft256", "rope+ntk", "rope+yarn", "nope (900 steps)", "alibi"):
        del runs[name]
    text = labtext.honest_section(labtext.shown(doc, "markov"))
    for claim in (
        "Position Interpolation",
        "Fine-tuning at",
        "NTK-aware",
        "YaRN's β_fast",
        "NoPE trained longer",
        "ALiBi",
    ):
        assert claim not in text, claim
    assert "Sinusoidal 'can extrapolate'" in text and "What they cannot say" in text


@pytest.mark.parametrize("task", ["markov", "kback"])
def test_the_length_notes_name_the_best_and_worst_of_the_five_at_the_longest_length(task):
    entry = DOC["tasks"][task]
    loss = entry["metric"] == "loss"
    notes = labtext.length_notes(labtext.shown(DOC, task))
    at = {e: _mean(entry["runs"][e], 512) for e in FIVE}
    valued = {e: v for e, v in at.items() if v is not None}
    assert at["learned"] is None and "learned" not in valued  # no rows past L: no number at all
    order = sorted(valued, key=valued.__getitem__, reverse=not loss)  # best first
    best, worst = order[0], order[-1]
    assert notes[0] == (
        f"At 512 tokens (8·L) the best of the five is **{best}** ({valued[best]:.3f}), "
        f"the worst **{worst}** ({valued[worst]:.3f})."
    )
    uniform = math.log(8) if loss else 1 / 16
    bad = [e for e in FIVE if e in valued and (valued[e] > uniform if loss else valued[e] < uniform)]
    assert any(n.startswith("Worse than uniform") for n in notes) == bool(bad)
    if bad:
        assert f"Worse than uniform guessing ({uniform:.3f}) at 512: {', '.join(bad)}." in notes
    assert "The learned table has 64 rows: past L it has no value at all, not a bad one." in notes
    rope = entry["runs"]["rope"]
    assert (
        f"Plain RoPE: {_mean(rope, 64):.3f} at L, {_mean(rope, 128):.3f} at 2L, {_mean(rope, 512):.3f} at 512." in notes
    )


def _break_by_hand(curve, train_len, loss, worse_by=0.05, bins=64):
    """First 64-bin centre ≥ L whose mean is worse than the mean inside L by more than worse_by."""
    arr = [math.nan if v is None else float(v) for v in curve]
    inside = [v for v in arr[:train_len] if not math.isnan(v)]
    level = sum(inside) / len(inside)
    n = len(arr)
    edges = [int(i * n / bins) for i in range(bins + 1)]
    for a, b in itertools.pairwise(edges):
        centre = (a + b - 1) / 2
        vals = [v for v in arr[a:b] if not math.isnan(v)]
        if centre >= train_len and vals:
            mean = sum(vals) / len(vals)
            if (mean - level if loss else level - mean) > worse_by:
                return int(centre)
    return None


@pytest.mark.parametrize("task", ["markov", "kback"])
def test_the_position_notes_say_where_each_curve_breaks(task):
    entry = DOC["tasks"][task]
    pp, loss = entry["per_position"], entry["metric"] == "loss"
    notes = labtext.position_notes(pp, L, entry["metric"])
    expected = []
    for name in ("nope", "sinusoidal", "rope", "alibi"):
        pos = _break_by_hand(pp[name], L, loss)
        expected.append(
            f"**{name}**: worse by more than 0.05 from about position {pos} ({pos / L:.1f}·L)."
            if pos is not None
            else f"**{name}**: never worse by more than 0.05 than inside L."
        )
    assert notes == expected


def test_the_extension_notes_compare_the_scaled_curve_with_plain_rope():
    base = {64: 1.40, 512: 2.20}
    notes = labtext.extension_notes({64: 1.40, 512: 1.70}, base, method="m", train_len=64, metric="loss")
    assert notes == [
        "At 512 tokens: 1.700 with m, 2.200 without: better by 0.500.",
        "At L = 64: 1.400 against 1.400 (unchanged inside L).",
    ]
    notes = labtext.extension_notes(
        {64: 0.9, 512: 0.3}, {64: 1.0, 512: 0.5}, method="m", train_len=64, metric="accuracy"
    )
    assert notes[0] == "At 512 tokens: 0.300 with m, 0.500 without: worse by 0.200."
    assert "changes what the model was trained on" in notes[1]
    same = labtext.extension_notes(base, base, method="m", train_len=64, metric="loss")
    assert "the same by 0.000" in same[0]


def test_one_progress_bar_per_model_trained_running_or_waiting():
    progress = {"index": 1, "step": 7, "steps": 40, "loss": 1.25, "last": {"rope": 0.5, "alibi": 1.25}}
    bars = labtext.model_bars(("rope", "alibi", "nope"), progress, running=True)
    assert bars == [
        (1.0, "rope: trained (last training loss 0.500), evaluated"),
        (7 / 40, "alibi: step 7 of 40, training loss 1.250"),
        (0.0, "nope: waiting"),
    ]
    evaluating = labtext.model_bars(("rope",), {**progress, "index": 0, "step": 40}, running=True)
    assert evaluating == [(1.0, "rope: evaluating, training loss 1.250")]
    assert labtext.model_bars(("rope", "alibi"), {}, running=False) == [(0.0, "rope: waiting"), (0.0, "alibi: waiting")]


def test_a_jobs_texts_come_from_its_own_key():
    key = ("kback", ("rope", "alibi"), 32, 40, 96, 3)
    assert labtext.settings_text(key) == "kback, rope, alibi: 40 steps at L = 32, d = 96, seed 3"
    assert labtext.run_title(key) == "Your run: kback, 40 steps, L = 32, d = 96, seed 3"
    caption = labtext.train_caption(key, timeout=15.0)
    assert caption.startswith("2 model(s) × 40 steps at L = 32, d = 96, evaluated at 32, 64, 128, 256.")
    assert caption.endswith("stops within 15 s of closing the browser tab.")


@pytest.mark.parametrize(("preset", "layers"), [("gemma3-4b", 34), ("llama4-scout", 48), ("smollm3-3b", 36)])
def test_models_whose_layers_differ_offer_their_own_layers(preset, layers):
    # Gemma 3 4B: 34 decoder layers (5 local : 1 global); Llama 4 Scout: 48 (every 4th NoPE); SmolLM3 3B: 36
    assert labtext.recipe_layers(preset) == layers


@pytest.mark.parametrize("preset", ["none", "qwen2.5-7b-instruct", "llama3.1-8b", "not-a-model"])
def test_no_recipe_or_one_rope_for_every_layer_asks_for_no_layer(preset):
    assert labtext.recipe_layers(preset) == 0


def test_the_recipe_at_a_layer_clamps_warns_and_falls_back():
    r = labtext.recipe("gemma3-4b", 99)
    assert (
        r.layer == 33
        and r.spec is not None
        and r.notes == (("warning", "Gemma 3 4B has 34 layers: showing layer 33."),)
    )
    r = labtext.recipe("llama4-scout", 3)  # every 4th layer of Llama 4 has no RoPE
    assert r.key == "none" and r.spec is None and "NoPE layer" in r.notes[0][1]
    r = labtext.recipe("qwen2.5-7b-instruct", 3)
    assert r.layer is None and r.notes == (("caption", r.notes[0][1]),) and "does not matter" in r.notes[0][1]
    assert labtext.recipe("qwen2.5-7b-instruct", None).notes == ()
    assert labtext.recipe("none", 5) == labtext.Recipe("none", None, None, ())


def test_the_recipe_text_names_what_is_carried_over_and_what_is_not():
    r = labtext.recipe("qwen2.5-7b-instruct", None)
    text = labtext.recipe_text(r, head_dim=16, train_len=64, theta=10000.0)
    assert "rope_type yarn with its own factor = 4.0" in text
    assert "original_max_position_embeddings = 64 (this lab's training length, not the model's 32,768)" in text
    assert "head_dim = 16 (not 128) and base 10,000 (the tiny model's, not 1,000,000)" in text
    with pytest.raises(ValueError, match="recipe"):
        labtext.recipe_text(labtext.recipe("none", None), head_dim=16, train_len=64, theta=10000.0)


def test_the_yarn_ramp_caption_is_computed_for_the_head_dim():
    # low = floor(d·ln(L/(2π·β_fast)) / (2 ln b)), clamped at 0; high = ceil(d·ln(L/(2π·β_slow)) / (2 ln b))
    def end(beta, rounding):
        return rounding(16 * math.log(64 / (2 * math.pi * beta)) / (2 * math.log(10000.0)))

    text = labtext.yarn_ramp_caption(head_dim=16, train_len=64, beta=2.0, base=10000.0)
    assert f"pairs {max(end(2, math.floor), 0)}–{end(1, math.ceil)}" in text
    assert f"would give pairs {max(end(32, math.floor), 0)}–{end(1, math.ceil)}" in text
    assert "gives the same ramp" in labtext.yarn_ramp_caption(head_dim=16, train_len=64, beta=4.0, base=10000.0)


def test_the_attention_note_is_the_mean_largest_weight_inside_and_past_l():
    w = np.zeros((4, 4))
    w[0, 0], w[1, :2], w[2, :3], w[3, :] = 1.0, [0.5, 0.5], [0.2, 0.2, 0.6], [0.25] * 4
    text = labtext.attention_note(w, train_len=2, length=4)
    assert text.startswith(
        f"Mean largest weight per query: {(1 + 0.5) / 2:.3f} at positions < L, {(0.6 + 0.25) / 2:.3f}"
    )
    assert labtext.attention_note(w, train_len=4, length=4).endswith("at positions < L.")
