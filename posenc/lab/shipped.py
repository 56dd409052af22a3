"""The lab's shipped data: data/lab/results.json and weights.npz (made by ``python -m posenc.lab ship``) and the
fine-tune budget sweep (data/lab/finetune_sweep.json); numpy only (the shipped models themselves:
:func:`posenc.lab.model.shipped_model`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from posenc import stats

SHIPPED = Path(__file__).resolve().parents[2] / "data" / "lab" / "results.json"
#: The shipped seed-0 models of the five encodings (float16 except RoPE's float32)
WEIGHTS = SHIPPED.with_name("weights.npz")
#: The fine-tune budget sweep behind the shipped fine-tunes (bench/bench_lab_finetune.py --out).
FINETUNE_SWEEP = SHIPPED.with_name("finetune_sweep.json")


def load_shipped(path: str | Path | None = None) -> dict[str, Any]:
    """The shipped results (data/lab/results.json, made by ``python -m posenc.lab ship``)."""
    return json.loads(Path(path or SHIPPED).read_text())


def load_finetune_sweep(path: str | Path | None = None) -> dict[str, Any]:
    """The fine-tune budget sweep (data/lab/finetune_sweep.json), or {} when this copy has none."""
    p = Path(path or FINETUNE_SWEEP)
    return json.loads(p.read_text()) if p.exists() else {}


def has_shipped_model(task: str, encoding: str, *, path=None) -> bool:
    """Whether data/lab/weights.npz holds the seed-0 model of ``task`` and ``encoding``."""
    prefix = f"{task}/{encoding}/"
    with np.load(Path(path) if path else WEIGHTS) as data:
        return any(k.startswith(prefix) for k in data.files)


def seed_interval(metric: str, values, trials=None) -> stats.Interval | None:
    """Mean over seeds with its 95 % interval, as the page and the shipped file's readers state it: for an
    accuracy (a share) :func:`posenc.stats.share_interval` (Wilson's, at the seeds' effective sample size, at
    most ``trials`` pooled: inside [0, 1] by construction), for a loss :func:`posenc.stats.mean_interval`
    (Student's t). None where no seed has a value."""
    return stats.share_interval(values, trials=trials) if metric == "accuracy" else stats.mean_interval(values)
