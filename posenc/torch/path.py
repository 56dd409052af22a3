r"""PaTH attention: position encoding by accumulated Householder transformations (Yang, Shen, Wen,
Tan, Mishra, Ren, Panda & Kim 2025, "PaTH Attention: Position Encoding via Accumulating Householder
Transformations", arXiv 2505.16381).

Sources: the paper (section 2) and its reference implementation in fla-org/flash-linear-attention:
the layer ``fla/layers/path_attn.py`` (``PaTHAttention``: w from a low-rank projection, rank 32, then
a causal short convolution of width 3 with SiLU, L2-normalised per head; β = 2·σ(linear(x)) ∈ (0, 2),
one per head and token; its decoding path's ``rank_one_update``) and the naive reference
``naive_path_attn`` in ``tests/ops/test_path_attn.py`` (the chunked UT transform written in torch,
which :func:`path_scores` follows). The optional forget gate (PaTH-FoX) is not included.

Each token t carries a data-dependent generalised Householder matrix H_t = I − β_t w_t w_tᵀ
(‖w_t‖ = 1). RoPE's fixed rotation R^(i−j) between key j and query i becomes the product of the
transformations of the tokens in between: the logit is
:math:`q_i^\top H_i H_{i-1}\cdots H_{j+1} k_j/\sqrt d` (no transformation when j = i). With β = 2
every H_t is a reflection and the product is orthogonal; with β = 0 it is the identity (NoPE).

Plain PyTorch: :func:`path_scores` costs O(T²·d + T·C²) for chunks of C tokens (the UT transform
inside a chunk, one d×d product per chunk between chunks), fine at the lab's lengths (T ≤ 512).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .. import _validate as v
from ._checks import same_shape, tensor_shape

__all__ = ["PaTHTransform", "accumulated_transform", "path_scores"]


def _check_wb(w: torch.Tensor, beta: torch.Tensor, like: torch.Tensor | None = None) -> None:
    tensor_shape("w", w, min_ndim=2)
    if like is not None:
        same_shape("w", w, "q", like)
    tensor_shape("beta", beta, min_ndim=1)
    if beta.shape != w.shape[:-1]:
        raise ValueError(
            f"beta must have shape {tuple(w.shape[:-1])} (one β per token of w), got shape {tuple(beta.shape)}"
        )


def accumulated_transform(w: torch.Tensor, beta: torch.Tensor, start: int = 0, end: int | None = None) -> torch.Tensor:
    """(..., d, d) H_end · H_(end−1) ⋯ H_(start+1): what carries a key at position ``start`` to a query
    at position ``end`` (default the last token). The identity when end == start. w (..., T, d), beta (..., T)."""
    _check_wb(w, beta)
    t = w.shape[-2]
    start = v.integer("start", start, minimum=0, maximum=t - 1)
    end = t - 1 if end is None else v.integer("end", end, minimum=start, maximum=t - 1)
    d = w.shape[-1]
    out = torch.eye(d, dtype=w.dtype, device=w.device).expand(*w.shape[:-2], d, d)
    for s in range(start + 1, end + 1):  # left-multiply by each later token's H_s
        ws = w[..., s, :]
        out = out - beta[..., s, None, None] * ws[..., :, None] * (ws[..., None, :] @ out)
    return out


def path_scores(
    q: torch.Tensor, k: torch.Tensor, w: torch.Tensor, beta: torch.Tensor, *, chunk_size: int = 64
) -> torch.Tensor:
    """(..., T, T) q_iᵀ H_i ⋯ H_(j+1) k_j for j ≤ i (not divided by √d) and 0 above the diagonal.

    q, k, w (..., T, d) with each w_t of unit length for Householder maps; beta (..., T). The chunked UT
    transform of fla's naive_path_attn: inside a chunk, (I + L)⁻¹ with L = strictly lower(diag(β) W Wᵀ);
    between chunks, each query is carried back one chunk at a time by that chunk's product of H's."""
    tensor_shape("q", q, min_ndim=2)
    same_shape("k", k, "q", q)
    _check_wb(w, beta, like=q)
    chunk_size = v.integer("chunk_size", chunk_size, minimum=1, maximum=4096)
    *lead, t, d = q.shape
    c = min(chunk_size, t)
    n = -(-t // c)
    pad = n * c - t
    if pad:  # padding tokens come last and have β = 0 (H = I): they change no earlier score
        q, k, w = (nn.functional.pad(x, (0, 0, 0, pad)) for x in (q, k, w))
        beta = nn.functional.pad(beta, (0, pad))
    q, k, w = (x.reshape(*lead, n, c, d) for x in (q, k, w))
    beta = beta.reshape(*lead, n, c)
    wb = w * beta[..., None]
    eye = torch.eye(c, dtype=q.dtype, device=q.device)
    strict = torch.ones(c, c, dtype=torch.bool, device=q.device).tril(-1)
    lower = torch.ones(c, c, dtype=torch.bool, device=q.device).tril()
    unit = eye + (wb @ w.transpose(-1, -2)) * strict  # I + L, unit lower triangular
    # one solve for both right-hand sides: (I + L)⁻¹ diag(β) W and (I + L)⁻¹ [β_m w_m·k_j]_(m>j)
    rhs = torch.cat([wb, (wb @ k.transpose(-1, -2)) * strict], dim=-1)
    tinv_wb, tinv_wbk = torch.linalg.solve_triangular(unit, rhs, upper=False, unitriangular=True).split([d, c], -1)
    qw = (q @ w.transpose(-1, -2)) * lower  # q_i·w_m for m ≤ i
    local = (q @ k.transpose(-1, -2)) * lower - qw @ tinv_wbk  # scores inside each chunk
    q_in = q - qw @ tinv_wb  # q_iᵀ H_i ⋯ H_(chunk start)
    k_in = k - tinv_wbk.transpose(-1, -2) @ w  # H_(chunk end) ⋯ H_(j+1) k_j
    chunk_h = w.transpose(-1, -2) @ tinv_wb  # row vectors: r ↦ r − r·chunk_h carries r through a whole chunk
    blocks = torch.zeros(*lead, n, n, c, c, dtype=q.dtype, device=q.device)
    idx = torch.arange(n, device=q.device)
    blocks[..., idx, idx, :, :] = local
    r = q_in
    for delta in range(1, n):  # every query chunk ci ≥ delta against key chunk ci − delta
        r = r[..., 1:, :, :]  # the chunks that still have a chunk delta back
        key_chunks = k_in[..., : n - delta, :, :]
        blocks[..., idx[delta:], idx[: n - delta], :, :] = r @ key_chunks.transpose(-1, -2)
        if delta < n - 1:  # carry each query back through key chunk ci − delta
            r = r - r @ chunk_h[..., : n - delta, :, :]
    scores = blocks.transpose(-3, -2).reshape(*lead, n * c, n * c)
    return scores[..., :t, :t]


class PaTHTransform(nn.Module):
    """PaTH's position term for one attention layer: forward(h, q, k) -> logits (batch, heads, T, T).

    ``h`` (batch, T, d_model): the hidden states the layer's q, k come from; they give w_t (a low-rank
    projection, the causal short convolution, L2-normalised per head) and β_t = 2·σ(·) per head, as
    in fla's PaTHAttention. ``q``, ``k`` (batch, heads, T, head_dim). Returns
    q_iᵀ H_i ⋯ H_(j+1) k_j / √head_dim for j ≤ i, 0 above the diagonal (the caller masks it).
    ``w_rank`` None uses a full projection; ``conv_size`` 0 leaves out the convolution.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        *,
        w_rank: int | None = 32,
        conv_size: int = 3,
        chunk_size: int = 64,
    ):
        super().__init__()
        self.d_model = v.integer("d_model", d_model, minimum=1, maximum=v.MAX_DIM)
        self.n_heads = v.integer("n_heads", n_heads, minimum=1, maximum=4096)
        if self.d_model % self.n_heads:
            raise ValueError(
                f"d_model must be a multiple of n_heads = {self.n_heads} (head_dim = d_model / n_heads), "
                f"got {self.d_model}"
            )
        self.head_dim = self.d_model // self.n_heads
        self.conv_size = v.integer("conv_size", conv_size, minimum=0, maximum=64)
        self.chunk_size = v.integer("chunk_size", chunk_size, minimum=1, maximum=4096)
        if w_rank is None:
            self.w_proj: nn.Module = nn.Linear(self.d_model, self.d_model, bias=False)
        else:
            rank = v.integer("w_rank", w_rank, minimum=1, maximum=v.MAX_DIM)
            self.w_proj = nn.Sequential(
                nn.Linear(self.d_model, rank, bias=False), nn.Linear(rank, self.d_model, bias=False)
            )
        # fla's ShortConvolution: depthwise, causal (left padding only), no bias, SiLU
        self.w_conv = (
            nn.Conv1d(self.d_model, self.d_model, self.conv_size, groups=self.d_model, bias=False)
            if self.conv_size
            else None
        )
        self.beta_proj = nn.Linear(self.d_model, self.n_heads, bias=True)

    def householder(self, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(w (batch, heads, T, head_dim) of unit length, β (batch, heads, T) in (0, 2)) from h (batch, T, d_model)."""
        tensor_shape("h", h, min_ndim=3, last=self.d_model)
        b, t, _ = h.shape
        w = self.w_proj(h)
        if self.w_conv is not None:
            x = nn.functional.pad(w.transpose(1, 2), (self.conv_size - 1, 0))  # causal: past tokens only
            w = nn.functional.silu(self.w_conv(x)).transpose(1, 2)
        w = w.view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        w = nn.functional.normalize(w, dim=-1, eps=1e-6)
        beta = 2 * torch.sigmoid(self.beta_proj(h)).transpose(1, 2)
        return w, beta

    def transform(self, h: torch.Tensor, start: int = 0, end: int | None = None) -> torch.Tensor:
        """(batch, heads, head_dim, head_dim) H_end ⋯ H_(start+1) for these hidden states (the picture)."""
        w, beta = self.householder(h)
        return accumulated_transform(w, beta, start, end)

    def forward(self, h: torch.Tensor, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        w, beta = self.householder(h)
        tensor_shape("q", q, min_ndim=4, last=self.head_dim)
        if q.shape[:-1] != w.shape[:-1]:
            raise ValueError(
                f"q must have shape {(*w.shape[:-1], self.head_dim)} (batch, heads, T of h, head_dim), "
                f"got shape {tuple(q.shape)}"
            )
        scores = path_scores(q, k, w.to(q.dtype), beta.to(q.dtype), chunk_size=self.chunk_size)
        return scores / math.sqrt(self.head_dim)
