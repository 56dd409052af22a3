"""posenc.attention: tokens, seeded embeddings, the permutation-equivariance gap, per-method scores.

Numbers are checked against hand-written loops (math only) and tests/_posenc_reference_impl.py,
never against posenc itself.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from _attention_reference import ref_gap_both, ref_gap_rows, ref_head, ref_score
from _posenc_reference_impl import ref_inverse_frequencies, ref_sinusoidal_row
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc import alibi_bias, attention_weights, learned_table, sinusoidal_encoding
from posenc import attention as att

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------------------------ tokenize
def test_tokenize_default_sentence():
    assert att.tokenize("the cat sat on the mat") == (["the", "cat", "sat", "on", "the", "mat"], 6)


def test_tokenize_lowercases_and_strips_punctuation():
    words, n = att.tokenize("  Hello,   WORLD!  (don't) e-mail  ")
    assert words == ["hello", "world", "don't", "e-mail"] and n == 4


def test_tokenize_clamps_tokens_and_long_words():
    words, n = att.tokenize(" ".join(f"w{i}" for i in range(500)), max_tokens=24)
    assert len(words) == 24 and n == 500 and words[0] == "w0" and words[-1] == "w23"
    words, _ = att.tokenize("a " + "x" * 100, max_token_chars=16)
    assert words == ["a", "x" * 16]


@pytest.mark.parametrize("text", ["", "   ", "!!! ??? ...", "the the the", "word", "*** cat ***", "\x00\x01"])
def test_tokenize_rejects_fewer_than_two_different_words(text):
    with pytest.raises(ValueError, match="text must contain at least two different words"):
        att.tokenize(text)


def test_tokenize_rejects_non_strings():
    with pytest.raises(TypeError, match="text"):
        att.tokenize(None)


def test_tokenize_drops_markup_characters():
    words, _ = att.tokenize("![img](http://x.y) <b>bold</b> cat")
    assert all(not set(w) & set("[]()<>!/:.") for w in words)


# ----------------------------------------------------------------------------------- shuffles
@pytest.mark.parametrize("seed", range(20))
def test_shuffle_permutation_is_a_permutation_that_reads_differently(seed):
    words = ["the", "cat", "sat", "on", "the", "mat"]
    perm = att.shuffle_permutation(words, seed=seed)
    assert sorted(perm.tolist()) == list(range(6))
    assert [words[i] for i in perm] != words
    assert np.array_equal(perm, att.shuffle_permutation(words, seed=seed))  # seeded


def test_shuffle_permutation_two_words_swaps_them():
    assert att.shuffle_permutation(["a", "b"], seed=3).tolist() == [1, 0]


def test_shuffle_permutation_needs_two_different_words():
    with pytest.raises(ValueError, match="words"):
        att.shuffle_permutation(["x", "x", "x"], seed=0)


# --------------------------------------------------------------------------------- embeddings
def test_word_seed_is_crc32():
    assert att.word_seed("cat") == zlib.crc32(b"cat") == 2656977832
    assert att.word_seed("über") == zlib.crc32("über".encode())


def test_token_embeddings_same_word_same_vector():
    x = att.token_embeddings(["the", "cat", "the"], 8, seed=1)
    assert x.shape == (3, 8)
    np.testing.assert_array_equal(x[0], x[2])
    assert not np.allclose(x[0], x[1])
    np.testing.assert_array_equal(x[1], att.token_embeddings(["cat"], 8, seed=1)[0])
    assert not np.allclose(x[1], att.token_embeddings(["cat"], 8, seed=2)[0])


def test_token_embeddings_stable_across_processes():
    """Python's hash() of a str changes with PYTHONHASHSEED; the embeddings must not."""
    code = "from posenc import attention as a; print(a.token_embeddings(['cat','mat'], 4, seed=7).round(12).tolist())"
    outs = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        outs.add(
            subprocess.run(
                [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
            ).stdout
        )
    assert len(outs) == 1
    here = str(att.token_embeddings(["cat", "mat"], 4, seed=7).round(12).tolist())
    assert outs.pop().strip() == here


def test_seeded_projections():
    w_q, w_k, w_v = att.seeded_projections(16, seed=3)
    assert w_q.shape == w_k.shape == w_v.shape == (16, 16)
    assert not np.allclose(w_q, w_k)
    np.testing.assert_array_equal(w_v, att.seeded_projections(16, seed=3)[2])
    big = att.seeded_projections(400, seed=0)[0]
    assert abs(big.std() - 1 / math.sqrt(400)) < 0.002
    assert att.seeded_projections(8, 4, seed=0)[0].shape == (8, 4)


@pytest.mark.parametrize("bad", [dict(dim=1), dict(dim=4.5), dict(dim=4, seed=-1)])
def test_token_embeddings_bad_args(bad):
    with pytest.raises((ValueError, TypeError), match=r"dim|seed"):
        att.token_embeddings(["a"], **bad)


# --------------------------------------------------------------------------- equivariance gap
def test_gap_matches_hand_loops(rng):
    a = rng.normal(size=(7, 5))
    b = rng.normal(size=(7, 5))
    perm = rng.permutation(7)
    assert att.permutation_equivariance_gap(a, b, perm) == pytest.approx(ref_gap_rows(a, b, perm), abs=0)
    sq_a, sq_b = rng.normal(size=(7, 7)), rng.normal(size=(7, 7))
    assert att.permutation_equivariance_gap(sq_a, sq_b, perm, axes=(0, 1)) == pytest.approx(
        ref_gap_both(sq_a, sq_b, perm), abs=0
    )
    # exact re-ordering -> exactly zero
    assert att.permutation_equivariance_gap(a, a[perm], perm) == 0.0
    assert att.permutation_equivariance_gap(sq_a, sq_a[perm][:, perm], perm, axes=(0, 1)) == 0.0


@pytest.mark.parametrize(
    "perm, match",
    [
        ([0, 1, 1], "perm must be a permutation"),
        ([0, 1], "perm must be a 1-D integer array of length 3"),
        ([0.0, 1.0, 2.0], "perm must be a 1-D integer array"),
    ],
)
def test_gap_bad_perm(perm, match):
    with pytest.raises(ValueError, match=match):
        att.permutation_equivariance_gap(np.zeros((3, 2)), np.zeros((3, 2)), np.array(perm))


def test_gap_bad_shapes_and_axes():
    with pytest.raises(ValueError, match="original and shuffled"):
        att.permutation_equivariance_gap(np.zeros((3, 2)), np.zeros((2, 3)), [0, 1, 2])
    with pytest.raises(ValueError, match="axes"):
        att.permutation_equivariance_gap(np.zeros((3, 2)), np.zeros((3, 2)), [0, 1, 2], axes=(2,))


def _toy(n=6, d=8, seed=0):
    words = [f"w{i}" for i in range(n)]
    x = att.token_embeddings(words, d, seed=seed)
    perm = att.shuffle_permutation(words, seed=seed)
    return x, perm, att.seeded_projections(d, seed=seed)


def test_hand_loop_head_is_equivariant_without_positions():
    """The property itself, checked on the independent loop implementation."""
    x, perm, (w_q, w_k, w_v) = _toy()
    a, y = ref_head(x, w_q, w_k, w_v)
    a2, y2 = ref_head(x[perm], w_q, w_k, w_v)
    assert ref_gap_rows(y, y2, perm) < 1e-12 and ref_gap_both(a, a2, perm) < 1e-12


@pytest.mark.parametrize("pe_kind", ["none", "sinusoidal", "learned", "rope"])
def test_torch_head_gap(pe_kind):
    pt = pytest.importorskip("posenc.torch")
    x, perm, (w_q, w_k, w_v) = _toy()
    n, d = x.shape
    pe = {"sinusoidal": sinusoidal_encoding(np.arange(n), d), "learned": learned_table(24, d, seed=0, std=1.0)[:n]}.get(
        pe_kind
    )
    inv = np.array(ref_inverse_frequencies(d)) if pe_kind == "rope" else None
    a, y = pt.attention_head(x, w_q, w_k, w_v, pe=pe, rope_inv_freq=inv)
    a2, y2 = pt.attention_head(x[perm], w_q, w_k, w_v, pe=pe, rope_inv_freq=inv)
    # torch agrees with the hand loops
    ra, ry = ref_head(x, w_q, w_k, w_v, pe=pe, rope=pe_kind == "rope")
    np.testing.assert_allclose(a, ra, atol=1e-12)
    np.testing.assert_allclose(y, ry, atol=1e-12)
    gap_y = att.permutation_equivariance_gap(y, y2, perm)
    gap_a = att.permutation_equivariance_gap(a, a2, perm, axes=(0, 1))
    if pe_kind == "none":
        assert gap_y < 1e-12 and gap_a < 1e-12
    else:
        assert gap_y > 1e-6 and gap_a > 1e-6


# The home page's head in numpy (posenc.attention.attention_head) against the hand loop and against
# the same head in torch (posenc.torch.attention_head): three implementations that share no code.
@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 10),
    half_d=st.integers(1, 12),
    seed=st.integers(0, 9999),
    pe_kind=st.sampled_from(["none", "sinusoidal", "learned", "rope"]),
)
def test_numpy_head_equals_hand_loop_and_torch(n, half_d, seed, pe_kind):
    import posenc.torch as pt

    d = 2 * half_d
    x = att.token_embeddings([f"w{i}" for i in range(n)], d, seed=seed)
    w_q, w_k, w_v = att.seeded_projections(d, seed=seed)
    pe = {
        "sinusoidal": np.array([ref_sinusoidal_row(p, d) for p in range(n)]),
        "learned": learned_table(24, d, seed=seed, std=1.0)[:n],
    }.get(pe_kind)
    inv = np.array(ref_inverse_frequencies(d)) if pe_kind == "rope" else None
    a, y = att.attention_head(x, w_q, w_k, w_v, pe=pe, rope_inv_freq=inv)
    ra, ry = ref_head(x, w_q, w_k, w_v, pe=pe, rope=pe_kind == "rope")
    np.testing.assert_allclose(a, ra, rtol=0, atol=1e-12)
    np.testing.assert_allclose(y, ry, rtol=0, atol=1e-12)
    ta, ty = pt.attention_head(x, w_q, w_k, w_v, pe=pe, rope_inv_freq=inv)
    np.testing.assert_allclose(a, ta, rtol=0, atol=1e-12)
    np.testing.assert_allclose(y, ty, rtol=0, atol=1e-12)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_numpy_head_rope_layouts_equal_torch(layout):
    import posenc.torch as pt

    x, _, (w_q, w_k, w_v) = _toy(n=7, d=12, seed=5)
    inv = np.array(ref_inverse_frequencies(12))
    a, y = att.attention_head(x, w_q, w_k, w_v, rope_inv_freq=inv, rope_layout=layout)
    ta, ty = pt.attention_head(x, w_q, w_k, w_v, rope_inv_freq=inv, rope_layout=layout)
    np.testing.assert_allclose(a, ta, rtol=0, atol=1e-12)
    np.testing.assert_allclose(y, ty, rtol=0, atol=1e-12)
    if layout == "interleaved":  # the layouts really differ, so the comparison above means something
        assert not np.allclose(a, att.attention_head(x, w_q, w_k, w_v, rope_inv_freq=inv)[0])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"x": np.zeros(4)}, "x must have shape \\(n, d\\)"),
        ({"pe": np.zeros((3, 4))}, "pe must have the shape of x"),
        ({"x": np.full((4, 4), np.nan)}, "x"),
    ],
)
def test_numpy_head_bad_input(kwargs, match):
    args = {"x": np.ones((4, 4)), "w_q": np.eye(4), "w_k": np.eye(4), "w_v": np.eye(4)} | kwargs
    x = args.pop("x")
    with pytest.raises(ValueError, match=match):
        att.attention_head(x, args.pop("w_q"), args.pop("w_k"), args.pop("w_v"), **args)


