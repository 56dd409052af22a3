"""The four newer posenc.torch encodings (issue #39) inside one causal attention layer written the way
posenc.lab.model's _Block writes it (qkv from one linear, (batch, heads, T, head_dim), logits q·kᵀ/√d,
causal mask, softmax): each plugs in at its place, the layer stays causal end to end, gradients
reach every parameter, and a few optimiser steps lower the loss on a copy task."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch import nn

from posenc.torch import ContextualPositionEncoding, FourierPositionEmbedding, PaTHTransform, ScalableSoftmax

D, H, T_TRAIN = 16, 2, 12


class Layer(nn.Module):
    def __init__(self, kind: str):
        super().__init__()
        self.kind = kind
        self.embed = nn.Embedding(8, D)
        self.ln = nn.LayerNorm(D)
        self.qkv = nn.Linear(D, 3 * D)
        self.out = nn.Linear(D, 8)
        hd = D // H
        if kind == "cope":
            self.pe = ContextualPositionEncoding(hd, npos_max=T_TRAIN + 1)
        elif kind == "fope":
            self.pe = FourierPositionEmbedding(hd, train_len=T_TRAIN, n_heads=H, base=100.0)
        elif kind == "path":
            self.pe = PaTHTransform(D, H, w_rank=4, chunk_size=5)
        else:
            self.pe = ScalableSoftmax(H)

    def forward(self, tokens):
        b, t = tokens.shape
        h = self.ln(self.embed(tokens))
        q, k, v = self.qkv(h).view(b, t, 3, H, D // H).permute(2, 0, 3, 1, 4)
        if self.kind == "fope":  # rotates q and k, as RoPE does
            q, k = self.pe(q, np.arange(t)), self.pe(k, np.arange(t))
        if self.kind == "path":  # replaces the logits
            logits = self.pe(h, q, k)
        else:
            logits = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        if self.kind == "cope":  # adds a term to the logits
            logits = self.pe(q, k, logits)
        if self.kind == "ssmax":  # scales each row by s·log n
            logits = self.pe(logits)
        mask = torch.ones(t, t, dtype=torch.bool).triu(1)
        att = torch.softmax(logits.masked_fill(mask, float("-inf")), -1)
        y = (att @ v).transpose(1, 2).reshape(b, t, D)
        return self.out(h + y)


KINDS = ["cope", "fope", "path", "ssmax"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_layer_is_causal_end_to_end(kind):
    torch.manual_seed(0)
    layer = Layer(kind).double()
    tokens = torch.randint(0, 8, (3, 10))
    before = layer(tokens).detach()
    changed = tokens.clone()
    changed[:, 6:] = (changed[:, 6:] + 3) % 8
    after = layer(changed).detach()
    torch.testing.assert_close(after[:, :6], before[:, :6], rtol=0, atol=1e-12)
    assert not torch.allclose(after[:, 6:], before[:, 6:])


@pytest.mark.parametrize("kind", KINDS)
def test_gradients_reach_the_encodings_parameters_and_training_lowers_the_loss(kind):
    torch.manual_seed(1)
    layer = Layer(kind)
    opt = torch.optim.Adam(layer.parameters(), lr=1e-2)
    gen = torch.Generator().manual_seed(2)

    def loss_of_batch():
        x = torch.randint(0, 8, (16, T_TRAIN), generator=gen)
        y = torch.roll(x, 1, dims=1)  # predict the previous token: needs position or order
        y[:, 0] = -1
        logits = layer(x)
        return nn.functional.cross_entropy(logits.reshape(-1, 8), y.reshape(-1), ignore_index=-1)

    first = loss_of_batch()
    first.backward()
    for name, p in layer.pe.named_parameters():
        assert p.grad is not None and torch.isfinite(p.grad).all() and p.grad.abs().sum() > 0, name
    opt.step()
    for _ in range(40):
        opt.zero_grad()
        loss = loss_of_batch()
        loss.backward()
        opt.step()
    assert math.isfinite(loss.item()) and loss.item() < first.item() - 0.2, (first.item(), loss.item())
