r"""Scalable-Softmax, SSMax (Nakanishi 2025, "Scalable-Softmax Is Superior for Attention", arXiv 2501.19399).

Source: the paper, equations (1)–(3): for a query that attends to n keys, SSMax replaces
:math:`\mathrm{softmax}(z)_j` by :math:`n^{s z_j}/\sum_t n^{s z_t} = \mathrm{softmax}((s\log n)\,z)_j`,
with s a learned scalar per layer and head (its figure 1 uses s = 0.43, the default start here). The
paper also tries a bias, :math:`(s\log n + b)\,z`, which it reports helps training and hurts length
generalisation: available as ``bias=True``, off by default. In causal attention query i (counted from
0) attends to n = i + 1 keys. Llama 4's attention temperature is the same idea applied to the queries
at inference (``posenc.attention_temperature``).
"""

from __future__ import annotations

import torch
from torch import nn

from .. import _validate as v
from ._checks import tensor_shape

__all__ = ["ScalableSoftmax", "causal_key_counts", "ssmax_scale"]


def causal_key_counts(t: int, *, offset: int = 0, dtype=torch.float64) -> torch.Tensor:
    """(t,) the number of keys each of t causal queries attends to: offset + 1, …, offset + t."""
    t = v.integer("t", t, minimum=1, maximum=v.MAX_POSITIONS)
    offset = v.integer("offset", offset, minimum=0, maximum=v.MAX_POSITIONS)
    return torch.arange(offset + 1, offset + t + 1, dtype=dtype)


def ssmax_scale(n: torch.Tensor, s: torch.Tensor, b: torch.Tensor | float = 0.0) -> torch.Tensor:
    """s·log n + b, broadcast: the factor that multiplies a query's logits when it attends to n keys."""
    n = torch.as_tensor(n)
    if torch.any(n < 1):
        raise ValueError(f"n must be >= 1 (a query attends to at least one key), got {n.min().item():g}")
    return s * torch.log(n.to(torch.as_tensor(s).dtype)) + b


class ScalableSoftmax(nn.Module):
    """forward(logits, n=None) -> logits × (s_h·log n_i + b_h), for logits (batch, heads, T, T).

    ``n`` (T,) is the number of keys each query attends to; None means causal, n_i = i + 1. The caller
    masks and applies the softmax as before: softmax of the result is SSMax of the logits.
    """

    def __init__(self, n_heads: int, *, s_init: float = 0.43, bias: bool = False):
        super().__init__()
        self.n_heads = v.integer("n_heads", n_heads, minimum=1, maximum=4096)
        s_init = v.finite_float("s_init", s_init)
        self.s = nn.Parameter(torch.full((self.n_heads,), s_init))
        self.b = nn.Parameter(torch.zeros(self.n_heads)) if bias else None

    def scale(self, n: torch.Tensor) -> torch.Tensor:
        """(heads, len(n)) the factor s_h·log n + b_h each head applies for each key count n."""
        n = torch.as_tensor(n, dtype=self.s.dtype)
        b = 0.0 if self.b is None else self.b[:, None]
        return ssmax_scale(n[None, :], self.s[:, None], b)

    def forward(self, logits: torch.Tensor, n: torch.Tensor | None = None) -> torch.Tensor:
        tensor_shape("logits", logits, min_ndim=3)
        if logits.shape[-3] != self.n_heads:
            raise ValueError(
                f"logits must have {self.n_heads} heads in dimension −3 (n_heads), got shape {tuple(logits.shape)}"
            )
        t = logits.shape[-2]
        if n is None:
            n = causal_key_counts(t, dtype=self.s.dtype)
        n = torch.as_tensor(n)
        if n.shape != (t,):
            raise ValueError(f"n must have shape ({t},), one key count per query, got shape {tuple(n.shape)}")
        return logits * self.scale(n).to(logits.dtype)[..., None]  # (heads, T, 1): row i by its own n_i