# ---------------------------------------------------------------------------------- scores
@pytest.mark.parametrize("method", att.METHODS)
def test_pair_scores_match_hand_loop(method, rng):
    d, L = 6, 12
    x_q, x_k = rng.normal(size=d), rng.normal(size=d)
    w_q, w_k = rng.normal(size=(d, d)), rng.normal(size=(d, d))
    table = rng.normal(size=(L, d))
    pq, pk = [0, 3, 7], [1, 2, 11, 5]
    got = att.pair_scores(method, x_q, x_k, pq, pk, w_q=w_q, w_k=w_k, table=table, alibi_slope=0.25)
    want = [[ref_score(method, x_q, x_k, m, n, w_q, w_k, table=table, slope=0.25) for n in pk] for m in pq]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_pair_scores_alibi_bias_is_posenc_alibi_bias(rng):
    d = 4
    x, w = rng.normal(size=d), rng.normal(size=(d, d))
    pos = np.arange(9)
    s = att.pair_scores("alibi", x, x, pos, pos, w_q=w, w_k=w, alibi_slope=0.125)
    nope = att.pair_scores("nope", x, x, pos, pos, w_q=w, w_k=w)
    np.testing.assert_allclose(s - nope, alibi_bias(9, 0.125), atol=1e-12)


def test_pair_scores_errors(rng):
    x, w = np.ones(4), np.eye(4)
    with pytest.raises(ValueError, match="cannot extrapolate"):
        att.pair_scores("learned", x, x, [0], [10], w_q=w, w_k=w, table=np.zeros((10, 4)))
    with pytest.raises(ValueError, match="table"):
        att.pair_scores("learned", x, x, [0], [1], w_q=w, w_k=w)
    with pytest.raises(ValueError, match="alibi_slope"):
        att.pair_scores("alibi", x, x, [0], [1], w_q=w, w_k=w)
    with pytest.raises(ValueError, match="method"):
        att.pair_scores("t5", x, x, [0], [1], w_q=w, w_k=w)
    with pytest.raises(ValueError, match="x_q, x_k and the projections"):
        att.pair_scores("nope", x, np.ones(3), [0], [1], w_q=w, w_k=w)


