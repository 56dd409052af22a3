"""Context extension: widget values -> a config.json rope block -> the numbers the page charts.

Pure functions (no Streamlit); the page wraps `extension_data` and `phase_error_curves` in
`explorer.layout.cached`. All maths is posenc's: this module only assembles the rope block the way
a model's ``config.json`` spells it and calls posenc with it.

The rope block has exactly HF transformers' keys (``rope_type``, ``rope_theta``, ``factor``,
``original_max_position_embeddings``, ``beta_fast`` …), so what the page shows can be compared with
a real config. Keys whose widget is at its "not set" value (``unset`` in
`explorer.vocabulary.BLOCK_KEY_WIDGETS`: 0 for ``mscale``, ``mscale_all_dim``, ``attention_factor``)
are left out, as they would be in a config that does not mention them. The keys each method reads,
their kinds and HF's defaults come from `posenc.ROPE_METHODS`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType
from typing import Any

import numpy as np

import posenc
from explorer.vocabulary import BASE_OPTIONS, BLOCK_KEY_WIDGETS, HEAD_DIM, TARGET_STOPS, TRAIN_LEN

#: The widgets that stand in for a list key: a URL cannot hold d/2 numbers, so the page offers
#: generators (`longrope_factors`) instead.
LIST_GENERATORS: Mapping[str, str] = MappingProxyType({"short_factor": "short_gen", "long_factor": "long_gen"})


def _widget_keys(method: posenc.RopeMethod) -> tuple[str, ...]:
    """The widget keys of a method's declared block keys, in its order (original_max_position_embeddings
    is the page's shared trained length, ``train_len``)."""
    return tuple(
        LIST_GENERATORS[key.name] if key.kind == "float_list" else key.name
        for key in method.keys
        if key.name != "original_max_position_embeddings"
    )


#: The widget keys (explorer.widgets) each method reads, in display order: from posenc.methods.
METHOD_PARAMS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {name: _widget_keys(method) for name, method in posenc.ROPE_METHODS.items()}
)

#: LongRoPE factor-list generators offered instead of typing d/2 numbers.
LONGROPE_GENERATORS = ("ones", "ramp", "constant")

#: Factors at which the attention-factor curve is drawn.
AF_CURVE_FACTORS = np.geomspace(1.0, 128.0, 57)

#: Largest position a float16 can hold; the precision chart stops there (posenc raises beyond).
FLOAT16_MAX_POSITION = 65504
PRECISION_DTYPES = ("float32", "float16", "bfloat16")


def longrope_factors(kind: str, n_pairs: int, factor: float) -> list[float]:
    """A LongRoPE factor list of length n_pairs: "ones" (all 1.0), "ramp" (1 -> factor, fastest
    pair first, linear in j) or "constant" (all factor: plain interpolation)."""
    if kind not in LONGROPE_GENERATORS:
        raise ValueError(f"kind must be one of {', '.join(LONGROPE_GENERATORS)}, got {kind!r}")
    if kind == "ones":
        return [1.0] * n_pairs
    if kind == "constant":
        return [float(factor)] * n_pairs
    return np.linspace(1.0, float(factor), n_pairs).tolist()


