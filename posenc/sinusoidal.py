"""Sinusoidal positional encoding (Vaswani et al. 2017) and its algebra.

Pairing convention. Pair j (j = 0 … d/2−1) turns at the angular frequency

    θ_j = base^(−2j/d),      wavelength λ_j = 2π / θ_j  (in tokens).

Two column layouts exist in the wild, both correct:

* ``"interleaved"`` (the paper): column 2j holds sin(p·θ_j), column 2j+1 holds cos(p·θ_j);
* ``"concatenated"`` (tensor2tensor): all the sines first, then all the cosines.

Odd d_model: the paper's formula is applied literally to every existing index i,
PE(p, i) = sin(p·base^(−2⌊i/2⌋/d)) for even i and cos(…) for odd i, so the last column is a
sine whose cosine partner would have been column d. Nothing is padded and nothing is NaN.
"""

from __future__ import annotations

import numpy as np

from . import _validate as v

LAYOUTS = ("interleaved", "concatenated")


def _pair_frequencies(n_pairs: int, d: int, base: float, dtype=np.float64) -> np.ndarray:
    # θ_j = base^(−2j/d), j = 0 … n_pairs−1
    j = np.arange(n_pairs, dtype=np.float64)
    return np.power(base, -2.0 * j / d).astype(dtype, copy=False)


def inverse_frequencies(dim, *, base=10000.0) -> np.ndarray:
    r"""Angular frequency of each pair, :math:`\theta_j = b^{-2j/d}`; shape (dim // 2,)."""
    dim = v.dimension("dim", dim)
    base = v.base_value("base", base)
    return _pair_frequencies(dim // 2, dim, base)


def wavelengths(dim, *, base=10000.0) -> np.ndarray:
    r"""Wavelength of each pair in tokens, :math:`\lambda_j = 2\pi/\theta_j`; shape (dim // 2,)."""
    return 2.0 * np.pi / inverse_frequencies(dim, base=base)


def sinusoidal_encoding(positions, d_model, *, base=10000.0, layout="interleaved", dtype=np.float64) -> np.ndarray:
    r"""The encoding table, shape (len(positions), d_model).

    :math:`PE(p, 2j) = \sin(p\,\theta_j)`, :math:`PE(p, 2j+1) = \cos(p\,\theta_j)` (interleaved),
    or all sines then all cosines (concatenated). Positions may be fractional or negative.
    ``dtype`` is the precision of the angles and of the result (float64 by default).
    """
    pos = v.positions_array("positions", positions)
    d = v.dimension("d_model", d_model)
    base = v.base_value("base", base)
    layout = v.choice("layout", layout, LAYOUTS)
    dtype = np.dtype(dtype)
    if dtype not in (np.float64, np.float32, np.float16):
        raise ValueError(f"dtype must be float64, float32 or float16, got {dtype}")

    n_sin = (d + 1) // 2  # columns holding a sine (one more than cosines when d is odd)
    n_cos = d // 2
    # float64 computes angles and sin/cos in float64; float32/float16 compute them in float32
    # (numpy has no faster float16 path) and store the result in the requested dtype.
    work = np.float64 if dtype == np.float64 else np.float32
    theta = _pair_frequencies(n_sin, d, base).astype(work)
    pos_w = pos.astype(work)
    out = np.empty((pos.size, d), dtype=dtype)
    # Rows are processed in blocks so the temporaries stay in cache and sin/cos run on
    # contiguous memory (numpy's SIMD loops); only the final copy is strided.
    block = 128
    ang = np.empty((min(block, pos.size), n_sin), dtype=work)  # (block, ceil(d/2)) angles p·θ_j
    sin = np.empty_like(ang)
    cos = np.empty((ang.shape[0], n_cos), dtype=work)
    for start in range(0, pos.size, block):
        n = min(block, pos.size - start)
        rows = slice(start, start + n)
        np.multiply.outer(pos_w[rows], theta, out=ang[:n])
        np.sin(ang[:n], out=sin[:n])
        np.cos(ang[:n, :n_cos], out=cos[:n])
        if layout == "interleaved":
            out[rows, 0::2] = sin[:n]
            out[rows, 1::2] = cos[:n]
        else:
            out[rows, :n_sin] = sin[:n]
            out[rows, n_sin:] = cos[:n]
    return out


def shift_matrix(k, d_model, *, base=10000.0, layout="interleaved") -> np.ndarray:
    r"""The (d, d) matrix :math:`R_k` with :math:`PE(p+k) = R_k\,PE(p)` for every p.

    On each (sin, cos) pair it is the block
    :math:`\begin{pmatrix}\cos k\theta_j & \sin k\theta_j\\ -\sin k\theta_j & \cos k\theta_j\end{pmatrix}`,
    from sin(a+b) = sin a cos b + cos a sin b and cos(a+b) = cos a cos b − sin a sin b.
    It does not depend on p: "k tokens later" is one fixed linear map.
    """
    k = v.finite_float("k", k)
    d = v.dimension("d_model", d_model, even=True)
    base = v.base_value("base", base)
    layout = v.choice("layout", layout, LAYOUTS)
    h = d // 2
    theta = _pair_frequencies(h, d, base)
    c, s = np.cos(k * theta), np.sin(k * theta)
    j = np.arange(h)
    sin_idx, cos_idx = (2 * j, 2 * j + 1) if layout == "interleaved" else (j, j + h)
    r = np.zeros((d, d))
    r[sin_idx, sin_idx] = c
    r[sin_idx, cos_idx] = s
    r[cos_idx, sin_idx] = -s
    r[cos_idx, cos_idx] = c
    return r


def encoding_dot_by_offset(offsets, d_model, *, base=10000.0) -> np.ndarray:
    r""":math:`PE(p)\cdot PE(p+k) = \sum_j \cos(k\,\theta_j)` for each offset k (independent of p)."""
    k = v.positions_array("offsets", offsets)
    d = v.dimension("d_model", d_model, even=True)
    base = v.base_value("base", base)
    theta = _pair_frequencies(d // 2, d, base)
    return np.cos(np.multiply.outer(k, theta)).sum(axis=1)


def similarity_matrix(pe) -> np.ndarray:
    """Dot products PE(p)·PE(q) for every pair of rows, shape (n, n)."""
    pe = v.float_array("pe", pe, ndim=2)
    return pe @ pe.T


def distance_matrix(pe) -> np.ndarray:
    """Euclidean distances ‖PE(p) − PE(q)‖ between every pair of rows, shape (n, n)."""
    pe = v.float_array("pe", pe, ndim=2)
    sq = np.sum(pe * pe, axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (pe @ pe.T)
    np.maximum(d2, 0.0, out=d2)  # tiny negative round-off
    np.fill_diagonal(d2, 0.0)
    return np.sqrt(d2)


def min_distinct_distance(pe) -> float:
    """The smallest distance between two different rows (0 means two positions collide)."""
    dist = distance_matrix(pe)
    if dist.shape[0] < 2:
        raise ValueError(f"pe must have at least 2 rows to compare, got {dist.shape[0]}")
    masked = dist + np.diag(np.full(dist.shape[0], np.inf))
    return float(masked.min())