def test_toeplitz_deviation(rng):
    idx = np.arange(6)
    toeplitz = np.cos(idx[:, None] - idx[None, :])
    assert att.toeplitz_deviation(toeplitz) == 0.0
    m = rng.normal(size=(5, 5))
    want = 0.0
    for k in range(-4, 5):
        vals = [m[i, i + k] for i in range(5) if 0 <= i + k < 5]
        want = max(want, max(vals) - min(vals))
    assert att.toeplitz_deviation(m) == pytest.approx(want, abs=0)
    with pytest.raises(ValueError, match="matrix must be square"):
        att.toeplitz_deviation(np.zeros((2, 3)))


def test_position_footprint(rng):
    d, t = 8, 5
    x = rng.normal(size=d)
    w_q, w_k, w_v = (rng.normal(size=(d, d)) for _ in range(3))
    kw = dict(w_q=w_q, w_k=w_k, w_v=w_v, shift=t, table=rng.normal(size=(10, d)), alibi_slope=0.5)
    sin = att.position_footprint("sinusoidal", x, **kw)
    pe0, pet = ref_sinusoidal_row(0, d), ref_sinusoidal_row(t, d)
    assert sin["input"] == pytest.approx(max(abs(a - b) for a, b in zip(pe0, pet)))
    assert min(sin["query"], sin["key"], sin["value"]) > 0 and sin["bias"] == 0
    rope = att.position_footprint("rope", x, **kw)
    assert rope["input"] == rope["value"] == rope["bias"] == 0 and rope["query"] > 0 and rope["key"] > 0
    alibi = att.position_footprint("alibi", x, **kw)
    assert alibi == {"input": 0, "query": 0, "key": 0, "value": 0, "bias": 0.5 * t}
    assert set(att.position_footprint("nope", x, **kw).values()) == {0.0}
    with pytest.raises(ValueError, match="cannot extrapolate"):
        att.position_footprint("learned", x, **{**kw, "shift": 10})


