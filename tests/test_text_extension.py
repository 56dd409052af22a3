"""explorer.text.extension: the Context extension page's sentences, each checked against the values it
describes: θ_j = b^(−2j/d) and the methods' rules worked out here by hand (tests/_posenc_reference_impl.py),
not the numbers of the module under test."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _posenc_reference_impl import ref_inverse_frequencies, ref_yarn_correction_range

import posenc
from explorer import ropeblock
from explorer.compute import extension as compute
from explorer.text import extension as text

D, BASE, L, T = 64, 10000.0, 4096, 16384
THETA = np.array(ref_inverse_frequencies(D, BASE))
#: Pairs that never finish a turn in training (L·θ_j < 2π): without scaling, all of them leave the range at T > L.
SLOW = int(np.sum(L * THETA < 2 * np.pi))


def ext_for(rope_type, *, head_dim=D, target_len=T, **values):
    defaults = {"factor": 4.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "beta_fast": 32.0, "beta_slow": 1.0}
    defaults |= {"mscale": 0.0, "mscale_all_dim": 0.0, "attention_factor": 0.0, "truncate": True}
    defaults |= {"short_gen": "ones", "long_gen": "ramp", "partial_rotary_factor": 0.25}
    block = ropeblock.build_rope_block(rope_type, {**defaults, **values}, base=BASE, train_len=L, head_dim=head_dim)
    return ropeblock.extension_data(block, head_dim, train_len=L, target_len=target_len)


def shown(ext, rope_type) -> dict[str, dict]:
    return {m["label"]: m for m in text.metrics(ext, rope_type)}


# --- the metrics ------------------------------------------------------------------------------------
def test_linear_brings_every_pair_back_and_says_how_many_fewer():
    """s = T/L = 4: T·θ_j/4 = L·θ_j, never above the training maximum, so none of the SLOW pairs stays out."""
    m = shown(ext_for("linear"), "linear")
    assert SLOW > 0
    ood = m["Pairs out of distribution"]
    assert ood["value"] == f"0 of {D // 2}"
    assert ood["delta"] == f"{SLOW} fewer than unscaled" and ood["delta_color"] == "normal"  # fewer is good
    assert m["Attention factor a"]["value"] == "1.0000" and m["Logit multiplier a²"]["value"] == "1.0000"
    assert m["Slowest pair slowed down by"]["value"] == "× 4"


def test_no_scaling_has_no_delta_and_every_slow_pair_out():
    m = shown(ext_for("default"), "default")
    assert m["Pairs out of distribution"]["value"] == f"{SLOW} of {D // 2}"
    assert m["Pairs out of distribution"]["delta"] is None


def test_yarn_shows_its_attention_factor_and_its_ramp():
    m = shown(ext_for("yarn"), "yarn")
    a = 0.1 * math.log(4.0) + 1  # YaRN's default attention factor at s = 4
    assert float(m["Attention factor a"]["value"]) == pytest.approx(a, abs=5e-5)
    assert float(m["Logit multiplier a²"]["value"]) == pytest.approx(a * a, abs=5e-5)
    low, high = ref_yarn_correction_range(D, BASE, L)
    assert m["YaRN ramp: pairs"]["value"] == f"{low} – {high}"
    assert m["YaRN ramp: pairs"]["help"].startswith("Below low")
    reversed_ramp = shown(ext_for("yarn", beta_fast=1.0, beta_slow=8.0), "yarn")["YaRN ramp: pairs"]
    assert "reversed" in reversed_ramp["help"]


def test_llama3_counts_its_bands_by_wavelength():
    """kept: λ < L/high_freq_factor; divided: λ > L/low_freq_factor; smoothed: between (Llama 3.1's rule)."""
    lam = 2 * np.pi / THETA
    kept, divided = int(np.sum(lam < L / 4.0)), int(np.sum(lam > L / 1.0))
    m = shown(ext_for("llama3"), "llama3")
    assert m["Pairs kept / smoothed / divided"]["value"] == f"{kept} / {D // 2 - kept - divided} / {divided}"


def test_a_pair_that_stops_turning_is_said_to_stop():
    m = shown(ext_for("proportional", factor=1.0), "proportional")  # p = 0.25: the slow pairs get θ′ = 0
    assert m["Slowest pair slowed down by"]["value"] == "stopped"


# --- the notices -------------------------------------------------------------------------------------
def test_the_turns_notice_counts_the_pairs_that_finish_a_turn_within_l():
    said = text.notices(ext_for("default"), "default")
    full = D // 2 - SLOW
    assert said[0].startswith(f"{full} of {D // 2} pairs (the fastest")
    assert f"The other {SLOW} never finished a turn; at T = 16,384, {SLOW} of them reach angles" in said[0]
    every = text.notices(ext_for("default", head_dim=2), "default")[0]  # one pair, θ_0 = 1: L·θ_0 ≥ 2π
    assert every.startswith("Every pair (1 of 1) completes at least one turn within L = 4,096")


def test_the_linear_notice_quotes_t_over_l_and_this_blocks_factor():
    linear = text.notices(ext_for("linear", factor=2.0), "linear")[1]
    assert "(here T/L = 4; with this block's s = 2, " in linear  # 16384 / 4096
    # s·L = 8,192 < T: the pairs with T·θ_j/2 > L·θ_j and L·θ_j < 2π are the slow ones, all of them
    assert f"{SLOW} pairs are still out of range)" in linear
    assert "with this block" not in text.notices(ext_for("yarn"), "yarn")[1]


def test_the_attention_notice_follows_the_factor():
    a = 0.1 * math.log(4.0) + 1
    yarn = text.notices(ext_for("yarn"), "yarn")[3]
    assert f"a = {a:.4f}" in yarn and f"a² = {a * a:.4f}" in yarn and yarn.endswith("attention gets sharper.")
    assert text.notices(ext_for("linear"), "linear")[3].startswith("This block's attention factor is 1")


# --- the other sentences -----------------------------------------------------------------------------------
def test_the_controls_caption_quotes_s_times_l_and_the_current_length():
    assert text.controls_caption("linear", 16.5, 4096, T).startswith("s·L = 67,584 tokens")  # 16.5 × 4,096
    assert "T = 20,000" in text.controls_caption("dynamic", 2.5, 4096, 20_000)
    assert text.controls_caption("default", None, 4096, T).startswith("The head size")


@pytest.mark.parametrize("s, target_len, last, inside", [(2.0, 4096, "2,047.5", True), (2.0, T, "8,191.5", False)])
def test_the_interpolation_caption_says_where_the_last_token_goes(s, target_len, last, inside):
    moved, at = compute.interpolation(s, target_len)
    assert list(moved) == [m / s for m in compute.PI_POSITIONS] and at == (target_len - 1) / s
    caption = text.interpolation_caption(s, target_len, at, L)
    assert f"is rotated as position {last}" in caption
    assert caption.endswith("inside the trained range.") if inside else caption.endswith("still beyond L = 4,096.")


def test_the_ntk_config_block_gives_the_same_frequencies_as_the_sentence_says():
    """'both blocks below give the same frequencies': the config.json form (rope_type default with
    b′ = b·s^(d/(d−2)) as rope_theta) against posenc's ntk block."""
    ntk = {"rope_type": "ntk", "rope_theta": BASE, "factor": 4.0}
    b2 = compute.ntk_config_base(ntk, D)
    assert b2 == pytest.approx(BASE * 4.0 ** (D / (D - 2)), rel=1e-12)
    a, _ = posenc.rope_inverse_frequencies(ntk, D, max_position_embeddings=L)
    np.testing.assert_allclose(ref_inverse_frequencies(D, b2), a, rtol=1e-12)
    assert "**ntk**" in text.not_in_hf("ntk")


def test_the_precision_stop_is_float16s_largest_number():
    assert text.precision_stop(ropeblock.FLOAT16_MAX_POSITION) == (
        f"Positions stop at {int(np.finfo(np.float16).max):,}, the largest number a float16 holds."
    )
    assert "escaped \\*" in text.invalid_block("escaped \\*")


# --- the charts' titles and subtitles ----------------------------------------------------------------------
def test_the_angle_titles_count_the_pairs_and_quote_t():
    assert text.angle_reach_title(9, 32, T) == "9 of 32 pairs turn further at T = 16,384 than they ever did in training"
    assert text.angle_reach_title(0, 32, 4096) == "No pair meets an unseen angle at T = 4,096"
    both = text.live_angle_title(True, True, T)
    assert both.startswith("Drag s and T: the largest angle per pair,") and "16,384" not in both  # T moves: not quoted
    assert text.live_angle_title(True, False, 131072).startswith("Drag s: the largest angle per pair at T = 131,072,")
    assert text.live_angle_title(False, True, T).startswith("Drag T:")


def test_the_wavelength_title_counts_stretched_and_slow_pairs():
    assert text.wavelength_title(32, 32, 9) == (
        "Scaling stretches 32 of 32 wavelengths; 9 pairs are longer than L and never complete a turn in training"
    )
    assert text.wavelength_title(0, 1, 1) == (
        "No wavelength is stretched; 1 pair is longer than L and never completes a turn in training"
    )


def test_the_ratio_title_quotes_each_methods_own_numbers():
    s = 4.0
    assert text.ratio_title("linear", np.full(32, 1 / s), s, None, None, None) == (
        "Linear interpolation divides every pair by s = 4: the ratio is 1/4 everywhere"
    )
    assert text.ratio_title("yarn", np.ones(32), s, None, (10, 20), None).endswith("nothing is rescaled")
    # NTK: b′ = b·s^(d/(d−2)) and θ′_j/θ_j = (b′/b)^(−2j/d), so the slowest pair (j = d/2 − 1) is divided by s
    ratio = (s ** (D / (D - 2))) ** (-2 * np.arange(D // 2) / D)
    assert text.ratio_title("ntk", ratio, s, None, None, None).endswith("divides the slowest by 4")
    assert text.ratio_title("dynamic", ratio, s, None, None, T).startswith("Dynamic NTK at T = 16,384: a larger")
    ramp = np.linspace(1, 1 / s, 32)
    assert "pairs below 10 keep θ, pairs above 20 are divided by s = 4," in text.ratio_title(
        "yarn", ramp, s, None, (10, 20), None
    )
    assert "reversed): pairs up to 10 are divided by s = 4, pairs from 20 on keep θ" in text.ratio_title(
        "yarn", ramp, s, None, (20, 10), None
    )
    bands = ["kept"] * 3 + ["smoothed"] * 5 + ["divided"] * 24
    assert text.ratio_title("llama3", ramp, 8.0, bands, None, None) == (
        "Llama 3: 3 pairs kept, 5 smoothed, 24 divided by s = 8"
    )
    assert text.ratio_title("longrope", ramp, None, None, None, None).startswith("LongRoPE: each pair")
    assert text.ratio_title("linear", ramp, None, None, None, None).endswith("s = s: the ratio is 1/s everywhere")


def test_the_angle_step_title_compares_the_fastest_pairs_steps():
    assert text.angle_step_title(1.0, 0.25) == (
        "The fastest pair now moves 0.25 rad per token instead of 1: neighbours are 4× harder to tell apart"
    )
    assert text.angle_step_title(1.0, 1.0).startswith("The fastest pair still moves 1 rad per token:")
    assert text.angle_step_title(1.0, 0.0).startswith("No pair turns any more")


def test_the_attention_factor_title_squares_a():
    a = 0.1 * math.log(4.0) + 1  # 1.1386…, a² = 1.2965…
    assert text.attention_factor_title("YaRN", a, 4.0) == (
        "YaRN: a = 1.139 at s = 4, so every logit is multiplied by a² = 1.296"
    )


def test_the_interpolation_strip_quotes_l_and_s_times_l():
    assert text.strip_title(2.5) == "Position Interpolation, s = 2.5: token m is rotated as if it sat at m/s"
    said = text.strip_subtitle(2.0, 2048)
    assert said.startswith("2,048 → 4,096 tokens:") and "range 0 … 2,048, neighbours 1/2 apart instead of 1." in said
    assert text.strip_subtitle(1.0, 2048).startswith("s = 1 changes nothing")


def test_the_phase_error_title_names_where_each_dtype_loses_the_phase():
    m = [0.0, 1000.0, 2000.0, 3000.0]
    fine = {"float32": [0, 1e-5, 2e-5, 3e-5], "float16": [0, 0.3, 0.78, 0.5]}
    assert text.phase_error_title(m, fine) == (
        "Up to m = 3,000 no dtype reaches error 1: the largest errors are float32 3e-05, float16 0.78"
    )
    lost = {"float32": [0, 1e-5, 2e-5, 3e-5], "float16": [0, 0.5, 1.0, 2.0], "bfloat16": [0, 1.5, 2, 2]}
    assert text.phase_error_title(m, lost).endswith("for float16 by m = 2,000, bfloat16 by m = 1,000")
    assert "errors below 1e-09 drawn at 1e-09" in text.phase_error_subtitle(1e-9)[0]


def test_the_temperature_subtitle_quotes_llama4s_constants():
    assert "τ = 1 + 0.1·ln(⌊(p+1)/8192⌋ + 1)" in text.temperature_subtitle(0.1, 8192.0)[0]
