"""What the Context extension page (pages/5_Context_extension.py) computes: posenc's view of the rope
block (explorer.ropeblock, cached here), and the numbers of the tabs' smaller charts. Sentences:
explorer.text.extension.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

import posenc
from explorer import ropeblock
from explorer.layout import cached
from explorer.text.extension import YARN_REFERENCE
from explorer.widgets import PARAMS

#: Llama 4's attention temperature, with HF Llama4TextConfig's defaults.
FLOOR_SCALE, ATTN_SCALE = 8192, 0.1
#: The Interpolation tab's positions: the first few tokens.
PI_POSITIONS = tuple(range(9))


extension = cached(max_entries=64)(ropeblock.extension_data)


def grid_of(key: str) -> np.ndarray:
    """The values parameter `key`'s slider steps over: min, min + step, … max."""
    p = PARAMS[key]
    return ropeblock.factor_grid(float(p.min or 0), float(p.max or 0), float(p.step or 0))


@dataclass(frozen=True)
class LivePlan:
    """What the main chart's own sliders are this run (issue #36), for `LiveChart` and
    `explorer.charts.extension.angle_reach_live_chart`."""

    keys: tuple[str, ...]  # the registry keys that are sliders: of ropeblock.LIVE_SLIDERS, SHAPE_SLIDERS, the knobs
    factors: np.ndarray | None  # the factor slider's grid (None: s is fixed)
    t_window: tuple[int, int] | None
    l_window: tuple[int, int] | None
    browser_block: dict  # the block, whose θ′ the browser computes (ropeblock.BROWSER_THETA)
    context: tuple  # what else the chart's spec depends on (LiveChart.starts)
    columns: dict  # per-pair values the browser computes θ′ from besides θ_j (proportional RoPE's theta_p)
    list_kinds: dict | None = None  # LongRoPE's lists' generators, where the browser makes the lists from s
    shape: tuple[str, ...] = ()  # which of d and b are sliders (ropeblock.SHAPE_SLIDERS)


def live_plan(ext: ropeblock.Extension, head_dim: int, kinds: Mapping[str, str] | None = None) -> LivePlan | None:
    """Which of s, T, L, d, b (and a method's knobs) the main chart can move in the browser for this block, or None
    (none of them: the page draws the still chart). A value off its slider's steps (typed) stays fixed. `kinds`: the
    generators the page made LongRoPE's lists with ({list key: kind}); where they give the block's lists, s (and d
    and b) move them in the browser too (`ropeblock.list_kinds`)."""
    if ext.error:
        return None
    block, rope_type = ext.block, posenc.rope_type_of(ext.block)
    factor = block.get("factor")
    generated = ropeblock.list_kinds(block, head_dim, kinds) if rope_type == "longrope" else None
    # the browser computes θ′ from θ_j and the knobs; not for a block without a factor whose θ′ read one (a YaRN block
    # whose factor is null reads it from L): the still chart then
    if rope_type not in ropeblock.BROWSER_THETA or (factor is None and rope_type not in ropeblock.FACTOR_OPTIONAL):
        return None
    s_moves = factor is not None and (rope_type != "longrope" or generated is not None)
    factors = grid_of("factor") if s_moves and ropeblock.on_grid(factor, grid_of("factor")) else None
    t_window = ropeblock.target_window(ext.train_len, ext.target_len)
    l_window = ropeblock.train_window(ext.train_len)
    own = ropeblock.BROWSER_KNOBS[rope_type]
    knobs = tuple(k for k in own if ropeblock.on_grid(block.get(k), grid_of(k)))
    own_lists = rope_type == "longrope" and generated is None
    shape = ropeblock.shape_sliders(block, head_dim, own_lists=own_lists)
    on = {"factor": factors is not None, "target_len": t_window is not None, "train_len": l_window is not None}
    keys = (*(k for k in ropeblock.LIVE_SLIDERS if on[k]), *shape, *knobs)
    if not keys:
        return None
    # the spec depends on the block's keys θ′ is computed from (the base, truncate, the fixed knobs and s), not on the
    # values its sliders hold
    read = {"rope_type", "rope_theta", "truncate", "factor", *own}
    if rope_type == "longrope":  # the browser carries the lists' θ′ (every key but L, which may be its slider), or
        read = set(block) - set(generated or ())  # makes the lists from s and their kinds (in the context)
    moving = set(keys) | ({"original_max_position_embeddings"} if l_window else set())
    moving |= {"rope_theta"} if "base" in shape else set()
    fixed = tuple(v for v, w in ((ext.target_len, t_window), (ext.train_len, l_window)) if not w)
    held = tuple(sorted((k, repr(v)) for k, v in block.items() if k in read and k not in moving))
    d_held = () if "head_dim" in shape else (head_dim,)
    context = (held, *d_held, shape, t_window, l_window, tuple(sorted((generated or {}).items())))
    return LivePlan(
        keys=keys,
        factors=factors,
        t_window=t_window,
        l_window=l_window,
        browser_block=dict(block),
        columns={} if generated else browser_columns(block, head_dim, ext.train_len),
        list_kinds=generated,
        context=(*context, *fixed),
        shape=shape,
    )


