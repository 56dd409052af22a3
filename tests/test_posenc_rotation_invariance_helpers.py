"""posenc helpers added for the RoPE-rotation and relative-invariance pages.

wrap_angle, polar_to_xy, signed_angle (posenc.rope); rope_score_matrix(dtype=...),
rope_shift_tolerance, seeded_normal, shift_test_sweep (posenc.relative); shift_residual (posenc.sinusoidal);
parse_vector. Checked against hand-written loops with `math` (tests/_posenc_reference_impl.py).
"""

from __future__ import annotations

import math

import hypothesis
import numpy as np
import pytest
from _posenc_reference_impl import ref_inverse_frequencies, ref_rope_vector, ref_sinusoidal_row
from hypothesis import given
from hypothesis import strategies as st

import posenc


def ref_wrap(a: float) -> float:
    while a > math.pi:
        a -= 2 * math.pi
    while a <= -math.pi:
        a += 2 * math.pi
    return a


# ----------------------------------------------------------------------------------- inputs
def sweep(**changes):
    """posenc.shift_test_sweep with small arguments, `changes` replacing some."""
    args = dict(q=np.ones(4), k=np.ones(4), n_positions=4, offsets=[1, 2], table_len=16)
    return posenc.shift_test_sweep(**{**args, **changes})


@pytest.mark.parametrize(
    "call, param",
    [
        (lambda: posenc.polar_to_xy(0.3, -1.0), "length"),
        (lambda: posenc.polar_to_xy(float("nan"), 1.0), "angle"),
        (lambda: posenc.signed_angle([0, 0], [1, 0]), "a"),
        (lambda: posenc.signed_angle([1, 0], [0, 0]), "b"),
        (lambda: posenc.signed_angle([1, 0, 0], [1, 0]), "a"),
        (lambda: posenc.wrap_angle([1.0, float("inf")]), "angle"),
        (lambda: posenc.rope_score_matrix(np.ones(4), np.ones(4), [0], [0], dtype="float16"), "dtype"),
        (lambda: posenc.rope_shift_tolerance(np.ones(4), np.ones(4), -1), "max_position"),
        (lambda: posenc.rope_shift_tolerance(np.ones(4), np.ones(4), 3, dtype="int8"), "dtype"),
        (lambda: posenc.rope_shift_tolerance(np.ones(4), np.ones(4), [3, -1]), "max_position"),
        (lambda: posenc.rope_shift_tolerance(np.ones(4), np.ones(4), [3, float("nan")]), "max_position"),
        (lambda: sweep(offsets=[1, -2]), "offsets"),
        (lambda: sweep(offsets=[1, 2.5]), "offsets"),
        (lambda: sweep(offsets=[]), "offsets"),
        (lambda: sweep(offsets=[[1, 2]]), "offsets"),
        (lambda: sweep(n_positions=0), "n_positions"),
        (lambda: sweep(dtype="float16"), "dtype"),
        (lambda: sweep(k=np.ones(6)), "q and k"),
        (lambda: sweep(table_len=0), "max_len"),
        (lambda: posenc.seeded_normal((2, 0)), "shape"),
        (lambda: posenc.seeded_normal(4, seed=-1), "seed"),
        (lambda: posenc.seeded_normal((100_000, 1_000)), "shape"),
        (lambda: posenc.shift_residual([0, 1], 2, 7), "d_model"),
        (lambda: posenc.shift_residual([0, float("nan")], 2, 8), "positions"),
    ],
)
def test_bad_arguments_name_the_parameter(call, param):
    with pytest.raises((ValueError, TypeError), match=param):
        call()


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("", "empty"),
        ("   ", "empty"),
        ("[]", "empty"),
        ("1, two, 3", "item 2 must be a number, got 'two'"),
        ("1,,3", "item 2"),
        ("1, nan", "item 2"),
        ("inf", "item 1"),
        ("1e999", "finite"),
        ("1 2", "item 1"),
        ("0x10", "item 1"),
        ("<b>1</b>", "item 1"),
    ],
)
def test_parse_vector_rejects_garbage_with_a_clear_message(text, fragment):
    with pytest.raises(ValueError, match=r"^q") as err:
        posenc.parse_vector(text, name="q")
    assert fragment in str(err.value)


