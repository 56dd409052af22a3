"""Seeded training of the lab's tiny model (imports torch): pretraining at L (:func:`train`) and fine-tuning a
RoPE model at a longer length (:func:`finetune`), for a fixed number of steps or to the learned target with a
step cap (:attr:`TrainConfig.until_learned <posenc.lab.model.TrainConfig>`)."""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from .grammar import MethodSpec, parse_method
from .model import (
    DROPE_RECALIBRATION,  # noqa: F401 (re-exported: the default lives with TrainConfig)
    TinyTransformer,
    TrainConfig,
    token_metric,
)
from .tasks import PEAK_SHARE, TASKS, eval_sequences, learned, make_batch, optimum, scored_mean

#: A fine-tune's peak learning rate, as a fraction of the pretraining peak (Chen et al. 2023 fine-tune
#: at 2e-5 after pretraining at 3e-4; a fresh warm-up to the full pretraining rate undoes what was learned)
FT_LR_RATIO = 1 / 3
#: the held-out sample a model trained to a target is checked on (scored tokens; its own seed stream, apart
#: from every evaluation sample)
CHECK_TOKENS = 2048
_CHECK_SEED = 424_242


class Cancelled(Exception):
    """Raised by :func:`train` when its callback returns False."""


@dataclass
class TrainResult:
    """A trained model, its training losses and time; ``steps`` trained (the cap's part used when training to a
    target) and ``reached`` the step at whose check the held-out sample first said "learned" (None: never, or
    not trained to a target)."""

    config: TrainConfig
    model: TinyTransformer
    losses: list[float]
    seconds: float
    steps: int = 0
    reached: int | None = None
    #: drope: the steps trained with RoPE before it was dropped (losses[:dropped_at] are with RoPE) and the step
    #: whose check said the RoPE model had learned (None: never, or not trained to a target); None otherwise
    dropped_at: int | None = None
    reached_before_drop: int | None = None


def _rate(step: int, *, peak: float, warm: int, decay_from: int | None, end: int, cosine: bool) -> float:
    """The learning rate at ``step``: linear warm-up over ``warm`` steps, then the peak until ``decay_from``,
    then down to 0 at ``end`` (half a cosine, or a straight line)."""
    if step < warm:
        return peak * (step + 1) / warm
    if decay_from is None:
        return peak
    progress = (step - decay_from) / max(1, end - decay_from)
    return peak * 0.5 * (1 + math.cos(math.pi * progress)) if cosine else peak * (1 - progress)


@torch.no_grad()
def _check(model: TinyTransformer, held: tuple[np.ndarray, np.ndarray], best: np.ndarray | None, rope_block) -> bool:
    """Whether ``model`` has learned its task on the held-out batch ``held`` (:func:`posenc.lab.learned`)."""
    model.eval()
    x, y = held
    metric = TASKS[model.cfg.task].metric
    logits = model(torch.from_numpy(x), rope_block=rope_block)
    values = token_metric(logits, torch.from_numpy(y), metric).numpy().astype(np.float64)
    model.train()
    return learned(metric, scored_mean(values), None if best is None else scored_mean(best))


