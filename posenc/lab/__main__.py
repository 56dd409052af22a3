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

from . import SHIPPED, TASKS, learned_rule, references

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
    p.add_argument(
        "--ft-lr-ratio", type=float, default=core.FT_LR_RATIO, help="fine-tune peak rate / pretraining peak rate"
    )
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
            ft_lr_ratio=a.ft_lr_ratio,
            tokens=a.tokens,
            d_model=a.d_model,
        )
    except ValueError as exc:
        p.error(str(exc))
    out["references"] = references(a.task)
    out["learned_rule"] = learned_rule(out["metric"])
    text = json.dumps(out, indent=1)
    if a.out:
        Path(a.out).write_text(text + "\n")
    else:
        print(text)
    return out


#: The shipped plan: task -> the methods of one (task, seed) unit (trained once each, fine-tunes included).
ALIBI8 = "alibi:heads=8"  # 8 heads: slopes 1/2 … 1/256 (4 heads start at 1/4)
SHIP_METHODS = {
    "markov": (*LIVE, *EXTENSIONS, *FINETUNED),
    "kback": (*LIVE, ALIBI8, *EXTENSIONS, *FINETUNED),
    "copy": (*LIVE, "rope+linear", "rope+ntk", "rope+dynamic", "rope+yarn"),
    "passkey": (  # the RoPE model only (its 1,200+ steps make the other four too dear for the ship)
        "rope",
        "rope+linear",
        "rope+ntk",
        "rope+dynamic",
        "rope+yarn",
        "rope@ft256",
        "rope+linear@ft256",
        "rope+ntk@ft256",
        "rope+yarn@ft256",
    ),
}
#: The fine-tune budget per task: (steps, batch (None: as many tokens per step as pretraining), peak rate as a
#: fraction of the pretraining peak). Chosen by a sweep on kback and passkey (README, "Shipped lab results"):
#: kback's PI fine-tune did not learn with 100 × 32 at 1/3 (0.07 at 256), 300 × 32 at 1/3 (0.49) or
#: 400 × 8 at 1/3 (0.77), and did with 400 × 8 at the full rate (0.99) or 800 × 8 at 1/3 (0.99); passkey's
#: learned with 100 × 32 at 1/3 (plain 0.98, PI 0.99, YaRN 0.99 at 256; bench/bench_lab_finetune.py).
SHIP_FT = {"markov": (400, None, 1.0), "kback": (400, None, 1.0), "passkey": (100, 32, 1 / 3)}
#: Per-position bins at the longest length (positions [start, end)), and the scored tokens a bin needs per seed
BIN_WIDTH = 32
MIN_BIN_TOKENS = 256


def _bins(longest: int) -> list[tuple[int, int]]:
    return [(a, min(a + BIN_WIDTH, longest)) for a in range(0, longest, BIN_WIDTH)]


def _binned(ev: Any, bins: list[tuple[int, int]], loss: bool) -> tuple[list[float | None], list[int]]:
    """Bin means of the plotted quantity (markov: loss above the exact optimum) and scored tokens per bin."""
    if ev.per_position is None or ev.counts is None:
        return [], []
    value = ev.per_position - ev.optimum_per_position if loss else ev.per_position
    means, counts = [], []
    for a, b in bins:
        c = ev.counts[a:b]
        n = int(c.sum())
        counts.append(n)
        means.append(None if n == 0 else round(float(np.nansum(value[a:b] * c) / n), 5))
    return means, counts


