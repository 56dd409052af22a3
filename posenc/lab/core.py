"""The lab's torch half: the tiny model, seeded training, evaluation at many lengths (imports torch).

The positional encodings are posenc.torch's modules (the numbers of the rest of posenc); the
scalings applied at evaluation are posenc.rope_inverse_frequencies (via posenc.torch.RotaryEmbedding),
attention factor included.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from ..torch import (
    ALiBiBias,
    LearnedPositionalEmbedding,
    NoPositionalEncoding,
    RotaryEmbedding,
    SinusoidalPositionalEncoding,
)
from . import ENCODINGS, TASKS, MethodSpec, _length, _task, learned, make_batch, optimum, parse_method

__all__ = ["Cancelled", "TinyTransformer", "TrainConfig", "TrainResult", "attention_map", "evaluate", "train"]

EVAL_TOKENS = 8192
_EVAL_SEED = 987_654
#: The learned table's initial std: the token embeddings' (nn.Embedding's N(0, 1)), so that position starts
#: on the same scale as content (at 0.02 the table starts 50× smaller, near NoPE; GPT-2 draws both at 0.02:
#: what matters is the same scale for both).
LEARNED_STD = 1.0
#: A fine-tune's peak learning rate, as a fraction of the pretraining peak (Chen et al. 2023 fine-tune
#: at 2e-5 after pretraining at 3e-4; a fresh warm-up to the full pretraining rate undoes what was learned)
FT_LR_RATIO = 1 / 3


class Cancelled(Exception):
    """Raised by :func:`train` when its callback returns False."""


def set_threads(n: int = 1) -> None:
    """torch's intra-op threads (1: a training job never takes more than one core)."""
    torch.set_num_threads(max(1, int(n)))


@dataclass(frozen=True)
class TrainConfig:
    task: str = "markov"
    encoding: str = "rope"
    train_len: int = 64
    steps: int = 300
    batch: int = 32
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    lr: float = 3e-3
    warmup: int = 30
    weight_decay: float = 0.01
    rope_theta: float = 10000.0
    seed: int = 0

    def __post_init__(self) -> None:
        _task(self.task)
        if self.encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {', '.join(ENCODINGS)}, got {self.encoding!r}")
        _length("train_len", self.train_len)
        for name, lo, hi in (("steps", 1, 100_000), ("batch", 1, 1024), ("n_heads", 1, 64), ("n_layers", 1, 12)):
            value = getattr(self, name)
            if not isinstance(value, int) or not lo <= value <= hi:
                raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {value!r}")
        if not isinstance(self.d_model, int) or self.d_model % (2 * self.n_heads) or not 8 <= self.d_model <= 1024:
            raise ValueError(
                f"d_model must be in [8, 1024] and a multiple of 2·n_heads = {2 * self.n_heads}, got {self.d_model!r}"
            )


class _Block(nn.Module):
    def __init__(self, d: int, n_heads: int):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.n_heads = n_heads

    def forward(self, x, rotate, bias, keep=None):
        b, t, d = x.shape
        h = self.ln1(x)
        q, k, v = self.qkv(h).view(b, t, 3, self.n_heads, d // self.n_heads).permute(2, 0, 3, 1, 4)  # (b, H, t, hd)
        if rotate is not None:
            q, k = rotate(q), rotate(k)
        if keep is None:  # softmax(q·kᵀ/√d_h + bias, causal) v in one fused call
            mask = torch.full((t, t), float("-inf")).triu(1)
            mask = mask if bias is None else mask + bias
            y = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        else:  # the same, written out, to keep the weights
            logits = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])  # (b, H, t, t)
            if bias is not None:
                logits = logits + bias
            att = torch.softmax(logits.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf")), dim=-1)
            keep.append(att.detach())
            y = att @ v
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))