@dataclass(frozen=True)
class AttentionFactorPlan:
    """The attention-factor chart's own sliders this run (issue #36), for `LiveChart` and
    `explorer.charts.extension.attention_factor_live_chart`."""

    keys: tuple[str, ...]  # of ropeblock.AF_KNOBS[method]: those on their slider's steps
    fixed: dict  # the others' values (0: not set)
    factor: float  # the block's s (the chart's mark)
    context: tuple  # what else the chart's spec depends on (LiveChart.starts)


def attention_factor_plan(ext: ropeblock.Extension) -> AttentionFactorPlan | None:
    """Which of the method's attention-factor keys (`ropeblock.AF_KNOBS`) the chart of a against s can move in the
    browser, or None (a method without them, a block without a factor, an invalid block, or every key off its
    steps: the page draws the still chart). A key the block leaves out is 0, "not set", as its box says."""
    block = ext.block
    rope_type = posenc.rope_type_of(block)
    if ext.error or rope_type not in ropeblock.AF_KNOBS or block.get("factor") is None:
        return None
    values = {k: float(block.get(k) or 0.0) for k in ropeblock.AF_KNOBS[rope_type]}
    keys = tuple(k for k, v in values.items() if ropeblock.on_grid(v, grid_of(k)))
    if not keys:
        return None
    fixed = {k: v for k, v in values.items() if k not in keys}
    factor = float(block["factor"])
    return AttentionFactorPlan(keys, fixed, factor, (rope_type, factor, tuple(sorted(fixed.items()))))


def attention_factor_curves(ext: ropeblock.Extension, label: str, s: float) -> tuple[dict[str, np.ndarray], float]:
    """The still attention-factor chart's curves (the block's a at every s of ``ext.af_factors``, named `label`, beside
    YaRN's with HF's defaults; the latter alone for a block without a factor) and a at `s` (the block's factor, or
    the one that fits T into L)."""
    curves = {} if ext.af_curve is None else {label: ext.af_curve}
    if posenc.rope_type_of(ext.block) != "yarn" or not curves:
        curves[YARN_REFERENCE] = ropeblock.yarn_reference_curve()
    return curves, ext.attention_factor if ext.af_curve is not None else posenc.yarn_get_mscale(s)


def browser_columns(block: dict, head_dim: int, train_len: int) -> dict[str, np.ndarray]:
    """The per-pair values the browser computes θ′ from besides θ_j (posenc's, one per pair, at the page's d and b):
    proportional RoPE's ``theta_p``; LongRoPE's θ′ with its own short list (``theta_short``, T ≤ L) and its long one
    (``theta_long``, T > L), which depend on nothing the chart's sliders move."""
    rope_type = posenc.rope_type_of(block)
    if rope_type == "proportional":
        return {"theta_p": proportional_theta(block, head_dim, train_len)}
    if rope_type == "longrope":
        at_l = {**block, "original_max_position_embeddings": train_len}
        short, _ = posenc.rope_inverse_frequencies(at_l, head_dim, max_position_embeddings=train_len, seq_len=train_len)
        long_, _ = posenc.rope_inverse_frequencies(
            at_l, head_dim, max_position_embeddings=train_len, seq_len=train_len + 1
        )
        return {"theta_short": short, "theta_long": long_}
    return {}


def proportional_theta(block: dict, head_dim: int, train_len: int) -> np.ndarray:
    """Proportional RoPE's kept frequencies for the whole head (p = 1, s = 1: 1/b^(2j/d), posenc's own steps), which
    the browser cuts at ⌊p·d/2⌋ and divides by s."""
    whole = {"rope_type": "proportional", "rope_theta": block["rope_theta"], "partial_rotary_factor": 1.0}
    return posenc.rope_inverse_frequencies(whole, head_dim, max_position_embeddings=train_len)[0]


# bfloat16 imports torch (lazily, inside posenc.precision) — only here, only for this chart.
phase_errors = cached(max_entries=16)(ropeblock.phase_error_curves)


def ntk_config_base(block: dict, head_dim: int) -> float:
    """The rope_theta with which a config.json writes static NTK (rope_type default): b·s^(d/(d−2))."""
    factor, base = float(block["factor"]), float(block["rope_theta"])
    return posenc.ntk_alpha_to_base(factor, head_dim, base=base) if head_dim > 2 else base * factor


def extension_factor(factor: float | None, train_len: int, target_len: int) -> float:
    """The block's factor s, or without one the s that would fit T into L: max(T/L, 1)."""
    return factor if factor else max(target_len / train_len, 1.0)


@cached(max_entries=16)
def temperature_curves(train_len: int, target_len: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(positions p, Llama 4's temperature τ(p), YaRN's a² at s = max((p + 1)/L, 1)) up to
    max(T, 4·FLOOR_SCALE), log-spaced."""
    positions = np.unique(np.round(np.geomspace(1, max(target_len, 4 * FLOOR_SCALE), 400)))
    tau = posenc.attention_temperature(positions, floor_scale=FLOOR_SCALE, attn_scale=ATTN_SCALE)
    yarn = np.array([posenc.yarn_get_mscale(max((p + 1) / train_len, 1.0)) ** 2 for p in positions])
    return positions, tau, yarn


def interpolation(factor: float, target_len: int) -> tuple[np.ndarray, float]:
    """Position Interpolation with s = `factor`: (the positions PI_POSITIONS are rotated as, the
    position the last token of T, m = T − 1, is rotated as)."""
    moved = posenc.interpolate_positions(list(PI_POSITIONS), factor=factor)
    return moved, float(posenc.interpolate_positions([target_len - 1], factor=factor)[0])
