"""Where a curve breaks past the training length: the interval test the page's break points rest on (numpy only;
the intervals are :mod:`posenc.stats`')."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .. import stats


@dataclass(frozen=True)
class Break:
    """What :func:`break_test` found: ``verdict`` "breaks" (at ``position``), "holds" (every tested bin
    past L within ``worse_by`` of the value at L, interval included), "unclear" (neither), or "no data"
    (no bin past L has enough scored tokens); ``tested`` bins, ``min_tokens`` per seed and bin."""

    verdict: str
    position: int | None
    tested: int
    min_tokens: int


def break_test(
    bins: Sequence[tuple[int, int]],
    per_seed: Mapping[str, Sequence[float | None]],
    counts: Mapping[str, Sequence[int]],
    at_train_len: Mapping[str, float | None],
    train_len: int,
    *,
    metric: str,
    worse_by: float,
    min_tokens: int = 256,
) -> Break:
    """Where a curve breaks, with intervals: ``bins`` [start, end) positions; ``per_seed`` {seed: bin means},
    ``counts`` {seed: scored tokens per bin}; ``at_train_len`` {seed: the model's value at length L}.
    A bin past L (start >= train_len) is tested only if every seed has >= ``min_tokens`` scored tokens in
    it; it "breaks" where the seed-paired interval of (bin − value at L), signed so that worse is
    positive, lies entirely above ``worse_by``. "holds" needs every tested bin's interval entirely below it."""
    sign = 1.0 if metric == "loss" else -1.0
    tested, below = 0, True
    for i, (start, _end) in enumerate(bins):
        if start < train_len:
            continue
        seeds = [k for k in per_seed if k in at_train_len and at_train_len[k] is not None]
        if not seeds or any(counts[k][i] < min_tokens or per_seed[k][i] is None for k in seeds):
            continue
        diff = stats.mean_interval([sign * (float(per_seed[k][i]) - float(at_train_len[k])) for k in seeds])  # type: ignore[arg-type]
        if diff is None or diff.lo is None or diff.hi is None:
            continue
        tested += 1
        if diff.lo > worse_by:
            return Break("breaks", int(start), tested, min_tokens)
        below = below and diff.hi < worse_by
    if not tested:
        return Break("no data", None, 0, min_tokens)
    return Break("holds" if below else "unclear", None, tested, min_tokens)
