"""Chart builders for the Images-and-video page (pure: data -> alt.Chart, no st.*).

- `query_heatmaps`    the four schemes' heatmaps of one query patch, which is the chart's own: a click
                      on a patch or its two sliders move it in the browser (issue #23)
- `grid_heatmap`      one score per patch of a rows × cols grid (an image), the query patch ringed
- `pair_axis_strip`   which axis turns each pair, one strip per scheme, along the pair index or the
                      pair's wavelength (one builder, ``x="pair"`` or ``x="wavelength"``)
- `shift_diagram`     the query and key patches before and after an equal 2D shift, on the grid
- `sequence_chart`    the t, h, w positions of every token of a text / video / text sequence
- `resolution_chart`  the row (or column) positions a model saw in training, at a new grid size,
                      and at the new size with 2D position interpolation

Every chart carries a Vega-Lite ``description`` (what it shows, for screen readers) and is sized
for ``width="stretch"``: the heights here are fixed, the widths follow the container.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts import live
from explorer.charts.style import chart_config, configure, fact, fact_params, facts_layer, label_step, on_canvas
from explorer.imagechart import fit_heatmap_legend, image_heatmap
from explorer.imagechart import meta as imagechart_meta
from explorer.text.vision import query_title_expr

#: One colour per axis a pair can serve (the same colour for row/h and column/w in every scheme).
AXIS_COLORS = {
    "sequence": "#64748B",
    "time (t)": "#7C3AED",
    "row (h)": "#0284C7",
    "column (w)": "#D97706",
}
AXIS_ORDER = tuple(AXIS_COLORS)
STATE_COLORS = {"before": "#1D4ED8", "after": "#C2410C"}
SEGMENT_COLORS = {"text": "#F1F5F9", "image or video": "#FEF3C7"}
_BOTTOM_LEGEND = chart_config(legend={"orient": "bottom"}, view={"stroke": None})


def grid_height(rows: int, cols: int, *, width: int = 520, lo: int = 150, hi: int = 420) -> int:
    """A plot height that keeps patches roughly square at `width` px, clamped to [lo, hi]."""
    return int(np.clip(round(width * rows / max(cols, 1)), lo, hi))


def _own_domain(values: np.ndarray) -> tuple[float, float]:
    lo, hi = float(np.nanmin(values)), float(np.nanmax(values))
    pad = max(1e-12, 1e-9 * max(abs(lo), abs(hi)))
    return (lo, hi) if hi - lo > pad else (lo - pad, hi + pad)


def _require(frame: pd.DataFrame, name: str, columns: set[str]) -> None:
    if not columns <= set(frame.columns):
        raise ValueError(f"{name} must have columns {sorted(columns)}, got {list(frame.columns)}")


def _framed(chart: Any, *, width: int, height: int, title: str, subtitle: Any, description: str) -> Any:
    """A tab's chart: its size, its title (the subtitle: one line, several, or none), its description
    for screen readers, the legend below."""
    title_params = alt.TitleParams(title, subtitle=subtitle or alt.Undefined, anchor="start")
    return chart.properties(
        width=width, height=height, title=title_params, description=description, config=_BOTTOM_LEGEND
    )


# ------------------------------------------------------------- the query patch, moved in the browser
#: The query patch's row and column: the registry parameters themselves, the heatmaps' own sliders
#: (`explorer.charts.live.position`); a click on a patch sets both (explorer.liveparam reports them).
LIVE_PARAMS = ("vis_qrow", "vis_qcol")
#: A click sets the query only on a patch: every patch carries its row and column under the
#: parameters' names (a click elsewhere would set the selection to null).
PATCH_CLICK = {"type": "click", "filter": ["event.item && event.item.datum && isValid(event.item.datum.vis_qrow)"]}
#: In-chart slider labels (Vega lists bound inputs in reverse order of the params: row first on screen).
LIVE_LABELS = {"vis_qrow": "query row ", "vis_qcol": "query column "}
#: The grid's size in the query heatmaps: a field of the chart's facts row (`style.fact`) -> the
#: signal holding it. The size travels as data and every panel has the same size at every grid, so
#: another rows or cols changes the chart's rows, not its spec: the browser keeps the chart (issue #23).
GRID_SIZE = {"rows": "vis_grid_rows", "cols": "vis_grid_cols"}
#: The query patch as numbers, read once per slider change: a slider value past the grid's last row
#: or column reads as that last one (the page narrows the sliders to the grid in the browser).
QUERY = {"vis_qrow": "vis_query_row", "vis_qcol": "vis_query_col"}
#: Every panel is this many times as tall as it is wide: the default 12 × 16 grid fills it exactly.
PANEL_ASPECT = 0.75
#: The grid's shorter side is drawn at least this many pixels long (a 1 × 64 strip stays visible).
LEAST_SIDE = 90


def panel_height(panel_width: int) -> int:
    """The height of every query heatmap panel `panel_width` px wide (`PANEL_ASPECT`)."""
    return int(round(panel_width * PANEL_ASPECT))


def grid_frame(rows: int, cols: int, *, width: int, height: int, least: int = LEAST_SIDE) -> dict[str, float]:
    """Where a rows × cols patch grid sits in a panel of width × height px: square patches as large as
    fit, the grid centred; a side that would be shorter than `least` px (or the panel's side, if that is
    shorter) is stretched to it. Returned: the x (column) and y (row) scale domains that put it there,
    ``x_lo``, ``x_hi``, ``y_lo``, ``y_hi`` (patch k spans k − 0.5 … k + 0.5), and ``x_step``,
    ``y_step``: every how many columns and rows an axis label goes (about one per 36 px and 30 px);
    ``x_offset``, ``y_offset``: how far (px, negative: inwards) the column and row axes move from the
    panel's edges to the grid's."""
    if rows < 1 or cols < 1 or width < 1 or height < 1:
        raise ValueError(f"rows, cols, width and height must be >= 1, got {rows}, {cols}, {width}, {height}")
    side = min(width / cols, height / rows)
    box_w = max(cols * side, min(width, least))
    box_h = max(rows * side, min(height, least))
    pad_x = (cols * width / box_w - cols) / 2  # in columns, on each side
    pad_y = (rows * height / box_h - rows) / 2
    return {
        "x_lo": -0.5 - pad_x,
        "x_hi": cols - 0.5 + pad_x,
        "y_lo": -0.5 - pad_y,
        "y_hi": rows - 0.5 + pad_y,
        "x_step": label_step(cols, max(1, int(box_w // 36))),
        "y_step": label_step(rows, max(1, int(box_h // 30))),
        "x_offset": -(height - box_h) / 2,  # px: the column axis moved up to the grid's lower edge
        "y_offset": -(width - box_w) / 2,  # px: the row axis moved right to the grid's left edge
    }


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


def offset_frame(table: np.ndarray) -> pd.DataFrame:
    """An offset table (`posenc.offset_scores`, shape (2·rows − 1, 2·cols − 1)) as rows dr, dc, s: the
    score of a query with the key dr rows below and dc columns right of it (negative: above, left)."""
    table = np.asarray(table, dtype=np.float64)
    if table.ndim != 2 or table.shape[0] % 2 == 0 or table.shape[1] % 2 == 0:
        raise ValueError(f"an offset table has shape (2·rows − 1, 2·cols − 1), got {table.shape}")
    rows, cols = (table.shape[0] + 1) // 2, (table.shape[1] + 1) // 2
    dr, dc = np.meshgrid(np.arange(1 - rows, rows), np.arange(1 - cols, cols), indexing="ij")
    return pd.DataFrame({"dr": dr.ravel().astype(np.int8), "dc": dc.ravel().astype(np.int8), "s": table.ravel()})


def query_heatmaps(
    tables: Mapping[str, np.ndarray],
    *,
    notes: Mapping[str, Sequence[str]],
    query: tuple[int, int],
    frame: int,
    domain: tuple[float, float] | None,
    description: str,
    panel_width: int = 300,
    columns: int = 2,
    slider_max: tuple[int, int] | None = None,
) -> alt.ConcatChart:
    """One heatmap per scheme (`columns` per row: 2, or 1 for a phone's column) of the similarity of one query patch with every patch
    of `frame`; the query is the chart's own (`LIVE_PARAMS`): a click on a patch, or the sliders
    "query row" and "query column", move every heatmap in the browser with no server run.

    ``tables``: panel title -> the scheme's offset table (`posenc.offset_scores`, shape
    (2·rows − 1, 2·cols − 1)): each row of it (an offset from the query) is drawn at the patch it
    lands on, query + (dr, dc), if that patch is on the grid; a move of the query moves them. Data
    sent once: 4·(2·rows − 1)·(2·cols − 1) rows, at most 64 516 on the largest grid (64 × 64; 2 852
    on the default 12 × 16), where every query's heatmaps would be 4·(rows·cols)² = 67 million.
    ``notes``: panel title -> subtitle lines. ``query``: where the sliders start. ``frame``: the
    keys' frame (the query is in frame 0: its ring is dashed in another frame). ``domain``: one
    fixed colour range for every panel, or None for each panel's own lowest to highest score
    (computed in the browser from the heatmap shown). ``slider_max``: the sliders' last row and
    column (default the grid's; the page gives the widest its controls allow, so that the spec does
    not depend on the grid, and narrows them in the browser: `explorer.liveparam.LiveChart`).

    The grid's size and place in the panels travel in the facts row (`GRID_SIZE`, `grid_frame`):
    every panel is `panel_width` × `panel_height` px at every grid, so another grid changes the
    chart's data only. The heatmaps are drawn on a canvas at every grid: as SVG, each step of a drag
    redrew every patch's element (0.5–0.7 s a step for 4 × 64 × 64 in Chromium), and even the default
    12 × 16 grid's query-row step took 61.5 ms against a canvas's 39.6 (offline, RESULTS §28). ``query`` must lie within the
    sliders' range; past the grid (it shrank after a drag) it is read as the grid's edge.
    """
    if not tables:
        raise ValueError("tables must hold at least one scheme")
    if columns not in (1, 2):
        raise ValueError(f"columns must be 1 or 2, got {columns!r}")
    shapes = {np.shape(t) for t in tables.values()}
    if len(shapes) != 1:
        raise ValueError(f"every offset table must have the same shape, got {sorted(shapes)}")
    frames = {name: offset_frame(t) for name, t in tables.items()}
    (shape,) = shapes
    rows, cols = (shape[0] + 1) // 2, (shape[1] + 1) // 2
    row_max, col_max = (rows - 1, cols - 1) if slider_max is None else slider_max
    if row_max < rows - 1 or col_max < cols - 1:
        raise ValueError(
            f"slider_max must reach the grid's last row and column ({rows - 1}, {cols - 1}), got {slider_max}"
        )
    # Where the sliders start may lie past a grid that shrank after a drag (the spec is kept: the
    # browser holds the dragged value); the chart reads such a value as the grid's edge (`QUERY`).
    if not (0 <= query[0] <= row_max and 0 <= query[1] <= col_max):
        where = f"a patch of the {rows} × {cols} grid" if slider_max is None else f"in 0 … {row_max} × 0 … {col_max}"
        raise ValueError(f"query must be {where}, got {query}")
    selections = {
        key: live.position(key, start=int(start), lo=0, hi=int(n), label=LIVE_LABELS[key], on=PATCH_CLICK)
        for key, start, n in zip(LIVE_PARAMS, query, (row_max, col_max), strict=True)
    }
    n_rows, n_cols = GRID_SIZE["rows"], GRID_SIZE["cols"]
    signals = fact_params(GRID_SIZE) + [
        live.at_most_last(key, QUERY[key], size) for key, size in (("vis_qrow", n_rows), ("vis_qcol", n_cols))
    ]
    q_row, q_col = QUERY["vis_qrow"], QUERY["vis_qcol"]
    height = panel_height(panel_width)
    place = grid_frame(rows, cols, width=panel_width, height=height)
    facts = facts_layer({"rows": int(rows), "cols": int(cols), **place})
    x = alt.X("x0:Q").scale(domain=alt.ExprRef(f"[{fact('x_lo')}, {fact('x_hi')}]"), nice=False, zero=False)
    x = x.axis(_grid_axis("column", n_cols, fact("x_step"), fact("x_offset")))
    y = alt.Y("y0:Q").scale(
        domain=alt.ExprRef(f"[{fact('y_lo')}, {fact('y_hi')}]"), nice=False, zero=False, reverse=True
    )
    y = y.axis(_grid_axis("row", n_rows, fact("y_step"), fact("y_offset")))
    # a patch's edges; its row and column are fields named after the parameters (what a click reads)
    edges = {
        "x0": "datum.vis_qcol - 0.5",
        "x1": "datum.vis_qcol + 0.5",
        "y0": "datum.vis_qrow - 0.5",
        "y1": "datum.vis_qrow + 0.5",
    }
    scale = (
        alt.Scale(scheme="redblue", domain=list(domain), nice=False, zero=False, clamp=True)
        if domain is not None
        else alt.Scale(scheme="viridis", nice=False, zero=False)
    )
    # the legend under each panel: beside it, it widened the 2 × 2 chart past a laptop's column with the
    # sidebar open (1280 px), and a canvas cannot shrink to fit as SVG did (clicks would miss their patch)
    colour = (
        alt.Color("s:Q", title="similarity")
        .scale(scale)
        .legend(
            orient="bottom",
            direction="horizontal",
            titleOrient="left",
            offset=10,
            gradientLength=max(60, panel_width - 130),
            format=".3~f",
        )
    )
    panels = []
    for i, (name, df) in enumerate(frames.items()):
        cells = (
            alt.Chart(df)
            .transform_filter(  # the offsets that land on the grid (first: the rest sees only those)
                f"datum.dr >= -{q_row} && datum.dr < {n_rows} - {q_row} && datum.dc >= -{q_col} && datum.dc < {n_cols} - {q_col}"
            )
            .transform_calculate(vis_qrow=f"datum.dr + {q_row}", vis_qcol=f"datum.dc + {q_col}", **edges)
            .mark_rect()
            .encode(
                x=x,
                x2="x1:Q",
                y=y,
                y2="y1:Q",
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
            cells = cells.add_params(selections["vis_qcol"], selections["vis_qrow"])
        ring = alt.Chart(
            pd.DataFrame({"patch": ["the query" if frame == 0 else "the query's place (it is in frame 0)"]})
        )
        ring = ring.transform_calculate(vis_qrow=q_row, vis_qcol=q_col).transform_calculate(**edges)
        halo = ring.mark_rect(filled=False, stroke="#FFFFFF", strokeWidth=5)  # reads on every colour
        line = ring.mark_rect(filled=False, stroke="#111827", strokeWidth=2.5, strokeDash=[] if frame == 0 else [3, 2])
        layer = [cells, *(m.encode(x=x, x2="x1:Q", y=y, y2="y1:Q", tooltip=["patch:N"]) for m in (halo, line))]
        if i == 0:
            layer.insert(0, facts)  # the facts row: the first dataset of the chart (`style.facts_layer`)
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
        params=[signal.param for signal in signals],
        title=alt.TitleParams(
            {"expr": query_title_expr(q_row, q_col, frame)},
            # two lines: as one, it set the chart's width on a phone (a canvas does not shrink to fit)
            subtitle=["Click a patch to make it the query,", "or move the two sliders above."],
            anchor="start",
        ),
        description=description,
        usermeta=on_canvas(),
        **extra,
    )
    return configure(chart)


def grid_heatmap(
    scores: np.ndarray,
    *,
    query: tuple[int, int] | None,
    title: str,
    subtitle: str | list[str] | None = None,
    description: str,
    domain: tuple[float, float] | None = (-1.0, 1.0),
    value_title: str = "similarity",
    width: int = 520,
) -> alt.LayerChart:
    """Scores of one query patch against every patch of a grid: rows down, columns across.

    ``scores`` has shape (rows, cols); ``subtitle`` is one line or a list of lines; ``query`` = (row, column) is ringed (None: no ring, e.g. the
    query sits in another frame). The colour scale is fixed to ``domain`` so panels compare.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 2:
        raise ValueError(f"scores must have shape (rows, cols), got shape {scores.shape}")
    rows, cols = scores.shape
    height = grid_height(rows, cols, width=width)
    chart = image_heatmap(
        scores,
        x_values=np.arange(cols),
        y_values=np.arange(rows),
        x_title="column",
        y_title="row",
        value_title=value_title,
        scheme="redblue" if domain is not None else "viridis",
        domain=domain if domain is not None else _own_domain(scores),
        width=width,
        height=height,
        title=title,
    )
    note = imagechart_meta(chart)["note"]
    lines = [subtitle] if isinstance(subtitle, str) else list(subtitle or [])
    lines = [line for line in (*lines, note) if line]
    if lines:
        chart = chart.properties(title=alt.TitleParams(title, subtitle=lines, anchor="start"))
    chart = fit_heatmap_legend(chart, 160, orient="bottom")
    if query is not None:
        ring = (
            alt.Chart(pd.DataFrame({"x0": [query[1]], "y0": [query[0]], "label": ["query"]}))
            .mark_point(shape="circle", filled=False, size=260, strokeWidth=3, color="#111827")
            .encode(x="x0:Q", y="y0:Q", tooltip=[alt.Tooltip("label:N", title="patch")])
        )
        chart = cast(
            alt.LayerChart,
            alt.layer(*chart.layer, ring).properties(width=chart.width, height=chart.height, title=chart.title),
        )
    return configure(chart.properties(description=description))


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
            x=alt.X("wavelength:Q", title="wavelength 2π/θ_j (positions), log scale")
            .scale(type="log")
            .axis(grid=False),
            y=y,
            yOffset=alt.YOffset("axis:N", sort=axes),
            color=colour,
            tooltip=tooltip,
        )
    # Streamlit fits title, axis and the legend below into `height` too: room for them beyond the rows.
    height = (44 if x == "pair" else 64) * len(schemes) + 200
    return _framed(chart, width=600, height=height, title=title, subtitle=subtitle, description=description)


