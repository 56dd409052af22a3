"""Statistics, written once: every interval and test the lab, the real model and their sentences use.

Pure numpy and the standard library (no scipy at run time); ``tests/test_stats.py`` compares each
function with scipy or statsmodels::

    from posenc import stats
    stats.mean_interval([0.41, 0.54, 0.47, 0.33, 0.52]).text()    # '0.454 [0.349, 0.559]' (t, 4 df)
    stats.share_interval([0.94, 0.97, 0.88, 0.95, 0.96])           # accuracies over seeds: inside [0, 1]
    stats.paired_interval({"0": 0.9, "1": 0.8}, {"0": 0.7, "1": 0.75})  # seed-paired a − b
    stats.wilson_interval(81, 263)                                  # (0.2553, 0.3662): a share of trials
    stats.mcnemar_exact(hits_a, hits_b)                             # paired yes/no outcomes, exact p
    stats.bootstrap(np.mean, chunks, block=3)                       # moving-block bootstrap, seeded
    stats.adjust_pvalues([0.01, 0.04, 0.03], "holm")                # several comparisons at once

Which interval for what:

* a mean over seeds (each seed its own model and evaluation sample): :func:`mean_interval` (Student t);
* a difference of two things measured on the same seeds (or tokens, or keys): :func:`paired_interval`
  (t interval of the per-unit differences), never two separate intervals compared by eye;
* a share of independent trials (found keys): :func:`wilson_interval` (Wilson 1927), in [0, 1];
* a mean of per-seed shares (accuracies): :func:`share_interval`, in [0, 1] by construction;
* a statistic of an ordered series whose neighbours are alike (tokens, chunks of a text):
  :func:`bootstrap` with ``block`` > 1, so that the interval keeps the series' own correlation and trend;
* paired yes/no outcomes (two methods on the same keys): :func:`mcnemar_exact`;
* many comparisons in one view: :func:`adjust_pvalues` (Holm or Bonferroni), :func:`bonferroni_level`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ._validate import choice, finite_float, integer

__all__ = [
    "LEVEL",
    "Estimate",
    "Interval",
    "adjust_pvalues",
    "block_length",
    "bonferroni_level",
    "bootstrap",
    "difference_of_means",
    "mcnemar_exact",
    "mean_interval",
    "normal_quantile",
    "paired_interval",
    "share_interval",
    "sign_test",
    "t_quantile",
    "wilson_interval",
]

LEVEL = 0.95  #: the confidence level every page reports


# ------------------------------------------------------------------------------------------ checks
def _inside_unit(name: str, x: Any) -> float:
    value = finite_float(name, x)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must be strictly between 0 and 1, got {value}")
    return value


def _level(level: Any) -> float:
    return _inside_unit("level", level)


def _values(name: str, values: Any) -> np.ndarray:
    """The finite values of a sequence, None (no value) and NaN left out."""
    if isinstance(values, np.ndarray):
        arr = np.asarray(values, dtype=np.float64).ravel()
        return arr[np.isfinite(arr)]
    out = []
    for v in values:
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must hold real numbers or None, got {v!r}")
        if math.isfinite(float(v)):
            out.append(float(v))
    return np.array(out, dtype=np.float64)


# --------------------------------------------------------------------------------------- quantiles
def normal_quantile(p: float) -> float:
    """The standard normal quantile Φ⁻¹(p), to double precision (Acklam's rational approximation, then
    one Halley step on ``math.erfc``)."""
    p = _inside_unit("p", p)
    a = (
        -39.69683028665376,
        220.9460984245205,
        -275.9285104469687,
        138.3577518672690,
        -30.66479806614716,
        2.506628277459239,
    )
    b = (-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572)
    c = (
        -7.784894002430293e-03,
        -0.3223964580411365,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    )
    d = (7.784695709041462e-03, 0.3224671290700398, 2.445134137142996, 3.754408661907416)
    if p < 0.02425 or p > 1 - 0.02425:
        q = math.sqrt(-2 * math.log(min(p, 1 - p)))
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
            (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1
        )
        x = x if p < 0.5 else -x
    else:
        q = p - 0.5
        r = q * q
        x = (
            (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5])
            * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
        )
    e = 0.5 * math.erfc(-x / math.sqrt(2)) - p  # Halley's step
    u = e * math.sqrt(2 * math.pi) * math.exp(x * x / 2)
    return x - u / (1 + x * u / 2)


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz, Numerical Recipes 6.4)."""

    def nonzero(v: float) -> float:  # Lentz's guard against a division by 0
        return v if abs(v) > 1e-300 else 1e-300

    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 / nonzero(1.0 - qab * x / qap)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        # the even step's coefficient, then the odd step's
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 / nonzero(1.0 + aa * d)
            c = nonzero(1.0 + aa / c)
            delta = d * c
            h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def _t_upper(t: float, df: float) -> float:
    """P(T > t) for t ≥ 0: ½·I_x(df/2, ½) with x = df / (df + t²) (the regularized incomplete beta)."""
    a, b = df / 2.0, 0.5
    x = df / (df + t * t)  # and 1 − x = t² / (df + t²), each computed without cancellation
    y = t * t / (df + t * t)
    if y == 0.0:
        return 0.5
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) - a * math.log1p(t * t / df) + b * math.log(y)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return 0.5 * front * _betacf(a, b, x) / a
    return 0.5 * (1.0 - front * _betacf(b, a, y) / b)


