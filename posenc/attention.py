r"""Toy self-attention experiments: why a transformer needs positions, and five schemes side by side.

Self-attention without positions is *permutation-equivariant*. Write the input as rows of X and a
shuffle as a permutation matrix P (row i of PX is row perm[i] of X). Then

.. math::  A(PX) = P\,A(X)\,P^\top, \qquad \mathrm{Attn}(PX) = P\,\mathrm{Attn}(X),

so shuffling the words only shuffles the outputs: the model cannot tell the two orders apart.
Adding an encoding of the *positions* 0 … n−1 (or rotating q and k by them) breaks this identity.

Conventions: ``perm`` is an integer array with ``shuffled[i] = original[perm[i]]``.
Scores are the pre-softmax logits of one head, scaled by 1/√d.
"""

from __future__ import annotations

import math
import zlib

import numpy as np

from . import _validate as v
from .learned import learned_lookup, learned_table
from .relative import alibi_bias, attention_weights, shift_deviation, softmax
from .rope import apply_rope
from .sinusoidal import _diagonal_spread, inverse_frequencies, sinusoidal_encoding

#: The position schemes compared, as ``method`` arguments.
METHODS = ("sinusoidal", "learned", "rope", "alibi", "nope")
#: The methods whose scores read the base b (their frequencies b^(−2j/d)); the others ignore it.
BASE_METHODS = ("sinusoidal", "rope")

_MAX_TEXT_CHARS = 100_000
_EXTRA_WORD_CHARS = "'-"


# ------------------------------------------------------------------------------------ tokens
def tokenize(text, *, max_tokens=24, max_token_chars=16) -> tuple[list[str], int]:
    """Lower-case ``text``, split it on whitespace and keep the letters, digits, ``'`` and ``-``
    of each word (at most ``max_token_chars`` of them); words with no letter or digit are dropped.

    Returns ``(words[:max_tokens], number_of_words_found)``. Raises ValueError when fewer than two
    *different* words remain (nothing to shuffle).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    max_tokens = v.integer("max_tokens", max_tokens, minimum=2, maximum=10_000)
    max_token_chars = v.integer("max_token_chars", max_token_chars, minimum=1, maximum=1_000)
    words = []
    for raw in text[:_MAX_TEXT_CHARS].lower().split():
        kept = "".join(ch for ch in raw if ch.isalnum() or ch in _EXTRA_WORD_CHARS)
        if any(ch.isalnum() for ch in kept):
            words.append(kept[:max_token_chars])
    if len(set(words[:max_tokens])) < 2:
        raise ValueError(
            "text must contain at least two different words (letters or digits), "
            f"got {len(words)} word(s): {words[:3]!r}"
        )
    return words[:max_tokens], len(words)


def shuffle_permutation(words, *, seed=0, max_tries=64) -> np.ndarray:
    """A seeded permutation ``perm`` whose shuffle ``[words[i] for i in perm]`` reads differently
    from ``words`` (draws again when a draw only swaps equal words; falls back to swapping the
    first two different words). Requires at least two different words."""
    words = list(words)
    seed = v.integer("seed", seed, minimum=0)
    if len(set(words)) < 2:
        raise ValueError(f"words must contain at least two different words, got {words[:3]!r}")
    rng = np.random.default_rng(seed)
    for _ in range(v.integer("max_tries", max_tries, minimum=1, maximum=10_000)):
        perm = rng.permutation(len(words))
        if [words[i] for i in perm] != words:
            return perm
    perm = np.arange(len(words))  # pragma: no cover - 64 failed draws are vanishingly rare
    j = next(i for i, w in enumerate(words) if w != words[0])  # pragma: no cover
    perm[[0, j]] = perm[[j, 0]]  # pragma: no cover
    return perm  # pragma: no cover


def _check_perm(perm, n: int) -> np.ndarray:
    perm = np.asarray(perm)
    if perm.ndim != 1 or perm.size != n or not np.issubdtype(perm.dtype, np.integer):
        raise ValueError(f"perm must be a 1-D integer array of length {n}, got shape {perm.shape}, dtype {perm.dtype}")
    if not np.array_equal(np.sort(perm), np.arange(n)):
        raise ValueError(f"perm must be a permutation of 0 … {n - 1}, got {perm.tolist()[:8]}")
    return perm


# -------------------------------------------------------------------------------- embeddings
def word_seed(word: str) -> int:
    """A seed for ``word`` that is the same in every process: CRC-32 of its UTF-8 bytes
    (Python's ``hash()`` of a str changes between runs)."""
    if not isinstance(word, str):
        raise TypeError(f"word must be a string, got {type(word).__name__}")
    return zlib.crc32(word.encode("utf-8"))


def token_embeddings(words, dim, *, seed=0) -> np.ndarray:
    """One N(0, 1) vector per word, shape (len(words), dim); the vector depends only on
    (word, dim, seed), so a word gets the same vector wherever it stands in a sentence."""
    dim = v.dimension("dim", dim)
    seed = v.integer("seed", seed, minimum=0)
    rows = [
        np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2, word_seed(w)))).standard_normal(dim)
        for w in words
    ]
    if not rows:
        raise ValueError("words must not be empty, got 0 words")
    return np.stack(rows)


