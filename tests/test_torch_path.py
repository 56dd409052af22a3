"""posenc.torch.path against PaTH re-typed here as a loop from the paper (Yang et al. 2025, arXiv
2505.16381, section 2: logit q_iᵀ H_i ⋯ H_(j+1) k_j with H_t = I − β_t w_t w_tᵀ) in the form of fla's
decoding path (fla-org/flash-linear-attention, fla/layers/path_attn.py, rank_one_update: each new
token t updates every earlier key, k_j ← k_j − β_t (k_j·w_t) w_t, and appends its own key unchanged),
which shares nothing with the module's chunked UT transform; plus the paper's properties: β = 2 gives
an orthogonal product (Householder reflections), β = 0 the identity (NoPE), causality, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.torch.path import PaTHTransform, accumulated_transform, path_scores

SETTINGS = settings(max_examples=30, deadline=None)


def reference_path_scores(q, k, w, beta):
    """Decoding order, one token at a time (float64 numpy): q, k, w (T, d), beta (T,).
    Returns (T, T) scores for j ≤ i and NaN above."""
    t = q.shape[0]
    keys = []  # keys seen so far, each already carried forward to the current token
    out = np.full((t, t), np.nan)
    for i in range(t):
        for j in range(len(keys)):  # token i's H_i acts on every earlier key
            keys[j] = keys[j] - beta[i] * float(keys[j] @ w[i]) * w[i]
        keys.append(k[i].copy())  # its own key: no transformation at j = i
        for j in range(i + 1):
            out[i, j] = float(q[i] @ keys[j])
    return out


def _inputs(lead, t, d, seed, beta_range=(0.0, 2.0)):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(*lead, t, d, generator=g, dtype=torch.float64)
    k = torch.randn(*lead, t, d, generator=g, dtype=torch.float64)
    w = nn_normalize(torch.randn(*lead, t, d, generator=g, dtype=torch.float64))
    lo, hi = beta_range
    beta = lo + (hi - lo) * torch.rand(*lead, t, generator=g, dtype=torch.float64)
    return q, k, w, beta


def nn_normalize(x):
    return x / x.norm(dim=-1, keepdim=True)


@SETTINGS
@given(
    b=st.integers(1, 2),
    h=st.integers(1, 2),
    t=st.integers(1, 11),
    d=st.integers(1, 6),
    chunk=st.integers(1, 6) | st.just(64),
    seed=st.integers(0, 2**16),
)
def test_scores_equal_the_token_by_token_householder_updates(b, h, t, d, chunk, seed):
    q, k, w, beta = _inputs((b, h), t, d, seed)
    got = path_scores(q, k, w, beta, chunk_size=chunk).numpy()
    low = np.tril(np.ones((t, t), dtype=bool))
    for bi in range(b):
        for hi in range(h):
            want = reference_path_scores(q[bi, hi].numpy(), k[bi, hi].numpy(), w[bi, hi].numpy(), beta[bi, hi].numpy())
            np.testing.assert_allclose(got[bi, hi][low], want[low], rtol=1e-9, atol=1e-10)
            assert not got[bi, hi][~low].any()  # 0 above the diagonal


@SETTINGS
@given(t=st.integers(1, 9), d=st.integers(1, 5), seed=st.integers(0, 2**16), data=st.data())
def test_the_accumulated_transform_is_the_product_of_householder_matrices(t, d, seed, data):
    _, _, w, beta = _inputs((2,), t, d, seed)
    start = data.draw(st.integers(0, t - 1))
    end = data.draw(st.integers(start, t - 1))
    got = accumulated_transform(w, beta, start, end).numpy()
    for b in range(2):
        want = np.eye(d)
        for s in range(start + 1, end + 1):  # H_end ⋯ H_(start+1): later tokens on the left
            ws = w[b, s].numpy()
            want = (np.eye(d) - beta[b, s].item() * np.outer(ws, ws)) @ want
        np.testing.assert_allclose(got[b], want, rtol=1e-12, atol=1e-12)


@SETTINGS
@given(t=st.integers(1, 9), d=st.integers(1, 6), seed=st.integers(0, 2**16), data=st.data())
def test_beta_two_is_a_product_of_reflections_so_orthogonal(t, d, seed, data):
    _, _, w, _ = _inputs((2,), t, d, seed)
    beta = torch.full((2, t), 2.0, dtype=torch.float64)
    start = data.draw(st.integers(0, t - 1))
    end = data.draw(st.integers(start, t - 1))
    p = accumulated_transform(w, beta, start, end)
    eye = torch.eye(d, dtype=torch.float64).expand(2, d, d)
    torch.testing.assert_close(p.transpose(-1, -2) @ p, eye, rtol=0, atol=1e-12)
    dets = torch.linalg.det(p)  # each reflection has determinant −1
    torch.testing.assert_close(dets, torch.full((2,), (-1.0) ** (end - start), dtype=torch.float64))


@SETTINGS
@given(t=st.integers(1, 9), d=st.integers(1, 6), seed=st.integers(0, 2**16))
def test_beta_zero_is_the_identity_and_plain_dot_products(t, d, seed):
    q, k, w, _ = _inputs((2,), t, d, seed)
    beta = torch.zeros(2, t, dtype=torch.float64)
    p = accumulated_transform(w, beta)
    torch.testing.assert_close(p, torch.eye(d, dtype=torch.float64).expand(2, d, d), rtol=0, atol=0)
    torch.testing.assert_close(path_scores(q, k, w, beta, chunk_size=3), torch.tril(q @ k.transpose(-1, -2)))


def test_a_general_beta_scales_w_by_one_minus_beta():
    """H = I − βwwᵀ has eigenvalue 1 − β on w and 1 on w's complement: β ∈ (1, 2) flips w's sign."""
    w = nn_normalize(torch.tensor([[0.0, 0.0], [3.0, 4.0]], dtype=torch.float64))
    for b in (0.25, 1.0, 1.5):
        beta = torch.tensor([0.0, b], dtype=torch.float64)
        p = accumulated_transform(w, beta)
        torch.testing.assert_close(p @ w[1], (1 - b) * w[1])
        ortho = torch.tensor([-4.0, 3.0], dtype=torch.float64) / 5
        torch.testing.assert_close(p @ ortho, ortho)


def _layer(d_model, heads, seed, **kw):
    torch.manual_seed(seed)
    return PaTHTransform(d_model, heads, **kw).double()


@SETTINGS
@given(
    t=st.integers(2, 10),
    cut=st.integers(1, 9),
    conv=st.integers(0, 4),
    rank=st.sampled_from([None, 3]),
    seed=st.integers(0, 2**16),
)
def test_a_later_token_changes_no_earlier_row(t, cut, conv, rank, seed):
    cut = min(cut, t - 1)
    layer = _layer(8, 2, seed, conv_size=conv, w_rank=rank, chunk_size=3)
    g = torch.Generator().manual_seed(seed)
    hidden = torch.randn(2, t, 8, generator=g, dtype=torch.float64)
    q = torch.randn(2, 2, t, 4, generator=g, dtype=torch.float64)
    k = torch.randn(2, 2, t, 4, generator=g, dtype=torch.float64)
    before = layer(hidden, q, k).detach()
    h2, q2, k2 = hidden.clone(), q.clone(), k.clone()
    h2[:, cut:] += 2.0
    q2[..., cut:, :] -= 1.0
    k2[..., cut:, :] += 1.5
    after = layer(h2, q2, k2).detach()
    torch.testing.assert_close(after[..., :cut, :], before[..., :cut, :], rtol=0, atol=1e-13)


def test_the_layer_uses_its_householder_vectors_and_divides_by_sqrt_d():
    layer = _layer(12, 3, 0)
    g = torch.Generator().manual_seed(1)
    hidden = torch.randn(2, 7, 12, generator=g, dtype=torch.float64)
    q = torch.randn(2, 3, 7, 4, generator=g, dtype=torch.float64)
    k = torch.randn(2, 3, 7, 4, generator=g, dtype=torch.float64)
    w, beta = layer.householder(hidden)
    torch.testing.assert_close(w.norm(dim=-1), torch.ones(2, 3, 7, dtype=torch.float64))
    assert beta.shape == (2, 3, 7) and bool(((beta > 0) & (beta < 2)).all())
    got = layer(hidden, q, k).detach().numpy()
    for b in range(2):
        for h in range(3):
            want = reference_path_scores(
                q[b, h].numpy(), k[b, h].numpy(), w[b, h].detach().numpy(), beta[b, h].detach().numpy()
            )
            low = np.tril(np.ones((7, 7), dtype=bool))
            np.testing.assert_allclose(got[b, h][low], want[low] / math.sqrt(4), rtol=1e-9, atol=1e-10)
    t = layer.transform(hidden, 2, 5)
    assert t.shape == (2, 3, 4, 4)


def test_gradients_reach_w_beta_and_the_queries():
    layer = PaTHTransform(8, 2, chunk_size=2)
    hidden = torch.randn(1, 5, 8)
    q = torch.randn(1, 2, 5, 4, requires_grad=True)
    k = torch.randn(1, 2, 5, 4)
    layer(hidden, q, k).sum().backward()
    assert q.grad is not None and q.grad.abs().sum() > 0
    for p in (layer.beta_proj.weight, layer.w_proj[0].weight, layer.w_conv.weight):
        assert p.grad is not None and p.grad.abs().sum() > 0


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        (
            dict(d_model=10, n_heads=3),
            r"d_model must be a multiple of n_heads = 3 \(head_dim = d_model / n_heads\), got 10",
        ),
        (dict(d_model=8, n_heads=0), r"n_heads must be >= 1, got 0"),
        (dict(d_model=8, n_heads=2, conv_size=-1), r"conv_size must be >= 0, got -1"),
        (dict(d_model=8, n_heads=2, w_rank=0), r"w_rank must be >= 1, got 0"),
        (dict(d_model=8, n_heads=2, chunk_size=0), r"chunk_size must be >= 1, got 0"),
    ],
)
def test_bad_constructor_arguments_name_the_parameter_rule_and_value(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        PaTHTransform(**kwargs)


def test_bad_tensors_name_the_argument_rule_and_value():
    q = torch.zeros(1, 2, 3, 4)
    w = torch.zeros(1, 2, 3, 4)
    with pytest.raises(ValueError, match=r"k must have the same shape as q \(1, 2, 3, 4\), got shape \(1, 2, 3, 5\)"):
        path_scores(q, torch.zeros(1, 2, 3, 5), w, torch.zeros(1, 2, 3))
    with pytest.raises(
        ValueError, match=r"beta must have shape \(1, 2, 3\) \(one β per token of w\), got shape \(1, 2, 4\)"
    ):
        path_scores(q, q, w, torch.zeros(1, 2, 4))
    with pytest.raises(ValueError, match=r"end must be <= 2, got 3"):
        accumulated_transform(w, torch.zeros(1, 2, 3), 0, 3)
    with pytest.raises(ValueError, match=r"end must be >= 2, got 1"):
        accumulated_transform(w, torch.zeros(1, 2, 3), 2, 1)
    layer = PaTHTransform(8, 2)
    with pytest.raises(ValueError, match=r"h must have last dimension 8, got shape \(1, 3, 6\)"):
        layer(torch.zeros(1, 3, 6), q, q)
    with pytest.raises(
        ValueError,
        match=r"q must have shape \(1, 2, 3, 4\) \(batch, heads, T of h, head_dim\), got shape \(1, 2, 4, 4\)",
    ):
        layer(torch.zeros(1, 3, 8), torch.zeros(1, 2, 4, 4), torch.zeros(1, 2, 4, 4))
