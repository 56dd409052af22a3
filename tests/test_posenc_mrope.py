"""posenc.mrope against independent references, in HF's order: input sanity, properties, numbers.

References are written here, not imported from posenc: HF's ``apply_multimodal_rotary_pos_emb``
(Qwen2-VL) and ``apply_interleaved_mrope`` (Qwen3-VL) re-typed in numpy on a tiny tensor, HF's
``get_rope_index`` loop re-typed with plain lists, Qwen2-VL's vision ``rot_pos_emb`` and
per-element loops in ``math``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc

FAST = settings(max_examples=40, deadline=None)


# ----------------------------------------------------------------------------- references (re-typed)


def hf_rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def hf_qwen2vl_apply(q, position_ids, inv_freq, mrope_section):
    """Qwen2VLRotaryEmbedding.forward + apply_multimodal_rotary_pos_emb, re-typed (batch 1, one head).

    q: (seq, head_dim); position_ids: (3, seq). freqs = inv_freq ⊗ positions per axis;
    emb = cat(freqs, freqs); cos/sin split by mrope_section * 2, chunk i taken from axis i % 3.
    """
    freqs = position_ids[:, :, None].astype(np.float64) * inv_freq[None, None, :]  # (3, seq, d/2)
    emb = np.concatenate([freqs, freqs], axis=-1)  # (3, seq, d)
    cos, sin = np.cos(emb), np.sin(emb)
    sections = list(mrope_section) * 2
    bounds = np.cumsum(sections)[:-1]
    cos = np.concatenate([m[i % 3] for i, m in enumerate(np.split(cos, bounds, axis=-1))], axis=-1)
    sin = np.concatenate([m[i % 3] for i, m in enumerate(np.split(sin, bounds, axis=-1))], axis=-1)
    return q * cos + hf_rotate_half(q) * sin


def hf_qwen3vl_apply(q, position_ids, inv_freq, mrope_section):
    """Qwen3VLTextRotaryEmbedding.forward with apply_interleaved_mrope, then apply_rotary_pos_emb."""
    freqs = position_ids[:, :, None].astype(np.float64) * inv_freq[None, None, :]  # (3, seq, d/2)
    freqs_t = freqs[0].copy()
    for dim, offset in enumerate((1, 2), start=1):  # H, W
        length = mrope_section[dim] * 3
        idx = slice(offset, length, 3)
        freqs_t[..., idx] = freqs[dim, ..., idx]
    emb = np.concatenate([freqs_t, freqs_t], axis=-1)
    return q * np.cos(emb) + hf_rotate_half(q) * np.sin(emb)


def hf_get_rope_index(segments):
    """get_rope_index's loop for one sequence, re-typed with lists (segments already merged)."""
    llm_pos_ids_list: list[np.ndarray] = []
    text_len = 0
    for seg in segments:
        if seg[0] == "text":
            text_len += seg[1]
            continue
        t, h, w = seg[1:]
        st_idx = llm_pos_ids_list[-1].max() + 1 if llm_pos_ids_list else 0
        llm_pos_ids_list.append(np.tile(np.arange(text_len), (3, 1)) + st_idx)
        t_index = np.repeat(np.arange(t), h * w)
        h_index = np.tile(np.repeat(np.arange(h), w), t)
        w_index = np.tile(np.arange(w), t * h)
        llm_pos_ids_list.append(np.stack([t_index, h_index, w_index]) + text_len + st_idx)
        text_len = 0
    if text_len:
        st_idx = llm_pos_ids_list[-1].max() + 1 if llm_pos_ids_list else 0
        llm_pos_ids_list.append(np.tile(np.arange(text_len), (3, 1)) + st_idx)
    return np.concatenate(llm_pos_ids_list, axis=1) if llm_pos_ids_list else np.zeros((3, 0), int)


