"""Context extension: RoPE frequency scaling with HF transformers' ``rope_type`` semantics.

The methods themselves (their keys, HF's defaults, formulas and computations) are declared once, in
:mod:`posenc.methods`; this module is the registry view of them and the tools around it. A rope
block uses the parameter names of a model's ``config.json``, so it can be pasted as it is. One
exception to "as HF": ``ntk`` (static NTK-aware scaling) is not an HF rope_type (see posenc.methods).

Every method has one signature, ``fn(params, dim, *, max_position_embeddings, seq_len)``, and
returns ``(inv_freq, attention_factor)``. The model multiplies cos and sin by attention_factor,
so attention logits scale by attention_factor². A bad or missing block key raises
:class:`posenc.methods.RopeParameterError` (a ValueError) naming the key.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from . import _validate as v
from .methods import (
    PARTIAL_ROTARY_FACTOR,
    ROPE_METHODS,
    ROPE_THETA,
    RopeFunction,
    RopeParameterError,
    RopeParameterTypeError,
    dynamic_base,
    llama3_bands,
    yarn_correction_dim,
    yarn_correction_range,
    yarn_get_mscale,
    yarn_ramp,
)
from .rope import partial_rotary_dim

__all__ = [
    "DEFAULT_ROPE_THETA",
    "ROPE_SCALING",
    "base_to_ntk_alpha",
    "dynamic_base",
    "interpolate_positions",
    "llama3_bands",
    "ntk_alpha_to_base",
    "out_of_distribution_pairs",
    "rope_inverse_frequencies",
    "rope_type_of",
    "yarn_correction_dim",
    "yarn_correction_range",
    "yarn_get_mscale",
    "yarn_ramp",
]

DEFAULT_ROPE_THETA: float = ROPE_THETA.default

#: rope_type -> compute function, in posenc.methods.ROPE_METHODS' order.
ROPE_SCALING: Mapping[str, RopeFunction] = MappingProxyType({name: m.compute for name, m in ROPE_METHODS.items()})


def rope_type_of(rope_parameters: Mapping) -> str:
    """The method name: ``rope_type``, or the older key ``type``; "default" when neither is set."""
    key = "rope_type" if "rope_type" in rope_parameters else "type"
    rope_type = rope_parameters.get(key, "default")
    if rope_type is None:
        rope_type = "default"
    if not isinstance(rope_type, str) or rope_type not in ROPE_METHODS:
        raise RopeParameterError(key, f"must be one of {', '.join(map(repr, ROPE_METHODS))}, got {rope_type!r}")
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
    if ROPE_METHODS[rope_type].full_head_dim:  # proportional: the method reads partial_rotary_factor itself
        dim = head_dim
    elif prf is None:
        dim = partial_rotary_dim(head_dim, PARTIAL_ROTARY_FACTOR.default)
    else:
        try:
            dim = partial_rotary_dim(head_dim, prf)
        except (ValueError, TypeError) as exc:  # head_dim is already checked: the factor is at fault
            problem = str(exc).removeprefix("partial_rotary_factor").lstrip()
            error = RopeParameterTypeError if isinstance(exc, TypeError) else RopeParameterError
            raise error("partial_rotary_factor", problem) from None
    max_pos = v.integer("max_position_embeddings", max_position_embeddings, minimum=1)
    if seq_len is not None:
        seq_len = v.integer("seq_len", seq_len, minimum=0)
    inv, af = ROPE_METHODS[rope_type].compute(params, dim, max_position_embeddings=max_pos, seq_len=seq_len)
    if not np.all(np.isfinite(inv)) or not math.isfinite(af):
        # Which value overflowed is not known; the scale factor (else the base) is the usual culprit.
        key = "factor" if params.get("factor") is not None else "rope_theta"
        raise RopeParameterError(
            key,
            f"gives non-finite frequencies with the other settings (a value so small or large that a "
            f"frequency overflows), got {params.get(key, DEFAULT_ROPE_THETA)!r}",
        )
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
