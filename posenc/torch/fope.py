r"""Fourier Position Embedding, FoPE (Hua et al. 2024, "Fourier Position Embedding: Enhancing
Attention's Periodic Extension for Length Generalization", arXiv 2412.17739; ICML 2025).

Sources: the paper (section 4) and two implementations of it: the authors' OLMo code (class
``FourierEmbedding`` in ``olmo/model.py`` of the paper's repository, TsinghuaC3I/Fourier-Position-Embedding;
read here from its fork yiju-zhao/Fourier-Position-Embedding) and vLLM's
``vllm/model_executor/layers/rotary_embedding/fope.py`` (``FourierRotaryEmbedding``).

RoPE gives pair i of a head one frequency: cos(ω_i t) and sin(ω_i t). FoPE makes each pair a Fourier
series over a grid of frequencies, cos_i(t) = Σ_j C_ji cos(ω_j t) and sin_i(t) = Σ_j S_ji sin(ω_j t),
with learned coefficients (sin and cos separate, per head: the configs' ``sep_basis_head``), started at
the identity on the pair's own RoPE frequency plus N(0, σ²) noise on every other one. The grid is
ω_j = base^(−2j/D), j < D/2, with D = ``fourier_dim``: D = head_dim is RoPE's own frequencies, and a
multiple k·head_dim adds k − 1 extra frequencies between neighbours (RoPE's frequency of pair i is
grid point k·i). A frequency too low to complete one period within the training length, ω_j < 2π/L
(wavelength 2π/ω_j > L), is clipped to zero: it leaves the grid, and a pair whose own frequency is
clipped has zero frequency, cos 1 and sin 0, so it passes unrotated (vLLM's padding; the OLMo code's
``clamp_floor_to_zero`` with ``floor_freq_ratio`` 1 and ``fourier_ignore_zero``).

Rotation as in the "half" layout (both implementations' ``rotate_half``): pair i is coordinates
(i, i + head_dim/2): out = x·cos + rotate_half(x)·sin. With no extra frequencies, nothing clipped and
σ = 0 this is RoPE exactly. σ defaults to 0.3, the gain of the paper's 60M configs
(``eye_xavier_norm_0_3``), used here as a plain standard deviation.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .. import _validate as v
from ._checks import positions_tensor, tensor_shape

__all__ = ["FourierPositionEmbedding", "fope_frequencies"]


def fope_frequencies(fourier_dim: int, *, base: float, train_len: int | None) -> tuple[torch.Tensor, torch.Tensor]:
    """(frequencies (fourier_dim/2,) float64 = base^(−2j/D), clipped (bool): ω_j < 2π/train_len).
    ``train_len`` None clips nothing."""
    fourier_dim = v.dimension("fourier_dim", fourier_dim, even=True)
    base = v.base_value("base", base)
    freqs = base ** (-torch.arange(0, fourier_dim, 2, dtype=torch.float64) / fourier_dim)
    if train_len is None:
        return freqs, torch.zeros_like(freqs, dtype=torch.bool)
    train_len = v.integer("train_len", train_len, minimum=1, maximum=v.MAX_POSITIONS)
    return freqs, freqs < 2 * math.pi / train_len


class FourierPositionEmbedding(nn.Module):
    """forward(x, positions) rotates x (..., n_heads, T, head_dim) by FoPE's per-pair Fourier series.

    ``train_len``: the training length L that sets the clipping floor 2π/L (``clip=False`` keeps every
    frequency). ``n_heads``: one coefficient set per head (1: shared by all heads). ``fourier_dim``: the
    frequency grid's dimension D, a multiple of head_dim (default head_dim: RoPE's frequencies only).
    ``init_std``: σ of the coefficients' starting noise around the identity.
    """

    frequencies: torch.Tensor  # buffers (register_buffer)
    clipped: torch.Tensor

    def __init__(
        self,
        head_dim: int,
        *,
        train_len: int,
        n_heads: int = 1,
        base: float = 10000.0,
        fourier_dim: int | None = None,
        init_std: float = 0.3,
        clip: bool = True,
    ):
        super().__init__()
        self.head_dim = v.dimension("head_dim", head_dim, even=True)
        self.train_len = v.integer("train_len", train_len, minimum=1, maximum=v.MAX_POSITIONS)
        self.n_heads = v.integer("n_heads", n_heads, minimum=1, maximum=4096)
        self.base = v.base_value("base", base)
        fourier_dim = self.head_dim if fourier_dim is None else v.dimension("fourier_dim", fourier_dim, even=True)
        if fourier_dim % self.head_dim or fourier_dim > 64 * self.head_dim:
            raise ValueError(
                f"fourier_dim must be a multiple of head_dim = {self.head_dim} (so that every RoPE frequency "
                f"is on its grid) and at most 64·head_dim = {64 * self.head_dim}, got {fourier_dim}"
            )
        self.fourier_dim = fourier_dim
        self.init_std = v.finite_float("init_std", init_std)
        if self.init_std < 0:
            raise ValueError(f"init_std must be a finite number >= 0, got {self.init_std}")
        self.clip = bool(clip)
        self.step = fourier_dim // self.head_dim  # RoPE's pair i is grid point step·i
        freqs, clipped = fope_frequencies(fourier_dim, base=self.base, train_len=self.train_len if clip else None)
        self.register_buffer("frequencies", freqs, persistent=False)
        self.register_buffer("clipped", clipped, persistent=False)
        self.n_kept = int((~clipped).sum())  # the grid decreases, so the kept frequencies are a prefix
        self.n_rotating = -(-self.n_kept // self.step)  # pairs whose own frequency is kept: step·i < n_kept
        shape = (self.n_heads, self.n_kept, self.n_rotating)
        self.sin_coef = nn.Parameter(torch.empty(shape))
        self.cos_coef = nn.Parameter(torch.empty(shape))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Identity on each pair's own frequency plus N(0, init_std²) everywhere (the OLMo code's eye init + noise)."""
        eye = torch.zeros(self.n_kept, self.n_rotating)
        i = torch.arange(self.n_rotating)
        eye[self.step * i, i] = 1.0
        with torch.no_grad():
            for coef in (self.sin_coef, self.cos_coef):
                coef.normal_(0.0, 1.0).mul_(self.init_std).add_(eye)

    def cos_sin(self, positions) -> tuple[torch.Tensor, torch.Tensor]:
        """(cos, sin), each (n_heads, T, head_dim/2) float64: every pair's Fourier series at these positions
        (cos 1, sin 0 for the pairs whose frequency is clipped)."""
        pos = positions_tensor(positions)
        ang = torch.outer(pos, self.frequencies[: self.n_kept])  # (T, kept)
        cos = torch.einsum("tj,hji->hti", torch.cos(ang), self.cos_coef.double())
        sin = torch.einsum("tj,hji->hti", torch.sin(ang), self.sin_coef.double())
        pad = self.head_dim // 2 - self.n_rotating
        cos = nn.functional.pad(cos, (0, pad), value=1.0)
        sin = nn.functional.pad(sin, (0, pad), value=0.0)
        return cos, sin

    def forward(self, x: torch.Tensor, positions) -> torch.Tensor:
        tensor_shape("x", x, min_ndim=3, last=self.head_dim)
        if self.n_heads > 1 and x.shape[-3] != self.n_heads:
            raise ValueError(f"x must have {self.n_heads} heads in dimension −3 (n_heads), got shape {tuple(x.shape)}")
        cos, sin = self.cos_sin(positions)
        if cos.shape[-2] != x.shape[-2]:
            raise ValueError(
                f"positions must have one entry per token of x ({x.shape[-2]}), got {cos.shape[-2]} entries"
            )
        cos, sin = torch.cat([cos, cos], -1).to(x.dtype), torch.cat([sin, sin], -1).to(x.dtype)
        half = self.head_dim // 2
        rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)  # rotate_half
        return x * cos + rotated * sin