def test_parse_vector_limits_length_and_type():
    with pytest.raises(ValueError, match="at most 3"):
        posenc.parse_vector("1,2,3,4", name="q", max_len=3)
    with pytest.raises(TypeError, match="q"):
        posenc.parse_vector(None, name="q")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1, -0.5, 2e-3", [1.0, -0.5, 0.002]),
        ("[1,2]", [1.0, 2.0]),
        ("( .5 , +3. )", [0.5, 3.0]),
        ("-7", [-7.0]),
    ],
)
def test_parse_vector_reads_numbers(text, expected):
    got = posenc.parse_vector(text)
    assert got.dtype == np.float64
    assert got.tolist() == expected


# ----------------------------------------------------------------------------- 2-D angles
@pytest.mark.parametrize("a", [0.0, 1.0, math.pi, -math.pi, 3 * math.pi, -7.5, 100.0, 2 * math.pi])
def test_wrap_angle_matches_loop(a):
    got = float(posenc.wrap_angle(a))
    assert -math.pi < got <= math.pi
    assert got == pytest.approx(ref_wrap(a), abs=1e-12)


def test_polar_to_xy_matches_math():
    for ang, ell in [(0.0, 1.0), (math.pi / 3, 2.0), (-2.5, 0.7), (0.4, 0.0)]:
        x, y = posenc.polar_to_xy(ang, ell)
        assert (x, y) == pytest.approx((ell * math.cos(ang), ell * math.sin(ang)), abs=1e-15)


def test_signed_angle_is_the_turn_from_a_to_b(rng):
    assert posenc.signed_angle([1, 0], [0, 1]) == pytest.approx(math.pi / 2)
    assert posenc.signed_angle([0, 1], [1, 0]) == pytest.approx(-math.pi / 2)
    assert posenc.signed_angle([1, 0], [-1, 0]) == pytest.approx(math.pi)
    for _ in range(50):
        a, b = rng.normal(size=(2, 2))
        ref = ref_wrap(math.atan2(b[1], b[0]) - math.atan2(a[1], a[0]))
        assert posenc.signed_angle(a, b) == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("m, n", [(0, 0), (5, 12), (12, 5), (300, 7), (8191, 3)])
@pytest.mark.parametrize("j, dim", [(0, 64), (7, 64), (31, 64), (0, 2)])
def test_rotated_angle_is_angle_plus_m_minus_n_theta(m, n, j, dim):
    """The page's identity: ∠(R_n k → R_m q) = wrap(∠(k → q) + (m − n)θ_j)."""
    theta = ref_inverse_frequencies(dim)[j]
    q, k = np.array([1.0, 0.5]), np.array([-0.3, 1.2])
    qm = ref_rope_vector(list(q), m, [theta])
    kn = ref_rope_vector(list(k), n, [theta])
    before = posenc.signed_angle(k, q)
    after = posenc.signed_angle(kn, qm)
    assert after == pytest.approx(ref_wrap(before + (m - n) * theta), abs=1e-9)
    assert math.hypot(*qm) == pytest.approx(math.hypot(*q), rel=1e-14)


# ------------------------------------------------------------------- scores at a dtype
@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_rope_score_matrix_dtype_matches_loop(rng, layout, dtype):
    d = 16
    q, k = rng.normal(size=(2, d))
    pos = [0, 3, 17, 250]
    inv = ref_inverse_frequencies(d, 500.0)
    got = posenc.rope_score_matrix(q, k, pos, pos, base=500.0, layout=layout, dtype=dtype)
    ref = np.array(
        [
            [
                sum(
                    a * b
                    for a, b in zip(ref_rope_vector(list(q), m, inv, layout), ref_rope_vector(list(k), n, inv, layout))
                )
                for n in pos
            ]
            for m in pos
        ]
    )
    assert got.dtype == np.float64
    tol = 1e-12 if dtype == "float64" else 1e-4
    np.testing.assert_allclose(got, ref, atol=tol * np.linalg.norm(q) * np.linalg.norm(k))
    if dtype == "float32":  # really computed in float32: every entry is a float32 number
        assert np.array_equal(got.astype(np.float32).astype(np.float64), got)
        assert not np.array_equal(got, posenc.rope_score_matrix(q, k, pos, pos, base=500.0, layout=layout))


