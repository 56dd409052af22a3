r"""A real pretrained RoPE model: SmolLM2-135M-Instruct, and what its positional encoding does.

This module is numpy only: the model's facts, the rope methods applied to its own rope block, the
head labels' rules, the passkey prompts and the shipped results. The model itself (torch and HF
transformers, imported on first use) lives in :mod:`posenc.realmodel.model`::

    from posenc import realmodel
    m = realmodel.load()                                  # once per process; cached on disk
    ids = m.tokenize(realmodel.default_text())[:512]
    m.nll(ids, "yarn:factor=2")                           # per-token NLL, tokens 2…L given their prefixes
    m.pair_norms(ids[:256])                               # {"q": (30, 9, 32), "k": (30, 3, 32)}

Methods are ``default``, ``norope`` (no rotation at all) or ``<rope_type>[:key=value…]`` of
:data:`posenc.ROPE_METHODS`, applied to the model's own block: ``rope_theta`` 100,000 and, where the
type reads it, ``original_max_position_embeddings`` 8,192. A suffix ``/stop=LO-HI`` sets pairs
LO…HI (inclusive) to frequency 0: they stop rotating and carry no position.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import sysconfig
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import stats
from ..methods import ROPE_METHODS
from ..scaling import rope_inverse_frequencies
from .facts import MODEL, ModelFacts, available, cache_dir, check_model_path, gguf_path, read_facts

__all__ = [
    "MODEL",
    "SHIPPED",
    "HeadRules",
    "ModelFacts",
    "RealMethod",
    "available",
    "cache_dir",
    "check_model_path",
    "default_text",
    "gguf_path",
    "head_labels",
    "load",
    "load_shipped",
    "mean_difference",
    "method_for",
    "pair_products",
    "parse_method",
    "passkey_prompt",
    "read_facts",
    "share",
    "share_by_head",
    "slow_share",
]


SHIPPED = Path(__file__).resolve().parents[2] / "data" / "realmodel" / "results.json"
MAX_TOKENS = 16_384  # the longest context any computation here accepts (2 × the default model's trained length)


def load(model: str | os.PathLike[str] | None = None, **kwargs: Any) -> Any:
    """The model (default: :data:`MODEL`; else a .gguf file or an HF model directory), loaded once per
    process (:func:`posenc.realmodel.model.load`; torch imported here)."""
    from . import model as _model

    return _model.load(model, **kwargs)


# --------------------------------------------------------------------------------------------------
# methods: the model's own rope block, changed
# --------------------------------------------------------------------------------------------------
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
        if self.rope_type == "llama3":
            # HF requires both; where a method string leaves them out, Llama 3.1's published values
            # (meta-llama/Llama-3.1-8B config.json: low_freq_factor 1, high_freq_factor 4).
            block.setdefault("low_freq_factor", 1.0)
            block.setdefault("high_freq_factor", 4.0)
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
    if rope_type == "norope":
        return parse_method("norope", facts)
    if rope_type == "default":
        return parse_method("default", facts)
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


_METHOD = re.compile(r"^(?P<type>[a-z0-9_]+)(?P<params>(:[^:/]*)*)(/stop=(?P<lo>\d+)-(?P<hi>\d+))?$")


def _value(text: str) -> Any:
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("null", "none"):
        return None
    return float(text)


def parse_method(text: str, facts: ModelFacts = MODEL) -> RealMethod:
    """``"yarn:factor=2:beta_fast=16"`` -> RealMethod. Raises ValueError naming the unknown method, key or value."""
    raw = str(text).strip()
    m = _METHOD.match(raw.lower())
    if m is None:
        raise ValueError(f"method must be default, norope or <rope_type>[:key=value…][/stop=LO-HI], got {text!r}")
    rope_type = m.group("type")
    if rope_type not in (*ROPE_METHODS, "norope"):
        raise ValueError(f"method: unknown method {rope_type!r} in {text!r} (known: norope, {', '.join(ROPE_METHODS)})")
    params: dict[str, Any] = {}
    allowed = () if rope_type == "norope" else ROPE_METHODS[rope_type].key_names
    for item in filter(None, m.group("params").split(":")):
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"method: settings are key=value, got {item!r} in {text!r}")
        if key not in allowed:
            raise ValueError(
                f"method: {rope_type!r} has no key {key!r} (allowed: {', '.join(allowed) or 'none'}), got {text!r}"
            )
        try:
            params[key] = _value(value)
        except ValueError:
            raise ValueError(
                f"method: {key} must be a number, true, false or null, got {value!r} in {text!r}"
            ) from None
    stopped = None
    if m.group("lo") is not None:
        lo, hi = int(m.group("lo")), int(m.group("hi"))
        if not 0 <= lo <= hi < facts.pairs:
            raise ValueError(f"method: stop=LO-HI needs 0 ≤ LO ≤ HI ≤ {facts.pairs - 1}, got {lo}-{hi} in {text!r}")
        stopped = (lo, hi)
    method = RealMethod(raw, None if rope_type == "norope" else rope_type, params, stopped)
    method.rope(facts.trained_length, facts)  # a bad value fails here, naming its key
    return method


# --------------------------------------------------------------------------------------------------
# texts
# --------------------------------------------------------------------------------------------------
DEFAULT_TEXT = "argparse.py"  # a module of the standard library: installed with Python itself


def default_text(name: str = DEFAULT_TEXT) -> str:
    """The source of a standard-library module (the stdlib's own files, so every machine has them)."""
    if not re.fullmatch(r"[a-z_]+\.py", name):
        raise ValueError(f"name must be a stdlib module file such as 'argparse.py', got {name!r}")
    path = Path(sysconfig.get_paths()["stdlib"]) / name
    if not path.is_file():
        raise ValueError(f"name: no such module in this Python's standard library, got {name!r}")
    return path.read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------------------
# where heads look: labels by stated rules
# --------------------------------------------------------------------------------------------------
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


# --------------------------------------------------------------------------------------------------
# passkey retrieval (Mohtashami & Jaggi 2023, "Landmark Attention", arXiv:2305.16300, appendix)
# --------------------------------------------------------------------------------------------------
FILLER = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again. "
PASSKEY_INTRO = (
    "There is an important info hidden inside a lot of irrelevant text. Find it and memorize it. "
    "I will quiz you about the important information there. "
)


def passkey_prompt(key: int, filler_repeats: int, depth: float) -> tuple[str, str]:
    """(prompt, answer): the landmark-attention passkey prompt with ``filler_repeats`` filler sentences
    groups and the key line inserted at ``depth`` (0 = first, 1 = last) of the filler."""
    if not 0.0 <= float(depth) <= 1.0:
        raise ValueError(f"depth must be in [0, 1], got {depth!r}")
    if int(filler_repeats) < 0:
        raise ValueError(f"filler_repeats must be ≥ 0, got {filler_repeats!r}")
    if not 0 <= int(key) <= 99999:
        raise ValueError(f"key must be an integer in [0, 99999], got {key!r}")
    at = round(float(depth) * int(filler_repeats))
    key_line = f"The pass key is {int(key)}. Remember it. {int(key)} is the pass key. "
    body = FILLER * at + key_line + FILLER * (int(filler_repeats) - at)
    return PASSKEY_INTRO + body + "What is the pass key? The pass key is", f" {int(key)}"


# --------------------------------------------------------------------------------------------------
# statistics: which pairs carry the q·k product, and intervals that include sampling noise
# --------------------------------------------------------------------------------------------------
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

    def stat(q: np.ndarray, k: np.ndarray) -> float:
        return share(pair_products(q.mean(axis=0), k.mean(axis=0)), pairs)

    return stats.bootstrap(stat, q_blocks, k_blocks, seed=seed)


# --------------------------------------------------------------------------------------------------
# shipped results
# --------------------------------------------------------------------------------------------------
def load_shipped(path: str | Path | None = None) -> dict[str, Any]:
    """The results computed in advance by ``python -m posenc.realmodel ship`` (data/realmodel/results.json)."""
    return json.loads(Path(path or SHIPPED).read_text(encoding="utf-8"))


def chunk_means(values: Sequence[float] | np.ndarray, chunk: int) -> list[float]:
    """Mean of consecutive chunks of ``chunk`` values (the last may be shorter)."""
    a = np.asarray(values, dtype=float)
    if chunk < 1:
        raise ValueError(f"chunk must be ≥ 1, got {chunk!r}")
    return [float(a[i : i + chunk].mean()) for i in range(0, len(a), chunk)]
