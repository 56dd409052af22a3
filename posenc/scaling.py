"""Context extension: RoPE frequency scaling with HF transformers' ``rope_type`` semantics.

Source of the formulas: HF transformers ``src/transformers/modeling_rope_utils.py``
(``_compute_*_parameters`` and ``ROPE_INIT_FUNCTIONS``), with the parameter names a model's
``config.json`` uses, so a rope block can be pasted as it is.

Every method has one signature, ``fn(params, dim, *, max_position_embeddings, seq_len)``, and
returns ``(inv_freq, attention_factor)``. The model multiplies cos and sin by attention_factor,
so attention logits scale by attention_factor².

Deliberate differences from HF, all in the direction of "raise, do not guess":
* HF only warns about some bad values; here they raise ``ValueError`` naming the key.
* HF's yarn once replaced ``factor`` by max_position_embeddings / original_max_position_embeddings
  when both were present; here the ``factor`` you give is used (the documented meaning).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from . import _validate as v
from .rope import partial_rotary_dim
from .sinusoidal import inverse_frequencies

DEFAULT_ROPE_THETA = 10000.0


def _require(params: Mapping, key: str, rope_type: str) -> Any:
    if key not in params or params[key] is None:
        raise ValueError(f"rope_parameters['{key}'] is required for rope_type '{rope_type}', got it missing")
    return params[key]


def _factor(params: Mapping, rope_type: str) -> float:
    f = _require(params, "factor", rope_type)
    if isinstance(f, bool) or not isinstance(f, (int, float)):
        raise TypeError(f"rope_parameters['factor'] must be a number, got {f!r}")
    f = float(f)
    if not math.isfinite(f) or f <= 0:
        raise ValueError(f"rope_parameters['factor'] must be a finite number > 0, got {f}")
    return f


def _theta(params: Mapping) -> float:
    return v.base_value("rope_parameters['rope_theta']", params.get("rope_theta", DEFAULT_ROPE_THETA))


def _original_length(params: Mapping, max_position_embeddings: int):
    """``original_max_position_embeddings`` when the block has it (0 is invalid, not "missing")."""
    value = params.get("original_max_position_embeddings")
    return max_position_embeddings if value is None else value


def _opt_float(params: Mapping, key: str, default=None, *, positive=False):
    value = params.get(key)
    if value is None:
        return default
    name = f"rope_parameters['{key}']"
    return v.positive_float(name, value) if positive else v.finite_float(name, value)


# --- default -------------------------------------------------------------------------------------
def _default(params, dim, *, max_position_embeddings, seq_len):
    r""":math:`\theta_j = b^{-2j/d}`, attention factor 1."""
    return inverse_frequencies(dim, base=_theta(params)), 1.0


# --- linear (Position Interpolation, Chen et al. 2023; kaiokendev) ---------------------------------
def _linear(params, dim, *, max_position_embeddings, seq_len):
    r""":math:`\theta'_j = \theta_j / s`, the same as dividing every position by s."""
    s = _factor(params, "linear")
    return inverse_frequencies(dim, base=_theta(params)) / s, 1.0


# --- static NTK-aware (bloc97) ---------------------------------------------------------------------
def _ntk(params, dim, *, max_position_embeddings, seq_len):
    r""":math:`b' = b\,s^{d/(d-2)}`: the slowest pair is stretched by s, the fastest barely moves."""
    s = _factor(params, "ntk")
    new_base = _theta(params) * s ** (dim / (dim - 2)) if dim > 2 else _theta(params) * s
    return inverse_frequencies(dim, base=new_base), 1.0


# --- dynamic NTK (emozilla) ------------------------------------------------------------------------
def dynamic_base(base: float, dim: int, factor: float, seq_len, max_position_embeddings: int) -> float:
    r""":math:`b' = b\,(sT/L_{max} - (s-1))^{d/(d-2)}` with :math:`T = \max(\text{seq\_len}, L_{max})`."""
    t = max_position_embeddings if seq_len is None or seq_len <= max_position_embeddings else seq_len
    return base * ((factor * t / max_position_embeddings) - (factor - 1)) ** (dim / (dim - 2))


def _dynamic(params, dim, *, max_position_embeddings, seq_len):
    s = _factor(params, "dynamic")
    if dim <= 2:
        raise ValueError(f"dim must be > 2 for rope_type 'dynamic' (exponent d/(d-2)), got {dim}")
    new_base = dynamic_base(_theta(params), dim, s, seq_len, max_position_embeddings)
    return inverse_frequencies(dim, base=new_base), 1.0


# --- YaRN (Peng et al. 2023) -----------------------------------------------------------------------
def yarn_get_mscale(scale, mscale=1.0) -> float:
    r""":math:`g(s, m) = 0.1\,m\ln s + 1` for s > 1, else 1."""
    scale = v.finite_float("scale", scale)
    mscale = v.finite_float("mscale", mscale)
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def yarn_correction_dim(num_rotations: float, dim: int, base: float, original_max_position_embeddings: int) -> float:
    r"""Pair-dimension at which a wave turns ``num_rotations`` times over L tokens:
    :math:`cd(r) = d\,\ln(L/(2\pi r)) / (2\ln b)`."""
    return (dim * math.log(original_max_position_embeddings / (num_rotations * 2 * math.pi))) / (2 * math.log(base))


def yarn_correction_range(
    dim, *, base, original_max_position_embeddings, beta_fast=32.0, beta_slow=1.0, truncate=True
) -> tuple[float, float]:
    """(low, high) pair indices of YaRN's ramp; floor/ceil when truncate; clamped to [0, dim−1]."""
    dim = v.dimension("dim", dim, even=True)
    base = v.base_value("base", base)
    length = v.integer("original_max_position_embeddings", original_max_position_embeddings, minimum=1)
    beta_fast = v.positive_float("beta_fast", beta_fast)
    beta_slow = v.positive_float("beta_slow", beta_slow)
    if beta_fast <= beta_slow:
        raise ValueError(f"beta_fast must be > beta_slow = {beta_slow}, got {beta_fast}")
    low = yarn_correction_dim(beta_fast, dim, base, length)
    high = yarn_correction_dim(beta_slow, dim, base, length)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def yarn_ramp(low: float, high: float, n_pairs: int) -> np.ndarray:
    r"""ramp_j = clip((j − low)/(high − low), 0, 1): 0 keeps θ_j (fast pairs), 1 divides by s."""
    if low == high:
        high += 0.001  # HF: prevent a division by zero
    return np.clip((np.arange(n_pairs, dtype=np.float64) - low) / (high - low), 0.0, 1.0)


