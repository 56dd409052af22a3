"""Chart builders for the Images-and-video page (pure: data -> alt.Chart, no st.*).

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

from typing import cast

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts.style import chart_config, configure
from explorer.imagechart import fit_heatmap_legend, image_heatmap

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
    note = chart.usermeta["imagechart"]["note"]
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
            alt.layer(*chart.layer, ring).properties(
                width=chart.width, height=chart.height, title=chart.title, usermeta=chart.usermeta
            ),
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
    need = {"scheme", "pair", "axis", "wavelength"}
    if not need <= set(pairs.columns):
        raise ValueError(f"pairs must have columns {sorted(need)}, got {list(pairs.columns)}")
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
    return chart.properties(
        width=600,
        height=height,
        title=alt.TitleParams(title, subtitle=subtitle or alt.Undefined, anchor="start"),
        description=description,
        config=_BOTTOM_LEGEND,
    )


def shift_diagram(
    points: pd.DataFrame, *, rows: int, cols: int, title: str, subtitle: str | None = None, description: str
) -> alt.LayerChart:
    """The grid's outline, and the query and key patches before and after the shift.

    ``points`` columns: label ("q", "k", "q + Δ", "k + Δ"), state ("before" | "after"), row, col.
    Each state's q and k are joined by a line (the 2D offset, equal before and after).
    """
    need = {"label", "state", "row", "col"}
    if not need <= set(points.columns):
        raise ValueError(f"points must have columns {sorted(need)}, got {list(points.columns)}")
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
    return cast(
        alt.LayerChart,
        alt.layer(lines, dots, text).properties(
            width=520,
            height=height,
            title=alt.TitleParams(title, subtitle=subtitle or alt.Undefined, anchor="start"),
            description=description,
            config=_BOTTOM_LEGEND,
        ),
    )


def sequence_chart(tokens: pd.DataFrame, *, title: str, subtitle: str | None = None, description: str) -> alt.Chart:
    """Position against token index: one dot per token and axis (t, h, w; where they are equal, as
    for text, the w dot is on top), the segments shaded behind.

    ``tokens`` columns: index (token number in the sequence), segment ("text" | "image or video"),
    axis (a key of AXIS_COLORS), position.
    """
    need = {"index", "segment", "axis", "position"}
    if not need <= set(tokens.columns):
        raise ValueError(f"tokens must have columns {sorted(need)}, got {list(tokens.columns)}")
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
    return (
        alt.layer(shade, lines)
        .resolve_scale(color="independent")
        .properties(
            width=600,
            height=430,  # title, axis and two legends fit into the height too
            title=alt.TitleParams(title, subtitle=subtitle or alt.Undefined, anchor="start"),
            description=description,
            config=_BOTTOM_LEGEND,
        )
    )


def resolution_chart(
    positions: pd.DataFrame, *, trained_max: float, title: str, subtitle: str | None = None, description: str
) -> alt.LayerChart:
    """One row of ticks per grid: the positions its rows (or columns) get; a rule at the largest
    position seen in training, the part beyond it shaded.

    ``positions`` columns: grid (row label, in order), position, beyond (bool: > trained_max).
    """
    need = {"grid", "position", "beyond"}
    if not need <= set(positions.columns):
        raise ValueError(f"positions must have columns {sorted(need)}, got {list(positions.columns)}")
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
    return cast(
        alt.LayerChart,
        alt.layer(beyond, rule, ticks).properties(
            width=600,
            height=56 * len(grids) + 190,  # title, axis and legend fit into the height too
            title=alt.TitleParams(title, subtitle=subtitle or alt.Undefined, anchor="start"),
            description=description,
            config=_BOTTOM_LEGEND,
        ),
    )
