"""3. Numeric snapshots from the references (HF's test order): shared/REFERENCE.md's table, the
seeds' worked values, and the seeds' code reproduced verbatim inside the tests, plus hand-written
per-element reference loops (tests/_posenc_reference_impl.py) for every scaling method.

Seeds live in ../shared/seeds/ (000 … 004). Where a seed's numbers or code disagree with the
standard, the test asserts the precise relationship and says why in a comment.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _posenc_reference_impl import (
    ref_alibi_slopes,
    ref_dynamic,
    ref_dynamic_base,
    ref_inverse_frequencies,
    ref_linear,
    ref_llama3,
    ref_longrope,
    ref_ntk,
    ref_permutation,
    ref_rope_decay_bound,
    ref_yarn,
    ref_yarn_correction_range,
)

from posenc import relative, rope, scaling, sinusoidal


@pytest.fixture(scope="module")
def torch():
    try:
        import torch as _torch
    except Exception as exc:  # pragma: no cover - depends on the environment
        pytest.skip(f"torch could not be imported ({exc!r}); the seed code under test is torch code")
    return _torch


# ==============================================================================================
# Sinusoidal: seed 001, seed 003, seed 000
# ==============================================================================================


def test_seed_001_d4_p2():
    # Seed 001: d=4, pos=2 → [0.909, −0.416, 0.020, 0.999]. Exact: [0.90930, −0.41615, 0.02000,
    # 0.99980]; the seed truncates (0.9998 → 0.999) rather than rounds, hence atol 1e-3.
    pe = sinusoidal.sinusoidal_encoding([2], 4)
    np.testing.assert_allclose(pe[0], [0.909, -0.416, 0.020, 0.999], atol=1e-3)
    np.testing.assert_allclose(pe[0], [math.sin(2), math.cos(2), math.sin(0.02), math.cos(0.02)], atol=1e-15)


# Seed 003, "Sinusoidal positional encoding (dim=8, positions 0-7)", rows 0…4 as printed.
SEED_003_TABLE = np.array(
    [
        [0.00, 1.00, 0.00, 1.00, 0.00, 1.00, 0.00, 1.00],
        [0.84, 0.54, 0.10, 0.99, 0.01, 1.00, 0.00, 1.00],
        [0.91, -0.42, 0.20, 0.98, 0.02, 1.00, 0.00, 1.00],
        [0.14, -0.99, 0.29, 0.96, 0.03, 1.00, 0.00, 1.00],
        [-0.76, -0.65, 0.39, 0.92, 0.04, 1.00, 0.00, 1.00],
    ]
)
# Two printed entries are truncated instead of rounded: (p=1, dim 3) cos(0.1) = 0.99500 → "0.99"
# and (p=3, dim 2) sin(0.3) = 0.29552 → "0.29". Every other entry is the correctly rounded value.
SEED_003_TRUNCATED = {(1, 3), (3, 2)}


def test_seed_003_table_d8():
    # The header's f = 1, .1, .01, .001 are θ_j = 10000^(−2j/8) = 10^(−j) for pair j = 0…3, shared
    # by the sin/cos columns 2j and 2j+1: the printed numbers are exactly the interleaved layout.
    pe = sinusoidal.sinusoidal_encoding(np.arange(5), 8)
    np.testing.assert_allclose(sinusoidal.inverse_frequencies(8), [1.0, 0.1, 0.01, 0.001], rtol=1e-14)
    np.testing.assert_allclose(pe, SEED_003_TABLE, atol=0.006)
    for (p, i), printed in np.ndenumerate(SEED_003_TABLE):
        if (p, i) in SEED_003_TRUNCATED:
            assert math.trunc(pe[p, i] * 100) / 100 == pytest.approx(printed), (p, i)
        else:
            assert round(pe[p, i], 2) == pytest.approx(printed), (p, i)


def test_seed_003_table_is_not_the_per_index_misreading():
    # Reading "2i" as the column index (θ = 10000^(−i/8) per column) would not reproduce the table.
    misread = np.array(
        [
            [math.sin(p * 10000 ** (-i / 8)) if i % 2 == 0 else math.cos(p * 10000 ** (-i / 8)) for i in range(8)]
            for p in range(5)
        ]
    )
    assert np.abs(misread - SEED_003_TABLE).max() > 0.5
    assert np.abs(sinusoidal.sinusoidal_encoding(np.arange(5), 8) - SEED_003_TABLE).max() < 0.006


def seed_003_positional_encoding(pos, d_model):
    """Seed 003's Rust `positional_encoding`, translated line by line."""
    encoding = [0.0] * d_model
    for i in range(d_model):
        dim_pair = i // 2
        freq = 1.0 / 10000.0 ** (2.0 * dim_pair / d_model)
        angle = pos * freq
        encoding[i] = math.sin(angle) if i % 2 == 0 else math.cos(angle)
    return encoding


