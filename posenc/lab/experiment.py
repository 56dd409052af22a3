"""One experiment of the lab (imports torch): train one model per encoding a list of methods needs, fine-tune where a
method says ``@ft``, evaluate every method at several lengths (what ``python -m posenc.lab`` and the page's
Train tab run, and each unit of the shipped data)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .evaluation import EVAL_TOKENS, Evaluation, evaluate_detail
from .grammar import parse_method
from .model import TrainConfig
from .tasks import _task, learned
from .training import FT_LR_RATIO, TrainResult, finetune, train


def _trained(r: TrainResult) -> dict[str, int | None]:
    """What training took: steps trained, the cap (the steps asked for), the step whose check said learned."""
    return {"steps": r.steps, "cap": r.config.steps if r.config.until_learned else None, "reached": r.reached}


def run_experiment(
    task: str,
    methods: Sequence[str],
    *,
    train_len: int = 64,
    eval_lens: Sequence[int] = (64, 128, 256, 512),
    seed: int = 0,
    steps: int | None = None,
    ft_steps: int = 100,
    ft_lr_ratio: float = FT_LR_RATIO,
    ft_batch: int | None = None,
    tokens: int = EVAL_TOKENS,
    d_model: int = 64,
    per_position: bool = False,
    callback=None,
    keep_models: bool = False,
    detail: bool = False,
    until_learned: bool = False,
    pretrained: Mapping[str, TrainResult] | None = None,
    recalibration: float | None = None,
) -> dict[str, Any]:
    """Train one model per encoding (and head count) the methods need, once each; evaluate every method,
    each seed on its own evaluation sample.

    Returns {"task", "metric", "train_len", "steps", "seed", "results": {method: {"<len>": value|None}},
    "beyond": {method: {"<len>": value over positions >= L}} (lengths past L), "optimum" (loss tasks:
    {method: {"<len>": the exact optimum's mean on the same tokens}}), "scored": {method: {"<len>": tokens}},
    "learned": {method: bool} (:func:`posenc.lab.learned` at the length the model was trained at),
    "trained": {method: {"steps": steps its model trained, "cap": the cap (None: not trained to a target), "reached":
    the step its held-out check first said learned, or None}} (``until_learned``, see :class:`TrainConfig`),
    "rope": {method: {"<len>": {"inv_freq": [...], "attention_factor": a}}} (every rope method),
    ["per_position": {method: [...]}], ["models": {model: TinyTransformer}, "train_results": {model: TrainResult}],
    ["detail": {method: {len: Evaluation}}]}. ``pretrained`` {model: TrainResult}: models already trained with these
    settings (a model key is an encoding, with ":heads=<n>" if given), used instead of training them again.
    ``callback(model, step, steps, loss)``; returning False cancels. ``recalibration``: DroPE's recalibration budget
    as a share of the steps (None: TrainConfig's default)."""
    spec_task = _task(task)
    specs = [parse_method(m) for m in methods]
    n_steps = steps or (1500 if task == "copy" else 300)
    models: dict[str, TrainResult] = dict(pretrained or {})
    out: dict[str, Any] = {
        "task": task,
        "metric": spec_task.metric,
        "train_len": train_len,
        "steps": n_steps,
        "seed": seed,
        "results": {},
        "beyond": {},
        "scored": {},
        "learned": {},
        "trained": {},
        "rope": {},
    }
    if spec_task.metric == "loss":
        out["optimum"] = {}
    positions: dict[str, list[float | None] | None] = {}
    details: dict[str, dict[int, Evaluation]] = {}
    for spec in specs:
        if spec.model not in models:
            extra: dict[str, Any] = {} if spec.n_heads is None else {"n_heads": spec.n_heads}
            if recalibration is not None:
                extra["recalibration"] = recalibration
            cfg = TrainConfig(
                task=task,
                encoding=spec.encoding,
                train_len=train_len,
                steps=n_steps,
                seed=seed,
                d_model=d_model,
                until_learned=until_learned,
                **extra,
            )
            cb = None if callback is None else (lambda s, n, loss, e=spec.model: callback(e, s, n, loss))
            models[spec.model] = train(cfg, callback=cb)
        model = models[spec.model].model
        out["trained"][spec.name] = _trained(models[spec.model])
        if spec.finetune_len:
            cb = None if callback is None else (lambda s, n, loss, e=spec.name: callback(e, s, n, loss))
            tuned = finetune(
                models[spec.model],
                spec,
                steps=ft_steps,
                batch=ft_batch,
                lr_ratio=ft_lr_ratio,
                until_learned=until_learned,
                callback=cb,
            )
            model = tuned.model
            out["trained"][spec.name] = _trained(tuned)
        lens = list(eval_lens)
        own = spec.trained_len(train_len)
        ev = evaluate_detail(model, spec, [*lens, *([own] if own not in lens else [])], tokens=tokens)
        details[spec.name] = ev
        out["results"][spec.name] = {str(n): ev[n].value for n in lens}
        out["beyond"][spec.name] = {str(n): ev[n].beyond for n in lens if n > train_len}
        out["scored"][spec.name] = {str(n): ev[n].scored for n in lens}
        if "optimum" in out:
            out["optimum"][spec.name] = {str(n): ev[n].optimum for n in lens}
        out["learned"][spec.name] = learned(spec_task.metric, ev[own].value, ev[own].optimum)
        if spec.encoding == "rope":
            used = {}
            for n in lens:
                inv, af = model.rope_used(spec.rope_block(n, train_len, theta=model.cfg.rope_theta), n)
                used[str(n)] = {"inv_freq": [float(f) for f in inv], "attention_factor": af}
            out["rope"][spec.name] = used
        if per_position:
            longest = ev[max(lens)].per_position
            positions[spec.name] = (
                None if longest is None else [None if not np.isfinite(a) else float(a) for a in longest]
            )
    if per_position:
        out["per_position"] = positions
    if keep_models:
        out["models"] = {k: r.model for k, r in models.items()}
        out["train_results"] = models
    if detail:
        out["detail"] = details
    return out
