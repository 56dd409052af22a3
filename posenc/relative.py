"""Relative-position algebra: attention scores, the shift test, RoFormer's decay bound, ALiBi.

RoPE's defining identity: R_mᵀR_n = R_{n−m}, so
⟨R_m q, R_n k⟩ = ⟨q, R_{n−m} k⟩ depends only on the offset n − m.
(One of the seed documents writes R(m)·R(n) = R(m−n); that product is R(m+n).)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np
from numpy.lib.stride_tricks import as_strided

from . import _validate as v
from .learned import learned_lookup, learned_table
from .precision import cos_sin
from .rope import _inv_freq, apply_rope, pair_indices
from .sinusoidal import _diagonal_spread, inverse_frequencies, sinusoidal_encoding


def rope_score_matrix(
    q, k, positions_q, positions_k, *, inv_freq=None, base=10000.0, layout="half", dtype="float64"
) -> np.ndarray:
    r"""s(m, n) = :math:`\langle R_m q,\, R_n k\rangle` for q, k of shape (dim,); shape (len(pq), len(pk)).

    ``dtype`` ("float64" or "float32") is the precision of the whole computation: q, k, the angles
    m·θ_j and their cos/sin (as :func:`posenc.precision.cos_sin` builds them), the rotation and the
    dot products. The result is returned as float64 either way.
    """
    q = v.float_array("q", q, ndim=1)
    k = v.float_array("k", k, ndim=1)
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same shape, got {q.shape} and {k.shape}")
    pq = v.positions_array("positions_q", positions_q)
    pk = v.positions_array("positions_k", positions_k)
    dtype = v.choice("dtype", dtype, SCORE_DTYPES)
    rq = _rope_rows(q, pq, inv_freq=inv_freq, base=base, layout=layout, dtype=dtype)
    rk = _rope_rows(k, pk, inv_freq=inv_freq, base=base, layout=layout, dtype=dtype)
    return _scores(rq, rk)


SCORE_DTYPES = ("float64", "float32")


#: The grid every product of rows here runs on (scores, and the shift test's projections). The i-th row of a list that
#: starts at grid place ``start`` lies in tile (start + i) // SCORE_TILE, and each tile is one product of a fixed shape,
#: (SCORE_TILE, d)·(d, SCORE_TILE) for scores and (SCORE_TILE, d)·(d, d) for projections, with the rows it does not use
#: set to 0. numpy runs a stack of products one at a time, each an independent sum over d, so an entry's bits depend
#: only on its own two vectors and its place on the grid, never on how many rows the product has: the scores of N
#: positions are a corner of those of more, and the shift test's windows at every t are cut from one product. Plain
#: products do not have this (BLAS gives a row other bits in products of other heights: bench/RESULTS.md section 43).
SCORE_TILE = 32


def _on_grid(rows: np.ndarray, start: int) -> tuple[np.ndarray, int]:
    """`rows` (n, d) placed on the grid from place `start`: (tiles (count, SCORE_TILE, d), the first row's slot)."""
    size = SCORE_TILE
    slot = start % size
    n, d = rows.shape
    grid = np.zeros((-(-(slot + n) // size) * size, d), dtype=rows.dtype)
    grid[slot : slot + n] = rows
    return grid.reshape(-1, size, d), slot


def _grid_project(rows: np.ndarray, w: np.ndarray, start: int = 0) -> np.ndarray:
    """rows · w, tile by tile on the grid from place `start` (see SCORE_TILE): a row's bits do not depend on the
    others."""
    tiles, slot = _on_grid(rows, start)
    return (tiles @ w).reshape(-1, w.shape[1])[slot : slot + rows.shape[0]]


def _scores(rows_q: np.ndarray, rows_k: np.ndarray, *, start: int = 0, band: int | None = None) -> np.ndarray:
    """rows_q · rows_kᵀ in the rows' dtype, returned as float64, tile by tile on the grid from place `start` (see
    SCORE_TILE). `band`: only the tiles at most that many tiles off the diagonal are computed, the others left NaN
    (square windows along the diagonal of at most band · SCORE_TILE rows lie inside it); None: every entry."""
    size = SCORE_TILE
    tiles_q, slot = _on_grid(rows_q, start)
    tiles_k = np.ascontiguousarray(_on_grid(rows_k, start)[0].transpose(0, 2, 1))  # (count, d, size)
    count_q, count_k = tiles_q.shape[0], tiles_k.shape[0]
    dtype = np.result_type(tiles_q, tiles_k)
    width = max(count_q, count_k) - 1 if band is None else min(band, max(count_q, count_k) - 1)
    every = width == max(count_q, count_k) - 1
    out = np.empty((count_q, size, count_k, size), dtype) if every else np.full((count_q, size, count_k, size), np.nan)
    tiles = out.transpose(0, 2, 1, 3)  # (count_q, count_k, size, size): a view, written in place
    if every:
        np.matmul(tiles_q[:, None], tiles_k[None], out=tiles)  # one (size, d)·(d, size) product a tile
    else:
        for off in range(-width, width + 1):  # the tiles (i, i + off), one diagonal at a time
            lo, hi = max(0, -off), min(count_q, count_k - off)
            if hi > lo:
                tiles[np.arange(lo, hi), np.arange(lo + off, hi + off)] = tiles_q[lo:hi] @ tiles_k[lo + off : hi + off]
    out = out.reshape(count_q * size, count_k * size)
    return out[slot : slot + rows_q.shape[0], slot : slot + rows_k.shape[0]].astype(np.float64, copy=False)


def _rope_rows(x, positions, *, inv_freq, base, layout, dtype) -> np.ndarray:
    """R_p x for every position p, one row each (len(positions), dim), computed in ``dtype``. A row
    depends on its own position only (every step is elementwise), so the rows of a longer list of
    positions are the rows of any of its slices, bit for bit."""
    if dtype == "float64":
        return apply_rope(
            np.broadcast_to(x, (positions.size, x.size)), positions, inv_freq=inv_freq, base=base, layout=layout
        )
    # Same rotation as apply_rope, every operation carried out in `dtype`.
    dim = v.dimension("q.shape[0] (dim)", x.size, even=True)
    inv = _inv_freq(inv_freq, dim, base)
    a, b = pair_indices(dim, layout=layout).T  # pair j rotates coordinates (a_j, b_j)
    dt = np.dtype(dtype)
    c, s = (t.astype(dt) for t in cos_sin(positions, inv, dtype=dtype))  # exact: values are dt numbers
    x = x.astype(dt)
    out = np.empty((positions.size, dim), dtype=dt)
    out[:, a] = x[a] * c - x[b] * s
    out[:, b] = x[a] * s + x[b] * c
    return out


def rope_shift_tolerance(q, k, max_position, *, dtype="float64") -> float | np.ndarray:
    r"""Pass mark for :func:`shift_deviation` of RoPE scores computed at ``dtype`` (float64 / float32).

    :math:`\tau = \varepsilon\,\lVert q\rVert\,\lVert k\rVert\,(4P + 2d + 8)`, with ε the dtype's
    machine epsilon, P the largest position used and d = len(q). Rationale (first order): the angle
    m·θ_j (θ_j ≤ 1) is off by at most about 2εP, which moves a score by at most
    2εP‖q‖‖k‖ (Cauchy–Schwarz); the rotation and the d-term dot product add about dε‖q‖‖k‖;
    the shift test subtracts two such scores.

    ``max_position`` a number (returns a float) or a 1-D array of them (returns one pass mark each).
    """
    q = v.float_array("q", q, ndim=1)
    k = v.float_array("k", k, ndim=1)
    p: float | np.ndarray = (
        v.finite_float("max_position", max_position)
        if np.ndim(max_position) == 0
        else v.positions_array("max_position", max_position)
    )
    if np.any(p < 0):
        raise ValueError(f"max_position must be >= 0, got {np.min(p)}")
    dtype = v.choice("dtype", dtype, SCORE_DTYPES)
    eps = float(np.finfo(np.dtype(dtype)).eps)
    return eps * float(np.linalg.norm(q) * np.linalg.norm(k)) * (4.0 * p + 2.0 * q.size + 8.0)


def seeded_normal(shape, *, seed=0, std=1.0) -> np.ndarray:
    """A seeded N(0, std²) array of ``shape``: stand-in content vectors q, k and projections W_q, W_k."""
    shape = tuple(v.integer("shape", n, minimum=1) for n in np.atleast_1d(shape))
    seed = v.integer("seed", seed, minimum=0)
    std = v.positive_float("std", std)
    if math.prod(shape) > 50_000_000:
        raise ValueError(f"shape must have at most 50000000 entries, got {math.prod(shape)}")
    return np.random.default_rng(seed).normal(0.0, std, size=shape)


def shift_deviation(score_fn: Callable[[np.ndarray], np.ndarray], n, offset) -> float:
    """max |s(m, n) − s(m+t, n+t)| over m, n in 0 … n−1, for ``score_fn(positions) -> (len, len)``."""
    n = v.integer("n", n, minimum=1, maximum=100_000)
    t = v.finite_float("offset", offset)
    base_pos = np.arange(n, dtype=np.float64)
    return float(np.max(np.abs(score_fn(base_pos) - score_fn(base_pos + t))))


def diagonal_spread(scores) -> float:
    """Largest change along one diagonal of a square score matrix: max over k of the spread
    (max − min) of the entries s(m, m + k). 0 exactly when s(m, n) depends only on n − m;
    0 for a 1 × 1 matrix (no diagonal has two entries)."""
    return _diagonal_spread("scores", scores)


def shift_test_report(
    q,
    k,
    *,
    n_positions,
    offset,
    dtype="float64",
    base=10000.0,
    layout="interleaved",
    table_len,
    seed=0,
    learned_std=0.5**0.5,
) -> dict:
    """The shift test for three encodings on the same q, k (shape (d,)), positions 0 … n−1 and offset t.

    RoPE rotates q and k (scores in ``dtype``); the sinusoidal table (``layout``) and a seeded learned
    table of ``table_len`` rows are *added* before seeded projections W_q, W_k (seeds seed+1, seed+2).
    Returns the score matrices, each method's max |s(m,n) − s(m+t,n+t)|, RoPE's round-off tolerance,
    and, when the learned table has no row for a needed position, its error message instead of a number.

    Every product runs on the grid of positions (SCORE_TILE): the scores at positions t … t+n−1 are those of
    positions 0 … n−1+t cut from one product, which is how :func:`shift_test_sweep` and :func:`shift_test_points`
    get this report's numbers bit for bit at every t and N.
    """
    q = v.float_array("q", q, ndim=1)
    k = v.float_array("k", k, ndim=1)
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same shape, got {q.shape} and {k.shape}")
    n = v.integer("n_positions", n_positions, minimum=1, maximum=100_000)
    t = v.integer("offset", offset, minimum=0)
    dtype = v.choice("dtype", dtype, SCORE_DTYPES)
    d = q.size
    pos = np.arange(n, dtype=np.float64)
    w_q, w_k = _shift_projections(d, seed)
    table = learned_table(table_len, d, seed=seed + 2, std=learned_std)

    def rope(s):  # the scores of positions s … s+n−1
        rows = (_rope_rows(x, pos + s, inv_freq=None, base=base, layout="half", dtype=dtype) for x in (q, k))
        return _scores(*rows, start=s)

    def sinusoidal(s):
        return _added_scores(q, k, sinusoidal_encoding(pos + s, d, base=base, layout=layout), w_q, w_k, s)

    def learned(s):
        return _added_scores(q, k, learned_lookup(table, pos + s), w_q, w_k, s)

    def deviation(s0, scores):
        return float(np.max(np.abs(s0 - scores(t))))

    rope_scores, sin_scores = rope(0), sinusoidal(0)
    rope_dev, sin_dev = deviation(rope_scores, rope), deviation(sin_scores, sinusoidal)
    learned_scores = learned_error = learned_dev = learned_dev_error = None
    try:
        learned_scores = learned(0)
        learned_dev = deviation(learned_scores, learned)
    except ValueError as err:  # a learned table has no row past its end, and says so
        learned_dev_error = str(err)
        learned_error = None if learned_scores is not None else learned_dev_error
    return {
        "positions": pos,
        "rope": rope_scores,
        "rope_dev": rope_dev,
        "tolerance": rope_shift_tolerance(q, k, n - 1 + t, dtype=dtype),
        "sinusoidal": sin_scores,
        "sinusoidal_dev": sin_dev,
        "learned": learned_scores,
        "learned_error": learned_error,
        "learned_dev": learned_dev,
        "learned_dev_error": learned_dev_error,
    }


def _checked_vectors(q, k) -> tuple[np.ndarray, np.ndarray]:
    q = v.float_array("q", q, ndim=1)
    k = v.float_array("k", k, ndim=1)
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same shape, got {q.shape} and {k.shape}")
    return q, k


def _checked_offsets(offsets) -> np.ndarray:
    ts = v.positions_array("offsets", offsets)
    if ts.size == 0 or ts.size > 100_000:
        raise ValueError(f"offsets must have 1 … 100000 entries, got {ts.size}")
    if np.any(ts < 0) or np.any(ts != np.round(ts)):
        bad = ts[(ts < 0) | (ts != np.round(ts))][0]
        raise ValueError(f"offsets must be whole numbers >= 0, got {bad:g}")
    return ts.astype(np.int64)


def shift_test_sweep(
    q,
    k,
    *,
    n_positions,
    offsets,
    dtype="float64",
    base=10000.0,
    layout="interleaved",
    table_len,
    seed=0,
    learned_std=0.5**0.5,
) -> dict:
    """The shift test of :func:`shift_test_report` for every offset t in ``offsets`` at once: its three
    deviations and its pass mark at each t, bit for bit (the same encodings, seeds and products).

    Each encoding's vectors at positions 0 … n−1+max(t) are computed once; nearby offsets' rows are projected and
    multiplied together on the grid of positions (SCORE_TILE; a band of tiles along the diagonal), so each t only
    compares the scores of rows 0 … n−1 with those of rows t … t+n−1: for T consecutive offsets about (n + T)·d²
    multiply-adds to project the rows, 2·(n + T)·n·d for the band and T·n² comparisons.

    Returns {"offset": (T,) int64, "rope_dev", "sinusoidal_dev", "learned_dev" (NaN where the table has
    no row for position n − 1 + t), "tolerance"}: each (T,) float64, in the order of ``offsets``.
    """
    q, k = _checked_vectors(q, k)
    n = v.integer("n_positions", n_positions, minimum=1, maximum=100_000)
    ts = _checked_offsets(offsets)
    out = _shift_deviations(q, k, n, ts, dtype, base, layout, table_len, seed, learned_std, curves=False)
    return {"offset": ts, **out}


def shift_test_curves(
    q,
    k,
    *,
    n_positions,
    offsets,
    dtype="float64",
    base=10000.0,
    layout="interleaved",
    table_len,
    seed=0,
    learned_std=0.5**0.5,
) -> dict:
    """The shift test of :func:`shift_test_report` at every N in 1 … n_positions and every t in ``offsets``, bit
    for bit: for each t, the deviation over the first N positions is the largest of the first N × N differences
    of one product's windows (see :func:`shift_test_sweep`), so every N ≤ n_positions costs what the largest does.

    Returns {"offset": (T,) int64, "rope_dev", "sinusoidal_dev", "learned_dev" (NaN where the table has no row for
    position N − 1 + t), "tolerance"}: each (T, n_positions) float64, column N − 1 for N.
    """
    q, k = _checked_vectors(q, k)
    n = v.integer("n_positions", n_positions, minimum=1, maximum=100_000)
    ts = _checked_offsets(offsets)
    return {
        "offset": ts,
        **_shift_deviations(q, k, n, ts, dtype, base, layout, table_len, seed, learned_std, curves=True),
    }


def shift_test_points(
    q,
    k,
    *,
    n_positions,
    offsets,
    dtype="float64",
    base=10000.0,
    layout="interleaved",
    table_len,
    seed=0,
    learned_std=0.5**0.5,
) -> dict:
    """The shift test of :func:`shift_test_report` at each pair (n_positions[i], offsets[i]): its three
    deviations and its pass mark, bit for bit (the same encodings, seeds and products).

    Where :func:`shift_test_sweep` varies t at one N, this varies N as well (an in-browser chart whose slider
    moves N at a fixed t): :func:`shift_test_curves` at each distinct t, up to the largest N asked with it.

    Returns {"n_positions", "offset": (P,) int64, "rope_dev", "sinusoidal_dev", "learned_dev" (NaN where the
    table has no row for position n − 1 + t), "tolerance": (P,) float64}, in the order given.
    """
    q, k = _checked_vectors(q, k)
    ns = v.positions_array("n_positions", n_positions)
    ts = v.positions_array("offsets", offsets)
    if ns.shape != ts.shape or ns.size == 0 or ns.size > 100_000:
        raise ValueError(f"n_positions and offsets must have the same 1 … 100000 entries, got {ns.size} and {ts.size}")
    for name, arr, least, most in (("n_positions", ns, 1, 100_000), ("offsets", ts, 0, np.inf)):
        bad = arr[(arr < least) | (arr > most) | (arr != np.round(arr))]
        if bad.size:
            within = f">= {least}" if np.isinf(most) else f"in {least} … {most}"
            raise ValueError(f"{name} must be whole numbers {within}, got {bad[0]:g}")
    ns, ts = ns.astype(np.int64), ts.astype(np.int64)
    dtype = v.choice("dtype", dtype, SCORE_DTYPES)
    distinct, where = np.unique(ts, return_inverse=True)
    longest = np.zeros(distinct.size, dtype=np.int64)
    np.maximum.at(longest, where, ns)  # the largest N asked at each distinct t
    # one curve per distinct t, as long as the next power of two of its largest N (at most the largest of all): the
    # offsets of a length go in one call, each call at most 4× the work of exact lengths
    lengths = np.minimum(np.left_shift(1, np.ceil(np.log2(longest)).astype(np.int64)), int(ns.max()))
    rows = _checked_rows(q, k, int(ns.max()), distinct, dtype, base, layout, table_len, seed, learned_std)
    out = {name: np.full(ns.size, np.nan) for name in _DEVIATIONS}
    for length in np.unique(lengths).tolist():
        at = np.flatnonzero(lengths == length)  # the distinct offsets whose curves are this long
        curves = _deviations_from_rows(q, k, rows, length, distinct[at], dtype, curves=True)
        for j, i in enumerate(at):
            points = np.flatnonzero(where == i)
            for name in _DEVIATIONS:
                out[name][points] = curves[name][j, ns[points] - 1]
    return {"n_positions": ns, "offset": ts, **out}


_DEVIATIONS = ("rope_dev", "sinusoidal_dev", "learned_dev", "tolerance")


def _shift_deviations(q, k, n: int, ts: np.ndarray, dtype, base, layout, table_len, seed, learned_std, *, curves):
    """{each of _DEVIATIONS: (T,) at N = n, or with `curves` (T, n) at every N ≤ n} for the offsets `ts`."""
    dtype = v.choice("dtype", dtype, SCORE_DTYPES)
    rows = _checked_rows(q, k, n, ts, dtype, base, layout, table_len, seed, learned_std)
    out = _deviations_from_rows(q, k, rows, n, ts, dtype, curves=curves)
    return out if curves else {key: col[:, 0] for key, col in out.items()}


def _checked_rows(q, k, n: int, ts: np.ndarray, dtype, base, layout, table_len, seed, learned_std) -> dict:
    """`_shift_rows` for N up to n at the offsets `ts`, the sizes checked (`dtype` already is)."""
    if n + int(ts.max()) > v.MAX_POSITIONS:
        raise ValueError(f"n_positions + max(offsets) must be <= {v.MAX_POSITIONS}, got {n + int(ts.max())}")
    return _shift_rows(q, k, n + int(ts.max()), dtype, base, layout, table_len, seed, learned_std)


def _deviations_from_rows(q, k, rows: dict, n: int, ts: np.ndarray, dtype: str, *, curves: bool) -> dict:
    """{each of _DEVIATIONS: (T, n) with `curves`, else (T, 1) at N = n} from the shift test's `rows`."""
    sizes = np.arange(1, n + 1) if curves else np.array([n])  # N at each column
    last = (sizes - 1)[None, :] + ts[:, None]  # the largest position each (t, N) uses
    out = {}
    for name in ("rope", "sinusoidal", "learned"):
        has_row = last < rows["learned_rows"] if name == "learned" else np.ones(last.shape, dtype=bool)
        dev = np.full(last.shape, np.nan)
        if has_row.any():
            dev = _window_deviations(ts, n, *rows[name], curves=curves)
            dev[~has_row] = np.nan
        out[f"{name}_dev"] = dev
    marks = rope_shift_tolerance(q, k, last.astype(np.float64).ravel(), dtype=dtype)
    out["tolerance"] = np.asarray(marks).reshape(last.shape)
    return out


def _shift_rows(q, k, length: int, dtype: str, base, layout: str, table_len, seed: int, learned_std) -> dict:
    """The shift test's rows at positions 0 … length − 1, each depending on its own position only (so a longer
    table's rows are a shorter one's, bit for bit): {"rope": (R_p q, R_p k) in `dtype`, "sinusoidal": (q + PE_p, k +
    PE_p, W_q, W_k), "learned": the same with the table's rows (0 past its end), "learned_rows": how many rows the table
    has}. The added encodings' rows are projected where a product needs them, on the grid (`_window_deviations`)."""
    d = q.size
    pos = np.arange(length, dtype=np.float64)
    table = learned_table(table_len, d, seed=seed + 2, std=learned_std)
    w = _shift_projections(d, seed)
    rope = tuple(_rope_rows(x, pos, inv_freq=None, base=base, layout="half", dtype=dtype) for x in (q, k))
    pe = sinusoidal_encoding(pos, d, base=base, layout=layout)
    held = np.zeros((length, d))
    held[: min(length, table.shape[0])] = table[:length]
    return {
        "rope": rope,
        "sinusoidal": (q + pe, k + pe, *w),
        "learned": (q + held, k + held, *w),
        "learned_rows": table.shape[0],
    }


#: The most positions one product of `_window_deviations` spans (the rows of a group of its windows; the offsets go in
#: groups), at most 4 n or 256 where that is less (offsets far apart go in groups of their own, not in one product mostly
#: left empty); and the most numbers a batch of its windows copies out of it. So a product holds at most _SPAN² numbers
#: (32 MB), or n² where n is larger, and a batch about 8 MB, twice that for curves.
_SPAN = 2048
_SWEEP_BATCH = 1 << 20


def _window_deviations(ts: np.ndarray, n: int, rows_q, rows_k, w_q=None, w_k=None, *, curves: bool):
    """max |S_0 − S_t| for every t in ``ts``, S_t the (n, n) scores of rows t … t+n−1 (projected by ``w_q``, ``w_k``
    when given; `_grid_project` and `_scores` on the grid, so the report's): (T, 1), or with `curves` (T, n), column
    N − 1 the largest over the first N × N entries (NaN from the first N whose entries hold one, as numpy's max over
    them gives). A group's rows are projected for its product only: offsets far apart project no rows between them.

    Every window's scores are cut from one product per group of nearby offsets (the tiles of a band along its
    diagonal); the first group's starts at row 0 where it can, so S_0 is cut from it too."""

    def product(lo: int, hi: int) -> np.ndarray:  # the scores of rows lo … hi − 1, a band of tiles
        a, b = rows_q[lo:hi], rows_k[lo:hi]
        if w_q is not None:
            a, b = _grid_project(a, w_q, lo), _grid_project(b, w_k, lo)
        return _scores(a, b, start=lo, band=-(-n // SCORE_TILE))  # a window touches at most this many tiles more

    out = np.empty((ts.size, n if curves else 1))
    upper = ~np.tri(n, k=-1, dtype=bool)  # True where the column is at least the row
    order = np.argsort(ts, kind="stable")
    ordered = ts[order]
    span = max(n, min(_SPAN, max(4 * n, 256)))
    s0 = None
    group = 0
    while group < ts.size:
        # the first group's product starts at row 0 when it can, and so holds S_0 too
        first = 0 if s0 is None and int(ordered[group]) + n <= span else int(ordered[group])
        end = max(group + 1, int(np.searchsorted(ordered, first + span - n, side="right")))
        members = order[group:end]
        starts = ts[members] - first  # each window's first row in this group's product
        top = int(starts.max()) + n
        scores = product(first, first + top)
        if s0 is None:
            s0 = scores[:n, :n].copy() if first == 0 else product(0, n)
        rs, cs = scores.strides
        windows = as_strided(scores, shape=(top - n + 1, n, n), strides=(rs + cs, rs, cs), writeable=False)
        step = max(1, _SWEEP_BATCH // (n * n))
        buffer = np.empty((min(step, members.size), n, n))
        for i in range(0, members.size, step):
            batch = starts[i : i + step]
            run = bool(np.all(np.diff(batch) == 1))  # consecutive starts: a view, no copy
            cut = windows[int(batch[0]) : int(batch[-1]) + 1] if run else windows[batch]
            diff = np.abs(np.subtract(cut, s0, out=buffer[: batch.size]), out=buffer[: batch.size])
            if curves:  # N's border: row N − 1 up to its diagonal, column N − 1 down to it (entries are >= 0 or NaN)
                rows = np.where(upper.T, diff, 0.0).max(axis=2)
                np.copyto(diff, 0.0, where=~upper)
                out[members[i : i + step]] = np.maximum.accumulate(np.maximum(rows, diff.max(axis=1)), axis=1)
            else:
                out[members[i : i + step], 0] = diff.max(axis=(1, 2))
        group = end
    return out


#: The largest d whose projections `_shift_projections` keeps (64 pairs of them: at most 64 MB); larger ones are drawn
#: anew at each call (a library caller's, not the app's: its head dims stop at 256).
_PROJECTIONS_KEPT_D = 256


def _shift_projections(d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The shift test's seeded projections W_q, W_k (seed + 1), each (d, d) with N(0, 1/d) entries; read-only."""
    d, seed = v.integer("d", d, minimum=1), v.integer("seed", seed, minimum=0)
    return _projections(d, seed) if d <= _PROJECTIONS_KEPT_D else _draw_projections(d, seed)


@functools.lru_cache(maxsize=64)
def _projections(d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """`_draw_projections`, kept: the shift test's chart asks for the same ones at every N."""
    return _draw_projections(d, seed)


def _draw_projections(d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    w_q, w_k = seeded_normal((2, d, d), seed=seed + 1, std=d**-0.5)
    w_q.flags.writeable = w_k.flags.writeable = False
    return w_q, w_k


def additive_score_matrix(x_q, x_k, pe, w_q, w_k) -> np.ndarray:
    r"""Scores when the encoding is *added* before the projections:
    :math:`s(m,n) = ((x_q + PE_m)W_q)\cdot((x_k + PE_n)W_k)`; shape (n, n) for pe of shape (n, d)."""
    x_q = v.float_array("x_q", x_q, ndim=1)
    x_k = v.float_array("x_k", x_k, ndim=1)
    pe = v.float_array("pe", pe, ndim=2)
    w_q = v.float_array("w_q", w_q, ndim=2)
    w_k = v.float_array("w_k", w_k, ndim=2)
    if not (x_q.size == x_k.size == pe.shape[1] == w_q.shape[0] == w_k.shape[0]):
        raise ValueError(
            "x_q, x_k, pe rows and the projections' input size must agree, got "
            f"{x_q.size}, {x_k.size}, {pe.shape[1]}, {w_q.shape[0]}, {w_k.shape[0]}"
        )
    return _added_scores(x_q, x_k, pe, w_q, w_k)


def _added_scores(x_q, x_k, pe, w_q, w_k, start: int = 0) -> np.ndarray:
    """`additive_score_matrix` for the rows of positions start … on the grid (SCORE_TILE)."""
    return _scores(_grid_project(x_q + pe, w_q, start), _grid_project(x_k + pe, w_k, start), start=start)


def rope_decay_bound(distances, dim, *, base=10000.0) -> np.ndarray:
    r"""RoFormer §3.4.3: :math:`\frac{1}{d/2}\sum_{j=1}^{d/2}|S_j|`, :math:`S_j=\sum_{i<j}e^{\,i\,r\,\theta_i}`.

    The score of RoPE-rotated q, k is bounded by a constant times this; it decays with |r|.
    """
    r = v.positions_array("distances", distances)
    dim = v.dimension("dim", dim, even=True)
    theta = inverse_frequencies(dim, base=base)
    phases = np.exp(1j * np.multiply.outer(r, theta))  # (len(r), d/2)
    partial_sums = np.cumsum(phases, axis=1)  # S_1 … S_{d/2}
    return np.abs(partial_sums).mean(axis=1)


def rope_mean_cos(distances, inv_freq, *, attention_factor=1.0) -> np.ndarray:
    r"""RoPE score against relative distance r for q = k = (1, …, 1), per unit :math:`|q|^2`:

    :math:`s(r) = a^2 \cdot \frac{1}{d/2} \sum_j \cos(r\,\theta_j)`, a = attention factor (the
    model multiplies cos and sin by a, so every logit scales by a²). Equals
    ``rope_score_matrix(ones, ones, [0], r) / d`` times a²; shape (len(distances),).
    """
    r = v.positions_array("distances", distances)
    inv = v.float_array("inv_freq", inv_freq, ndim=1)
    if inv.size == 0:
        raise ValueError("inv_freq must have at least one entry, got 0")
    a = v.positive_float("attention_factor", attention_factor)
    return a * a * np.cos(np.multiply.outer(r, inv)).mean(axis=1)


def alibi_slopes(n_heads) -> np.ndarray:
    """ALiBi head slopes (Press et al. 2022): 2^(−8h/n) for h = 1 … n when n is a power of two,
    otherwise the closest power of two's slopes followed by every other slope of twice as many heads."""
    n = v.integer("n_heads", n_heads, minimum=1, maximum=4096)

    def pow2(k: int) -> list[float]:
        start = 2 ** (-8 / k)
        return [start ** (h + 1) for h in range(k)]

    if math.log2(n).is_integer():
        return np.array(pow2(n))
    closest = 2 ** math.floor(math.log2(n))
    return np.array(pow2(closest) + pow2(2 * closest)[0::2][: n - closest])


def alibi_bias(n, slope) -> np.ndarray:
    """The (n, n) bias −slope·|m − n| added to the logits (symmetric form)."""
    n = v.integer("n", n, minimum=1, maximum=100_000)
    slope = v.finite_float("slope", slope)
    idx = np.arange(n)
    return -slope * np.abs(idx[:, None] - idx[None, :]).astype(np.float64)


def softmax(logits, axis=-1) -> np.ndarray:
    z = logits - np.max(logits, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def attention_weights(
    x, w_q, w_k, *, pe=None, rope_inv_freq=None, rope_layout="half", alibi_slope=None, causal=False
) -> np.ndarray:
    r"""Softmax attention weights of one head, shape (n, n).

    :math:`A = \mathrm{softmax}(QK^\top/\sqrt{d_k} + B)`, with Q = (x + PE)W_q (additive ``pe``),
    Q, K rotated by RoPE when ``rope_inv_freq`` is given, and B the ALiBi bias when ``alibi_slope`` is.
    """
    x = v.float_array("x", x, ndim=2)
    w_q = v.float_array("w_q", w_q, ndim=2)
    w_k = v.float_array("w_k", w_k, ndim=2)
    if pe is not None:
        pe = v.float_array("pe", pe, ndim=2)
        if pe.shape != x.shape:
            raise ValueError(f"pe must have the shape of x {x.shape}, got {pe.shape}")
        x = x + pe
    q, k = x @ w_q, x @ w_k
    n = x.shape[0]
    if rope_inv_freq is not None:
        pos = np.arange(n, dtype=np.float64)
        q = apply_rope(q, pos, inv_freq=rope_inv_freq, layout=rope_layout)
        k = apply_rope(k, pos, inv_freq=rope_inv_freq, layout=rope_layout)
    logits = q @ k.T / math.sqrt(q.shape[1])
    if alibi_slope is not None:
        logits = logits + alibi_bias(n, alibi_slope)
    if causal:
        logits = np.where(np.tril(np.ones((n, n), dtype=bool)), logits, -np.inf)
    return softmax(logits)
