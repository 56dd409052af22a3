"""Evaluation of the lab's tiny model at many lengths (imports torch): the task's metric over every scored token,
past L only and per position, each seed on its own evaluation sample; one head's attention weights."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from .grammar import MethodSpec, parse_method
from .model import TinyTransformer, token_metric
from .tasks import TASKS, _length, eval_sequences, make_batch, optimum, scored_mean

EVAL_TOKENS = 8192
_EVAL_SEED = 987_654


@dataclass
class Evaluation:
    """One model and method at one length: the mean metric over every scored token (``value``) and over
    the positions >= L only (``beyond``; None at L or below), the exact optimum's mean on the same tokens
    (markov; None for accuracy tasks), the scored-token counts, and per position: mean metric, mean
    optimum and count (arrays of the length; NaN/0 where nothing is scored)."""

    value: float | None
    beyond: float | None
    optimum: float | None
    beyond_optimum: float | None
    scored: int
    scored_beyond: int
    per_position: np.ndarray | None
    optimum_per_position: np.ndarray | None
    counts: np.ndarray | None


@torch.no_grad()
def evaluate_detail(
    model: TinyTransformer,
    method: str | MethodSpec,
    lengths: Iterable[int],
    *,
    tokens: int = EVAL_TOKENS,
    sample: int | None = None,
) -> dict[int, Evaluation]:
    """{length: Evaluation} on ≈``tokens`` scored tokens per length, drawn from evaluation sample ``sample``
    (default: the model's seed, so every seed is scored on its own sample; models of one seed share it).
    A learned table past its rows gives an Evaluation of Nones."""
    spec = parse_method(method) if isinstance(method, str) else method
    cfg = model.cfg
    if spec.encoding != cfg.encoding:
        raise ValueError(f"method {spec.name!r} needs a {spec.encoding} model, got a {cfg.encoding} model")
    metric = TASKS[cfg.task].metric
    sample = cfg.seed if sample is None else int(sample)
    model.eval()
    out: dict[int, Evaluation] = {}
    for length in lengths:
        length = _length("length", length)
        if cfg.encoding == "learned" and length > cfg.train_len:
            out[length] = Evaluation(None, None, None, None, 0, 0, None, None, None)
            continue
        n_seq = eval_sequences(cfg.task, length, tokens)
        rng = np.random.default_rng([_EVAL_SEED, sample, length])
        x, y = make_batch(cfg.task, n_seq, length, rng)
        block = spec.rope_block(length, cfg.train_len, theta=cfg.rope_theta)
        chunk = max(1, 2_000_000 // (length * length))
        parts = []
        for i in range(0, n_seq, chunk):
            logits = model(torch.from_numpy(x[i : i + chunk]), rope_block=block)
            parts.append(token_metric(logits, torch.from_numpy(y[i : i + chunk]), metric).numpy())
        values = np.concatenate(parts).astype(np.float64)  # (n_seq, length), NaN = not scored
        best = optimum(cfg.task, x, y)
        scored = np.isfinite(values)
        counts = scored.sum(axis=0)
        with warnings.catch_warnings():  # unscored positions (all NaN) give NaN, by design
            warnings.simplefilter("ignore", RuntimeWarning)
            per_pos = np.nanmean(values, axis=0)
            best_pos = None if best is None else np.nanmean(best, axis=0)
        past = values[:, cfg.train_len :] if length > cfg.train_len else values[:, :0]
        out[length] = Evaluation(
            value=scored_mean(values),
            beyond=scored_mean(past) if length > cfg.train_len else None,
            optimum=None if best is None else scored_mean(best),
            beyond_optimum=None if best is None or length <= cfg.train_len else scored_mean(best[:, cfg.train_len :]),
            scored=int(scored.sum()),
            scored_beyond=int(np.isfinite(past).sum()),
            per_position=per_pos,
            optimum_per_position=best_pos,
            counts=counts,
        )
    return out


def evaluate_method(
    model: TinyTransformer,
    method: str | MethodSpec,
    lengths: Iterable[int],
    *,
    tokens: int = EVAL_TOKENS,
    per_position: bool = False,
    sample: int | None = None,
) -> dict[int, Any]:
    """{length: mean metric or None}; with per_position, {length: (mean, per-position array)}.

    The metric is the task's (loss in nats, or accuracy), averaged over ≈``tokens`` scored tokens of
    evaluation sample ``sample`` (default: the model's seed). A learned table past its rows gives None."""
    ev = evaluate_detail(model, method, lengths, tokens=tokens, sample=sample)
    if per_position:
        return {n: (e.value, e.per_position) for n, e in ev.items()}
    return {n: e.value for n, e in ev.items()}


@torch.no_grad()
def attention_map(
    model: TinyTransformer, length: int, *, layer: int = 0, head: int = 0, method: str | None = None, seed: int = 0
) -> np.ndarray:
    """(length, length) attention weights of one head on one evaluation sequence."""
    cfg = model.cfg
    length = _length("length", length)
    if not 0 <= layer < cfg.n_layers or not 0 <= head < cfg.n_heads:
        raise ValueError(f"layer/head must be in [0, {cfg.n_layers}) × [0, {cfg.n_heads}), got {layer}, {head}")
    if cfg.encoding == "learned" and length > cfg.train_len:
        raise ValueError(f"length: a learned table has {cfg.train_len} rows, got {length}")
    spec = parse_method(method or cfg.encoding)
    x, _ = make_batch(cfg.task, 1, length, np.random.default_rng([_EVAL_SEED, length, seed]))
    keep: list[torch.Tensor] = []
    model(torch.from_numpy(x), rope_block=spec.rope_block(length, cfg.train_len, theta=cfg.rope_theta), keep=keep)
    return keep[layer][0, head].numpy().astype(np.float64)
