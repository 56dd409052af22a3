"""What the Images-and-video page computes (pages/7_Images_and_video.py): the four schemes' angles and
scores on a patch grid (`posenc.scheme_angles`), which axis turns each pair, the shift test, a new
resolution and the positions of a text / video / text sequence. Pure but for `cached`."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

import posenc
from explorer.charts import vision as charts
from explorer.charts.vision import Lookup
from explorer.layout import cached
from explorer.site.vision import MAX_FRAMES, MAX_GRID
from explorer.vocabulary import NEW_GRIDS, TRAINED_GRIDS
from posenc.mrope import AXES, SCHEMES, VisionPreset
from posenc.mrope import default_mrope_section as default

#: The axes' names on the charts (one colour each: explorer.charts.vision.AXIS_COLORS).
AXIS_NAMES = {"t": "time (t)", "h": "row (h)", "w": "column (w)"}


@dataclass(frozen=True)
class Model:
    """The head the schemes rotate. ``own_c`` / ``own_i``: the section is the model's own (else a
    default in Qwen2-VL's or Qwen3-VL's proportions, `posenc.default_mrope_section`)."""

    head_dim: int
    base: float
    section_c: tuple[int, int, int]
    section_i: tuple[int, int, int]
    axial_first: str = "row"
    own_c: bool = False
    own_i: bool = False

    @classmethod
    def of(cls, preset: VisionPreset | None, head_dim: int = 0, base: float = 0.0) -> Model:
        """A published model's settings (``preset``), or a custom head's (preset None: ``head_dim``, ``base``)."""
        if preset is None:
            n = head_dim // 2
            return cls(int(head_dim), float(base), default(n), default(n, interleaved=True))
        own, n = preset.mrope_section, preset.head_dim // 2
        own_c, own_i = (own is not None and not preset.interleaved), (own is not None and preset.interleaved)
        return cls(
            preset.head_dim,
            preset.base,
            own if own is not None and own_c else default(n),
            own if own is not None and own_i else default(n, interleaved=True),
            preset.axial_first or "row",
            own_c,
            own_i,
        )


@cached(max_entries=16)
def angles(rows: int, cols: int, frames: int, m: Model) -> dict[str, np.ndarray]:
    """`posenc.scheme_angles` of the page's grid: (frames·rows·cols, d/2) per scheme."""
    sections = {"section_c": m.section_c, "section_i": m.section_i}
    return posenc.scheme_angles(rows, cols, frames, m.head_dim, base=m.base, axial_first=m.axial_first, **sections)


#: The widest grid the page draws (rows and columns): the query heatmaps' tables cover every grid up to it.
WIDEST = MAX_GRID
#: Positions looked up at a time for the raster table (bounds the angle arrays: at most this × d/2).
_CHUNK = 8192


