"""posenc.torch.fope against FoPE re-typed here as a loop from the paper (Hua et al. 2024, arXiv
2412.17739, section 4) and vLLM's FourierRotaryEmbedding (vllm/model_executor/layers/rotary_embedding/
fope.py: kept frequencies ω > 2π/L, cos_i = Σ_j C_ji cos(ω_j t), sin_i = Σ_j S_ji sin(ω_j t), the
pairs past the kept ones padded with cos 1 and sin 0, neox rotation), plus the paper's properties:
RoPE when nothing is added or clipped, the clipped frequencies are exactly those whose wavelength
exceeds L, the identity start, causality (a position-wise rotation), errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.torch import RotaryEmbedding
from posenc.torch.fope import FourierPositionEmbedding, fope_frequencies

SETTINGS = settings(max_examples=30, deadline=None)


def reference_fope(x, positions, cos_coef, sin_coef, *, fourier_dim, base, train_len, clip):
    """One entry at a time (float64 numpy). x (H, T, hd); coefficients (H, kept, rotating)."""
    h_count, t_count, hd = x.shape
    half = hd // 2
    grid = [base ** (-2 * j / fourier_dim) for j in range(fourier_dim // 2)]
    kept = [w for w in grid if not (clip and w < 2 * math.pi / train_len)]  # vLLM: inv_freq > 2π/L kept
    step = fourier_dim // hd
    out = np.empty_like(x)
    for h in range(h_count):
        hc = 0 if cos_coef.shape[0] == 1 else h
        for t in range(t_count):
            p = positions[t]
            for i in range(half):
                if step * i < len(kept):  # pair i's own frequency (grid point step·i) is kept
                    c = sum(cos_coef[hc, j, i] * math.cos(kept[j] * p) for j in range(len(kept)))
                    s = sum(sin_coef[hc, j, i] * math.sin(kept[j] * p) for j in range(len(kept)))
                else:  # zero frequency: cos 1, sin 0
                    c, s = 1.0, 0.0
                a, b = x[h, t, i], x[h, t, i + half]
                out[h, t, i] = a * c - b * s
                out[h, t, i + half] = b * c + a * s
    return out


@SETTINGS
@given(
    half=st.integers(1, 5),
    step=st.integers(1, 3),
    heads=st.integers(1, 3),
    shared=st.booleans(),
    t=st.integers(1, 8),
    train_len=st.integers(1, 300),
    base=st.sampled_from([10.0, 100.0, 10000.0]),
    clip=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_rotation_equals_the_fourier_series_entry_by_entry(half, step, heads, shared, t, train_len, base, clip, seed):
    hd = 2 * half
    torch.manual_seed(seed)
    fope = FourierPositionEmbedding(
        hd, train_len=train_len, n_heads=1 if shared else heads, base=base, fourier_dim=step * hd, clip=clip
    ).double()
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(2, heads, t, hd, generator=g, dtype=torch.float64)
    positions = np.arange(t) * 3 + 1.5
    got = fope(x, positions).detach().numpy()
    for b in range(2):
        want = reference_fope(
            x[b].numpy(),
            positions,
            fope.cos_coef.detach().numpy(),
            fope.sin_coef.detach().numpy(),
            fourier_dim=step * hd,
            base=base,
            train_len=train_len,
            clip=clip,
        )
        np.testing.assert_allclose(got[b], want, rtol=1e-10, atol=1e-12)


@SETTINGS
@given(half=st.integers(1, 8), base=st.sampled_from([10.0, 500.0, 10000.0]), t=st.integers(1, 12))
def test_no_extra_frequencies_nothing_clipped_and_no_noise_is_rope(half, base, t):
    hd = 2 * half
    longest = 2 * math.pi * base ** ((hd - 2) / hd)  # the lowest RoPE frequency's wavelength
    rope = RotaryEmbedding(hd, rope_parameters={"rope_type": "default", "rope_theta": base}, layout="half")
    g = torch.Generator().manual_seed(t)
    x = torch.randn(1, 3, t, hd, generator=g, dtype=torch.float64)
    positions = np.arange(t) + 5.0
    want = rope(x, positions)
    for fope in (
        FourierPositionEmbedding(hd, train_len=2, base=base, init_std=0.0, clip=False),
        FourierPositionEmbedding(hd, train_len=math.ceil(longest), base=base, init_std=0.0),  # clips nothing
    ):
        assert not fope.clipped.any()
        torch.testing.assert_close(fope(x, positions), want, rtol=1e-12, atol=1e-12)


@SETTINGS
@given(half=st.integers(1, 8), base=st.sampled_from([10.0, 500.0, 10000.0]), train_len=st.integers(1, 4000))
def test_no_noise_with_clipping_is_rope_with_the_long_wavelengths_set_to_zero(half, base, train_len):
    hd = 2 * half
    inv = np.array([base ** (-2 * i / hd) for i in range(half)])
    inv[2 * np.pi / inv > train_len] = 0.0  # wavelength > L: frequency 0
    g = torch.Generator().manual_seed(train_len)
    x = torch.randn(2, 5, hd, generator=g, dtype=torch.float64)
    positions = np.arange(5) * 17.0
    fope = FourierPositionEmbedding(hd, train_len=train_len, base=base, init_std=0.0)
    ang = np.outer(positions, inv)
    xn = x.numpy()
    want = np.concatenate(
        [
            xn[..., :half] * np.cos(ang) - xn[..., half:] * np.sin(ang),
            xn[..., half:] * np.cos(ang) + xn[..., :half] * np.sin(ang),
        ],
        axis=-1,
    )
    np.testing.assert_allclose(fope(x, positions).detach().numpy(), want, rtol=1e-12, atol=1e-12)


@SETTINGS
@given(
    fourier_dim=st.integers(1, 64).map(lambda n: 2 * n),
    base=st.floats(1.5, 1e6),
    train_len=st.integers(1, 100_000),
)
def test_the_clipped_frequencies_are_exactly_those_longer_than_the_training_length(fourier_dim, base, train_len):
    freqs, clipped = fope_frequencies(fourier_dim, base=base, train_len=train_len)
    for j in range(fourier_dim // 2):
        w = base ** (-2 * j / fourier_dim)
        assert freqs[j].item() == pytest.approx(w, rel=1e-12)
        wavelength = 2 * math.pi / w
        if not math.isclose(wavelength, train_len, rel_tol=1e-12):  # exactly at L: rounding decides
            assert bool(clipped[j]) == (wavelength > train_len), (j, wavelength, train_len)


def test_the_extra_frequencies_sit_between_ropes_and_start_at_zero_weight():
    """fourier_dim = 3·head_dim: grid point 3i is RoPE's pair-i frequency, the identity starts there,
    and with σ = 0 the extra frequencies carry no weight (FoPE = RoPE at the start)."""
    hd, base = 8, 10000.0
    fope = FourierPositionEmbedding(hd, train_len=10**6, base=base, fourier_dim=3 * hd, init_std=0.0)
    rope_freqs = [base ** (-2 * i / hd) for i in range(hd // 2)]
    np.testing.assert_allclose(fope.frequencies[::3].numpy(), rope_freqs, rtol=1e-13)
    assert fope.cos_coef.shape == (1, 12, 4)
    for i in range(4):
        assert fope.cos_coef[0, 3 * i, i].item() == 1.0
        assert fope.sin_coef[0, :, i].sum().item() == 1.0
    torch.manual_seed(0)
    noisy = FourierPositionEmbedding(hd, train_len=64, n_heads=2, fourier_dim=2 * hd, init_std=0.3)
    kept = int((~noisy.clipped).sum())
    assert noisy.sin_coef.shape == (2, kept, math.ceil(kept / 2))
    eye = torch.zeros(kept, noisy.n_rotating)
    for i in range(noisy.n_rotating):
        eye[2 * i, i] = 1.0  # pair i's own frequency is grid point 2i
    noise = (noisy.sin_coef - eye).detach()
    assert 0.15 < noise.std().item() < 0.45  # σ = 0.3 around the identity


@SETTINGS
@given(t=st.integers(2, 10), cut=st.integers(1, 9), seed=st.integers(0, 2**16))
def test_a_later_token_changes_no_earlier_row(t, cut, seed):
    cut = min(cut, t - 1)
    torch.manual_seed(seed)
    fope = FourierPositionEmbedding(8, train_len=16, n_heads=2).double()
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(1, 2, t, 8, generator=g, dtype=torch.float64)
    before = fope(x, np.arange(t)).detach()
    x2 = x.clone()
    x2[..., cut:, :] += 3.0
    after = fope(x2, np.arange(t)).detach()
    torch.testing.assert_close(after[..., :cut, :], before[..., :cut, :], rtol=0, atol=0)


def test_gradients_reach_the_coefficients():
    fope = FourierPositionEmbedding(8, train_len=32, n_heads=2)
    x = torch.randn(1, 2, 6, 8)
    fope(x, np.arange(6)).square().sum().backward()
    assert fope.sin_coef.grad is not None and fope.sin_coef.grad.abs().sum() > 0
    assert fope.cos_coef.grad is not None and fope.cos_coef.grad.abs().sum() > 0


def test_everything_clipped_is_no_position_at_all():
    fope = FourierPositionEmbedding(8, train_len=6)  # 2π/6 > 1 = the highest frequency: all clipped
    assert fope.clipped.all() and fope.n_rotating == 0
    x = torch.randn(1, 1, 4, 8)
    torch.testing.assert_close(fope(x, np.arange(4)), x, rtol=0, atol=0)


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        (dict(head_dim=7, train_len=8), r"head_dim must be even \(coordinates rotate in pairs\), got 7"),
        (dict(head_dim=8, train_len=0), r"train_len must be >= 1, got 0"),
        (dict(head_dim=8, train_len=8, base=1.0), r"base must be a finite number > 1, got 1.0"),
        (
            dict(head_dim=8, train_len=8, fourier_dim=12),
            r"fourier_dim must be a multiple of head_dim = 8 \(so that every RoPE frequency is on its grid\) "
            r"and at most 64·head_dim = 512, got 12",
        ),
        (dict(head_dim=8, train_len=8, init_std=-0.1), r"init_std must be a finite number >= 0, got -0.1"),
        (dict(head_dim=8, train_len=8, n_heads=0), r"n_heads must be >= 1, got 0"),
    ],
)
def test_bad_constructor_arguments_name_the_parameter_rule_and_value(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        FourierPositionEmbedding(**kwargs)


def test_bad_tensors_name_the_argument_rule_and_value():
    fope = FourierPositionEmbedding(8, train_len=8, n_heads=2)
    with pytest.raises(ValueError, match=r"x must have last dimension 8, got shape \(1, 2, 3, 6\)"):
        fope(torch.zeros(1, 2, 3, 6), np.arange(3))
    with pytest.raises(ValueError, match=r"x must have 2 heads in dimension −3 \(n_heads\), got shape \(1, 3, 3, 8\)"):
        fope(torch.zeros(1, 3, 3, 8), np.arange(3))
    with pytest.raises(ValueError, match=r"positions must have one entry per token of x \(3\), got 4 entries"):
        fope(torch.zeros(1, 2, 3, 8), np.arange(4))
