"""The extrapolation lab: tiny transformers trained on synthetic tasks, evaluated past their training length.

This module is numpy only (tasks, reference lines, method specs, shipped results); the model, the
training loop and the evaluation live in :mod:`posenc.lab.core`, which imports torch and is loaded
on first use of :func:`train`, :func:`evaluate`, … (``import posenc.lab`` does not import torch)::

    from posenc import lab
    run = lab.train(lab.TrainConfig(task="markov", encoding="rope", steps=300, seed=0))
    lab.evaluate(run.model, "markov", [64, 128, 256, 512])              # {64: 1.31, 128: …}
    lab.evaluate(run.model, "markov", [256], method="rope+yarn:beta_fast=4")

Tasks (generated in code, deterministic in their seed):

* ``markov``  an order-2 Markov chain over 8 tokens, one fixed random transition table; metric: the
  cross-entropy of the next token (nats), floor = the chain's entropy rate.
* ``kback``   16 uniform tokens; at position t predict the token at t − 3; metric: accuracy.
* ``copy``    a random first half, then the same tokens again; predict the second half; metric: accuracy
  (needs an induction head: trains ~5× longer).

Methods: ``nope``, ``learned``, ``sinusoidal``, ``rope``, ``alibi``, and ``rope+<rope_type>[:key=value…]``:
the RoPE model evaluated with a scaling method of :data:`posenc.ROPE_SCALING` (the same registry the
context-extension page draws), ``factor`` = evaluation length / training length unless given.
A suffix ``@ft<N>`` fine-tunes the RoPE model at length N first (with that scaling, factor N/L) and then
evaluates it with that fixed factor.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..methods import ROPE_METHODS
from ..scaling import ROPE_SCALING

__all__ = [
    "ENCODINGS",
    "SHIPPED",
    "TASKS",
    "MethodSpec",
    "TaskSpec",
    "bin_positions",
    "break_position",
    "load_shipped",
    "make_batch",
    "method_name",
    "parse_method",
    "preset_method",
    "references",
    "summarize",
]

ENCODINGS = ("nope", "learned", "sinusoidal", "rope", "alibi")
SHIPPED = Path(__file__).resolve().parents[2] / "data" / "lab" / "results.json"
_TABLE_SEED = 20240601  # the Markov chain's transition table: fixed, independent of every model seed


@dataclass(frozen=True)
class TaskSpec:
    name: str
    vocab: int
    metric: str  # "loss" (lower is better) or "accuracy"
    label: str


TASKS: Mapping[str, TaskSpec] = {
    "markov": TaskSpec("markov", 8, "loss", "order-2 Markov chain over 8 tokens"),
    "kback": TaskSpec("kback", 16, "accuracy", "the token 3 positions back, 16 tokens"),
    "copy": TaskSpec("copy", 16, "accuracy", "copy the first half (induction), 16 tokens"),
}
KBACK = 3
MIN_LEN, MAX_LEN = 8, 4096


def _task(name: str) -> TaskSpec:
    if name not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}, got {name!r}")
    return TASKS[name]


def _length(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not MIN_LEN <= int(value) <= MAX_LEN:
        raise ValueError(f"{name} must be an integer in [{MIN_LEN}, {MAX_LEN}], got {value!r}")
    return int(value)


def markov_table() -> np.ndarray:
    """(8, 8, 8) P[a, b, c] = P(next = c | two back = a, previous = b): Dirichlet(0.5), fixed seed."""
    rng = np.random.default_rng(_TABLE_SEED)
    return rng.dirichlet(np.full(8, 0.5), size=(8, 8))


def _markov_stationary(table: np.ndarray) -> np.ndarray:
    """Stationary distribution of the pair chain (a, b) -> (b, c): (8, 8)."""
    n = table.shape[0]
    pi = np.full((n, n), 1.0 / n**2)
    for _ in range(2000):
        pi = np.einsum("ab,abc->bc", pi, table)
    return pi / pi.sum()


def references(task: str) -> dict[str, float]:
    """The task's reference lines: for ``markov`` (nats) the chain's entropy rate ("floor"), the best
    model that sees only the previous token ("previous token only") and uniform guessing; for the
    accuracy tasks perfect (1), uniform guessing, and the previous-token-only model (= uniform)."""
    spec = _task(task)
    if spec.metric == "loss":
        table = markov_table()
        pi = _markov_stationary(table)
        h = -np.sum(table * np.log(table), axis=-1)  # (a, b)
        floor = float(np.sum(pi * h))
        p_prev = pi.sum(axis=0)  # P(b)
        cond = np.einsum("ab,abc->bc", pi, table) / p_prev[:, None]  # P(c | b)
        prev_only = float(-np.sum(p_prev[:, None] * cond * np.log(cond)))
        return {"floor": floor, "previous token only": prev_only, "uniform": math.log(spec.vocab)}
    return {"perfect": 1.0, "previous token only": 1.0 / spec.vocab, "uniform": 1.0 / spec.vocab}


def make_batch(task: str, batch: int, length: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, targets), each (batch, length) int64; a target of −1 is not scored.

    markov: targets are the inputs shifted by one (scored from position 1: two tokens of context);
    kback: target at t = input at t − 3; copy: the second half's next tokens.
    """
    spec = _task(task)
    length = _length("length", length)
    if spec.name == "markov":
        table = markov_table()
        cum = np.cumsum(table, axis=-1)
        seq = np.empty((batch, length + 1), dtype=np.int64)
        seq[:, :2] = rng.integers(0, 8, size=(batch, 2))
        u = rng.random((batch, length + 1))
        for t in range(2, length + 1):
            c = cum[seq[:, t - 2], seq[:, t - 1]]  # (batch, 8)
            seq[:, t] = np.minimum((u[:, t, None] > c).sum(axis=-1), 7)
        x, y = seq[:, :-1], seq[:, 1:].copy()
        y[:, :1] = -1
        return x, y
    if spec.name == "kback":
        x = rng.integers(0, spec.vocab, size=(batch, length))
        y = np.full_like(x, -1)
        y[:, KBACK:] = x[:, :-KBACK]
        return x, y
    half = length // 2
    first = rng.integers(0, spec.vocab, size=(batch, half))
    seq = np.concatenate([first, first, first[:, :1]], axis=1)[:, : length + 1]
    x, y = seq[:, :-1], seq[:, 1:].copy()
    y[:, : half - 1] = -1  # scored: predicting every token of the repeat
    return x, y


