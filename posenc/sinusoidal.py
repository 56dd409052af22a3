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


def spread_pairs(n_pairs, count) -> np.ndarray:
    """Indices of `count` of the pairs 0 … n_pairs − 1, spread evenly from the fastest (0) to the slowest
    (n_pairs − 1): np.linspace rounded half to even, repeats dropped; all pairs if count >= n_pairs, pair 0
    alone if count == 1."""
    n_pairs = v.integer("n_pairs", n_pairs, minimum=1)
    count = v.integer("count", count, minimum=1)
    return np.unique(np.rint(np.linspace(0, n_pairs - 1, min(count, n_pairs))).astype(int))


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


def shift_residual(positions, k, d_model, *, base=10000.0, layout="interleaved", dtype="float64") -> np.ndarray:
    r""":math:`\lVert PE(p+k) - R_k\,PE(p)\rVert_2` for each p; shape (len(positions),).

    Zero in exact arithmetic for every p (see :func:`shift_matrix`); what remains is round-off of
    the encoding (computed at ``dtype``, float64 / float32 / float16), of R_k (cast to ``dtype``)
    and of the product (carried out in ``dtype``).
    """
    pos = v.positions_array("positions", positions)
    k = v.finite_float("k", k)
    r = shift_matrix(k, d_model, base=base, layout=layout)
    dt = np.dtype(dtype)
    pe_p = sinusoidal_encoding(pos, d_model, base=base, layout=layout, dtype=dt)  # (n, d)
    pe_pk = sinusoidal_encoding(pos + k, d_model, base=base, layout=layout, dtype=dt)
    diff = pe_pk - pe_p @ r.astype(dt).T  # row p: PE(p+k) − R_k PE(p), in dt
    return np.linalg.norm(diff.astype(np.float64), axis=1)


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


