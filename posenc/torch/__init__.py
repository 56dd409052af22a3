"""PyTorch modules giving the numpy core's numbers (float32): for use inside a model.

Importing this package imports torch (≈2 s, ≈190 MiB); nothing else in posenc does. The newer
encodings of issue #39 are one submodule each (cope, fope, path, ssmax), re-exported at the end.
"""

from __future__ import annotations

import math

import numpy as np

try:
    import torch
    from torch import nn
except ModuleNotFoundError as exc:  # torch is the optional extra posenc[torch]
    if exc.name != "torch":
        raise
    raise ModuleNotFoundError(
        "posenc.torch needs PyTorch, an optional dependency of posenc that is not installed: "
        "install it with `pip install posenc[torch]` (or `pip install torch`). "
        "The rest of posenc needs only numpy.",
        name="torch",
    ) from exc

from .. import _validate as v
from ..learned import learned_table
from ..scaling import rope_inverse_frequencies, rope_type_of
from ..sinusoidal import LAYOUTS as SIN_LAYOUTS
from ..sinusoidal import _pair_frequencies
from ._checks import positions_tensor as _positions

ROPE_LAYOUTS = ("half", "interleaved")


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str) -> torch.Tensor:
    """x (..., seq, d) with its first r = 2·cos.shape[-1] coordinates rotated pair by pair, as
    posenc.apply_rope pairs them (``layout`` "half", else interleaved); the other d − r as they are."""
    r = 2 * cos.shape[-1]
    rot, rest = x[..., :r], x[..., r:]
    if layout == "half":
        x1, x2 = rot[..., : r // 2], rot[..., r // 2 :]
        out = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
    else:
        a, b = rot[..., 0::2], rot[..., 1::2]
        out = torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)
    return torch.cat([out, rest], dim=-1)