def seeded_projections(d_model, d_head=None, *, seed=0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Seeded W_q, W_k, W_v of shape (d_model, d_head) with entries
    :math:`\mathcal N(0, 1/d_{model})` (so a projected N(0, 1) vector keeps unit-scale entries)."""
    d_model = v.dimension("d_model", d_model)
    d_head = d_model if d_head is None else v.dimension("d_head", d_head)
    seed = v.integer("seed", seed, minimum=0)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)))
    w = rng.standard_normal((3, d_model, d_head)) / math.sqrt(d_model)
    return w[0], w[1], w[2]


# --------------------------------------------------------------------------- equivariance
def permutation_equivariance_gap(original, shuffled, perm, *, axes=(0,)) -> float:
    r"""How far a result for the shuffled input is from the original result shuffled the same way:

    .. math:: \max\,\bigl|\,Y(PX) - P\,Y(X)\,\bigr|  \quad(\text{axes}=(0,),\ \text{outputs}),
    .. math:: \max\,\bigl|\,A(PX) - P\,A(X)\,P^\top\bigr| \quad(\text{axes}=(0, 1),\ \text{weights}),

    i.e. ``original`` is indexed by ``perm`` along every axis in ``axes`` before comparing.
    Zero (up to rounding) exactly when the computation cannot see the order.
    """
    a = v.float_array("original", original)
    b = v.float_array("shuffled", shuffled)
    if a.shape != b.shape:
        raise ValueError(f"original and shuffled must have the same shape, got {a.shape} and {b.shape}")
    axes = tuple(axes)
    if not axes or any(not isinstance(ax, int) or not 0 <= ax < a.ndim for ax in axes):
        raise ValueError(f"axes must be axis numbers of a {a.ndim}-D array, got {axes}")
    for ax in axes:
        perm = _check_perm(perm, a.shape[ax])
        a = np.take(a, perm, axis=ax)
    return float(np.max(np.abs(b - a))) if a.size else 0.0


# ------------------------------------------------------------------------ position schemes
def additive_positions(method, n, d_model, *, base=10000.0, table=None) -> np.ndarray | None:
    """The (n, d_model) encoding added to the inputs at positions 0 … n−1, or None for a method
    that adds nothing (``"rope"``, ``"alibi"``, ``"nope"``). ``"learned"`` looks rows up in
    ``table`` (ValueError beyond its length)."""
    method = v.choice("method", method, METHODS)
    n = v.integer("n", n, minimum=1, maximum=v.MAX_POSITIONS)
    pos = np.arange(n, dtype=np.float64)
    if method == "sinusoidal":
        return sinusoidal_encoding(pos, d_model, base=base)
    if method == "learned":
        if table is None:
            raise ValueError("table must be given for method 'learned', got None")
        return learned_lookup(table, pos)
    return None


def _rows_dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(m, n): a[i] · b[k], each the same sum in the same order whatever m and n (numpy's einsum loop), so a score
    at (m, n) does not change by an ulp when more positions are computed beside it, as BLAS's would."""
    return np.einsum("ij,kj->ik", a, b)


def pair_scores(
    method, x_q, x_k, positions_q, positions_k, *, w_q, w_k, base=10000.0, table=None, alibi_slope=None
) -> np.ndarray:
    r"""Logit of a query token x_q at position m against a key token x_k at position n, for every
    (m, n); shape (len(positions_q), len(positions_k)). With :math:`d` = W_q's output width:

    - ``"nope"``:        :math:`s = (x_q W_q)\cdot(x_k W_k)/\sqrt d` (no position anywhere)
    - ``"sinusoidal"``, ``"learned"``: :math:`s = ((x_q + PE_m)W_q)\cdot((x_k + PE_n)W_k)/\sqrt d`
    - ``"rope"``:        :math:`s = \langle R_m x_q W_q,\ R_n x_k W_k\rangle/\sqrt d` (half layout)
    - ``"alibi"``:       :math:`s = (x_q W_q)\cdot(x_k W_k)/\sqrt d - \text{slope}\,|m-n|`

    ``"learned"`` needs ``table`` (a position ≥ len(table) raises ValueError); ``"alibi"`` needs
    ``alibi_slope`` (the bias is :func:`posenc.relative.alibi_bias`'s −slope·|m−n|).
    """
    method = v.choice("method", method, METHODS)
    x_q = v.float_array("x_q", x_q, ndim=1)
    x_k = v.float_array("x_k", x_k, ndim=1)
    w_q = v.float_array("w_q", w_q, ndim=2)
    w_k = v.float_array("w_k", w_k, ndim=2)
    if not (x_q.size == x_k.size == w_q.shape[0] == w_k.shape[0]) or w_q.shape[1] != w_k.shape[1]:
        raise ValueError(
            f"x_q, x_k and the projections must agree, got x_q {x_q.shape}, x_k {x_k.shape}, "
            f"w_q {w_q.shape}, w_k {w_k.shape}"
        )
    pq = v.positions_array("positions_q", positions_q)
    pk = v.positions_array("positions_k", positions_k)
    scale = 1.0 / math.sqrt(w_q.shape[1])
    if method in ("sinusoidal", "learned"):
        if method == "sinusoidal":
            pe_q, pe_k = (sinusoidal_encoding(p, x_q.size, base=base) for p in (pq, pk))
        elif table is None:
            raise ValueError("table must be given for method 'learned', got None")
        else:
            pe_q, pe_k = learned_lookup(table, pq), learned_lookup(table, pk)
        # s = ((x_q + PE_m) W_q) · ((x_k + PE_n) W_k): einsum, not BLAS, so each score is the same sum whatever
        # the number of positions (BLAS rounds a matrix's last columns another way: an ulp that depends on n)
        return _rows_dot(np.einsum("ij,jk->ik", x_q + pe_q, w_q), np.einsum("ij,jk->ik", x_k + pe_k, w_k)) * scale
    q, k = x_q @ w_q, x_k @ w_k  # (d,)
    if method == "rope":
        rq = apply_rope(np.broadcast_to(q, (pq.size, q.size)), pq, base=base)
        rk = apply_rope(np.broadcast_to(k, (pk.size, k.size)), pk, base=base)
        return _rows_dot(rq, rk) * scale
    content = np.full((pq.size, pk.size), float(q @ k) * scale)
    if method == "nope":
        return content
    if alibi_slope is None:
        raise ValueError("alibi_slope must be given for method 'alibi', got None")
    slope = v.finite_float("alibi_slope", alibi_slope)
    return content - slope * np.abs(pq[:, None] - pk[None, :])  # the bias of posenc.alibi_bias


def toeplitz_deviation(matrix) -> float:
    r"""How far a square matrix is from depending only on m − n:
    :math:`\max_k \bigl(\max_{m-n=k} M_{mn} - \min_{m-n=k} M_{mn}\bigr)` over all diagonals k."""
    return _diagonal_spread("matrix", matrix)


def position_footprint(
    method, x, *, w_q, w_k, w_v, shift, base=10000.0, table=None, alibi_slope=None
) -> dict[str, float]:
    """Where a scheme puts position: move one token ``x`` from position 0 to position ``shift`` and
    measure the largest change of its input vector, query, key and value (max |Δ| over the
    coordinates), and of the extra logit bias it gets against a key at position 0.

    Returns ``{"input": …, "query": …, "key": …, "value": …, "bias": …}``. Sinusoidal/learned
    change everything from the input on; RoPE only q and k; ALiBi only the bias; NoPE nothing.
    """
    method = v.choice("method", method, METHODS)
    x = v.float_array("x", x, ndim=1)
    shift = v.integer("shift", shift, minimum=1, maximum=v.MAX_POSITIONS)
    pos = np.array([0.0, float(shift)])
    inputs = np.stack([x, x])  # (2, d): the token at position 0 and at position `shift`
    pe = additive_positions(method, shift + 1, x.size, base=base, table=table)  # None if it adds nothing
    if pe is not None:
        inputs = inputs + pe[[0, shift]]
    q, k, val = inputs @ w_q, inputs @ w_k, inputs @ w_v
    if method == "rope":
        q, k = apply_rope(q, pos, base=base), apply_rope(k, pos, base=base)
    if method == "alibi" and alibi_slope is None:
        raise ValueError("alibi_slope must be given for method 'alibi', got None")
    bias = -v.finite_float("alibi_slope", alibi_slope) * pos if method == "alibi" else np.zeros(2)  # key at 0
    moved = {"input": inputs, "query": q, "key": k, "value": val, "bias": bias[:, None]}
    return {name: float(np.max(np.abs(a[1] - a[0]))) for name, a in moved.items()}


def method_checks(
    method, *, dim, trained_len, test_len, seed=0, base=10000.0, alibi_slope=0.5, n_tokens=8, max_shift_positions=256
) -> dict:
    """The numbers behind one row of the "compare methods" table, computed for seeded toy weights.

    - ``shift_deviation``: :func:`posenc.relative.shift_deviation` of :func:`pair_scores` over
      (``shift_positions`` = n and ``shift_offset`` = t below)
      positions 0 … n−1 shifted by t, with n = min(⌊L/2⌋, ``max_shift_positions``), t = L − n
      (the farthest shift for which a learned table still has rows);
    - ``score_spread``: max − min of the scores the shift test computed, i.e. over (m, n) in
      [0, n)² and [t, t+n)² (0 ⇔ no position signal);
    - ``score_scale``: max |score| there (for a relative tolerance);
    - ``permutation_gap``: :func:`permutation_equivariance_gap` of the attention weights of
      ``n_tokens`` seeded tokens under a seeded shuffle (0 ⇔ blind to word order);
    - ``extrapolation_error``: None, or the ValueError message raised when scoring a query at
      position 0 against keys at 0 … T−1 (T = ``test_len`` > L);
    - ``distances``, ``scores``: that curve (only up to L−1 when it raised);
    - ``parameters``: trainable numbers the scheme adds (L·d for a learned table, else 0);
    - ``footprint``: :func:`position_footprint` for a move by t positions;
    - ``bias_toeplitz_deviation`` (ALiBi only, else None): :func:`toeplitz_deviation` of
      :func:`posenc.relative.alibi_bias` (n, slope), 0 ⇔ the bias depends only on m − n.
    """
    method = v.choice("method", method, METHODS)
    dim = v.dimension("dim", dim, even=True)
    trained_len = v.integer("trained_len", trained_len, minimum=2, maximum=1_000_000)
    test_len = v.integer("test_len", test_len, minimum=trained_len + 1, maximum=1_000_000)
    seed = v.integer("seed", seed, minimum=0)
    n_tokens = v.integer("n_tokens", n_tokens, minimum=2, maximum=trained_len)

    x_q, x_k, w_q, w_k, w_v, table = _toy(method, dim, trained_len, seed)
    kw = dict(w_q=w_q, w_k=w_k, base=base, table=table, alibi_slope=alibi_slope)

    computed = []  # the score matrices the shift test asks for, kept for the spread and scale

    def score_fn(positions):
        computed.append(pair_scores(method, x_q, x_k, positions, positions, **kw))
        return computed[-1]

    n = min(trained_len // 2, v.integer("max_shift_positions", max_shift_positions, minimum=1))
    t = trained_len - n
    shift_dev = shift_deviation(score_fn, n, t)

    # shuffle test: n_tokens different seeded tokens, attention weights for both orders
    words = [f"token{i}" for i in range(n_tokens)]
    x = token_embeddings(words, dim, seed=seed)
    perm = shuffle_permutation(words, seed=seed)
    attn = dict(
        pe=additive_positions(method, n_tokens, dim, base=base, table=table),
        rope_inv_freq=inverse_frequencies(dim, base=base) if method == "rope" else None,
        alibi_slope=alibi_slope if method == "alibi" else None,
    )
    gap = permutation_equivariance_gap(
        attention_weights(x, w_q, w_k, **attn), attention_weights(x[perm], w_q, w_k, **attn), perm, axes=(0, 1)
    )

    keys, scores, error = _score_curve(method, x_q, x_k, test_len, trained_len, kw)

    return {
        "method": method,
        "shift_positions": n,
        "shift_offset": t,
        "shift_deviation": shift_dev,
        "score_spread": float(max(c.max() for c in computed) - min(c.min() for c in computed)),
        "score_scale": float(max(np.max(np.abs(c)) for c in computed)),
        "permutation_gap": gap,
        "extrapolation_error": error,
        "distances": keys,
        "scores": scores,
        "parameters": int(table.size) if table is not None else 0,
        "footprint": position_footprint(
            method, x_q, w_q=w_q, w_k=w_k, w_v=w_v, shift=t, base=base, table=table, alibi_slope=alibi_slope
        ),
        "bias_toeplitz_deviation": (toeplitz_deviation(alibi_bias(n, alibi_slope)) if method == "alibi" else None),
    }


def _toy(method: str, dim: int, trained_len: int, seed: int) -> tuple:
    """The seeded query and key, W_q, W_k, W_v and (a learned table only) the table that :func:`method_checks` and
    :func:`score_curve` score."""
    x_q, x_k = token_embeddings(["query", "key"], dim, seed=seed)
    w_q, w_k, w_v = seeded_projections(dim, seed=seed)
    table = learned_table(trained_len, dim, seed=seed, std=1.0) if method == "learned" else None
    return x_q, x_k, w_q, w_k, w_v, table


def _score_curve(
    method: str, x_q, x_k, test_len: int, trained_len: int, kw: dict
) -> tuple[np.ndarray, np.ndarray, str | None]:
    """(keys 0 … T − 1, s(0, n) at each, None) or, where scoring past L raises (a learned table), the keys up to L − 1,
    their scores and the message."""
    keys = np.arange(test_len, dtype=np.float64)
    try:
        return keys, pair_scores(method, x_q, x_k, [0.0], keys, **kw)[0], None
    except ValueError as exc:
        keys = keys[:trained_len]
        return keys, pair_scores(method, x_q, x_k, [0.0], keys, **kw)[0], str(exc)


def score_curve(method, *, dim, trained_len, test_len, seed=0, base=10000.0, alibi_slope=0.5) -> dict:
    """The curve of :func:`method_checks` alone (its ``distances``, ``scores`` and ``extrapolation_error``, the same
    numbers), without the checks: the score of the seeded query at position 0 against the seeded key at n = 0 … T−1."""
    method = v.choice("method", method, METHODS)
    dim = v.dimension("dim", dim, even=True)
    trained_len = v.integer("trained_len", trained_len, minimum=2, maximum=1_000_000)
    test_len = v.integer("test_len", test_len, minimum=trained_len + 1, maximum=1_000_000)
    seed = v.integer("seed", seed, minimum=0)
    x_q, x_k, w_q, w_k, _, table = _toy(method, dim, trained_len, seed)
    kw = dict(w_q=w_q, w_k=w_k, base=base, table=table, alibi_slope=alibi_slope)
    keys, scores, error = _score_curve(method, x_q, x_k, test_len, trained_len, kw)
    return {"method": method, "distances": keys, "scores": scores, "extrapolation_error": error}


def attention_head(
    x, w_q, w_k, w_v, *, pe=None, rope_inv_freq=None, rope_layout="half"
) -> tuple[np.ndarray, np.ndarray]:
    r"""One attention head in float64 numpy: :math:`A=\mathrm{softmax}(QK^\top/\sqrt{d_k})`, outputs :math:`AV`.

    ``pe`` (n, d) is added to x before the projections; ``rope_inv_freq`` rotates Q and K (not V) by
    positions 0 … n−1 (:func:`posenc.rope.apply_rope`, ``rope_layout``). No causal mask. Returns
    (weights (n, n), outputs (n, d_v)). ``posenc.torch.attention_head`` is the same head in torch
    (tests/test_posenc_attention.py holds the two and a hand-written loop to each other).
    """
    x = v.float_array("x", x)
    if x.ndim != 2:
        raise ValueError(f"x must have shape (n, d), got shape {x.shape}")
    if pe is not None:
        pe = v.float_array("pe", pe)
        if pe.shape != x.shape:
            raise ValueError(f"pe must have the shape of x {x.shape}, got {pe.shape}")
        x = x + pe
    w_q, w_k, w_v = (v.float_array(name, w) for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)))
    q, k, val = x @ w_q, x @ w_k, x @ w_v
    if rope_inv_freq is not None:
        positions = np.arange(x.shape[0])
        q = apply_rope(q, positions, inv_freq=rope_inv_freq, layout=rope_layout)
        k = apply_rope(k, positions, inv_freq=rope_inv_freq, layout=rope_layout)
    weights = softmax(q @ k.T / math.sqrt(q.shape[-1]))
    return weights, weights @ val


