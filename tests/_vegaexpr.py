"""A chart's Vega expressions evaluated in Python, for the expressions that use only arithmetic,
comparisons, array indexing and the functions below (no ternary ``?:``, no ``&&``): the in-chart
selections (``d_model.d_model``) and ``datum`` are given as values. Vega's numbers are float64 like
Python's floats; ``%`` differs only for negative operands (truncated in JavaScript, floored here),
which these expressions never have. What the browser makes of the same text is read back from the
Vega view in Chromium (tests/test_e2e_clocks_live.py)."""

from __future__ import annotations

import functools
import math
from types import SimpleNamespace
from typing import Any

import numpy as np

FUNCTIONS = {
    "floor": math.floor,
    "ceil": math.ceil,
    "sqrt": math.sqrt,
    # numpy's pow, which posenc's numbers come from: on CPUs with AVX-512 numpy's differs from the C library's
    # (math.pow) in the last bit now and then; JavaScript's may too (read back in Chromium within one ulp)
    "pow": lambda x, y: float(np.power(np.float64(x), np.float64(y))),
    "min": min,
    "max": max,
    "toNumber": lambda x: x,
    "PI": math.pi,
}


def vega_eval(
    expr: str, *, selections: dict[str, Any] | None = None, signals: dict[str, Any] | None = None, **datum: Any
) -> Any:
    """`expr` with each in-chart selection `key` (``key.key``) at ``selections[key]``, the signals
    `signals` by name and ``datum.<field>`` at the keyword arguments."""
    names: dict[str, Any] = dict(FUNCTIONS)
    for key, value in (selections or {}).items():
        names[key] = SimpleNamespace(**{key: value})
    names.update(signals or {})
    names["datum"] = SimpleNamespace(**datum)
    return eval(_compiled(expr), {"__builtins__": {}}, names)


@functools.lru_cache(maxsize=256)
def _compiled(expr: str):
    if "?" in expr or "&&" in expr or "||" in expr:
        raise ValueError(f"not an expression this evaluator reads: {expr}")
    return compile(expr, "<vega expression>", "eval")