def _fit(
    model: TinyTransformer,
    cfg: TrainConfig,
    *,
    steps: int,
    length: int,
    batch: int,
    seed: int,
    rope_block=None,
    callback=None,
    peak: float | None = None,
    until_learned: bool = False,
) -> tuple[list[float], int | None]:
    """Train ``model`` in place: warm-up then a cosine to 0 over ``steps``; or, ``until_learned``, warm-up, the
    peak rate until a held-out check says learned (or PEAK_SHARE of the cap ``steps``), then a straight line to 0 over
    a quarter of the steps so far (at least ``cfg.check_every``). Returns the losses and the step whose check
    first said learned (None: never, or not trained to a target)."""
    peak = cfg.lr if peak is None else peak
    rng = np.random.default_rng([seed, length, 1])
    opt = torch.optim.AdamW(model.parameters(), lr=peak, weight_decay=cfg.weight_decay)
    warm = min(cfg.warmup, max(1, steps // 10))
    if until_learned:
        n_held = eval_sequences(cfg.task, length, CHECK_TOKENS)
        held = make_batch(cfg.task, n_held, length, np.random.default_rng([_CHECK_SEED, seed, length]))
        best = optimum(cfg.task, *held)
    losses: list[float] = []
    reached: int | None = None
    decay_from, end, step = (None if until_learned else warm), steps, 0
    model.train()
    while step < end:
        if decay_from is None and step >= int(PEAK_SHARE * steps):
            decay_from = step
        for group in opt.param_groups:
            group["lr"] = _rate(step, peak=peak, warm=warm, decay_from=decay_from, end=end, cosine=not until_learned)
        x, y = make_batch(cfg.task, batch, length, rng)
        logits = model(torch.from_numpy(x), rope_block=rope_block)
        loss = nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), torch.from_numpy(y).reshape(-1), ignore_index=-1
        )
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(float(loss.detach()))
        step += 1
        if callback is not None and callback(step, end, losses[-1]) is False:
            raise Cancelled(f"cancelled at step {step} of {end}")
        if (
            until_learned
            and decay_from is None
            and step % cfg.check_every == 0
            and _check(model, held, best, rope_block)
        ):
            reached = step
            decay_from, end = step, min(steps, step + max(cfg.check_every, step // 4))
    model.eval()
    return losses, reached


def train(cfg: TrainConfig, *, callback: Callable[[int, int, float], Any] | None = None) -> TrainResult:
    """Train one model: seeded (init and data), so the same config gives identical numbers.
    ``callback(step, steps, loss)`` is called after every step; returning False cancels (Cancelled).
    With ``cfg.until_learned`` ``cfg.steps`` is a cap (see TrainConfig)."""
    start = time.perf_counter()
    torch.manual_seed(cfg.seed)
    model = TinyTransformer(cfg)
    fit = functools.partial(_fit, model, cfg, length=cfg.train_len, batch=cfg.batch, until_learned=cfg.until_learned)
    losses, reached = fit(steps=cfg.steps, seed=cfg.seed, callback=callback)
    if cfg.encoding != "drope":
        return TrainResult(cfg, model, losses, time.perf_counter() - start, len(losses), reached)
    # DroPE: drop RoPE and recalibrate without positions, on fresh data (its own stream), from a fresh warm-up
    before, reached_before = len(losses), reached
    model.drop_rope()
    recal_cb = None if callback is None else (lambda s, n, loss: callback(before + s, before + n, loss))
    more, reached = fit(steps=max(1, int(cfg.steps * cfg.recalibration)), seed=cfg.seed + 11, callback=recal_cb)
    return TrainResult(
        cfg,
        model,
        losses + more,
        time.perf_counter() - start,
        before + len(more),
        None if reached is None else before + reached,
        dropped_at=before,
        reached_before_drop=reached_before,
    )


def finetune(
    result: TrainResult,
    method: str | MethodSpec,
    *,
    steps: int = 100,
    batch: int | None = None,
    lr_ratio: float = FT_LR_RATIO,
    until_learned: bool = False,
    callback=None,
) -> TrainResult:
    """A copy of the RoPE model fine-tuned at the method's ``@ft`` length with its scaling (factor N/L):
    ``steps`` steps of ``batch`` sequences (default: as many tokens per step as pretraining, batch·L/N),
    warm-up and cosine at ``lr_ratio`` × the pretraining peak rate; with ``until_learned`` ``steps`` is a cap
    and the fine-tune stops once a held-out sample at the fine-tune length says learned (TrainConfig.until_learned).
    Returns the fine-tuned copy as a TrainResult whose config is the fine-tune's (its steps, batch, until_learned;
    the model's own settings otherwise), with the ``steps`` trained and ``reached``."""
    spec = parse_method(method) if isinstance(method, str) else method
    if spec.finetune_len is None or result.config.encoding != "rope":
        raise ValueError(f"method must be a rope method with @ft<length>, got {spec.name!r}")
    start = time.perf_counter()
    model = copy.deepcopy(result.model)
    cfg = result.config
    if not 0 < lr_ratio <= 1:
        raise ValueError(f"lr_ratio must be in (0, 1], got {lr_ratio!r}")
    n = batch or max(1, cfg.batch * cfg.train_len // spec.finetune_len)
    block = spec.rope_block(spec.finetune_len, cfg.train_len, theta=cfg.rope_theta)
    torch.manual_seed(cfg.seed + 1)
    losses, reached = _fit(
        model,
        cfg,
        steps=steps,
        length=spec.finetune_len,
        batch=n,
        seed=cfg.seed + 7,
        rope_block=block,
        callback=callback,
        peak=cfg.lr * lr_ratio,
        until_learned=until_learned,
    )
    ran = dataclasses.replace(cfg, steps=steps, batch=n, until_learned=until_learned)  # this fine-tune's run
    return TrainResult(ran, model, losses, time.perf_counter() - start, len(losses), reached)