@pytest.mark.parametrize("d_model", [16, 8, 5])
def test_seed_003_rust_code_path(d_model):
    pe = sinusoidal.sinusoidal_encoding(np.arange(20), d_model)
    np.testing.assert_allclose(pe, [seed_003_positional_encoding(p, d_model) for p in range(20)], atol=1e-12)


def test_seed_000_frequency_rows():
    # Seed 000: "Dim 0 (fast): 0 0.84 0.91 0.14 −0.76 −0.96 −0.28 0.66" = sin(p), any d_model.
    # "Dim 6 (slow): 0 0.01 … 0.07" grows by 0.01 per position, i.e. θ = 0.01 = 10000^(−6/d) →
    # d_model = 12 (for d_model = 8, dim 6 has θ = 0.001; 0.01 per step is dim 4 there).
    dim0 = [0, 0.84, 0.91, 0.14, -0.76, -0.96, -0.28, 0.66]
    dim6 = [0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07]
    pe12 = sinusoidal.sinusoidal_encoding(np.arange(8), 12)
    np.testing.assert_allclose(np.round(pe12[:, 0], 2), dim0, atol=1e-12)
    np.testing.assert_allclose(np.round(pe12[:, 6], 2), dim6, atol=1e-12)
    pe8 = sinusoidal.sinusoidal_encoding(np.arange(8), 8)
    np.testing.assert_allclose(np.round(pe8[:, 4], 2), dim6, atol=1e-12)
    assert np.abs(pe8[:, 6] - dim6).max() > 0.05