@cached(max_entries=16)
def grid_tables(m: Model) -> dict[str, Lookup]:
    """Per scheme, every score a query patch (frame 0) has with a key of any frame of a video of up to `MAX_FRAMES`
    frames on any grid up to `WIDEST` × `WIDEST` (issue #36: the query heatmaps change the grid, the video's length
    and the frame shown in the browser by looking these up; `explorer.charts.vision.Lookup`). A video of fewer frames
    is the first frames of the longest: a key's score does not depend on how many frames follow it, so one table per
    model serves every length, and a change of length costs the server nothing.

    - raster order (``positions``): the score by position offset Δp = frame·rows·cols + Δr·cols + Δc, from
      −(WIDEST² − 1) to MAX_FRAMES·WIDEST² − 1: the query at position 0 with the key at Δp (at WIDEST² − 1 with the key
      at WIDEST² − 1 + Δp for Δp < 0);
    - axial 2D and M-RoPE (``offsets``): `posenc.offset_scores` in frame 0 on the widest grid, shape
      (2·WIDEST − 1, 2·WIDEST − 1). Their angles are linear in (t, row, column) and leave a patch's row and column
      alone when the grid grows, so every smaller grid's offset table is the centre of this one;
    - M-RoPE (``frames``): what frame f adds to every score, the time pairs' share, Σ over t pairs of
      (cos(f·θ_j) − 1)/(d/2): the score of patch (0, 0) of frame f with the query at (0, 0) of frame 0, less frame
      0's. M-RoPE's score is a sum over pairs, each turned by one axis, so the time pairs add the same at every
      offset. Axial 2D has no time axis."""
    n, frames = WIDEST * WIDEST, MAX_FRAMES
    inv = posenc.inverse_frequencies(m.head_dim, base=m.base)
    span = np.arange(1 - n, frames * n)
    parts = []
    for side, query in ((span[span < 0], n - 1), (span[span >= 0], 0)):  # keys before the last patch, from the first
        for start in range(0, side.size, _CHUNK):
            keys = posenc.rope_angles(query + side[start : start + _CHUNK], inv)
            parts.append(posenc.angle_scores(posenc.rope_angles([query], inv), keys)[0])
    thw = posenc.qwen2vl_position_ids([("video", frames, WIDEST, WIDEST)])
    axial = posenc.axial_rope_angles(
        WIDEST, WIDEST, posenc.axial_inverse_frequencies(m.head_dim, base=m.base), first=m.axial_first
    )
    out = {SCHEMES[0]: Lookup(positions=pd.Series(np.concatenate(parts), index=span))}
    out[SCHEMES[1]] = Lookup(offsets=posenc.offset_scores(axial, WIDEST, WIDEST))
    for name, section, interleaved in ((SCHEMES[2], m.section_c, False), (SCHEMES[3], m.section_i, True)):
        first = posenc.mrope_angles(thw[:, :n], inv, list(section), interleaved=interleaved)  # frame 0
        corners = posenc.mrope_angles(thw[:, ::n], inv, list(section), interleaved=interleaved)  # (0, 0) of each frame
        time = posenc.angle_scores(corners[[0]], corners)[0]
        out[name] = Lookup(
            offsets=posenc.offset_scores(first, WIDEST, WIDEST), frames=pd.Series(time - time[0], index=range(frames))
        )
    return out


def offset_tables(rows: int, cols: int, frames: int, frame: int, m: Model) -> dict[str, np.ndarray]:
    """Per scheme, the score of a query (frame 0) with the key (Δr, Δc) away in `frame`, for every offset
    on the grid (shape (2·rows − 1, 2·cols − 1), as posenc.offset_scores gives it for this grid, up to float
    rounding): what the query heatmaps look up in `grid_tables` (`explorer.charts.vision.Lookup.at`), so the
    page's numbers are the chart's. Every query's heatmap is a window of it (`query_grid`)."""
    if not (1 <= rows <= WIDEST and 1 <= cols <= WIDEST and 0 <= frame < frames):
        raise ValueError(
            f"rows and cols must be in 1 … {WIDEST} and frame in 0 … frames − 1, got {rows}, {cols}, {frame}"
        )
    dr, dc = np.meshgrid(np.arange(1 - rows, rows), np.arange(1 - cols, cols), indexing="ij")
    return {name: table.at(frame, dr, dc, rows, cols) for name, table in grid_tables(m).items()}


def query_grid(table: np.ndarray, q_row: int, q_col: int) -> np.ndarray:
    """The heatmap (rows, cols) of the query (q_row, q_col): its window of an offset table."""
    rows, cols = (table.shape[0] + 1) // 2, (table.shape[1] + 1) // 2
    return table[rows - 1 - q_row : 2 * rows - 1 - q_row, cols - 1 - q_col : 2 * cols - 1 - q_col]


def neighbours(rows: int, cols: int, frames: int, frame: int, m: Model) -> dict[str, dict[str, float]]:
    """Each scheme's score of a query with the patch below it and to its right (in `frame`), and the
    raster and axial scores of a row's last patch with the next row's first (frame 0; every row end alike).
    Empty on a grid of one row or one column."""
    if rows < 2 or cols < 2:
        return {"below": {}, "right": {}, "across": {}}
    tables, a = offset_tables(rows, cols, frames, frame, m), angles(rows, cols, 1, m)  # `across`: frame 0's
    r, c = rows - 1, cols - 1  # the offset (0, 0) in the tables
    return {
        "below": {name: float(t[r + 1, c]) for name, t in tables.items()},
        "right": {name: float(t[r, c + 1]) for name, t in tables.items()},
        "across": {name: pair_score(a[name], cols - 1, cols) for name in SCHEMES[:2]},
    }