def _t_density(t: float, df: float) -> float:
    return math.exp(
        math.lgamma((df + 1) / 2)
        - math.lgamma(df / 2)
        - 0.5 * math.log(df * math.pi)
        - (df + 1) / 2 * math.log1p(t * t / df)
    )


def t_quantile(p: float, df: float) -> float:
    """Student's t quantile for ``df`` ≥ 1 degrees of freedom (any real df): closed forms for 1 and 2, else
    the Cornish–Fisher expansion (Abramowitz & Stegun 26.7.5) refined by Newton's method on the exact
    distribution function (the regularized incomplete beta), kept inside a bracket; relative error ~1e-12.

    Remembered for the last 4,096 (p, df) asked (a pure function of them): a page that writes a couple of hundred
    intervals at a few levels and seed counts computed each quantile on every run (the Newer encodings page: 94 ms of
    a 260 ms profiled run, bench/RESULTS.md section 36)."""
    p = _inside_unit("p", p)
    df = finite_float("df", df)
    if df < 1:
        raise ValueError(f"df must be a number >= 1, got {df}")
    return _t_quantile(p, df)


@functools.lru_cache(maxsize=4096)
def _t_quantile(p: float, df: float) -> float:
    """`t_quantile` of checked arguments (floats: hashable)."""
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    q = 1.0 - p  # the upper tail to hit
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    z = normal_quantile(p)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    t = z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4
    if df > 1e7:  # the expansion's error (~df⁻⁵) is below double precision
        return t
    lo, hi = 0.0, max(2.0 * t, 1.0)
    while _t_upper(hi, df) > q:
        lo, hi = hi, 2.0 * hi
    for _ in range(200):
        e = _t_upper(t, df) - q  # > 0: t is too small
        if e > 0:
            lo = max(lo, t)
        else:
            hi = min(hi, t)
        step = e / _t_density(t, df)
        nxt = t + step
        if not lo < nxt < hi:
            nxt = (lo + hi) / 2
        if abs(nxt - t) <= 1e-15 * abs(nxt):
            return nxt
        t = nxt
    return t


# --------------------------------------------------------------------------------------- intervals
@dataclass(frozen=True)
class Interval:
    """An estimate over ``n`` units (seeds) with its interval (lo, hi); one unit: lo = hi = None."""

    mean: float
    lo: float | None
    hi: float | None
    n: int

    @property
    def half(self) -> float | None:
        return None if self.hi is None else self.hi - self.mean

    def text(self, fmt: str = "{:.3f}") -> str:
        """'0.412 [0.371, 0.453]' (or the bare mean and "(one seed)")."""
        body = fmt.format(self.mean)
        if self.lo is None or self.hi is None:
            return body + " (one seed)"
        return f"{body} [{fmt.format(self.lo)}, {fmt.format(self.hi)}]"


class Estimate(NamedTuple):
    """A bootstrap's estimate and its percentile interval (unpacks as ``est, lo, hi``)."""

    estimate: float
    lo: float
    hi: float


def mean_interval(values: Sequence[float | None] | np.ndarray, level: float = LEVEL) -> Interval | None:
    """Mean and Student-t interval (``level``, n − 1 degrees of freedom) of the values; None and NaN values
    are left out; None if no value is left; one value: the mean without an interval."""
    level = _level(level)
    vals = _values("values", values)
    if vals.size == 0:
        return None
    mean = float(vals.mean())
    if vals.size == 1:
        return Interval(mean, None, None, 1)
    half = t_quantile((1 + level) / 2, vals.size - 1) * float(vals.std(ddof=1)) / math.sqrt(vals.size)
    return Interval(mean, mean - half, mean + half, int(vals.size))