def shift_diagram(
    points: pd.DataFrame, *, rows: int, cols: int, title: str, subtitle: str | None = None, description: str
) -> alt.LayerChart:
    """The grid's outline, and the query and key patches before and after the shift.

    ``points`` columns: label ("q", "k", "q + Δ", "k + Δ"), state ("before" | "after"), row, col.
    Each state's q and k are joined by a line (the 2D offset, equal before and after).
    """
    _require(points, "points", {"label", "state", "row", "col"})
    x = alt.X("col:Q", title="column").scale(domain=[-0.5, cols - 0.5], nice=False, zero=False)
    y = alt.Y("row:Q", title="row").scale(domain=[-0.5, rows - 0.5], nice=False, zero=False, reverse=True)
    colour = alt.Color("state:N", title=None, sort=list(STATE_COLORS)).scale(
        domain=list(STATE_COLORS), range=list(STATE_COLORS.values())
    )
    base = alt.Chart(points)
    lines = base.mark_line(strokeWidth=2.5, strokeDash=[6, 4]).encode(x=x, y=y, color=colour, detail="state:N")
    dots = base.mark_circle(size=220, opacity=1).encode(
        x=x, y=y, color=colour, tooltip=["label:N", "row:Q", alt.Tooltip("col:Q", title="column")]
    )
    text = base.mark_text(dy=-16, fontSize=15, fontWeight="bold").encode(x=x, y=y, text="label:N", color=colour)
    height = grid_height(rows, cols, width=520, lo=180, hi=380) + 140  # + title, axis and legend
    chart = alt.layer(lines, dots, text)
    return _framed(chart, width=520, height=height, title=title, subtitle=subtitle, description=description)