# --------------------------------------------------------------------------- method_checks
@pytest.fixture(scope="module")
def checks():
    return {m: att.method_checks(m, dim=8, trained_len=16, test_len=40, seed=1, alibi_slope=0.25) for m in att.METHODS}


def test_method_checks_shift_test_against_hand_loop(checks):
    d, L, seed = 8, 16, 1
    x_q, x_k = att.token_embeddings(["query", "key"], d, seed=seed)
    w_q, w_k, _ = att.seeded_projections(d, seed=seed)
    table = learned_table(L, d, seed=seed, std=1.0)
    n, t = L // 2, L - L // 2
    for method, c in checks.items():
        assert (c["shift_positions"], c["shift_offset"]) == (n, t)
        dev = max(
            abs(
                ref_score(method, x_q, x_k, m, k, w_q, w_k, table=table, slope=0.25)
                - ref_score(method, x_q, x_k, m + t, k + t, w_q, w_k, table=table, slope=0.25)
            )
            for m in range(n)
            for k in range(n)
        )
        assert c["shift_deviation"] == pytest.approx(dev, rel=1e-9, abs=1e-12), method
    assert checks["rope"]["shift_deviation"] < 1e-12 and checks["alibi"]["shift_deviation"] < 1e-12
    assert checks["sinusoidal"]["shift_deviation"] > 1e-3 and checks["learned"]["shift_deviation"] > 1e-3


