r"""The rope methods a real model runs with: its own rope block, changed (the real model's method grammar).

``default`` (the model's own block), ``norope`` (no rotation at all) or ``<rope_type>[:key=value…]`` of
:data:`posenc.ROPE_METHODS`, applied to the model's own block: its ``rope_theta`` and, where the type reads
it, ``original_max_position_embeddings`` = the trained length. A suffix ``/stop=LO-HI`` sets pairs LO…HI
(inclusive) to frequency 0: they stop rotating and carry no position::

    parse_method("yarn:factor=2").rope(16_384)        # (inv_freq (pairs,), attention_factor)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import grammar
from ..methods import ROPE_METHODS
from ..scaling import rope_inverse_frequencies
from .facts import MODEL, ModelFacts

__all__ = ["RealMethod", "method_for", "parse_method"]


@dataclass(frozen=True)
class RealMethod:
    """A parsed method: a rope_type with its keys (None: no rotation at all) and pairs stopped."""

    name: str
    rope_type: str | None
    params: Mapping[str, Any] = field(default_factory=dict)
    stopped: tuple[int, int] | None = None  # pairs lo…hi (inclusive) at frequency 0

    def block(self, facts: ModelFacts = MODEL) -> dict[str, Any] | None:
        """The rope block the model runs with (None for ``norope``): its own base and trained length."""
        if self.rope_type is None:
            return None
        if self.rope_type == "default" and not self.params:
            return facts.own_block()  # the model's own block, as its config declares it
        block: dict[str, Any] = {"rope_type": self.rope_type, "rope_theta": facts.rope_theta, **self.params}
        keys = ROPE_METHODS[self.rope_type].key_names
        if "original_max_position_embeddings" in keys:
            block.setdefault("original_max_position_embeddings", facts.trained_length)
        for key, value in grammar.REQUIRED_VALUES.get(self.rope_type, {}).items():  # Llama 3.1's, for llama3
            block.setdefault(key, value)
        return block

    def is_own_rope(self, seq_len: int, facts: ModelFacts = MODEL) -> bool:
        """True when at ``seq_len`` tokens this method gives exactly the model's own frequencies and attention
        factor (dynamic NTK below the trained length, a factor of 1, …)."""
        inv, af = self.rope(seq_len, facts)
        own, _ = RealMethod("default", "default").rope(seq_len, facts)
        return bool(np.array_equal(inv, own) and af == 1.0)

    def rope(self, seq_len: int, facts: ModelFacts = MODEL) -> tuple[np.ndarray, float]:
        """(inv_freq (pairs,), attention_factor) at a sequence of ``seq_len`` tokens, as HF computes them
        for :meth:`block` (dynamic NTK reads seq_len; the others do not)."""
        block = self.block(facts)
        if block is None:
            inv, af = np.zeros(facts.pairs), 1.0
        else:
            inv, af = rope_inverse_frequencies(
                block, facts.head_dim, max_position_embeddings=facts.trained_length, seq_len=int(seq_len)
            )
            inv = np.array(inv, dtype=np.float64)
        if self.stopped is not None:
            lo, hi = self.stopped
            inv[lo : hi + 1] = 0.0
        return inv, float(af)


def method_for(rope_type: str, *, factor: float = 2.0, keep: float = 0.25, facts: ModelFacts = MODEL) -> RealMethod:
    """A method from a rope_type and one scaling factor, every other key at HF's default: ``keep`` is
    proportional's fraction of rotating pairs (p-RoPE); LongRoPE, whose per-pair factors are searched for
    each model (SmolLM2 has none), gets short factors 1 and long factors rising geometrically from 1 on the
    fastest pair to ``factor`` on the slowest, as an example of its shape."""
    if rope_type in ("norope", "default"):
        return parse_method(rope_type, facts)
    if rope_type == "proportional":
        return parse_method(f"proportional:partial_rotary_factor={float(keep)!r}:factor={float(factor)!r}", facts)
    if rope_type == "longrope":
        n = facts.pairs
        params = {
            "factor": float(factor),
            "short_factor": [1.0] * n,
            "long_factor": [float(factor) ** (j / (n - 1)) for j in range(n)],
        }
        method = RealMethod(f"longrope:factor={float(factor)!r}", "longrope", params)
        method.rope(facts.trained_length, facts)
        return method
    return parse_method(f"{rope_type}:factor={float(factor)!r}", facts)


def parse_method(text: str, facts: ModelFacts = MODEL) -> RealMethod:
    """``"yarn:factor=2:beta_fast=16"`` -> RealMethod: the parts :func:`posenc.grammar.parse` reads, in the real
    model's vocabulary (a rope_type or ``norope`` as the head, ``/stop=LO-HI``, no ``+`` or ``@ft``). Raises
    ValueError naming the unknown method, key or value."""
    raw = str(text).strip()
    shape = f"method must be default, norope or <rope_type>[:key=value…][/stop=LO-HI], got {text!r}"
    parts = grammar.parse(raw, shape)
    if parts.rope_type is not None or parts.finetune_len is not None:
        raise ValueError(shape)
    rope_type = parts.head
    if rope_type not in (*ROPE_METHODS, "norope"):
        raise ValueError(f"method: unknown method {rope_type!r} in {text!r} (known: norope, {', '.join(ROPE_METHODS)})")
    allowed = () if rope_type == "norope" else ROPE_METHODS[rope_type].key_names
    for key in parts.params:
        if key not in allowed:
            raise ValueError(
                f"method: {rope_type!r} has no key {key!r} (allowed: {', '.join(allowed) or 'none'}), got {text!r}"
            )
    if parts.stopped is not None:
        lo, hi = parts.stopped
        if not 0 <= lo <= hi < facts.pairs:
            raise ValueError(f"method: stop=LO-HI needs 0 ≤ LO ≤ HI ≤ {facts.pairs - 1}, got {lo}-{hi} in {text!r}")
    method = RealMethod(raw, None if rope_type == "norope" else rope_type, dict(parts.params), parts.stopped)
    method.rope(facts.trained_length, facts)  # a bad value fails here, naming its key
    return method
