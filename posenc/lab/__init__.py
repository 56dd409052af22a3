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
  cross-entropy of the next token (nats); the exact optimum on the same tokens (−log of the true
  transition probability) is computed alongside, so a loss can be reported above it.
* ``kback``   16 uniform tokens; at position t predict the token at t − 3; metric: accuracy.
* ``copy``    a random first part (its length h uniform in [n/4, (n−1)/2], different in every sequence),
  a separator, then the same tokens again; predict the repeat; metric: accuracy (no fixed offset works).
* ``passkey`` random filler tokens with one key (a token like the filler's) hidden at a random depth right
  after a marker, asked for by a query
  token at the end (Mohtashami & Jaggi 2023; Chen et al. 2023 test PI with it); metric: accuracy of
  the one answer token.

Methods: ``nope``, ``learned``, ``sinusoidal``, ``rope``, ``alibi`` (``alibi:heads=8``: 8 heads), and
``rope+<rope_type>[:key=value…]``: the RoPE model evaluated with a scaling method of
:data:`posenc.ROPE_SCALING` (the same registry the context-extension page draws), ``factor`` =
evaluation length / training length unless given; ``dynamic`` has ONE config factor
(:data:`DYNAMIC_FACTOR` unless given) and grows its base with the sequence past L, as HF does; a required
key the name does not give takes the lab's value (:data:`REQUIRED_VALUES`: llama3's low/high_freq_factor,
Llama 3.1's 1 and 4).
A suffix ``@ft<N>`` fine-tunes the RoPE model at length N first (with that scaling, factor N/L) and then
evaluates it with that fixed factor.

"Learned inside L" (:func:`learned`): accuracy ≥ :data:`LEARNED_ACCURACY`, or a loss within
:data:`LEARNED_MARGIN` nats of the exact optimum on the same tokens, at the length the model was
trained at (the fine-tune length for ``@ft``). Uncertainty: :func:`break_test` here; the intervals over
seeds (each seed evaluated on its own sample) and seed-paired differences are :mod:`posenc.stats`'.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from .. import stats
from ..methods import FACTOR, ORIGINAL_MAX_POSITION_EMBEDDINGS, ROPE_METHODS
from ..scaling import ROPE_SCALING

__all__ = [
    "ENCODINGS",
    "SHIPPED",
    "TASKS",
    "Break",
    "MethodSpec",
    "TaskSpec",
    "bin_positions",
    "break_position",
    "break_test",
    "copy_distances",
    "learned",
    "load_finetune_sweep",
    "load_shipped",
    "make_batch",
    "method_name",
    "optimum",
    "parse_method",
    "preset_method",
    "references",
    "summarize",
]

ENCODINGS = ("nope", "learned", "sinusoidal", "rope", "alibi")
SHIPPED = Path(__file__).resolve().parents[2] / "data" / "lab" / "results.json"
#: The fine-tune budget sweep behind the shipped fine-tunes (bench/bench_lab_finetune.py --out).
FINETUNE_SWEEP = SHIPPED.with_name("finetune_sweep.json")
_TABLE_SEED = 20240601  # the Markov chain's transition table: fixed, independent of every model seed


@dataclass(frozen=True)
class TaskSpec:
    name: str
    vocab: int
    metric: str  # "loss" (lower is better) or "accuracy"
    label: str
    #: evaluation sequences per length = ceil(tokens / cost): the expected scored tokens per sequence
    #: (passkey scores one token per sequence and is charged 32, so 8,192 tokens buy 256 sequences)
    cost: Any = None


def _copy_half(length: int) -> tuple[int, int]:
    """The copy task's range of first-part lengths h at ``length``: [length // 4, (length − 1) // 2]."""
    return max(1, length // 4), max(1, (length - 1) // 2)


def copy_distances(length: int) -> tuple[int, int]:
    """The copy task at ``length``: the fewest and most places back a repeated token's original sits (h + 1 for
    a first part of h tokens and the separator), so the distance to copy grows with the length."""
    lo, hi = _copy_half(length)
    return lo + 1, hi + 1


TASKS: Mapping[str, TaskSpec] = {
    "markov": TaskSpec("markov", 8, "loss", "order-2 Markov chain over 8 tokens", lambda n: n - 1),
    "kback": TaskSpec("kback", 16, "accuracy", "the token 3 positions back, 16 tokens", lambda n: n - 3),
    "copy": TaskSpec(
        "copy",
        17,
        "accuracy",
        "copy a random-length first part (induction), 16 tokens",
        lambda n: sum(_copy_half(n)) / 2,
    ),
    "passkey": TaskSpec(
        "passkey", 18, "accuracy", "passkey: one key hidden in filler, asked for at the end", lambda n: 32
    ),
}
KBACK = 3
COPY_SEP = 16  # copy: the separator between the first part and its repeat
PASSKEY_KEYS = (0, 16)  # passkey: the key is one of 0..15, the same tokens as the filler (found by its marker)
PASSKEY_MARK, PASSKEY_QUERY = 16, 17
#: "learned inside L": accuracy at least this, …
LEARNED_ACCURACY = 0.95
#: … or a loss at most this many nats above the exact optimum on the same tokens
LEARNED_MARGIN = 0.05
#: rope+dynamic's config factor when none is given (HF's documented example {"rope_type": "dynamic", "factor": 2.0})
DYNAMIC_FACTOR = 2.0
#: The lab's values for a method's required keys that a method name does not give and the lab does not
#: derive (``factor`` and ``original_max_position_embeddings`` follow the lengths): Llama 3.1's published
#: ones, meta-llama/Llama-3.1-8B config.json ``rope_scaling`` {"low_freq_factor": 1.0, "high_freq_factor":
#: 4.0} (the preset ``posenc.models.PRESETS["llama3.1-8b"]``). data/lab/results.json was computed with them.
REQUIRED_VALUES: Mapping[str, Mapping[str, float]] = MappingProxyType(
    {"llama3": MappingProxyType({"low_freq_factor": 1.0, "high_freq_factor": 4.0})}
)
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
    if spec.name == "passkey":
        n_keys = PASSKEY_KEYS[1] - PASSKEY_KEYS[0]
        return {"perfect": 1.0, "uniform": 1.0 / n_keys}
    return {"perfect": 1.0, "previous token only": 1.0 / 16, "uniform": 1.0 / 16}


def optimum(task: str, inputs: np.ndarray, targets: np.ndarray) -> np.ndarray | None:
    """The exact optimum per token of the same batch: for ``markov`` −log P(target | the two tokens
    before it) under the true chain, (batch, length), NaN where not scored; None for the accuracy tasks
    (their optimum is 1 on every token)."""
    if _task(task).metric != "loss":
        return None
    table = markov_table()
    x, y = np.asarray(inputs), np.asarray(targets)
    out = np.full(y.shape, np.nan)
    prev2, prev1 = x[:, :-1], x[:, 1:]  # context of the target at t >= 1: x[t-1], x[t]
    tgt = y[:, 1:]
    ok = tgt >= 0
    p = table[prev2, prev1, np.where(ok, tgt, 0)]
    out[:, 1:] = np.where(ok, -np.log(p), np.nan)
    return out


def learned(metric: str, value: float | None, optimum_value: float | None = None) -> bool:
    """ "Learned inside L": accuracy >= LEARNED_ACCURACY, or loss <= optimum + LEARNED_MARGIN (nats)."""
    if value is None or not math.isfinite(value):
        return False
    if metric == "accuracy":
        return value >= LEARNED_ACCURACY
    if optimum_value is None:
        raise ValueError(f"optimum_value: a loss needs the optimum on the same tokens, got {optimum_value!r}")
    return value - optimum_value <= LEARNED_MARGIN


def learned_rule(metric: str) -> str:
    """The learning criterion in words."""
    if metric == "accuracy":
        return f"accuracy at least {LEARNED_ACCURACY:g} at the length it was trained at"
    return f"loss at most {LEARNED_MARGIN:g} nats above the exact optimum on the same tokens, at the length it was trained at"


def make_batch(task: str, batch: int, length: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, targets), each (batch, length) int64; a target of −1 is not scored.

    markov: targets are the inputs shifted by one (scored from position 1: two tokens of context);
    kback: target at t = input at t − 3; copy: the repeat's tokens (from the separator on); passkey:
    the key, at the last position (the query).
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
    if spec.name == "copy":
        lo, hi = _copy_half(length)
        h = rng.integers(lo, hi + 1, size=batch)
        seq = rng.integers(0, 16, size=(batch, length + 1))
        y = np.full((batch, length), -1, dtype=np.int64)
        for i, hi_ in enumerate(h):  # first part, separator, the first part again, random filler
            seq[i, hi_] = COPY_SEP
            seq[i, hi_ + 1 : 2 * hi_ + 1] = seq[i, :hi_]
            y[i, hi_ : 2 * hi_] = seq[i, hi_ + 1 : 2 * hi_ + 1]  # scored: the repeat, from the separator on
        return seq[:, :-1].astype(np.int64), y
    # passkey: filler 0..15, MARK key at a uniform depth, QUERY last; the answer (the key) is scored
    x = rng.integers(0, 16, size=(batch, length))
    if length < 4:
        raise ValueError(f"length must be at least 4 for the passkey task, got {length}")
    where = rng.integers(0, length - 2, size=batch)  # MARK at where, key at where + 1 <= length − 2
    keys = rng.integers(*PASSKEY_KEYS, size=batch)
    rows = np.arange(batch)
    x[rows, where], x[rows, where + 1], x[:, -1] = PASSKEY_MARK, keys, PASSKEY_QUERY
    y = np.full_like(x, -1)
    y[:, -1] = keys
    return x.astype(np.int64), y


@dataclass(frozen=True)
class MethodSpec:
    """A parsed method name: the trained encoding, the scaling applied at evaluation (a rope block
    without its factor when the factor follows the evaluation length), and an optional fine-tune."""

    name: str
    encoding: str
    rope_type: str | None = None
    params: Mapping[str, float] = field(default_factory=dict)
    finetune_len: int | None = None
    n_heads: int | None = None  # alibi:heads=8 (None: the model's default)

    @property
    def model(self) -> str:
        """The trained model this method evaluates: its encoding, with a head count if given."""
        return self.encoding if self.n_heads is None else f"{self.encoding}:heads={self.n_heads}"

    def trained_len(self, train_len: int) -> int:
        """The length this method's model was last trained at: the fine-tune length, else L."""
        return self.finetune_len or train_len

    def rope_block(self, eval_len: int, train_len: int, *, theta: float = 10000.0) -> dict[str, Any] | None:
        """The rope block used at ``eval_len`` (None: plain RoPE, no scaling). ``factor`` = eval_len / L
        (at least 1) unless given, or finetune_len / L for a fine-tuned model; dynamic NTK keeps ONE config
        factor (DYNAMIC_FACTOR unless given) and follows the length through seq_len, as HF does; a
        required key not given takes the lab's value for it (:data:`REQUIRED_VALUES`: llama3's
        low/high_freq_factor); ``original_max_position_embeddings`` is L. Which keys a method takes is
        its declaration's (:data:`posenc.ROPE_METHODS`), so a method added there needs no edit here."""
        if self.rope_type is None:
            return None
        block: dict[str, Any] = {"rope_type": self.rope_type, "rope_theta": theta, **self.params}
        declared = ROPE_METHODS[self.rope_type].key_names
        for name, value in REQUIRED_VALUES.get(self.rope_type, {}).items():
            block.setdefault(name, value)
        if self.rope_type == "dynamic" and FACTOR.name not in self.params:
            block[FACTOR.name] = DYNAMIC_FACTOR
        elif FACTOR.name in declared and FACTOR.name not in self.params:  # every method but default
            target = self.finetune_len if self.finetune_len else eval_len
            block[FACTOR.name] = max(1.0, target / train_len)
        # every method whose declaration reads the trained length (yarn, llama3, longrope: the types HF's
        # standardize_rope_params gives it to; dynamic NTK reads max_position_embeddings instead)
        if ORIGINAL_MAX_POSITION_EMBEDDINGS.name in declared:
            block.setdefault(ORIGINAL_MAX_POSITION_EMBEDDINGS.name, train_len)
        return block


_SPEC = re.compile(r"^(?P<enc>[a-z]+)(\+(?P<type>[a-z0-9_]+))?(?P<params>(:[a-z_]+=[-0-9.e]+)*)(@ft(?P<ft>\d+))?$")


def parse_method(name: str) -> MethodSpec:
    """``"rope+yarn:beta_fast=4@ft256"`` -> MethodSpec. Raises ValueError naming the method."""
    text = str(name).strip().lower()
    m = _SPEC.match(text)
    if m is None or m.group("enc") not in ENCODINGS:
        raise ValueError(
            f"method must be one of {', '.join(ENCODINGS)}, alibi:heads=<n> or "
            f"rope+<rope_type>[:key=value…][@ft<length>], got {name!r}"
        )
    rope_type, ft = m.group("type"), m.group("ft")
    if m.group("enc") == "alibi" and not rope_type and not ft and m.group("params"):
        items = dict(item.split("=") for item in filter(None, m.group("params").split(":")))
        heads = items.get("heads", "")
        if set(items) != {"heads"} or not heads.isdigit() or not 1 <= int(heads) <= 64:
            raise ValueError(f"method: alibi takes one setting, heads = an integer in [1, 64], got {name!r}")
        return MethodSpec(text, "alibi", n_heads=int(heads))
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


def load_finetune_sweep(path: str | Path | None = None) -> dict[str, Any]:
    """The fine-tune budget sweep (data/lab/finetune_sweep.json), or {} when this copy has none."""
    p = Path(path or FINETUNE_SWEEP)
    return json.loads(p.read_text()) if p.exists() else {}


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
        "has_shipped_model",
        "evaluate_detail",
        "Evaluation",
        "FT_LR_RATIO",
        "LEARNED_STD",
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
    """First position past ``train_len`` where the binned curve (one curve, no interval: a sketch; the
    page uses :func:`break_test`) is worse than its mean inside the training length by more than
    ``worse_by``; None if never. Raises ValueError when there is nothing to compare (no scored position
    inside L, or none past it), which is not "never"."""
    arr = np.array([np.nan if v is None else v for v in per_position], dtype=np.float64)
    if arr.size <= train_len or not np.any(np.isfinite(arr[:train_len])) or not np.any(np.isfinite(arr[train_len:])):
        raise ValueError(
            f"per_position: needs scored positions both inside and past train_len = {train_len}, got "
            f"{int(np.isfinite(arr[:train_len]).sum())} inside and {int(np.isfinite(arr[train_len:]).sum())} past"
        )
    inside = float(np.nanmean(arr[:train_len]))
    centres, means = bin_positions(arr, bins)
    sign = 1.0 if metric == "loss" else -1.0
    for c, m in zip(centres, means):
        if c >= train_len and np.isfinite(m) and sign * (m - inside) > worse_by:
            return int(c)
    return None


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
