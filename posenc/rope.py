"""Rotary position embedding (RoPE, Su et al. 2021).

Each pair of coordinates of a query or key at position m is rotated by the angle m·θ_j;
values are not rotated. Which coordinates form pair j is a convention, and checkpoints depend on it:

* ``"half"`` (GPT-NeoX, HF LLaMA / Mistral / Qwen / Gemma / Phi): pair j is (x_j, x_{j+r/2});
  computed as ``x·cos + rotate_half(x)·sin`` with ``rotate_half(x) = cat(−x2, x1)``.
* ``"interleaved"`` (GPT-J, RoFormer, Meta's original LLaMA code): pair j is (x_{2j}, x_{2j+1}).

The two are the same rotation up to the fixed permutation :func:`layout_permutation`.
With partial rotary (GPT-J, GPT-NeoX) only the first ``rotary_dim`` coordinates rotate.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _validate as v
from .sinusoidal import inverse_frequencies

LAYOUTS = ("half", "interleaved")


def _inv_freq(inv_freq, rotary_dim: int, base) -> np.ndarray:
    if inv_freq is None:
        return inverse_frequencies(rotary_dim, base=base)
    inv = v.float_array("inv_freq", inv_freq, ndim=1)
    if inv.size != rotary_dim // 2:
        raise ValueError(f"inv_freq must have rotary_dim // 2 = {rotary_dim // 2} entries, got {inv.size}")
    return inv


def partial_rotary_dim(head_dim, partial_rotary_factor=1.0) -> int:
    """Number of rotated coordinates, int(head_dim · partial_rotary_factor) as HF computes it."""
    head_dim = v.dimension("head_dim", head_dim, even=True)
    f = v.finite_float("partial_rotary_factor", partial_rotary_factor)
    if not 0 < f <= 1:
        raise ValueError(f"partial_rotary_factor must be in (0, 1], got {f}")
    r = int(head_dim * f)
    if r < 2 or r % 2:
        raise ValueError(f"partial_rotary_factor must give an even rotary dim >= 2, got int({head_dim} * {f}) = {r}")
    return r


def rope_angles(positions, inv_freq) -> np.ndarray:
    r"""Rotation angles :math:`m\,\theta_j`, shape (len(positions), len(inv_freq))."""
    pos = v.positions_array("positions", positions)
    inv = v.float_array("inv_freq", inv_freq, ndim=1)
    return np.multiply.outer(pos, inv)


def rotate_half(x) -> np.ndarray:
    """``cat(−x2, x1)`` on the last axis, where x1, x2 are its two halves (HF's helper)."""
    x = np.asarray(x)
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def apply_rope(
    x, positions, *, inv_freq=None, base=10000.0, layout="half", rotary_dim=None, attention_factor=1.0
) -> np.ndarray:
    r"""Rotate x of shape (..., len(positions), dim) by position.

    For pair j at position m:
    :math:`\begin{pmatrix}x'_a\\x'_b\end{pmatrix} = \begin{pmatrix}\cos m\theta_j & -\sin m\theta_j\\
    \sin m\theta_j & \cos m\theta_j\end{pmatrix}\begin{pmatrix}x_a\\x_b\end{pmatrix}`,
    (a, b) = (j, j + r/2) for "half", (2j, 2j+1) for "interleaved". ``attention_factor`` multiplies
    cos and sin, as HF does after YaRN / LongRoPE scaling.
    """
    x = v.float_array("x", x)
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., seq, dim), got shape {x.shape}")
    pos = v.positions_array("positions", positions)
    dim = v.dimension("x.shape[-1] (dim)", x.shape[-1], even=True)
    if x.shape[-2] != pos.size:
        raise ValueError(f"x.shape[-2] must equal len(positions) = {pos.size}, got {x.shape[-2]}")
    layout = v.choice("layout", layout, LAYOUTS)
    r = dim if rotary_dim is None else v.dimension("rotary_dim", rotary_dim, even=True)
    if r > dim:
        raise ValueError(f"rotary_dim must be <= dim = {dim}, got {r}")
    inv = _inv_freq(inv_freq, r, base)
    af = v.finite_float("attention_factor", attention_factor)

    ang = np.multiply.outer(pos, inv)  # (seq, r/2)
    cos, sin = np.cos(ang) * af, np.sin(ang) * af
    rot, rest = x[..., :r], x[..., r:]
    if layout == "half":
        cos2, sin2 = np.concatenate([cos, cos], -1), np.concatenate([sin, sin], -1)  # (seq, r)
        out = rot * cos2 + rotate_half(rot) * sin2
    else:
        a, b = rot[..., 0::2], rot[..., 1::2]
        out = np.empty_like(rot)
        out[..., 0::2] = a * cos - b * sin
        out[..., 1::2] = a * sin + b * cos
    return np.concatenate([out, rest], axis=-1) if r < dim else out


def rotation_2x2(angle) -> np.ndarray:
    r""":math:`\begin{pmatrix}\cos\phi & -\sin\phi\\ \sin\phi & \cos\phi\end{pmatrix}`."""
    a = v.finite_float("angle", angle)
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s], [s, c]])