@dataclass(frozen=True)
class MethodSpec:
    """A parsed method name: the trained encoding, the scaling applied at evaluation (a rope block
    without its factor when the factor follows the evaluation length), and an optional fine-tune."""

    name: str
    encoding: str
    rope_type: str | None = None
    params: Mapping[str, float] = field(default_factory=dict)
    finetune_len: int | None = None

    def rope_block(self, eval_len: int, train_len: int, *, theta: float = 10000.0) -> dict[str, Any] | None:
        """The rope block used at ``eval_len`` (None: plain RoPE, no scaling). ``factor`` = eval_len / L
        (at least 1) unless given, or finetune_len / L for a fine-tuned model; a required key not given
        (llama3's low/high_freq_factor) takes its declared widget default (posenc.methods)."""
        if self.rope_type is None:
            return None
        block: dict[str, Any] = {"rope_type": self.rope_type, "rope_theta": theta, **self.params}
        for key in ROPE_METHODS[self.rope_type].keys:  # e.g. llama3's low/high_freq_factor: the declared widget default
            filled_below = key.name in ("factor", "original_max_position_embeddings")
            if key.required and key.name not in block and key.widget_default is not None and not filled_below:
                block[key.name] = key.widget_default
        if self.rope_type != "default" and "factor" not in self.params:
            target = self.finetune_len if self.finetune_len else eval_len
            block["factor"] = max(1.0, target / train_len)
        if self.rope_type in ("yarn", "llama3", "longrope"):
            block.setdefault("original_max_position_embeddings", train_len)
        return block


