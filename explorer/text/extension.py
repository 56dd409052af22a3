"""The sentences of the Context extension page (pages/5_Context_extension.py), from the numbers it
computed (`explorer.ropeblock.Extension`, explorer.compute.extension). Pure: values in, markdown out,
author-written words only (posenc's message about a rejected block arrives escaped).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from explorer.ropeblock import Extension
from explorer.text import join_names

INTRO = (
    "A RoPE model trained on L tokens has only ever seen the angles m·θ_j for m < L. Run it on a "
    "longer text and its slow pairs — those that never completed a full turn in training — reach "
    "angles it has never met. Every context-extension method answers the same question differently: "
    "which pairs to slow down, by how much, and whether to sharpen attention to compensate."
)
NO_OTHER_SETTINGS = "This method has no other settings."
OOD_LATEX = (
    r"\text{pair } j \text{ is out of distribution at } T \iff T\,\theta'_j > L\,\theta_j"
    r"\ \text{ and }\ L\,\theta_j < 2\pi"
)
OOD_CAPTION = (
    "θ_j = b^(−2j/d) as trained, θ′_j after scaling, a = attention factor (multiplies cos "
    "and sin, so logits scale by a²)."
)
BLOCK_EXPANDER = "The rope block these charts use (as in a model's config.json)"
NOT_HF_EXPANDER = "The rope block these charts use, and how a config.json writes it"
#: The attention-factor chart's reference curve, drawn when the block has no factor of its own.
YARN_REFERENCE = "YaRN with defaults: 0.1·ln s + 1"


def controls_caption(rope_type: str, factor: float | None, train_len: int, target_len: int) -> str:
    """The line under the method's main controls (one caption: a caption under one box would add a row)."""
    notes = [] if factor is None else [f"s·L = {factor * train_len:,.0f} tokens: the length this factor is made for."]
    if rope_type in ("dynamic", "longrope"):
        notes.append(f"The current sequence length is the target length T = {target_len:,}.")
    notes.append(
        "The head size, the base, a real model's settings and the method's other knobs are in the sidebar (›)."
    )
    return " ".join(notes)


def invalid_block(message: str) -> str:
    return f"This rope block is not valid, so the charts show no scaling instead: {message}"


def not_in_hf(rope_type: str) -> str:
    """Why the block is shown twice: HF has no such rope_type (static NTK), and how a config writes it."""
    return (
        f"HF transformers has no rope_type **{rope_type}** (a config with it fails to load). Static "
        "NTK-aware scaling is written as the plain rope_type with the enlarged base b′ = b·s^(d/(d−2)) "
        "as rope_theta; both blocks below give the same frequencies."
    )


def metrics(ext: Extension, rope_type: str) -> list[dict]:
    """The four metrics under the formula, as st.metric's keywords."""
    n_ood = int(ext.out_of_distribution.sum())
    change = n_ood - ext.out_of_distribution_unscaled
    delta = f"{abs(change)} {'fewer' if change < 0 else 'more'} than unscaled" if change else "as many as unscaled"
    shown: list[dict] = [
        dict(label="Attention factor a", value=f"{ext.attention_factor:.4f}"),
        dict(label="Logit multiplier a²", value=f"{ext.logit_multiplier:.4f}"),
        dict(
            label="Pairs out of distribution",
            value=f"{n_ood} of {ext.inv_freq.size}",
            delta=None if rope_type == "default" else delta,
            delta_arrow="down" if change < 0 else "up" if change > 0 else "off",
            delta_color="normal" if change < 0 else "inverse" if change > 0 else "off",  # fewer is good: green
            help="Pairs whose angle at T exceeds the largest angle of training and that never completed a "
            "full turn in training.",
        ),
    ]
    if ext.yarn_range is not None:
        low, high = ext.yarn_range
        shown.append(
            dict(
                label="YaRN ramp: pairs",
                value=f"{low:g} – {high:g}",
                help="Below low: θ kept (≥ beta_fast turns over L). Above high: θ/s (< beta_slow turns)."
                if low <= high
                else "beta_fast < beta_slow: HF computes the ramp reversed. Up to high: θ/s; from low on: θ kept.",
            )
        )
    elif ext.bands is not None:
        counts = [int((ext.bands == b).sum()) for b in ("kept", "smoothed", "divided")]
        shown.append(dict(label="Pairs kept / smoothed / divided", value=" / ".join(map(str, counts))))
    else:
        shown.append(
            dict(
                label="Slowest pair slowed down by",
                value=f"× {ext.slowest_division:.4g}" if math.isfinite(ext.slowest_division) else "stopped",
                help="θ_last / θ′_last: how many times more tokens the slowest pair needs per turn.",
            )
        )
    return shown


