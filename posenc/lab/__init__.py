"""The extrapolation lab: tiny transformers trained on synthetic tasks, evaluated past their training length.

``import posenc.lab`` is numpy only and gives the tasks, the method grammar, the break statistics and the
shipped results; the torch half is its own modules, imported where used::

    from posenc.lab import evaluation, model, training

    run = training.train(model.TrainConfig(task="markov", encoding="rope", steps=300, seed=0))
    evaluation.evaluate_method(run.model, "rope", [64, 128, 256, 512])       # {64: 1.31, 128: …}
    evaluation.evaluate_method(run.model, "rope+yarn:beta_fast=4", [256])

Modules, one job each (arrows point one way: the torch half imports the numpy half, never back):

* :mod:`~posenc.lab.tasks`       the tasks, their references and exact optimum, "learned inside L"
* :mod:`~posenc.lab.grammar`     the method names (``rope+yarn:beta_fast=4@ft256``, ``alibi:heads=8``)
* :mod:`~posenc.lab.breaks`      per-position bins and where a curve breaks past L (with intervals)
* :mod:`~posenc.lab.shipped`     data/lab/: the shipped results, weights and fine-tune sweep
* :mod:`~posenc.lab.model`       (torch) the tiny model, its configuration and weights
* :mod:`~posenc.lab.training`    (torch) seeded training and fine-tuning, to a step count or to the target
* :mod:`~posenc.lab.evaluation`  (torch) the metric at many lengths, per position; attention maps
* :mod:`~posenc.lab.experiment`  (torch) one experiment: train, fine-tune, evaluate a list of methods
* ``python -m posenc.lab``       one experiment from a shell, or ``ship`` (the shipped data)

Uncertainty: :func:`break_test` here; the intervals over seeds (each seed evaluated on its own sample) and
seed-paired differences are :mod:`posenc.stats`'.
"""

from __future__ import annotations

from .breaks import Break, break_test
from .grammar import (
    ALL_ENCODINGS,
    DYNAMIC_FACTOR,
    ENCODINGS,
    NEWER,
    PRESET_LEFT_OUT,
    REQUIRED_VALUES,
    MethodSpec,
    method_name,
    parse_method,
    preset_method,
)
from .shipped import (
    FINETUNE_SWEEP,
    SHIPPED,
    WEIGHTS,
    has_shipped_model,
    load_finetune_sweep,
    load_shipped,
    seed_interval,
)
from .tasks import (
    COPY_PART,
    COPY_SEP,
    FLIPFLOP_P,
    KBACK,
    LEARNED_ACCURACY,
    LEARNED_MARGIN,
    PASSKEY_KEYS,
    PASSKEY_MARK,
    PASSKEY_QUERY,
    PEAK_SHARE,
    TASKS,
    TaskSpec,
    checks_before_decay,
    copy_distances,
    eval_sequences,
    learned,
    learned_rule,
    make_batch,
    markov_table,
    optimum,
    references,
)
