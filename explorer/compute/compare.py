"""What "Compare methods" (pages/8_Compare_methods.py) computes, cached: every method's checks
(posenc.attention.method_checks) with the page's settings."""

from __future__ import annotations

from explorer.layout import cached
from explorer.site.compare import ALIBI_HEADS
from explorer.vocabulary import TARGET_STOPS
from explorer.widgets import PARAMS
from posenc import alibi_slopes
from posenc import attention as att

#: The slope of each ALiBi head 1 … ALIBI_HEADS: the chart draws ALiBi's curve at any of them.
SLOPES = tuple(float(s) for s in alibi_slopes(ALIBI_HEADS))


def alibi_slope(head: int) -> float:
    """The slope of ALiBi head `head` (1 … ALIBI_HEADS)."""
    return SLOPES[head - 1]


@cached(max_entries=16)
def all_checks(dim: int, trained_len: int, test_len: int, seed: int, base: float, alibi_head: int) -> list[dict]:
    """One `att.method_checks` result per method of `att.METHODS`, in that order."""
    kwargs = dict(dim=dim, trained_len=trained_len, test_len=test_len, seed=seed, base=base)
    return [att.method_checks(method, **kwargs, alibi_slope=alibi_slope(alibi_head)) for method in att.METHODS]


#: The base b's options: the chart carries the curves of the methods that read it at each (issue #36)
BASES = tuple(float(b) for b in PARAMS["base"].options or ())


@cached(max_entries=16)
def curve_checks(dim: int, trained_len: int, test_len: int, seed: int) -> list[dict]:
    """The chart's curves (posenc.attention.score_curve): every method of `att.METHODS` but ALiBi, whose curve the
    browser computes from NoPE's at the head slider's slope (explorer.charts.compare.alibi_expression); a method
    that reads the base (`att.BASE_METHODS`) at every option of `BASES`, each curve with its ``base``."""
    kwargs = dict(dim=dim, trained_len=trained_len, test_len=test_len, seed=seed)
    return [
        {**att.score_curve(method, **kwargs, base=b), "base": b if method in att.BASE_METHODS else None}
        for method in att.METHODS
        if method != "alibi"
        for b in (BASES if method in att.BASE_METHODS else BASES[:1])
    ]


#: This page's lengths: L = 16 … TRAIN_MAX (the registry's smallest L), T = L + 1 … TARGET_MAX.
TRAIN_MIN, TRAIN_MAX, TARGET_MAX = 16, 2048, 4096


def target_above(train_len: int) -> int:
    """The first stop of `TARGET_STOPS` above L: where T goes when L reaches it (the chart's rule,
    `explorer.charts.compare.lengths_expressions`)."""
    return next(t for t in TARGET_STOPS if t > train_len)


def slider_windows(train_len: int, test_len: int) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """(L's, T's) window of stops for the chart's own sliders, (first, last), or None for a length off the
    stops (typed in its box: it stays a server run). Both on the stops: L over every stop of the page's
    range, T over every stop above the smallest L, so the chart's spec does not depend on either; one on the
    stops: it runs over the stops the other length leaves it (L < T)."""
    l_on = train_len in TARGET_STOPS and TRAIN_MIN <= train_len <= TRAIN_MAX
    t_on = test_len in TARGET_STOPS and test_len <= TARGET_MAX
    ls = [t for t in TARGET_STOPS if TRAIN_MIN <= t <= TRAIN_MAX and (t_on or t < test_len)]
    ts = [t for t in TARGET_STOPS if (t > TRAIN_MIN if l_on else t > train_len) and t <= TARGET_MAX]
    l_window = (ls[0], ls[-1]) if l_on and len(ls) > 1 else None
    t_window = (ts[0], ts[-1]) if t_on and len(ts) > 1 else None
    return l_window, t_window


def chart_lengths(train_len: int, test_len: int, windows) -> tuple[int, int]:
    """The (L, T) whose checks carry the chart's data: the largest each slider reaches, else the value."""
    l_window, t_window = windows
    return (l_window[1] if l_window else train_len), (t_window[1] if t_window else test_len)