def test_rope_shift_tolerance_formula():
    q, k = np.ones(8), 2 * np.ones(8)  # ‖q‖‖k‖ = 16
    eps32 = float(np.finfo(np.float32).eps)
    assert posenc.rope_shift_tolerance(q, k, 100, dtype="float32") == pytest.approx(eps32 * 16 * (400 + 16 + 8))
    assert posenc.rope_shift_tolerance(q, k, 0) == pytest.approx(2.0**-52 * 16 * 24)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(
    "dim, n, t, base",
    [(2, 64, 16, 1e4), (64, 64, 16, 1e4), (128, 256, 4096, 1e4), (256, 32, 4096, 10.0), (64, 128, 1000, 1e6)],
)
def test_rope_passes_its_shift_tolerance_and_additive_fails_it(rng, dtype, dim, n, t, base):
    q, k = rng.normal(size=(2, dim))
    dev = posenc.shift_deviation(lambda p: posenc.rope_score_matrix(q, k, p, p, base=base, dtype=dtype), n, t)
    tol = posenc.rope_shift_tolerance(q, k, n - 1 + t, dtype=dtype)
    assert dev <= tol
    w_q, w_k = posenc.seeded_normal((2, dim, dim), seed=1) / math.sqrt(dim)
    additive = posenc.shift_deviation(
        lambda p: posenc.additive_score_matrix(q, k, posenc.sinusoidal_encoding(p, dim, base=base), w_q, w_k), n, t
    )
    assert additive > 100 * tol


def test_seeded_normal_is_reproducible_and_normal():
    a = posenc.seeded_normal((400, 50), seed=3, std=2.0)
    assert a.shape == (400, 50)
    assert np.array_equal(a, posenc.seeded_normal((400, 50), seed=3, std=2.0))
    assert not np.array_equal(a, posenc.seeded_normal((400, 50), seed=4, std=2.0))
    assert abs(a.mean()) < 0.05 and a.std() == pytest.approx(2.0, rel=0.03)
    assert posenc.seeded_normal(5).shape == (5,)


# ------------------------------------------------------------------ sinusoidal shift residual
@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_shift_residual_matches_loop_and_is_round_off(layout):
    d, k = 16, 7
    pos = [0.0, 1.0, 9.5, 200.0]
    got = posenc.shift_residual(pos, k, d, layout=layout)
    # Reference: R_k built block by block from the formula, applied with loops.
    theta = ref_inverse_frequencies(d)
    h = d // 2
    sin_idx = [2 * j for j in range(h)] if layout == "interleaved" else list(range(h))
    cos_idx = [2 * j + 1 for j in range(h)] if layout == "interleaved" else [j + h for j in range(h)]
    for p, r in zip(pos, got):
        row, shifted = ref_sinusoidal_row(p, d, layout=layout), ref_sinusoidal_row(p + k, d, layout=layout)
        applied = [0.0] * d
        for j in range(h):
            c, s = math.cos(k * theta[j]), math.sin(k * theta[j])
            a, b = sin_idx[j], cos_idx[j]
            applied[a] = c * row[a] + s * row[b]
            applied[b] = -s * row[a] + c * row[b]
        ref = math.sqrt(sum((x - y) ** 2 for x, y in zip(shifted, applied)))
        assert ref < 1e-13 and r < 1e-13
    low = posenc.shift_residual(np.arange(300.0), k, d, layout=layout, dtype="float32")
    assert 0 < low.max() < 1e-3  # float32 round-off: visible, small


@pytest.mark.parametrize("m, n, theta", [(5, 12, 1.0), (12, 5, 0.3), (0, 0, 1.0), (4000, 1, 0.0316), (7, 7, 2.5)])
def test_pair_angles_match_loop(m, n, theta):
    q, k = [1.0, 0.5], [-0.4, 1.2]
    got = posenc.pair_angles(q, k, m, n, theta)
    before = ref_wrap(math.atan2(q[1], q[0]) - math.atan2(k[1], k[0]))
    qm, kn = ref_rope_vector(q, m, [theta]), ref_rope_vector(k, n, [theta])
    measured = ref_wrap(math.atan2(qm[1], qm[0]) - math.atan2(kn[1], kn[0]))
    assert got.before == pytest.approx(before, abs=1e-12)
    assert got.offset == pytest.approx(ref_wrap((m - n) * theta), abs=1e-9)
    assert got.predicted == pytest.approx(ref_wrap(before + (m - n) * theta), abs=1e-9)
    assert got.measured == pytest.approx(measured, abs=1e-9)
    assert abs(ref_wrap(got.measured - got.predicted)) < 1e-9