def sequence_chart(tokens: pd.DataFrame, *, title: str, subtitle: str | None = None, description: str) -> alt.Chart:
    """Position against token index: one dot per token and axis (t, h, w; where they are equal, as
    for text, the w dot is on top), the segments shaded behind.

    ``tokens`` columns: index (token number in the sequence), segment ("text" | "image or video"),
    axis (a key of AXIS_COLORS), position.
    """
    _require(tokens, "tokens", {"index", "segment", "axis", "position"})
    axes = [a for a in AXIS_ORDER if a in set(tokens["axis"])]
    order = tokens[["index", "segment"]].drop_duplicates("index").sort_values("index")
    spans = (
        order.assign(block=(order["segment"] != order["segment"].shift()).cumsum())
        .groupby(["block", "segment"], as_index=False)
        .agg(start=("index", "min"), end=("index", "max"))
    )
    spans["start"] = spans["start"] - 0.5
    spans["end"] = spans["end"] + 0.5
    x = alt.X("index:Q", title="token in the sequence").scale(nice=False, zero=False)
    shade = (
        alt.Chart(spans)
        .mark_rect(opacity=1)
        .encode(
            x=alt.X("start:Q"),
            x2="end:Q",
            fill=alt.Fill("segment:N", title="segment").scale(
                domain=list(SEGMENT_COLORS), range=list(SEGMENT_COLORS.values())
            ),
        )
    )
    colour = alt.Color("axis:N", title="axis", sort=axes).scale(domain=axes, range=[AXIS_COLORS[a] for a in axes])
    lines = (
        alt.Chart(tokens)
        .mark_circle(size=22, opacity=0.9)
        .encode(
            x=x,
            y=alt.Y("position:Q", title="position"),
            color=colour,
            tooltip=["index:Q", "segment:N", "axis:N", "position:Q"],
        )
    )
    chart = alt.layer(shade, lines).resolve_scale(color="independent")
    # title, axis and two legends fit into the height too
    return _framed(chart, width=600, height=430, title=title, subtitle=subtitle, description=description)