def test_method_checks_other_numbers(checks):
    assert checks["nope"]["score_spread"] == 0.0
    assert checks["nope"]["permutation_gap"] < 1e-12
    for m in ("sinusoidal", "learned", "rope", "alibi"):
        assert checks[m]["permutation_gap"] > 1e-6, m
        assert checks[m]["score_spread"] > 0, m
    assert "cannot extrapolate" in checks["learned"]["extrapolation_error"]
    assert len(checks["learned"]["distances"]) == 16 and len(checks["rope"]["distances"]) == 40
    assert all(checks[m]["extrapolation_error"] is None for m in ("sinusoidal", "rope", "alibi", "nope"))
    assert checks["learned"]["parameters"] == 16 * 8
    assert all(checks[m]["parameters"] == 0 for m in ("sinusoidal", "rope", "alibi", "nope"))
    assert checks["alibi"]["bias_toeplitz_deviation"] == 0.0
    assert checks["rope"]["bias_toeplitz_deviation"] is None
    # the curve is the score of a query at 0 against keys at 0 … T−1
    d, seed = 8, 1
    x_q, x_k = att.token_embeddings(["query", "key"], d, seed=seed)
    w_q, w_k, _ = att.seeded_projections(d, seed=seed)
    for k in (0, 17, 39):
        assert checks["rope"]["scores"][k] == pytest.approx(ref_score("rope", x_q, x_k, 0, k, w_q, w_k), abs=1e-12)


def test_method_checks_gap_uses_attention_weights():
    x, perm, (w_q, w_k, _) = _toy(n=8, d=8, seed=1)
    gap = att.permutation_equivariance_gap(
        attention_weights(x, w_q, w_k), attention_weights(x[perm], w_q, w_k), perm, axes=(0, 1)
    )
    assert gap < 1e-12


def test_method_checks_bad_args():
    with pytest.raises(ValueError, match="test_len"):
        att.method_checks("rope", dim=8, trained_len=16, test_len=16)
    with pytest.raises(ValueError, match="dim"):
        att.method_checks("rope", dim=7, trained_len=16, test_len=20)


@pytest.mark.parametrize("method", ["nope", "sinusoidal", "learned", "rope", "alibi"])
def test_a_score_does_not_depend_on_how_many_keys_are_scored_beside_it(method):
    """pair_scores sums each score in one fixed order (no BLAS blocking), so the scores of keys 0 … T−1 are the
    first T of a longer computation bit for bit: what lets the Compare chart send one table and cut it at T."""
    rng = np.random.default_rng(7)
    d = 24
    x_q, x_k = rng.normal(size=(2, d))
    w_q, w_k = rng.normal(size=(2, d, d))
    kw = dict(w_q=w_q, w_k=w_k, table=rng.normal(size=(700, d)), alibi_slope=0.25)
    full = att.pair_scores(method, x_q, x_k, [0.0, 3.0], np.arange(700.0), **kw)
    for n in (1, 2, 7, 17, 100, 333, 699):
        assert np.array_equal(att.pair_scores(method, x_q, x_k, [0.0, 3.0], np.arange(float(n)), **kw), full[:, :n])