def interpolation_caption(factor: float, target_len: int, last: float, train_len: int) -> str:
    """Where Position Interpolation with s = `factor` puts the last token of T (rotated as `last`)."""
    return (
        f"With rope_type linear and s = {factor:g}, the last token of T (m = {target_len - 1:,}) "
        f"is rotated as position {f'{last:,.2f}'.rstrip('0').rstrip('.')}"
        + (" — inside the trained range." if last < train_len else f" — still beyond L = {train_len:,}.")
    )


def precision_stop(last_position: int) -> str:
    return f"Positions stop at {last_position:,}, the largest number a float16 holds."


def notices(ext: Extension, rope_type: str) -> list[str]:
    """The page's "What to notice" list, for the block `ext` of method `rope_type`."""
    train_len, target_len, af = ext.train_len, ext.target_len, ext.attention_factor
    n_pairs, n_ood = ext.inv_freq.size, int(ext.out_of_distribution.sum())
    n_full_turn = int(np.sum(train_len * ext.inv_freq >= 2 * np.pi))  # pairs that finish a turn within L
    if n_full_turn == n_pairs:
        turns = (
            f"Every pair ({n_pairs} of {n_pairs}) completes at least one turn within L = {train_len:,}: any angle "
            "it meets later repeats one seen in training, so no pair can leave the trained range."
        )
    else:
        turns = (
            f"{n_full_turn} of {n_pairs} pairs (the fastest, on the left of the charts) complete at least one "
            f"turn within L = {train_len:,}: any angle they meet later repeats one seen in training. The other "
            f"{n_pairs - n_full_turn} never finished a turn; at T = {target_len:,}, {n_ood} of them reach angles "
            "never seen with this block."
        )
    linear = ""
    if rope_type == "linear":
        still = "no pair is out of range" if n_ood == 0 else f"{n_ood} pairs are still out of range"
        linear = f"; with this block's s = {ext.block['factor']:g}, {still}"
    if np.isclose(af, 1.0):
        sharpen = (
            "This block's attention factor is 1: logits are not rescaled. YaRN and LongRoPE multiply cos and "
            "sin by a factor a (tab **Attention**), above 1 by default once s > 1."
        )
    else:
        sharper = "attention gets sharper." if af > 1 else "attention gets flatter."
        sharpen = f"This block multiplies cos and sin by a = {af:.4f}, so every logit is scaled by a² = {af**2:.4f}: {sharper}"
    return [
        turns,
        "**Linear** (Position Interpolation) divides every pair by s: it brings every pair back in range once "
        f"s·L ≥ T (here T/L = {target_len / train_len:,.4g}{linear}), and it divides the fastest pair's step per "
        "token by s too, so for s > 1 neighbouring tokens become harder to tell apart.",
        "For s > 1, **NTK-aware** keeps pair 0 exactly and slows every later pair a little more, the slowest s-fold "
        "(for d > 2); **YaRN** keeps the pairs that turn more than beta_fast times over L, divides those turning "
        "fewer than beta_slow times by s and blends in between; **Llama 3** does the same by wavelength bands "
        "(tab **Rescaling**).",
        sharpen,
        "**Dynamic NTK** recomputes the base from the current length: with T ≤ L it changes nothing.",
        "Tab **Precision**: float16 holds every whole number up to 2,048 and bfloat16 up to 256, so the unscaled "
        "pair 0's angle m·θ_0 = m is exact up to there; beyond, and for every other pair (θ_j and the product "
        "m·θ_j are rounded), the angle's error grows with m. Compute the angles in float32 and cast afterwards.",
        "A claim met in tutorials: RoPE has “no length limit”. The formula runs at any m, but a model meets "
        "angles past L it never saw in training (the pairs counted above): that is what these methods repair.",
    ]