_SPEC = re.compile(r"^(?P<enc>[a-z]+)(\+(?P<type>[a-z0-9_]+))?(?P<params>(:[a-z_]+=[-0-9.e]+)*)(@ft(?P<ft>\d+))?$")


def parse_method(name: str) -> MethodSpec:
    """``"rope+yarn:beta_fast=4@ft256"`` -> MethodSpec. Raises ValueError naming the method."""
    text = str(name).strip().lower()
    m = _SPEC.match(text)
    if m is None or m.group("enc") not in ENCODINGS:
        raise ValueError(
            f"method must be one of {', '.join(ENCODINGS)} or rope+<rope_type>[:key=value…][@ft<length>], got {name!r}"
        )
    rope_type, ft = m.group("type"), m.group("ft")
    if (rope_type or ft) and m.group("enc") != "rope":
        raise ValueError(f"method: a scaling or fine-tune applies to rope only, got {name!r}")
    if rope_type is not None and rope_type not in ROPE_SCALING:
        raise ValueError(f"method: rope_type must be one of {', '.join(ROPE_SCALING)}, got {rope_type!r} in {name!r}")
    params: dict[str, float] = {}
    for item in filter(None, m.group("params").split(":")):
        key, value = item.split("=")
        try:
            params[key] = float(value)
        except ValueError:
            raise ValueError(f"method: {key} must be a number, got {value!r} in {name!r}") from None
    if params and rope_type is None:
        raise ValueError(f"method: key=value settings need a rope_type (rope+<type>:…), got {name!r}")
    if rope_type is not None:
        allowed = ROPE_METHODS[rope_type].key_names
        for key in params:
            if key not in allowed:
                raise ValueError(
                    f"method: rope_type {rope_type!r} has no setting {key!r} (allowed: {', '.join(allowed) or 'none'}), "
                    f"got {name!r}"
                )
    if ft is not None and rope_type is None:
        rope_type = "default"
    return MethodSpec(
        text,
        "rope" if text.startswith("rope") else m.group("enc"),
        rope_type,
        params,
        _length("fine-tune length", int(ft)) if ft else None,
    )


#: rope_types of a real model's recipe that cannot be moved to the tiny model, and why.
PRESET_LEFT_OUT = {
    "longrope": "LongRoPE's factors are one per rotated pair, searched for its own model's head size; the tiny "
    "model's head has a different number of pairs, so the lists cannot be carried over",
}


def preset_method(preset: Any, layer: int | None = None) -> MethodSpec:
    """A real model's scaling recipe (a :data:`posenc.models.PRESETS` key or preset; for a model whose
    layers differ, ``layer``'s rope) as a method for the lab's RoPE model: the same rope_type and
    scaling parameters (factor, β, mscale, low/high_freq_factor, truncate, …). Left out: ``rope_theta``
    (the tiny model keeps the base it was trained with) and ``original_max_position_embeddings``
    (:meth:`MethodSpec.rope_block` puts the lab's training length there); the head dim is the tiny
    model's. Raises ValueError for a layer without RoPE, a layer out of range, or a rope_type of
    :data:`PRESET_LEFT_OUT`."""
    from ..models import get_preset, preset_config

    preset = get_preset(preset) if isinstance(preset, str) else preset
    block: Mapping[str, Any] = preset.rope_parameters
    where = preset.key
    parsed = preset_config(preset)
    if parsed is not None and parsed.layer_plans and layer is not None:
        n = len(parsed.layer_plans)
        if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)) or not 0 <= int(layer) < n:
            raise ValueError(f"layer must be an integer in [0, {n - 1}] for {preset.key}, got {layer!r}")
        layer_block = parsed.layer_block(int(layer))
        if layer_block is None:
            raise ValueError(f"layer: layer {layer} of {preset.key} has no RoPE (a NoPE layer), so no recipe")
        block, where = layer_block, f"{preset.key}@layer{int(layer)}"
    rope_type = str(block.get("rope_type", "default"))
    if rope_type in PRESET_LEFT_OUT:
        raise ValueError(f"preset: {preset.key} uses rope_type {rope_type!r}: {PRESET_LEFT_OUT[rope_type]}")
    params = {
        k: v
        for k, v in block.items()
        if k not in ("rope_type", "rope_theta", "original_max_position_embeddings") and v is not None
    }
    return MethodSpec(where, "rope", None if rope_type == "default" and not params else rope_type, params)