def test_pair_angles_rejects_zero_vectors():
    with pytest.raises(ValueError, match="non-zero"):
        posenc.pair_angles([0.0, 0.0], [1.0, 0.0], 1, 2, 1.0)


def test_polar_to_xy_degrees():
    assert posenc.polar_to_xy(90, 2.0, degrees=True) == pytest.approx([0.0, 2.0], abs=1e-15)
    assert posenc.polar_to_xy(-135, 1.0, degrees=True) == pytest.approx([-math.sqrt(0.5)] * 2)


def test_shift_test_report_rope_passes_additive_fails_learned_says_why():
    rng = np.random.default_rng(3)
    q, k = rng.normal(size=8), rng.normal(size=8)
    # long enough table: every method gets a number
    rep = posenc.shift_test_report(q, k, n_positions=16, offset=5, table_len=64, seed=1)
    assert rep["rope_dev"] <= rep["tolerance"] < 1e-9
    assert rep["sinusoidal_dev"] > 1e-3 and rep["learned_dev"] > 1e-3
    # RoPE scores depend only on n − m: check one diagonal by hand with the 2×2 rotations
    s = rep["rope"]
    assert abs(s[2, 7] - s[0, 5]) < 1e-12 and abs(s[9, 3] - s[6, 0]) < 1e-12
    # too short a table: no number, the library's reason instead
    short = posenc.shift_test_report(q, k, n_positions=16, offset=5, table_len=18, seed=1)
    assert short["learned_dev"] is None and "extrapolate" in short["learned_dev_error"]
    assert short["learned"] is not None  # positions 0 … 15 still have rows


def test_rope_shift_tolerance_takes_an_array_of_positions():
    q, k = np.array([1.0, -2.0, 0.5, 3.0]), np.array([0.25, 1.0, -1.0, 2.0])
    positions = [0, 7, 63, 1063]
    for dtype in ("float64", "float32"):
        many = posenc.rope_shift_tolerance(q, k, positions, dtype=dtype)
        assert many.shape == (4,)
        assert many.tolist() == [posenc.rope_shift_tolerance(q, k, p, dtype=dtype) for p in positions]


def reference_scores(q, k, *, dtype, base, layout, table_len, seed):
    """The shift test's three score functions of positions p, written independently of the sweep: RoPE's score matrix
    in `dtype`, and the sinusoid's and the learned table's added before the seeded projections (seed + 1; the table
    seed + 2, std 1/√2)."""
    d = len(q)
    w_q, w_k = posenc.seeded_normal((2, d, d), seed=seed + 1, std=d**-0.5)
    table = posenc.learned_table(table_len, d, seed=seed + 2, std=0.5**0.5)

    def rope(p):
        return posenc.rope_score_matrix(q, k, p, p, base=base, dtype=dtype)

    def sinusoidal(p):
        return posenc.additive_score_matrix(q, k, posenc.sinusoidal_encoding(p, d, base=base, layout=layout), w_q, w_k)

    def learned(p):
        return posenc.additive_score_matrix(q, k, posenc.learned_lookup(table, p), w_q, w_k)

    return rope, sinusoidal, learned


def assert_near_reference(got: float, reference: float, tolerance: float, *, rope: bool = False) -> None:
    """A deviation against that of independently written score functions (`reference_scores`, each window multiplied
    on its own). posenc multiplies on the grid of positions (posenc.relative.SCORE_TILE), which rounds a window's
    scores differently unless t is a multiple of the tile, so: RoPE's, both round-off, both within the pass mark;
    the added encodings' (order 0.1 … 10), the same to 12 digits."""
    if rope:
        assert 0.0 <= got <= tolerance and 0.0 <= reference <= tolerance, (got, reference, tolerance)
    else:
        assert got == pytest.approx(reference, rel=1e-12, abs=1e-13), (got, reference)


