r"""Contextual Position Encoding, CoPE (Golovneva, Wang, Weston & Sukhbaatar 2024, arXiv 2405.18719).

Source: the paper (section 3) and its reference code, facebookresearch/RAM,
``projects/cope/src/cope/context_position.py``, class ``ContextPosSelfAttn``
(https://github.com/facebookresearch/RAM/blob/main/projects/cope/src/cope/context_position.py),
with its defaults: the gates use the attention's own keys (``cope_sep_key`` off) and the position
logit is added before the division by √d (``cope_nodiv`` off).

The context counts the positions. Query i gives each key j ≤ i a gate
:math:`g_{ij}=\sigma(q_i\cdot k_j/\sqrt d)\in(0,1)`, and key j's position seen from i is the
number of gated tokens from j up to the query: :math:`p_{ij}=\sum_{t=j}^{i} g_{it}` (the reverse
cumulative sum of the causal row), clamped to ``npos_max − 1``. A fractional position has no
embedding of its own, so its logit interpolates between the two nearest integer positions'
embeddings :math:`e[p]` (learned, one table per layer shared by the heads, zeros at the start as in the
reference): :math:`z_{ij}=(1-w)\,q_i\cdot e[\lfloor p_{ij}\rfloor]+w\,q_i\cdot e[\lceil p_{ij}\rceil]`,
:math:`w=p_{ij}-\lfloor p_{ij}\rfloor`. The logit is :math:`(q_i\cdot k_j+z_{ij})/\sqrt d`.

Causal: row i reads only keys j ≤ i (the gates of later keys are zeroed), so a later token changes
no earlier row. Entries above the diagonal are finite filler that the caller's causal mask removes.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .. import _validate as v
from ._checks import same_shape, tensor_shape

__all__ = ["ContextualPositionEncoding", "cope_gates", "cope_positions", "interpolated_position_logits"]


def cope_gates(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """(..., T, T) gates σ(q_i·k_j/√d) for j ≤ i and 0 above the diagonal (the causal mask)."""
    tensor_shape("q", q, min_ndim=2)
    same_shape("k", k, "q", q)
    t = q.shape[-2]
    gates = torch.sigmoid(q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]))
    causal = torch.ones(t, t, dtype=torch.bool, device=q.device).tril()
    return gates * causal


def cope_positions(gates: torch.Tensor, npos_max: int | None = None) -> torch.Tensor:
    """Contextual positions p_ij = Σ_{t=j}^{i} g_it: the reverse cumulative sum along the keys,
    clamped to ``npos_max − 1`` when given (the reference's ``positions.clamp(max=self.npos - 1)``)."""
    tensor_shape("gates", gates, min_ndim=2)
    positions = gates.flip(-1).cumsum(-1).flip(-1)
    if npos_max is not None:
        npos_max = v.integer("npos_max", npos_max, minimum=2, maximum=1_000_000)
        positions = positions.clamp(max=npos_max - 1)
    return positions


def interpolated_position_logits(fixed: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """z_ij from ``fixed`` (..., T, npos) = q_i·e[p] at every integer p and ``positions`` (..., T, T):
    (1 − w)·fixed[⌊p⌋] + w·fixed[⌈p⌉] with w = p − ⌊p⌋ (no gradient through ⌊p⌋ and ⌈p⌉, as in the reference)."""
    floor, ceil = positions.floor(), positions.ceil()
    w = positions - floor  # differentiable in the gates
    lo = fixed.gather(-1, floor.long())
    hi = fixed.gather(-1, ceil.long())
    return lo * (1 - w) + hi * w


class ContextualPositionEncoding(nn.Module):
    """CoPE for one attention layer: forward(q, k, logits) -> logits + z/√d (..., T, T).

    ``q``, ``k``: (batch, heads, T, head_dim); ``logits``: the layer's q·kᵀ/√d (plus any bias) before
    the causal mask and the softmax. ``npos_max``: the number of position embeddings (positions are
    clamped to npos_max − 1; the reference uses the block size + 1).
    """

    def __init__(self, head_dim: int, npos_max: int):
        super().__init__()
        self.head_dim = v.integer("head_dim", head_dim, minimum=1, maximum=v.MAX_DIM)
        self.npos_max = v.integer("npos_max", npos_max, minimum=2, maximum=1_000_000)
        # the reference's pos_emb (1, head_dim, npos), zeros at the start: column p is e[p]
        self.pos_emb = nn.Parameter(torch.zeros(self.head_dim, self.npos_max))

    def _check(self, q: torch.Tensor, k: torch.Tensor) -> None:
        tensor_shape("q", q, min_ndim=2, last=self.head_dim)
        same_shape("k", k, "q", q)

    def gates(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """(..., T, T) gates σ(q·k/√d), zero above the diagonal."""
        self._check(q, k)
        return cope_gates(q, k)

    def positions(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """(..., T, T) contextual positions, clamped to npos_max − 1 (zero above the diagonal)."""
        return cope_positions(self.gates(q, k), self.npos_max)

    def position_logits(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        """(..., T, T) z_ij, the position term before the division by √d."""
        positions = self.positions(q, k)
        fixed = q @ self.pos_emb.to(q.dtype)  # (..., T, npos): q_i·e[p] for every integer p
        return interpolated_position_logits(fixed, positions)

    def forward(self, q: torch.Tensor, k: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
        t = q.shape[-2] if q.ndim >= 2 else 0
        tensor_shape("logits", logits, min_ndim=2, tail=(t, t))
        return logits + self.position_logits(q, k) / math.sqrt(self.head_dim)