def bin_positions(values: Sequence[float] | np.ndarray, bins: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """Mean of a per-position curve in ``bins`` equal bins (NaNs, the unscored positions, ignored):
    (bin centre positions, means)."""
    arr = np.asarray(values, dtype=np.float64)
    bins = max(1, min(int(bins), arr.size))
    edges = np.linspace(0, arr.size, bins + 1).astype(int)
    centres = (edges[:-1] + edges[1:] - 1) / 2
    with np.errstate(all="ignore"):
        means = np.array(
            [np.nanmean(arr[a:b]) if np.any(np.isfinite(arr[a:b])) else np.nan for a, b in itertools.pairwise(edges)]
        )
    return centres, means


def load_shipped(path: str | Path | None = None) -> dict[str, Any]:
    """The shipped results (data/lab/results.json, made by ``python -m posenc.lab ship``)."""
    return json.loads(Path(path or SHIPPED).read_text())


def method_name(
    rope_type: str, *, factor: float | None = None, beta_fast: float | None = None, attention_factor: bool = True
) -> str:
    """The method string of a scaling choice: method_name("yarn", beta_fast=4) -> "rope+yarn:beta_fast=4"."""
    parts = ["rope" if rope_type == "default" else f"rope+{rope_type}"]
    if rope_type != "default":
        if factor:
            parts.append(f"factor={factor:g}")
        if rope_type == "yarn" and beta_fast is not None:
            parts.append(f"beta_fast={beta_fast:g}")
        if rope_type == "yarn" and not attention_factor:
            parts.append("attention_factor=1")
    return ":".join(parts)


def __getattr__(name: str) -> Any:  # the torch half, imported on first use
    if name in (
        "TrainConfig",
        "TrainResult",
        "TinyTransformer",
        "train",
        "evaluate",
        "evaluate_method",
        "attention_map",
        "run_experiment",
        "finetune",
        "Cancelled",
        "model_from_state",
        "set_threads",
        "shipped_model",
    ):
        from . import core

        return getattr(core, name)
    raise AttributeError(f"module 'posenc.lab' has no attribute {name!r}")


def summarize(
    runs: Mapping[str, Mapping[str, Mapping[str, float | None]]],
) -> dict[str, dict[int, tuple[float | None, float | None, int]]]:
    """{method: {seed: {"<len>": value|None}}} -> {method: {length: (mean, sd, n_seeds)}}; a length
    with no value (a learned table past its rows) is (None, None, 0); sd is None for one seed."""
    out: dict[str, dict[int, tuple[float | None, float | None, int]]] = {}
    for method, seeds in runs.items():
        lengths = sorted({int(n) for values in seeds.values() for n in values})
        out[method] = {}
        for n in lengths:
            vals = [float(x) for v in seeds.values() if (x := v.get(str(n))) is not None]
            if not vals:
                out[method][n] = (None, None, 0)
            else:
                sd = float(np.std(vals, ddof=1)) if len(vals) > 1 else None
                out[method][n] = (float(np.mean(vals)), sd, len(vals))
    return out


def break_position(
    per_position: Sequence[float | None], train_len: int, *, metric: str, worse_by: float, bins: int = 64
) -> int | None:
    """First position past ``train_len`` where the binned curve is worse than its mean inside the
    training length by more than ``worse_by`` (nats for loss, accuracy points for accuracy); None if never."""
    arr = np.array([np.nan if v is None else v for v in per_position], dtype=np.float64)
    if arr.size <= train_len or not np.any(np.isfinite(arr[:train_len])):
        return None
    inside = float(np.nanmean(arr[:train_len]))
    centres, means = bin_positions(arr, bins)
    sign = 1.0 if metric == "loss" else -1.0
    for c, m in zip(centres, means):
        if c >= train_len and np.isfinite(m) and sign * (m - inside) > worse_by:
            return int(c)
    return None