def resolution_chart(
    positions: pd.DataFrame, *, trained_max: float, title: str, subtitle: str | None = None, description: str
) -> alt.LayerChart:
    """One row of ticks per grid: the positions its rows (or columns) get; a rule at the largest
    position seen in training, the part beyond it shaded.

    ``positions`` columns: grid (row label, in order), position, beyond (bool: > trained_max).
    """
    _require(positions, "positions", {"grid", "position", "beyond"})
    grids = list(dict.fromkeys(positions["grid"]))
    top = max(float(positions["position"].max()), trained_max) + 0.5
    x = alt.X("position:Q", title="row (or column) position").scale(domain=[-0.5, top], nice=False)
    y = alt.Y("grid:N", title=None, sort=grids).axis(labelLimit=260)
    beyond = (
        alt.Chart(pd.DataFrame({"a": [trained_max], "b": [top]}))
        .mark_rect(color="#FEE2E2")
        .encode(x=alt.X("a:Q"), x2="b:Q")
    )
    rule = (
        alt.Chart(pd.DataFrame({"position": [trained_max]}))
        .mark_rule(color="#B91C1C", strokeWidth=2, strokeDash=[5, 3])
        .encode(x="position:Q")
    )
    ticks = (
        alt.Chart(positions)
        .mark_tick(thickness=2, size=22)
        .encode(
            x=x,
            y=y,
            color=alt.Color("beyond:N", title=None)
            .scale(domain=[False, True], range=["#1D4ED8", "#B91C1C"])
            .legend(labelExpr="datum.label == 'true' ? 'beyond training' : 'seen in training'"),
            tooltip=["grid:N", alt.Tooltip("position:Q", format=".4~g"), "beyond:N"],
        )
    )
    height = 56 * len(grids) + 190  # title, axis and legend fit into the height too
    chart = alt.layer(beyond, rule, ticks)
    return _framed(chart, width=600, height=height, title=title, subtitle=subtitle, description=description)