def list_kinds(block: Mapping[str, Any], head_dim: int, kinds: Mapping[str, str] | None) -> dict[str, str] | None:
    """The generators of a LongRoPE block's lists ({list key: a kind of LONGROPE_GENERATORS}) when its lists are
    `longrope_factors` of `kinds` (the page's choices) at its factor s, so they follow s; None otherwise (a preset's
    published lists, a block without s, kinds that do not give its lists, or two lists of ones: nothing follows s)."""
    factor = block.get("factor")
    if not kinds or factor is None or set(kinds) != set(LIST_GENERATORS) or set(kinds.values()) == {"ones"}:
        return None
    made = {key: longrope_factors(kind, head_dim // 2, float(factor)) for key, kind in kinds.items()}
    return dict(kinds) if all(list(block.get(key) or ()) == entries for key, entries in made.items()) else None


def build_rope_block(
    rope_type: str, values: Mapping[str, Any], *, base: float, train_len: int, head_dim: int
) -> dict[str, Any]:
    """The config.json rope block for `rope_type` from the page's widget values.

    ``values`` maps the keys of ``METHOD_PARAMS[rope_type]`` to widget values; other keys are
    ignored. ``head_dim`` sets the length of LongRoPE's lists (head_dim // 2).
    """
    block: dict[str, Any] = {"rope_type": rope_type, "rope_theta": float(base)}
    names = METHOD_PARAMS.get(rope_type, ())
    if not names:
        return block
    method = posenc.ROPE_METHODS[rope_type]
    if "original_max_position_embeddings" in method.key_names:  # HF ignores it elsewhere, with a warning
        block["original_max_position_embeddings"] = int(train_len)
    for name in names:
        value = values[name]
        if name in LIST_GENERATORS.values():
            key = next(k for k, generator in LIST_GENERATORS.items() if generator == name)
            block[key] = longrope_factors(value, head_dim // 2, values["factor"])
            continue
        unset = BLOCK_KEY_WIDGETS[name].unset
        if unset is None or value != unset:
            block[name] = {"bool": bool, "int": int}.get(method.key(name).kind, float)(value)
    return block


@dataclass(frozen=True)
class Extension:
    """Everything the context-extension charts need, per pair j unless noted."""

    block: dict  # the rope block actually used (the default one after an error)
    error: str | None  # posenc's message when the requested block was rejected
    train_len: int
    target_len: int
    inv_freq: np.ndarray  # θ_j as trained
    scaled_inv_freq: np.ndarray  # θ'_j after scaling
    attention_factor: float
    logit_multiplier: float  # a², what every attention logit is multiplied by
    slowest_division: float  # θ_last / θ'_last: how much the slowest pair is slowed down
    train_angle: np.ndarray  # L·θ_j, the largest angle of training
    target_angle: np.ndarray  # T·θ'_j, the largest angle at the target length
    out_of_distribution: np.ndarray  # bool, posenc.out_of_distribution_pairs
    out_of_distribution_unscaled: int  # how many pairs extrapolation (no scaling) would push out
    bands: np.ndarray | None  # llama3: "kept" | "smoothed" | "divided"
    yarn_range: tuple[float, float] | None  # yarn: (low, high) pair indices of the ramp
    distances: np.ndarray  # relative distances r for the score curve
    score_before: np.ndarray  # mean cos(r·θ_j)
    score_after: np.ndarray  # a²·mean cos(r·θ'_j)
    af_factors: np.ndarray  # factors s for the attention-factor curve
    af_curve: np.ndarray | None  # attention factor of this block at each s (None: no factor)


def extension_data(block: Mapping[str, Any], head_dim: int, *, train_len: int, target_len: int) -> Extension:
    """posenc's view of a rope block at the target length.

    The block is evaluated with max_position_embeddings = L and seq_len = T (dynamic NTK and
    LongRoPE depend on the current length). If posenc rejects it (ValueError/TypeError), the
    message is kept in ``error`` and the default (unscaled) block is used instead.
    """
    base = block.get("rope_theta", posenc.scaling.DEFAULT_ROPE_THETA)
    default_block = {"rope_type": "default", "rope_theta": base}
    inv_freq, _ = posenc.rope_inverse_frequencies(default_block, head_dim, max_position_embeddings=train_len)
    error = None
    try:
        scaled, af = posenc.rope_inverse_frequencies(
            block, head_dim, max_position_embeddings=train_len, seq_len=target_len
        )
    except (ValueError, TypeError) as exc:
        error = str(exc)
        block = default_block
        scaled, af = inv_freq, 1.0
    rope_type = posenc.rope_type_of(block)

    ood = posenc.out_of_distribution_pairs(inv_freq, scaled, trained_length=train_len, target_length=target_len)
    ood_unscaled = posenc.out_of_distribution_pairs(
        inv_freq, inv_freq, trained_length=train_len, target_length=target_len
    )
    bands = None
    if rope_type == "llama3":
        bands = posenc.llama3_bands(
            inv_freq,
            factor=block["factor"],
            low_freq_factor=block["low_freq_factor"],
            high_freq_factor=block["high_freq_factor"],
            original_max_position_embeddings=train_len,
        )
    yarn_range = None
    if rope_type == "yarn":
        yarn = posenc.ROPE_METHODS["yarn"]
        yarn_range = posenc.yarn_correction_range(
            head_dim,
            base=base,
            original_max_position_embeddings=train_len,
            **{name: block.get(name, yarn.key(name).default) for name in ("beta_fast", "beta_slow", "truncate")},
        )

    # integer distances 1 … T, log-spaced (dense where the fast pairs oscillate)
    distances = np.unique(np.round(np.geomspace(1, target_len, 700)))
    af_curve = None
    if "factor" in block:
        af_curve = np.array(
            [
                posenc.rope_inverse_frequencies(
                    {**block, "factor": float(s)}, head_dim, max_position_embeddings=train_len, seq_len=target_len
                )[1]
                for s in AF_CURVE_FACTORS
            ]
        )
    return Extension(
        block=dict(block),
        error=error,
        train_len=train_len,
        target_len=target_len,
        inv_freq=inv_freq,
        scaled_inv_freq=scaled,
        attention_factor=float(af),
        logit_multiplier=float(af) ** 2,
        # inf when the slowest pair no longer turns (proportional RoPE zeroes the slow pairs)
        slowest_division=float(inv_freq[-1] / scaled[-1]) if scaled[-1] != 0 else math.inf,
        train_angle=posenc.rope_angles([train_len], inv_freq)[0],
        target_angle=posenc.rope_angles([target_len], scaled)[0],
        out_of_distribution=ood,
        out_of_distribution_unscaled=int(ood_unscaled.sum()),
        bands=bands,
        yarn_range=yarn_range,
        distances=distances,
        score_before=posenc.rope_mean_cos(distances, inv_freq),
        score_after=posenc.rope_mean_cos(distances, scaled, attention_factor=af),
        af_factors=AF_CURVE_FACTORS,
        af_curve=af_curve,
    )


def yarn_reference_curve() -> np.ndarray:
    """YaRN's attention factor with HF's defaults (0.1·ln s + 1) at `AF_CURVE_FACTORS`."""
    return np.array([posenc.yarn_get_mscale(s) for s in AF_CURVE_FACTORS])


def precision_positions(target_len: int, n: int = 400) -> np.ndarray:
    """Integer positions 1 … min(T, 65504) for the phase-error chart (float16's range; position 0
    is exact in every dtype and would sit at −∞ on the log axis)."""
    top = min(int(target_len), FLOAT16_MAX_POSITION)
    return np.unique(np.round(np.linspace(1, top, n)))


def phase_error_curves(scaled_inv_freq, target_len: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(positions, {dtype: phase error}) for the scaled frequencies. bfloat16 imports torch."""
    positions = precision_positions(target_len)
    return positions, {dtype: posenc.phase_error(positions, scaled_inv_freq, dtype=dtype) for dtype in PRECISION_DTYPES}


def factor_grid(lo: float, hi: float, step: float) -> np.ndarray:
    """lo, lo + step, … hi as a slider steps over them: lo + i·step in decimal, then the nearest float (an HTML range
    input writes its value so, and the page parses that text: 0.15, where float arithmetic gives 0.15000000000000002)."""
    if not (math.isfinite(lo) and math.isfinite(hi) and math.isfinite(step)) or step <= 0 or hi < lo:
        raise ValueError(f"factor_grid: need finite lo <= hi and step > 0, got lo={lo}, hi={hi}, step={step}")
    count = int(round((hi - lo) / step)) + 1
    first, by = Decimal(repr(float(lo))), Decimal(repr(float(step)))
    return np.array([float(first + i * by) for i in range(count)], dtype=np.float64)


def on_grid(factor: Any, factors: np.ndarray) -> bool:
    """Whether `factor` is one of the grid's values (a factor typed between two steps is not: the live
    chart would show its neighbour)."""
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not math.isfinite(factor):
        return False
    lo, step = float(factors[0]), float(factors[1] - factors[0])
    i = round((float(factor) - lo) / step)
    return 0 <= i < len(factors) and float(factors[i]) == float(factor)


def target_window(train_len: int, target_len: int) -> tuple[int, int] | None:
    """The target lengths the main chart's own T slider runs over, (first, last) of the registry's stops
    (`Param.stops`): L/4 … 64·L, widened to take T; None when T is off the stops (typed). The browser computes every
    method's θ′ at any T (`BROWSER_THETA`; explorer.compute.extension.live_plan draws the still chart where it
    cannot)."""
    if target_len not in TARGET_STOPS:
        return None
    return _stops_between(min(train_len / 4, target_len), max(64 * train_len, target_len))


#: The methods whose θ′ the main chart computes in the browser from θ_j, s, L and their own knobs
#: (explorer.charts.extension.browser_theta), each with the knobs that are the chart's sliders then: no scaling
#: (θ′ = θ), linear (θ_j/s) and static NTK (a new base from s and d), YaRN and Llama 3, whose θ′ depend on L and on
#: their knobs (β; the band factors),
#: proportional RoPE (its rotary fraction p), dynamic NTK, whose θ′ depend on s, L and T (no knob of its own), and
#: LongRoPE, whose θ′ are θ_j over one of its two lists, the long one where T > L (the browser picks; where the page
#: made the lists from s, `list_kinds`, the browser makes them too, so s is a slider for it).
BROWSER_KNOBS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "default": (),
        "linear": (),
        "ntk": (),
        "yarn": ("beta_fast", "beta_slow"),
        "llama3": ("low_freq_factor", "high_freq_factor"),
        "proportional": ("partial_rotary_factor",),
        "dynamic": (),
        "longrope": (),
    }
)
BROWSER_THETA = tuple(BROWSER_KNOBS)
#: The methods of BROWSER_KNOBS the browser draws from a block without a factor s: no scaling has none, proportional
#: RoPE's θ′ need none (p alone), LongRoPE's are the block's own lists; the others' θ′ read s (a YaRN block whose s
#: is null reads L)
FACTOR_OPTIONAL = ("default", "proportional", "longrope")
#: The methods whose attention factor the browser computes, with the keys that are the attention-factor chart's own
#: sliders (explorer.charts.extension.attention_factor_live_chart): YaRN's a(s) from mscale, mscale_all_dim and an
#: explicit attention_factor (0 = not set, as the page's boxes say)
AF_KNOBS: Mapping[str, tuple[str, ...]] = MappingProxyType({"yarn": ("mscale", "mscale_all_dim", "attention_factor")})
#: The main chart's own sliders besides a method's knobs and `SHAPE_SLIDERS`: the registry keys of s, T and L
#: (explorer.charts.extension; explorer.compute.extension.live_plan chooses which are sliders)
LIVE_SLIDERS = ("factor", "target_len", "train_len")
#: The main chart's sliders of the model's sizes: the head dimension d and the base b. For a method of BROWSER_THETA
#: the browser computes θ_j = b^(−2j/d) too, so both move in it; not with LongRoPE's own lists (their length is d/2,
#: and the chart carries their θ′: `shape_sliders`).
SHAPE_SLIDERS = ("head_dim", "base")


def head_dim_range(rope_type: str) -> tuple[int, int, int]:
    """(lo, hi, step) of the main chart's d slider: the registry's range in its steps, from 4 for dynamic NTK (posenc
    refuses d = 2 there: its new base's exponent is d/(d − 2))."""
    lo, hi, step = int(HEAD_DIM.min or 2), int(HEAD_DIM.max or 2), int(HEAD_DIM.step or 2)
    return (max(lo, 4) if rope_type == "dynamic" else lo), hi, step


def shape_sliders(block: Mapping[str, Any], head_dim: int, *, own_lists: bool) -> tuple[str, ...]:
    """Which of `SHAPE_SLIDERS` the main chart carries for `block` (a method of BROWSER_THETA) at head dimension
    `head_dim`: d where it is on its slider's steps (`head_dim_range`), b where the block's base is one of the
    slider's options; neither where the chart draws LongRoPE's own lists (`own_lists`)."""
    rope_type = posenc.rope_type_of(block)
    if rope_type not in BROWSER_THETA or own_lists:
        return ()
    lo, hi, step = head_dim_range(rope_type)
    d_on = isinstance(head_dim, int) and lo <= head_dim <= hi and (head_dim - lo) % step == 0
    base = block.get("rope_theta", posenc.scaling.DEFAULT_ROPE_THETA)
    b_on = float(base) in {float(b) for b in BASE_OPTIONS}
    return tuple(k for k, on in zip(SHAPE_SLIDERS, (d_on, b_on), strict=True) if on)


def train_window(train_len: int) -> tuple[int, int] | None:
    """The trained lengths the main chart's own L slider runs over, (first, last) of the stops from L/16 to 16·L,
    within L's own range; None when L is off the stops (typed). It depends on L alone, so a release of T keeps the
    chart (T's window, `target_window`, follows L: a release of L redraws it)."""
    if train_len not in TARGET_STOPS:
        return None
    return _stops_between(max(train_len / 16, TRAIN_LEN.min or 0), min(16 * train_len, TRAIN_LEN.max or 0))


def _stops_between(lo: float, hi: float) -> tuple[int, int] | None:
    """(first, last) of the length stops in lo … hi, or None when fewer than two (nothing to drag)."""
    inside = [t for t in TARGET_STOPS if lo <= t <= hi]
    return (inside[0], inside[-1]) if len(inside) > 1 else None