def _yarn(params, dim, *, max_position_embeddings, seq_len):
    s = _factor(params, "yarn")
    base = _theta(params)
    length = _original_length(params, max_position_embeddings)
    length = v.integer("rope_parameters['original_max_position_embeddings']", length, minimum=1)
    beta_fast = _opt_float(params, "beta_fast", 32.0, positive=True)
    beta_slow = _opt_float(params, "beta_slow", 1.0, positive=True)
    truncate = params.get("truncate", True)
    if not isinstance(truncate, bool):
        raise TypeError(f"rope_parameters['truncate'] must be true or false, got {truncate!r}")
    if beta_fast <= beta_slow:
        raise ValueError(f"rope_parameters['beta_fast'] must be > beta_slow = {beta_slow}, got {beta_fast}")
    low, high = yarn_correction_range(
        dim,
        base=base,
        original_max_position_embeddings=length,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
        truncate=truncate,
    )
    theta = inverse_frequencies(dim, base=base)
    ramp = yarn_ramp(low, high, dim // 2)
    # θ'_j = (θ_j/s)·ramp_j + θ_j·(1 − ramp_j)
    inv = (theta / s) * ramp + theta * (1.0 - ramp)

    af = _opt_float(params, "attention_factor", None, positive=True)
    if af is None:
        mscale = _opt_float(params, "mscale")
        mscale_all_dim = _opt_float(params, "mscale_all_dim")
        if mscale and mscale_all_dim:
            af = yarn_get_mscale(s, mscale) / yarn_get_mscale(s, mscale_all_dim)
        else:
            af = yarn_get_mscale(s)
    return inv, float(af)


# --- Llama 3.1 -------------------------------------------------------------------------------------
def _llama3_params(params):
    s = _factor(params, "llama3")
    lo = v.positive_float("rope_parameters['low_freq_factor']", _require(params, "low_freq_factor", "llama3"))
    hi = v.positive_float("rope_parameters['high_freq_factor']", _require(params, "high_freq_factor", "llama3"))
    if hi <= lo:
        raise ValueError(f"rope_parameters['high_freq_factor'] must be > low_freq_factor = {lo}, got {hi}")
    length = v.integer(
        "rope_parameters['original_max_position_embeddings']",
        _require(params, "original_max_position_embeddings", "llama3"),
        minimum=1,
    )
    return s, lo, hi, length


def llama3_bands(inv_freq, *, factor, low_freq_factor, high_freq_factor, original_max_position_embeddings):
    """Which Llama 3 band each pair falls in: "kept" (λ < L/high), "divided" (λ > L/low) or "smoothed"."""
    s, lo, hi, length = _llama3_params(
        {
            "factor": factor,
            "low_freq_factor": low_freq_factor,
            "high_freq_factor": high_freq_factor,
            "original_max_position_embeddings": original_max_position_embeddings,
        }
    )
    wavelen = 2 * np.pi / v.float_array("inv_freq", inv_freq, ndim=1)
    return np.where(wavelen < length / hi, "kept", np.where(wavelen > length / lo, "divided", "smoothed"))


def _llama3(params, dim, *, max_position_embeddings, seq_len):
    s, lo, hi, length = _llama3_params(params)
    theta = inverse_frequencies(dim, base=_theta(params))
    wavelen = 2 * np.pi / theta
    # λ_j > L/low: θ_j/s;  λ_j < L/high: θ_j;  between: (1 − sm)·θ_j/s + sm·θ_j
    smooth = (length / wavelen - lo) / (hi - lo)
    smoothed = (1 - smooth) * theta / s + smooth * theta
    inv = np.where(wavelen > length / lo, theta / s, theta)
    medium = ~(wavelen < length / hi) & ~(wavelen > length / lo)
    return np.where(medium, smoothed, inv), 1.0


# --- LongRoPE (Phi-3) ------------------------------------------------------------------------------
def _longrope(params, dim, *, max_position_embeddings, seq_len):
    base = _theta(params)
    n = dim // 2
    factors = {}
    for key in ("short_factor", "long_factor"):
        raw = _require(params, key, "longrope")
        if not isinstance(raw, (list, tuple, np.ndarray)):
            raise TypeError(f"rope_parameters['{key}'] must be a list of {n} numbers, got {type(raw).__name__}")
        if len(raw) != n:
            raise ValueError(f"rope_parameters['{key}'] must have head_dim/2 = {n} entries, got {len(raw)}")
        arr = v.float_array(f"rope_parameters['{key}']", raw, ndim=1)
        if np.any(arr <= 0):
            raise ValueError(f"rope_parameters['{key}'] entries must be > 0, got {arr[arr <= 0][0]}")
        factors[key] = arr
    length = _original_length(params, max_position_embeddings)
    length = v.integer("rope_parameters['original_max_position_embeddings']", length, minimum=2)
    if params.get("factor") is not None:
        s = _factor(params, "longrope")
    else:
        s = max_position_embeddings / length
    af = _opt_float(params, "attention_factor", None, positive=True)
    if af is None:
        # af = √(1 + ln s / ln L) for s > 1
        af = 1.0 if s <= 1 else math.sqrt(1 + math.log(s) / math.log(length))
    ext = factors["long_factor"] if seq_len is not None and seq_len > length else factors["short_factor"]
    # θ'_j = 1 / (ext_j · b^(2j/d))
    return inverse_frequencies(dim, base=base) / ext, float(af)


ROPE_SCALING: Mapping[str, Callable[..., tuple[np.ndarray, float]]] = MappingProxyType(
    {
        "default": _default,
        "linear": _linear,
        "ntk": _ntk,
        "dynamic": _dynamic,
        "yarn": _yarn,
        "llama3": _llama3,
        "longrope": _longrope,
    }
)


def rope_type_of(rope_parameters: Mapping) -> str:
    """The method name: ``rope_type``, or the older key ``type``; "default" when neither is set."""
    rope_type = rope_parameters.get("rope_type", rope_parameters.get("type", "default"))
    if rope_type is None:
        rope_type = "default"
    if not isinstance(rope_type, str) or rope_type not in ROPE_SCALING:
        raise ValueError(
            f"rope_parameters['rope_type'] must be one of {', '.join(map(repr, ROPE_SCALING))}, got {rope_type!r}"
        )
    return rope_type


def rope_inverse_frequencies(rope_parameters, head_dim, *, max_position_embeddings, seq_len=None):
    """(inv_freq, attention_factor) for a config's rope block, exactly as HF transformers computes them.

    ``rope_parameters`` e.g. ``{"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0,
    "original_max_position_embeddings": 4096}``. ``partial_rotary_factor`` (if present) shrinks the
    rotated dim to int(head_dim · factor). The mapping is never modified.
    """
    if rope_parameters is None:
        rope_parameters = {}
    if not isinstance(rope_parameters, Mapping):
        raise TypeError(
            f"rope_parameters must be a mapping (a config's rope block), got {type(rope_parameters).__name__}"
        )
    params = dict(rope_parameters)  # never mutate the caller's config
    rope_type = rope_type_of(params)
    head_dim = v.dimension("head_dim", head_dim, even=True)
    prf = params.get("partial_rotary_factor")
    dim = partial_rotary_dim(head_dim, 1.0 if prf is None else prf)
    max_pos = v.integer("max_position_embeddings", max_position_embeddings, minimum=1)
    if seq_len is not None:
        seq_len = v.integer("seq_len", seq_len, minimum=0)
    inv, af = ROPE_SCALING[rope_type](params, dim, max_position_embeddings=max_pos, seq_len=seq_len)
    if not np.all(np.isfinite(inv)) or not math.isfinite(af):
        raise ValueError(f"rope_parameters {params!r} produced non-finite frequencies")
    return inv, float(af)


# --- what a scaled model meets at a longer length -------------------------------------------------
def interpolate_positions(positions, *, factor) -> np.ndarray:
    r"""Position Interpolation as a change of positions: :math:`m' = m / s`.

    Rotating position m with :math:`\theta_j / s` (rope_type "linear") is the same as rotating
    position m/s with :math:`\theta_j`: 2048 → 4096 with s = 2 gives 0, 0.5, 1, 1.5, …
    """
    pos = v.positions_array("positions", positions)
    s = v.positive_float("factor", factor)
    return pos / s


def out_of_distribution_pairs(inv_freq, scaled_inv_freq, *, trained_length, target_length) -> np.ndarray:
    r"""Boolean mask of the pairs whose angles at ``target_length`` were never seen in training.

    Pair j is out of distribution when both hold:
    :math:`T\,\theta'_j > L\,\theta_j` (at the target length T it turns further than the largest
    angle of training) and :math:`L\,\theta_j < 2\pi` (in training it never completed a full
    turn, so the new angles are not repeats of angles it has already met).
    ``inv_freq`` = θ_j (as trained), ``scaled_inv_freq`` = θ'_j (after scaling). "Further" allows
    a relative 1e-9 for rounding: linear scaling with T = s·L reaches exactly L·θ_j, which is seen.
    """
    inv = v.float_array("inv_freq", inv_freq, ndim=1)
    scaled = v.float_array("scaled_inv_freq", scaled_inv_freq, ndim=1)
    if inv.shape != scaled.shape:
        raise ValueError(f"scaled_inv_freq must have the shape of inv_freq {inv.shape}, got {scaled.shape}")
    length = v.integer("trained_length", trained_length, minimum=1)
    target = v.integer("target_length", target_length, minimum=1)
    trained_angle = length * inv  # largest angle of training, L·θ_j
    return (target * scaled > trained_angle * (1 + 1e-9)) & (trained_angle < 2 * np.pi)


# --- converters between the knobs people mix up ----------------------------------------------------
def ntk_alpha_to_base(alpha, dim, *, base=DEFAULT_ROPE_THETA) -> float:
    r"""NTK-aware "alpha" → new base: :math:`b' = b\,\alpha^{d/(d-2)}`."""
    alpha = v.positive_float("alpha", alpha)
    dim = v.dimension("dim", dim, even=True)
    base = v.base_value("base", base)
    if dim <= 2:
        raise ValueError(f"dim must be > 2 for the NTK exponent d/(d-2), got {dim}")
    return base * alpha ** (dim / (dim - 2))


def base_to_ntk_alpha(new_base, dim, *, base=DEFAULT_ROPE_THETA) -> float:
    r"""Inverse of :func:`ntk_alpha_to_base`: :math:`\alpha = (b'/b)^{(d-2)/d}`."""
    new_base = v.base_value("new_base", new_base)
    dim = v.dimension("dim", dim, even=True)
    base = v.base_value("base", base)
    if dim <= 2:
        raise ValueError(f"dim must be > 2 for the NTK exponent d/(d-2), got {dim}")
    return (new_base / base) ** ((dim - 2) / dim)