class TinyTransformer(nn.Module):
    """A pre-LN causal decoder; the positional encoding is a plug-in from posenc.torch:
    added to the token embeddings (learned, sinusoidal, nope), rotating q and k (rope), or a bias
    on the logits (alibi)."""

    def __init__(self, cfg: TrainConfig):
        super().__init__()
        self.cfg = cfg
        vocab, d = TASKS[cfg.task].vocab, cfg.d_model
        self.embed = nn.Embedding(vocab, d)
        self.head_dim = d // cfg.n_heads
        self.pe: nn.Module | None = None
        self.alibi: ALiBiBias | None = None
        if cfg.encoding == "learned":
            self.pe = LearnedPositionalEmbedding(cfg.train_len, d, seed=cfg.seed, std=LEARNED_STD)
        elif cfg.encoding == "sinusoidal":
            self.pe = SinusoidalPositionalEncoding(d)
        elif cfg.encoding == "nope":
            self.pe = NoPositionalEncoding(d)
        elif cfg.encoding == "alibi":
            self.alibi = ALiBiBias(cfg.n_heads)
        self.blocks = nn.ModuleList(_Block(d, cfg.n_heads) for _ in range(cfg.n_layers))
        self.ln = nn.LayerNorm(d)
        self.out = nn.Linear(d, vocab)

    def rope(self, rope_block: Mapping[str, Any] | None, t: int) -> tuple[RotaryEmbedding, int | None]:
        """The rotary module and seq_len the RoPE model uses on ``t`` tokens with ``rope_block``
        (max_position_embeddings = L; dynamic NTK and LongRoPE get seq_len = t, the others none)."""
        rope = RotaryEmbedding(
            self.head_dim,
            rope_parameters=rope_block or {"rope_type": "default", "rope_theta": self.cfg.rope_theta},
            max_position_embeddings=self.cfg.train_len,
        )
        return rope, t if rope_block and rope_block.get("rope_type") in ("dynamic", "longrope") else None

    def rope_used(self, rope_block: Mapping[str, Any] | None, t: int) -> tuple[np.ndarray, float]:
        """(inv_freq, attention_factor) the forward pass applies on ``t`` tokens: read from the same module."""
        rope, seq_len = self.rope(rope_block, t)
        inv, af = rope.frequencies(np.arange(t), seq_len)
        return inv.numpy().astype(np.float64), float(af)

    def forward(self, tokens: torch.Tensor, *, rope_block: Mapping[str, Any] | None = None, keep=None) -> torch.Tensor:
        """tokens (b, t) -> logits (b, t, vocab). ``rope_block``: a scaling applied to the RoPE model
        (posenc.rope_inverse_frequencies with max_position_embeddings = L and seq_len = t)."""
        t = tokens.shape[1]
        positions = np.arange(t)
        x = self.embed(tokens)
        if self.pe is not None:
            x = x + self.pe(positions)
        rotate = bias = None
        if self.cfg.encoding == "rope":
            rope, seq_len = self.rope(rope_block, t)

            def rotate(z):
                return rope(z, positions, seq_len=seq_len)

        if self.alibi is not None:
            bias = self.alibi(t)
        for block in self.blocks:
            x = block(x, rotate, bias, keep)
        return self.out(self.ln(x))


