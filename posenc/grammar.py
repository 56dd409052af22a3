"""The one grammar of method strings, shared by the lab (:mod:`posenc.lab`) and the real model
(:mod:`posenc.realmodel`).

    method := head ["+" rope_type] {":" key "=" value} ["/stop=" LO "-" HI] ["@ft" N]
    value  := a number | true | false | null

    "rope+yarn:beta_fast=2@ft256"  the lab: RoPE scaled by YaRN with β_fast 2, fine-tuned at 256 tokens
    "alibi:heads=8"                the lab: ALiBi with 8 heads
    "yarn:factor=2/stop=20-31"     the real model: its rope block as YaRN ×2, pairs 20–31 stopped

This module only splits a string into its parts and reads the values. Which heads, rope types and
keys a string may use is the vocabulary of its caller (the lab's encodings, the real model's rope
types), checked there. :func:`compose` writes the parts back; ``parse(compose(…))`` gives them again.

:data:`REQUIRED_VALUES` holds the keys HF requires that a method string may leave out, read from the
preset of the model that published the method, so no caller re-types them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = ["REQUIRED_VALUES", "MethodText", "compose", "parse", "read_value"]

_WORD = r"[a-z][a-z0-9_]*"
_GRAMMAR = re.compile(
    rf"^(?P<head>{_WORD})(\+(?P<type>{_WORD}))?(?P<params>(:[^:/@]*)*)"
    r"(/stop=(?P<lo>\d+)-(?P<hi>\d+))?(@ft(?P<ft>\d+))?$"
)
SHAPE = "<head>[+<rope_type>][:key=value…][/stop=LO-HI][@ft<length>]"


@dataclass(frozen=True)
class MethodText:
    """A method string split into its parts (no vocabulary checked)."""

    text: str
    head: str
    rope_type: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    stopped: tuple[int, int] | None = None
    finetune_len: int | None = None


def read_value(text: str) -> Any:
    """A setting's value: a number (float), true, false or null (None). ValueError otherwise."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("null", "none"):
        return None
    return float(low)


def parse(text: Any, shape: str | None = None) -> MethodText:
    """Split ``text`` (lower-cased, stripped) into a :class:`MethodText`. Raises ValueError naming the
    string and the part that is wrong: the shape (``shape``, the caller's sentence, when given), a setting
    without ``=``, a value that is not a number/true/false/null, or a key given twice."""
    raw = str(text).strip().lower()
    m = _GRAMMAR.match(raw)
    if m is None:
        raise ValueError(shape or f"method must have the shape {SHAPE}, got {text!r}")
    params: dict[str, Any] = {}
    for item in filter(None, m.group("params").split(":")):
        key, sep, value = item.partition("=")
        if not sep or not re.fullmatch(_WORD, key):
            raise ValueError(f"method: settings are key=value, got {item!r} in {text!r}")
        if key in params:
            raise ValueError(f"method: {key} is given twice in {text!r}")
        try:
            params[key] = read_value(value)
        except ValueError:
            raise ValueError(
                f"method: {key} must be a number, true, false or null, got {value!r} in {text!r}"
            ) from None
    lo, hi, ft = m.group("lo"), m.group("hi"), m.group("ft")
    return MethodText(
        raw,
        m.group("head"),
        m.group("type"),
        params,
        (int(lo), int(hi)) if lo is not None else None,
        int(ft) if ft is not None else None,
    )


def _value_text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{float(value):g}" if float(value) == float(f"{float(value):g}") else repr(float(value))


def compose(
    head: str,
    rope_type: str | None = None,
    params: Mapping[str, Any] | None = None,
    *,
    stopped: tuple[int, int] | None = None,
    finetune_len: int | None = None,
) -> str:
    """The method string of these parts: ``compose("rope", "yarn", {"beta_fast": 4})`` ->
    ``"rope+yarn:beta_fast=4"``. Numbers are written as short as they read back exactly."""
    text = head + (f"+{rope_type}" if rope_type else "")
    text += "".join(f":{k}={_value_text(v)}" for k, v in (params or {}).items())
    if stopped is not None:
        text += f"/stop={int(stopped[0])}-{int(stopped[1])}"
    if finetune_len is not None:
        text += f"@ft{int(finetune_len)}"
    return text


def _required_values() -> Mapping[str, Mapping[str, Any]]:
    from .models import get_preset

    llama3 = get_preset("llama3.1-8b").rope_parameters  # the model that published the llama3 rope_type
    return MappingProxyType(
        {"llama3": MappingProxyType({k: llama3[k] for k in ("low_freq_factor", "high_freq_factor")})}
    )


#: rope_type -> {key: value} for the keys HF requires that a method string may leave out.
REQUIRED_VALUES: Mapping[str, Mapping[str, Any]] = _required_values()