def shuffle_experiment(words, dim, *, seed=0, shuffle_seed=0, pe="none", max_tokens=24) -> dict:
    """One attention head (:func:`attention_head`, seeded weights) on a sentence and on a shuffle of
    it, as the home page shows it.

    ``pe``: "none", "sinusoidal", "learned" (a seeded table of `max_tokens` rows) or "rope".
    Returns perm, shuffled, weights_/outputs_ original/shuffled/expected (expected = the original
    re-ordered: P·Y(X), P·A(X)·Pᵀ) and the two gaps. Numpy only: the home page never imports torch.
    """
    words = list(words)
    perm = shuffle_permutation(words, seed=shuffle_seed)
    shuffled = [words[i] for i in perm]
    w_q, w_k, w_v = seeded_projections(dim, seed=seed)
    method = {"none": "nope"}.get(pe, pe)
    table = learned_table(max_tokens, dim, seed=seed, std=1.0) if pe == "learned" else None
    pe_rows = additive_positions(method, len(words), dim, table=table)  # None for RoPE and none
    inv_freq = inverse_frequencies(dim) if pe == "rope" else None
    out: dict = {"perm": perm, "shuffled": shuffled}
    for name, sentence in (("original", words), ("shuffled", shuffled)):
        x = token_embeddings(sentence, dim, seed=seed)  # (n, d), same vector per word
        weights, outputs = attention_head(x, w_q, w_k, w_v, pe=pe_rows, rope_inv_freq=inv_freq)
        out[f"weights_{name}"], out[f"outputs_{name}"] = weights, outputs
    out["outputs_expected"] = out["outputs_original"][perm]  # P·Y(X)
    out["weights_expected"] = out["weights_original"][perm][:, perm]  # P·A(X)·Pᵀ
    out["output_gap"] = permutation_equivariance_gap(out["outputs_original"], out["outputs_shuffled"], perm)
    out["weight_gap"] = permutation_equivariance_gap(
        out["weights_original"], out["weights_shuffled"], perm, axes=(0, 1)
    )
    return out
