"""2. Properties (HF's test order): identities that must hold for every input, checked with
hypothesis where the input space is natural, against hand-written references
(tests/_posenc_reference_impl.py: per-element loops in plain `math`) or exact algebraic identities
— never against posenc itself except where the property *is* a relation between two posenc
functions (layouts, numpy vs torch, rope_matrix vs apply_rope).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _posenc_reference_impl import (
    ref_inverse_frequencies,
    ref_llama3,
    ref_permutation,
    ref_rope_vector,
    ref_sinusoidal_row,
    ref_yarn,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc  # parse_vector lives on the package itself
from posenc import learned, precision, relative, rope, scaling, sinusoidal

FAST = settings(max_examples=50, deadline=None)

even_dims = st.integers(1, 24).map(lambda h: 2 * h)  # 2 … 48
any_dims = st.integers(2, 33)  # odd allowed (sinusoidal)
rope_layouts = st.sampled_from(["half", "interleaved"])
sin_layouts = st.sampled_from(["interleaved", "concatenated"])
seeds = st.integers(0, 2**32 - 1)
bases = st.sampled_from([10.0, 500.0, 1e4, 5e5, 1e6]) | st.floats(1.5, 1e6)
factors = st.floats(1.0, 64.0)
# Multiples of 1/4: factor·original_max_position_embeddings stays an exact integer, so an
# implementation that re-derives factor = max_position_embeddings / original (as HF does for
# yarn/longrope when the original key is present) sees exactly the same factor.
exact_factors = st.integers(4, 256).map(lambda k: k / 4)


def random_positions(rng, n, scale):
    """n distinct-ish real positions in [−scale, scale], mixing integers, fractions and negatives."""
    return np.concatenate([[0.0], rng.integers(-scale, scale, size=n // 2), rng.uniform(-scale, scale, n - 1 - n // 2)])


def rotate_ref(x, positions, inv_freq, layout, attention_factor=1.0):
    """Apply ref_rope_vector row by row over (..., seq, dim)."""
    out = np.empty_like(x, dtype=float)
    for idx in np.ndindex(*x.shape[:-2]):
        for s, m in enumerate(positions):
            out[(*idx, s)] = ref_rope_vector(x[(*idx, s)], float(m), inv_freq, layout, attention_factor)
    return out


# ==============================================================================================
# Sinusoidal
# ==============================================================================================


@FAST
@given(d=any_dims, base=bases, layout=sin_layouts, seed=seeds)
def test_sinusoidal_encoding_matches_the_formula_elementwise(d, base, layout, seed):
    positions = random_positions(np.random.default_rng(seed), 7, 500)
    pe = sinusoidal.sinusoidal_encoding(positions, d, base=base, layout=layout)
    assert pe.shape == (len(positions), d) and pe.dtype == np.float64
    expected = [ref_sinusoidal_row(float(p), d, base, layout) for p in positions]
    np.testing.assert_allclose(pe, expected, rtol=0, atol=1e-10)


@FAST
@given(d=any_dims, base=bases)
def test_inverse_frequencies_and_wavelengths(d, base):
    theta = sinusoidal.inverse_frequencies(d, base=base)
    assert theta.shape == (d // 2,)
    np.testing.assert_allclose(theta, ref_inverse_frequencies(d, base), rtol=1e-12)
    np.testing.assert_allclose(sinusoidal.wavelengths(d, base=base), [2 * math.pi / t for t in theta], rtol=1e-12)


@pytest.mark.parametrize("d", [1 + 2 * h for h in range(1, 8)] + [33, 127])
@pytest.mark.parametrize("base", [10000.0, 50.0])
def test_odd_d_model_has_no_nan_and_every_column_is_the_literal_formula(d, base):
    positions = np.array([0.0, 1.0, 2.5, -3.0, 17.0, 1000.0])
    pe = sinusoidal.sinusoidal_encoding(positions, d, base=base)
    assert pe.shape == (len(positions), d)
    assert np.all(np.isfinite(pe))
    for i in range(d):
        # Note: the exponent uses the odd d itself, not d−1 or d+1.
        angle = positions * base ** (-2 * (i // 2) / d)
        expected = np.sin(angle) if i % 2 == 0 else np.cos(angle)
        np.testing.assert_allclose(pe[:, i], expected, rtol=0, atol=1e-12, err_msg=f"column {i}")
    # The last column is a sin with no cos partner.
    np.testing.assert_allclose(pe[:, -1], np.sin(positions * base ** (-2 * (d // 2) / d)), atol=1e-12)


@pytest.mark.parametrize("d", [3, 5, 9, 31])
def test_odd_d_model_concatenated_is_ceil_sin_then_floor_cos(d):
    positions = np.array([0.0, 1.0, 7.5, -2.0])
    inter = sinusoidal.sinusoidal_encoding(positions, d, layout="interleaved")
    concat = sinusoidal.sinusoidal_encoding(positions, d, layout="concatenated")
    assert concat.shape == (len(positions), d)
    n_sin = (d + 1) // 2
    np.testing.assert_allclose(concat[:, :n_sin], inter[:, 0::2], atol=0)
    np.testing.assert_allclose(concat[:, n_sin:], inter[:, 1::2], atol=0)
    np.testing.assert_allclose(concat[:, 0], np.sin(positions), atol=1e-15)  # θ_0 = 1
    np.testing.assert_allclose(concat[:, n_sin], np.cos(positions), atol=1e-15)


@FAST
@given(d=any_dims, base=bases, seed=seeds)
def test_sinusoidal_layouts_are_equal_up_to_the_permutation(d, base, seed):
    positions = random_positions(np.random.default_rng(seed), 6, 300)
    inter = sinusoidal.sinusoidal_encoding(positions, d, base=base, layout="interleaved")
    concat = sinusoidal.sinusoidal_encoding(positions, d, base=base, layout="concatenated")
    np.testing.assert_array_equal(concat, inter[:, ref_permutation(d)])


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_sinusoidal_dtype_argument(dtype):
    pe = sinusoidal.sinusoidal_encoding(np.arange(5), 8, dtype=dtype)
    assert pe.dtype == dtype
    np.testing.assert_allclose(pe, [ref_sinusoidal_row(p, 8) for p in range(5)], atol=2e-3)


@FAST
@given(d=even_dims, base=bases, layout=sin_layouts, seed=seeds, k=st.floats(-1000, 1000))
def test_shift_matrix_maps_pe_p_to_pe_p_plus_k_for_any_real_p(d, base, layout, seed, k):
    # Exact for every p: fractional and negative positions included, fractional/negative k too.
    positions = random_positions(np.random.default_rng(seed), 9, 1000)
    r_k = sinusoidal.shift_matrix(k, d, base=base, layout=layout)
    assert r_k.shape == (d, d)
    pe_p = sinusoidal.sinusoidal_encoding(positions, d, base=base, layout=layout)
    pe_pk = sinusoidal.sinusoidal_encoding(positions + k, d, base=base, layout=layout)
    np.testing.assert_allclose(pe_p @ r_k.T, pe_pk, rtol=0, atol=1e-9)
    # R_k is a rotation: orthogonal, independent of p.
    np.testing.assert_allclose(r_k @ r_k.T, np.eye(d), atol=1e-12)


@FAST
@given(d=even_dims, base=bases, k=st.floats(-100, 100))
def test_interleaved_shift_matrix_has_the_documented_blocks(d, base, k):
    expected = np.zeros((d, d))
    for j, theta in enumerate(ref_inverse_frequencies(d, base)):
        c, s = math.cos(k * theta), math.sin(k * theta)
        expected[2 * j : 2 * j + 2, 2 * j : 2 * j + 2] = [[c, s], [-s, c]]  # acting on (sin, cos)
    np.testing.assert_allclose(sinusoidal.shift_matrix(k, d, base=base), expected, atol=1e-12)


@FAST
@given(d=even_dims, base=bases, seed=seeds)
def test_pe_dot_products_depend_only_on_offset_and_equal_encoding_dot_by_offset(d, base, seed):
    rng = np.random.default_rng(seed)
    positions = random_positions(rng, 8, 500)
    pe = sinusoidal.sinusoidal_encoding(positions, d, base=base)
    sim = sinusoidal.similarity_matrix(pe)
    np.testing.assert_allclose(sim, pe @ pe.T, atol=1e-12)
    offsets = (positions[None, :] - positions[:, None]).ravel()  # q − p for sim[p, q]
    by_offset = sinusoidal.encoding_dot_by_offset(offsets, d, base=base)
    assert by_offset.shape == offsets.shape
    np.testing.assert_allclose(sim.ravel(), by_offset, atol=1e-9)
    theta = ref_inverse_frequencies(d, base)
    hand = [sum(math.cos(k * t) for t in theta) for k in offsets]
    np.testing.assert_allclose(by_offset, hand, atol=1e-9)
    # Shifting every position by the same t changes nothing.
    t = float(rng.uniform(-1000, 1000))
    pe_t = sinusoidal.sinusoidal_encoding(positions + t, d, base=base)
    np.testing.assert_allclose(sinusoidal.similarity_matrix(pe_t), sim, atol=1e-9)


@FAST
@given(d=any_dims, seed=seeds)
def test_distance_matrix_and_min_distinct_distance(d, seed):
    rng = np.random.default_rng(seed)
    pe = rng.normal(size=(6, d))
    dist = sinusoidal.distance_matrix(pe)
    hand = np.array([[math.sqrt(sum((a - b) ** 2 for a, b in zip(u, v))) for v in pe] for u in pe])
    np.testing.assert_allclose(dist, hand, atol=1e-12)
    off_diag = min(hand[i, j] for i in range(6) for j in range(6) if i != j)
    assert sinusoidal.min_distinct_distance(pe) == pytest.approx(off_diag, abs=1e-12)


def test_min_distinct_distance_sees_repeated_positions():
    pe = sinusoidal.sinusoidal_encoding([0.0, 1.0, 2 * math.pi], 2)  # d=2: period 2π
    assert sinusoidal.min_distinct_distance(pe) == pytest.approx(0.0, abs=1e-12)


# ==============================================================================================
# Learned absolute
# ==============================================================================================


def test_learned_table_is_seeded_and_sized():
    a = learned.learned_table(300, 64, seed=3)
    assert a.shape == (300, 64)
    np.testing.assert_array_equal(a, learned.learned_table(300, 64, seed=3))
    assert not np.allclose(a, learned.learned_table(300, 64, seed=4))
    assert abs(a.std() - 0.02) < 0.002 and abs(a.mean()) < 0.002
    assert abs(learned.learned_table(300, 64, seed=3, std=1.0).std() - 1.0) < 0.1


@FAST
@given(seed=seeds)
def test_learned_lookup_is_row_selection(seed):
    rng = np.random.default_rng(seed)
    table = learned.learned_table(32, 8, seed=seed % 1000)
    positions = rng.integers(0, 32, size=10)
    np.testing.assert_array_equal(learned.learned_lookup(table, positions), table[positions])


# ==============================================================================================
# RoPE
# ==============================================================================================


@FAST
@given(dim=even_dims, layout=rope_layouts, seed=seeds, base=bases, data=st.data())
def test_apply_rope_matches_the_per_pair_reference_loop(dim, layout, seed, base, data):
    rotary_dim = data.draw(st.integers(1, dim // 2).map(lambda h: 2 * h), label="rotary_dim")
    attention_factor = data.draw(st.sampled_from([1.0, 1.13863, 0.5]), label="attention_factor")
    rng = np.random.default_rng(seed)
    positions = random_positions(rng, 5, 2000)
    x = rng.normal(size=(2, 3, len(positions), dim))  # (batch, heads, seq, dim)
    got = rope.apply_rope(
        x, positions, base=base, layout=layout, rotary_dim=rotary_dim, attention_factor=attention_factor
    )
    assert got.shape == x.shape
    expected = rotate_ref(x, positions, ref_inverse_frequencies(rotary_dim, base), layout, attention_factor)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)


@FAST
@given(dim=even_dims, layout=rope_layouts, seed=seeds)
def test_apply_rope_with_explicit_inv_freq_matches_reference(dim, layout, seed):
    rng = np.random.default_rng(seed)
    inv_freq = rng.uniform(1e-4, 2.0, size=dim // 2)
    positions = random_positions(rng, 4, 100)
    x = rng.normal(size=(len(positions), dim))
    got = rope.apply_rope(x, positions, inv_freq=inv_freq, layout=layout)
    np.testing.assert_allclose(got, rotate_ref(x, positions, list(inv_freq), layout), atol=1e-10)


@FAST
@given(dim=even_dims, layout=rope_layouts, seed=seeds, data=st.data())
def test_rope_preserves_norms_and_leaves_the_partial_rotary_tail_alone(dim, layout, seed, data):
    rotary_dim = data.draw(st.integers(1, dim // 2).map(lambda h: 2 * h), label="rotary_dim")
    rng = np.random.default_rng(seed)
    positions = random_positions(rng, 6, 10**6)
    x = rng.normal(size=(3, len(positions), dim))
    y = rope.apply_rope(x, positions, layout=layout, rotary_dim=rotary_dim)
    np.testing.assert_allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-12)
    np.testing.assert_allclose(
        np.linalg.norm(y[..., :rotary_dim], axis=-1), np.linalg.norm(x[..., :rotary_dim], axis=-1), rtol=1e-12
    )
    np.testing.assert_array_equal(y[..., rotary_dim:], x[..., rotary_dim:])


@FAST
@given(dim=even_dims, layout=rope_layouts, seed=seeds, af=st.floats(0.1, 3.0))
def test_attention_factor_scales_only_the_rotated_coordinates(dim, layout, seed, af):
    rng = np.random.default_rng(seed)
    rotary_dim = 2 * max(1, dim // 4)
    positions = random_positions(rng, 4, 100)
    x = rng.normal(size=(len(positions), dim))
    plain = rope.apply_rope(x, positions, layout=layout, rotary_dim=rotary_dim)
    scaled = rope.apply_rope(x, positions, layout=layout, rotary_dim=rotary_dim, attention_factor=af)
    np.testing.assert_allclose(scaled[:, :rotary_dim], af * plain[:, :rotary_dim], atol=1e-12)
    np.testing.assert_array_equal(scaled[:, rotary_dim:], x[:, rotary_dim:])


@FAST
@given(dim=even_dims, seed=seeds)
def test_rope_layouts_are_equal_up_to_the_permutation(dim, seed):
    rng = np.random.default_rng(seed)
    perm = rope.layout_permutation(dim)
    np.testing.assert_array_equal(perm, ref_permutation(dim))
    assert np.issubdtype(np.asarray(perm).dtype, np.integer)
    positions = random_positions(rng, 5, 5000)
    x = rng.normal(size=(2, len(positions), dim))
    half = rope.apply_rope(x[..., perm], positions, layout="half")
    inter = rope.apply_rope(x, positions, layout="interleaved")
    np.testing.assert_allclose(half, inter[..., perm], atol=1e-12)


def test_rope_layouts_really_differ_without_the_permutation():
    # Using the wrong layout for a checkpoint "fails silently": the outputs differ, same norm.
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 8))
    half = rope.apply_rope(x, [0, 1, 2, 3], layout="half")
    inter = rope.apply_rope(x, [0, 1, 2, 3], layout="interleaved")
    assert np.abs(half[1:] - inter[1:]).max() > 0.1
    np.testing.assert_allclose(np.linalg.norm(half, axis=-1), np.linalg.norm(inter, axis=-1))


@pytest.mark.parametrize("dim", [2, 4, 8, 64])
def test_pair_indices(dim):
    h = dim // 2
    np.testing.assert_array_equal(rope.pair_indices(dim, layout="half"), [[j, j + h] for j in range(h)])
    np.testing.assert_array_equal(rope.pair_indices(dim, layout="interleaved"), [[2 * j, 2 * j + 1] for j in range(h)])
    np.testing.assert_array_equal(rope.pair_indices(dim), rope.pair_indices(dim, layout="half"))


@pytest.mark.parametrize(
    "head_dim, factor, expected", [(64, 1.0, 64), (64, 0.5, 32), (64, 0.25, 16), (80, 0.4, 32), (128, 0.75, 96)]
)
def test_partial_rotary_dim(head_dim, factor, expected):
    assert rope.partial_rotary_dim(head_dim, factor) == expected


@FAST
@given(seed=seeds, dim=even_dims)
def test_rope_angles_rotate_half_and_rotation_2x2(seed, dim):
    rng = np.random.default_rng(seed)
    positions = random_positions(rng, 5, 1000)
    inv = rng.uniform(0, 1, size=dim // 2)
    angles = rope.rope_angles(positions, inv)
    assert angles.shape == (len(positions), dim // 2)
    np.testing.assert_allclose(angles, [[m * t for t in inv] for m in positions], rtol=1e-15, atol=0)
    x = rng.normal(size=(3, dim))
    h = dim // 2
    np.testing.assert_array_equal(rope.rotate_half(x), np.concatenate([-x[:, h:], x[:, :h]], axis=-1))
    a = float(rng.uniform(-10, 10))
    np.testing.assert_allclose(
        rope.rotation_2x2(a), [[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], atol=1e-15
    )


def rope_matrix_ref(m, dim, inv_freq, layout):
    """Hand-built R(m): the block [[cos, −sin], [sin, cos]] placed on each pair."""
    r = np.eye(dim)
    h = dim // 2
    for j, t in enumerate(inv_freq):
        a, b = (j, j + h) if layout == "half" else (2 * j, 2 * j + 1)
        c, s = math.cos(m * t), math.sin(m * t)
        r[a, a], r[a, b], r[b, a], r[b, b] = c, -s, s, c
    return r


@FAST
@given(dim=even_dims, layout=rope_layouts, seed=seeds, m=st.floats(-5000, 5000), base=bases)
def test_rope_matrix_times_x_equals_apply_rope_and_is_orthogonal(dim, layout, seed, m, base):
    rng = np.random.default_rng(seed)
    r = rope.rope_matrix(m, dim, base=base, layout=layout)
    assert r.shape == (dim, dim)
    np.testing.assert_allclose(r, rope_matrix_ref(m, dim, ref_inverse_frequencies(dim, base), layout), atol=1e-12)
    x = rng.normal(size=dim)
    np.testing.assert_allclose(r @ x, rope.apply_rope(x[None, :], [m], base=base, layout=layout)[0], atol=1e-12)
    np.testing.assert_allclose(r.T @ r, np.eye(dim), atol=1e-12)
    np.testing.assert_allclose(np.linalg.det(r), 1.0, atol=1e-9)
    inv = rng.uniform(0, 1, size=dim // 2)
    np.testing.assert_allclose(
        rope.rope_matrix(m, dim, inv_freq=inv, layout=layout) @ x,
        rope.apply_rope(x[None, :], [m], inv_freq=inv, layout=layout)[0],
        atol=1e-12,
    )


@FAST
@given(dim=even_dims, layout=rope_layouts, m=st.floats(-1000, 1000), n=st.floats(-1000, 1000))
def test_rope_matrix_relative_identity(dim, layout, m, n):
    rm = rope.rope_matrix(m, dim, layout=layout)
    rn = rope.rope_matrix(n, dim, layout=layout)
    # The correct identity: R(m)ᵀR(n) = R(n − m); and composition adds angles: R(m)R(n) = R(m + n).
    np.testing.assert_allclose(rm.T @ rn, rope.rope_matrix(n - m, dim, layout=layout), atol=1e-9)
    np.testing.assert_allclose(rm @ rn, rope.rope_matrix(m + n, dim, layout=layout), atol=1e-9)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("m, n", [(3, 2), (5, 3), (1, 7), (105, 103)])
def test_seed_004_identity_R_m_R_n_equals_R_m_minus_n_is_false(layout, m, n):
    # Seed 004 writes "R(θ, m)·R(θ, n) = R(θ, m−n)". That is wrong: R(m)R(n) = R(m+n), and the
    # relative identity needs a transpose, R(m)ᵀR(n) = R(n−m).
    dim = 8
    rm, rn = rope.rope_matrix(m, dim, layout=layout), rope.rope_matrix(n, dim, layout=layout)
    assert np.abs(rm @ rn - rope.rope_matrix(m - n, dim, layout=layout)).max() > 0.1
    np.testing.assert_allclose(rm.T @ rn, rope.rope_matrix(n - m, dim, layout=layout), atol=1e-12)


# ==============================================================================================
# Relative-position algebra
# ==============================================================================================


@FAST
@given(dim=even_dims, layout=rope_layouts, seed=seeds, t=st.integers(-1000, 1000) | st.floats(-1000, 1000))
def test_rope_score_matrix_depends_only_on_n_minus_m(dim, layout, seed, t):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=dim), rng.normal(size=dim)
    pq = rng.integers(0, 2000, size=6).astype(float)
    pk = rng.integers(0, 2000, size=5).astype(float)
    s = relative.rope_score_matrix(q, k, pq, pk, layout=layout)
    assert s.shape == (6, 5)
    s_shifted = relative.rope_score_matrix(q, k, pq + t, pk + t, layout=layout)
    assert np.abs(s - s_shifted).max() <= 1e-9
    # ⟨R_m q, R_n k⟩ = ⟨q, R_{n−m} k⟩, computed with the hand-written loop.
    inv = ref_inverse_frequencies(dim, 10000.0)
    hand = [[float(np.dot(q, ref_rope_vector(k, n - m, inv, layout))) for n in pk] for m in pq]
    np.testing.assert_allclose(s, hand, rtol=0, atol=1e-9)


@FAST
@given(dim=even_dims, layout=rope_layouts, seed=seeds, t=st.integers(-(10**4), 10**4))
def test_rope_scores_via_apply_rope_depend_only_on_offset(dim, layout, seed, t):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=dim), rng.normal(size=dim)
    pos = rng.integers(0, 4096, size=8).astype(float)

    def scores(positions):
        rq = rope.apply_rope(np.tile(q, (len(positions), 1)), positions, layout=layout)
        rk = rope.apply_rope(np.tile(k, (len(positions), 1)), positions, layout=layout)
        return rq @ rk.T

    assert np.abs(scores(pos) - scores(pos + t)).max() <= 1e-9
    np.testing.assert_allclose(relative.rope_score_matrix(q, k, pos, pos, layout=layout), scores(pos), atol=1e-9)


def hand_shift_deviation(score_fn, n, offset):
    base = score_fn(np.arange(n, dtype=float))
    shifted = score_fn(np.arange(n, dtype=float) + offset)
    return max(abs(base[a, b] - shifted[a, b]) for a in range(n) for b in range(n))


@pytest.mark.parametrize("offset", [1, 5, 100, 2.5])
def test_additive_sinusoidal_scores_are_not_shift_invariant_but_rope_scores_are(offset):
    d, n = 16, 12
    rng = np.random.default_rng(7)
    x_q, x_k = rng.normal(size=d), rng.normal(size=d)
    w_q, w_k = rng.normal(size=(d, d)) / math.sqrt(d), rng.normal(size=(d, d)) / math.sqrt(d)

    def additive(positions):
        pe = sinusoidal.sinusoidal_encoding(positions, d)
        return relative.additive_score_matrix(x_q, x_k, pe, w_q, w_k)

    def rotary(positions):
        return relative.rope_score_matrix(x_q @ w_q, x_k @ w_k, positions, positions)

    dev_add = relative.shift_deviation(additive, n, offset)
    dev_rope = relative.shift_deviation(rotary, n, offset)
    assert dev_add == pytest.approx(hand_shift_deviation(additive, n, offset), abs=1e-12)
    assert dev_rope == pytest.approx(hand_shift_deviation(rotary, n, offset), abs=1e-12)
    assert dev_add > 1e-2, "additive sinusoidal scores should depend on absolute position"
    assert dev_rope < 1e-9, "RoPE scores should depend only on the offset"


@FAST
@given(d=even_dims, seed=seeds)
def test_additive_score_matrix_matches_the_formula(d, seed):
    rng = np.random.default_rng(seed)
    n = 5
    x_q, x_k = rng.normal(size=d), rng.normal(size=d)
    w_q, w_k = rng.normal(size=(d, d)), rng.normal(size=(d, d))
    pe = sinusoidal.sinusoidal_encoding(np.arange(n), d)
    got = relative.additive_score_matrix(x_q, x_k, pe, w_q, w_k)
    hand = [[float(((x_q + pe[m]) @ w_q) @ ((x_k + pe[j]) @ w_k)) for j in range(n)] for m in range(n)]
    np.testing.assert_allclose(got, hand, rtol=1e-12, atol=1e-10)


@pytest.mark.parametrize("slope", [0.5, 0.0625])
def test_alibi_bias(slope):
    n = 6
    np.testing.assert_allclose(
        relative.alibi_bias(n, slope), [[-slope * abs(m - j) for j in range(n)] for m in range(n)], atol=0
    )


def test_attention_weights_are_row_stochastic_and_causal_mask_works():
    rng = np.random.default_rng(1)
    n, d = 7, 8
    x, w_q, w_k = rng.normal(size=(n, d)), rng.normal(size=(d, d)), rng.normal(size=(d, d))
    pe = sinusoidal.sinusoidal_encoding(np.arange(n), d)
    for kwargs in [{}, {"pe": pe}, {"rope_inv_freq": sinusoidal.inverse_frequencies(d)}, {"alibi_slope": 0.5}]:
        w = relative.attention_weights(x, w_q, w_k, **kwargs)
        assert w.shape == (n, n)
        np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-12)
        assert np.all(w >= 0)
        wc = relative.attention_weights(x, w_q, w_k, causal=True, **kwargs)
        np.testing.assert_allclose(wc.sum(axis=1), 1.0, atol=1e-12)
        assert np.all(np.triu(wc, k=1) == 0)


def test_attention_without_position_is_permutation_equivariant():
    # The motivating fact: with no positional signal, shuffling tokens just shuffles the weights.
    rng = np.random.default_rng(2)
    n, d = 6, 8
    x, w_q, w_k = rng.normal(size=(n, d)), rng.normal(size=(d, d)), rng.normal(size=(d, d))
    perm = rng.permutation(n)
    w = relative.attention_weights(x, w_q, w_k)
    np.testing.assert_allclose(relative.attention_weights(x[perm], w_q, w_k), w[np.ix_(perm, perm)], atol=1e-12)
    pe = sinusoidal.sinusoidal_encoding(np.arange(n), d)
    w_pe = relative.attention_weights(x, w_q, w_k, pe=pe)
    assert np.abs(relative.attention_weights(x[perm], w_q, w_k, pe=pe) - w_pe[np.ix_(perm, perm)]).max() > 1e-6


# ==============================================================================================
# Context extension (scaling)
# ==============================================================================================

MAXPOS = 4096


def inv_af(params, dim, *, max_position_embeddings=MAXPOS, seq_len=None):
    inv, af = scaling.rope_inverse_frequencies(
        params, dim, max_position_embeddings=max_position_embeddings, seq_len=seq_len
    )
    return np.asarray(inv, dtype=float), float(af)


def test_registry_has_exactly_the_documented_methods():
    assert set(scaling.ROPE_SCALING) == {
        "default",
        "linear",
        "ntk",
        "dynamic",
        "yarn",
        "llama3",
        "longrope",
        "proportional",
    }
    assert all(callable(fn) for fn in scaling.ROPE_SCALING.values())


@pytest.mark.parametrize(
    "params",
    [
        {"rope_type": "default", "rope_theta": 5e5},
        {"rope_type": "linear", "factor": 4.0},
        {"rope_type": "ntk", "factor": 4.0},
        {"rope_type": "dynamic", "factor": 2.0},
        {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 1024},
        {
            "rope_type": "llama3",
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 512,
            "rope_theta": 5e5,
        },
        {
            "rope_type": "longrope",
            "factor": 4.0,
            "original_max_position_embeddings": 1024,
            "short_factor": [1.0 + j / 10 for j in range(32)],
            "long_factor": [2.0 + j for j in range(32)],
        },
    ],
    ids=lambda p: p["rope_type"],
)
@pytest.mark.parametrize("seq_len", [None, 1000, 3 * MAXPOS])
def test_registry_functions_agree_with_rope_inverse_frequencies(params, seq_len):
    fn = scaling.ROPE_SCALING[params["rope_type"]]
    inv_fn, af_fn = fn(params, 64, max_position_embeddings=MAXPOS, seq_len=seq_len)
    inv, af = inv_af(params, 64, seq_len=seq_len)
    np.testing.assert_allclose(inv_fn, inv, rtol=1e-15)
    assert af_fn == pytest.approx(af, rel=1e-15)
    assert np.shape(inv) == (32,)


@FAST
@given(dim=even_dims.filter(lambda d: d >= 4), base=bases)
def test_default_is_theta_with_unit_attention_factor(dim, base):
    inv, af = inv_af({"rope_type": "default", "rope_theta": base}, dim)
    np.testing.assert_allclose(inv, ref_inverse_frequencies(dim, base), rtol=1e-12)
    assert af == 1.0


@FAST
@given(dim=even_dims.filter(lambda d: d >= 4), base=bases, seq_len=st.none() | st.integers(1, 4 * MAXPOS))
def test_every_method_reduces_to_default_at_factor_one(dim, base, seq_len):
    default, _ = inv_af({"rope_type": "default", "rope_theta": base}, dim)
    common = {"rope_theta": base, "factor": 1.0}
    cases = {
        "linear": {},
        "ntk": {},
        "yarn": {"original_max_position_embeddings": MAXPOS},
        "llama3": {"low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": MAXPOS},
        "longrope": {
            "original_max_position_embeddings": MAXPOS,
            "short_factor": [1.0] * (dim // 2),
            "long_factor": [1.0] * (dim // 2),
        },
    }
    for rope_type, extra in cases.items():
        inv, af = inv_af({"rope_type": rope_type, **common, **extra}, dim, seq_len=seq_len)
        np.testing.assert_allclose(inv, default, rtol=1e-12, err_msg=rope_type)
        assert af == pytest.approx(1.0, abs=1e-15), rope_type
    # dynamic at factor 1 is default only while the sequence fits (T = max(seq_len, M) = M).
    if seq_len is None or seq_len <= MAXPOS:
        inv, af = inv_af({"rope_type": "dynamic", **common}, dim, seq_len=seq_len)
        np.testing.assert_allclose(inv, default, rtol=1e-12)
        assert af == 1.0


@FAST
@given(dim=even_dims.filter(lambda d: d >= 4), base=bases, factor=factors, seq_len=st.none() | st.integers(1, 10**5))
def test_linear_is_default_divided_by_factor(dim, base, factor, seq_len):
    default, _ = inv_af({"rope_type": "default", "rope_theta": base}, dim)
    inv, af = inv_af({"rope_type": "linear", "rope_theta": base, "factor": factor}, dim, seq_len=seq_len)
    np.testing.assert_allclose(inv, default / factor, rtol=1e-12)
    assert af == 1.0


@FAST
@given(dim=even_dims, factor=factors, seed=seeds, layout=rope_layouts)
def test_linear_scaling_equals_dividing_positions_by_factor(dim, factor, seed, layout):
    rng = np.random.default_rng(seed)
    positions = np.arange(6, dtype=float) * 37
    x = rng.normal(size=(len(positions), dim))
    inv, _ = inv_af({"rope_type": "linear", "factor": factor}, dim)
    np.testing.assert_allclose(
        rope.apply_rope(x, positions, inv_freq=inv, layout=layout),
        rope.apply_rope(x, positions / factor, layout=layout),
        atol=1e-10,
    )


@FAST
@given(
    dim=even_dims.filter(lambda d: d >= 4),
    base=bases,
    factor=exact_factors,
    orig=st.sampled_from([256, 2048, 4096, 8192, 32768]),
    betas=st.tuples(st.floats(1.5, 64), st.floats(0.1, 1.4)),
    truncate=st.booleans(),
)
def test_yarn_inv_freq_lies_between_default_over_factor_and_default(dim, base, factor, orig, betas, truncate):
    beta_fast, beta_slow = betas
    default, _ = inv_af({"rope_type": "default", "rope_theta": base}, dim)
    params = {
        "rope_type": "yarn",
        "rope_theta": base,
        "factor": factor,
        "original_max_position_embeddings": orig,
        "beta_fast": beta_fast,
        "beta_slow": beta_slow,
        "truncate": truncate,
    }
    inv, af = inv_af(params, dim, max_position_embeddings=round(factor * orig))
    assert np.all(inv >= default / factor * (1 - 1e-12))
    assert np.all(inv <= default * (1 + 1e-12))
    # High-frequency pairs (small j) are never interpolated more than low-frequency ones.
    ratio = inv / default
    assert np.all(np.diff(ratio) <= 1e-12)
    assert af == pytest.approx(0.1 * math.log(factor) + 1 if factor > 1 else 1.0, rel=1e-12)


@FAST
@given(
    dim=even_dims.filter(lambda d: d >= 4),
    base=bases,
    factor=exact_factors,
    orig=st.sampled_from([256, 2048, 8192, 131072]),
    freq=st.tuples(st.floats(0.25, 4), st.floats(0.1, 8)),
)
def test_llama3_inv_freq_lies_between_default_over_factor_and_default(dim, base, factor, orig, freq):
    low_freq_factor, gap = freq
    high_freq_factor = low_freq_factor + gap
    default, _ = inv_af({"rope_type": "default", "rope_theta": base}, dim)
    params = {
        "rope_type": "llama3",
        "rope_theta": base,
        "factor": factor,
        "low_freq_factor": low_freq_factor,
        "high_freq_factor": high_freq_factor,
        "original_max_position_embeddings": orig,
    }
    inv, af = inv_af(params, dim, max_position_embeddings=round(factor * orig))
    assert np.all(inv >= default / factor * (1 - 1e-12))
    assert np.all(inv <= default * (1 + 1e-12))
    assert af == 1.0
    bands = list(
        scaling.llama3_bands(
            default,
            factor=factor,
            low_freq_factor=low_freq_factor,
            high_freq_factor=high_freq_factor,
            original_max_position_embeddings=orig,
        )
    )
    _, _, ref_bands = ref_llama3(dim, base, factor, low_freq_factor, high_freq_factor, orig)
    assert bands == ref_bands
    for j, band in enumerate(bands):
        if band == "kept":
            assert inv[j] == pytest.approx(default[j], rel=1e-12)
        elif band == "divided":
            assert inv[j] == pytest.approx(default[j] / factor, rel=1e-12)


@FAST
@given(dim=even_dims.filter(lambda d: d >= 4), base=bases, factor=factors, seq_len=st.none() | st.integers(1, MAXPOS))
def test_dynamic_within_max_position_embeddings_equals_default(dim, base, factor, seq_len):
    default, _ = inv_af({"rope_type": "default", "rope_theta": base}, dim)
    inv, af = inv_af({"rope_type": "dynamic", "rope_theta": base, "factor": factor}, dim, seq_len=seq_len)
    np.testing.assert_allclose(inv, default, rtol=1e-12)
    assert af == 1.0


@FAST
@given(dim=even_dims.filter(lambda d: d >= 4), factor=st.floats(1.01, 64), extra=st.integers(1, 10**5))
def test_dynamic_beyond_max_position_embeddings_raises_the_base(dim, factor, extra):
    default, _ = inv_af({"rope_type": "default"}, dim)
    short, _ = inv_af({"rope_type": "dynamic", "factor": factor}, dim, seq_len=MAXPOS + extra)
    longer, _ = inv_af({"rope_type": "dynamic", "factor": factor}, dim, seq_len=MAXPOS + 2 * extra)
    assert short[0] == pytest.approx(1.0)  # θ_0 = base^0 whatever the base
    assert np.all(short[1:] < default[1:])
    assert np.all(longer[1:] < short[1:])  # longer sequence → larger base → lower frequencies


@FAST
@given(dim=even_dims.filter(lambda d: d >= 4), base=bases, alpha=st.floats(1.0, 100.0))
def test_ntk_alpha_base_round_trip_and_ntk_config(dim, base, alpha):
    new_base = scaling.ntk_alpha_to_base(alpha, dim, base=base)
    assert new_base == pytest.approx(base * alpha ** (dim / (dim - 2)), rel=1e-12)
    assert scaling.base_to_ntk_alpha(new_base, dim, base=base) == pytest.approx(alpha, rel=1e-9)
    inv, af = inv_af({"rope_type": "ntk", "rope_theta": base, "factor": alpha}, dim)
    np.testing.assert_allclose(inv, ref_inverse_frequencies(dim, new_base), rtol=1e-12)
    assert af == 1.0


@FAST
@given(dim=even_dims.filter(lambda d: d >= 4), base=bases, factor=exact_factors, orig=st.sampled_from([512, 4096]))
def test_yarn_matches_reference_loop(dim, base, factor, orig):
    params = {"rope_type": "yarn", "rope_theta": base, "factor": factor, "original_max_position_embeddings": orig}
    inv, af = inv_af(params, dim, max_position_embeddings=round(factor * orig))
    ref_inv, ref_af = ref_yarn(dim, base, factor, orig)
    np.testing.assert_allclose(inv, ref_inv, rtol=1e-12)
    assert af == pytest.approx(ref_af, rel=1e-12)


@pytest.mark.parametrize("prf", [0.25, 0.5, 0.75])
def test_partial_rotary_factor_shrinks_the_rotated_dim(prf):
    inv, _ = inv_af({"rope_type": "default", "partial_rotary_factor": prf}, 128)
    rot = int(128 * prf)
    np.testing.assert_allclose(inv, ref_inverse_frequencies(rot, 10000.0), rtol=1e-12)
    inv_lin, _ = inv_af({"rope_type": "linear", "factor": 2.0, "partial_rotary_factor": prf}, 128)
    np.testing.assert_allclose(inv_lin, np.array(ref_inverse_frequencies(rot, 10000.0)) / 2, rtol=1e-12)


# ==============================================================================================
# Precision
# ==============================================================================================

INV32 = np.array(ref_inverse_frequencies(64, 10000.0))


def test_cos_sin_float64_is_exact_and_phase_error_zero():
    positions = np.array([0.0, 1.0, 1857.0, 10**5])
    c, s = precision.cos_sin(positions, INV32, dtype="float64")
    assert c.dtype == np.float64 and c.shape == (4, 32)
    np.testing.assert_allclose(c, np.cos(np.outer(positions, INV32)), atol=1e-15)
    np.testing.assert_allclose(s, np.sin(np.outer(positions, INV32)), atol=1e-15)
    err = precision.phase_error(positions, INV32, dtype="float64")
    assert err.shape == (4,)
    np.testing.assert_allclose(err, 0.0, atol=1e-15)


@pytest.mark.parametrize("dtype, tol", [("float32", 1e-6), ("float16", 1e-3)])
def test_cos_sin_low_precision_matches_numpy_cast_reference(dtype, tol):
    # positions and θ cast to dtype, product rounded in dtype, cos/sin at dtype (numpy reference;
    # tol ≈ one ulp of the result, to allow a different cos/sin implementation at that dtype).
    positions = np.array([0.0, 1.0, 7.0, 100.0, 1857.0, 4000.0])
    np_dtype = np.dtype(dtype)
    angle = positions.astype(np_dtype)[:, None] * INV32.astype(np_dtype)[None, :]
    assert angle.dtype == np_dtype
    c, s = precision.cos_sin(positions, INV32, dtype=dtype)
    assert c.dtype == np.float64
    np.testing.assert_allclose(c, np.cos(angle).astype(float), atol=tol)
    np.testing.assert_allclose(s, np.sin(angle).astype(float), atol=tol)
    exact = np.outer(positions, INV32)
    expected_err = np.maximum(np.abs(np.cos(angle) - np.cos(exact)), np.abs(np.sin(angle) - np.sin(exact))).max(axis=1)
    np.testing.assert_allclose(precision.phase_error(positions, INV32, dtype=dtype), expected_err, atol=tol)


def test_float16_loses_phase_at_long_positions_float32_does_not():
    err16 = precision.phase_error([10.0, 1857.0], INV32, dtype="float16")
    err32 = precision.phase_error([10.0, 1857.0], INV32, dtype="float32")
    assert err16[1] > 0.5  # ~0.71 for d=64, base 1e4 (REFERENCE: 0.78 reported at position 1857)
    assert err16[0] < 0.05
    assert err32[1] < 1e-4


def test_bfloat16_matches_torch_cast_reference():
    torch = pytest.importorskip("torch", reason="bfloat16 needs torch (numpy has no bfloat16)")
    positions = np.array([0.0, 3.0, 100.0, 1857.0])
    p = torch.tensor(positions, dtype=torch.float64).to(torch.bfloat16)[:, None]
    t = torch.tensor(INV32, dtype=torch.float64).to(torch.bfloat16)[None, :]
    angle = p * t
    assert angle.dtype == torch.bfloat16
    c, s = precision.cos_sin(positions, INV32, dtype="bfloat16")
    np.testing.assert_allclose(c, torch.cos(angle).double().numpy(), atol=8e-3)
    np.testing.assert_allclose(s, torch.sin(angle).double().numpy(), atol=8e-3)
    # bfloat16 keeps 8 significant bits: position 1857 itself rounds to 1856.
    assert precision.phase_error([1857.0], INV32, dtype="bfloat16")[0] > 0.5


# ==============================================================================================
# numpy == torch (posenc.torch), float32, atol 1e-6
# ==============================================================================================


@pytest.fixture(scope="module")
def torch_and_module():
    try:
        import torch
    except Exception as exc:  # pragma: no cover - depends on the environment
        pytest.skip(f"torch could not be imported ({exc!r}); the numpy == torch checks need it")
    import posenc.torch as posenc_torch  # an import error here is a real failure, not a skip

    return torch, posenc_torch


def as_numpy(t):
    return t.detach().cpu().double().numpy() if hasattr(t, "detach") else np.asarray(t, dtype=float)


# Small positions keep float32 angle rounding (≈ |angle|·6e-8) well inside atol 1e-6.
SMALL_POSITIONS = [0.0, 1.0, 2.0, 3.0, 0.5]


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
@pytest.mark.parametrize("d_model, base", [(8, 10000.0), (16, 10000.0), (64, 500.0), (7, 10000.0)])
def test_torch_sinusoidal_equals_numpy(torch_and_module, layout, d_model, base):
    torch, pt = torch_and_module
    module = pt.SinusoidalPositionalEncoding(d_model, base=base, layout=layout)
    out = module(torch.tensor(SMALL_POSITIONS, dtype=torch.float32))
    assert tuple(out.shape) == (len(SMALL_POSITIONS), d_model)
    expected = sinusoidal.sinusoidal_encoding(SMALL_POSITIONS, d_model, base=base, layout=layout)
    np.testing.assert_allclose(as_numpy(out), expected, rtol=0, atol=1e-6)
    np.testing.assert_allclose(
        as_numpy(out), [ref_sinusoidal_row(p, d_model, base, layout) for p in SMALL_POSITIONS], atol=1e-6
    )


def test_torch_learned_embedding_lookup_and_no_extrapolation(torch_and_module):
    torch, pt = torch_and_module
    module = pt.LearnedPositionalEmbedding(16, 8, seed=0)
    all_rows = as_numpy(module(torch.arange(16)))
    assert all_rows.shape == (16, 8)
    np.testing.assert_array_equal(as_numpy(module(torch.tensor([3, 0, 15]))), all_rows[[3, 0, 15]])
    np.testing.assert_array_equal(
        as_numpy(pt.LearnedPositionalEmbedding(16, 8, seed=0)(torch.arange(16))), all_rows
    )  # seeded
    with pytest.raises(ValueError, match="extrapolat"):
        module(torch.tensor([0, 16]))


ROTARY_CONFIGS = [  # max_position_embeddings 2048 = factor × original for every scaled entry
    None,
    {"rope_type": "default", "rope_theta": 500000.0},
    {"rope_type": "linear", "factor": 4.0},
    {"rope_type": "ntk", "factor": 4.0},
    {"rope_type": "dynamic", "factor": 2.0},
    {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 512},
    {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 256,
        "rope_theta": 500000.0,
    },
    {
        "rope_type": "longrope",
        "factor": 4.0,
        "original_max_position_embeddings": 512,
        "short_factor": [1.0 + j / 32 for j in range(32)],
        "long_factor": [1.0 + j for j in range(32)],
    },
    {"type": "linear", "factor": 2.0, "partial_rotary_factor": 0.5},
]


def rotary_id(params):
    if params is None:
        return "none"
    name = params.get("rope_type", params.get("type"))
    return name + ("-partial" if "partial_rotary_factor" in params else "")


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("seq_len", [4, 8192])
@pytest.mark.parametrize("params", ROTARY_CONFIGS, ids=rotary_id)
def test_torch_rotary_embedding_equals_numpy(torch_and_module, params, seq_len, layout):
    torch, pt = torch_and_module
    head_dim, max_pos = 64, 2048
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, size=(2, 3, 4, head_dim)).astype(np.float32)  # (batch, heads, seq, head_dim)
    positions = np.arange(4)
    module = pt.RotaryEmbedding(head_dim, rope_parameters=params, max_position_embeddings=max_pos, layout=layout)
    out = module(torch.from_numpy(x), torch.from_numpy(positions), seq_len=seq_len)
    assert tuple(out.shape) == x.shape
    inv, af = scaling.rope_inverse_frequencies(
        params or {"rope_type": "default"}, head_dim, max_position_embeddings=max_pos, seq_len=seq_len
    )
    expected = rope.apply_rope(
        x.astype(float), positions, inv_freq=inv, layout=layout, rotary_dim=2 * len(inv), attention_factor=af
    )
    np.testing.assert_allclose(as_numpy(out), expected, rtol=0, atol=1e-6)


@pytest.mark.parametrize("kind", ["none", "sinusoidal", "rope"])
def test_torch_attention_head_equals_numpy(torch_and_module, kind):
    torch, pt = torch_and_module
    rng = np.random.default_rng(3)
    n, d = 5, 8
    x = rng.uniform(-1, 1, size=(n, d))
    w_q, w_k, w_v = (rng.uniform(-0.5, 0.5, size=(d, d)) for _ in range(3))
    pe = sinusoidal.sinusoidal_encoding(np.arange(n), d) if kind == "sinusoidal" else None
    inv = sinusoidal.inverse_frequencies(d) if kind == "rope" else None
    t = lambda a: None if a is None else torch.tensor(a, dtype=torch.float32)  # noqa: E731
    weights, outputs = pt.attention_head(t(x), t(w_q), t(w_k), t(w_v), pe=t(pe), rope_inv_freq=t(inv))
    expected_w = relative.attention_weights(x, w_q, w_k, pe=pe, rope_inv_freq=inv)
    np.testing.assert_allclose(as_numpy(weights), expected_w, atol=1e-6)
    v = (x + pe) @ w_v if pe is not None else x @ w_v  # V is never rotated
    np.testing.assert_allclose(as_numpy(outputs), expected_w @ v, atol=1e-6)


# ==============================================================================================
# Later contract additions: angles, shift residual, float32 scores and their tolerance,
# rope_mean_cos, seeded_normal, interpolate_positions, out_of_distribution_pairs, parse_vector
# ==============================================================================================


PI = math.pi


def angle_diff(a, b):
    """Signed difference a − b folded into [−π, π) (compares angles modulo 2π)."""
    return (a - b + PI) % (2 * PI) - PI


def in_half_open_pi_interval(a):
    a = np.asarray(a)
    return bool(np.all((a > -PI) & (a <= PI)))


@FAST
@given(angle=st.floats(-1e4, 1e4))
def test_wrap_angle_lands_in_minus_pi_pi_and_keeps_the_direction(angle):
    w = float(rope.wrap_angle(angle))
    assert in_half_open_pi_interval(w)
    assert abs(math.cos(w) - math.cos(angle)) < 1e-11 and abs(math.sin(w) - math.sin(angle)) < 1e-11


def test_wrap_angle_boundaries_and_arrays():
    assert float(rope.wrap_angle(PI)) == pytest.approx(PI, abs=1e-15)
    assert float(rope.wrap_angle(-PI)) == pytest.approx(PI, abs=1e-15)  # (−π, π]: −π maps to π
    assert float(rope.wrap_angle(0.0)) == 0.0
    assert float(rope.wrap_angle(1.5 * PI)) == pytest.approx(-0.5 * PI, abs=1e-15)
    got = rope.wrap_angle(np.array([0.25, 2 * PI + 0.25, -2 * PI + 0.25, 7.0]))
    np.testing.assert_allclose(got, [0.25, 0.25, 0.25, 7.0 - 2 * PI], atol=1e-14)


@pytest.mark.parametrize(
    "angle, length, degrees, expected",
    [
        (PI / 6, 1.0, False, [math.sqrt(3) / 2, 0.5]),
        (90.0, 2.0, True, [0.0, 2.0]),
        (180.0, 1.5, True, [-1.5, 0.0]),
        (-PI / 2, 3.0, False, [0.0, -3.0]),
    ],
)
def test_polar_to_xy(angle, length, degrees, expected):
    xy = rope.polar_to_xy(angle, length, degrees=degrees)
    assert np.shape(xy) == (2,)
    np.testing.assert_allclose(xy, expected, atol=1e-15)


@FAST
@given(seed=seeds)
def test_signed_angle_turns_a_onto_b(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=2), rng.normal(size=2)
    ang = float(rope.signed_angle(a, b))
    assert in_half_open_pi_interval(ang)
    hand = math.atan2(a[0] * b[1] - a[1] * b[0], a[0] * b[0] + a[1] * b[1])
    assert abs(angle_diff(ang, hand)) < 1e-12
    turned = rope.rotation_2x2(ang) @ (a / np.linalg.norm(a))
    np.testing.assert_allclose(turned, b / np.linalg.norm(b), atol=1e-12)
    assert float(rope.signed_angle(b, a)) == pytest.approx(-ang, abs=1e-12) or abs(ang) == pytest.approx(PI)


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ([1, 0], [0, 1], PI / 2),
        ([0, 1], [1, 0], -PI / 2),
        ([1, 0], [-1, 0], PI),
        ([-1, 0], [1, 0], PI),
        ([0, -2], [0, 3], PI),
        ([2, 2], [3, 3], 0.0),
    ],
    ids=["+90", "-90", "180-from-x", "180-from-minus-x", "180-vertical", "parallel"],
)
def test_signed_angle_exact_cases_including_pi_not_minus_pi(a, b, expected):
    assert float(rope.signed_angle(a, b)) == pytest.approx(expected, abs=1e-15)


@FAST
@given(seed=seeds, m=st.integers(0, 5000), n=st.integers(0, 5000), theta=st.floats(1e-4, 2.0))
def test_pair_angles_prediction_matches_the_measured_angle(seed, m, n, theta):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=2), rng.normal(size=2)
    res = rope.pair_angles(q, k, m, n, theta)
    before, offset, predicted, measured = res  # a 4-tuple …
    assert (res.before, res.offset, res.predicted, res.measured) == (before, offset, predicted, measured)  # … named
    for value in res:
        assert in_half_open_pi_interval(value)
    hand_before = math.atan2(k[0] * q[1] - k[1] * q[0], k[0] * q[0] + k[1] * q[1])  # ∠(k → q)
    assert abs(angle_diff(before, hand_before)) < 1e-12
    assert abs(angle_diff(offset, (m - n) * theta)) < 1e-9
    assert abs(angle_diff(predicted, hand_before + (m - n) * theta)) < 1e-9
    r = lambda a: np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])  # noqa: E731
    rq, rk = r(m * theta) @ q, r(n * theta) @ k
    hand_measured = math.atan2(rk[0] * rq[1] - rk[1] * rq[0], rk[0] * rq[0] + rk[1] * rq[1])
    assert abs(angle_diff(measured, hand_measured)) < 1e-9
    assert abs(angle_diff(measured, predicted)) < 1e-9  # the relative-position property, one pair


@FAST
@given(d=even_dims, layout=sin_layouts, seed=seeds, k=st.floats(-1000, 1000), base=bases)
def test_shift_residual_is_round_off_at_float64(d, layout, seed, k, base):
    positions = random_positions(np.random.default_rng(seed), 7, 1000)
    res = sinusoidal.shift_residual(positions, k, d, base=base, layout=layout)
    assert res.shape == (len(positions),)
    assert np.all(res >= 0) and np.all(res < 1e-11)
    pe_p = sinusoidal.sinusoidal_encoding(positions, d, base=base, layout=layout)
    pe_pk = sinusoidal.sinusoidal_encoding(positions + k, d, base=base, layout=layout)
    direct = np.linalg.norm(pe_pk - pe_p @ sinusoidal.shift_matrix(k, d, base=base, layout=layout).T, axis=1)
    np.testing.assert_allclose(res, direct, atol=1e-11)


def test_shift_residual_float32_shows_round_off_growing_with_position():
    positions = [0.0, 10.0, 1e3, 1e5]
    r64 = sinusoidal.shift_residual(positions, 3, 64)
    r32 = sinusoidal.shift_residual(positions, 3, 64, dtype="float32")
    assert np.all(r64 < 1e-10)
    assert r32[-1] > 1e-5  # float32 angles at p = 1e5 are off by ~1e5·6e-8
    assert r32[-1] > r32[1]
    assert np.all(r32 < 0.5)


def shift_tolerance_formula(q, k, max_position, dtype):
    eps = np.finfo(np.dtype(dtype)).eps
    return eps * np.linalg.norm(q) * np.linalg.norm(k) * (4 * max_position + 2 * len(q) + 8)


@FAST
@given(
    dim=st.integers(1, 32).map(lambda h: 2 * h),
    seed=seeds,
    p=st.integers(1, 10**5),
    dtype=st.sampled_from(["float64", "float32"]),
)
def test_rope_shift_tolerance_formula_and_it_bounds_the_shift_deviation(dim, seed, p, dtype):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=dim), rng.normal(size=dim)
    tol = relative.rope_shift_tolerance(q, k, p, dtype=dtype)
    assert tol == pytest.approx(shift_tolerance_formula(q, k, p, dtype), rel=1e-12)
    # The pass mark must actually pass: all positions (shifted ones included) stay ≤ P.
    t = int(rng.integers(0, p + 1))
    pos = rng.integers(0, p - t + 1, size=6).astype(float)
    s = relative.rope_score_matrix(q, k, pos, pos, dtype=dtype)
    s_t = relative.rope_score_matrix(q, k, pos + t, pos + t, dtype=dtype)
    assert np.abs(np.asarray(s, float) - np.asarray(s_t, float)).max() <= tol


def test_rope_score_matrix_float32_is_computed_in_float32():
    rng = np.random.default_rng(11)
    q, k = rng.normal(size=64), rng.normal(size=64)
    pos = np.array([0.0, 1.0, 5000.0, 60000.0])
    s64 = relative.rope_score_matrix(q, k, pos, pos)
    s32 = np.asarray(relative.rope_score_matrix(q, k, pos, pos, dtype="float32"), float)
    diff = np.abs(s32 - s64).max()
    assert diff > 1e-7  # really float32 round-off, not float64 values relabelled
    assert diff <= relative.rope_shift_tolerance(q, k, 60000, dtype="float32")
    np.testing.assert_allclose(relative.rope_score_matrix(q, k, pos, pos, dtype="float64"), s64, rtol=0, atol=0)


@FAST
@given(dim=even_dims, seed=seeds, af=st.floats(0.5, 2.0))
def test_rope_mean_cos_matches_the_formula_and_the_ones_score(dim, seed, af):
    rng = np.random.default_rng(seed)
    inv = rng.uniform(1e-4, 1.0, size=dim // 2)
    distances = np.concatenate([[0.0], rng.uniform(-500, 500, size=6)])
    got = relative.rope_mean_cos(distances, inv, attention_factor=af)
    assert got.shape == distances.shape
    hand = [af**2 * sum(math.cos(r * t) for t in inv) / (dim // 2) for r in distances]
    np.testing.assert_allclose(got, hand, atol=1e-12)
    assert got[0] == pytest.approx(af**2)
    # = score of q = k = ones at offset r, per |q|² = dim (a = 1)
    ones = np.ones(dim)
    scores = relative.rope_score_matrix(ones, ones, [0.0], distances, inv_freq=inv)[0] / dim
    np.testing.assert_allclose(relative.rope_mean_cos(distances, inv), scores, atol=1e-12)


def test_seeded_normal():
    a = relative.seeded_normal((400, 50), seed=5)
    assert a.shape == (400, 50)
    np.testing.assert_array_equal(a, relative.seeded_normal((400, 50), seed=5))
    assert not np.allclose(a, relative.seeded_normal((400, 50), seed=6))
    assert abs(a.std() - 1.0) < 0.03 and abs(a.mean()) < 0.03
    assert abs(relative.seeded_normal((400, 50), seed=5, std=0.1).std() - 0.1) < 0.003
    assert relative.seeded_normal((7,), seed=0).shape == (7,)


@FAST
@given(seed=seeds, factor=st.floats(0.25, 64))
def test_interpolate_positions_divides_by_factor(seed, factor):
    positions = random_positions(np.random.default_rng(seed), 8, 10**5)
    np.testing.assert_allclose(scaling.interpolate_positions(positions, factor=factor), positions / factor, rtol=1e-15)


def ood_ref(inv, scaled, trained, target):
    """T·θ'_j > L·θ_j and L·θ_j < 2π, per pair."""
    return [target * s > trained * t and trained * t < 2 * PI for t, s in zip(inv, scaled)]