def hf_qwen2vl_vision_freqs(h, w, head_dim, theta=10000.0):
    """Qwen2-VL's rot_pos_emb (spatial_merge_size 1) with VisionRotaryEmbedding(head_dim // 2)."""
    dim = head_dim // 2
    inv = 1.0 / theta ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    hpos = np.repeat(np.arange(h), w)
    wpos = np.tile(np.arange(w), h)
    table = np.outer(np.arange(max(h, w)), inv)  # rotary_pos_emb_full
    return np.concatenate([table[hpos], table[wpos]], axis=1)  # [pos_ids].flatten(1)


def ref_rope_vit_axial_angles(end_x, end_y, dim, theta=100.0):
    """RoPE-ViT compute_axial_cis angles: x (column) first, then y (row)."""
    freqs = [1.0 / theta ** (i / dim) for i in range(0, dim, 4)][: dim // 4]
    out = []
    for t in range(end_x * end_y):
        tx, ty = t % end_x, t // end_x
        out.append([tx * f for f in freqs] + [ty * f for f in freqs])
    return np.array(out)


def rope_half(x, angles):
    """x (seq, 2n) rotated by per-token angles (seq, n), half layout, element by element."""
    seq, d = x.shape
    n = d // 2
    out = np.empty_like(x)
    for s in range(seq):
        for j in range(n):
            c, si = math.cos(angles[s, j]), math.sin(angles[s, j])
            out[s, j] = x[s, j] * c - x[s, j + n] * si
            out[s, j + n] = x[s, j] * si + x[s, j + n] * c
    return out


# ----------------------------------------------------------------------------- 1. input sanity


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: posenc.mrope_angles(np.zeros((3, 2)), np.ones(8), [2, 3, 2]), ["mrope_section", "sum", "8", "7"]),
        (lambda: posenc.mrope_angles(np.zeros((3, 2)), np.ones(8), [4, 4]), ["mrope_section", "3 entries"]),
        (lambda: posenc.mrope_angles(np.zeros((3, 2)), np.ones(8), [4, -1, 5]), ["mrope_section[1]", ">= 0"]),
        (lambda: posenc.mrope_angles(np.zeros((2, 2)), np.ones(8), [4, 2, 2]), ["positions_thw", "(3, seq)"]),
        (lambda: posenc.mrope_angles(np.zeros((3, 2)), [], [0, 0, 0]), ["inv_freq", "at least one"]),
        (lambda: posenc.mrope_angles([[np.nan] * 2] * 3, np.ones(8), [4, 2, 2]), ["positions_thw", "finite"]),
        (
            lambda: posenc.mrope_axis_of_pairs(8, [0, 6, 2], interleaved=True),
            ["interleaved", "mrope_section[1]", "[0, 6, 2]"],
        ),
        (lambda: posenc.mrope_axis_of_pairs(0, [0, 0, 0]), ["n_pairs", ">= 1"]),
        (lambda: posenc.qwen2vl_position_ids([("audio", 3)]), ["segments[0]", "'text'"]),
        (lambda: posenc.qwen2vl_position_ids([("text", 2), ("image", 1, 0, 4)]), ["segments[1]", "(h)", ">= 1"]),
        (lambda: posenc.qwen2vl_position_ids([("image", 2, 2)]), ["segments[0]", "t, h, w"]),
        (lambda: posenc.qwen2vl_position_ids([("text", -1)]), ["segments[0]", "text tokens", ">= 0"]),
        (lambda: posenc.axial_rope_angles(2, 2, np.ones(3)), ["n_pairs", "even", "3"]),
        (lambda: posenc.axial_rope_angles(0, 2, np.ones(4)), ["rows", ">= 1"]),
        (lambda: posenc.axial_rope_angles(2, 2, np.ones(4), first="diagonal"), ["first", "'row'"]),
        (lambda: posenc.axial_rope_angles(2, 2, np.ones(4), row_scale=0), ["row_scale", "> 0"]),
        (lambda: posenc.axial_inverse_frequencies(6), ["head_dim", "multiple of 4", "6"]),
        (lambda: posenc.angle_scores(np.zeros((2, 3)), np.zeros((2, 4))), ["same number of pairs"]),
        (lambda: posenc.angle_scores(np.zeros((2, 2)), np.zeros((2, 2)), q=np.ones(4)), ["q and k", "together"]),
        (lambda: posenc.angle_scores(np.zeros((1, 2)), np.zeros((1, 2)), np.ones(3), np.ones(3)), ["2 · n_pairs"]),
        (lambda: posenc.offset_scores(np.zeros((10, 2)), 3, 3), ["angles", "multiple of rows · cols = 9", "10"]),
        (lambda: posenc.offset_scores(np.zeros((4, 2)), 3, 3), ["angles", "9", "got 4"]),
        (lambda: posenc.offset_scores(np.zeros((18, 2)), 3, 3, frame=2), ["frame", "<= 1", "2"]),
        (lambda: posenc.offset_scores(np.zeros((9, 2)), 0, 3), ["rows", ">= 1"]),
        (lambda: posenc.offset_scores(np.zeros(9), 3, 3), ["angles"]),
    ],
)
def test_bad_inputs_raise_naming_the_parameter(call, words):
    with pytest.raises(ValueError) as err:
        call()
    for word in words:
        assert word in str(err.value), (word, str(err.value))