def seed_000_sinusoidal_position_encoding(seq_len, d_model):
    """
    Returns: (seq_len, d_model) position encodings
    """
    position = np.arange(seq_len)[:, np.newaxis]  # (seq_len, 1)
    dim = np.arange(d_model)[np.newaxis, :]  # (1, d_model)

    # Different frequency for each dimension
    freq = 1 / (10000 ** (2 * (dim // 2) / d_model))

    # Alternate sin and cos
    encodings = np.zeros((seq_len, d_model))
    encodings[:, 0::2] = np.sin(position * freq[:, 0::2])  # even dims
    encodings[:, 1::2] = np.cos(position * freq[:, 0::2])  # odd dims

    return encodings


@pytest.mark.parametrize("d_model", [2, 4, 8, 16, 64, 512])
def test_seed_000_sinusoidal_code_path(d_model):
    seq_len = 100
    expected = seed_000_sinusoidal_position_encoding(seq_len, d_model)
    got = sinusoidal.sinusoidal_encoding(np.arange(seq_len), d_model)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("d_model", [3, 7])
def test_seed_000_code_cannot_do_odd_d_model_but_posenc_defines_it(d_model):
    # The seed's code broadcasts ⌈d/2⌉ frequencies into ⌊d/2⌋ cos columns: it crashes for odd d.
    # posenc instead applies the paper's formula literally to every index (see the contract).
    with pytest.raises(ValueError):
        seed_000_sinusoidal_position_encoding(4, d_model)
    got = sinusoidal.sinusoidal_encoding(np.arange(4), d_model)
    even_part = seed_000_sinusoidal_position_encoding(4, d_model + 1)  # not the same frequencies …
    assert got.shape == (4, d_model)
    np.testing.assert_allclose(got[:, 0:2], even_part[:, 0:2], atol=1e-15)  # … except θ_0 = 1


# ==============================================================================================
# RoPE code paths: seed 000 (half / rotate_half), seed 002, seed 004 (interleaved), GPT-J
# ==============================================================================================


def seed_000_classes(torch):
    nn = torch.nn

    def rotate_half(x):
        """Rotate pairs of dimensions"""
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
        return torch.cat([-x2, x1], dim=-1)

    def apply_rope(x, cos, sin):
        """Apply rotary position embedding"""
        return (x * cos) + (rotate_half(x) * sin)

    class RotaryEmbedding(nn.Module):
        def __init__(self, dim, max_seq_len=2048, base=10000):
            super().__init__()
            # Compute rotation frequencies
            inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
            self.register_buffer("inv_freq", inv_freq)

            # Precompute cos/sin for all positions
            t = torch.arange(max_seq_len)
            freqs = torch.outer(t, inv_freq)  # (seq_len, dim/2)
            emb = torch.cat([freqs, freqs], dim=-1)  # (seq_len, dim)

            self.register_buffer("cos_cached", emb.cos())
            self.register_buffer("sin_cached", emb.sin())

        def forward(self, x, seq_len):
            return (self.cos_cached[:seq_len], self.sin_cached[:seq_len])

    return rotate_half, apply_rope, RotaryEmbedding


@pytest.mark.parametrize("dim", [2, 8, 64, 128])
@pytest.mark.parametrize("base", [10000, 500000])
def test_seed_000_rotary_code_path_is_the_half_layout(torch, dim, base):
    rotate_half, seed_apply_rope, RotaryEmbedding = seed_000_classes(torch)
    seq = 64
    rng = np.random.default_rng(dim)
    x = rng.uniform(-1, 1, size=(2, seq, dim))
    rotary = RotaryEmbedding(dim, max_seq_len=seq, base=base)
    cos, sin = rotary(None, seq)
    expected = seed_apply_rope(torch.tensor(x, dtype=torch.float32), cos, sin).double().numpy()
    got = rope.apply_rope(x, np.arange(seq), base=base, layout="half")
    # The seed works in float32 (angles up to 63 rad: ~4e-6 rounding each), posenc in float64.
    np.testing.assert_allclose(got, expected, rtol=0, atol=3e-5)
    # With the seed's own float32 θ fed in, only the float32 cos/sin cache differs.
    got_same_theta = rope.apply_rope(x, np.arange(seq), inv_freq=rotary.inv_freq.double().numpy(), layout="half")
    np.testing.assert_allclose(got_same_theta, expected, rtol=0, atol=3e-5)
    # rotate_half is the seed's rotate_half.
    np.testing.assert_array_equal(rope.rotate_half(x), rotate_half(torch.tensor(x)).numpy())


def test_seed_000_prose_cos_pattern_needs_the_interleaved_rotation(torch):
    # Seed 000's prose writes cos_m = [cos mθ_0, cos mθ_0, cos mθ_1, cos mθ_1, …] (each angle
    # repeated in place: the interleaved pattern), but its code builds cat(freqs, freqs) and
    # rotates with rotate_half (the half layout). The prose pattern with rotate_half is not even a
    # rotation; with GPT-J's rotate_every_two it is exactly posenc's interleaved layout.
    rotate_half, _, _ = seed_000_classes(torch)

    def rotate_every_two(x):  # GPT-J (mesh-transformer-jax / HF GPT-J), last axis
        x1 = x[..., ::2]
        x2 = x[..., 1::2]
        x = torch.stack((-x2, x1), dim=-1)
        return x.flatten(-2)

    dim, positions = 16, np.arange(12, dtype=float)
    x = torch.tensor(np.random.default_rng(5).normal(size=(len(positions), dim)))
    angles = torch.tensor(np.outer(positions, ref_inverse_frequencies(dim)))
    cos_prose = torch.repeat_interleave(angles.cos(), 2, dim=-1)
    sin_prose = torch.repeat_interleave(angles.sin(), 2, dim=-1)
    gptj = (x * cos_prose + rotate_every_two(x) * sin_prose).numpy()
    np.testing.assert_allclose(rope.apply_rope(x.numpy(), positions, layout="interleaved"), gptj, atol=1e-12)
    mismatched = (x * cos_prose + rotate_half(x) * sin_prose).numpy()
    assert np.abs(np.linalg.norm(mismatched, axis=-1) - np.linalg.norm(x.numpy(), axis=-1)).max() > 1e-3


def seed_002_apply_rope(torch, x, cos, sin):
    # Seed 002 (TorchLingo docs), verbatim.
    # Split into even/odd dimensions
    x1, x2 = x[..., ::2], x[..., 1::2]

    # Apply rotation
    rotated = torch.cat(
        [
            x1 * cos - x2 * sin,
            x1 * sin + x2 * cos,
        ],
        dim=-1,
    )

    return rotated


@pytest.mark.parametrize("dim", [2, 4, 8, 64])
def test_seed_002_code_path_is_interleaved_rotation_then_deinterleave(torch, dim):
    # Seed 002 rotates the interleaved pairs (x_2i, x_2i+1) correctly, but concatenates the results
    # instead of re-interleaving them: its output is the interleaved rotation with coordinates
    # reordered by perm = [0, 2, 4, …, 1, 3, 5, …] (equivalently: the half-layout rotation of x[perm]).
    # The reordering is orthogonal and the same for q and k, so q·k scores are still exactly RoPE
    # scores; but any consumer expecting x's original coordinate order (a residual add, or seed
    # 002's own use on embeddings before the encoder) gets permuted features. For dim = 2 the
    # permutation is the identity and the seed agrees with the standard.
    positions = np.arange(10, dtype=float)
    rng = np.random.default_rng(dim)
    x = rng.normal(size=(3, len(positions), dim))
    angles = torch.tensor(np.outer(positions, ref_inverse_frequencies(dim)))  # (seq, dim/2), float64
    seed = seed_002_apply_rope(torch, torch.tensor(x), angles.cos(), angles.sin()).numpy()
    perm = ref_permutation(dim)
    interleaved = rope.apply_rope(x, positions, layout="interleaved")
    np.testing.assert_allclose(seed, interleaved[..., perm], atol=1e-12)
    np.testing.assert_allclose(seed, rope.apply_rope(x[..., perm], positions, layout="half"), atol=1e-12)
    if dim > 2:
        assert np.abs(seed - interleaved).max() > 0.1  # not the standard output order
    # Scores survive: ⟨seed(q_m), seed(k_n)⟩ = ⟨R_m q, R_n k⟩ (interleaved).
    q, k = x[0], x[1]
    seed_q = seed_002_apply_rope(torch, torch.tensor(q), angles.cos(), angles.sin()).numpy()
    seed_k = seed_002_apply_rope(torch, torch.tensor(k), angles.cos(), angles.sin()).numpy()
    std_scores = (
        rope.apply_rope(q, positions, layout="interleaved") @ rope.apply_rope(k, positions, layout="interleaved").T
    )
    np.testing.assert_allclose(seed_q @ seed_k.T, std_scores, atol=1e-10)


def seed_004_rope_class(torch):
    nn = torch.nn

    # From seed 004 ("omni/utils.py (simplified)"), verbatim.
    class RoPE(nn.Module):
        def __init__(self, dim, theta=10000.0):
            super().__init__()
            self.dim = dim
            self.theta = theta

            # Precompute frequencies
            inv_freq = 1.0 / (theta ** (torch.arange(0, dim, 2).float() / dim))
            self.register_buffer("inv_freq", inv_freq)

        def forward(self, q, k, positions):
            # q, k: (B, H, T, D)
            # positions: (T,)

            # Compute angles: pos × frequency
            angles = positions[:, None] * self.inv_freq[None, :]  # (T, D/2)

            # Create rotation matrix
            cos = torch.cos(angles)
            sin = torch.sin(angles)

            # Apply rotation to q and k
            q_rot = self.rotate(q, cos, sin)
            k_rot = self.rotate(k, cos, sin)

            return q_rot, k_rot

        def rotate(self, x, cos, sin):
            # Split into even/odd dimensions
            x1 = x[..., ::2]  # Even dims
            x2 = x[..., 1::2]  # Odd dims

            # Rotation
            x_rot1 = x1 * cos - x2 * sin
            x_rot2 = x1 * sin + x2 * cos

            # Interleave back
            x_rot = torch.stack([x_rot1, x_rot2], dim=-1).flatten(-2)
            return x_rot

    return RoPE


@pytest.mark.parametrize("dim, theta", [(8, 10000.0), (64, 10000.0), (128, 500000.0)])
def test_seed_004_code_path_is_the_interleaved_layout(torch, dim, theta):
    RoPE = seed_004_rope_class(torch)
    rng = np.random.default_rng(dim)
    q, k = rng.normal(size=(2, 2, 7, dim)), rng.normal(size=(2, 2, 7, dim))  # (B, H, T, D)
    positions = np.array([0.0, 1.0, 2.0, 5.0, 103.0, 105.0, 4095.0])
    module = RoPE(dim, theta=theta)
    q_rot, k_rot = module(torch.tensor(q), torch.tensor(k), torch.tensor(positions))
    # The seed's θ is float32 (`.float()`); feed the same θ to posenc and the rest is float64.
    inv = module.inv_freq.double().numpy()
    np.testing.assert_allclose(
        rope.apply_rope(q, positions, inv_freq=inv, layout="interleaved"), q_rot.numpy(), atol=1e-12
    )
    np.testing.assert_allclose(
        rope.apply_rope(k, positions, inv_freq=inv, layout="interleaved"), k_rot.numpy(), atol=1e-12
    )
    np.testing.assert_allclose(inv, ref_inverse_frequencies(dim, theta), rtol=1e-6)


def test_seed_004_worked_2d_rotation_values():
    # Seed 004: "[0.2, −0.5] rotated by 30° = [0.43, −0.36]; by 60° = [0.53, −0.15]". Those printed
    # values are not rotations of [0.2, −0.5] (their norms 0.561 and 0.551 differ from 0.539). The
    # correct values are [0.423, −0.333] and [0.533, −0.077].
    v = np.array([0.2, -0.5])
    r30 = rope.rotation_2x2(math.pi / 6) @ v
    r60 = rope.rotation_2x2(math.pi / 3) @ v
    np.testing.assert_allclose(
        r30,
        [
            0.2 * math.cos(math.pi / 6) + 0.5 * math.sin(math.pi / 6),
            0.2 * math.sin(math.pi / 6) - 0.5 * math.cos(math.pi / 6),
        ],
        atol=1e-15,
    )
    np.testing.assert_allclose(r30, [0.423, -0.333], atol=1e-3)
    np.testing.assert_allclose(r60, [0.533, -0.077], atol=1e-3)
    assert abs(r30[1] - (-0.36)) > 0.02 and abs(r60[1] - (-0.15)) > 0.05


# ==============================================================================================
# Position Interpolation (seed 000): 2048 → 4096 gives positions 0, 0.5, 1, 1.5, …
# ==============================================================================================


@pytest.mark.parametrize("dim", [64, 128])
def test_seed_000_position_interpolation_equals_linear_factor_2(dim):
    original, extended = 2048, 4096
    scale = original / extended  # seed 000: positions = positions * scale
    positions = np.arange(8, dtype=float)
    np.testing.assert_allclose(positions[:4] * scale, [0, 0.5, 1, 1.5])
    inv_linear, af = scaling.rope_inverse_frequencies(
        {"rope_type": "linear", "factor": extended / original}, dim, max_position_embeddings=extended
    )
    assert af == 1.0
    np.testing.assert_allclose(
        rope.rope_angles(positions, inv_linear),
        rope.rope_angles(positions * scale, sinusoidal.inverse_frequencies(dim)),
        rtol=1e-14,
        atol=0,
    )
    x = np.random.default_rng(0).normal(size=(len(positions), dim))
    np.testing.assert_allclose(
        rope.apply_rope(x, positions, inv_freq=inv_linear), rope.apply_rope(x, positions * scale), atol=1e-12
    )
    # … and position 4095 under PI lands on angle 2047.5·θ: inside the trained range.
    np.testing.assert_allclose(
        rope.rope_angles([4095], inv_linear),
        rope.rope_angles([2047.5], sinusoidal.inverse_frequencies(dim)),
        rtol=1e-14,
    )


# ==============================================================================================
# REFERENCE.md's table ("computed with HF's definitions")
# ==============================================================================================


def test_reference_yarn_d128_base1e4_L4096_s4():
    assert tuple(scaling.yarn_correction_range(128, base=1e4, original_max_position_embeddings=4096)) == (20, 46)
    low, high = scaling.yarn_correction_range(128, base=1e4, original_max_position_embeddings=4096, truncate=False)
    assert low == pytest.approx(20.94, abs=5e-3)
    assert high == pytest.approx(45.03, abs=5e-3)
    assert scaling.yarn_get_mscale(4.0) == pytest.approx(1.13863, abs=5e-6)
    inv, af = scaling.rope_inverse_frequencies(
        {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096},
        128,
        max_position_embeddings=4 * 4096,
    )
    assert af == pytest.approx(1.13863, abs=5e-6)
    assert af**2 == pytest.approx(1.2965, abs=5e-5)  # attention logits scale by af²
    theta = np.array(ref_inverse_frequencies(128, 1e4))
    np.testing.assert_allclose(inv[:21], theta[:21], rtol=1e-12)  # j ≤ low: extrapolated (kept)
    # Pairs j ≥ 46 would be divided, but d/2 = 64 pairs only reach j = 63 — check the ramp's end.
    np.testing.assert_allclose(inv[46:], theta[46:] / 4, rtol=1e-12)
    assert np.all((inv[21:46] < theta[21:46]) & (inv[21:46] > theta[21:46] / 4))


def test_reference_yarn_d64_base150000_L4096_s32_no_truncate():
    low, high = scaling.yarn_correction_range(64, base=150000.0, original_max_position_embeddings=4096, truncate=False)
    assert low == pytest.approx(8.0928, abs=5e-5)
    assert high == pytest.approx(17.398, abs=5e-4)
    inv, af = scaling.rope_inverse_frequencies(
        {
            "rope_type": "yarn",
            "rope_theta": 150000.0,
            "factor": 32.0,
            "original_max_position_embeddings": 4096,
            "truncate": False,
        },
        64,
        max_position_embeddings=32 * 4096,
    )
    assert af == pytest.approx(1.3466, abs=5e-5)
    ref_inv, _ref_af = ref_yarn(64, 150000.0, 32.0, 4096, truncate=False)
    np.testing.assert_allclose(inv, ref_inv, rtol=1e-12)


LLAMA_31 = {
    "rope_type": "llama3",
    "rope_theta": 500000.0,
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}


def test_reference_llama3_d128_llama31_bands():
    theta = sinusoidal.inverse_frequencies(128, base=500000.0)
    bands = list(
        scaling.llama3_bands(
            theta, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original_max_position_embeddings=8192
        )
    )
    assert bands == ["kept"] * 29 + ["smoothed"] * 6 + ["divided"] * 29
    inv, af = scaling.rope_inverse_frequencies(LLAMA_31, 128, max_position_embeddings=131072)
    assert af == 1.0
    np.testing.assert_allclose(inv[:29], theta[:29], rtol=1e-14)
    np.testing.assert_allclose(inv[35:], theta[35:] / 8, rtol=1e-14)
    assert np.all((inv[29:35] < theta[29:35]) & (inv[29:35] > theta[29:35] / 8))
    ref_inv, _, ref_bands = ref_llama3(128, 500000.0, 8.0, 1.0, 4.0, 8192)
    assert ref_bands == bands
    np.testing.assert_allclose(inv, ref_inv, rtol=1e-12)


def test_reference_dynamic_d128_base1e4_maxpos4096_s2():
    params = {"rope_type": "dynamic", "factor": 2.0}
    inv, af = scaling.rope_inverse_frequencies(params, 128, max_position_embeddings=4096, seq_len=8192)
    assert af == 1.0
    # 30527.74 is printed to 2 decimals (rel 1.6e-7), which moves θ'_1 = base'^(−1/64) by ≤ 3e-9 rel.
    assert inv[1] == pytest.approx(30527.74 ** (-2 / 128), rel=1e-8)
    assert inv[1] ** (-64) == pytest.approx(30527.74, abs=0.01)  # recover base' from θ'_1 = base'^(−2/128)
    np.testing.assert_allclose(inv, ref_inverse_frequencies(128, 30527.7367488067), rtol=1e-12)
    default = sinusoidal.inverse_frequencies(128)
    for seq_len in [None, 1, 100, 4095, 4096]:
        inv_short, _ = scaling.rope_inverse_frequencies(params, 128, max_position_embeddings=4096, seq_len=seq_len)
        np.testing.assert_allclose(inv_short, default, rtol=1e-14, err_msg=f"seq_len={seq_len}")


def test_reference_longrope_s32_L4096_attention_factor():
    dim = 96  # Phi-3-mini head_dim
    params = {
        "rope_type": "longrope",
        "factor": 32.0,
        "original_max_position_embeddings": 4096,
        "short_factor": [1.0] * (dim // 2),
        "long_factor": [4.0] * (dim // 2),
    }
    inv, af = scaling.rope_inverse_frequencies(params, dim, max_position_embeddings=32 * 4096, seq_len=100)
    assert af == pytest.approx(1.19024, abs=5e-6)  # √(1 + ln 32 / ln 4096) = √(17/12)
    np.testing.assert_allclose(inv, ref_inverse_frequencies(dim), rtol=1e-12)  # short factors all 1
    inv_long, af_long = scaling.rope_inverse_frequencies(params, dim, max_position_embeddings=32 * 4096, seq_len=5000)
    np.testing.assert_allclose(inv_long, np.array(ref_inverse_frequencies(dim)) / 4, rtol=1e-12)
    assert af_long == af


@pytest.mark.parametrize("dim", [2, 8, 64, 128])
def test_reference_linear_s4(dim):
    inv, af = scaling.rope_inverse_frequencies(
        {"rope_type": "linear", "factor": 4.0}, dim, max_position_embeddings=4096
    )
    assert inv[0] == 0.25
    assert af == 1.0


# ==============================================================================================
# Hand-written per-element reference loops vs posenc, a few parameter sets each
# ==============================================================================================


def run(params, dim, max_pos, seq_len=None):
    inv, af = scaling.rope_inverse_frequencies(params, dim, max_position_embeddings=max_pos, seq_len=seq_len)
    return np.asarray(inv, dtype=float), float(af)


YARN_CASES = [
    # (dim, base, factor, L, extra keys)
    (128, 1e4, 4.0, 4096, {}),
    (128, 1e4, 16.0, 2048, {"beta_fast": 16, "beta_slow": 2}),
    (64, 150000.0, 32.0, 4096, {"truncate": False}),
    (64, 10000.0, 40.0, 4096, {"mscale": 1.0, "mscale_all_dim": 1.0}),  # DeepSeek-V3 style → af 1
    (64, 10000.0, 40.0, 4096, {"mscale": 1.0, "mscale_all_dim": 0.5}),
    (128, 1e6, 8.0, 32768, {"attention_factor": 0.9}),
    (96, 5e5, 2.5, 8192, {"mscale": 0.707}),  # mscale without mscale_all_dim → plain g(s)
    (8, 1e4, 4.0, 5 * 10**9, {}),  # degenerate: low == high == d−1 after clamping → high += 0.001
]


@pytest.mark.parametrize("dim, base, factor, L, extra", YARN_CASES)
def test_yarn_against_reference_loop(dim, base, factor, L, extra):
    params = {"rope_type": "yarn", "rope_theta": base, "factor": factor, "original_max_position_embeddings": L, **extra}
    inv, af = run(params, dim, max_pos=int(factor * L))
    ref_inv, ref_af = ref_yarn(dim, base, factor, L, **extra)
    np.testing.assert_allclose(inv, ref_inv, rtol=1e-12)
    assert af == pytest.approx(ref_af, rel=1e-12)
    truncate = extra.get("truncate", True)
    fast, slow = extra.get("beta_fast", 32), extra.get("beta_slow", 1)
    expected_range = ref_yarn_correction_range(dim, base, L, fast, slow, truncate)
    if expected_range[0] == expected_range[1]:
        # Whether yarn_correction_range itself reports the "+0.001" nudge (HF applies it in the
        # ramp, not in find_correction_range) is not pinned down by the contract: skip the range.
        return
    got_range = scaling.yarn_correction_range(
        dim, base=base, original_max_position_embeddings=L, beta_fast=fast, beta_slow=slow, truncate=truncate
    )
    assert tuple(got_range) == pytest.approx(expected_range, rel=1e-12)


@pytest.mark.parametrize(
    "scale, mscale, expected",
    [(1.0, 1.0, 1.0), (0.5, 1.0, 1.0), (4.0, 1.0, 1.1386294361), (40.0, 0.707, 1.0 + 0.0707 * math.log(40))],
)
def test_yarn_get_mscale(scale, mscale, expected):
    assert scaling.yarn_get_mscale(scale, mscale) == pytest.approx(expected, rel=1e-9)


LLAMA3_CASES = [
    # (dim, base, factor, low_freq_factor, high_freq_factor, L)
    (128, 500000.0, 8.0, 1.0, 4.0, 8192),  # Llama 3.1
    (64, 500000.0, 32.0, 1.0, 4.0, 8192),  # Llama 3.2 1B/3B
    (128, 10000.0, 4.0, 2.0, 8.0, 2048),
    (32, 1e6, 16.0, 0.5, 1.5, 4096),
]


@pytest.mark.parametrize("dim, base, factor, lff, hff, L", LLAMA3_CASES)
def test_llama3_against_reference_loop(dim, base, factor, lff, hff, L):
    params = {
        "rope_type": "llama3",
        "rope_theta": base,
        "factor": factor,
        "low_freq_factor": lff,
        "high_freq_factor": hff,
        "original_max_position_embeddings": L,
    }
    inv, af = run(params, dim, max_pos=int(factor * L))
    ref_inv, ref_af, ref_bands = ref_llama3(dim, base, factor, lff, hff, L)
    np.testing.assert_allclose(inv, ref_inv, rtol=1e-12)
    assert af == ref_af
    bands = scaling.llama3_bands(
        ref_inverse_frequencies(dim, base),
        factor=factor,
        low_freq_factor=lff,
        high_freq_factor=hff,
        original_max_position_embeddings=L,
    )
    assert list(bands) == ref_bands


def phi3_like_factors(n, lo, hi):
    return [lo + (hi - lo) * (j / (n - 1)) ** 2 for j in range(n)]


LONGROPE_CASES = [
    # (dim, base, factor, L, seq_len, extra)
    (96, 10000.0, 32.0, 4096, None, {}),
    (96, 10000.0, 32.0, 4096, 4096, {}),
    (96, 10000.0, 32.0, 4096, 4097, {}),
    (96, 10000.0, 32.0, 4096, 131072, {"attention_factor": 1.0}),
    (64, 500000.0, 8.0, 8192, 20000, {}),
    (64, 500000.0, 8.0, 8192, 100, {"attention_factor": 1.3}),
]


@pytest.mark.parametrize("dim, base, factor, L, seq_len, extra", LONGROPE_CASES)
def test_longrope_against_reference_loop(dim, base, factor, L, seq_len, extra):
    short = phi3_like_factors(dim // 2, 1.0, 1.2)
    long = phi3_like_factors(dim // 2, 1.0, 60.0)
    params = {
        "rope_type": "longrope",
        "rope_theta": base,
        "factor": factor,
        "original_max_position_embeddings": L,
        "short_factor": short,
        "long_factor": long,
        **extra,
    }
    inv, af = run(params, dim, max_pos=int(factor * L), seq_len=seq_len)
    ref_inv, ref_af = ref_longrope(dim, base, factor, L, short, long, seq_len, extra.get("attention_factor"))
    np.testing.assert_allclose(inv, ref_inv, rtol=1e-12)
    assert af == pytest.approx(ref_af, rel=1e-12)


DYNAMIC_CASES = [
    # (dim, base, factor, max_pos, seq_len)
    (128, 1e4, 2.0, 4096, 8192),
    (128, 1e4, 2.0, 4096, 4096),
    (128, 1e4, 2.0, 4096, None),
    (64, 5e5, 4.0, 2048, 100000),
    (64, 1e4, 1.0, 2048, 8192),  # factor 1 still grows the base once seq_len > max_pos
    (32, 1e4, 8.0, 1024, 1025),
]


@pytest.mark.parametrize("dim, base, factor, max_pos, seq_len", DYNAMIC_CASES)
def test_dynamic_against_reference_loop(dim, base, factor, max_pos, seq_len):
    inv, af = run({"rope_type": "dynamic", "rope_theta": base, "factor": factor}, dim, max_pos, seq_len)
    ref_inv, ref_af = ref_dynamic(dim, base, factor, max_pos, seq_len)
    np.testing.assert_allclose(inv, ref_inv, rtol=1e-12)
    assert af == ref_af
    new_base = ref_dynamic_base(dim, base, factor, max_pos, seq_len)
    assert inv[1] == pytest.approx(new_base ** (-2 / dim), rel=1e-12)


@pytest.mark.parametrize("dim, base, factor", [(128, 1e4, 2.0), (128, 1e4, 8.0), (64, 5e5, 4.0), (4, 1e4, 3.0)])
def test_ntk_and_linear_against_reference_loop(dim, base, factor):
    inv, af = run({"rope_type": "ntk", "rope_theta": base, "factor": factor}, dim, 4096)
    ref_inv, ref_af = ref_ntk(dim, base, factor)
    np.testing.assert_allclose(inv, ref_inv, rtol=1e-12)
    assert af == ref_af
    assert scaling.ntk_alpha_to_base(factor, dim, base=base) == pytest.approx(
        base * factor ** (dim / (dim - 2)), rel=1e-12
    )
    inv, af = run({"rope_type": "linear", "rope_theta": base, "factor": factor}, dim, 4096)
    ref_inv, ref_af = ref_linear(dim, base, factor)
    np.testing.assert_allclose(inv, ref_inv, rtol=1e-12)
    assert af == ref_af


# ==============================================================================================
# Relative-position references: RoFormer decay bound, ALiBi slopes
# ==============================================================================================


@pytest.mark.parametrize("dim, base", [(8, 1e4), (64, 1e4), (128, 1e4), (128, 5e5)])
def test_rope_decay_bound_against_reference_loop(dim, base):
    distances = np.array([0.0, 1.0, 2.0, 10.0, 100.0, 1000.0, -10.0])
    got = relative.rope_decay_bound(distances, dim, base=base)
    assert got.shape == distances.shape
    np.testing.assert_allclose(got, [ref_rope_decay_bound(r, dim, base) for r in distances], rtol=1e-12)
    assert got[0] == pytest.approx((dim / 2 + 1) / 2, rel=1e-12)  # r = 0: (1/(d/2))·Σ j


@pytest.mark.parametrize("n_heads", [1, 2, 4, 8, 12, 16, 24, 32, 6])
def test_alibi_slopes_against_press_et_al_code(n_heads):
    np.testing.assert_allclose(relative.alibi_slopes(n_heads), ref_alibi_slopes(n_heads), rtol=1e-14)


def test_alibi_slopes_8_heads_are_powers_of_half():
    np.testing.assert_allclose(relative.alibi_slopes(8), [2.0 ** -(i + 1) for i in range(8)], rtol=1e-15)