def grid_csv(rows: int, cols: int, frames: int, frame: int, q: tuple[int, int], m: Model) -> pd.DataFrame:
    """The download: every patch's row, column and score with the query under each scheme."""
    tables = offset_tables(rows, cols, frames, frame, m)
    r, c = posenc.grid_positions(rows, cols)
    scores = {name.replace(" ", "_"): query_grid(tables[name], *q).ravel() for name in SCHEMES}
    return pd.DataFrame({"row": r, "column": c, **scores})


def pair_score(a: np.ndarray, i: int, k: int) -> float:
    """The score of patch i with patch k (rows of the angles `a`)."""
    return float(posenc.angle_scores(a[[i]], a[[k]])[0, 0])


def pairs_frame(m: Model) -> pd.DataFrame:
    """One row per scheme and pair: scheme, pair, the axis that turns it, its wavelength 2π/θ_j."""
    n = m.head_dim // 2
    inv = posenc.inverse_frequencies(m.head_dim, base=m.base)
    names = np.array([AXIS_NAMES[a] for a in AXES])
    rows_of = {  # short names: the strips' labels must fit a phone and presentation mode
        "raster 1D": (inv, np.full(n, "sequence")),
        "axial 2D": (
            posenc.axial_inverse_frequencies(m.head_dim, base=m.base),
            np.array(["row (h)", "column (w)"])[posenc.axial_axis_of_pairs(n, first=m.axial_first)],
        ),
        "M-RoPE contiguous": (inv, names[posenc.mrope_axis_of_pairs(n, list(m.section_c))]),
        "M-RoPE interleaved": (inv, names[posenc.mrope_axis_of_pairs(n, list(m.section_i), interleaved=True)]),
    }
    return pd.concat(
        [
            pd.DataFrame({"scheme": name, "pair": np.arange(n), "axis": axes, "wavelength": 2 * np.pi / fr})
            for name, (fr, axes) in rows_of.items()
        ],
        ignore_index=True,
    )


