"""posenc.torch.cope against a loop re-typed here from the CoPE paper (Golovneva et al. 2024, arXiv
2405.18719, section 3) and its reference code (facebookresearch/RAM,
projects/cope/src/cope/context_position.py, ContextPosSelfAttn.forward with cope_sep_key and
cope_nodiv off), plus the paper's properties: positions never increase towards the query, all gates
1 give plain relative positions, and the layer is causal."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.torch.cope import ContextualPositionEncoding, cope_gates, cope_positions

SETTINGS = settings(max_examples=30, deadline=None)


def reference_cope_logits(q, k, emb, npos_max):
    """The paper's formula one entry at a time (float64 numpy): q, k (T, d); emb (d, npos).
    Returns (logits (T, T) for j ≤ i, NaN above; positions (T, T), NaN above)."""
    t, d = q.shape
    logits = np.full((t, t), np.nan)
    positions = np.full((t, t), np.nan)
    for i in range(t):
        gates = [1.0 / (1.0 + math.exp(-float(q[i] @ k[s]) / math.sqrt(d))) for s in range(i + 1)]
        for j in range(i + 1):
            p = min(sum(gates[j : i + 1]), npos_max - 1)  # p_ij = Σ_{t=j}^{i} g_it, clamped
            lo, hi = math.floor(p), math.ceil(p)
            w = p - lo
            z = (1 - w) * float(q[i] @ emb[:, lo]) + w * float(q[i] @ emb[:, hi])
            logits[i, j] = (float(q[i] @ k[j]) + z) / math.sqrt(d)  # (q·k + z)/√d: cope_nodiv off
            positions[i, j] = p
    return logits, positions


def _module(d, npos, seed):
    g = torch.Generator().manual_seed(seed)
    cope = ContextualPositionEncoding(d, npos).double()
    with torch.no_grad():
        cope.pos_emb.copy_(torch.randn(d, npos, generator=g, dtype=torch.float64))
    return cope


def _qk(b, h, t, d, seed, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(b, h, t, d, generator=g, dtype=torch.float64) * scale
    k = torch.randn(b, h, t, d, generator=g, dtype=torch.float64) * scale
    return q, k


@SETTINGS
@given(
    b=st.integers(1, 2),
    h=st.integers(1, 3),
    t=st.integers(1, 9),
    d=st.integers(1, 6),
    npos=st.integers(2, 12),
    scale=st.sampled_from([0.3, 1.0, 3.0]),
    seed=st.integers(0, 2**16),
)
def test_logits_equal_the_papers_formula_entry_by_entry(b, h, t, d, npos, scale, seed):
    q, k = _qk(b, h, t, d, seed, scale)
    cope = _module(d, npos, seed + 1)
    base = q @ k.transpose(-1, -2) / math.sqrt(d)
    got = cope(q, k, base).detach().numpy()
    got_pos = cope.positions(q, k).numpy()
    for bi in range(b):
        for hi in range(h):
            want, want_pos = reference_cope_logits(
                q[bi, hi].numpy(), k[bi, hi].numpy(), cope.pos_emb.detach().numpy(), npos
            )
            low = np.tril(np.ones((t, t), dtype=bool))
            np.testing.assert_allclose(got[bi, hi][low], want[low], rtol=1e-10, atol=1e-10)
            np.testing.assert_allclose(got_pos[bi, hi][low], want_pos[low], rtol=1e-12, atol=1e-12)


@SETTINGS
@given(t=st.integers(1, 12), d=st.integers(1, 6), seed=st.integers(0, 2**16))
def test_positions_never_increase_towards_the_query(t, d, seed):
    q, k = _qk(1, 2, t, d, seed, 2.0)
    pos = cope_positions(cope_gates(q, k)).numpy()
    for i in range(t):
        row = pos[..., i, : i + 1]
        assert np.all(np.diff(row, axis=-1) <= 1e-12), row  # p_i0 ≥ p_i1 ≥ … ≥ p_ii
        assert np.all(row > 0) and np.all(row <= i + 1 + 1e-12)  # each gate in (0, 1)
    assert np.all(pos[..., np.triu_indices(t, 1)[0], np.triu_indices(t, 1)[1]] == 0)  # no future key counts


@SETTINGS
@given(t=st.integers(1, 16), npos=st.integers(2, 20))
def test_all_gates_one_give_plain_relative_positions(t, npos):
    gates = torch.ones(t, t, dtype=torch.float64).tril()
    pos = cope_positions(gates, npos).numpy()
    i, j = np.tril_indices(t)
    # every token from key j up to the query counts: p_ij = i − j + 1, the relative position plus one
    np.testing.assert_array_equal(pos[i, j], np.minimum(i - j + 1, npos - 1))


def test_saturated_gates_in_the_module_give_relative_positions_and_integer_embeddings():
    """q = k = a large multiple of one vector: every σ(q·k/√d) rounds to 1, so p_ij = i − j + 1
    and z_ij = q_i·e[i − j + 1] exactly (no interpolation)."""
    t, d, npos = 6, 4, 10
    q = torch.full((1, 1, t, d), 40.0, dtype=torch.float64)
    cope = _module(d, npos, 7)
    pos = cope.positions(q, q)[0, 0].numpy()
    z = cope.position_logits(q, q)[0, 0].detach().numpy()
    emb = cope.pos_emb.detach().numpy()
    for i in range(t):
        for j in range(i + 1):
            assert pos[i, j] == i - j + 1
            assert z[i, j] == pytest.approx(float(q[0, 0, i].numpy() @ emb[:, i - j + 1]), rel=1e-12)


@SETTINGS
@given(t=st.integers(2, 10), d=st.integers(1, 5), cut=st.integers(1, 9), seed=st.integers(0, 2**16))
def test_a_later_token_changes_no_earlier_row(t, d, cut, seed):
    cut = min(cut, t - 1)
    q, k = _qk(2, 2, t, d, seed)
    cope = _module(d, t + 1, seed)
    base = q @ k.transpose(-1, -2) / math.sqrt(d)
    before = cope(q, k, base).detach()
    q2, k2 = q.clone(), k.clone()
    q2[..., cut:, :] += 5.0
    k2[..., cut:, :] -= 3.0
    after = cope(q2, k2, q2 @ k2.transpose(-1, -2) / math.sqrt(d)).detach()
    low = torch.ones(t, t, dtype=torch.bool).tril()
    rows = torch.arange(t)[:, None] < cut
    same = low & rows
    torch.testing.assert_close(after[..., same], before[..., same], rtol=0, atol=0)
    soft_before = torch.softmax(before.masked_fill(~low, float("-inf")), -1)[..., :cut, :]
    soft_after = torch.softmax(after.masked_fill(~low, float("-inf")), -1)[..., :cut, :]
    torch.testing.assert_close(soft_after, soft_before, rtol=0, atol=0)


def test_gradients_reach_the_embeddings_and_the_gates():
    q, k = _qk(1, 2, 5, 4, 3)
    q.requires_grad_(True)
    cope = ContextualPositionEncoding(4, 6).double()
    with torch.no_grad():
        cope.pos_emb.normal_()
    cope(q, k, torch.zeros(1, 2, 5, 5, dtype=torch.float64)).tril().sum().backward()
    assert cope.pos_emb.grad is not None and cope.pos_emb.grad.abs().sum() > 0
    assert q.grad is not None and q.grad.abs().sum() > 0


def test_starts_at_zero_like_the_reference():
    cope = ContextualPositionEncoding(8, 17)
    assert cope.pos_emb.shape == (8, 17) and not cope.pos_emb.detach().any()


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        (dict(head_dim=0, npos_max=4), "head_dim must be >= 1, got 0"),
        (dict(head_dim=4, npos_max=1), "npos_max must be >= 2, got 1"),
        (dict(head_dim=4, npos_max=2.5), "npos_max must be an integer, got 2.5"),
    ],
)
def test_bad_constructor_arguments_name_the_parameter_rule_and_value(kwargs, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        ContextualPositionEncoding(**kwargs)


def test_bad_tensors_name_the_argument_rule_and_value():
    cope = ContextualPositionEncoding(4, 8)
    q = torch.zeros(1, 1, 3, 4)
    with pytest.raises(ValueError, match=r"q must have last dimension 4, got shape \(1, 1, 3, 5\)"):
        cope(torch.zeros(1, 1, 3, 5), torch.zeros(1, 1, 3, 5), torch.zeros(1, 1, 3, 3))
    with pytest.raises(ValueError, match=r"k must have the same shape as q \(1, 1, 3, 4\), got shape \(1, 1, 2, 4\)"):
        cope(q, torch.zeros(1, 1, 2, 4), torch.zeros(1, 1, 3, 3))
    with pytest.raises(ValueError, match=r"logits must end with dimensions \(3, 3\), got shape \(1, 1, 3, 2\)"):
        cope(q, q, torch.zeros(1, 1, 3, 2))
    with pytest.raises(ValueError, match=r"npos_max must be >= 2, got 0"):
        cope_positions(torch.ones(2, 2), 0)