def paired_interval(
    a: Mapping[str, float | None] | Sequence[float | None],
    b: Mapping[str, float | None] | Sequence[float | None],
    level: float = LEVEL,
) -> Interval | None:
    """a − b over the units both have, with the t interval of the differences (:func:`mean_interval`).
    Mappings pair by key (seed-paired: the same seed's two models share its evaluation sample);
    sequences pair by position and must have the same length. None if no unit has both values."""
    if isinstance(a, Mapping) != isinstance(b, Mapping):
        raise TypeError(
            f"a and b must both be mappings or both sequences, got {type(a).__name__} and {type(b).__name__}"
        )
    pairs: list[tuple[float | None, float | None]]
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        pairs = [(a[k], b[k]) for k in a if k in b]
    elif not isinstance(a, Mapping) and not isinstance(b, Mapping):
        if len(a) != len(b):
            raise ValueError(f"a and b must have the same length (paired by position), got {len(a)} and {len(b)}")
        pairs = list(zip(a, b, strict=True))
    diffs = [float(x) - float(y) for x, y in pairs if x is not None and y is not None]
    return mean_interval(diffs, level)


def _wilson(p: float, n: float, z: float) -> tuple[float, float]:
    """The Wilson score interval of a share p observed on n trials (n may be an effective, non-integer count)."""
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if p <= 0 else max(0.0, min(p, centre - half))  # exact at the ends, and never past p by round-off
    hi = 1.0 if p >= 1 else min(1.0, max(p, centre + half))
    return lo, hi


def wilson_interval(successes: int, trials: int, level: float = LEVEL) -> tuple[float, float]:
    """The Wilson (1927) score interval of a success rate from ``successes`` of ``trials`` independent trials:
    always inside [0, 1] and containing the observed rate (statsmodels' ``proportion_confint(method="wilson")``).
    No trials: (0, 1), every rate."""
    level = _level(level)
    trials = integer("trials", trials, minimum=0)
    successes = integer("successes", successes, minimum=0, maximum=trials)
    if trials == 0:
        return 0.0, 1.0
    return _wilson(successes / trials, trials, normal_quantile((1 + level) / 2))


def share_interval(
    values: Sequence[float | None] | np.ndarray,
    level: float = LEVEL,
    *,
    trials: Sequence[int | None] | np.ndarray | None = None,
) -> Interval | None:
    """Mean of per-seed shares (accuracies in [0, 1]) with an interval that stays in [0, 1] by construction.

    The seeds' spread sets the width, as in :func:`mean_interval`: the interval is Wilson's score interval
    at the effective number of trials n_eff = p̄(1 − p̄) / (s² / k) (k seeds, mean p̄, sample variance s²;
    the design-effect form of Korn & Graubard 1998), with the t quantile for k − 1 degrees of freedom in
    place of z. Where p̄ is far from 0 and 1 it is the t interval; near them it stays inside and leans
    inward, as a share's uncertainty does.

    ``trials``: how many trials each seed's share was measured on (same order as ``values``). The seeds
    can never tell more than all their trials pooled, so n_eff is at most their sum; and where the seeds
    agree exactly (s = 0, or every share 0 or 1) the pooled Wilson interval is the interval, so a perfect
    score still carries its sampling noise ("1.000 [0.9995, 1.000]", not a zero-width bracket). Without
    ``trials`` such seeds give a zero-width interval.

    Chosen over a Wilson interval on the pooled tokens alone (which would treat every token of every seed
    as an independent trial and ignore that seeds differ in training) and over a bootstrap over seeds
    (whose percentile interval, from 5 seeds, is too narrow). None and NaN values are left out (with their
    trials); None if none; one value: no interval."""
    level = _level(level)
    raw = list(values)
    if trials is not None:
        counts = list(trials)
        if len(counts) != len(raw):
            raise ValueError(f"trials must give one count per value ({len(raw)}), got {len(counts)}")
        kept = [
            (float(v), c)
            for v, c in zip(raw, counts, strict=True)
            if v is not None and not math.isnan(float(v)) and c is not None
        ]
        pooled = sum(integer("trials", c, minimum=1) for _, c in kept)
        raw = [v for v, _ in kept]
    vals = _values("values", raw)
    if vals.size and (vals.min() < 0 or vals.max() > 1):
        bad = vals[(vals < 0) | (vals > 1)][0]
        raise ValueError(f"values must be shares in [0, 1], got {bad}")
    if vals.size == 0:
        return None
    p = float(vals.mean())
    k = int(vals.size)
    if k == 1:
        return Interval(p, None, None, 1)
    var = float(vals.var(ddof=1))
    z = t_quantile((1 + level) / 2, k - 1)
    if var == 0.0 or p <= 0.0 or p >= 1.0:
        if trials is None:
            return Interval(p, p, p, k)
        lo, hi = _wilson(p, float(pooled), z)
        return Interval(p, lo, hi, k)
    n_eff = p * (1 - p) / (var / k)
    if trials is not None:
        n_eff = min(n_eff, float(pooled))
    lo, hi = _wilson(p, n_eff, z)
    return Interval(p, lo, hi, k)


