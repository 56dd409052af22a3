"""The Images and video page (pages/7_Images_and_video.py): its parameters, snippet, tour steps, deep link and bench settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from explorer.pagespec import BenchSettings, DeepLink, Page, Step
from explorer.paramspec import Param
from explorer.snippets import HEADER, fill, ints
from explorer.vocabulary import NEW_GRIDS, TRAINED_GRIDS
from posenc.mrope import VISION_PRESETS

MAX_GRID = 64  # rows and columns of the patch grid
MAX_FRAMES = 16
CUSTOM = "custom"
CUSTOM_LABEL = "Custom (your own head size and base)"
VIEWS = ("Patch grid", "Pairs and axes", "Shift test", "Resolution", "Sequence")


def snippet(v: Mapping[str, Any]) -> str:
    return HEADER + fill(
        """
rows, cols, (q_row, q_col) = $rows, $cols, $query  # the patch grid and the query patch (frame 0)
frames, frame = $frames, $frame  # video frames; the keys shown are those of `frame`
head_dim, base = $head_dim, $base
section_c, section_i, axial_first = $section_c, $section_i, $axial_first
text_before, text_after = $text_before, $text_after
n = rows * cols
angles = posenc.scheme_angles(  # (frames*n, d/2) per scheme: every patch, frame by frame, row by row
    rows, cols, frames, head_dim, base=base, section_c=section_c, section_i=section_i, axial_first=axial_first
)
query, keys = q_row * cols + q_col, slice(frame * n, (frame + 1) * n)
for name, a in angles.items():  # mean over pairs of cos(angle difference): 1 at the query itself
    scores = posenc.angle_scores(a[[query]], a[keys])[0].reshape(rows, cols)
    print(f"{name:19s} below {scores[min(q_row + 1, rows - 1), q_col]:+.4f}  "
          f"right {scores[q_row, min(q_col + 1, cols - 1)]:+.4f}  min {scores.min():+.4f}")
pos = posenc.qwen2vl_position_ids([("text", text_before), ("video", frames, rows, cols), ("text", text_after)])
print("text after the video starts at position", pos[0, text_before + frames * n] if text_after else pos.max() + 1)
# The Resolution tab: axial 2D scores of the centre patch, trained grid, new grid as is and interpolated (x train/new)
train, new = $train, $new
resolution = {}
for label, side, s in (("trained", train, 1.0), ("as is", new, 1.0), ("interpolated", new, train / new)):
    a = posenc.axial_rope_angles(
        side, side, posenc.axial_inverse_frequencies(head_dim, base=base), first=axial_first, row_scale=s, col_scale=s
    )
    c = side // 2
    resolution[label] = posenc.angle_scores(a[[c * side + c]], a)[0].reshape(side, side)
    print(f"{label:12s} {side} x {side}: right-hand neighbour of the centre {resolution[label][c, min(c + 1, side - 1)]:.4f}")