class SinusoidalPositionalEncoding(nn.Module):
    """forward(positions) -> (seq, d_model) float32; same layouts and odd-d rule as the numpy core."""

    theta: torch.Tensor  # a buffer (register_buffer), so nn.Module's attribute typing does not see it

    def __init__(self, d_model: int, *, base: float = 10000.0, layout: str = "interleaved"):
        super().__init__()
        self.d_model = v.dimension("d_model", d_model)
        self.base = v.base_value("base", base)
        self.layout = v.choice("layout", layout, SIN_LAYOUTS)
        theta = _pair_frequencies((self.d_model + 1) // 2, self.d_model, self.base)
        self.register_buffer("theta", torch.from_numpy(theta), persistent=False)  # float64

    def forward(self, positions) -> torch.Tensor:
        pos = _positions(positions)
        ang = torch.outer(pos, self.theta)  # (seq, ceil(d/2)) in float64, rounded once below
        n_cos = self.d_model // 2
        sin, cos = torch.sin(ang), torch.cos(ang[:, :n_cos])
        out = torch.empty(pos.numel(), self.d_model, dtype=torch.float64)
        if self.layout == "interleaved":
            out[:, 0::2], out[:, 1::2] = sin, cos
        else:
            out[:, : sin.shape[1]], out[:, sin.shape[1] :] = sin, cos
        return out.float()


class LearnedPositionalEmbedding(nn.Module):
    """An ``nn.Embedding(max_len, d_model)`` initialised from :func:`posenc.learned.learned_table`."""

    def __init__(self, max_len: int, d_model: int, *, seed: int = 0, std: float = 0.02):
        super().__init__()
        table = learned_table(max_len, d_model, seed=seed, std=std)
        self.max_len = table.shape[0]
        self.embedding = nn.Embedding(table.shape[0], table.shape[1])
        with torch.no_grad():
            self.embedding.weight.copy_(torch.from_numpy(table).float())

    def forward(self, positions) -> torch.Tensor:
        pos = _positions(positions)
        if torch.any(pos != torch.round(pos)) or torch.any(pos < 0):
            raise ValueError(f"positions must be whole numbers >= 0, got {pos.tolist()[:8]}")
        if torch.any(pos >= self.max_len):
            bad = int(pos.max())
            raise ValueError(
                f"positions must be < max_len={self.max_len}, got {bad}: a learned table has no row for "
                f"position {bad}, so it cannot extrapolate beyond the length it was trained on"
            )
        return self.embedding(pos.long())


class RotaryEmbedding(nn.Module):
    """forward(x, positions, seq_len=None) rotates x (..., seq, head_dim) like posenc.apply_rope.

    The frequencies come from the same scaling registry (``rope_parameters`` = a config's rope
    block); the attention factor multiplies cos and sin, as in HF transformers.
    """

    inv_freq: torch.Tensor  # a buffer (register_buffer), so nn.Module's attribute typing does not see it

    def __init__(
        self, head_dim: int, *, rope_parameters=None, max_position_embeddings: int = 2048, layout: str = "half"
    ):
        super().__init__()
        self.head_dim = v.dimension("head_dim", head_dim, even=True)
        self.layout = v.choice("layout", layout, ROPE_LAYOUTS)
        self.rope_parameters = dict(rope_parameters or {})
        self.max_position_embeddings = max_position_embeddings
        inv, af = rope_inverse_frequencies(
            self.rope_parameters, self.head_dim, max_position_embeddings=max_position_embeddings
        )
        self.register_buffer("inv_freq", torch.from_numpy(inv), persistent=False)  # float64
        self.attention_factor = af

    def frequencies(self, positions, seq_len=None) -> tuple[torch.Tensor, float]:
        """(inv_freq, attention_factor) that :meth:`forward` uses for these positions: ``seq_len`` None
        means max(positions) + 1 for dynamic NTK and LongRoPE, as HF transformers does."""
        pos = _positions(positions)
        inv, af = self.inv_freq, self.attention_factor
        if seq_len is None and pos.numel() and rope_type_of(self.rope_parameters) in ("dynamic", "longrope"):
            # HF's dynamic_rope_update: seq_len = max(position_ids) + 1 (not the trained length)
            seq_len = int(torch.max(pos).item()) + 1
        if seq_len is not None:  # dynamic NTK and LongRoPE depend on the current length
            inv_np, af = rope_inverse_frequencies(
                self.rope_parameters,
                self.head_dim,
                max_position_embeddings=self.max_position_embeddings,
                seq_len=seq_len,
            )
            inv = torch.from_numpy(inv_np)
        return inv, af

    def forward(self, x: torch.Tensor, positions, seq_len=None) -> torch.Tensor:
        """``seq_len`` None: dynamic NTK and LongRoPE take max(positions) + 1, as HF transformers does."""
        pos = _positions(positions)
        inv, af = self.frequencies(pos, seq_len)
        ang = torch.outer(pos, inv)
        return _rotate(x, (torch.cos(ang) * af).to(x.dtype), (torch.sin(ang) * af).to(x.dtype), self.layout)


def set_threads(n: int) -> None:
    """torch's intra-op threads for this process. A server sets 1: on a small or busy machine torch's
    thread pool made a 5×16 attention head take 10–170 ms instead of 0.1 ms (its threads wait for
    cores the other sessions are using), and a computation must not take the core they run on."""
    torch.set_num_threads(max(1, int(n)))


def attention_head(x, w_q, w_k, w_v, *, pe=None, rope_inv_freq=None, rope_layout="half"):
    r"""One attention head in torch: :math:`A=\mathrm{softmax}(QK^\top/\sqrt{d_k})`, outputs :math:`AV`.

    ``pe`` (n, d) is added to x before the projections; ``rope_inv_freq`` rotates Q and K (not V).
    Returns (weights (n, n), outputs (n, d_v)) as float64 numpy arrays.
    """
    xt = torch.as_tensor(np.asarray(x, dtype=np.float64))
    if pe is not None:
        xt = xt + torch.as_tensor(np.asarray(pe, dtype=np.float64))
    wq, wk, wv = (torch.as_tensor(np.asarray(w, dtype=np.float64)) for w in (w_q, w_k, w_v))
    q, k, val = xt @ wq, xt @ wk, xt @ wv
    if rope_inv_freq is not None:
        inv = torch.as_tensor(np.asarray(rope_inv_freq, dtype=np.float64))
        ang = torch.outer(torch.arange(xt.shape[0], dtype=torch.float64), inv)
        cos, sin = torch.cos(ang), torch.sin(ang)
        q, k = _rotate(q, cos, sin, rope_layout), _rotate(k, cos, sin, rope_layout)
    weights = torch.softmax(q @ k.T / math.sqrt(q.shape[-1]), dim=-1)
    return weights.numpy(), (weights @ val).numpy()


# ------------------------------------------------------------------ ALiBi and NoPE (posenc.lab's plug-ins)
class ALiBiBias(nn.Module):
    """forward(n) -> (n_heads, n, n) float32 bias −slope_h·|m − n| (posenc.alibi_slopes / alibi_bias).

    A causal model adds it to the logits under its mask, so only m ≥ n is ever used (Press et al. 2022).
    """

    slopes: torch.Tensor  # a buffer

    def __init__(self, n_heads: int):
        super().__init__()
        from ..relative import alibi_slopes

        self.n_heads = v.integer("n_heads", n_heads, minimum=1, maximum=4096)
        self.register_buffer("slopes", torch.from_numpy(alibi_slopes(self.n_heads)), persistent=False)  # float64

    def forward(self, n: int) -> torch.Tensor:
        n = v.integer("n", n, minimum=1, maximum=100_000)
        idx = torch.arange(n, dtype=torch.float64)
        dist = (idx[:, None] - idx[None, :]).abs()
        return (-self.slopes[:, None, None] * dist).float()


class NoPositionalEncoding(nn.Module):
    """NoPE: forward(positions) -> zeros (seq, d_model); a causal mask is the only source of order."""

    def __init__(self, d_model: int):
        super().__init__()
        self.d_model = v.dimension("d_model", d_model)

    def forward(self, positions) -> torch.Tensor:
        return torch.zeros(_positions(positions).numel(), self.d_model)


# ------------------------------------------------------------------ the newer encodings (issue #39), one module each
from .cope import ContextualPositionEncoding  # noqa: E402
from .fope import FourierPositionEmbedding  # noqa: E402
from .path import PaTHTransform  # noqa: E402
from .ssmax import ScalableSoftmax  # noqa: E402