@pytest.mark.parametrize(
    "d, n, table_len, dtype, layout, base",
    [
        (8, 16, 40, "float64", "interleaved", 1e4),
        (4, 7, 30, "float32", "concatenated", 1000.0),
        (6, 1, 8, "float64", "interleaved", 10.0),
        (8, 20, 10, "float32", "interleaved", 1e6),  # n > table_len: the learned table never has a row
        (16, 33, 120, "float32", "interleaved", 1e4),  # sizes off BLAS's block multiples
        (64, 48, 90, "float64", "concatenated", 5e5),  # the page's largest-looking shapes
    ],
)
def test_shift_test_sweep_is_the_shift_test_at_every_offset(d, n, table_len, dtype, layout, base):
    """Each offset's numbers are shift_test_report's, bit for bit, and those of independently written score
    functions (the reference recomputes every encoding at positions p + t and multiplies each window on its own;
    `assert_near_reference`); the learned table's is NaN exactly where position n − 1 + t has no row."""
    seed = 4
    q, k = posenc.seeded_normal((2, d), seed=seed)
    # out of order at the end, and off BLAS's block multiples above
    offsets = [0, 1, 2, 3, 5, 8, 13, 21, 40, 41, 100, *range(42, 60), 7]
    got = posenc.shift_test_sweep(
        q, k, n_positions=n, offsets=offsets, dtype=dtype, base=base, layout=layout, table_len=table_len, seed=seed
    )
    assert got["offset"].tolist() == offsets
    rope, sinusoidal, learned = reference_scores(
        q, k, dtype=dtype, base=base, layout=layout, table_len=table_len, seed=seed
    )

    for i, t in enumerate(offsets):
        tol = got["tolerance"][i]
        assert_near_reference(got["rope_dev"][i], posenc.shift_deviation(rope, n, t), tol, rope=True)
        assert_near_reference(got["sinusoidal_dev"][i], posenc.shift_deviation(sinusoidal, n, t), tol)
        assert got["tolerance"][i] == posenc.rope_shift_tolerance(q, k, n - 1 + t, dtype=dtype), t
        if n - 1 + t < table_len:
            assert_near_reference(got["learned_dev"][i], posenc.shift_deviation(learned, n, t), tol)
        else:
            assert math.isnan(got["learned_dev"][i]), t
        report = posenc.shift_test_report(
            q, k, n_positions=n, offset=t, dtype=dtype, base=base, layout=layout, table_len=table_len, seed=seed
        )
        assert got["rope_dev"][i] == report["rope_dev"] and got["sinusoidal_dev"][i] == report["sinusoidal_dev"]
        assert got["tolerance"][i] == report["tolerance"]
        assert (report["learned_dev"] is None) == math.isnan(got["learned_dev"][i])
    assert got["rope_dev"][0] == got["sinusoidal_dev"][0] == 0.0  # t = 0 compares every score with itself
    assert np.all(got["rope_dev"] <= got["tolerance"])
    assert np.all(got["sinusoidal_dev"][1:] > got["tolerance"][1:]) or n == 1


def test_shift_test_sweep_takes_offsets_in_any_order():
    q, k = posenc.seeded_normal((2, 8), seed=2)
    forward = posenc.shift_test_sweep(q, k, n_positions=12, offsets=[3, 9, 30], table_len=32)
    backward = posenc.shift_test_sweep(q, k, n_positions=12, offsets=[30, 9, 3], table_len=32)
    for key in ("offset", "rope_dev", "sinusoidal_dev", "tolerance"):
        assert forward[key].tolist() == backward[key][::-1].tolist()
    assert np.isnan(forward["learned_dev"][2]) and np.isnan(backward["learned_dev"][0])  # 11 + 30 ≥ 32
    assert forward["learned_dev"][:2].tolist() == backward["learned_dev"][:0:-1].tolist()


