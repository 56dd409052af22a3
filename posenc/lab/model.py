"""The lab's tiny model (imports torch): a pre-LN causal decoder whose positional encoding is a plug-in from
:mod:`posenc.torch`, its configuration, its per-token scores, and its weights (the shipped seed-0 models).

The scalings applied at evaluation are posenc.rope_inverse_frequencies (via posenc.torch.RotaryEmbedding),
attention factor included.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from ..layers import hybrid_layer_plan
from ..torch import (
    ALiBiBias,
    ContextualPositionEncoding,
    FourierPositionEmbedding,
    LearnedPositionalEmbedding,
    NoPositionalEncoding,
    PaTHTransform,
    RotaryEmbedding,
    ScalableSoftmax,
    SinusoidalPositionalEncoding,
    set_threads,  # noqa: F401 (re-exported: the lab and its callers call tiny.set_threads)
)
from .grammar import ALL_ENCODINGS, parse_method
from .shipped import WEIGHTS
from .tasks import TASKS, _length, _task

#: The learned table's initial std: the token embeddings' (nn.Embedding's N(0, 1)), so that position starts
#: on the same scale as content (at 0.02 the table starts 50× smaller, near NoPE; GPT-2 draws both at 0.02:
#: what matters is the same scale for both).
LEARNED_STD = 1.0
#: hybrid: every HYBRID_INTERVAL-th layer has no position (Llama 4's and SmolLM3's ``no_rope_layer_interval``
#: rule, posenc.layers.hybrid_layer_plan; they use 4 over 48 and 36 layers, the lab's 2 layers need 2 for
#: one NoPE layer: layer 0 RoPE, layer 1 none)
HYBRID_INTERVAL = 2
#: DroPE's recalibration after RoPE is dropped: at most this share of the pretraining's steps (or cap), at the
#: pretraining's peak rate after a fresh warm-up, at L (DroPE recalibrates a pretrained model on a small share of
#: its pretraining tokens: SmolLM-360M on 30B of its 600B; Gelberg et al. 2025, arXiv 2512.12167, SakanaAI/DroPE's
#: recalibration_30B config). Trained to the target, it stops once the dropped model has learned again. A run may
#: set its own (TrainConfig.recalibration).
DROPE_RECALIBRATION = 1 / 4
#: The encodings that rotate q and k with RoPE in every layer they have a position in (drope until it drops)
ROTARY = ("rope", "drope", "hybrid", "ssmax")


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
    #: train to a target: ``steps`` is then a cap, the rate stays at its peak after the warm-up, and every
    #: ``check_every`` steps the model is scored on a held-out sample (not an evaluation sample); once it has
    #: learned (:func:`posenc.lab.learned`), or at 80 % of the cap, the rate decays linearly to 0 over a quarter
    #: of the steps so far (at least ``check_every``) and training stops
    until_learned: bool = False
    check_every: int = 100
    #: drope: the recalibration's steps (or cap) as a share of ``steps``
    recalibration: float = DROPE_RECALIBRATION

    def __post_init__(self) -> None:
        _task(self.task)
        if self.encoding not in ALL_ENCODINGS:
            raise ValueError(f"encoding must be one of {', '.join(ALL_ENCODINGS)}, got {self.encoding!r}")
        _length("train_len", self.train_len)
        for name, lo, hi in (
            ("steps", 1, 100_000),
            ("batch", 1, 1024),
            ("n_heads", 1, 64),
            ("n_layers", 1, 12),
            ("check_every", 1, 100_000),
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or not lo <= value <= hi:
                raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {value!r}")
        if (
            isinstance(self.recalibration, bool)
            or not isinstance(self.recalibration, (int, float))
            or not (0 < self.recalibration <= 4)
        ):
            raise ValueError(f"recalibration must be a share of the steps in (0, 4], got {self.recalibration!r}")
        if not isinstance(self.d_model, int) or self.d_model % (2 * self.n_heads) or not 8 <= self.d_model <= 1024:
            raise ValueError(
                f"d_model must be in [8, 1024] and a multiple of 2·n_heads = {2 * self.n_heads}, got {self.d_model!r}"
            )


class _Block(nn.Module):
    """One pre-LN layer. ``pos``: the layer's own position module of issue #39, where it acts: FoPE rotates q and
    k (as RoPE does), PaTH gives the logits from the hidden states, CoPE adds its term to the logits, SSMax
    scales each row of logits by s·log n (None: the logits are q·kᵀ/√d plus any bias)."""

    def __init__(self, d: int, n_heads: int, pos: nn.Module | None = None):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.n_heads = n_heads
        if pos is not None:
            self.pos = pos

    def forward(self, x, rotate, bias, keep=None, positions=None):
        b, t, d = x.shape
        h = self.ln1(x)
        q, k, v = self.qkv(h).view(b, t, 3, self.n_heads, d // self.n_heads).permute(2, 0, 3, 1, 4)  # (b, H, t, hd)
        pos = getattr(self, "pos", None)
        if rotate is not None:
            q, k = rotate(q), rotate(k)
        if isinstance(pos, FourierPositionEmbedding):
            q, k = pos(q, positions), pos(k, positions)
        if keep is None and (pos is None or isinstance(pos, FourierPositionEmbedding)):
            # softmax(q·kᵀ/√d_h + bias, causal) v in one fused call
            mask = torch.full((t, t), float("-inf"), dtype=q.dtype).triu(1)  # q's dtype (a float64 copy too)
            mask = mask if bias is None else mask + bias
            y = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        else:  # the same, written out: to keep the weights, or for a position module acting on the logits
            if isinstance(pos, PaTHTransform):
                logits = pos(h, q, k)
            else:
                logits = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])  # (b, H, t, t)
            if isinstance(pos, ContextualPositionEncoding):
                logits = pos(q, k, logits)
            if bias is not None:
                logits = logits + bias
            if isinstance(pos, ScalableSoftmax):
                logits = pos(logits)
            att = torch.softmax(logits.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf")), dim=-1)
            if keep is not None:
                keep.append(att.detach())
            y = att @ v
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))


class TinyTransformer(nn.Module):
    """A pre-LN causal decoder; the positional encoding is a plug-in from posenc.torch:
    added to the token embeddings (learned, sinusoidal, nope), rotating q and k (rope), or a bias
    on the logits (alibi); the newer encodings (issue #39): one module per layer (cope, fope, path: see
    :class:`_Block`), RoPE in the layers of :func:`posenc.layers.hybrid_layer_plan` only (hybrid), RoPE with
    Scalable-Softmax in every layer (ssmax), or RoPE until :meth:`drop_rope` (drope: then none)."""

    rope_dropped: torch.Tensor  # drope's buffer (register_buffer): 1 once RoPE is dropped

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
        plan = ["rope"] * cfg.n_layers if cfg.encoding in ROTARY else ["none"] * cfg.n_layers
        if cfg.encoding == "hybrid":
            plan = hybrid_layer_plan(cfg.n_layers, nope_interval=HYBRID_INTERVAL)
        #: per layer: "rope" (rotates q and k with RoPE), "nope" (hybrid's layers without position) or "none"
        self.layer_plan = tuple(plan)
        if cfg.encoding == "drope":  # saved with the weights: a shipped DroPE model is the dropped one
            self.register_buffer("rope_dropped", torch.zeros((), dtype=torch.bool))
        self.blocks = nn.ModuleList(_Block(d, cfg.n_heads, self._layer_position(cfg)) for _ in range(cfg.n_layers))
        self.ln = nn.LayerNorm(d)
        self.out = nn.Linear(d, vocab)

    def _layer_position(self, cfg: TrainConfig) -> nn.Module | None:
        """A new position module for one layer of the newer encodings (None for the others)."""
        if cfg.encoding == "cope":  # the reference's npos_max: the block size + 1 (RAM, context_position.py)
            return ContextualPositionEncoding(self.head_dim, npos_max=cfg.train_len + 1)
        if cfg.encoding == "fope":
            return FourierPositionEmbedding(
                self.head_dim, train_len=cfg.train_len, n_heads=cfg.n_heads, base=cfg.rope_theta
            )
        if cfg.encoding == "path":
            return PaTHTransform(cfg.d_model, cfg.n_heads, w_rank=min(32, cfg.d_model), chunk_size=64)
        if cfg.encoding == "ssmax":
            return ScalableSoftmax(cfg.n_heads)
        return None

    def drop_rope(self) -> None:
        """DroPE: from now on no layer rotates q and k (the model keeps its weights)."""
        if self.cfg.encoding != "drope":
            raise ValueError(f"encoding: only a drope model drops RoPE, got {self.cfg.encoding!r}")
        self.rope_dropped.fill_(True)

    def rotary_layers(self) -> tuple[bool, ...]:
        """Per layer, whether it rotates q and k with RoPE now."""
        dropped = self.cfg.encoding == "drope" and bool(self.rope_dropped)
        return tuple(p == "rope" and not dropped for p in self.layer_plan)

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
        rotary = self.rotary_layers()
        if any(rotary):
            rope, seq_len = self.rope(rope_block, t)

            def rotate(z):
                return rope(z, positions, seq_len=seq_len)

        if self.alibi is not None:
            bias = self.alibi(t)
        for block, rotates in zip(self.blocks, rotary, strict=True):
            x = block(x, rotate if rotates else None, bias, keep, positions)
        return self.out(self.ln(x))


def token_metric(logits: torch.Tensor, targets: torch.Tensor, metric: str) -> torch.Tensor:
    """Per-token loss (``metric`` "loss") or accuracy, with −1 targets as NaN."""
    safe = targets.clamp(min=0)
    if metric == "loss":
        values = nn.functional.cross_entropy(logits.transpose(1, 2), safe, reduction="none")
    else:
        values = (logits.argmax(-1) == safe).float()
    return torch.where(targets >= 0, values, torch.tensor(float("nan")))


def model_state(model: TinyTransformer) -> dict[str, np.ndarray]:
    return {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}


def model_from_state(cfg: TrainConfig, state: Mapping[str, np.ndarray]) -> TinyTransformer:
    model = TinyTransformer(cfg)
    model.load_state_dict({k: torch.from_numpy(np.asarray(v, dtype=np.float32)) for k, v in state.items()})
    model.eval()
    return model


def shipped_model(task: str, encoding: str, *, path=None) -> TinyTransformer:
    """The shipped seed-0 model (data/lab/weights.npz; float16 except RoPE's float32)."""
    file = Path(path) if path else WEIGHTS
    prefix = f"{task}/{encoding}/"
    with np.load(file) as data:
        state = {k[len(prefix) :]: data[k] for k in data.files if k.startswith(prefix)}
    if not state:
        raise ValueError(f"task/encoding: no shipped weights for {task!r}/{encoding!r}")
    d_model = state["embed.weight"].shape[1]
    spec = parse_method(encoding)
    heads = TrainConfig.n_heads if spec.n_heads is None else spec.n_heads
    return model_from_state(TrainConfig(task=task, encoding=spec.encoding, d_model=d_model, n_heads=heads), state)