def test_wrong_kinds_raise_type_errors():
    with pytest.raises(TypeError, match="mrope_section"):
        posenc.mrope_axis_of_pairs(4, 7)
    with pytest.raises(TypeError, match="segments"):
        posenc.qwen2vl_position_ids("text")
    with pytest.raises(TypeError, match="segments\\[0\\]"):
        posenc.qwen2vl_position_ids([("text", "four")])


# ----------------------------------------------------------------------------- HF equivalence


@pytest.mark.parametrize(
    ("head_dim", "section"), [(8, [2, 1, 1]), (16, [2, 3, 3]), (128, [16, 24, 24]), (12, [6, 0, 0])]
)
def test_contiguous_rotation_equals_hf_qwen2vl(head_dim, section, rng):
    seq = 7
    pos = rng.integers(0, 40, size=(3, seq))
    inv = posenc.inverse_frequencies(head_dim, base=1e6)
    q = rng.normal(size=(seq, head_dim))
    ours = rope_half(q, posenc.mrope_angles(pos, inv, section))
    np.testing.assert_allclose(ours, hf_qwen2vl_apply(q, pos, inv, section), atol=1e-12)


@pytest.mark.parametrize(
    ("head_dim", "section"), [(8, [2, 1, 1]), (128, [24, 20, 20]), (64, [11, 11, 10]), (24, [4, 4, 4])]
)
def test_interleaved_rotation_equals_hf_qwen3vl(head_dim, section, rng):
    seq = 6
    pos = rng.integers(0, 40, size=(3, seq))
    inv = posenc.inverse_frequencies(head_dim, base=5e6)
    q = rng.normal(size=(seq, head_dim))
    ours = rope_half(q, posenc.mrope_angles(pos, inv, section, interleaved=True))
    np.testing.assert_allclose(ours, hf_qwen3vl_apply(q, pos, inv, section), atol=1e-12)


def test_axis_of_pairs_for_real_sections():
    contiguous = posenc.mrope_axis_of_pairs(64, [16, 24, 24])
    assert contiguous.tolist() == [0] * 16 + [1] * 24 + [2] * 24
    inter = posenc.mrope_axis_of_pairs(64, [24, 20, 20], interleaved=True)
    assert inter[:60].tolist() == [0, 1, 2] * 20  # T, H, W, T, H, W, …
    assert inter[60:].tolist() == [0, 0, 0, 0]  # T's remainder
    # The REFERENCE.md rule: pairs 1, 4, 7, … (< 3·s_h) take h, 2, 5, 8, … (< 3·s_w) take w.
    assert np.flatnonzero(inter == 1).tolist() == list(range(1, 60, 3))
    assert np.flatnonzero(inter == 2).tolist() == list(range(2, 60, 3))


