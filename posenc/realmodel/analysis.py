"""What the real model's numbers say: where heads look (labels by stated rules), which rotary pairs carry
the scores, and intervals that include the sampling noise. numpy only; the model computes the inputs
(:mod:`posenc.realmodel.model`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import stats

__all__ = [
    "HeadRules",
    "chunk_means",
    "contribution_spread",
    "control_differences",
    "control_estimates",
    "head_labels",
    "mean_difference",
    "pair_products",
    "share",
    "share_by_head",
    "slow_share",
    "spread_share",
]


@dataclass(frozen=True)
class HeadRules:
    """The rules that name a head from its mean attention (queries at positions ≥ ``min_query``):
    ``sink`` when the first token gets ≥ ``sink`` of the weight; else ``previous`` when the token just
    before gets ≥ ``previous``; else ``local`` when the ``window`` nearest tokens (the query itself
    included) get ≥ ``local``; else ``spread``."""

    sink: float = 0.5
    previous: float = 0.5
    local: float = 0.7
    window: int = 8
    min_query: int = 16


def head_labels(
    sink: np.ndarray, previous: np.ndarray, local: np.ndarray, rules: HeadRules | None = None
) -> np.ndarray:
    """Labels (same shape as the inputs) by :class:`HeadRules`, first rule that holds wins."""
    rules = rules or HeadRules()
    sink, previous, local = (np.asarray(a, dtype=float) for a in (sink, previous, local))
    out = np.full(sink.shape, "spread", dtype=object)
    out[local >= rules.local] = "local"
    out[previous >= rules.previous] = "previous"
    out[sink >= rules.sink] = "sink"
    return out


def pair_products(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(…, layers, q_heads, pairs) mean |q_j|·mean |k_j| per query head, k from the head's KV group (HF's
    grouped-query attention: query head h reads KV head h // (q_heads / kv_heads)). By Cauchy–Schwarz a
    pair's share of the score q·k is at most |q_j|·|k_j|: where this product is large the pair can matter."""
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    group = q.shape[-2] // k.shape[-2]
    return q * np.repeat(k, group, axis=-2)


def share(products: np.ndarray, pairs: np.ndarray) -> float:
    """The fraction of the summed products (over every layer and head) that the boolean ``pairs`` carry."""
    p = np.asarray(products, dtype=float)
    total = p.sum()
    return float(p[..., np.asarray(pairs, dtype=bool)].sum() / total) if total > 0 else 0.0