@pytest.mark.parametrize("curves", [False, True])
def test_repeated_and_spaced_offsets_each_get_their_own_window(monkeypatch, curves):
    """Offsets repeated and with gaps, in one batch of windows: each is the report's at its own t (a batch whose
    first and last starts are as far apart as it has windows, [0, 2, 2], is not the run 0, 1, 2)."""
    import posenc.relative as relative

    monkeypatch.setattr(relative, "_SWEEP_BATCH", 3 * 49)  # three windows of n = 7 a batch
    q, k = posenc.seeded_normal((2, 8), seed=3)
    offsets = [2, 0, 2, 5, 5, 9, 11, 12]
    call = posenc.shift_test_curves if curves else posenc.shift_test_sweep
    got = call(q, k, n_positions=7, offsets=offsets, table_len=40, seed=1)
    for i, t in enumerate(offsets):
        report = posenc.shift_test_report(q, k, n_positions=7, offset=t, table_len=40, seed=1)
        for key in ("rope_dev", "sinusoidal_dev", "learned_dev"):
            value = got[key][i, -1] if curves else got[key][i]
            assert value == report[key], (key, t)


def test_curves_hold_an_overflowing_score_where_the_report_does():
    """Scores that overflow float32 (to inf; inf − inf is NaN): each N's curve value is still the report's, the
    number or NaN, from the N whose entries first hold it (a masked product, inf · 0, must not spread it to smaller N).
    The app's typed vectors cannot get here (their entries stop at 1e6); a library caller's can."""
    a = 1.87e19
    q, k = np.array([a, 0.0]), a * np.array([np.cos(1.0), np.sin(1.0)])
    with np.errstate(over="ignore", invalid="ignore"):  # numpy says so, rightly, each time
        got = posenc.shift_test_curves(q, k, n_positions=3, offsets=[1, 0], dtype="float32", table_len=10)
        reports = {
            (n, t): posenc.shift_test_report(q, k, n_positions=n, offset=t, dtype="float32", table_len=10)
            for n in (1, 2, 3)
            for t in (1, 0)
        }
    for (n, t), report in reports.items():
        np.testing.assert_equal(got["rope_dev"][(1, 0).index(t), n - 1], report["rope_dev"])
    assert np.isfinite(got["rope_dev"][0, 0])  # N = 1 at t = 1 is a number (2e31): no NaN from the entries beyond