def distance_by_offset(offsets, d_model, *, base=10000.0) -> np.ndarray:
    r""":math:`\lVert PE(p+k) - PE(p)\rVert = 2\sqrt{\sum_j \sin^2(k\,\theta_j/2)}` for each offset k.

    Independent of p (each pair contributes :math:`2 - 2\cos k\theta_j = 4\sin^2(k\theta_j/2)`),
    so the closest two distinct positions among 0 … n−1 are found from the n−1 offsets alone,
    without an n × n distance matrix. The sine form avoids the cancellation of
    :math:`d - 2\sum_j\cos k\theta_j` for small distances. Even d_model (complete pairs).
    """
    k = v.positions_array("offsets", offsets)
    d = v.dimension("d_model", d_model, even=True)
    base = v.base_value("base", base)
    theta = _pair_frequencies(d // 2, d, base)
    half = np.sin(0.5 * np.multiply.outer(k, theta))  # (len(k), d/2) sin(kθ_j / 2)
    return 2.0 * np.sqrt(np.einsum("kj,kj->k", half, half))


def toeplitz_deviation(matrix) -> float:
    r"""How far a square matrix is from constant diagonals:
    :math:`\max_k \left(\max_{j-i=k} M_{ij} - \min_{j-i=k} M_{ij}\right)`.

    0 for a Toeplitz matrix such as :math:`PE(p)\cdot PE(q)` (it depends only on q − p);
    what remains is round-off.
    """
    m = v.float_array("matrix", matrix, ndim=2)
    if m.shape[0] != m.shape[1] or m.shape[0] < 1:
        raise ValueError(f"matrix must be square and non-empty, got shape {m.shape}")
    return _diagonal_spread("matrix", m)


def _diagonal_spread(name: str, matrix) -> float:
    """max over the diagonals k of (max − min of the entries with j − i = k) of a square matrix, 0 if it is empty:
    :func:`toeplitz_deviation`, :func:`posenc.relative.diagonal_spread` and :func:`posenc.attention.toeplitz_deviation`
    (each names its argument ``name`` in its errors)."""
    m = v.float_array(name, matrix, ndim=2)
    n = m.shape[0]
    if m.shape != (n, n):
        raise ValueError(f"{name} must be square, got shape {m.shape}")
    if n == 0:
        return 0.0
    offset = (np.arange(n)[None, :] - np.arange(n)[:, None]).ravel() + (n - 1)  # j − i, shifted ≥ 0
    hi = np.full(2 * n - 1, -np.inf)
    lo = np.full(2 * n - 1, np.inf)
    np.maximum.at(hi, offset, m.ravel())
    np.minimum.at(lo, offset, m.ravel())
    return float(np.max(hi - lo))


def block_mean_encoding(n_positions, d_model, *, rows, base=10000.0, layout="interleaved", pair_block=1) -> np.ndarray:
    r"""The encoding of positions 0 … n−1 averaged over ``rows`` blocks of consecutive positions
    (and, with ``pair_block`` = g > 1, over g neighbouring pairs); shape
    (rows, 2·⌈(d/2)/g⌉), in the same column layout as :func:`sinusoidal_encoding`.

    Row r averages positions s = ⌊r·n/rows⌋ … e − 1 with e = ⌊(r+1)·n/rows⌋, so the k = e − s
    positions per row differ by at most one. In closed form, with the block centre
    c = s + (k−1)/2,

    .. math::
        \frac1k\sum_{n=0}^{k-1}\sin((s+n)\theta) = \sin(c\,\theta)\,D_k(\theta),\qquad
        \frac1k\sum_{n=0}^{k-1}\cos((s+n)\theta) = \cos(c\,\theta)\,D_k(\theta),\qquad
        D_k(\theta) = \frac{\sin(k\theta/2)}{k\sin(\theta/2)}

    so averaging multiplies pair j by :math:`D_k(\theta_j)`: ≈ 1 for slow pairs
    (:math:`k\theta_j \ll 1`), ≈ 0 for pairs that turn many times within a block. Column
    averaging (g > 1) never mixes a sine with a cosine: column group G holds the mean of the sines
    (or of the cosines) of pairs gG … gG+g−1 (the last group may be smaller). rows = n gives the
    encoding itself. Even d_model.
    """
    n = v.integer("n_positions", n_positions, minimum=1, maximum=v.MAX_POSITIONS)
    d = v.dimension("d_model", d_model, even=True)
    r = v.integer("rows", rows, minimum=1, maximum=n)
    g = v.integer("pair_block", pair_block, minimum=1, maximum=v.MAX_DIM)
    base = v.base_value("base", base)
    layout = v.choice("layout", layout, LAYOUTS)
    h = d // 2
    theta = _pair_frequencies(h, d, base)  # (h,)
    edges = (np.arange(r + 1) * n) // r  # block boundaries, integer
    starts = edges[:-1].astype(np.float64)
    lengths = np.diff(edges).astype(np.float64)  # (rows,) ⌊n/rows⌋ or ⌈n/rows⌉
    centres = starts + (lengths - 1.0) / 2.0
    ang = np.multiply.outer(centres, theta)  # (rows, h) c·θ_j
    half = 0.5 * theta  # θ_j ≤ 1, so sin(θ_j/2) > 0
    atten = np.sin(np.multiply.outer(lengths, half)) / (lengths[:, None] * np.sin(half)[None, :])
    sin_mean = np.sin(ang) * atten  # (rows, h)
    cos_mean = np.cos(ang) * atten
    if g > 1:
        group = np.arange(0, h, g)
        counts = np.diff(np.append(group, h)).astype(np.float64)
        sin_mean = np.add.reduceat(sin_mean, group, axis=1) / counts
        cos_mean = np.add.reduceat(cos_mean, group, axis=1) / counts
    if layout == "interleaved":
        return np.stack([sin_mean, cos_mean], axis=-1).reshape(sin_mean.shape[0], -1)
    return np.concatenate([sin_mean, cos_mean], axis=1)