def _loss_and_score(logits: torch.Tensor, targets: torch.Tensor, metric: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-token (loss, accuracy) with −1 targets as NaN."""
    valid = targets >= 0
    safe = targets.clamp(min=0)
    loss = nn.functional.cross_entropy(logits.transpose(1, 2), safe, reduction="none")
    acc = (logits.argmax(-1) == safe).float()
    nan = torch.tensor(float("nan"))
    return torch.where(valid, loss, nan), torch.where(valid, acc, nan)


@dataclass
class TrainResult:
    config: TrainConfig
    model: TinyTransformer
    losses: list[float]
    seconds: float


def _lr(step: int, cfg: TrainConfig, total: int, peak: float | None = None) -> float:
    peak = cfg.lr if peak is None else peak
    warm = min(cfg.warmup, max(1, total // 10))
    if step < warm:
        return peak * (step + 1) / warm
    progress = (step - warm) / max(1, total - warm)
    return peak * 0.5 * (1 + math.cos(math.pi * progress))


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
) -> list[float]:
    rng = np.random.default_rng([seed, length, 1])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    losses = []
    model.train()
    for step in range(steps):
        for group in opt.param_groups:
            group["lr"] = _lr(step, cfg, steps, peak)
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
        if callback is not None and callback(step + 1, steps, losses[-1]) is False:
            raise Cancelled(f"cancelled at step {step + 1} of {steps}")
    model.eval()
    return losses


def train(cfg: TrainConfig, *, callback: Callable[[int, int, float], Any] | None = None) -> TrainResult:
    """Train one model: seeded (init and data), so the same config gives identical numbers.
    ``callback(step, steps, loss)`` is called after every step; returning False cancels (Cancelled)."""
    import time

    start = time.perf_counter()
    torch.manual_seed(cfg.seed)
    model = TinyTransformer(cfg)
    losses = _fit(model, cfg, steps=cfg.steps, length=cfg.train_len, batch=cfg.batch, seed=cfg.seed, callback=callback)
    return TrainResult(cfg, model, losses, time.perf_counter() - start)


def finetune(
    result: TrainResult,
    method: str | MethodSpec,
    *,
    steps: int = 100,
    batch: int | None = None,
    lr_ratio: float = FT_LR_RATIO,
    callback=None,
) -> TinyTransformer:
    """A copy of the RoPE model fine-tuned at the method's ``@ft`` length with its scaling (factor N/L):
    ``steps`` steps of ``batch`` sequences (default: as many tokens per step as pretraining, batch·L/N),
    warm-up and cosine at ``lr_ratio`` × the pretraining peak rate."""
    import copy

    spec = parse_method(method) if isinstance(method, str) else method
    if spec.finetune_len is None or result.config.encoding != "rope":
        raise ValueError(f"method must be a rope method with @ft<length>, got {spec.name!r}")
    model = copy.deepcopy(result.model)
    cfg = result.config
    if not 0 < lr_ratio <= 1:
        raise ValueError(f"lr_ratio must be in (0, 1], got {lr_ratio!r}")
    n = batch or max(1, cfg.batch * cfg.train_len // spec.finetune_len)
    block = spec.rope_block(spec.finetune_len, cfg.train_len, theta=cfg.rope_theta)
    torch.manual_seed(cfg.seed + 1)
    _fit(
        model,
        cfg,
        steps=steps,
        length=spec.finetune_len,
        batch=n,
        seed=cfg.seed + 7,
        rope_block=block,
        callback=callback,
        peak=cfg.lr * lr_ratio,
    )
    return model


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


def _mean(values: np.ndarray) -> float | None:
    finite = values[np.isfinite(values)]
    return float(finite.mean()) if finite.size else None


def eval_sequences(task: str, length: int, tokens: int) -> int:
    """Evaluation sequences per length: ceil(tokens / the task's expected scored tokens per sequence)."""
    return max(1, math.ceil(tokens / TASKS[task].cost(length)))


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
            loss, acc = _loss_and_score(logits, torch.from_numpy(y[i : i + chunk]), metric)
            parts.append((loss if metric == "loss" else acc).numpy())
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
            value=_mean(values),
            beyond=_mean(past) if length > cfg.train_len else None,
            optimum=None if best is None else _mean(best),
            beyond_optimum=None if best is None or length <= cfg.train_len else _mean(best[:, cfg.train_len :]),
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


def evaluate(
    model: TinyTransformer,
    task: str | None = None,
    lengths: Sequence[int] = (64, 128, 256, 512),
    *,
    method: str | None = None,
    tokens: int = EVAL_TOKENS,
) -> dict[int, float | None]:
    """{length: metric or None}: ``method`` defaults to the model's own encoding (no scaling)."""
    if task is not None and task != model.cfg.task:
        raise ValueError(f"task: the model was trained on {model.cfg.task!r}, got {task!r}")
    return evaluate_method(model, method or model.cfg.encoding, lengths, tokens=tokens)


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


def model_state(model: TinyTransformer) -> dict[str, np.ndarray]:
    return {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}


def model_from_state(cfg: TrainConfig, state: Mapping[str, np.ndarray]) -> TinyTransformer:
    model = TinyTransformer(cfg)
    model.load_state_dict({k: torch.from_numpy(np.asarray(v, dtype=np.float32)) for k, v in state.items()})
    model.eval()
    return model


def config_dict(cfg: TrainConfig) -> dict[str, Any]:
    return asdict(cfg)


def _round(v: float | None, digits: int = 6) -> float | None:
    return None if v is None else round(float(v), digits)


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
) -> dict[str, Any]:
    """Train one model per encoding (and head count) the methods need, once each; evaluate every method,
    each seed on its own evaluation sample.

    Returns {"task", "metric", "train_len", "steps", "seed", "results": {method: {"<len>": value|None}},
    "beyond": {method: {"<len>": value over positions >= L}} (lengths past L), "optimum" (loss tasks:
    {method: {"<len>": the exact optimum's mean on the same tokens}}), "scored": {method: {"<len>": tokens}},
    "learned": {method: bool} (:func:`posenc.lab.learned` at the length the model was trained at),
    "rope": {method: {"<len>": {"inv_freq": [...], "attention_factor": a}}} (every rope method),
    ["per_position": {method: [...]}], ["models": {model: TinyTransformer}], ["detail": {method: {len: Evaluation}}]}.
    ``callback(model, step, steps, loss)``; returning False cancels."""
    spec_task = _task(task)
    specs = [parse_method(m) for m in methods]
    default_steps = 1500 if task == "copy" else 300
    n_steps = steps or default_steps
    models: dict[str, TrainResult] = {}
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
        "rope": {},
    }
    if spec_task.metric == "loss":
        out["optimum"] = {}
    positions: dict[str, list[float | None] | None] = {}
    details: dict[str, dict[int, Evaluation]] = {}
    for spec in specs:
        if spec.model not in models:
            extra = {} if spec.n_heads is None else {"n_heads": spec.n_heads}
            cfg = TrainConfig(
                task=task,
                encoding=spec.encoding,
                train_len=train_len,
                steps=n_steps,
                seed=seed,
                d_model=d_model,
                **extra,
            )
            cb = None if callback is None else (lambda s, n, loss, e=spec.model: callback(e, s, n, loss))
            models[spec.model] = train(cfg, callback=cb)
        model = models[spec.model].model
        if spec.finetune_len:
            cb = None if callback is None else (lambda s, n, loss, e=spec.name: callback(e, s, n, loss))
            model = finetune(
                models[spec.model], spec, steps=ft_steps, batch=ft_batch, lr_ratio=ft_lr_ratio, callback=cb
            )
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
    if detail:
        out["detail"] = details
    return out