def pairs_summary(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per scheme and axis: how many pairs, the first and last, the shortest and longest wavelength."""
    return (
        pairs.groupby(["scheme", "axis"], sort=False)
        .agg(
            pairs=("pair", "count"),
            first=("pair", "min"),
            last=("pair", "max"),
            shortest=("wavelength", "min"),
            longest=("wavelength", "max"),
        )
        .reset_index()
    )


def shift_table(rows: int, cols: int, q: tuple[int, int], k: tuple[int, int], d: tuple[int, int], m: Model):
    """The shift test: per scheme, the score of q and k, of both moved by d, and of q and k on a grid one
    column wider (a DataFrame). The diagram of the four patches is drawn in the browser
    (explorer.charts.vision.live_shift_chart)."""
    (qr, qc), (kr, kc), (dr, dc) = q, k, d
    now, wider = angles(rows, cols, 1, m), angles(rows, cols + 1, 1, m)
    table = pd.DataFrame(
        {
            "scheme": list(SCHEMES),
            "q, k": [pair_score(now[s], qr * cols + qc, kr * cols + kc) for s in SCHEMES],
            "shifted by Δ": [
                pair_score(now[s], (qr + dr) * cols + qc + dc, (kr + dr) * cols + kc + dc) for s in SCHEMES
            ],
            f"grid {cols + 1} wide": [
                pair_score(wider[s], qr * (cols + 1) + qc, kr * (cols + 1) + kc) for s in SCHEMES
            ],
        }
    )
    return table


def shift_changes(table: pd.DataFrame) -> dict[str, float]:
    """From `shift_table`: the largest change of a score by the shift (``by_shift``), the raster score's
    change on the wider grid (``raster``) and the largest change of the other schemes' there (``other``)."""
    by_width = table.iloc[:, 3] - table["q, k"]
    return {
        "by_shift": float((table["shifted by Δ"] - table["q, k"]).abs().max()),
        "raster": float(by_width.iloc[0]),
        "other": float(by_width.iloc[1:].abs().max()),
    }


@cached(max_entries=16)
def resolution_axis(
    m: Model, trained: tuple[int, ...] = TRAINED_GRIDS, new: tuple[int, ...] = NEW_GRIDS
) -> pd.DataFrame:
    """What the resolution chart looks up in the browser (`explorer.charts.vision.live_resolution_chart`, whose sliders
    offer the sides `trained` and `new`): one axis's share of axial 2D RoPE's score of the centre patch with a patch Δ
    rows (or columns) from it, f_s(Δ) = Σ over the axis's pairs of cos(Δ·s·θ_j) / (d/2), at every scale s the sliders
    reach (× 1, and × train/new for every pair of options) and every offset (`charts.res_offsets`). Both axes turn the
    same d/4 frequencies (`posenc.axial_inverse_frequencies`), so the score of (Δr, Δc) is f_s(Δr) + f_s(Δc): what
    `resolution_scores` computes, as a sum of two. The angles are posenc's (`posenc.axial_rope_angles` of one row of
    patches, at each scale). Columns ``key`` (as `charts.RES_BLOCK` says) and ``f``."""
    inv = posenc.axial_inverse_frequencies(m.head_dim, base=m.base)
    on_cols = posenc.axial_axis_of_pairs(inv.size, first=m.axial_first) == 1
    offsets = charts.res_offsets((*trained, *new))
    centre = -int(offsets[0])  # the query's column in one row of offsets.size patches
    scales = {0: 1.0}
    for i, t in enumerate(trained):
        for j, n in enumerate(new):
            scales[charts.res_block(i, j, len(new))] = t / n
    keys, values = [], []
    for block, s in sorted(scales.items()):
        a = posenc.axial_rope_angles(1, offsets.size, inv, first=m.axial_first, col_scale=s)[:, on_cols]
        keys.append(block * charts.RES_BLOCK + offsets + charts.RES_BLOCK // 2)
        values.append(np.cos(a - a[centre]).sum(axis=1) / inv.size)
    return pd.DataFrame({"key": np.concatenate(keys).astype(np.int32), "f": np.concatenate(values)})


@cached(max_entries=8)
def resolution_scores(train: int, new: int, m: Model) -> dict[str, np.ndarray]:
    """Axial 2D similarity of the centre patch with every patch: the trained grid, the new one as is and
    interpolated (positions × train/new)."""
    inv_axial = posenc.axial_inverse_frequencies(m.head_dim, base=m.base)
    out = {}
    for label, n, s in (("trained", train, 1.0), ("as is", new, 1.0), ("interpolated", new, train / new)):
        a = posenc.axial_rope_angles(n, n, inv_axial, first=m.axial_first, row_scale=s, col_scale=s)
        out[label] = posenc.angle_scores(a[[(n // 2) * n + n // 2]], a)[0].reshape(n, n)
    return out


def centre_steps(res: dict[str, np.ndarray]) -> tuple[float, float]:
    """The centre patch's score with its right-hand neighbour on the trained grid and on the new one
    interpolated (`resolution_scores`; 1 on a grid one patch wide)."""
    trained, interpolated = (
        float(g[len(g) // 2, len(g) // 2 + 1]) if len(g) > 1 else 1.0 for g in (res["trained"], res["interpolated"])
    )
    return trained, interpolated


@cached(max_entries=16)
def sequence_video(frames: int, rows: int, cols: int) -> tuple[pd.DataFrame, int, int, int]:
    """The live sequence chart's video tokens (`explorer.charts.vision.live_sequence_chart`): the positions Qwen2-VL's
    get_rope_index gives a frames × rows × cols video at the start of a sequence (posenc.qwen2vl_position_ids), every
    token or every stride-th (at most about 1500 drawn), one row per token drawn and axis
    (vindex, axis, rel); with the video's tokens, the positions it costs (the next token's position) and the stride."""
    pos = posenc.qwen2vl_position_ids([("video", frames, rows, cols)])
    n_vis = frames * rows * cols
    stride = max(1, math.ceil(n_vis / 1500))
    shown = np.arange(0, n_vis, stride)
    # the rows in the order they are drawn, the last on top: the column's sawtooth, which fills a band on a phone's
    # narrow plot, under the row's steps, under the time's (drawn the other way round, the band hid the steps)
    video = pd.concat(
        [
            pd.DataFrame({"vindex": shown, "axis": AXIS_NAMES[a], "rel": pos[i, shown]})
            for i, a in reversed(list(enumerate(AXES)))
        ],
        ignore_index=True,
    )
    return video, n_vis, int(pos.max()) + 1, stride