# ------------------------------------------------------------------------------------- exact tests
def sign_test(successes: int, trials: int) -> float:
    """Two-sided exact binomial test of a rate of ½ (the sign test): P(a split at least as uneven as
    ``successes`` of ``trials``), scipy's ``binomtest(successes, trials, 0.5).pvalue``; 1 for no trials."""
    trials = integer("trials", trials, minimum=0)
    successes = integer("successes", successes, minimum=0, maximum=trials)
    if trials == 0:
        return 1.0
    low = min(successes, trials - successes)
    if 2 * low == trials:
        return 1.0
    tail = sum(math.comb(trials, i) for i in range(low + 1))
    return min(1.0, 2 * tail / 2**trials)


def mcnemar_exact(a: Sequence[bool] | np.ndarray, b: Sequence[bool] | np.ndarray) -> float:
    """Exact McNemar test for paired yes/no outcomes (two methods on the same keys): the sign test on the
    discordant pairs (a yes where b says no, against the reverse); concordant pairs carry no information.
    4 of 5 against 0 of 5 on the same keys gives p = 0.125."""
    x, y = np.asarray(a), np.asarray(b)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"a and b must be one-dimensional and of the same length, got shapes {x.shape} and {y.shape}")
    for name, arr in (("a", x), ("b", y)):
        if arr.size and not np.isin(arr, (0, 1)).all():
            raise ValueError(
                f"{name} must hold yes/no outcomes (booleans or 0/1), got {arr[~np.isin(arr, (0, 1))][0]!r}"
            )
    x, y = x.astype(bool), y.astype(bool)
    only_a, only_b = int((x & ~y).sum()), int((~x & y).sum())
    return sign_test(only_a, only_a + only_b)


# ------------------------------------------------------------------------------------ multiplicity
def adjust_pvalues(pvalues: Sequence[float] | np.ndarray, method: str = "holm") -> np.ndarray:
    """P-values adjusted for the number of comparisons made together (family-wise error): ``"bonferroni"``
    (each × m) or ``"holm"`` (step-down, never larger than Bonferroni's), capped at 1, in the input order;
    statsmodels' ``multipletests(p, method=…)[1]``."""
    method = choice("method", method, ("holm", "bonferroni"))
    p = np.asarray(pvalues, dtype=np.float64).ravel()
    if p.size and (not np.all(np.isfinite(p)) or p.min() < 0 or p.max() > 1):
        raise ValueError(f"pvalues must be probabilities in [0, 1], got {p[~((p >= 0) & (p <= 1))][0]}")
    m = p.size
    if method == "bonferroni":
        return np.minimum(1.0, p * m)
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(1.0, stepped)
    return out


def bonferroni_level(level: float, comparisons: int) -> float:
    """The level each of ``comparisons`` intervals needs so that all hold together with ``level``
    (Bonferroni): 1 − (1 − level) / comparisons."""
    level = _level(level)
    comparisons = integer("comparisons", comparisons, minimum=1)
    return 1 - (1 - level) / comparisons