@pytest.mark.parametrize(
    "segments",
    [
        [("text", 5)],
        [("video", 3, 2, 2), ("text", 5)],  # HF's docstring example
        [("text", 4), ("image", 1, 3, 5), ("text", 2)],
        [("text", 2), ("image", 1, 4, 2), ("image", 1, 2, 2), ("text", 1), ("video", 4, 2, 3)],
        [("image", 1, 6, 6)],
    ],
)
def test_position_ids_equal_hf_get_rope_index(segments):
    np.testing.assert_array_equal(posenc.qwen2vl_position_ids(segments), hf_get_rope_index(segments))


def test_hf_docstring_example():
    # modeling_qwen2_vl.py get_rope_index docstring: video 3×2×2 then 5 text tokens.
    pos = posenc.qwen2vl_position_ids([("video", 3, 2, 2), ("text", 5)])
    assert pos[0].tolist() == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 4, 5, 6, 7]
    assert pos[1].tolist() == [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 3, 4, 5, 6, 7]
    assert pos[2].tolist() == [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 3, 4, 5, 6, 7]


def test_axial_equals_qwen2vl_vision_tower():
    for h, w, d in [(3, 5, 16), (4, 4, 80), (1, 7, 8)]:
        inv = posenc.axial_inverse_frequencies(d)
        np.testing.assert_allclose(
            posenc.axial_rope_angles(h, w, inv), hf_qwen2vl_vision_freqs(h, w, d), rtol=1e-13, atol=1e-13
        )


def test_axial_column_first_equals_rope_vit():
    for rows, cols in [(14, 14), (3, 5)]:
        inv = posenc.axial_inverse_frequencies(64, base=100.0)
        ours = posenc.axial_rope_angles(rows, cols, inv, first="column")
        np.testing.assert_allclose(ours, ref_rope_vit_axial_angles(cols, rows, 64), rtol=1e-13, atol=1e-13)


def test_angle_scores_equal_rotated_dot_products(rng):
    n = 5
    aq, ak = rng.uniform(-20, 20, (4, n)), rng.uniform(-20, 20, (3, n))
    q, k = rng.normal(size=2 * n), rng.normal(size=2 * n)
    rq = rope_half(np.tile(q, (4, 1)), aq)
    rk = rope_half(np.tile(k, (3, 1)), ak)
    np.testing.assert_allclose(posenc.angle_scores(aq, ak, q, k), rq @ rk.T, atol=1e-12)
    expected = np.array([[np.mean(np.cos(a - b)) for b in ak] for a in aq])
    np.testing.assert_allclose(posenc.angle_scores(aq, ak), expected, atol=1e-12)


# ----------------------------------------------------------------------------- 2. properties

sections = st.tuples(st.integers(0, 12), st.integers(0, 12), st.integers(0, 12)).filter(lambda s: sum(s) > 0)
interleavable = sections.filter(lambda s: 3 * s[1] <= sum(s) + 1 and 3 * s[2] <= sum(s))
grid_sizes = st.integers(1, 9)


@FAST
@given(sections, st.integers(0, 2**32 - 1), st.booleans())
def test_equal_axes_give_1d_rope(section, seed, interleaved):
    s = list(section)
    if interleaved and not (3 * s[1] <= sum(s) + 1 and 3 * s[2] <= sum(s)):
        interleaved = False
    rng = np.random.default_rng(seed)
    p = rng.integers(-50, 500, size=6).astype(float)
    inv = posenc.inverse_frequencies(2 * sum(s), base=1e4)
    got = posenc.mrope_angles(np.stack([p, p, p]), inv, s, interleaved=interleaved)
    np.testing.assert_allclose(got, posenc.rope_angles(p, inv), rtol=0, atol=0)


@FAST
@given(interleavable)
def test_interleaved_and_contiguous_give_each_axis_the_same_number_of_pairs(section):
    n = sum(section)
    for interleaved in (False, True):
        counts = np.bincount(posenc.mrope_axis_of_pairs(n, list(section), interleaved=interleaved), minlength=3)
        assert counts.tolist() == list(section)