def pair_indices(dim, *, layout="half") -> np.ndarray:
    """Which coordinates rotate together: row j is (a, b) for pair j; shape (dim // 2, 2)."""
    dim = v.dimension("dim", dim, even=True)
    layout = v.choice("layout", layout, LAYOUTS)
    j = np.arange(dim // 2)
    if layout == "half":
        return np.stack([j, j + dim // 2], axis=1)
    return np.stack([2 * j, 2 * j + 1], axis=1)


def rope_matrix(position, dim, *, inv_freq=None, base=10000.0, layout="half") -> np.ndarray:
    """The (dim, dim) block rotation R_m with apply_rope(x, [m]) == R_m @ x."""
    m = v.finite_float("position", position)
    dim = v.dimension("dim", dim, even=True)
    inv = _inv_freq(inv_freq, dim, base)
    pairs = pair_indices(dim, layout=layout)
    c, s = np.cos(m * inv), np.sin(m * inv)
    a, b = pairs[:, 0], pairs[:, 1]
    r = np.zeros((dim, dim))
    r[a, a], r[a, b], r[b, a], r[b, b] = c, -s, s, c
    return r


def layout_permutation(dim) -> np.ndarray:
    """perm = [0, 2, 4, …, 1, 3, 5, …]: interleaved pair (2j, 2j+1) becomes half pair (j, j+d/2).

    For every x: ``apply_rope(x[..., perm], layout="half") == apply_rope(x, layout="interleaved")[..., perm]``.
    HF's LLaMA converter applies this permutation to the rows of W_q and W_k.
    """
    dim = v.dimension("dim", dim, even=True)
    return np.concatenate([np.arange(0, dim, 2), np.arange(1, dim, 2)])


# --- one pair in its plane (used by the RoPE rotation page) ---


def wrap_angle(angle) -> np.ndarray:
    r"""Angles wrapped into :math:`(-\pi, \pi]`: :math:`\phi - 2\pi\lceil(\phi - \pi)/(2\pi)\rceil`."""
    a = v.float_array("angle", angle)
    return a - 2.0 * np.pi * np.ceil((a - np.pi) / (2.0 * np.pi))


def polar_to_xy(angle, length, *, degrees=False) -> np.ndarray:
    r"""The 2-D vector :math:`(\ell\cos\phi,\ \ell\sin\phi)` for angle φ (radians, or degrees when
    ``degrees``) and length ℓ ≥ 0; shape (2,)."""
    a = v.finite_float("angle", angle)
    if degrees:
        a = np.deg2rad(a)
    ell = v.finite_float("length", length)
    if ell < 0:
        raise ValueError(f"length must be >= 0, got {ell}")
    return np.array([ell * np.cos(a), ell * np.sin(a)])


def signed_angle(a, b) -> float:
    r"""The angle that turns 2-D vector a onto b, in :math:`(-\pi, \pi]` (counter-clockwise positive):
    :math:`\operatorname{atan2}(a_x b_y - a_y b_x,\ a\cdot b)`. Both vectors must be non-zero."""
    a = v.float_array("a", a, ndim=1)
    b = v.float_array("b", b, ndim=1)
    for name, vec in (("a", a), ("b", b)):
        if vec.shape != (2,):
            raise ValueError(f"{name} must be a 2-D vector of shape (2,), got shape {vec.shape}")
        if not np.any(vec):
            raise ValueError(f"{name} must be a non-zero vector (a zero vector has no direction), got {vec.tolist()}")
    ang = float(np.arctan2(a[0] * b[1] - a[1] * b[0], a @ b))
    return float(wrap_angle(ang))


class PairAngles(NamedTuple):
    """Angles (radians, wrapped into (−π, π]) of :func:`pair_angles`."""

    before: float  # ∠(k → q) = φ_q − φ_k
    offset: float  # (m − n)·θ_j, wrapped
    predicted: float  # wrap(before + (m − n)·θ_j)
    measured: float  # ∠(R_n k → R_m q), from the rotated vectors


def pair_angles(q, k, m, n, theta) -> PairAngles:
    r"""RoPE's relative identity in one plane, both sides computed independently.

    For 2-D q at position m and k at position n, each rotated by its position times θ:
    :math:`\angle(R_{n\theta}k \to R_{m\theta}q) = \angle(k \to q) + (m-n)\,\theta \pmod{2\pi}`.
    ``measured`` rotates the vectors (:func:`apply_rope`) and measures; ``predicted`` adds the angles.
    """
    q = v.float_array("q", q, ndim=1)
    k = v.float_array("k", k, ndim=1)
    m = v.finite_float("m", m)
    n = v.finite_float("n", n)
    theta = v.finite_float("theta", theta)
    before = signed_angle(k, q)
    q_rot = apply_rope(q[None, :], [m], inv_freq=[theta])[0]
    k_rot = apply_rope(k[None, :], [n], inv_freq=[theta])[0]
    return PairAngles(
        before=before,
        offset=float(wrap_angle((m - n) * theta)),
        predicted=float(wrap_angle(before + (m - n) * theta)),
        measured=signed_angle(k_rot, q_rot),
    )