@pytest.mark.parametrize("dim, base", [(64, 1e4), (128, 1e4), (128, 5e5)])
@pytest.mark.parametrize("trained, target", [(2048, 8192), (4096, 4096), (4096, 65536), (8192, 4096)])
def test_out_of_distribution_pairs(dim, base, trained, target):
    theta = sinusoidal.inverse_frequencies(dim, base=base)
    got = scaling.out_of_distribution_pairs(theta, theta, trained_length=trained, target_length=target)
    assert np.asarray(got).dtype == bool and np.shape(got) == (dim // 2,)
    assert list(got) == ood_ref(theta, theta, trained, target)
    if target > trained:
        # Unscaled RoPE past the training length: exactly the pairs that never completed a turn.
        assert list(got) == [trained * t < 2 * PI for t in theta] and any(got)
    # Position Interpolation with factor T/L (a power of two here) removes every OOD pair …
    if target >= trained:
        pi = theta / (target / trained)
        assert not any(scaling.out_of_distribution_pairs(theta, pi, trained_length=trained, target_length=target))
    # … and yarn / llama3 follow the hand rule too.
    for params in [
        {"rope_type": "yarn", "rope_theta": base, "factor": 4.0, "original_max_position_embeddings": trained},
        {
            "rope_type": "llama3",
            "rope_theta": base,
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": trained,
        },
    ]:
        scaled, _ = scaling.rope_inverse_frequencies(params, dim, max_position_embeddings=target)
        got = scaling.out_of_distribution_pairs(theta, scaled, trained_length=trained, target_length=target)
        assert list(got) == ood_ref(theta, scaled, trained, target), params["rope_type"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1, 2, 3", [1, 2, 3]),
        ("[1.5, -2e3]", [1.5, -2000.0]),
        ("(1,2)", [1, 2]),
        ("  1 ,2  ", [1, 2]),
        ("0.25", [0.25]),
        ("+1, .5, -0", [1, 0.5, 0]),
        ("[ 3 , 4 ]", [3, 4]),
    ],
)
def test_parse_vector_accepts_comma_separated_numbers(text, expected):
    got = posenc.parse_vector(text)
    assert got.dtype == np.float64 and got.shape == (len(expected),)
    np.testing.assert_array_equal(got, expected)


@settings(max_examples=40, deadline=None)
@given(
    short=st.integers(1, 300),
    more=st.integers(0, 300),
    d=st.integers(1, 32).map(lambda h: 2 * h),
    seed=st.integers(0, 2**31),
    std=st.floats(0.01, 3),
)
def test_a_longer_learned_table_starts_with_the_shorter_one(short, more, d, seed, std):
    """posenc.learned_table's rows do not depend on the table's length: a longer table's first rows are the shorter
    one's, bit for bit. The invariance page relies on it (explorer.compute.invariance.chart_rows computes the learned
    test with a table as long as each point needs, and the chart hides it past the slider's table)."""
    a = posenc.learned_table(short, d, seed=seed, std=std)
    b = posenc.learned_table(short + more, d, seed=seed, std=std)
    assert np.array_equal(b[:short], a)