def share_by_head(products: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """(…, layers, heads) each head's fraction of its own products that the boolean ``pairs`` carry."""
    p = np.asarray(products, dtype=float)
    return p[..., np.asarray(pairs, dtype=bool)].sum(axis=-1) / p.sum(axis=-1)


def mean_difference(a: np.ndarray, b: np.ndarray, *, block: int, seed: int = 0) -> stats.Estimate:
    """mean(a − b) over paired tokens (the same tokens under two ropes) with a 95 % interval from a bootstrap
    of consecutive blocks of ``block`` tokens (a last partial block dropped), so that it keeps the text's own
    correlation between neighbouring tokens."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    return stats.bootstrap(np.mean, d, block=block, scheme="blocks", seed=seed)


def slow_share(q_blocks: np.ndarray, k_blocks: np.ndarray, pairs: np.ndarray, seed: int = 0) -> stats.Estimate:
    """The share of the q·k norm product in ``pairs`` with a 95 % interval over blocks of tokens: inputs
    (blocks, layers, heads, pairs) of per-block mean norms, as :meth:`RealModel.pair_norms` gives with ``block``."""
    return stats.bootstrap(
        lambda q, k: share(pair_products(q.mean(axis=0), k.mean(axis=0)), pairs), q_blocks, k_blocks, seed=seed
    )


def chunk_means(values: Sequence[float] | np.ndarray, chunk: int) -> list[float]:
    """Mean of consecutive chunks of ``chunk`` values (the last may be shorter)."""
    a = np.asarray(values, dtype=float)
    if chunk < 1:
        raise ValueError(f"chunk must be ≥ 1, got {chunk!r}")
    return [float(a[i : i + chunk].mean()) for i in range(0, len(a), chunk)]


def contribution_spread(
    q: np.ndarray, k: np.ndarray, inv_freq: np.ndarray, *, min_query: int = 16, block: int | None = None
) -> np.ndarray:
    """How much each rotary pair moves the scores softmax compares: for each query i ≥ ``min_query`` and
    pair j, the variance across its keys t ≤ i of the pair's rotated contribution to the score,
    c_j(i, t) = (R(i·θ_j) q_ij) · (R(t·θ_j) k_tj); softmax over the keys ignores what every key gets
    alike, so this variance, not |q|·|k|, is what the pair adds to the choice of keys. (Each pair's own
    variance: the covariances between pairs are left out.)

    ``q`` (layers, q_heads, T, d) and ``k`` (layers, kv_heads, T, d) before rotation, HF's half layout
    (pair j = dims j and j + d/2; query head h reads KV head h // (q_heads / kv_heads)); ``inv_freq``
    (d/2,) the θ_j the model rotates with. Returns (layers, q_heads, pairs), the mean over the queries;
    with ``block``, (blocks, layers, q_heads, pairs), the means over consecutive blocks of ``block``
    queries (a last partial block dropped), for intervals. Exact in O(T) per pair: the variance is
    q̃ᵀ·mean(k̃k̃ᵀ)·q̃ − (q̃·mean k̃)², with running means over the keys."""
    q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    T, d = q.shape[-2], q.shape[-1]
    half = d // 2
    theta = np.asarray(inv_freq, dtype=np.float64)
    if k.shape[-2:] != (T, d) or theta.shape != (half,) or q.shape[-3] % k.shape[-3]:
        raise ValueError(
            f"q (…, heads, T, d), k (…, kv_heads, T, d), inv_freq (d/2,): got {q.shape}, {k.shape}, {theta.shape}"
        )
    if not 0 <= min_query < T:
        raise ValueError(f"min_query must be in [0, {T - 1}], got {min_query!r}")
    angle = np.arange(T)[:, None] * theta[None, :]  # (T, pairs)
    cos, sin = np.cos(angle), np.sin(angle)

    def rotate(x: np.ndarray) -> np.ndarray:  # (…, T, d) -> (…, T, pairs, 2)
        a, b = x[..., :half], x[..., half:]
        return np.stack([a * cos - b * sin, b * cos + a * sin], axis=-1)

    qr, kr = rotate(q), rotate(k)
    count = np.arange(1, T + 1, dtype=np.float64)[:, None, None]
    mean_k = np.cumsum(kr, axis=-3) / count  # (…, kv, T, pairs, 2): mean over keys t ≤ i
    mean_kk = np.cumsum(kr[..., :, None] * kr[..., None, :], axis=-4) / count[..., None]  # (…, T, pairs, 2, 2)
    group = q.shape[-3] // k.shape[-3]
    mean_k, mean_kk = np.repeat(mean_k, group, axis=-4), np.repeat(mean_kk, group, axis=-5)
    second = np.einsum("...a,...ab,...b->...", qr, mean_kk, qr)
    first = np.einsum("...a,...a->...", qr, mean_k)
    var = np.maximum(second - first**2, 0.0)[..., min_query:, :]  # (layers, heads, queries, pairs)
    if block is None:
        return var.mean(axis=-2)
    n = var.shape[-2] // block
    if n < 1:
        raise ValueError(f"block must be at most the {var.shape[-2]} queries, got {block!r}")
    out = var[..., : n * block, :].reshape(*var.shape[:-2], n, block, var.shape[-1]).mean(axis=-2)
    return np.moveaxis(out, -2, 0)


def spread_share(spread_blocks: np.ndarray, pairs: np.ndarray, seed: int = 0) -> stats.Estimate:
    """The share of the summed variance (:func:`contribution_spread`, every layer and head) in the boolean
    ``pairs``, with a 95 % interval from a bootstrap over the blocks of queries (first axis)."""
    mask = np.asarray(pairs, dtype=bool)
    return stats.bootstrap(lambda v: share(v.mean(axis=0), mask), np.asarray(spread_blocks, dtype=float), seed=seed)


def control_differences(part: Mapping[str, Any]) -> dict[str, dict[str, np.ndarray]]:
    """The content control of the shipped ``texts`` part: {rope: {text: past − inside}} per stored block mean of the
    same tokens (paired by position in the text)."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for name, entry in (part.get("texts") or {}).items():
        for method, pair in (entry.get("control") or {}).items():
            past, inside = np.asarray(pair["past"], dtype=float), np.asarray(pair["inside"], dtype=float)
            out.setdefault(method, {})[name] = past - inside
    return out


def control_estimates(part: Mapping[str, Any]) -> dict[str, dict[str, stats.Estimate]]:
    """{rope: {text: mean(past − inside) with a 95 % interval}}: a moving-block bootstrap of the paired differences
    (runs of :func:`posenc.stats.block_length` neighbouring block means, so their correlation and trend stay)."""
    return {
        m: {t: stats.bootstrap(np.mean, d, block=stats.block_length(d.size)) for t, d in per.items()}
        for m, per in control_differences(part).items()
    }
