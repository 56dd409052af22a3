"""The Extrapolation lab's computations (pages/6_Extrapolation_lab.py): the shipped results, the shipped RoPE model
evaluated with a scaling or a real model's recipe, one head's attention, and the Train tab's job.

torch is imported only inside the functions that run a model (posenc.lab's torch half), so the page opens on the
shipped results without it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from explorer.layout import cached
from posenc import lab

#: The Extension panel's token budget per length (the task sets the sequences): fast enough for a slider
EXT_TOKENS = 2048
#: The Train tab's scored tokens per evaluation length (the shipped results use posenc.lab.evaluation.EVAL_TOKENS)
TRAIN_TOKENS = 4096


#: data/lab/results.json and data/lab/finetune_sweep.json ({} when absent), cached.
shipped = cached(max_entries=2)(lab.load_shipped)
finetune_sweep = cached(max_entries=2)(lab.load_finetune_sweep)


@cached(max_entries=8)
def rope_model_facts(task: str) -> tuple[int, float]:
    """(head dim, base θ) of the shipped seed-0 RoPE model of ``task``."""
    from posenc.lab import model

    tiny = model.shipped_model(task, "rope")
    return tiny.head_dim, tiny.cfg.rope_theta


def _curve(task: str, method: Any, lengths: Sequence[int]) -> tuple[dict[int, float | None], list[int]]:
    from posenc.lab import evaluation, model

    ev = evaluation.evaluate_detail(model.shipped_model(task, "rope"), method, list(lengths), tokens=EXT_TOKENS)
    return {n: e.value for n, e in ev.items()}, [e.scored for e in ev.values()]


@cached(max_entries=32)
def extension_curve(task: str, method: str, lengths: tuple[int, ...]) -> tuple[dict, list]:
    """({length: value}, [scored tokens per length]) of the seed-0 RoPE model with ``method``."""
    return _curve(task, method, lengths)


@cached(max_entries=16)
def recipe_curve(task: str, preset: str, layer: int | None, lengths: tuple[int, ...]) -> tuple[dict, list]:
    """The same with a real model's recipe (posenc.lab.preset_method)."""
    return _curve(task, lab.preset_method(preset, layer), lengths)


@cached(max_entries=16)
def attention(task: str, enc: str, length: int, head: int) -> np.ndarray:
    """(length, length) weights of head ``head`` (layer·4 + head) of the shipped seed-0 model on one sequence."""
    from posenc.lab import evaluation, model

    return evaluation.attention_map(model.shipped_model(task, enc), length, layer=head // 4, head=head % 4)


def train_work(key: tuple) -> Callable[[Any], dict]:
    """The Train tab's job for settings ``key`` = (task, encodings, L, steps, d, seed): it runs in the queue's
    worker thread (explorer.jobs), on one core, and reports each model's step and loss."""
    k_task, k_encs, k_len, k_steps, k_width, k_seed = key

    def work(job: Any) -> dict:
        from posenc.lab import experiment, model

        model.set_threads(1)  # one core at most: a training job never starves other users
        last: dict[str, float] = {}

        def report(encoding: str, step: int, n: int, loss: float) -> None:
            last[encoding] = float(loss)
            job.report(
                model=encoding, index=k_encs.index(encoding), step=step, steps=n, loss=float(loss), last=dict(last)
            )

        return experiment.run_experiment(
            k_task,
            list(k_encs),
            train_len=k_len,
            eval_lens=(k_len, 2 * k_len, 4 * k_len, 8 * k_len),
            seed=k_seed,
            steps=k_steps,
            d_model=k_width,
            tokens=TRAIN_TOKENS,
            callback=report,
        )

    return work