@FAST
@given(grid_sizes, st.integers(1, 8).map(lambda h: 2 * h), st.sampled_from([100.0, 1e4]))
def test_axial_single_row_is_1d_rope_over_columns(cols, n_pairs, base):
    inv = np.repeat(base ** (-np.arange(n_pairs // 2) / (n_pairs // 2)), 2)[:n_pairs]
    ang = posenc.axial_rope_angles(1, cols, inv)
    col_half = slice(n_pairs // 2, n_pairs)
    np.testing.assert_array_equal(ang[:, : n_pairs // 2], 0.0)  # row 0 turns nothing
    np.testing.assert_allclose(ang[:, col_half], posenc.rope_angles(np.arange(cols), inv[col_half]), atol=0)


@FAST
@given(grid_sizes, grid_sizes, st.integers(-5, 5), st.integers(-5, 5), st.integers(0, 2**32 - 1))
def test_axial_scores_invariant_to_equal_2d_shifts(rows, cols, dr, dc, seed):
    rng = np.random.default_rng(seed)
    inv = posenc.axial_inverse_frequencies(16, base=100.0)
    q, k = rng.normal(size=16), rng.normal(size=16)
    r0, c0 = posenc.grid_positions(rows, cols)
    # Every patch and every patch shifted by (dr, dc): build both from explicit row/col angles.
    axis = posenc.axial_axis_of_pairs(8)
    a0 = np.stack([r0, c0])[axis].T * inv
    a1 = np.stack([r0 + dr, c0 + dc])[axis].T * inv
    np.testing.assert_allclose(posenc.angle_scores(a1, a1, q, k), posenc.angle_scores(a0, a0, q, k), atol=1e-9)


@FAST
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_mrope_scores_invariant_to_equal_shifts_on_every_axis(seed, interleaved):
    rng = np.random.default_rng(seed)
    section = [2, 3, 3] if not interleaved else [4, 2, 2]
    inv = posenc.inverse_frequencies(16, base=1e6)
    pos = rng.integers(0, 60, size=(3, 9)).astype(float)
    shift = rng.integers(-20, 20, size=(3, 1))
    q, k = rng.normal(size=16), rng.normal(size=16)
    a0 = posenc.mrope_angles(pos, inv, section, interleaved=interleaved)
    a1 = posenc.mrope_angles(pos + shift, inv, section, interleaved=interleaved)
    np.testing.assert_allclose(posenc.angle_scores(a1, a1, q, k), posenc.angle_scores(a0, a0, q, k), atol=1e-8)


def test_raster_1d_sees_row_times_width_plus_column():
    # 1D RoPE over raster order is relative in the raster index r·cols + c: an in-grid 2D shift keeps
    # the score, but the patch below (Δ = (1, 0)) scores exactly like the patch cols to the right,
    # and the same 2D offset scores differently when the grid width changes.
    inv = posenc.inverse_frequencies(16)
    q, k = np.linspace(-1, 1, 16), np.cos(np.arange(16.0))
    a = posenc.raster_rope_angles(3, 8, inv)  # patch (r, c) is row r·8 + c
    s = posenc.angle_scores(a, a, q, k)
    assert s[0 * 8 + 1, 1 * 8 + 1] == pytest.approx(s[1 * 8 + 2, 2 * 8 + 2])  # (0,1)->(1,1) shifted by (1, 1)
    wide = posenc.angle_scores(posenc.raster_rope_angles(1, 16, inv), posenc.raster_rope_angles(1, 16, inv), q, k)
    assert s[0, 8] == pytest.approx(wide[0, 8])  # one row down == eight columns right
    a5 = posenc.raster_rope_angles(3, 5, inv)
    s5 = posenc.angle_scores(a5, a5, q, k)
    assert abs(s5[0, 5] - s[0, 8]) > 1e-3  # the same offset (1, 0) on a narrower grid


def mean_cos_reference(deltas, inv) -> float:
    """(1/n) Σ_j cos(Δ_j θ_j), one pair at a time with math."""
    return sum(math.cos(d * t) for d, t in zip(deltas, inv)) / len(inv)


@pytest.mark.parametrize("scheme", ["raster", "axial", "contiguous", "interleaved"])
@pytest.mark.parametrize("rows, cols, frames, frame", [(3, 4, 1, 0), (4, 3, 3, 2), (1, 5, 2, 1), (1, 1, 1, 0)])
def test_offset_scores_hold_every_querys_scores(scheme, rows, cols, frames, frame):
    """Entry (Δr, Δc) is the score of any query with the key Δr rows below and Δc columns right of
    it in `frame`: checked against each scheme's formula, per pair with math, for every query and
    key of the grid; and every query's window equals posenc.angle_scores of that query."""
    d = 16
    inv = [100.0 ** (-2 * j / d) for j in range(d // 2)]
    inv_ax = [100.0 ** (-4 * i / d) for i in range(d // 4)] * 2
    axes = {"contiguous": [0, 0, 1, 1, 1, 2, 2, 2], "interleaved": [0, 1, 2, 0, 1, 2, 0, 0]}  # t, h, w
    n = rows * cols
    if scheme == "raster":
        angles = posenc.rope_angles(np.arange(frames * n), np.array(inv))
    elif scheme == "axial":
        angles = np.tile(posenc.axial_rope_angles(rows, cols, np.array(inv_ax)), (frames, 1))
    else:
        section = [2, 3, 3] if scheme == "contiguous" else [4, 2, 2]
        vision = posenc.qwen2vl_position_ids([("video", frames, rows, cols)])
        angles = posenc.mrope_angles(vision, np.array(inv), section, interleaved=scheme == "interleaved")
    table = posenc.offset_scores(angles, rows, cols, frame=frame)
    assert table.shape == (2 * rows - 1, 2 * cols - 1)
    for qr in range(rows):
        for qc in range(cols):
            window = table[rows - 1 - qr : 2 * rows - 1 - qr, cols - 1 - qc : 2 * cols - 1 - qc]
            direct = posenc.angle_scores(angles[[qr * cols + qc]], angles[frame * n : (frame + 1) * n])[0]
            np.testing.assert_allclose(window.ravel(), direct, atol=1e-12)
            for r in range(rows):
                for c in range(cols):
                    dt, dr, dc = frame, r - qr, c - qc
                    if scheme == "raster":
                        deltas = [dt * n + dr * cols + dc] * (d // 2)
                    elif scheme == "axial":
                        deltas = [dr] * (d // 4) + [dc] * (d // 4)
                    else:
                        deltas = [(dt, dr, dc)[a] for a in axes[scheme]]
                    assert window[r, c] == pytest.approx(
                        mean_cos_reference(deltas, inv_ax if scheme == "axial" else inv), abs=1e-12
                    )


def test_axial_equals_mrope_with_no_time_pairs():
    inv = posenc.axial_inverse_frequencies(16)
    rows, cols = 3, 4
    r, c = posenc.grid_positions(rows, cols)
    via_mrope = posenc.mrope_angles(np.stack([np.zeros_like(r), r, c]), inv, [0, 4, 4])
    np.testing.assert_array_equal(posenc.axial_rope_angles(rows, cols, inv), via_mrope)


def test_position_interpolation_maps_a_larger_grid_onto_trained_positions():
    inv = posenc.axial_inverse_frequencies(8)
    big = posenc.axial_rope_angles(32, 32, inv, row_scale=0.5, col_scale=0.5)
    small = posenc.axial_rope_angles(16, 16, inv)
    assert big.max() == pytest.approx(15.5 * inv.max())
    assert big.max() < small.max() + inv.max()  # within the 16×16 grid's range
    # Every second patch of the big grid lands exactly on a small grid patch.
    big_grid = big.reshape(32, 32, -1)[::2, ::2]
    np.testing.assert_allclose(big_grid.reshape(256, -1), small, atol=0)


@FAST
@given(
    st.lists(
        st.one_of(
            st.tuples(st.just("text"), st.integers(0, 6)),
            st.tuples(st.sampled_from(["image", "video"]), st.integers(1, 3), st.integers(1, 4), st.integers(1, 4)),
        ),
        max_size=5,
    )
)
def test_position_ids_random_sequences_equal_reference(segments):
    np.testing.assert_array_equal(posenc.qwen2vl_position_ids(segments), hf_get_rope_index(segments))


# ----------------------------------------------------------------------------- 3. numbers


def test_qwen25vl_default_numbers():
    inv = posenc.inverse_frequencies(128, base=1e6)
    ang = posenc.mrope_angles(np.array([[2], [3], [5]]), inv, [16, 24, 24])
    assert ang[0, 0] == 2 * 1.0  # pair 0: t × θ_0
    assert ang[0, 16] == pytest.approx(3 * 1e6 ** (-32 / 128))  # first h pair
    assert ang[0, 40] == pytest.approx(5 * 1e6 ** (-80 / 128))  # first w pair


def test_default_sections_are_valid_for_every_head_and_match_the_published_ones():
    assert posenc.default_mrope_section(64) == (16, 24, 24)  # Qwen2-VL / Qwen2.5-VL
    assert posenc.default_mrope_section(64, interleaved=True) == (24, 20, 20)  # Qwen3-VL
    for n in range(3, 513):
        for interleaved in (False, True):
            section = posenc.default_mrope_section(n, interleaved=interleaved)
            counts = np.bincount(posenc.mrope_axis_of_pairs(n, section, interleaved=interleaved), minlength=3)
            assert counts.tolist() == list(section), (n, interleaved)
    with pytest.raises(ValueError, match="n_pairs"):
        posenc.default_mrope_section(2)


def test_vision_presets_are_consistent():
    for key, preset in posenc.VISION_PRESETS.items():
        assert preset.key == key and preset.source and preset.notes
        n = preset.head_dim // 2
        if preset.mrope_section is not None:
            axes = posenc.mrope_axis_of_pairs(n, preset.mrope_section, interleaved=preset.interleaved)
            assert np.bincount(axes, minlength=3).tolist() == list(preset.mrope_section)
        if preset.axial_first is not None:
            posenc.axial_rope_angles(
                2, 2, posenc.axial_inverse_frequencies(preset.head_dim, base=preset.base), first=preset.axial_first
            )
    assert posenc.VISION_PRESETS["qwen3-vl-8b"].interleaved
    assert posenc.VISION_PRESETS["qwen2.5-vl-7b"].mrope_section == (16, 24, 24)


def test_scheme_angles_by_per_patch_loops():
    """posenc.scheme_angles: patch (f, r, c) of a video, frame by frame, row by row, under each scheme,
    against its angle written per pair: raster (f·R·C + r·C + c)·θ_j; axial (column first) c or r times
    b^(−4i/d); M-RoPE (t, h, w) = (f, r, c) given to the pairs contiguously or interleaved (HF's slices)."""
    frames, rows, cols, d, b = 2, 3, 4, 16, 100.0
    got = posenc.scheme_angles(
        rows, cols, frames, d, base=b, section_c=(2, 3, 3), section_i=(4, 2, 2), axial_first="column"
    )
    n = d // 2
    theta = [b ** (-2 * j / d) for j in range(n)]
    phi = [b ** (-4 * (j % (n // 2)) / d) for j in range(n)]
    contiguous = [0] * 2 + [1] * 3 + [2] * 3
    interleaved = [1 if j % 3 == 1 and j < 6 else 2 if j % 3 == 2 and j < 6 else 0 for j in range(n)]
    for i, (f, r, c) in enumerate((f, r, c) for f in range(frames) for r in range(rows) for c in range(cols)):
        want = {
            "raster 1D": [(f * rows * cols + r * cols + c) * t for t in theta],
            "axial 2D": [(c if j < n // 2 else r) * phi[j] for j in range(n)],
            "M-RoPE contiguous": [(f, r, c)[contiguous[j]] * theta[j] for j in range(n)],
            "M-RoPE interleaved": [(f, r, c)[interleaved[j]] * theta[j] for j in range(n)],
        }
        assert list(got) == list(want)
        for name, angles in want.items():
            np.testing.assert_allclose(got[name][i], angles, rtol=1e-14, atol=0, err_msg=name)
