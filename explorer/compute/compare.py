"""What "Compare methods" (pages/8_Compare_methods.py) computes, cached: every method's checks
(posenc.attention.method_checks) with the page's settings."""

from __future__ import annotations

from explorer.layout import cached
from explorer.site.compare import ALIBI_HEADS
from posenc import alibi_slopes
from posenc import attention as att


def alibi_slope(head: int) -> float:
    """The slope of ALiBi head `head` (1 … ALIBI_HEADS)."""
    return float(alibi_slopes(ALIBI_HEADS)[head - 1])


@cached(max_entries=16)
def all_checks(dim: int, trained_len: int, test_len: int, seed: int, base: float, alibi_head: int) -> list[dict]:
    """One `att.method_checks` result per method of `att.METHODS`, in that order."""
    kwargs = dict(dim=dim, trained_len=trained_len, test_len=test_len, seed=seed, base=base)
    return [att.method_checks(method, **kwargs, alibi_slope=alibi_slope(alibi_head)) for method in att.METHODS]