""",
        **ints(v, "rows", "cols", "frames", "frame", "head_dim", "text_before", "text_after", "train", "new"),
        query=(int(v["q_row"]), int(v["q_col"])),
        base=float(v["base"]),
        section_c=[int(x) for x in v["section_c"]],
        section_i=[int(x) for x in v["section_i"]],
        axial_first=str(v["axial_first"]),
    )


def _grid_param(
    key: str, label: str, default: int, help: str, *, lo: int = 1, hi: int = MAX_GRID, kind: str = "int_slider"
) -> Param:
    return Param(key, label, kind, default, min=lo, max=hi, help=help)


PAGE = Page(
    script="pages/7_Images_and_video.py",
    slug="vision",
    title="Images and video",
    icon=":material/grid_on:",
    params=(
        Param("vis_view", "View", "tabs", VIEWS[0], options=VIEWS),
        Param(
            "vis_model",
            "Model",
            "select",
            "qwen2.5-vl-7b",
            options=(*VISION_PRESETS, CUSTOM),
            labels={**{key: preset.name for key, preset in VISION_PRESETS.items()}, CUSTOM: CUSTOM_LABEL},
            help="A published model's head size, base and M-RoPE sections (sources in posenc/mrope.py), "
            "or **Custom** to set head size and base yourself.",
        ),
        Param(
            "vis_head_dim",
            "Head dimension d",
            "select_slider",
            64,
            options=(16, 32, 64, 128, 256),
            help="Per-head query/key width; d/2 pairs rotate. Axial 2D gives d/4 pairs to each axis.",
        ),
        Param(
            "vis_base",
            "Base b",
            "select_slider",
            10000,
            options=(100, 1000, 10000, 100000, 1000000, 5000000),
            log=True,
            help="θ_j = b^(−2j/d). Vision transformers use small bases (RoPE-ViT: 100); Qwen VLMs 10⁶ and more.",
        ),
        Param(
            "vis_colour",
            "Colour range",
            "segmented",
            "each panel",
            options=("each panel", "−1 … 1"),
            help="**each panel**: the colours span each heatmap's own lowest to highest similarity (shapes show "
            "even when all values are close to 1). **−1 … 1**: one fixed scale for every panel (values compare).",
        ),
        # the grid: number boxes for exact entry; the query heatmaps' own sliders drag it (explorer.charts.vision)
        _grid_param("vis_rows", "Rows", 12, "Patch rows of the image (after any patch merging).", kind="number"),
        _grid_param("vis_cols", "Columns", 16, "Patch columns of the image.", kind="number"),
        # the query patch: the heatmaps' own sliders (explorer.charts.vision.LIVE_PARAMS), clamped to the grid
        _grid_param("vis_qrow", "Query row", 5, "Row of the query patch (0 = top).", lo=0, hi=MAX_GRID - 1),
        _grid_param("vis_qcol", "Query column", 7, "Column of the query patch (0 = left).", lo=0, hi=MAX_GRID - 1),
        _grid_param(
            "vis_frames",
            "Video frames",
            4,
            "Temporal grid steps of the video (1 = a still image). The query is in frame 0.",
            hi=MAX_FRAMES,
            kind="number",  # the query heatmaps' own slider drags it (explorer.charts.vision)
        ),
        _grid_param(
            "vis_frame",
            "Frame shown",
            0,
            "Which frame's patches the heatmaps score against the query (in frame 0).",
            lo=0,
            hi=MAX_FRAMES - 1,
            kind="number",  # the query heatmaps' own slider drags it (explorer.charts.vision)
        ),
        _grid_param("vis_krow", "Key row", 8, "Row of the key patch.", lo=0, hi=MAX_GRID - 1),
        _grid_param("vis_kcol", "Key column", 12, "Column of the key patch.", lo=0, hi=MAX_GRID - 1),
        _grid_param("vis_drow", "Shift rows", 2, "Move both patches down by this many rows.", lo=-(MAX_GRID - 1)),
        _grid_param(
            "vis_dcol", "Shift columns", -5, "Move both patches right by this many columns.", lo=-(MAX_GRID - 1)
        ),
        Param(
            "vis_train",
            "Trained grid (side)",
            "select_slider",
            16,
            options=TRAINED_GRIDS,
            help="The square patch grid the model saw in training (RoPE-ViT B/16 at 224 px: 14): the first slider "
            "above the resolution chart.",
        ),
        Param(
            "vis_new",
            "New grid (side)",
            "select_slider",
            32,
            options=NEW_GRIDS,
            help="The same image at another resolution, its patch grid's side now: the second slider above the "
            "resolution chart.",
        ),
        _grid_param("vis_text_before", "Text tokens before", 4, "Text tokens before the image or video.", lo=0),
        _grid_param("vis_text_after", "Text tokens after", 4, "Text tokens after the image or video.", lo=0),
    ),
    snippet=snippet,
    tour=(
        Step(
            {"vis_model": "qwen2.5-vl-7b", "vis_view": "Patch grid"},
            "A patch has a row and a column. Read row by row, 1D RoPE puts the patch just below a whole row away; "
            "axial 2D RoPE and M-RoPE turn some pairs with the row and others with the column, so both "
            "neighbours are one step away.",
        ),
        Step(
            {"vis_model": "qwen2.5-vl-7b", "vis_view": "Pairs and axes"},
            "Which pairs serve which axis: contiguous M-RoPE gives time the fastest pairs and width the slowest; "
            "interleaving, as in Qwen3-VL, spreads every axis over the whole range of frequencies.",
        ),
        Step(
            {"vis_model": "qwen2.5-vl-7b", "vis_view": "Resolution", "vis_train": 16, "vis_new": 32},
            "Trained on a 16 × 16 patch grid, shown a 32 × 32 image: as is, rows and columns run to 31, far past "
            "the 15 it saw. Interpolated (× 16/32), the last position is 15.5, half a step past, but neighbours are "
            "0.5 apart instead of 1. Drag the two sides above the chart.",
        ),
    ),
    deep_link=DeepLink(
        {
            "vis_model": CUSTOM,
            "vis_head_dim": 32,
            "vis_base": 100,
            "vis_rows": 20,
            "vis_cols": 24,
            "vis_qrow": 9,
            "vis_qcol": 3,
            "vis_frames": 5,
            "vis_frame": 1,
        },
        slider="vis_frames",  # the video's length: the chart's own slider, as the grid, the query and the frame are
        chart=0,
    ),
    bench=BenchSettings(
        max_query={
            "vis_model": "custom",
            "vis_head_dim": "256",
            "vis_rows": "64",
            "vis_cols": "64",
            "vis_qrow": "63",
            "vis_qcol": "63",
            "vis_frames": "16",
            "vis_frame": "15",
        },
        slider="vis_frames",  # the video's length: the chart's own slider (explorer.liveparam)
    ),
)
