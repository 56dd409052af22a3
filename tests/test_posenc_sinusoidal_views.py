"""posenc functions added for the Sinusoidal heatmap page: block_mean_encoding, distance_by_offset,
toeplitz_deviation. Each is checked against an independent hand-written loop (math only, the
encoding written out from shared/REFERENCE.md), then its input validation (HF's order: sanity,
properties, numbers)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posenc import sinusoidal


def ref_row(p: float, d: int, base: float) -> list[float]:
    """PE(p) in the interleaved layout, one element at a time: sin on even i, cos on odd i."""
    out = []
    for i in range(d):
        angle = p * base ** (-2.0 * (i // 2) / d)
        out.append(math.sin(angle) if i % 2 == 0 else math.cos(angle))
    return out


def to_concatenated(row: list[float]) -> list[float]:
    return row[0::2] + row[1::2]


# ------------------------------------------------------------------------------ input sanity
@pytest.mark.parametrize(
    "call, param",
    [
        (lambda: sinusoidal.block_mean_encoding(0, 8, rows=1), "n_positions"),
        (lambda: sinusoidal.block_mean_encoding(10, 7, rows=2), "d_model"),
        (lambda: sinusoidal.block_mean_encoding(10, 8, rows=0), "rows"),
        (lambda: sinusoidal.block_mean_encoding(10, 8, rows=11), "rows"),
        (lambda: sinusoidal.block_mean_encoding(10, 8, rows=2, pair_block=0), "pair_block"),
        (lambda: sinusoidal.block_mean_encoding(10, 8, rows=2, base=1.0), "base"),
        (lambda: sinusoidal.block_mean_encoding(10, 8, rows=2, layout="half"), "layout"),
        (lambda: sinusoidal.distance_by_offset([1, 2], 7), "d_model"),
        (lambda: sinusoidal.distance_by_offset([1, float("nan")], 8), "offsets"),
        (lambda: sinusoidal.distance_by_offset([1], 8, base=0.5), "base"),
        (lambda: sinusoidal.toeplitz_deviation(np.ones((2, 3))), "matrix"),
        (lambda: sinusoidal.toeplitz_deviation(np.ones(3)), "matrix"),
        (lambda: sinusoidal.toeplitz_deviation(np.array([[1.0, np.inf], [0.0, 1.0]])), "matrix"),
    ],
)
def test_bad_input_is_rejected_and_named(call, param):
    with pytest.raises((ValueError, TypeError), match=param):
        call()


# ---------------------------------------------------------------------- block_mean_encoding
@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
@pytest.mark.parametrize("n, d, rows, base", [(100, 16, 7, 100.0), (37, 8, 37, 10.0), (50, 12, 1, 1e4)])
def test_block_mean_matches_a_loop_over_positions(layout, n, d, rows, base):
    got = sinusoidal.block_mean_encoding(n, d, rows=rows, base=base, layout=layout)
    assert got.shape == (rows, d)
    for r in range(rows):
        start, end = (r * n) // rows, ((r + 1) * n) // rows
        acc = [0.0] * d
        for p in range(start, end):
            row = ref_row(p, d, base)
            if layout == "concatenated":
                row = to_concatenated(row)
            acc = [a + v for a, v in zip(acc, row)]
        expected = [a / (end - start) for a in acc]
        np.testing.assert_allclose(got[r], expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_block_mean_averages_neighbouring_pairs_without_mixing_sin_and_cos(layout):
    n, d, rows, g, base = 30, 14, 4, 3, 50.0  # 7 pairs: groups {0,1,2}, {3,4,5}, {6}
    got = sinusoidal.block_mean_encoding(n, d, rows=rows, base=base, layout=layout, pair_block=g)
    assert got.shape == (rows, 6)
    groups = [[0, 1, 2], [3, 4, 5], [6]]
    for r in range(rows):
        start, end = (r * n) // rows, ((r + 1) * n) // rows
        sin_means, cos_means = [], []
        for group in groups:
            s = c = 0.0
            for p in range(start, end):
                for j in group:
                    angle = p * base ** (-2.0 * j / d)
                    s += math.sin(angle)
                    c += math.cos(angle)
            count = (end - start) * len(group)
            sin_means.append(s / count)
            cos_means.append(c / count)
        if layout == "interleaved":
            expected = [v for pair in zip(sin_means, cos_means) for v in pair]
        else:
            expected = sin_means + cos_means
        np.testing.assert_allclose(got[r], expected, rtol=0, atol=1e-12)


def test_block_mean_with_one_row_per_position_is_the_encoding():
    pe = sinusoidal.sinusoidal_encoding(np.arange(40), 10, base=300.0)
    np.testing.assert_allclose(sinusoidal.block_mean_encoding(40, 10, rows=40, base=300.0), pe, atol=1e-15)


def test_block_mean_fades_fast_pairs_and_keeps_slow_ones():
    # 8192 positions in 480 rows (17 or 18 per row): pair 0 (θ = 1) turns ~3 times per block,
    # the slowest pair hardly moves, so its block mean stays close to its value.
    out = sinusoidal.block_mean_encoding(8192, 2048, rows=480, base=1e6)
    assert np.max(np.abs(out[:, 0])) < 0.1  # fast sin: averaged to nearly 0 (grey)
    assert np.min(out[:, -1]) > 0.99  # slowest cos: still ≈ 1


# ------------------------------------------------------------------------ distance_by_offset
@pytest.mark.parametrize("d, base", [(2, 10000.0), (8, 10.0), (64, 1e4), (128, 5e5)])
def test_distance_by_offset_matches_a_loop(d, base):
    offsets = [1, 2, 3, 7, 44, 100, 1000]
    got = sinusoidal.distance_by_offset(offsets, d, base=base)
    for k, dist in zip(offsets, got):
        p = 13  # any p: the distance does not depend on it
        a, b = ref_row(p, d, base), ref_row(p + k, d, base)
        expected = math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))
        assert dist == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_distance_by_offset_gives_the_closest_distinct_positions():
    # The minimum over offsets 1 … n−1 equals the minimum over all pairs of distinct rows.
    for d, base, n in [(2, 10000.0, 60), (16, 100.0, 80), (64, 10000.0, 50)]:
        pe = sinusoidal.sinusoidal_encoding(np.arange(n), d, base=base)
        by_offset = sinusoidal.distance_by_offset(np.arange(1, n), d, base=base).min()
        assert by_offset == pytest.approx(sinusoidal.min_distinct_distance(pe), rel=1e-9)


def test_distance_by_offset_zero_offset_is_zero_and_d2_wraps_at_2pi():
    assert sinusoidal.distance_by_offset([0], 8)[0] == 0.0
    # d = 2: one pair with θ = 1, distance 2|sin(k/2)|; k = 44 comes within 0.02 of 14π.
    assert sinusoidal.distance_by_offset([44], 2)[0] == pytest.approx(2 * abs(math.sin(22.0)), rel=1e-12)


# ------------------------------------------------------------------------ toeplitz_deviation
def test_toeplitz_deviation_matches_a_loop():
    rng = np.random.default_rng(3)
    m = rng.normal(size=(6, 6))
    expected = 0.0
    for k in range(-5, 6):
        values = [m[i, i + k] for i in range(6) if 0 <= i + k < 6]
        expected = max(expected, max(values) - min(values))
    assert sinusoidal.toeplitz_deviation(m) == pytest.approx(expected, rel=0, abs=0)


def test_similarity_matrix_is_toeplitz_up_to_rounding():
    pe = sinusoidal.sinusoidal_encoding(np.arange(64), 32)
    assert sinusoidal.toeplitz_deviation(sinusoidal.similarity_matrix(pe)) < 1e-12
    toeplitz = np.subtract.outer(np.arange(4.0), np.arange(4.0)) ** 2  # m[i, j] = (i − j)²
    assert sinusoidal.toeplitz_deviation(toeplitz) == 0.0
    assert sinusoidal.toeplitz_deviation(np.arange(9.0).reshape(3, 3)) == 8.0  # main diagonal 0, 4, 8
    assert sinusoidal.toeplitz_deviation(np.diag([1.0, 2.0, 3.0])) == 2.0