def has_shipped_model(task: str, encoding: str, *, path=None) -> bool:
    """Whether data/lab/weights.npz holds the seed-0 model of ``task`` and ``encoding``."""
    from pathlib import Path

    from . import SHIPPED

    file = Path(path) if path else SHIPPED.with_name("weights.npz")
    prefix = f"{task}/{encoding}/"
    with np.load(file) as data:
        return any(k.startswith(prefix) for k in data.files)


def shipped_model(task: str, encoding: str, *, path=None) -> TinyTransformer:
    """The shipped seed-0 model (data/lab/weights.npz; float16 except RoPE's float32)."""
    from pathlib import Path

    from . import SHIPPED

    file = Path(path) if path else SHIPPED.with_name("weights.npz")
    prefix = f"{task}/{encoding}/"
    with np.load(file) as data:
        state = {k[len(prefix) :]: data[k] for k in data.files if k.startswith(prefix)}
    if not state:
        raise ValueError(f"task/encoding: no shipped weights for {task!r}/{encoding!r}")
    d_model = state["embed.weight"].shape[1]
    spec = parse_method(encoding)
    extra = {} if spec.n_heads is None else {"n_heads": spec.n_heads}
    return model_from_state(TrainConfig(task=task, encoding=spec.encoding, d_model=d_model, **extra), state)
