"""Chart builders for the Images-and-video page (pure: data -> alt.Chart, no st.*).

- `query_heatmaps`    the four schemes' heatmaps of one query patch; the grid, the query, the video's length and
                      the frame shown are the chart's own: its six sliders, and a click on a patch, move them in
                      the browser (issues #23, #36)
- `pair_axis_strip`   which axis turns each pair, one strip per scheme, along the pair index or the
                      pair's wavelength (one builder, ``x="pair"`` or ``x="wavelength"``)
- `live_shift_chart`  the query and key patches before and after an equal 2D shift, on the grid; the key and the
                      shift are its own sliders (`SHIFT_PARAMS`)
- `live_sequence_chart` the t, h, w positions of every token of a text / video / text sequence, the text's
                      lengths its own sliders (`TEXT_PARAMS`)
- `live_resolution_chart` the row (or column) positions a model saw in training, at a new grid size, and at the
                      new size with 2D position interpolation, and the three grids' axial 2D heatmaps; the two
                      sides are its own sliders (`RES_PARAMS`)

Every chart carries a Vega-Lite ``description`` (what it shows, for screen readers). The SVG charts are sized for
``width="stretch"`` (the heights fixed, the widths follow the container); the two drawn on a canvas (the query
heatmaps, the resolution chart) have their own size, chosen to fit the column (one panel a row on a phone).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts import live
from explorer.charts.style import (
    BAND_VIEW,
    CELL_OVERLAP,
    FIT_X,
    FONT_SCALE_PARAM,
    chart_config,
    configure,
    fact,
    facts_layer,
    font_scale_param,
    label_step_expr,
    on_canvas,
    seamless_cells,
)
from explorer.text.vision import query_title_expr, ring_label_expr
from explorer.vocabulary import NEW_GRIDS, TRAINED_GRIDS

#: One colour per axis a pair can serve (the same colour for row/h and column/w in every scheme).
AXIS_COLORS = {
    "sequence": "#64748B",
    "time (t)": "#7C3AED",
    "row (h)": "#0284C7",
    "column (w)": "#D97706",
}
AXIS_ORDER = tuple(AXIS_COLORS)
STATE_COLORS = {"before": "#1D4ED8", "after": "#C2410C"}
#: The segments' shades behind the dots: light enough for every axis's dots to read on them, dark enough to tell from
#: the white card (the text's #F1F5F9 before could not be told from it, in the plot or its legend).
SEGMENT_COLORS = {"text": "#E2E8F0", "image or video": "#FEF3C7"}
SEGMENT_VIEW = f"{BAND_VIEW}segments"
#: The segments' legend swatches' outline: a mid slate, at least 3:1 on either card
SEGMENT_OUTLINE = "#64748B"
_BOTTOM_LEGEND = chart_config(legend={"orient": "bottom"}, view={"stroke": None})
#: The same, each legend's entries one under another: two legends side by side, each in a row, were wider than a phone
_BOTTOM_LEGENDS_STACKED = chart_config(legend={"orient": "bottom", "direction": "vertical"}, view={"stroke": None})


def grid_height(rows: int, cols: int, *, width: int = 520, lo: int = 150, hi: int = 420) -> int:
    """A plot height that keeps patches roughly square at `width` px, clamped to [lo, hi]."""
    return int(np.clip(round(width * rows / max(cols, 1)), lo, hi))


def _require(frame: pd.DataFrame, name: str, columns: set[str]) -> None:
    if not columns <= set(frame.columns):
        raise ValueError(f"{name} must have columns {sorted(columns)}, got {list(frame.columns)}")


#: The pair strips' legend below the plot: its four entries (sequence, time, row, column) in two columns where four
#: are wider than the plot (a phone's cut "column (w)" off).
_STRIP_LEGEND = chart_config(
    legend={"orient": "bottom", "columns": {"expr": "width < 480 ? 2 : 4"}, "labelLimit": 200}, view={"stroke": None}
)


def _framed(chart: Any, *, width: int, height: int, title: str, subtitle: Any, description: str) -> Any:
    """A tab's chart: its width (the column's: FIT_X) and its plot's own height (a phone's title wrapped to four lines
    squeezed the rows until the axis hid half their names), its title (the subtitle: one line, several, or none), its
    description for screen readers, the legend below."""
    title_params = alt.TitleParams(title, subtitle=subtitle or alt.Undefined, anchor="start")
    return chart.properties(
        width=width,
        height=height,
        title=title_params,
        description=description,
        config=_STRIP_LEGEND,
        autosize=FIT_X,
    )


# ------------------------------------------------------------- the query patch, moved in the browser
#: The heatmaps' own sliders (`explorer.charts.live.position`), the registry parameters themselves: the grid's rows
#: and columns, the video's frames and the frame shown (issue #36), and the query patch's row and column (a click on
#: a patch sets both; explorer.liveparam reports them all).
GRID_PARAMS = ("vis_rows", "vis_cols")
QUERY_PARAMS = ("vis_qrow", "vis_qcol")
FRAMES_PARAM = "vis_frames"
FRAME_PARAM = "vis_frame"
LIVE_PARAMS = (*GRID_PARAMS, *QUERY_PARAMS, FRAMES_PARAM, FRAME_PARAM)
#: A click sets the query only on a patch: every patch carries its row and column under the
#: parameters' names (a click elsewhere would set the selection to null).
PATCH_CLICK = {"type": "click", "filter": ["event.item && event.item.datum && isValid(event.item.datum.vis_qrow)"]}
#: In-chart slider labels (Vega lists bound inputs in reverse order of the params: the grid first on screen).
LIVE_LABELS = {
    "vis_rows": "grid rows ",
    "vis_cols": "grid columns ",
    "vis_qrow": "query row ",
    "vis_qcol": "query column ",
    "vis_frames": "video frames ",
    "vis_frame": "frame shown ",
}
#: The grid's size, read once per slider change (signals every patch's expressions read).
GRID_SIZE = {"vis_rows": "vis_grid_rows", "vis_cols": "vis_grid_cols"}
#: The query patch as numbers, read once per slider change: a slider value past the grid's last row
#: or column reads as that last one (the page narrows the sliders to the grid in the browser).
QUERY = {"vis_qrow": "vis_query_row", "vis_qcol": "vis_query_col"}
#: The video's frames as a number, read once per slider change.
FRAMES = "vis_video_frames"
#: The keys' frame as a number, read once per slider change: at most the video's last frame.
FRAME = "vis_key_frame"
#: Every panel is this many times as tall as it is wide: the default 12 × 16 grid fills it exactly.
PANEL_ASPECT = 0.75
#: The grid's shorter side is drawn at least this many pixels long (a 1 × 64 strip stays visible).
LEAST_SIDE = 90
#: A scheme's keys in the chart's one lookup table: its index in the table times this, plus the entry's own key.
KEY_BLOCK = 1 << 20


def panel_height(panel_width: int) -> int:
    """The height of every query heatmap panel `panel_width` px wide (`PANEL_ASPECT`)."""
    return int(round(panel_width * PANEL_ASPECT))


def grid_place(*, width: int, height: int, least: int = LEAST_SIDE) -> list[Any]:
    """Where the grid (`GRID_SIZE`'s rows × cols patches) sits in a panel of width × height px, as the chart's
    variable parameters, computed in the browser at every grid: square patches as large as fit, the grid centred;
    a side that would be shorter than `least` px (or the panel's side, if that is shorter) is stretched to it.
    ``vis_x_lo``, ``vis_x_hi``, ``vis_y_lo``, ``vis_y_hi``: the column and row scale domains that put it there
    (patch k spans k − 0.5 … k + 0.5); ``vis_x_step``, ``vis_y_step``: every how many columns and rows an axis
    label goes (about one per 36 px and 30 px); ``vis_x_offset``, ``vis_y_offset``: how far (px, negative:
    inwards) the column and row axes move from the panel's edges to the grid's."""
    rows, cols = GRID_SIZE["vis_rows"], GRID_SIZE["vis_cols"]
    exprs = {
        "vis_side": f"min({width} / {cols}, {height} / {rows})",
        "vis_box_w": f"max({cols} * vis_side, {min(width, least)})",
        "vis_box_h": f"max({rows} * vis_side, {min(height, least)})",
        "vis_pad_x": f"({cols} * {width} / vis_box_w - {cols}) / 2",  # in columns, on each side
        "vis_pad_y": f"({rows} * {height} / vis_box_h - {rows}) / 2",
        "vis_x_lo": "-0.5 - vis_pad_x",
        "vis_x_hi": f"{cols} - 0.5 + vis_pad_x",
        "vis_y_lo": "-0.5 - vis_pad_y",
        "vis_y_hi": f"{rows} - 0.5 + vis_pad_y",
        "vis_x_step": label_step_expr(cols, "max(1, floor(vis_box_w / 36))"),
        "vis_y_step": label_step_expr(rows, "max(1, floor(vis_box_h / 30))"),
        "vis_x_offset": f"-({height} - vis_box_h) / 2",  # px: the column axis moved up to the grid's lower edge
        "vis_y_offset": f"-({width} - vis_box_w) / 2",  # px: the row axis moved right to the grid's left edge
    }
    return [alt.param(name=name, expr=expr) for name, expr in exprs.items()]


def _grid_axis(title: str, size: str, step: str, offset: str) -> alt.Axis:
    """An axis at the grid's edge (`offset`), labelled at 0, step, 2·step, … up to the grid's last
    index (all three Vega expressions), with no line: the grid may not fill the panel."""
    return alt.Axis(
        title=title,
        grid=False,
        domain=False,
        format="d",
        values=alt.ExprRef(f"sequence(0, {size}, {step})"),
        offset=alt.ExprRef(offset),
    )


@dataclass(frozen=True, eq=False)  # arrays inside: no generated == or hash
class Lookup:
    """One scheme's scores for every grid, query and frame the query heatmaps' sliders reach (issue #36), as the
    browser looks them up (`lookup_table`, `_score_transforms`) and as `at` does here:

    - ``positions`` (raster order): the score by position offset Δp = frame·rows·cols + Δr·cols + Δc;
    - ``offsets``: the score by the key's offset (Δr, Δc) from the query in frame 0, shape (2·G − 1, 2·G − 1) for
      the widest grid G (entry [Δr + G − 1, Δc + G − 1]);
    - ``frames`` (with ``offsets``): what frame f adds to every offset's score (0 in frame 0); none: the scheme has
      no time axis, every frame scores as frame 0."""

    offsets: np.ndarray | None = None
    frames: pd.Series | None = None
    positions: pd.Series | None = None

    def __post_init__(self) -> None:
        if (self.offsets is None) == (self.positions is None) or (self.frames is not None and self.offsets is None):
            raise ValueError("a Lookup holds positions, or offsets (with or without frames)")
        if self.offsets is not None:
            shape = np.shape(self.offsets)
            if len(shape) != 2 or shape[0] != shape[1] or shape[0] % 2 == 0:
                raise ValueError(f"offsets: an offset table has shape (2·G − 1, 2·G − 1), got {shape}")

    @property
    def widest(self) -> int | None:
        """G, the widest grid of ``offsets`` (None for ``positions``)."""
        return None if self.offsets is None else (np.shape(self.offsets)[0] + 1) // 2

    def at(self, frame: int, dr: np.ndarray, dc: np.ndarray, rows: int, cols: int) -> np.ndarray:
        """The scores of the keys (`dr`, `dc`) away from the query, in `frame`, on a rows × cols grid: what the
        browser draws."""
        if np.max(np.abs(dr), initial=0) >= rows or np.max(np.abs(dc), initial=0) >= cols:
            raise ValueError(f"dr and dc must be offsets on the {rows} × {cols} grid")
        if self.positions is not None:
            delta = frame * rows * cols + np.asarray(dr) * cols + np.asarray(dc)
            return self.positions.loc[delta.ravel()].to_numpy().reshape(delta.shape)
        g = cast(int, self.widest)
        if max(rows, cols) > g:
            raise ValueError(f"rows and cols must be at most the widest grid's {g}, got {rows} × {cols}")
        out = np.asarray(self.offsets)[g - 1 + dr, g - 1 + dc]
        return out if self.frames is None else out + float(self.frames.loc[frame])


def _frames_held(table: Lookup, widest: int) -> int | None:
    """How many frames a scheme's `Lookup` holds scores for (None: no time axis, every frame alike)."""
    if table.positions is not None:
        return (int(table.positions.index[-1]) + 1) // (widest * widest)
    return None if table.frames is None else len(table.frames)


def lookup_table(tables: Mapping[str, Lookup]) -> pd.DataFrame:
    """The query heatmaps' one lookup table: rows ``key``, ``s``, every score of every scheme's `Lookup` (in order,
    the i-th's keys from i·`KEY_BLOCK`): ``positions`` keyed by Δp − its first Δp; ``offsets`` by [a, b] ->
    a·(2G − 1) + b; then ``frames`` by (2G − 1)² + f."""
    parts = []
    for i, t in enumerate(tables.values()):
        if t.positions is not None:
            blocks = [
                (np.asarray(t.positions.index, dtype=np.int64) - int(t.positions.index[0]), t.positions.to_numpy())
            ]
        else:
            offsets = np.asarray(t.offsets, dtype=np.float64).ravel()
            blocks = [(np.arange(offsets.size), offsets)]
            if t.frames is not None:
                blocks.append((offsets.size + np.asarray(t.frames.index, dtype=np.int64), t.frames.to_numpy()))
        keys = np.concatenate([k for k, _ in blocks])
        if keys.size and (keys.min() < 0 or keys.max() >= KEY_BLOCK):
            raise ValueError(f"tables: a table's keys must lie in 0 … {KEY_BLOCK - 1}, got {keys.min()} … {keys.max()}")
        values = np.concatenate([np.asarray(v, dtype=np.float64) for _, v in blocks])
        parts.append(pd.DataFrame({"key": (keys + i * KEY_BLOCK).astype(np.int32), "s": values}))
    return pd.concat(parts, ignore_index=True)


def _score_transforms(chart: alt.Chart, i: int, table: Lookup, scores: pd.DataFrame) -> alt.Chart:
    """`chart` (every patch on the grid) with the score ``s`` of each patch looked up in `lookup_table`'s rows for
    the `i`-th table, with the query, the grid and the frame at their signals (`QUERY`, `GRID_SIZE`, `FRAME`)."""
    dr, dc = f"(datum.vis_qrow - {QUERY['vis_qrow']})", f"(datum.vis_qcol - {QUERY['vis_qcol']})"
    rows, cols = GRID_SIZE["vis_rows"], GRID_SIZE["vis_cols"]
    base = i * KEY_BLOCK

    def look(view: alt.Chart, key: str, field: str) -> alt.Chart:  # `field`: the score at the key `key`
        found = alt.LookupData(data=scores, key="key", fields=["s"])
        return view.transform_calculate(**{f"{field}_key": key}).transform_lookup(
            lookup=f"{field}_key", from_=found, as_=[field]
        )

    if table.positions is not None:  # raster order: Δp = frame·rows·cols + Δr·cols + Δc
        first = int(table.positions.index[0])
        return look(chart, f"{base - first} + {FRAME} * {rows} * {cols} + {dr} * {cols} + {dc}", "s")
    side = 2 * cast(int, table.widest) - 1
    at_offset = f"{base + (side * side) // 2} + {dr} * {side} + {dc}"
    if table.frames is None:
        return look(chart, at_offset, "s")
    in_frame_0 = look(chart, at_offset, "s_offset")
    at_frame = look(in_frame_0, f"{base + side * side} + {FRAME}", "s_frame")  # the time pairs' share at the frame
    return at_frame.transform_calculate(s="datum.s_offset + datum.s_frame")


def similarity_colour(domain: tuple[float, float] | None, *, gradient: int, offset: int | None = None) -> alt.Color:
    """The heatmaps' colour of a patch's score ``s``: red–blue over the fixed `domain`, or viridis over each panel's
    own range (None); its legend under the panel, `gradient` px long."""
    scale = (
        alt.Scale(scheme="redblue", domain=list(domain), nice=False, zero=False, clamp=True)
        if domain is not None
        else alt.Scale(scheme="viridis", nice=False, zero=False)
    )
    legend = alt.Legend(
        orient="bottom",
        direction="horizontal",
        titleOrient="left",
        gradientLength=gradient,
        format=".3~f",
        offset=alt.Undefined if offset is None else offset,
    )
    return alt.Color("s:Q", title="similarity").scale(scale).legend(legend)


def query_heatmaps(
    tables: Mapping[str, Lookup],
    *,
    notes: Mapping[str, Sequence[str]],
    grid: tuple[int, int],
    query: tuple[int, int],
    frame: int,
    frames: int,
    domain: tuple[float, float] | None,
    description: str,
    panel_width: int = 300,
    columns: int = 2,
) -> alt.ConcatChart:
    """One heatmap per scheme (`columns` per row: 2, or 1 for a phone's column) of the similarity of one query patch
    (in frame 0) with every patch of one frame of a video of `frames` frames, on a rows × cols grid; the grid, the
    query, the video's length and the frame are the chart's own (`LIVE_PARAMS`): the sliders "grid rows", "grid
    columns", "query row", "query column", "video frames" and "frame shown", and a click on a patch (the query), move
    every heatmap in the browser with no server run (issues #23, #36).

    ``tables``: panel title -> the scheme's scores for every grid and frame the sliders reach (`Lookup`,
    `explorer.compute.vision.grid_tables`). The chart carries them as one `lookup_table`, and every patch of the
    widest grid once: a slider move keeps the patches on the grid and looks up each one's score (its offset from the
    query, plus its frame's share; in raster order Δp = frame·rows·cols + Δr·cols + Δc). The numbers drawn are the
    tables' (one sum in M-RoPE: a score in frame 0 and the time pairs' share at the frame).
    ``notes``: panel title -> subtitle lines. ``grid``, ``query``, ``frames``, ``frame``: where the sliders start (the
    grid's span 1 … G for the widest grid G of the tables; the query's 0 … G − 1, which the page narrows to the grid
    in the browser, and a query past the grid reads as its edge; the video's 1 … the most frames the tables hold
    (`_frames_held`); the frame's 0 … that − 1, narrowed by the page to the video, and a frame past the video reads as its
    last). The ring around the query is dashed where the frame shown is not the query's. ``domain``: one fixed colour
    range for every panel, or None for each panel's own lowest to highest score (computed in the browser from the
    heatmap shown).

    Every panel is `panel_width` × `panel_height` px at every grid (`grid_place` puts the grid in it), so the spec
    depends on the tables' sizes only, not on the grid, the query, the video's length or the frame.
    The heatmaps are drawn on a canvas: as SVG, each step of a drag redrew every patch's element (0.5–0.7 s a step for 4 × 64 × 64 in
    Chromium), and even the default 12 × 16 grid's query-row step took 61.5 ms against a canvas's 39.6 (offline,
    RESULTS §28).
    """
    if not tables:
        raise ValueError("tables must hold at least one scheme")
    if columns not in (1, 2):
        raise ValueError(f"columns must be 1 or 2, got {columns!r}")
    widths = {t.widest for t in tables.values() if t.widest is not None}
    if len(widths) != 1:
        raise ValueError(f"tables: the offset tables must be of one widest grid, and there must be one, got {widths}")
    (widest,) = widths
    if not (1 <= grid[0] <= widest and 1 <= grid[1] <= widest):
        raise ValueError(f"grid must be in 1 … {widest} × 1 … {widest}, got {grid}")
    if not (0 <= query[0] < widest and 0 <= query[1] < widest):
        raise ValueError(f"query must be in 0 … {widest - 1} × 0 … {widest - 1}, got {query}")
    held = [h for h in (_frames_held(t, widest) for t in tables.values()) if h is not None]
    most_frames = min(held) if held else frames  # no time axis in any table: every frame alike
    if not 1 <= frames <= most_frames:
        raise ValueError(f"frames must be in 1 … {most_frames}, the most the tables hold, got {frames}")
    if not 0 <= frame < frames:
        raise ValueError(f"frame must be in 0 … frames − 1 = {frames - 1}, got {frame}")
    ranges = ((1, widest), (1, widest), (0, widest - 1), (0, widest - 1), (1, most_frames), (0, most_frames - 1))
    selections = {
        key: live.position(
            key,
            start=int(start),
            lo=lo,
            hi=hi,
            label=LIVE_LABELS[key],
            on=PATCH_CLICK if key in QUERY_PARAMS else "none",
        )
        for key, start, (lo, hi) in zip(LIVE_PARAMS, (*grid, *query, frames, frame), ranges, strict=True)
    }
    n_rows, n_cols = GRID_SIZE["vis_rows"], GRID_SIZE["vis_cols"]
    height = panel_height(panel_width)
    signals = [
        *(alt.param(name=GRID_SIZE[key], expr=live.number(key)) for key in GRID_PARAMS),
        *(live.at_most_last(key, QUERY[key], size) for key, size in (("vis_qrow", n_rows), ("vis_qcol", n_cols))),
        alt.param(name=FRAMES, expr=live.number(FRAMES_PARAM)),
        live.at_most_last(FRAME_PARAM, FRAME, FRAMES),
        *grid_place(width=panel_width, height=height),
    ]
    q_row, q_col = QUERY["vis_qrow"], QUERY["vis_qcol"]
    x = alt.X("x0:Q").scale(domain=alt.ExprRef("[vis_x_lo, vis_x_hi]"), nice=False, zero=False)
    x = x.axis(_grid_axis("column", n_cols, "vis_x_step", "vis_x_offset"))
    y = alt.Y("y0:Q").scale(domain=alt.ExprRef("[vis_y_lo, vis_y_hi]"), nice=False, zero=False, reverse=True)
    y = y.axis(_grid_axis("row", n_rows, "vis_y_step", "vis_y_offset"))
    # every patch of the widest grid, its row and column under the parameters' names (what a click reads) and its
    # edges: fixed, so a slider move changes the patches' scores (and which are on the grid), never their places
    r, c = np.divmod(np.arange(widest * widest), widest)
    patches = pd.DataFrame(
        {
            "vis_qrow": r.astype(np.int8),
            "vis_qcol": c.astype(np.int8),
            "x0": c - 0.5,
            "x1": c + 0.5,
            "y0": r - 0.5,
            "y1": r + 0.5,
        }
    )
    scores = lookup_table(tables)
    # the legend under each panel: beside it, it widened the 2 × 2 chart past a laptop's column with the
    # sidebar open (1280 px), and a canvas cannot shrink to fit as SVG did (clicks would miss their patch)
    colour = similarity_colour(domain, gradient=max(60, panel_width - 130), offset=10)
    edges = {"x0": f"{q_col} - 0.5", "x1": f"{q_col} + 0.5", "y0": f"{q_row} - 0.5", "y1": f"{q_row} + 0.5"}
    panels = []
    for i, (name, table) in enumerate(tables.items()):
        on_grid = alt.Chart(patches).transform_filter(f"datum.vis_qrow < {n_rows} && datum.vis_qcol < {n_cols}")
        cells = (
            _score_transforms(on_grid, i, table, scores)
            # each patch over the next one's edge (`CELL_OVERLAP`: no seams between patches), but not past the grid's
            # last column or row (the grid does not fill its panel at most sizes): once per grid, not per query
            .transform_calculate(
                x1_drawn=f"datum.x1 + (datum.vis_qcol < {n_cols} - 1 ? {CELL_OVERLAP} : 0)",
                y1_drawn=f"datum.y1 + (datum.vis_qrow < {n_rows} - 1 ? {CELL_OVERLAP} : 0)",
            )
            .mark_rect()
            .encode(
                x=x,
                x2="x1_drawn:Q",
                y=y,
                y2="y1_drawn:Q",
                color=colour,
                tooltip=[
                    alt.Tooltip("vis_qrow:Q", title="row"),
                    alt.Tooltip("vis_qcol:Q", title="column"),
                    alt.Tooltip("s:Q", title="similarity", format=".4f"),
                ],
            )
            .properties(name=f"vis_cells_{i}")  # a named unit view: the spec is the same at every build
        )
        if i == 0:  # a selection is defined in one unit view; every view reads its value
            cells = cells.add_params(*(selections[key] for key in reversed(LIVE_PARAMS)))
        ring = alt.Chart(pd.DataFrame({"ring": [0]})).transform_calculate(patch=ring_label_expr(FRAME), **edges)
        halo = ring.mark_rect(filled=False, stroke="#FFFFFF", strokeWidth=5)  # reads on every colour
        # solid in the query's own frame, dashed in another
        dash = alt.ExprRef(f"{FRAME} === 0 ? [] : [3, 2]")
        line = ring.mark_rect(filled=False, stroke="#111827", strokeWidth=2.5, strokeDash=dash)
        layer = [cells, *(m.encode(x=x, x2="x1:Q", y=y, y2="y1:Q", tooltip=["patch:N"]) for m in (halo, line))]
        panels.append(
            alt.layer(*layer).properties(
                width=panel_width,
                height=height,
                title=alt.TitleParams(name, subtitle=list(notes.get(name, ())) or alt.Undefined, anchor="start"),
            )
        )
    extra: dict[str, Any] = {}
    if domain is None:
        extra["resolve"] = alt.Resolve(scale=alt.ScaleResolveMap(color="independent"))
    # one constructor call: each .properties() / .add_params() on a composite copies every panel
    chart = alt.ConcatChart(
        concat=panels,
        columns=columns,
        spacing=24,
        params=cast(Any, [signal.param for signal in signals]),  # Altair's stubs: VConcatChart lists fewer kinds
        title=alt.TitleParams(
            {"expr": query_title_expr(q_row, q_col, FRAME, FRAMES)},
            # two lines: as one, it set the chart's width on a phone (a canvas does not shrink to fit)
            subtitle=["Click a patch to make it the query,", "or move the sliders above."],
            anchor="start",
        ),
        description=description,
        usermeta=on_canvas(),
        # its panels' own sizes: Streamlit's config asks every chart to fit its container, which a concatenation
        # cannot (Vega-Lite fell back to this and warned in the console)
        autosize=alt.AutoSizeParams(type="pad", contains="padding"),
        **extra,
    )
    return configure(chart)


def pair_axis_strip(
    pairs: pd.DataFrame,
    *,
    x: str = "pair",
    title: str,
    subtitle: str | list[str] | None = None,
    description: str,
) -> alt.Chart:
    """One strip per scheme: a mark for every pair, coloured by the axis that turns it.

    ``pairs`` columns: scheme, pair (j), axis (a key of AXIS_COLORS), wavelength (2π/θ_j, positions).
    ``x="pair"`` draws cells along the pair index (the layout in the head: contiguous blocks or
    T, H, W, T, H, W, …); ``x="wavelength"`` draws ticks at each pair's wavelength on a log axis, one
    sub-row per axis (where each axis sits between fast and slow).
    """
    _require(pairs, "pairs", {"scheme", "pair", "axis", "wavelength"})
    if x not in ("pair", "wavelength"):
        raise ValueError(f"x must be 'pair' or 'wavelength', got {x!r}")
    data = pairs.assign(pair_end=pairs["pair"] + 1)
    schemes = list(dict.fromkeys(data["scheme"]))
    axes = [a for a in AXIS_ORDER if a in set(data["axis"])]
    colour = alt.Color("axis:N", title="turned by", sort=axes).scale(domain=axes, range=[AXIS_COLORS[a] for a in axes])
    tooltip = [
        alt.Tooltip("scheme:N"),
        alt.Tooltip("pair:Q", title="pair j"),
        alt.Tooltip("axis:N", title="turned by"),
        alt.Tooltip("wavelength:Q", title="wavelength (positions)", format=".4~g"),
    ]
    y = alt.Y("scheme:N", title=None, sort=schemes).axis(labelLimit=220)
    base = alt.Chart(data)
    if x == "pair":
        n = int(data["pair"].max()) + 1
        chart = base.mark_rect(stroke="#FFFFFF", strokeWidth=0.5 if n <= 64 else 0).encode(
            x=alt.X("pair:Q", title="pair j (0 = fastest)").scale(domain=[0, n], nice=False),
            x2="pair_end:Q",
            y=y,
            color=colour,
            tooltip=tooltip,
        )
    else:
        chart = base.mark_tick(thickness=2, size=14).encode(
            x=alt.X("wavelength:Q", title=["wavelength 2π/θ_j (positions)", "log scale"])  # two lines: a phone's
            .scale(type="log")
            .axis(grid=False),
            y=y,
            yOffset=alt.YOffset("axis:N", sort=axes),
            color=colour,
            tooltip=tooltip,
        )
    height = (44 if x == "pair" else 64) * len(schemes)  # the plot's (FIT_X: title, axis and legend come on top)
    return _framed(chart, width=600, height=height, title=title, subtitle=subtitle, description=description)


# ------------------------------------------------------------- the shift test, moved in the browser
#: The shift diagram's own sliders (issue #36): the key patch's row and column, and the shift Δ (rows, columns) that
#: moves both patches. The query patch is the heatmaps' (`QUERY_PARAMS`): fixed in this chart.
SHIFT_PARAMS = ("vis_krow", "vis_kcol", "vis_drow", "vis_dcol")
SHIFT_LABELS = {
    "vis_krow": "key row ",
    "vis_kcol": "key column ",
    "vis_drow": "shift Δ rows ",
    "vis_dcol": "shift Δ columns ",
}
#: The signals holding the values the diagram draws: the key on the grid, Δ clamped so both patches stay on it.
SHIFT_SIGNALS = {"vis_krow": "shift_kr", "vis_kcol": "shift_kc", "vis_drow": "shift_dr", "vis_dcol": "shift_dc"}


def shift_limits(values: Mapping[str, Any], rows: int, cols: int, query: tuple[int, int]) -> dict[str, dict[str, int]]:
    """The page's ranges of the shift sliders, each from the values read before it (`explorer.liveparam.LiveChart`'s
    ``limits``, in `SHIFT_PARAMS` order): the key on the rows × cols grid; Δ such that both the query (`query`) and
    the key stay on it after the shift (Δrow in −min(q_row, k_row) … rows − 1 − max(q_row, k_row), Δcolumn
    likewise)."""
    out = {"vis_krow": {"min": 0, "max": rows - 1}, "vis_kcol": {"min": 0, "max": cols - 1}}
    for key, k_key, q, n in (("vis_drow", "vis_krow", query[0], rows), ("vis_dcol", "vis_kcol", query[1], cols)):
        if k_key in values:
            k = int(values[k_key])
            out[key] = {"min": -min(q, k), "max": n - 1 - max(q, k)}
    return out


def shift_expressions(rows: int, cols: int, query: tuple[int, int]) -> dict[str, str]:
    """Vega expressions of the live shift diagram, in terms of its four sliders (`SHIFT_PARAMS`): the values it draws
    (`SHIFT_SIGNALS`: the key clamped to the grid, the shift clamped as `shift_limits` does) and, per point of
    ``datum.who`` ("q" | "k") and ``datum.moved`` (0 | 1), its ``row`` and ``col``."""
    qr, qc = (int(v) for v in query)
    kr_, kc_, dr_, dc_ = SHIFT_SIGNALS.values()
    kr, kc, dr, dc = (live.number(key) for key in SHIFT_PARAMS)
    return {
        kr_: f"clamp({kr}, 0, {rows - 1})",
        kc_: f"clamp({kc}, 0, {cols - 1})",
        dr_: f"clamp({dr}, -min({qr}, {kr_}), {rows - 1} - max({qr}, {kr_}))",
        dc_: f"clamp({dc}, -min({qc}, {kc_}), {cols - 1} - max({qc}, {kc_}))",
        "row": f"(datum.who === 'q' ? {qr} : {kr_}) + datum.moved * {dr_}",
        "col": f"(datum.who === 'q' ? {qc} : {kc_}) + datum.moved * {dc_}",
    }


def live_shift_chart(
    *, rows: int, cols: int, query: tuple[int, int], key: tuple[int, int], shift: tuple[int, int], description: str
) -> alt.LayerChart:
    """The grid, the query and key patches before and after an equal 2D shift, the key and the shift the chart's own
    sliders (`SHIFT_PARAMS`, starting at `key` and `shift`; the key over the grid, the shift over −(n − 1) … n − 1
    and drawn clamped so both patches stay on the grid: `shift_expressions`). Each state's q and k are joined by a
    dashed line (the 2D offset, equal before and after); the title, computed in the browser, names Δ and the offset."""
    qr, qc = (int(v) for v in query)
    if not (rows >= 1 and cols >= 1 and 0 <= qr < rows and 0 <= qc < cols):
        raise ValueError(f"query must be on the {rows} × {cols} grid (rows, cols >= 1), got {query}")
    starts = dict(zip(SHIFT_PARAMS, (*key, *shift), strict=True))
    limits = shift_limits(starts, rows, cols, (qr, qc))
    for name, value in starts.items():
        lo, hi = limits[name]["min"], limits[name]["max"]
        if not lo <= int(value) <= hi:
            raise ValueError(f"{name} must be in {lo} … {hi} (both patches on the grid), got {value}")
    # the key over the grid; the shift over every value it can take for some key (the page narrows it to this key's)
    reach = {**{name: (limits[name]["min"], limits[name]["max"]) for name in SHIFT_PARAMS[:2]}}
    reach.update({"vis_drow": (-(rows - 1), rows - 1), "vis_dcol": (-(cols - 1), cols - 1)})
    sliders = [
        live.position(name, start=int(starts[name]), lo=reach[name][0], hi=reach[name][1], label=SHIFT_LABELS[name])
        for name in SHIFT_PARAMS
    ]
    ex = shift_expressions(rows, cols, (qr, qc))
    signals = [alt.param(name=name, expr=ex[name]) for name in SHIFT_SIGNALS.values()]
    kr, kc, dr, dc = SHIFT_SIGNALS.values()
    x = alt.X("col:Q", title="column").scale(domain=[-0.5, cols - 0.5], nice=False, zero=False)
    y = alt.Y("row:Q", title="row").scale(domain=[-0.5, rows - 0.5], nice=False, zero=False, reverse=True)
    colour = alt.Color("state:N", title=None, sort=list(STATE_COLORS)).scale(
        domain=list(STATE_COLORS), range=list(STATE_COLORS.values())
    )
    points = pd.DataFrame(
        {
            "label": ["q", "k", "q + Δ", "k + Δ"],
            "state": ["before", "before", "after", "after"],
            "who": ["q", "k", "q", "k"],
            "moved": [0, 0, 1, 1],
        }
    )
    base = alt.Chart(points).transform_calculate(row=ex["row"], col=ex["col"])
    lines = base.mark_line(strokeWidth=2.5, strokeDash=[6, 4]).encode(x=x, y=y, color=colour, detail="state:N")
    dots = base.mark_circle(size=220, opacity=1).encode(
        x=x, y=y, color=colour, tooltip=["label:N", "row:Q", alt.Tooltip("col:Q", title="column")]
    )
    names = (
        base.mark_text(dy=-16, fontSize=15, fontWeight="bold")
        .encode(x=x, y=y, text="label:N", color=colour)
        .add_params(*reversed(sliders), *signals)  # Vega lists bound inputs in reverse: the key's row first on screen
    )
    first = f"'Shift both by Δ = (' + {dr} + ', ' + {dc} + ')'"  # one line where it fits (`SHIFT_TITLE_ONE_LINE`)
    second = f"'offset k − q = (' + ({kr} - {qr}) + ', ' + ({kc} - {qc}) + ') before and after'"
    title = alt.TitleParams(
        alt.ExprRef(
            f"width >= {SHIFT_TITLE_ONE_LINE} * {FONT_SCALE_PARAM} ? {first} + ': ' + {second} : [{first}, {second}]"
        ),
        subtitle="dashed: q to k, the same offset before and after",
        anchor="start",
    )
    return alt.LayerChart(
        layer=[lines, dots, names],
        width=520,
        height=grid_height(rows, cols, width=520, lo=180, hi=380) + 140,  # + title, axis and legend
        title=title,
        description=description,
        config=_BOTTOM_LEGEND,
        params=[font_scale_param().param],  # type: ignore[list-item]  # the title's threshold grows with the type
    )


# ------------------------------------------------------------- a new resolution, moved in the browser
#: The resolution chart's own sliders (issue #36): the trained grid's side and the new grid's, each over its options'
#: indices (`explorer.charts.live.option_position`; the page's script writes the side beside the slider).
RES_PARAMS = ("vis_train", "vis_new")
RES_LABELS = {"vis_train": "trained grid ", "vis_new": "new grid "}
#: The signals holding the two sides, the scale train/new and the interpolated panel's block of the lookup table.
RES_SIGNALS = {"train": "res_train", "new": "res_new", "scale": "res_scale", "block": "res_block"}
#: The three heatmaps: (name, the side of its grid, its block of the lookup table: 0 = positions × 1).
RES_PANELS = (
    ("trained", RES_SIGNALS["train"], "0"),
    ("as is", RES_SIGNALS["new"], "0"),
    ("interpolated", RES_SIGNALS["new"], RES_SIGNALS["block"]),
)
#: The lookup table's keys: a scale's block (0: × 1; 1 + i·len(new sides) + j: the j-th new side interpolated onto the
#: i-th trained one, × train/new) times RES_BLOCK, plus the offset Δ from the centre patch, plus RES_BLOCK // 2.
RES_BLOCK = 128
#: Each heatmap's side (px): three side by side (a laptop's column with the sidebar open), or one a row on a phone.
RES_PANEL = {"desktop": 165, "phone": 200}
#: Between two heatmaps (px), and about what a heatmap's row axis takes beside it.
RES_SPACING, RES_AXIS = 16, 50


def res_block(train_index: int, new_index: int, n_new: int) -> int:
    """The lookup table's block of the new grid interpolated onto the trained one (indices into their options)."""
    return 1 + train_index * n_new + new_index


def res_offsets(sides: Sequence[int]) -> np.ndarray:
    """Every offset Δ of a patch from the centre patch (side // 2) of a square grid of any of `sides`: −(n // 2) …
    n − 1 − n // 2 for the largest n (every smaller grid's lie within)."""
    n = max(int(s) for s in sides)
    if not 1 <= n <= RES_BLOCK // 2:
        raise ValueError(f"sides must be in 1 … {RES_BLOCK // 2}, got {n}")
    return np.arange(-(n // 2), n - n // 2)


def resolution_expressions(trained: Sequence[int], new: Sequence[int]) -> dict[str, str]:
    """The resolution chart's signals (`RES_SIGNALS`) as Vega expressions of its two sliders: the sides, the scale
    train/new (as Python's ``train / new``: one IEEE division) and the interpolated panel's lookup block
    (`res_block`)."""
    t_side, n_side = RES_SIGNALS["train"], RES_SIGNALS["new"]
    return {
        t_side: live.option("vis_train", trained),
        n_side: live.option("vis_new", new),
        RES_SIGNALS["scale"]: f"{t_side} / {n_side}",
        RES_SIGNALS["block"]: f"1 + {live.number('vis_train')} * {len(new)} + {live.number('vis_new')}",
    }


def live_resolution_chart(
    axis: pd.DataFrame,
    *,
    train: int,
    new_side: int,
    domain: tuple[float, float] | None,
    description: str,
    phone: bool = False,
    trained: Sequence[int] = TRAINED_GRIDS,
    new: Sequence[int] = NEW_GRIDS,
) -> alt.VConcatChart:
    """A new resolution, both sides the chart's own sliders (`RES_PARAMS`, over the options `trained` and `new`,
    starting at `train` and `new_side`), moved in the browser with no server run: on top, one row of ticks per grid,
    the row (or column) positions its patches get (the trained grid; the new one as is; the new one interpolated,
    × train/new), the part beyond the last trained position shaded; below, the axial 2D similarity of the centre patch
    with every patch of each of the three grids (`RES_PANELS`).

    `trained`, `new`: the sides the sliders offer (the registry's options). ``axis``: one axis's share of the score at
    every scale and offset (columns ``key``, ``f``; keys as `RES_BLOCK` says, `explorer.compute.vision.resolution_axis`):
    both axes turn the same frequencies, so a patch Δr rows and Δc columns from the centre scores f(Δr) + f(Δc),
    looked up in the browser. ``domain``: one colour range for the
    three heatmaps, or None for each panel's own. Every panel is square and of one size at every side, so the spec
    depends on the table and the options only: three side by side, 165 px each (a laptop's column with the sidebar
    open), or with `phone` one under another, 200 px each."""
    _require(axis, "axis", {"key", "f"})
    blocks = 1 + len(trained) * len(new)  # × 1, then every pair of sides: the table must be of these options
    if len(axis) and int(axis["key"].max()) // RES_BLOCK != blocks - 1:
        raise ValueError(f"axis: a table of {blocks} scales (these options' pairs) expected, got keys up to "
                         f"{int(axis['key'].max())}")  # fmt: skip
    columns, panel_width = (1, RES_PANEL["phone"]) if phone else (3, RES_PANEL["desktop"])
    trained, new = [int(v) for v in trained], [int(v) for v in new]
    offsets = res_offsets((*trained, *new))
    sliders = [
        live.option_position(key, options, start=start, label=RES_LABELS[key])
        for key, options, start in (("vis_train", trained, train), ("vis_new", new, new_side))
    ]
    signals = [alt.param(name=name, expr=expr) for name, expr in resolution_expressions(trained, new).items()]
    signals.append(font_scale_param())  # presentation mode draws each panel this much larger (style._scale_heights)
    # each heatmap's lookup key less the patch's row (or column), once per slider change: its block, less the centre
    signals += [
        alt.param(name=f"res_offset_{k}", expr=f"{block} * {RES_BLOCK} - floor({side} / 2) + {RES_BLOCK // 2}")
        for k, (_, side, block) in enumerate(RES_PANELS)
    ]
    t_side, n_side, scale = RES_SIGNALS["train"], RES_SIGNALS["new"], RES_SIGNALS["scale"]
    widest = int(offsets.size)
    # the positions' plot as wide as the heatmaps' row, less its row labels (about 110 px) beside it
    width = 190 if phone else columns * (panel_width + RES_AXIS) + (columns - 1) * RES_SPACING - 110
    # --- the positions: row g (0 trained, 1 new as is, 2 new interpolated), patch i
    top = f"max({t_side}, {n_side}) - 0.5"
    x = alt.X("position:Q", title="row (or column) position").scale(
        domain=alt.ExprRef(f"[-0.5, {top}]"), nice=False, zero=False
    )
    names = (
        f"datum.value == 0 ? 'trained: ' + {t_side} + ' × ' + {t_side} : datum.value == 1 ? 'new: ' + {n_side} + "
        f"' × ' + {n_side} + ', as is' : 'new, × ' + {t_side} + '/' + {n_side}"
    )
    y = alt.Y("g:O", title=None).axis(labelExpr=names, labelLimit=200, labelFontSize=13)
    last_seen = alt.Chart(pd.DataFrame({"at": ["last trained position"]})).transform_calculate(a=f"{t_side} - 1", b=top)
    beyond = last_seen.mark_rect(color="#FEE2E2").encode(x=alt.X("a:Q"), x2="b:Q")
    rule = last_seen.mark_rule(color="#B91C1C", strokeWidth=2, strokeDash=[5, 3]).encode(
        x="a:Q", tooltip=[alt.Tooltip("at:N", title="dashed"), alt.Tooltip("a:Q", title="position")]
    )
    ticks = (
        alt.Chart(alt.sequence(0, 3 * widest, as_="p"))  # generated in the browser: row g, patch i
        .transform_calculate(g=f"floor(datum.p / {widest})", i=f"datum.p % {widest}")
        .transform_filter(f"datum.i < (datum.g == 0 ? {t_side} : {n_side})")
        .transform_calculate(
            position=f"datum.g == 2 ? datum.i * {scale} : datum.i",
            within=f"datum.g == 2 ? datum.i * {scale} <= {t_side} - 1 : datum.i <= {t_side} - 1",
        )
        .mark_tick(thickness=2, size=18)
        .encode(
            x=x,
            y=y,
            color=alt.Color("within:N", title=None)
            .scale(domain=[True, False], range=["#1D4ED8", "#B91C1C"])
            .legend(
                # "within", not "seen": an interpolated position such as 14.5 lies in the range but was never seen
                labelExpr="datum.label == 'true' ? 'within the trained range' : 'past the last trained position'",
                orient="top",
                direction="vertical" if phone else "horizontal",  # side by side, wider than a phone's plot
                labelLimit=260,  # Vega's 160 px cut "past the last trained position"
            ),
            tooltip=[alt.Tooltip("i:Q", title="patch"), alt.Tooltip("position:Q", format=".4~g")],
        )
        .properties(name="res_ticks")
        .add_params(*reversed(sliders))  # Vega lists bound inputs in reverse: the trained grid's first on screen
    )
    positions = alt.layer(beyond, rule, ticks).properties(
        width=width,
        height=120,
        title=alt.TitleParams(  # two lines in one column (a phone's): one is wider than the screen
            "Row (and column) positions: what training covered, and now"
            if columns > 1
            else ["Row (and column) positions:", "what training covered, and now"],
            subtitle="training saw the whole-number positions up to the dashed line, on each axis"
            if columns > 1
            else ["training saw the whole-number positions", "up to the dashed line, on each axis"],
            anchor="start",
        ),
    )
    # --- the heatmaps: every patch of the widest grid, kept where it is on the panel's grid
    found = alt.LookupData(data=axis, key="key", fields=["f"])
    colour = similarity_colour(domain, gradient=max(60, panel_width - 70))
    lines = {
        "trained": f"['Trained, ' + {t_side} + ' × ' + {t_side}, 'positions 0, 1, 2 and on']",
        "as is": f"[{n_side} + ' × ' + {n_side} + ', as is', 'positions 0, 1, 2 and on']",
        "interpolated": f"[{n_side} + ' × ' + {n_side} + ', interpolated', 'positions × ' + {t_side} + '/' + {n_side}]",
    }
    panels = []
    for k, (name, side, _) in enumerate(RES_PANELS):
        centre, offset = f"floor({side} / 2)", f"res_offset_{k}"
        domain_x = alt.ExprRef(f"sequence(0, {side})")  # a band per patch: its place, not a computed edge
        step = label_step_expr(side, f"max(1, floor({panel_width} / 36))")
        ax = alt.Axis(title="column", grid=False, labelAngle=0, values=alt.ExprRef(f"sequence(0, {side}, {step})"))
        # the row axis's title on the first heatmap only: the three side by side fit a laptop's column
        row_title = "row" if k == 0 or columns == 1 else None
        ay = alt.Axis(title=row_title, grid=False, values=alt.ExprRef(f"sequence(0, {side}, {step})"))
        px = alt.X("c:O").scale(domain=domain_x, paddingInner=0, paddingOuter=0).axis(ax)
        py = alt.Y("r:O").scale(domain=domain_x, paddingInner=0, paddingOuter=0).axis(ay)
        cells = (
            alt.Chart(alt.sequence(0, widest * widest, as_="p"))  # generated in the browser: patch (r, c)
            # what no slider changes comes before the filter, computed once: the browser's expressions are
            # interpreted in the app (Streamlit's CSP-safe Vega), and a press re-runs those after the filter only
            .transform_calculate(
                r=f"floor(datum.p / {widest})",
                c=f"datum.p % {widest}",
                m="max(datum.r, datum.c)",
                panel=str(k),
            )
            .transform_filter(f"datum.m < {side}")
            .transform_calculate(key_r=f"datum.r + {offset}", key_c=f"datum.c + {offset}")
            .transform_lookup(lookup="key_r", from_=found, as_=["f_r"])
            .transform_lookup(lookup="key_c", from_=found, as_=["f_c"])
            .transform_calculate(s="datum.f_r + datum.f_c")
            # the band's size: the panel's, as presentation mode draws it too (style._scale_heights rounds it)
            .mark_rect(**seamless_cells(*[f"round({panel_width} * {FONT_SCALE_PARAM}) / {side}"] * 2))
            .encode(
                x=px,
                y=py,
                color=colour,
                # no tooltip: encoding one for each of up to 2 × 4,096 patches took a third of a press's time in
                # Chromium (a run of the view 45–50 ms with it, 26–30 without, 64 × 64 grids; RESULTS §40)
            )
            .properties(name=f"res_cells_{k}")
        )
        ring = alt.Chart(pd.DataFrame({"patch": ["the query (centre)"]})).transform_calculate(c=centre, r=centre)
        marks = [
            ring.mark_rect(filled=False, stroke=colour_, strokeWidth=width_).encode(x=px, y=py, tooltip=["patch:N"])
            for colour_, width_ in (("#FFFFFF", 5), ("#111827", 2.5))
        ]
        panels.append(
            alt.layer(cells, *marks).properties(
                width=panel_width,
                height=panel_width,
                title=alt.TitleParams(alt.ExprRef(lines[name]), anchor="start"),
            )
        )
    heat_extra: dict[str, Any] = {}
    if domain is None:
        heat_extra["resolve"] = alt.Resolve(scale=alt.ScaleResolveMap(color="independent"))
    heatmaps = alt.ConcatChart(concat=panels, columns=columns, spacing=RES_SPACING, **heat_extra)
    chart = alt.VConcatChart(
        vconcat=[positions, heatmaps],
        spacing=28,
        params=cast(Any, [signal.param for signal in signals]),  # Altair's stubs: VConcatChart lists fewer kinds
        resolve=alt.Resolve(scale=alt.ScaleResolveMap(color="independent")),
        description=description,
        usermeta=on_canvas(),
    )
    return configure(chart)


# ------------------------------------------------------------- the sequence's text, moved in the browser
#: The sequence tab's own sliders (issue #36): the text tokens before and after the image or video.
TEXT_PARAMS = ("vis_text_before", "vis_text_after")
TEXT_LABELS = {"vis_text_before": "text tokens before ", "vis_text_after": "text tokens after "}
#: The signals holding them as numbers, and the facts row's fields the chart reads: the video's tokens (n_vis) and the
#: positions it costs (span = max(frames, rows, columns)).
TEXT_SIGNALS = {"vis_text_before": "seq_before", "vis_text_after": "seq_after"}
SEQUENCE_FACTS = ("n_vis", "span")
#: The axes a token has a position on: every axis of `AXIS_ORDER` but the 1D "sequence" one.
TEXT_AXES = tuple(a for a in AXIS_ORDER if a != "sequence")
#: The sequence chart's title takes one line where the chart is at least this wide (px), two where it is narrower.
TITLE_ONE_LINE = 520
#: The shift diagram's, longer (up to "Shift both by Δ = (−63, −63): offset k − q = (−63, −63) before and after", about
#: 650 px in bold; times the font scale in presentation mode): at 520 px a laptop's column (1024 px with the sidebar
#: open) cut it.
SHIFT_TITLE_ONE_LINE = 680


def text_rows(most: int) -> pd.DataFrame:
    """The text tokens the live sequence chart can draw: ``i`` = 0 … most − 1 before and after the image or video
    (``side``), once per axis (text has t = h = w: three dots on one spot); the chart keeps those its sliders ask for."""
    i = np.arange(int(most))
    return pd.DataFrame(
        [(side, int(k), axis) for side in ("before", "after") for axis in TEXT_AXES for k in i],
        columns=["side", "i", "axis"],
    )


def sequence_expressions() -> dict[str, str]:
    """Vega expressions of the live sequence chart, in terms of its two sliders (B text tokens before, A after; the
    signals `TEXT_SIGNALS`) and its facts row (n_vis video tokens costing ``span`` positions): Qwen2-VL's
    get_rope_index as `posenc.qwen2vl_position_ids` numbers a text / video / text sequence.

    text_index, text_position   a text token i: before, index i and position i on every axis; after, index
                                B + n_vis + i and position B + span + i
    video_index, video_position a video token (its rank in the video ``datum.vindex`` and its position on one axis
                                counted from the video's start ``datum.rel``): index B + vindex, position B + rel
    keep                        a text token the sliders ask for (i < B before, i < A after)
    """
    before, after = TEXT_SIGNALS.values()
    n_vis, span = (fact(name) for name in SEQUENCE_FACTS)
    return {
        "keep": f"datum.side === 'before' ? datum.i < {before} : datum.i < {after}",
        "text_index": f"datum.side === 'before' ? datum.i : {before} + {n_vis} + datum.i",
        "text_position": f"datum.side === 'before' ? datum.i : {before} + {span} + datum.i",
        "video_index": f"{before} + datum.vindex",
        "video_position": f"{before} + datum.rel",
    }


def live_sequence_chart(
    video: pd.DataFrame,
    *,
    n_vis: int,
    span: int,
    text_before: int,
    text_after: int,
    most_text: int,
    title_words: tuple[str, str, str],
    subtitle: str | None,
    description: str,
) -> alt.LayerChart:
    """Position against token index for a text / video / text sequence, the text before and after the video the
    chart's own sliders (`TEXT_PARAMS`, 0 … most_text, starting at text_before and text_after): one dot per token and
    axis, the segments shaded behind, all moved in the browser (`sequence_expressions`).

    ``video``: the video tokens drawn (every token, or every stride-th), counted from the video's start: columns
    vindex (the token's rank in the video), axis (a key of AXIS_COLORS) and rel (its position on that axis, the
    video starting at 0: `posenc.qwen2vl_position_ids` of the video alone). ``n_vis``: the video's tokens; ``span``:
    the positions it costs (max(frames, rows, columns)); ``title_words``: the title's words around the two counts
    ("M-RoPE positions: ", " text,", "a f × r × c video, "), which end with the count after: one line, or two
    where the chart is narrower than `TITLE_ONE_LINE` px."""
    _require(video, "video", {"vindex", "axis", "rel"})
    if n_vis < 1 or span < 1 or most_text < 1:
        raise ValueError(f"n_vis, span and most_text must be >= 1, got {n_vis}, {span} and {most_text}")
    if not (0 <= text_before <= most_text and 0 <= text_after <= most_text):
        raise ValueError(f"text_before and text_after must be in 0 … {most_text}, got {text_before} and {text_after}")
    sliders = [
        live.position(key, start=int(start), lo=0, hi=int(most_text), label=TEXT_LABELS[key])
        for key, start in zip(TEXT_PARAMS, (text_before, text_after), strict=True)
    ]
    counts = [alt.param(name=TEXT_SIGNALS[key], expr=live.number(key)) for key in TEXT_PARAMS]
    ex = sequence_expressions()
    before, after = TEXT_SIGNALS.values()
    n_vis_expr = fact("n_vis")
    axes = list(TEXT_AXES)
    colour = alt.Color("axis:N", title="axis", sort=axes).scale(domain=axes, range=[AXIS_COLORS[a] for a in axes])
    x = alt.X("index:Q", title="token in the sequence").scale(nice=False, zero=False)
    y = alt.Y("position:Q", title="position")
    tooltip = ["index:Q", "segment:N", "axis:N", "position:Q"]
    # the segments: text before (B tokens), the video (n_vis), text after (A); an empty one is left out
    spans = pd.DataFrame({"part": [0, 1, 2], "segment": ["text", "image or video", "text"]})
    shade = (
        alt.Chart(spans)
        .transform_calculate(
            start=f"datum.part === 0 ? -0.5 : datum.part === 1 ? {before} - 0.5 : {before} + {n_vis_expr} - 0.5",
            end=f"datum.part === 0 ? {before} - 0.5 : datum.part === 1 ? {before} + {n_vis_expr} - 0.5 : "
            f"{before} + {n_vis_expr} + {after} - 0.5",
        )
        .transform_filter("datum.end > datum.start")
        .mark_rect(opacity=1)
        .encode(
            x=alt.X("start:Q"),
            x2="end:Q",
            fill=alt.Fill("segment:N", title="segment")
            .scale(domain=list(SEGMENT_COLORS), range=list(SEGMENT_COLORS.values()))
            # outlined: a band's swatch is one step off the card, on the light card and the dark one
            .legend(symbolStrokeColor=SEGMENT_OUTLINE, symbolStrokeWidth=1),
        )
        .properties(name=SEGMENT_VIEW)  # regions under the dots: darkened on the dark card (style.BAND_VIEW)
    )
    text_dots = (
        alt.Chart(text_rows(most_text))
        .transform_filter(ex["keep"])
        .transform_calculate(index=ex["text_index"], position=ex["text_position"], segment="'text'")
        .mark_circle(size=22, opacity=0.9)
        .encode(x=x, y=y, color=colour, tooltip=tooltip)
    )
    video_dots = (
        alt.Chart(video)
        .transform_calculate(index=ex["video_index"], position=ex["video_position"], segment="'image or video'")
        .mark_circle(size=22, opacity=0.9)
        .encode(x=x, y=y, color=colour, tooltip=tooltip)
        .add_params(*reversed(sliders), *counts)  # Vega lists bound inputs in reverse: text before first on screen
    )
    head, first_end, second = (json.dumps(w) for w in title_words)
    lines = f"{head} + {before} + {first_end}", f"{second} + {after} + ' text'"
    title = alt.TitleParams(
        alt.ExprRef(f"width >= {TITLE_ONE_LINE} ? {lines[0]} + ' ' + {lines[1]} : [{lines[0]}, {lines[1]}]"),
        subtitle=subtitle or alt.Undefined,
        anchor="start",
    )
    chart = alt.LayerChart(
        layer=[facts_layer({"n_vis": int(n_vis), "span": int(span)}), shade, text_dots, video_dots],
        width=600,
        height=430,
        title=title,
        description=description,
        config=_BOTTOM_LEGENDS_STACKED,
        # a canvas: as SVG, each of up to 4,500 dots is a DOM node the browser moves at every step of a slider
        usermeta=on_canvas(),
    )
    return chart