# --- the charts' titles and subtitles (explorer.charts.extension) ------------------------------------
#: The live angle chart's read-out (a Vega expression adds the count in the browser).
NO_UNSEEN_ANGLE = "no pair meets an unseen angle"
UNSEEN_ANGLES = " pairs meet unseen angles"


def angle_reach_title(n_ood: int, n_pairs: int, target_len: int) -> str:
    if n_ood:
        return f"{n_ood} of {n_pairs} pairs turn further at T = {target_len:,.0f} than they ever did in training"
    return f"No pair meets an unseen angle at T = {target_len:,.0f}"


#: How the live angle chart's read-out and title name a method's own knobs when they are its sliders, and a pair of
#: them when both are
KNOB_NAMES = {
    "beta_fast": "β_fast",
    "beta_slow": "β_slow",
    "low_freq_factor": "low_freq",
    "high_freq_factor": "high_freq",
    "partial_rotary_factor": "p",
}
KNOB_PAIRS = {("beta_fast", "beta_slow"): "β", ("low_freq_factor", "high_freq_factor"): "the band factors"}


#: How the title names the sliders of the model's sizes (explorer.ropeblock.SHAPE_SLIDERS)
SIZE_NAMES = {"head_dim": "d", "base": "b"}


def live_angle_title(
    factor_slider: bool,
    target_slider: bool,
    target_len: int,
    train_slider: bool = False,
    knobs: tuple[str, ...] = (),
    sizes: tuple[str, ...] = (),
) -> str:
    """The live angle chart's title: which of its sliders to drag (`knobs`: a method's knobs that are sliders too;
    `sizes`: which of head_dim and base are), and T unless T is one of them."""
    knob_words = [KNOB_PAIRS[knobs]] if knobs in KNOB_PAIRS else [KNOB_NAMES[k] for k in knobs]
    size_words = [SIZE_NAMES[k] for k in SIZE_NAMES if k in sizes]
    sliders = (("s", factor_slider), ("L", train_slider), ("T", target_slider), *((w, True) for w in size_words))
    sliders += tuple((w, True) for w in knob_words)
    words = [w for w, on in sliders if on]
    at_t = "" if target_slider else f" at T = {target_len:,.0f}"
    return f"Drag {join_names(words)}: the largest angle per pair{at_t}, against training"


def wavelength_title(n_stretched: int, n_pairs: int, n_slow: int) -> str:
    """`n_stretched` of the `n_pairs` wavelengths grow; `n_slow` are longer than L (before scaling)."""
    return (
        f"Scaling stretches {n_stretched} of {n_pairs} wavelengths; " if n_stretched else "No wavelength is stretched; "
    ) + (
        "1 pair is longer than L and never completes a turn in training"
        if n_slow == 1
        else f"{n_slow} pairs are longer than L and never complete a turn in training"
    )


def ratio_title(
    rope_type: str, ratio: np.ndarray, factor: float | None, bands, yarn_range, target_len: int | None
) -> str:
    """The frequency-ratio chart's title, from the ratio θ′_j/θ_j per pair and the block's own numbers."""
    s = f"{factor:g}" if factor else "s"
    if np.allclose(ratio, 1.0):
        return "Every pair keeps its frequency (ratio 1): nothing is rescaled"
    if rope_type == "linear":
        return f"Linear interpolation divides every pair by s = {s}: the ratio is 1/{s} everywhere"
    if rope_type in ("ntk", "dynamic"):
        who = "NTK-aware" if rope_type == "ntk" or target_len is None else f"Dynamic NTK at T = {target_len:,.0f}"
        return f"{who}: a larger base leaves the fastest pair alone and divides the slowest by {1 / ratio[-1]:.3g}"
    if rope_type == "yarn" and yarn_range is not None:
        low, high = yarn_range
        if low > high:  # beta_fast < beta_slow: HF computes the ramp reversed (posenc.methods.yarn_ramp)
            return (
                f"YaRN with beta_fast < beta_slow (HF computes it reversed): pairs up to {high:g} are divided by "
                f"s = {s}, pairs from {low:g} on keep θ, a linear ramp between"
            )
        return f"YaRN: pairs below {low:g} keep θ, pairs above {high:g} are divided by s = {s}, a linear ramp between"
    if rope_type == "llama3" and bands is not None:
        counts = {b: int(np.sum(np.asarray(bands) == b)) for b in ("kept", "smoothed", "divided")}
        return (
            f"Llama 3: {counts['kept']} pairs kept, {counts['smoothed']} smoothed, "
            f"{counts['divided']} divided by s = {s}"
        )
    if rope_type == "longrope":
        return "LongRoPE: each pair is divided by its own factor from the list"
    return "Frequency ratio θ′_j / θ_j per pair"


