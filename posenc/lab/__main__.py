"""Command line: ``python -m posenc.lab --task markov --methods rope,alibi --out results.json`` (one run),
``python -m posenc.lab ship`` (the shipped results data/lab/, see README)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from . import SHIPPED, TASKS, references

DEFAULT_METHODS = "nope,learned,sinusoidal,rope,alibi,rope+linear,rope+ntk,rope+dynamic,rope+yarn"
LIVE = ("nope", "learned", "sinusoidal", "rope", "alibi")
EXTENSIONS = (
    "rope+linear",
    "rope+ntk",
    "rope+dynamic",
    "rope+yarn",
    "rope+yarn:beta_fast=2",
)  # 2: a ramp unlike 32's at L = 64, d = 16
FINETUNED = ("rope@ft256", "rope+linear@ft256")


def _ints(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be integers separated by commas, got {text!r}") from None


def run(argv: list[str]) -> dict[str, Any]:
    from . import core

    p = argparse.ArgumentParser(prog="python -m posenc.lab", description=__doc__)
    p.add_argument("--task", choices=tuple(TASKS), default="markov")
    p.add_argument("--methods", default=DEFAULT_METHODS)
    p.add_argument("--train-len", type=int, default=64)
    p.add_argument("--eval-lens", type=_ints, default=[64, 128, 256, 512])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--steps", type=int, default=None, help="training steps (default 300; copy 1500)")
    p.add_argument("--ft-steps", type=int, default=100, help="fine-tuning steps of @ft methods")
    p.add_argument("--tokens", type=int, default=core.EVAL_TOKENS, help="scored tokens per evaluation length")
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", default=None, help="JSON file (default: stdout)")
    a = p.parse_args(argv)
    core.set_threads(a.threads)
    try:
        out = core.run_experiment(
            a.task,
            [m for m in a.methods.split(",") if m],
            train_len=a.train_len,
            eval_lens=a.eval_lens,
            seed=a.seed,
            steps=a.steps,
            ft_steps=a.ft_steps,
            tokens=a.tokens,
            d_model=a.d_model,
        )
    except ValueError as exc:
        p.error(str(exc))
    out["references"] = references(a.task)
    text = json.dumps(out, indent=1)
    if a.out:
        Path(a.out).write_text(text + "\n")
    else:
        print(text)
    return out


def ship(argv: list[str]) -> None:
    """Every shipped result, written after each unit (so a partial file is usable)."""
    from . import core

    p = argparse.ArgumentParser(prog="python -m posenc.lab ship")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--copy-steps", type=int, default=1500)
    p.add_argument("--ft-steps", type=int, default=100)
    p.add_argument("--long-nope-steps", type=int, default=900)
    p.add_argument("--tokens", type=int, default=None, help="scored tokens per length (default 8192)")
    p.add_argument("--out", default=str(SHIPPED))
    a = p.parse_args(argv)
    tokens = a.tokens or core.EVAL_TOKENS
    core.set_threads(1)
    out_path = Path(a.out)
    lens = [64, 128, 256, 512]
    doc: dict[str, Any] = {
        "command": "python -m posenc.lab ship " + shlex.join(argv),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "settings": {
            "train_len": 64,
            "eval_lens": lens,
            "steps": a.steps,
            "copy_steps": a.copy_steps,
            "ft_steps": a.ft_steps,
            "long_nope_steps": a.long_nope_steps,
            "d_model": 64,
            "tokens": tokens,
        },
        "tasks": {},
    }
    weights: dict[str, np.ndarray] = {}

    def save() -> None:
        doc["complete"] = False
        out_path.parent.mkdir(parents=True, exist_ok=True)
        out_path.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
        np.savez_compressed(out_path.with_name("weights.npz"), **weights)  # type: ignore[arg-type]

    def unit(
        task: str, seed: int, methods, steps: int, label: dict[str, str] | None = None, keep: bool = False
    ) -> None:
        t0 = time.perf_counter()
        r = core.run_experiment(
            task,
            methods,
            eval_lens=lens,
            seed=seed,
            steps=steps,
            ft_steps=a.ft_steps,
            per_position=True,
            keep_models=keep,
            tokens=tokens,
        )
        entry = doc["tasks"].setdefault(
            task,
            {
                "metric": TASKS[task].metric,
                "references": references(task),
                "steps": steps,
                "runs": {},
                "per_position": {},
            },
        )
        for name, values in r["results"].items():
            key = (label or {}).get(name, name)
            entry["runs"].setdefault(key, {})[str(seed)] = values
            if seed == 0:
                pp = r["per_position"][name]
                entry["per_position"][key] = None if pp is None else [None if v is None else round(v, 5) for v in pp]
        for enc, model in r.get("models", {}).items():
            for k, v in core.model_state(model).items():
                weights[f"{task}/{enc}/{k}"] = v.astype(np.float16 if enc != "rope" else np.float32)
        save()
        print(
            f"{task} seed {seed}: {', '.join(methods)} in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True
        )

    # seed 0 of everything first, then the other seeds: a file cut short is still usable
    for task in ("markov", "kback"):
        unit(task, 0, (*LIVE, *EXTENSIONS), a.steps, keep=True)
    unit("copy", 0, (*LIVE, *EXTENSIONS[:3]), a.copy_steps, keep=True)
    for task in ("markov", "kback"):
        unit(task, 0, FINETUNED, a.steps)
        unit(task, 0, ("nope",), a.long_nope_steps, label={"nope": f"nope ({a.long_nope_steps} steps)"})
    for seed in range(1, a.seeds):
        for task in ("markov", "kback"):
            unit(task, seed, (*LIVE, *EXTENSIONS), a.steps)
    doc["complete"] = True
    out_path.write_text(json.dumps(doc, separators=(",", ":")) + "\n")


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["ship"]:
        ship(argv[1:])
    else:
        run(argv)


if __name__ == "__main__":
    main()
