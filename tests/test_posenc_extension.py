"""posenc functions added for the context-extension page, against hand-written loops.

interpolate_positions, out_of_distribution_pairs (posenc.scaling) and rope_mean_cos
(posenc.relative). References: tests/_posenc_reference_impl.py (no posenc code) and loops here.
"""

import math

import numpy as np
import pytest
from _posenc_reference_impl import ref_inverse_frequencies, ref_linear, ref_ntk, ref_yarn

import posenc


# --- input sanity -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"positions": [0, 1], "factor": 0.0}, "factor"),
        ({"positions": [0, 1], "factor": -2.0}, "factor"),
        ({"positions": [0, float("nan")], "factor": 2.0}, "positions"),
    ],
)
def test_interpolate_positions_rejects(kwargs, name):
    with pytest.raises(ValueError, match=name):
        posenc.interpolate_positions(kwargs["positions"], factor=kwargs["factor"])


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (
            {"inv_freq": [1.0, 0.1], "scaled_inv_freq": [1.0], "trained_length": 4, "target_length": 8},
            "scaled_inv_freq",
        ),
        ({"inv_freq": [1.0], "scaled_inv_freq": [1.0], "trained_length": 0, "target_length": 8}, "trained_length"),
        ({"inv_freq": [1.0], "scaled_inv_freq": [1.0], "trained_length": 4, "target_length": 0}, "target_length"),
        ({"inv_freq": [np.inf], "scaled_inv_freq": [1.0], "trained_length": 4, "target_length": 8}, "inv_freq"),
    ],
)
def test_out_of_distribution_pairs_rejects(kwargs, name):
    with pytest.raises(ValueError, match=name):
        posenc.out_of_distribution_pairs(
            kwargs["inv_freq"],
            kwargs["scaled_inv_freq"],
            trained_length=kwargs["trained_length"],
            target_length=kwargs["target_length"],
        )


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"distances": [0, 1], "inv_freq": [], "attention_factor": 1.0}, "inv_freq"),
        ({"distances": [0, 1], "inv_freq": [1.0], "attention_factor": 0.0}, "attention_factor"),
        ({"distances": [np.nan], "inv_freq": [1.0], "attention_factor": 1.0}, "distances"),
    ],
)
def test_rope_mean_cos_rejects(kwargs, name):
    with pytest.raises(ValueError, match=name):
        posenc.rope_mean_cos(kwargs["distances"], kwargs["inv_freq"], attention_factor=kwargs["attention_factor"])


# --- values against loops ---------------------------------------------------------------------
def test_interpolate_positions_is_the_seed_example():
    # seed 000: 2048 -> 4096 tokens with s = 2 gives positions 0, 0.5, 1, 1.5, …, 2047.5
    got = posenc.interpolate_positions(np.arange(4096), factor=2.0)
    assert got[:4].tolist() == [0.0, 0.5, 1.0, 1.5]
    assert got[-1] == 2047.5


@pytest.mark.parametrize("factor", [2.0, 4.0, 7.5])
def test_interpolated_positions_rotate_like_linear_scaling(factor):
    # rotating m/s with θ_j is rotating m with θ_j/s (rope_type "linear")
    m = np.arange(0, 5000, 37)
    theta = posenc.inverse_frequencies(64)
    linear, _ = ref_linear(64, 10000.0, factor)
    np.testing.assert_allclose(
        posenc.rope_angles(posenc.interpolate_positions(m, factor=factor), theta),
        posenc.rope_angles(m, linear),
        rtol=1e-12,
    )


def _ref_ood(theta, scaled, L, T):
    out = []
    for t, ts in zip(theta, scaled):
        out.append(T * ts > L * t * (1 + 1e-9) and L * t < 2 * math.pi)
    return out


@pytest.mark.parametrize(
    "dim, base, L, T, scaled_fn",
    [
        (64, 10000.0, 4096, 16384, lambda d, b: ref_inverse_frequencies(d, b)),  # extrapolation
        (64, 10000.0, 4096, 16384, lambda d, b: ref_linear(d, b, 4.0)[0]),  # PI, T = s·L
        (64, 10000.0, 4096, 65536, lambda d, b: ref_linear(d, b, 4.0)[0]),  # PI, T > s·L
        (128, 10000.0, 4096, 16384, lambda d, b: ref_ntk(d, b, 4.0)[0]),
        (128, 10000.0, 4096, 16384, lambda d, b: ref_yarn(d, b, 4.0, 4096)[0]),
        (128, 500000.0, 8192, 131072, lambda d, b: ref_inverse_frequencies(d, b)),
        (16, 100.0, 64, 32, lambda d, b: ref_inverse_frequencies(d, b)),  # T < L
    ],
)
def test_out_of_distribution_pairs_matches_loop(dim, base, L, T, scaled_fn):
    theta = ref_inverse_frequencies(dim, base)
    scaled = scaled_fn(dim, base)
    got = posenc.out_of_distribution_pairs(theta, scaled, trained_length=L, target_length=T)
    assert got.dtype == bool
    assert got.tolist() == _ref_ood(theta, scaled, L, T)


def test_out_of_distribution_counts():
    theta = ref_inverse_frequencies(64, 10000.0)
    # extrapolation: exactly the pairs with wavelength > L (never a full turn), since T > L
    n_slow = sum(2 * math.pi / t > 4096 for t in theta)
    assert n_slow == 9
    assert posenc.out_of_distribution_pairs(theta, theta, trained_length=4096, target_length=16384).sum() == n_slow
    # linear with T = s·L reaches exactly L·θ_j: nothing unseen (rounding must not count)
    for s in (2.0, 3.0, 4.0, 8.0):
        lin = ref_linear(64, 10000.0, s)[0]
        assert not posenc.out_of_distribution_pairs(theta, lin, trained_length=4096, target_length=int(4096 * s)).any()
    # no longer than training: nothing new
    assert not posenc.out_of_distribution_pairs(theta, theta, trained_length=4096, target_length=4096).any()


@pytest.mark.parametrize("af", [1.0, 1.1386, 0.8])
def test_rope_mean_cos_matches_loop(af):
    theta = ref_inverse_frequencies(32, 10000.0)
    r = [0, 1, 2, 7, 100, 1000, 12345]
    expected = [af * af * sum(math.cos(d * t) for t in theta) / len(theta) for d in r]
    np.testing.assert_allclose(posenc.rope_mean_cos(r, theta, attention_factor=af), expected, rtol=1e-12, atol=1e-15)


def test_rope_mean_cos_is_the_score_of_ones():
    # ⟨R_0 q, R_r k⟩ / |q|² with q = k = ones, both layouts
    dim = 16
    theta = posenc.inverse_frequencies(dim)
    r = np.array([0, 1, 3, 50, 999])
    ones = np.ones(dim)
    for layout in ("half", "interleaved"):
        scores = posenc.rope_score_matrix(ones, ones, [0], r, inv_freq=theta, layout=layout)[0] / dim
        np.testing.assert_allclose(posenc.rope_mean_cos(r, theta), scores, atol=1e-12)
    assert posenc.rope_mean_cos([0], theta)[0] == pytest.approx(1.0)