# --------------------------------------------------------------------------------------- bootstrap
def block_length(n: int) -> int:
    """A block length for the block bootstrap of a mean over ``n`` ordered values: ⌈n^(1/3)⌉, the rate
    Hall, Horowitz & Jing (1995) give for variance and interval estimation (at most n // 2: two blocks)."""
    n = integer("n", n, minimum=1)
    return max(1, min(n // 2, math.ceil(n ** (1 / 3) - 1e-9)))


def _resample_rows(rows: int, *, n: int, block: int, scheme: str, rng: np.random.Generator) -> np.ndarray:
    """(n, rows') row indices of ``n`` resamples: "moving" = Künsch's (1989) moving blocks (starts uniform in
    0…rows − block, blocks joined and cut to ``rows``); "blocks" = Carlstein's (1986) non-overlapping blocks
    (the first rows // block blocks, drawn with replacement). block = 1: the plain bootstrap, either way."""
    if scheme == "moving":
        count = -(-rows // block)
        starts = rng.integers(0, rows - block + 1, size=(n, count))
        return (starts[:, :, None] + np.arange(block)).reshape(n, -1)[:, :rows]
    count = rows // block
    chosen = rng.integers(0, count, size=(n, count))
    return (chosen[:, :, None] * block + np.arange(block)).reshape(n, -1)


def bootstrap(
    statistic: Callable[..., Any],
    *samples: Any,
    n: int = 1000,
    seed: int = 0,
    level: float = LEVEL,
    block: int = 1,
    scheme: str = "moving",
) -> Estimate:
    """``statistic(*samples)`` and its percentile interval over ``n`` resamples of the samples' first axis
    (the same rows for every sample: paired), seeded and deterministic.

    ``block`` > 1 resamples runs of ``block`` neighbouring rows, so that an ordered series (tokens, chunks
    of a text past the trained length, which trend) keeps its correlation inside a run and the interval is
    not too narrow; ``scheme`` "moving" (overlapping runs, every start; Künsch 1989) or "blocks" (the
    series cut into consecutive blocks, a last partial block dropped, also from the estimate; Carlstein
    1986). ``block=1`` is the plain (iid) bootstrap, with the same draws for a given seed; at most rows // 2
    (two blocks, or every resample is the series itself)."""
    level = _level(level)
    n = integer("n", n, minimum=1)
    seed = integer("seed", seed, minimum=0)
    scheme = choice("scheme", scheme, ("moving", "blocks"))
    arrays = [np.asarray(s) for s in samples]
    if not arrays:
        raise ValueError("samples must hold at least one array, got none")
    rows = arrays[0].shape[0] if arrays[0].ndim else 0
    if rows < 2 or any(a.ndim == 0 or a.shape[0] != rows for a in arrays):
        raise ValueError(
            f"samples must have at least 2 rows, the same number in each, got {[a.shape[0] if a.ndim else 0 for a in arrays]}"
        )
    block = integer("block", block, minimum=1, maximum=rows // 2)  # at least two blocks
    if scheme == "blocks":
        arrays = [a[: (rows // block) * block] for a in arrays]
    rng = np.random.default_rng(seed)
    idx = _resample_rows(rows, n=n, block=block, scheme=scheme, rng=rng)
    values = np.array([statistic(*(a[i] for a in arrays)) for i in idx], dtype=np.float64)
    lo, hi = np.quantile(values, [(1 - level) / 2, (1 + level) / 2])
    return Estimate(float(statistic(*arrays)), float(lo), float(hi))


def difference_of_means(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    *,
    n: int = 1000,
    seed: int = 0,
    level: float = LEVEL,
    block: int = 1,
) -> Estimate:
    """mean(a) − mean(b) for two separate samples (say, a text's chunks past and inside the trained length),
    with the percentile interval of ``n`` resamples in which each sample is resampled on its own (moving
    blocks of ``block`` values when the values are an ordered series; 1 for independent values)."""
    level = _level(level)
    n = integer("n", n, minimum=1)
    seed = integer("seed", seed, minimum=0)
    x, y = np.asarray(a, dtype=np.float64).ravel(), np.asarray(b, dtype=np.float64).ravel()
    if x.size < 2 or y.size < 2:
        raise ValueError(f"a and b must have at least 2 values each, got {x.size} and {y.size}")
    block = integer("block", block, minimum=1, maximum=min(x.size, y.size) // 2)  # at least two blocks
    rng = np.random.default_rng(seed)
    mx = x[_resample_rows(x.size, n=n, block=block, scheme="moving", rng=rng)].mean(axis=1)
    my = y[_resample_rows(y.size, n=n, block=block, scheme="moving", rng=rng)].mean(axis=1)
    lo, hi = np.quantile(mx - my, [(1 - level) / 2, (1 + level) / 2])
    return Estimate(float(x.mean() - y.mean()), float(lo), float(hi))