# a window of n = 9 copies 81 numbers: batches of 1, 3, 5 and all 11 windows (11 = 3 + 3 + 3 + 2 = 5 + 5 + 1); a
# product spanning 9 rows holds one window, 12 rows those whose t differ by at most 3
@pytest.mark.parametrize("batch, span", [(1, 9), (243, 12), (405, 2048), (5_000, 2048), (5_000, 9)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_shift_test_sweep_is_the_same_in_batches_and_groups_of_any_size(monkeypatch, batch, span, dtype):
    """The sweep copies its windows out of its product in batches (posenc.relative._SWEEP_BATCH numbers at a time)
    and multiplies the rows of at most _SPAN positions at once: every deviation is shift_test_report's, bit for bit,
    with one window a batch or a product, or all of them."""
    import posenc.relative as relative

    q, k = posenc.seeded_normal((2, 6), seed=7)
    offsets = [4, 1, 2, 3, 5, 6, 7, 9, 11, 0, 13]
    monkeypatch.setattr(relative, "_SWEEP_BATCH", batch)
    monkeypatch.setattr(relative, "_SPAN", span)
    got = posenc.shift_test_sweep(q, k, n_positions=9, offsets=offsets, dtype=dtype, table_len=18, seed=3)
    for i, t in enumerate(offsets):
        report = posenc.shift_test_report(q, k, n_positions=9, offset=t, dtype=dtype, table_len=18, seed=3)
        assert got["rope_dev"][i] == report["rope_dev"], (batch, t)
        assert got["sinusoidal_dev"][i] == report["sinusoidal_dev"], (batch, t)
        if report["learned_dev"] is None:
            assert math.isnan(got["learned_dev"][i]), (batch, t)  # no row 8 + t > 17
        else:
            assert got["learned_dev"][i] == report["learned_dev"], (batch, t)
    assert np.isnan(got["learned_dev"]).tolist() == [t > 9 for t in offsets]  # the last row is 17 = 8 + 9


@pytest.mark.parametrize(
    "d, dtype, layout, base, table_len",
    [
        (8, "float64", "interleaved", 1e4, 40),
        (6, "float32", "concatenated", 1000.0, 25),
        (64, "float64", "interleaved", 5e5, 300),
        (18, "float32", "interleaved", 1e6, 8),  # a table too short for most points
    ],
)
def test_shift_test_points_is_the_shift_test_at_each_pair(d, dtype, layout, base, table_len):
    """Each (N, t) pair's numbers are shift_test_report's, bit for bit, and near those of independently written
    score functions (`assert_near_reference`): N varies as well as t (sizes off BLAS's block multiples, a repeated pair,
    t = 0, N = 1); the learned table's is NaN exactly where position N − 1 + t has no row."""
    seed = 2
    q, k = posenc.seeded_normal((2, d), seed=seed)
    ns = [1, 2, 7, 33, 64, 65, 12, 33, 40]
    ts = [0, 5, 1, 16, 3, 100, 0, 16, 200]
    settings = dict(dtype=dtype, base=base, layout=layout, table_len=table_len, seed=seed)
    got = posenc.shift_test_points(q, k, n_positions=ns, offsets=ts, **settings)
    assert got["n_positions"].tolist() == ns and got["offset"].tolist() == ts
    rope, sinusoidal, learned = reference_scores(
        q, k, dtype=dtype, base=base, layout=layout, table_len=table_len, seed=seed
    )

    for i, (n, t) in enumerate(zip(ns, ts)):
        tol = got["tolerance"][i]
        assert_near_reference(got["rope_dev"][i], posenc.shift_deviation(rope, n, t), tol, rope=True)
        assert_near_reference(got["sinusoidal_dev"][i], posenc.shift_deviation(sinusoidal, n, t), tol)
        assert got["tolerance"][i] == posenc.rope_shift_tolerance(q, k, n - 1 + t, dtype=dtype), (n, t)
        report = posenc.shift_test_report(q, k, n_positions=n, offset=t, **settings)
        assert (got["rope_dev"][i], got["sinusoidal_dev"][i]) == (report["rope_dev"], report["sinusoidal_dev"])
        if n - 1 + t < table_len:
            assert got["learned_dev"][i] == report["learned_dev"], (n, t)
            assert_near_reference(got["learned_dev"][i], posenc.shift_deviation(learned, n, t), tol)
        else:
            assert math.isnan(got["learned_dev"][i]) and report["learned_dev"] is None, (n, t)
        sweep = posenc.shift_test_sweep(q, k, n_positions=n, offsets=[t], **settings)
        assert sweep["rope_dev"][0] == got["rope_dev"][i] and sweep["tolerance"][0] == got["tolerance"][i]


@hypothesis.settings(max_examples=60, deadline=None)
@given(
    d=st.sampled_from([2, 4, 6, 8, 16, 18, 64, 100, 256]),
    dtype=st.sampled_from(["float64", "float32"]),
    start=st.integers(0, 200),
    n=st.integers(1, 140),
    more=st.integers(0, 160),
    seed=st.integers(0, 2**16),
)
def test_products_on_the_grid_do_not_depend_on_how_many_rows_they_have(d, dtype, start, n, more, seed):
    """What the shift test's speed rests on (posenc.relative.SCORE_TILE): the scores and projections of the rows of
    positions start … start+n−1 equal, bit for bit, the same rows' entries in a product over positions from 0 to
    `more` past them (other rows, other sizes, other tiles), as numpy's BLAS computes them on this machine. A plain
    product does not do this (bench/RESULTS.md section 43); if a BLAS did not either, this fails."""
    import posenc.relative as relative

    rng = np.random.default_rng(seed)
    rows_q, rows_k = rng.normal(size=(2, start + n + more, d)).astype(dtype)
    w = rng.normal(size=(d, d))
    window = slice(start, start + n)
    whole = relative._scores(rows_q, rows_k)
    alone = relative._scores(rows_q[window], rows_k[window], start=start)
    assert alone.dtype == np.float64 and alone.shape == (n, n)
    assert np.array_equal(alone, whole[window, window])
    # a product that computes only a band of tiles along the diagonal has the same entries there
    band = relative._scores(rows_q, rows_k, band=-(-n // relative.SCORE_TILE))
    assert np.array_equal(band[window, window], alone) and np.array_equal(band[:n, :n], whole[:n, :n])
    rows = rows_q.astype(np.float64)
    assert np.array_equal(relative._grid_project(rows[window], w, start), relative._grid_project(rows, w)[window])
    # and the entries are the scores: against a loop of dot products, to round-off
    loop = [
        [float(np.dot(rows_q[i].astype(np.float64), rows_k[j])) for j in range(start, start + n)]
        for i in range(start, start + n)
    ]
    np.testing.assert_allclose(
        alone, loop, rtol=1e-4 if dtype == "float32" else 1e-12, atol=1e-4 if dtype == "float32" else 1e-12
    )


@pytest.mark.parametrize(
    "d, dtype, layout, table_len",
    [(8, "float64", "interleaved", 60), (6, "float32", "concatenated", 45), (64, "float64", "interleaved", 400)],
)
def test_shift_test_curves_hold_the_report_at_every_n(d, dtype, layout, table_len):
    """shift_test_curves' column N − 1 is shift_test_report's at N and t, bit for bit, for every N ≤ its n (both sides
    of the tile's multiples), NaN in the learned curve exactly where position N − 1 + t has no row; and it is the
    largest of the curves up to N (a deviation over more positions is never smaller)."""
    q, k = posenc.seeded_normal((2, d), seed=11)
    settings = dict(dtype=dtype, base=5e4, layout=layout, table_len=table_len, seed=5)
    offsets = [9, 0, 33, 1]
    got = posenc.shift_test_curves(q, k, n_positions=40, offsets=offsets, **settings)
    assert got["offset"].tolist() == offsets and got["rope_dev"].shape == (4, 40)
    for i, t in enumerate(offsets):
        for n in (1, 2, 17, 31, 32, 33, 40):
            report = posenc.shift_test_report(q, k, n_positions=n, offset=t, **settings)
            assert got["rope_dev"][i, n - 1] == report["rope_dev"], (t, n)
            assert got["sinusoidal_dev"][i, n - 1] == report["sinusoidal_dev"], (t, n)
            assert got["tolerance"][i, n - 1] == report["tolerance"], (t, n)
            if report["learned_dev"] is None:
                assert n - 1 + t >= table_len and math.isnan(got["learned_dev"][i, n - 1]), (t, n)
            else:
                assert got["learned_dev"][i, n - 1] == report["learned_dev"], (t, n)
        for key in ("rope_dev", "sinusoidal_dev"):
            assert np.all(np.diff(got[key][i]) >= 0), (key, t)
    assert np.all(got["rope_dev"][1] == 0.0)  # t = 0 compares every score with itself


@pytest.mark.parametrize(
    "change, word",
    [
        (dict(n_positions=[1, 2]), "same"),
        (dict(n_positions=[], offsets=[]), "same"),
        (dict(n_positions=[0]), "n_positions must be whole numbers in 1 … 100000"),
        (dict(n_positions=[2.5]), "n_positions must be whole numbers in 1 … 100000, got 2.5"),
        (dict(n_positions=[100_001]), "n_positions must be whole numbers in 1 … 100000, got 100001"),
        (dict(offsets=[-1]), "offsets must be whole numbers >= 0, got -1"),
        (dict(dtype="float16"), "dtype"),
        (dict(q=[1.0, 2.0], k=[1.0, 2.0, 3.0, 4.0]), "same shape"),
    ],
)
def test_shift_test_points_rejects_bad_input_by_name(change, word):
    args = dict(q=[1.0, 0.5], k=[0.25, 2.0], n_positions=[3], offsets=[2], table_len=16)
    with pytest.raises(ValueError, match=word):
        posenc.shift_test_points(**{**args, **change})


def test_diagonal_spread_against_a_loop_over_the_diagonals():
    rng = np.random.default_rng(3)
    for n in (1, 2, 5):
        s = rng.normal(size=(n, n))
        worst = 0.0
        for k in range(-(n - 1), n):
            entries = [s[m, m + k] for m in range(n) if 0 <= m + k < n]
            worst = max(worst, max(entries) - min(entries))
        assert posenc.diagonal_spread(s) == worst
    toeplitz = np.array([[abs(m - n) for n in range(6)] for m in range(6)], dtype=float)
    assert posenc.diagonal_spread(toeplitz) == 0.0  # a function of n − m: every diagonal constant
    with pytest.raises(ValueError, match="scores must be square"):
        posenc.diagonal_spread(np.zeros((2, 3)))
