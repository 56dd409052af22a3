"""posenc.torch.ssmax against SSMax re-typed here from the paper (Nakanishi 2025, arXiv 2501.19399,
equation (2): SSMax(z)_j = n^{s z_j} / Σ_t n^{s z_t}, written with powers of n, not with the module's
logits × s·log n), plus its properties: plain softmax when s·log n = 1, causality, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.torch.ssmax import ScalableSoftmax, causal_key_counts, ssmax_scale

SETTINGS = settings(max_examples=40, deadline=None)


def reference_ssmax_row(z, n, s, b=0.0):
    """The paper's SSMax of one row z (its n entries), as powers of n: n^{s z_j} / Σ_t n^{s z_t}
    (with the bias variant, e^{(s log n + b) z_j} / Σ_t …)."""
    m = max(z)
    if b == 0.0:
        w = [n ** (s * (zj - m)) for zj in z]  # dividing numerator and denominator by n^{s·max}
    else:
        w = [math.exp((s * math.log(n) + b) * (zj - m)) for zj in z]
    total = sum(w)
    return [x / total for x in w]


def _causal_softmax(logits):
    t = logits.shape[-1]
    mask = torch.ones(t, t, dtype=torch.bool).tril()
    return torch.softmax(logits.masked_fill(~mask, float("-inf")), -1)


@SETTINGS
@given(
    b=st.integers(1, 2),
    h=st.integers(1, 3),
    t=st.integers(1, 10),
    seed=st.integers(0, 2**16),
    s=st.floats(0.05, 2.0),
    bias=st.booleans(),
)
def test_weights_equal_the_papers_powers_of_n(b, h, t, seed, s, bias):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(b, h, t, t, generator=g, dtype=torch.float64) * 2
    ss = ScalableSoftmax(h, s_init=s, bias=bias).double()
    bvals = [0.0] * h
    if bias:
        with torch.no_grad():
            ss.b.copy_(torch.linspace(-0.3, 0.4, h, dtype=torch.float64))
        bvals = ss.b.tolist()
    with torch.no_grad():
        ss.s.copy_(torch.linspace(s, s + 0.5, h, dtype=torch.float64))
    got = _causal_softmax(ss(logits)).detach().numpy()
    for bi in range(b):
        for hi in range(h):
            for i in range(t):
                row = logits[bi, hi, i, : i + 1].tolist()
                want = reference_ssmax_row(row, i + 1, ss.s[hi].item(), bvals[hi])  # causal: n = i + 1
                np.testing.assert_allclose(got[bi, hi, i, : i + 1], want, rtol=1e-10, atol=1e-13)
                assert not got[bi, hi, i, i + 1 :].any()


@SETTINGS
@given(t=st.integers(2, 12), i=st.integers(1, 11), seed=st.integers(0, 2**16))
def test_plain_softmax_where_s_log_n_is_one(t, i, seed):
    """Choose s = 1/log n for row i's n = i + 1: that row is the plain softmax of the logits."""
    i = min(i, t - 1)
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(1, 2, t, t, generator=g, dtype=torch.float64)
    ss = ScalableSoftmax(2).double()
    with torch.no_grad():
        ss.s.fill_(1 / math.log(i + 1))  # in float64 (s_init is stored in float32 first)
    got = _causal_softmax(ss(logits))[..., i, :]
    want = _causal_softmax(logits)[..., i, :]
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-14)
    assert ss.scale(torch.tensor([float(i + 1)]))[:, 0].tolist() == pytest.approx([1.0, 1.0], abs=1e-15)


def test_given_key_counts_override_the_causal_ones():
    logits = torch.ones(1, 1, 3, 3, dtype=torch.float64)
    ss = ScalableSoftmax(1, s_init=0.5).double()
    got = ss(logits, n=torch.tensor([10.0, 100.0, 1000.0], dtype=torch.float64))
    np.testing.assert_allclose(got[0, 0, :, 0].detach().numpy(), [0.5 * math.log(n) for n in (10, 100, 1000)])
    np.testing.assert_array_equal(causal_key_counts(4).numpy(), [1, 2, 3, 4])
    np.testing.assert_array_equal(causal_key_counts(3, offset=5).numpy(), [6, 7, 8])


@SETTINGS
@given(t=st.integers(2, 10), cut=st.integers(1, 9), seed=st.integers(0, 2**16))
def test_a_later_token_changes_no_earlier_row(t, cut, seed):
    cut = min(cut, t - 1)
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(2, 2, t, t, generator=g, dtype=torch.float64)
    ss = ScalableSoftmax(2).double()
    before = _causal_softmax(ss(logits)).detach()
    changed = logits.clone()
    changed[..., cut:, :] += 4.0  # later queries
    changed[..., :, cut:] -= 2.0  # later keys (masked for the earlier rows)
    after = _causal_softmax(ss(changed)).detach()
    torch.testing.assert_close(after[..., :cut, :], before[..., :cut, :], rtol=0, atol=0)


def test_the_maximum_weight_does_not_fade_with_n_when_s_is_positive():
    """The paper's figure 1: one entry +3, the others −2; Softmax's maximum falls towards 0 as n grows,
    SSMax's (s = 0.43) stays near 1 (here > 0.9 at n = 16 … 65 536, while Softmax's falls to e⁵/(n − 1 + e⁵) < 0.01)."""
    for n in (16, 256, 4096, 65536):
        z = torch.full((n,), -2.0, dtype=torch.float64)
        z[-1] = 3.0
        plain = torch.softmax(z, 0)[-1].item()
        scaled = torch.softmax(ssmax_scale(torch.tensor(float(n)), torch.tensor(0.43, dtype=torch.float64)) * z, 0)
        assert scaled[-1].item() > 0.9
        assert plain == pytest.approx(math.e**5 / (n - 1 + math.e**5), rel=1e-12)  # fades as n grows
    assert plain < 0.01


def test_bad_arguments_name_the_parameter_rule_and_value():
    with pytest.raises(ValueError, match="n_heads must be >= 1, got 0"):
        ScalableSoftmax(0)
    with pytest.raises(ValueError, match="s_init must be a finite number, got nan"):
        ScalableSoftmax(2, s_init=float("nan"))
    ss = ScalableSoftmax(2)
    with pytest.raises(
        ValueError, match=r"logits must have 2 heads in dimension −3 \(n_heads\), got shape \(1, 3, 4, 4\)"
    ):
        ss(torch.zeros(1, 3, 4, 4))
    with pytest.raises(ValueError, match=r"n must have shape \(4,\), one key count per query, got shape \(3,\)"):
        ss(torch.zeros(1, 2, 4, 4), n=torch.ones(3))
    with pytest.raises(ValueError, match=r"n must be >= 1 \(a query attends to at least one key\), got 0"):
        ss(torch.zeros(1, 2, 2, 2), n=torch.tensor([0.0, 1.0]))
    with pytest.raises(ValueError, match="t must be >= 1, got 0"):
        causal_key_counts(0)
