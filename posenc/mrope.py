r"""Positions with more than one axis: multimodal RoPE (M-RoPE) and axial 2D RoPE for patch grids.

A text token has one position; an image patch has a row and a column, a video patch also a time.
Both schemes below keep RoPE's rotation :math:`\phi_j = p_{a(j)}\,\theta_j` and only change *which*
position :math:`p_{a(j)}` turns pair j: each pair is given to one axis a(j).

* **M-RoPE** (Qwen2-VL, Qwen2.5-VL, Qwen3-VL): positions (t, h, w); ``mrope_section`` = how many pairs
  each axis gets. HF transformers,
  ``src/transformers/models/qwen2_vl/modeling_qwen2_vl.py::apply_multimodal_rotary_pos_emb`` splits the
  cos/sin of width head_dim into ``mrope_section * 2`` chunks and takes chunk i from axis i % 3: in
  pair terms, the first ``mrope_section[0]`` pairs turn with t, the next ``mrope_section[1]`` with h,
  the rest with w (*contiguous*). Qwen3-VL (``mrope_interleaved``,
  ``src/transformers/models/qwen3_vl/modeling_qwen3_vl.py::Qwen3VLTextRotaryEmbedding.apply_interleaved_mrope``)
  starts from t everywhere and overwrites pairs ``1, 4, 7, … < 3·mrope_section[1]`` with h and
  ``2, 5, 8, … < 3·mrope_section[2]`` with w (*interleaved*: T, H, W, T, H, W, …, then T's remainder).
* **Axial 2D RoPE** (vision encoders): half the pairs turn with the row, half with the column. The
  Qwen2-VL vision tower (``modeling_qwen2_vl.py::Qwen2VisionTransformerPretrainedModel.rot_pos_emb``
  with ``VisionRotaryEmbedding(head_dim // 2)``) gives the **first** half to the row (h) and the second
  half to the column (w), both halves with the same frequencies b^(−2i/(d/2)); RoPE-ViT
  (naver-ai/rope-vit, ``deit/models_v2_rope.py::compute_axial_cis``, base 100) puts the column (x)
  first. :func:`axial_rope_angles` takes ``first="row"`` (Qwen2-VL) or ``first="column"`` (RoPE-ViT).

Because every pair still turns by (its axis's position) × θ_j, the score of a query and a key depends
only on the *differences* of their positions on each axis (:func:`angle_scores`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _validate as v
from .rope import rope_angles
from .sinusoidal import inverse_frequencies

AXES = ("t", "h", "w")  # M-RoPE's three axes, in mrope_section's order
SEGMENT_KINDS = ("text", "image", "video")
AXIAL_FIRST = ("row", "column")


@dataclass(frozen=True)
class VisionPreset:
    """A published model's rotary settings for positions in images and video.

    ``mrope_section`` is None for a model without M-RoPE; ``axial_first`` is None for a model whose
    head (the language model's) uses no axial 2D RoPE.
    """

    key: str
    name: str
    head_dim: int
    base: float
    mrope_section: tuple[int, int, int] | None
    interleaved: bool
    axial_first: str | None
    source: str
    notes: str


#: Sources: the published config.json of each model (values as HF transformers reads them) and, for
#: RoPE-ViT, its model code (it ships no config.json).
VISION_PRESETS: dict[str, VisionPreset] = {
    p.key: p
    for p in (
        VisionPreset(
            key="qwen2.5-vl-7b",
            name="Qwen2.5-VL 7B (language model)",
            head_dim=128,  # hidden_size 3584 / num_attention_heads 28
            base=1_000_000.0,
            mrope_section=(16, 24, 24),
            interleaved=False,
            axial_first=None,
            source="Qwen/Qwen2.5-VL-7B-Instruct config.json: hidden_size 3584, num_attention_heads 28, "
            'rope_theta 1000000.0, rope_scaling {"type": "mrope", "mrope_section": [16, 24, 24]}',
            notes="Contiguous M-RoPE in the language model; its vision encoder rotates axial 2D RoPE in "
            "heads of its own (dimension 80, base 10000), not these.",
        ),
        VisionPreset(
            key="qwen3-vl-8b",
            name="Qwen3-VL 8B (language model)",
            head_dim=128,
            base=5_000_000.0,
            mrope_section=(24, 20, 20),
            interleaved=True,
            axial_first=None,
            source="Qwen/Qwen3-VL-8B-Instruct config.json, text_config: head_dim 128, rope_theta 5000000, "
            'rope_scaling {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": true}',
            notes="Interleaved M-RoPE (T, H, W, T, H, W, …). Qwen3-VL also changes how video time is "
            "numbered (timestamps as text); the time axis here follows Qwen2-VL's rule.",
        ),
        VisionPreset(
            key="rope-vit-b16",
            name="RoPE-ViT B/16 (axial)",
            head_dim=64,  # embed_dim 768 / num_heads 12
            base=100.0,
            mrope_section=None,
            interleaved=False,
            axial_first="column",
            source="naver-ai/rope-vit deit/models_v2_rope.py: rope_axial_deit_base_patch16_LS (embed_dim 768, "
            "num_heads 12, rope_theta 100.0; compute_axial_cis puts x, the column, first); 224 px / 16 = 14 × 14",
            notes="Axial 2D RoPE over a 14 × 14 patch grid at 224 px; no time axis, no M-RoPE.",
        ),
    )
}


def default_mrope_section(n_pairs, *, interleaved: bool = False) -> tuple[int, int, int]:
    """An mrope_section for any head in a published model's proportions.

    Contiguous: Qwen2-VL's [16, 24, 24] of 64, i.e. t = ⌊n/4⌋ and the rest split between h and w
    (h gets the odd one). Interleaved: Qwen3-VL's [24, 20, 20] of 64, i.e. t = round(3n/8), the rest
    split the same way. Both equal the published sections at n = 64.
    """
    n = v.integer("n_pairs", n_pairs, minimum=3, maximum=v.MAX_DIM // 2)
    t = int(round(3 * n / 8)) if interleaved else n // 4
    rest = n - t
    section = (t, (rest + 1) // 2, rest // 2)
    _section(section, n, interleaved=interleaved)  # raises if this head cannot be split that way
    return section


def _section(mrope_section: Any, n_pairs: int, *, interleaved: bool) -> tuple[int, int, int]:
    try:
        items = list(mrope_section)
    except TypeError as exc:
        raise TypeError(f"mrope_section must be a list of 3 integers (t, h, w), got {mrope_section!r}") from exc
    if len(items) != 3:
        raise ValueError(f"mrope_section must have 3 entries (t, h, w), got {len(items)}: {items!r}")
    s = tuple(v.integer(f"mrope_section[{i}]", x, minimum=0) for i, x in enumerate(items))
    if sum(s) != n_pairs:
        # HF's torch.split(mrope_section * 2) fails unless the chunks cover head_dim: sum = head_dim / 2.
        raise ValueError(
            f"mrope_section must sum to the number of rotary pairs (head_dim / 2 = len(inv_freq) = {n_pairs}), "
            f"got {list(s)} (sum {sum(s)})"
        )
    if interleaved and (3 * s[1] > n_pairs + 1 or 3 * s[2] > n_pairs):
        # HF's slices [1 : 3·s_h : 3] and [2 : 3·s_w : 3] stop at the last pair: past these bounds an
        # axis silently receives fewer pairs than mrope_section says. We refuse instead.
        raise ValueError(
            "with interleaved=True, mrope_section must satisfy 3·mrope_section[1] <= n_pairs + 1 and "
            f"3·mrope_section[2] <= n_pairs (n_pairs = {n_pairs}) so that every axis gets its share of the "
            f"pairs T, H, W, T, H, W, …, got {list(s)}"
        )
    return s[0], s[1], s[2]


def mrope_axis_of_pairs(n_pairs, mrope_section, *, interleaved: bool = False) -> np.ndarray:
    """Which axis turns each pair: 0 = t, 1 = h, 2 = w; shape (n_pairs,), integers.

    Contiguous (Qwen2-VL / Qwen2.5-VL): ``[0]*s_t + [1]*s_h + [2]*s_w``. Interleaved (Qwen3-VL):
    0 everywhere, then 1 at pairs 1, 4, 7, … below 3·s_h and 2 at pairs 2, 5, 8, … below 3·s_w.
    """
    n = v.integer("n_pairs", n_pairs, minimum=1, maximum=v.MAX_DIM // 2)
    s_t, s_h, s_w = _section(mrope_section, n, interleaved=interleaved)
    if not interleaved:
        return np.repeat(np.arange(3), [s_t, s_h, s_w])
    axis = np.zeros(n, dtype=np.int64)
    axis[1 : 3 * s_h : 3] = 1  # HF: freqs_t[..., slice(1, 3 * mrope_section[1], 3)] = freqs[1, ...]
    axis[2 : 3 * s_w : 3] = 2  # HF: freqs_t[..., slice(2, 3 * mrope_section[2], 3)] = freqs[2, ...]
    return axis


def mrope_angles(positions_thw, inv_freq, mrope_section, *, interleaved: bool = False) -> np.ndarray:
    r"""M-RoPE rotation angles, shape (seq, len(inv_freq)).

    :math:`\phi_{s,j} = p_{a(j)}(s)\,\theta_j`, where a(j) is the axis :func:`mrope_axis_of_pairs`
    assigns to pair j and ``positions_thw`` (shape (3, seq)) holds the t, h and w positions. With
    t = h = w for every token (text) this is 1D RoPE.
    """
    inv = v.float_array("inv_freq", inv_freq, ndim=1)
    if inv.size == 0:
        raise ValueError("inv_freq must have at least one entry, got 0")
    pos = v.float_array("positions_thw", positions_thw)
    if pos.ndim != 2 or pos.shape[0] != 3:
        raise ValueError(f"positions_thw must have shape (3, seq) (rows t, h, w), got shape {pos.shape}")
    if pos.shape[1] > v.MAX_POSITIONS:
        raise ValueError(f"positions_thw must have at most {v.MAX_POSITIONS} columns, got {pos.shape[1]}")
    axis = mrope_axis_of_pairs(inv.size, mrope_section, interleaved=interleaved)  # (n_pairs,)
    return pos[axis, :].T * inv  # (seq, n_pairs): column j is the position on axis a(j), times θ_j


def _segment(i: int, seg: Any) -> tuple[str, tuple[int, ...]]:
    if not isinstance(seg, (tuple, list)) or not seg or seg[0] not in SEGMENT_KINDS:
        raise ValueError(
            f"segments[{i}] must be ('text', n), ('image', t, h, w) or ('video', frames, h, w), got {seg!r}"
        )
    kind, sizes = seg[0], tuple(seg[1:])
    if kind == "text":
        if len(sizes) != 1:
            raise ValueError(f"segments[{i}] must be ('text', n), got {seg!r}")
        return kind, (v.integer(f"segments[{i}] (text tokens)", sizes[0], minimum=0),)
    if len(sizes) != 3:
        raise ValueError(f"segments[{i}] must be ({kind!r}, t, h, w) with the merged grid sizes, got {seg!r}")
    names = ("frames" if kind == "video" else "t", "h", "w")
    return kind, tuple(v.integer(f"segments[{i}] ({name})", x, minimum=1) for name, x in zip(names, sizes))


def qwen2vl_position_ids(segments: Sequence[Any]) -> np.ndarray:
    """M-RoPE positions of a mixed sequence, built as Qwen2-VL's ``get_rope_index`` does; shape (3, seq).

    ``segments`` is a list of ``("text", n)``, ``("image", t, h, w)`` and ``("video", frames, h, w)``
    with the grid sizes *the language model sees*, i.e. after the spatial merge (HF:
    ``h // spatial_merge_size``; an image has t = 1). Rules (HF transformers,
    ``modeling_qwen2_vl.py::Qwen2VLModel.get_rope_index``):

    * text tokens take the next index on all three axes (t = h = w);
    * a grid starting at index s gives its token (f, r, c) the positions (s + f, s + r, s + c),
      in the order frame by frame, row by row;
    * whatever follows continues at (the largest position used so far) + 1, so the next token after
      a grid starts at s + max(t, h, w).

    Qwen2-VL's rule: the time index advances by 1 per temporal grid step. Qwen2.5-VL multiplies it by
    ``second_per_grid_t · tokens_per_second`` (time in absolute seconds); Qwen3-VL gives each frame
    t = 0 and writes timestamps as text. Those two rules are not implemented here.
    """
    if isinstance(segments, (str, bytes)) or not isinstance(segments, Sequence):
        raise TypeError(f"segments must be a list of tuples such as ('text', 4), got {segments!r}")
    parsed = [_segment(i, seg) for i, seg in enumerate(segments)]
    total = sum(sizes[0] if kind == "text" else int(np.prod(sizes)) for kind, sizes in parsed)
    if total > v.MAX_POSITIONS:
        raise ValueError(f"segments must hold at most {v.MAX_POSITIONS} tokens, got {total}")
    out = np.empty((3, total), dtype=np.int64)
    start, col = 0, 0  # start: the next free index (largest position used + 1)
    for kind, sizes in parsed:
        if kind == "text":
            n = sizes[0]
            out[:, col : col + n] = start + np.arange(n)  # t = h = w
            start, col = start + n, col + n
            continue
        t, h, w = sizes
        n = t * h * w
        out[:, col : col + n] = start + np.indices((t, h, w)).reshape(3, n)  # (f, r, c) of each token, in order
        start, col = start + max(t, h, w), col + n  # HF: llm_pos_ids_list[-1].max() + 1
    return out


def grid_positions(rows, cols) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of every patch of a rows × cols grid in raster order (row by row); two int arrays."""
    r = v.integer("rows", rows, minimum=1, maximum=v.MAX_DIM)
    c = v.integer("cols", cols, minimum=1, maximum=v.MAX_DIM)
    if r * c > v.MAX_POSITIONS:
        raise ValueError(f"rows * cols must be at most {v.MAX_POSITIONS}, got {r * c}")
    idx = np.arange(r * c)
    return idx // c, idx % c


def axial_inverse_frequencies(head_dim, *, base=10000.0) -> np.ndarray:
    r"""The frequencies of axial 2D RoPE for a head of size d: :math:`(\theta'_0 … \theta'_{d/4-1})` twice,
    :math:`\theta'_i = b^{-2i/(d/2)} = b^{-4i/d}`; shape (d/2,).

    Both axes use the same d/4 frequencies (Qwen2-VL's ``VisionRotaryEmbedding(head_dim // 2)``;
    RoPE-ViT's ``1 / theta ** (arange(0, dim, 4)[: dim // 4] / dim)``, the same numbers).
    """
    d = v.dimension("head_dim", head_dim, even=True)
    if d % 4:
        raise ValueError(f"head_dim must be a multiple of 4 (two axes, each with whole pairs), got {d}")
    b = v.base_value("base", base)
    half = b ** (-np.arange(0, d // 2, 2, dtype=np.float64) / (d // 2))  # (d/4,)
    return np.concatenate([half, half])


def axial_axis_of_pairs(n_pairs, *, first: str = "row") -> np.ndarray:
    """Which grid axis turns each pair of axial 2D RoPE: 0 = row, 1 = column; shape (n_pairs,)."""
    n = v.integer("n_pairs", n_pairs, minimum=2, maximum=v.MAX_DIM // 2)
    if n % 2:
        raise ValueError(f"n_pairs must be even (half the pairs per axis), got {n}")
    first = v.choice("first", first, AXIAL_FIRST)
    halves = np.repeat([0, 1], n // 2)
    return halves if first == "row" else 1 - halves


def axial_rope_angles(rows, cols, inv_freq, *, first: str = "row", row_scale=1.0, col_scale=1.0) -> np.ndarray:
    r"""Axial 2D RoPE angles of a rows × cols patch grid in raster order; shape (rows·cols, len(inv_freq)).

    Pair j turns by :math:`(\text{row}\cdot s_r)\,\theta_j` in the half of the pairs given to rows
    (the first half when ``first="row"``, as in Qwen2-VL's vision tower) and by
    :math:`(\text{col}\cdot s_c)\,\theta_j` in the other half. ``row_scale`` / ``col_scale`` (s_r, s_c)
    are 2D position interpolation: 16 / 32 maps a 32-row grid onto the row positions 0 … 15.5 of a
    16-row one.
    """
    inv = v.float_array("inv_freq", inv_freq, ndim=1)
    axis = axial_axis_of_pairs(inv.size, first=first)  # validates the length
    s_r = v.positive_float("row_scale", row_scale)
    s_c = v.positive_float("col_scale", col_scale)
    row, col = grid_positions(rows, cols)
    pos = np.stack([row * s_r, col * s_c])  # (2, seq)
    return pos[axis, :].T * inv  # (seq, n_pairs)


def raster_rope_angles(rows, cols, inv_freq) -> np.ndarray:
    """1D RoPE over a patch grid read row by row: patch (r, c) gets position r·cols + c; shape (rows·cols, n)."""
    row, col = grid_positions(rows, cols)
    return rope_angles(row * int(cols) + col, inv_freq)


#: The four ways of giving a patch's positions to the pairs that `scheme_angles` compares.
SCHEMES = ("raster 1D", "axial 2D", "M-RoPE contiguous", "M-RoPE interleaved")


def scheme_angles(
    rows, cols, frames, head_dim, *, base, section_c, section_i, axial_first: str = "row"
) -> dict[str, np.ndarray]:
    """Per-pair angles of every patch of a video of ``frames`` rows × cols grids (frame by frame, row by
    row; shape (frames·rows·cols, head_dim/2)) under each of `SCHEMES`: 1D RoPE over the raster order,
    axial 2D RoPE (no time axis: every frame alike), and M-RoPE with the contiguous ``section_c`` and
    the interleaved ``section_i``, both over :func:`qwen2vl_position_ids` of the video alone."""
    inv = inverse_frequencies(head_dim, base=base)
    thw = qwen2vl_position_ids([("video", frames, rows, cols)])
    axial = axial_rope_angles(rows, cols, axial_inverse_frequencies(head_dim, base=base), first=axial_first)
    return dict(
        zip(
            SCHEMES,
            (
                rope_angles(np.arange(thw.shape[1]), inv),
                np.tile(axial, (int(frames), 1)),
                mrope_angles(thw, inv, list(section_c)),
                mrope_angles(thw, inv, list(section_i), interleaved=True),
            ),
        )
    )


def angle_scores(angles_q, angles_k, q=None, k=None) -> np.ndarray:
    r"""Scores of rotated queries against rotated keys from their per-pair angles; shape (len_q, len_k).

    With q and k (dimension 2·n_pairs, half layout: pair j is (x_j, x_{j+n})):
    :math:`s = \sum_j \big[(q_a k_a + q_b k_b)\cos\delta_j + (q_b k_a - q_a k_b)\sin\delta_j\big]`,
    :math:`\delta_j = \phi^k_j - \phi^q_j`, which is :math:`\langle R(\phi^q) q,\ R(\phi^k) k\rangle`.
    Without them (q = k = ones, divided by the dimension):
    :math:`\frac{1}{n}\sum_j \cos(\phi^q_j - \phi^k_j)`, 1 for equal angles. Either way only the
    angle *differences* enter.
    """
    aq = v.float_array("angles_q", angles_q, ndim=2)
    ak = v.float_array("angles_k", angles_k, ndim=2)
    if aq.shape[1] != ak.shape[1]:
        raise ValueError(
            f"angles_q and angles_k must have the same number of pairs, got {aq.shape[1]} and {ak.shape[1]}"
        )
    n = aq.shape[1]
    if (q is None) != (k is None):
        raise ValueError("q and k must be given together (or neither, for the mean cosine)")
    cq, sq, ck, sk = np.cos(aq), np.sin(aq), np.cos(ak), np.sin(ak)
    if q is None:  # cos(a − b) = cos a cos b + sin a sin b
        return (cq @ ck.T + sq @ sk.T) / n
    qv = v.float_array("q", q, ndim=1)
    kv = v.float_array("k", k, ndim=1)
    if qv.shape != (2 * n,) or kv.shape != (2 * n,):
        raise ValueError(f"q and k must have 2 · n_pairs = {2 * n} entries, got {qv.size} and {kv.size}")
    qa, qb, ka, kb = qv[:n], qv[n:], kv[:n], kv[n:]
    dot, cross = qa * ka + qb * kb, qb * ka - qa * kb  # (n,)
    # cos δ = cos φk cos φq + sin φk sin φq, sin δ = sin φk cos φq − cos φk sin φq
    return (cq * dot) @ ck.T + (sq * dot) @ sk.T + (cq * cross) @ sk.T - (sq * cross) @ ck.T


def offset_scores(angles, rows, cols, *, frame=0) -> np.ndarray:
    r"""Every score a query patch of frame 0 has with a key patch of ``frame``, by the key's offset from it
    on a rows × cols grid: shape (2·rows − 1, 2·cols − 1), entry ``[Δr + rows − 1, Δc + cols − 1]`` for the
    key Δr rows below and Δc columns right of the query (negative: above, left).

    ``angles`` are per-pair angles of every patch, frame by frame, row by row (shape
    (frames·rows·cols, n_pairs), as :func:`raster_rope_angles`, :func:`axial_rope_angles` and
    :func:`mrope_angles` of :func:`qwen2vl_position_ids` give them). Each entry is :func:`angle_scores`
    of a real query and key of that grid: the four corner patches as queries, each with every key of
    ``frame``, cover every offset. For angles that are a fixed linear function of the patch's
    (t, row, column) position (every scheme in this module), the score of any query with the key at
    (Δr, Δc) from it is this entry (up to float rounding): only differences of positions enter it.
    The heatmap of the query (r, c) is ``table[rows − 1 − r : 2·rows − 1 − r, cols − 1 − c : 2·cols − 1 − c]``.
    """
    r = v.integer("rows", rows, minimum=1, maximum=v.MAX_DIM)
    c = v.integer("cols", cols, minimum=1, maximum=v.MAX_DIM)
    a = v.float_array("angles", angles, ndim=2)
    n = r * c
    if a.shape[0] < n or a.shape[0] % n:
        raise ValueError(
            f"angles must have a row per patch of whole frames (a multiple of rows · cols = {n}), got {a.shape[0]}"
        )
    f = v.integer("frame", frame, minimum=0, maximum=a.shape[0] // n - 1)
    keys = a[f * n : (f + 1) * n]
    out = np.empty((2 * r - 1, 2 * c - 1))
    for qr, qc in dict.fromkeys([(0, 0), (0, c - 1), (r - 1, 0), (r - 1, c - 1)]):  # 1 to 4 corners
        scores = angle_scores(a[[qr * c + qc]], keys)[0].reshape(r, c)  # key (i, j) is (i − qr, j − qc) away
        out[r - 1 - qr : 2 * r - 1 - qr, c - 1 - qc : 2 * c - 1 - qc] = scores
    return out