def angle_step_title(before: float, after: float) -> str:
    """The angle-step chart's title, from the fastest pair's step per token before (θ_0) and after (θ′_0)."""
    if after == 0:  # p-RoPE with partial_rotary_factor 0: no pair turns at all
        return "No pair turns any more (θ′_j = 0): the rotation no longer tells positions apart"
    if np.isclose(before / after, 1.0):
        return f"The fastest pair still moves {after:.3g} rad per token: neighbouring tokens stay as easy to tell apart"
    return (
        f"The fastest pair now moves {after:.3g} rad per token instead of {before:.3g}: "
        f"neighbours are {before / after:.3g}× harder to tell apart"
    )


#: The live attention-factor chart's curve
AF_LIVE_CURVE = "YaRN, this block"


def af_live_title(sliders: tuple[str, ...]) -> str:
    """The live attention-factor chart's title, naming its sliders (true at every value they take)."""
    # the sliders are named by their config.json keys, as the sidebar's boxes name them
    return f"Drag {join_names(list(sliders), 'or')}: YaRN's attention factor a against s"


def attention_factor_title(curve: str, attention_factor: float, factor: float) -> str:
    return (
        f"{curve}: a = {attention_factor:.4g} at s = {factor:g}, so every logit is "
        f"multiplied by a² = {attention_factor**2:.4g}"
    )


def strip_title(factor: float) -> str:
    return f"Position Interpolation, s = {factor:g}: token m is rotated as if it sat at m/s"


def strip_subtitle(factor: float, train_len: int) -> str:
    if factor == 1:
        return "s = 1 changes nothing: every token is rotated at its own position."
    return (
        f"{train_len:,.0f} → {train_len * factor:,.0f} tokens: the long text's positions are squeezed into the "
        f"trained range 0 … {train_len:,.0f}, neighbours 1/{factor:g} apart instead of 1."
    )


def phase_error_title(positions, errors: Mapping[str, np.ndarray]) -> str:
    """The precision chart's title from the errors drawn: which dtypes reach error 1 (the rotation as
    good as random) and by which drawn position, else the largest error of each."""
    m = np.asarray(positions, dtype=float)
    worst = {k: float(np.max(v)) for k, v in errors.items()}
    lost = {k: float(m[int(np.argmax(np.asarray(v) >= 1.0))]) for k, v in errors.items() if worst[k] >= 1.0}
    if lost:
        said = ", ".join(f"{k} by m = {p:,.0f}" for k, p in lost.items())
        return f"Low precision loses the phase at long positions: error 1 (as good as random) for {said}"
    parts = ", ".join(f"{k} {worst[k]:.2g}" for k in errors)
    return f"Up to m = {m.max():,.0f} no dtype reaches error 1: the largest errors are {parts}"


def phase_error_subtitle(floor: float) -> list[str]:
    return [
        f"cos/sin of m·θ′_j computed in each dtype vs exact, worst pair per position "
        f"(log scale; errors below {floor:g} drawn at {floor:g}).",
        "Grey line: error 1, where the rotation is as good as random.",
    ]


def temperature_subtitle(attn_scale: float, floor_scale: float) -> list[str]:
    """The temperature chart's subtitle: Llama 4's τ with its two constants, then YaRN's a² beside it."""
    return [
        f"Llama 4 multiplies q on its NoPE layers by τ = 1 + {attn_scale:g}·ln(⌊(p+1)/{floor_scale:g}⌋ + 1), "
        "a step function of the query's position p.",
        "YaRN multiplies cos and sin (q and k) by a, once per model, from its factor s: "
        "drawn here with s = T/L for a context of T = p + 1 tokens.",
    ]