def ship(argv: list[str]) -> None:
    """Every shipped result, written after each unit (so a partial file is usable)."""
    from . import core, learned, parse_method

    p = argparse.ArgumentParser(prog="python -m posenc.lab ship")
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--copy-steps", type=int, default=400)
    p.add_argument("--passkey-steps", type=int, default=1500)
    p.add_argument("--ft-steps", type=int, default=None, help="fine-tune steps (default: SHIP_FT per task)")
    p.add_argument(
        "--ft-lr-ratio", type=float, default=None, help="fine-tune peak / pretraining peak (default: SHIP_FT)"
    )
    p.add_argument("--long-nope-steps", type=int, default=0, help="also NoPE trained this long (0: not shipped)")
    p.add_argument("--tasks", default=",".join(SHIP_METHODS), help="tasks to ship, in order")
    p.add_argument("--tokens", type=int, default=None, help="scored tokens per length (default 8192)")
    p.add_argument("--out", default=str(SHIPPED))
    a = p.parse_args(argv)
    tokens = a.tokens or core.EVAL_TOKENS
    core.set_threads(1)
    out_path = Path(a.out)
    lens = [64, 128, 256, 512]
    L = 64
    tasks = [t for t in a.tasks.split(",") if t]
    steps_of = {"markov": a.steps, "kback": a.steps, "copy": a.copy_steps, "passkey": a.passkey_steps}
    doc: dict[str, Any] = {
        "command": "python -m posenc.lab ship " + shlex.join(argv),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "settings": {
            "train_len": L,
            "eval_lens": lens,
            "steps": a.steps,
            "copy_steps": a.copy_steps,
            "passkey_steps": a.passkey_steps,
            "long_nope_steps": a.long_nope_steps,
            "d_model": 64,
            "tokens": tokens,
            "seeds": a.seeds,
            "bin_width": BIN_WIDTH,
            "min_bin_tokens": MIN_BIN_TOKENS,
            "learned_std": core.LEARNED_STD,
        },
        "tasks": {},
    }
    weights: dict[str, np.ndarray] = {}
    started = time.perf_counter()

    def save(complete: bool = False) -> None:
        doc["complete"] = complete
        doc["minutes"] = round((time.perf_counter() - started) / 60, 1)
        out_path.parent.mkdir(parents=True, exist_ok=True)
        out_path.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
        np.savez_compressed(out_path.with_name("weights.npz"), **weights)  # type: ignore[arg-type]

    def relearn(entry: dict[str, Any], metric: str) -> None:
        """ "learned" per method: the mean over seeds at the length the model was trained at."""
        for name, seeds in entry["runs"].items():
            own = str(parse_method(name.split(" (")[0]).trained_len(L))
            vals = [v[own] for v in seeds.values() if v.get(own) is not None]
            opts = [v[own] for v in entry.get("optimum", {}).get(name, {}).values() if v.get(own) is not None]
            mean = float(np.mean(vals)) if vals else None
            entry["learned"][name] = learned(metric, mean, float(np.mean(opts)) if opts else None)

    def ft_plan(task: str) -> dict[str, Any]:
        steps, batch, ratio = SHIP_FT.get(task, (100, None, core.FT_LR_RATIO))
        batch = batch or max(1, core.TrainConfig().batch * L // 256)
        return {
            "steps": a.ft_steps or steps,
            "batch": batch,
            "lr_ratio": a.ft_lr_ratio or ratio,
        }

    def unit(
        task: str, seed: int, methods, steps: int, label: dict[str, str] | None = None, keep: bool = False
    ) -> None:
        t0 = time.perf_counter()
        ft = ft_plan(task)
        r = core.run_experiment(
            task,
            methods,
            eval_lens=lens,
            seed=seed,
            steps=steps,
            ft_steps=ft["steps"],
            ft_lr_ratio=ft["lr_ratio"],
            ft_batch=ft["batch"],
            keep_models=keep,
            tokens=tokens,
            detail=True,
        )
        metric = TASKS[task].metric
        bins = _bins(max(lens))
        entry = doc["tasks"].setdefault(
            task,
            {
                "metric": metric,
                "references": references(task),
                "learned_rule": learned_rule(metric),
                "steps": steps,
                "finetune": ft if any("@ft" in m for m in methods) else None,
                "runs": {},
                "beyond": {},
                "scored": {},
                "learned": {},
                "learned_seeds": {},
                "bins": bins,
                "per_position": {},
                "bin_counts": {},
                "rope": {},
                **({"optimum": {}, "beyond_optimum": {}} if metric == "loss" else {}),
            },
        )
        for name, values in r["results"].items():
            key = (label or {}).get(name, name)
            s = str(seed)
            entry["runs"].setdefault(key, {})[s] = values
            entry["beyond"].setdefault(key, {})[s] = r["beyond"][name]
            entry["scored"].setdefault(key, {})[s] = r["scored"][name]
            entry["learned_seeds"].setdefault(key, {})[s] = r["learned"][name]
            ev = r["detail"][name]
            if metric == "loss":
                entry["optimum"].setdefault(key, {})[s] = {str(n): ev[n].optimum for n in lens}
                entry["beyond_optimum"].setdefault(key, {})[s] = {str(n): ev[n].beyond_optimum for n in lens if n > L}
            if task != "passkey":  # passkey scores only the last position: no curve along the sequence
                means, counts = _binned(ev[max(lens)], bins, metric == "loss")
                entry["per_position"].setdefault(key, {})[s] = means or None
                entry["bin_counts"].setdefault(key, {})[s] = counts
            if name in r["rope"] and key not in entry["rope"]:
                entry["rope"][key] = r["rope"][name]
        relearn(entry, metric)
        for model_key, model in r.get("models", {}).items():
            if model_key not in LIVE:  # the page's Attention and Extension tabs use the five only
                continue
            for k, v in core.model_state(model).items():
                weights[f"{task}/{model_key}/{k}"] = v.astype(np.float16 if model_key != "rope" else np.float32)
        save()
        print(
            f"{task} seed {seed}: {', '.join(methods)} in {time.perf_counter() - t0:.0f} s "
            f"({(time.perf_counter() - started) / 60:.1f} min so far)",
            file=sys.stderr,
            flush=True,
        )

    # every task at each seed before the next seed: a file cut short still has every row, with fewer seeds
    for seed in range(a.seeds):
        for task in tasks:
            unit(task, seed, SHIP_METHODS[task], steps_of[task], keep=seed == 0)
    if a.long_nope_steps:
        for seed in range(a.seeds):
            for task in ("markov", "kback"):
                if task in tasks:
                    unit(task, seed, ("nope",), a.long_nope_steps, label={"nope": f"nope ({a.long_nope_steps} steps)"})
    save(complete=True)


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["ship"]:
        ship(argv[1:])
    else:
        run(argv)


if __name__ == "__main__":
    main()
