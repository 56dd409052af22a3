"""Argument checks shared by every public function.

Each check raises ``ValueError`` (or ``TypeError`` for the wrong kind of object) whose message
names the parameter, states the rule and shows the value it got, e.g.
``base must be a finite number > 1, got 1.0``.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable
from typing import Any

import numpy as np

# Hard ceilings so that no caller (or URL) can make the library allocate something enormous.
MAX_DIM = 65_536
MAX_POSITIONS = 10_000_000


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def finite_float(name: str, value: Any) -> float:
    """A finite real number (bools and strings are rejected)."""
    if not _is_real(value):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}")
    return value


def positive_float(name: str, value: Any) -> float:
    value = finite_float(name, value)
    if value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value}")
    return value


def base_value(name: str, value: Any) -> float:
    """A RoPE / sinusoid base: finite and strictly greater than 1."""
    if not _is_real(value):
        raise TypeError(f"{name} must be a real number > 1, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value <= 1:
        raise ValueError(f"{name} must be a finite number > 1, got {value}")
    return value


def integer(name: str, value: Any, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """An integer (a float with an integral value such as 64.0 is accepted, as JSON gives them)."""
    if isinstance(value, bool) or not _is_real(value):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if isinstance(value, numbers.Integral):
        as_int = int(value)
    else:
        as_float = float(value)
        if not math.isfinite(as_float) or not as_float.is_integer():
            raise ValueError(f"{name} must be an integer, got {value}")
        as_int = int(as_float)
    if minimum is not None and as_int < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {as_int}")
    if maximum is not None and as_int > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {as_int}")
    return as_int


def dimension(name: str, value: Any, *, even: bool = False) -> int:
    """A vector dimension: an integer >= 2 (and even when pairs must be complete)."""
    dim = integer(name, value, minimum=2, maximum=MAX_DIM)
    if even and dim % 2:
        raise ValueError(f"{name} must be even (coordinates rotate in pairs), got {dim}")
    return dim


def choice(name: str, value: Any, options: Iterable[str]) -> str:
    options = tuple(options)
    if value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}, got {value!r}")
    return value


def positions_array(name: str, value: Any) -> np.ndarray:
    """A 1-D array of finite real positions (a scalar becomes a length-1 array)."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of real numbers, got {value!r}") from exc
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size > MAX_POSITIONS:
        raise ValueError(f"{name} must have at most {MAX_POSITIONS} entries, got {arr.size}")
    if not np.all(np.isfinite(arr)):
        bad = arr[~np.isfinite(arr)][0]
        raise ValueError(f"{name} must contain only finite numbers, got {bad}")
    return arr


def float_array(name: str, value: Any, *, ndim: int | None = None) -> np.ndarray:
    """A finite float64 array (optionally of a fixed number of dimensions)."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of real numbers, got {type(value).__name__}") from exc
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers, got a NaN or infinite entry")
    return arr


_NUMBER_TOKEN = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def parse_vector(text: Any, *, name: str = "vector", max_len: int = MAX_DIM) -> np.ndarray:
    """Parse comma-separated numbers such as ``"1, -0.5, 2e-3"`` into a float64 vector.

    Optional surrounding brackets ``[...]`` or ``(...)`` are ignored. Raises ValueError naming
    ``name`` and the offending item for anything else (empty text, a word, NaN, inf, too many items).
    """
    if not isinstance(text, str):
        raise TypeError(f"{name} must be text of comma-separated numbers, got {type(text).__name__}")
    body = text.strip()
    if len(body) >= 2 and (body[0], body[-1]) in (("[", "]"), ("(", ")")):
        body = body[1:-1].strip()
    if not body:
        raise ValueError(f"{name} must contain comma-separated numbers, got an empty text")
    items = [item.strip() for item in body.split(",")]
    if len(items) > max_len:
        raise ValueError(f"{name} must have at most {max_len} numbers, got {len(items)}")
    shown = [item if len(item) <= 20 else item[:19] + "…" for item in items]
    for i, item in enumerate(items, start=1):
        if not _NUMBER_TOKEN.fullmatch(item):
            raise ValueError(f"{name}: item {i} must be a number, got {shown[i - 1]!r}")
    values = np.array([float(item) for item in items])
    if not np.all(np.isfinite(values)):
        i = int(np.flatnonzero(~np.isfinite(values))[0])
        raise ValueError(f"{name}: item {i + 1} must be a finite number, got {shown[i]!r}")
    return values
