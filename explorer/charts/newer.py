"""Chart builders for the Newer encodings page: data -> alt.Chart, no Streamlit calls.

`grid_chart` is the arena: encodings by evaluation length on one task, each cell the mean over seeds (its colour
and its first line) with the 95 % interval under it; a row that did not learn its task is grey. The pictures of
each encoding's own mechanism are `heatmap_chart` (CoPE's positions, PaTH's transform, the hybrid's attention,
FoPE's coefficients) and `lines_chart` (DroPE's loss around the drop, SSMax's temperature against n).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts.style import FIT_X, GRID_VIEW, INK, chart_config, grid_inks, marked_rules, titled_layers
from explorer.imagechart import fit_heatmap_legend, image_heatmap

#: A cell of a row that did not learn its task, and its text
UNLEARNED_FILL, UNLEARNED_TEXT = "#e2e8f0", "#475569"
#: Each cell's height in pixels (two lines of text)
CELL_HEIGHT = 44
CONFIG = chart_config(
    title={"subtitleFontSize": 13, "offset": 10},
    axis={"titleFontSize": 14, "grid": False, "domain": False, "ticks": False},
    legend={"orient": "bottom", "titleFontSize": 13, "labelFontSize": 12},
)


def grid_chart(
    frame: pd.DataFrame, *, title: str | Sequence[str], subtitle: Sequence[str], floor: float, description: str
) -> alt.TopLevelMixin:
    """Encodings (rows, in the frame's order) by length (columns): the mean's colour on a scale from the task's
    uniform guess (``floor``) to 1, the mean and the interval as text; rows with learned = False grey."""
    frame = frame.assign(mean=pd.to_numeric(frame["mean"], errors="coerce"), length=frame["length"].astype(str))
    # the text's colour follows its cell on either theme's blues (a learned row's; style.GRID_VIEW: the dark theme
    # reads INK_DARK): of white and near-black, the one that contrasts more with the cell (white on a 0.55 cell, by a
    # fixed threshold before, was 3.1:1)
    share = ((frame["mean"] - floor) / max(1e-9, 1.0 - floor)).fillna(0.0)
    frame = frame.assign(**grid_inks(share.tolist()))
    rows = list(dict.fromkeys(frame["encoding"]))
    lengths = list(dict.fromkeys(frame["length"]))
    x = alt.X("length:O", title="evaluation length (tokens)", sort=lengths, axis=alt.Axis(orient="top", labelAngle=0))
    y = alt.Y("encoding:N", title=None, sort=rows)
    tooltip = [
        alt.Tooltip("encoding:N"),
        alt.Tooltip("length:N"),
        alt.Tooltip("mean:Q", format=".4f"),
        alt.Tooltip("lo:Q", format=".4f", title="95 % low"),
        alt.Tooltip("hi:Q", format=".4f", title="95 % high"),
        alt.Tooltip("seeds:Q"),
        alt.Tooltip("learned:N", title="learned inside L"),
    ]
    base = alt.Chart(frame).encode(x=x, y=y)
    fill = alt.Color(
        "mean:Q",
        title="mean",
        scale=alt.Scale(domain=[floor, 1.0], scheme="blues", clamp=True),
        legend=alt.Legend(orient="bottom", gradientLength=160, format=".2f"),
    )
    cell = base.mark_rect(stroke="#ffffff", strokeWidth=2).encode(tooltip=tooltip)
    cells = cell.transform_filter("datum.learned").encode(color=fill)
    # the grey rows' fill and text are the spec's own colours, not data: the dark theme maps them (a near-white row,
    # the brightest thing on a dark slide, was the one that gets no claim)
    grey = cell.transform_filter("!datum.learned").encode(fill=alt.value(UNLEARNED_FILL))
    ink = alt.Color(f"{INK}:N", scale=None)
    mean_font: dict = dict(dy=-8, fontSize=16, fontWeight="bold")
    interval_font: dict = dict(dy=10, fontSize=11)
    on_blue, on_grey = base.transform_filter("datum.learned"), base.transform_filter("!datum.learned")
    texts = [
        on_blue.mark_text(**mean_font).encode(text="value_text:N", color=ink),
        on_blue.mark_text(**interval_font).encode(text="interval_text:N", color=ink),
        on_grey.mark_text(color=UNLEARNED_TEXT, **mean_font).encode(text="value_text:N"),
        on_grey.mark_text(color=UNLEARNED_TEXT, **interval_font).encode(text="interval_text:N"),
    ]
    # each layer its own colour scale: the cells' blues, and the text's colours as given
    layers = alt.layer(cells, grey, *texts).resolve_scale(color="independent", fill="independent")
    return layers.properties(
        name=GRID_VIEW + "shares",  # the dark theme's blues and inks
        title=alt.Title(title, subtitle=list(subtitle)),
        height=CELL_HEIGHT * len(rows),
        config=CONFIG,
        description=description,
        autosize=FIT_X,
    )


@dataclass(frozen=True)
class Panel:
    """One heatmap of a picture: a matrix (rows along y, downwards), its title, axes and colour scale."""

    matrix: np.ndarray
    title: str
    value: str
    x: str = "key position"
    y: str = "query position"
    scheme: str = "viridis"
    domain: tuple[float, float] | None = None


#: A picture heatmap's plot, width × height in pixels (it stretches to its column), and its colour bar's length
PANEL_SIZE, LEGEND_LENGTH = (460, 380), 160


def heatmap_chart(panel: Panel, *, subtitle: Sequence[str] = (), dark: bool = False) -> alt.TopLevelMixin:
    """One matrix as an image (`explorer.imagechart.image_heatmap`: one image, not a mark per cell, so a long
    sequence stays light), with its title and the picture's subtitle; `dark`: drawn for the dark card."""
    m = np.asarray(panel.matrix, dtype=float)
    finite = m[np.isfinite(m)]
    domain = panel.domain or ((float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0))
    if domain[0] == domain[1]:
        domain = (domain[0] - 0.5, domain[1] + 0.5)
    chart = image_heatmap(
        m,
        x_title=panel.x,
        y_title=panel.y,
        value_title=panel.value,
        scheme=panel.scheme,
        domain=domain,
        width=PANEL_SIZE[0],
        height=PANEL_SIZE[1],
        max_pixels=(512, 512),
        reduce="mean",
        dark=dark,
    )
    # a colour bar as long as the whole chart overhung the plot once the title took its lines (its last label was
    # cut off at the chart's bottom on a phone, where the title wraps to four)
    chart = fit_heatmap_legend(chart, LEGEND_LENGTH)
    return chart.properties(
        title=alt.Title(panel.title, subtitle=list(subtitle), anchor="start", fontSize=16),
        description=panel.title,
    )


def lines_chart(
    frame: pd.DataFrame,
    *,
    x: str,
    y: str,
    series: str,
    title: str,
    subtitle: Sequence[str] = (),
    rules: Sequence[tuple[float, str]] = (),
    log_x: bool = False,
) -> alt.TopLevelMixin:
    """Lines of ``y`` against ``x``, one per ``series``, with labelled vertical rules (the drop, L)."""
    scale = alt.Scale(type="log", base=2) if log_x else alt.Scale(zero=False)
    lines = (
        alt.Chart(frame)
        .mark_line(strokeWidth=2)
        .encode(
            x=alt.X(f"{x}:Q", title=x, scale=scale),
            y=alt.Y(f"{y}:Q", title=y, scale=alt.Scale(zero=False)),
            color=alt.Color(f"{series}:N", title=None, legend=alt.Legend(orient="bottom", columns=4)),
            tooltip=[alt.Tooltip(f"{series}:N"), alt.Tooltip(f"{x}:Q"), alt.Tooltip(f"{y}:Q", format=".4f")],
        )
    )
    layers = [lines, *(marked_rules(x, rules, scale) if rules else [])]
    return titled_layers(layers, title, list(subtitle), 300, CONFIG)


def grid_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """explorer.text.newer's grid rows -> a frame in their order."""
    cols = ["task", "encoding", "length", "mean", "lo", "hi", "seeds", "learned", "value_text", "interval_text"]
    frame = pd.DataFrame(list(rows))
    return frame if not frame.empty else pd.DataFrame(columns=cols)


#: The encodings whose picture is one heatmap per panel (`_panels`).
PANELLED = ("cope", "path", "hybrid", "fope")


def picture_count(encoding: str, raw: dict[str, Any]) -> int:
    """How many charts ``encoding``'s picture is (`picture_chart`'s indices)."""
    return len(_panels(encoding, raw)) if encoding in PANELLED else 1


def picture_charts(
    encoding: str, raw: dict[str, Any], *, title: str, subtitle: Sequence[str], train_len: int, dark: bool = False
) -> list[alt.TopLevelMixin]:
    """``encoding``'s own picture from explorer.compute.newer.picture's data: one chart, or one per panel (CoPE's
    gates and positions, the hybrid's layers), each titled "<title>: <panel>"; `dark`: drawn for the dark card."""
    return [
        picture_chart(encoding, raw, index=i, title=title, subtitle=subtitle, train_len=train_len, dark=dark)
        for i in range(picture_count(encoding, raw))
    ]


def picture_chart(
    encoding: str,
    raw: dict[str, Any],
    *,
    index: int,
    title: str,
    subtitle: Sequence[str],
    train_len: int,
    dark: bool = False,
) -> alt.TopLevelMixin:
    """The `index`-th chart of `picture_charts` alone (a page builds each once: explorer.render.shared); `dark`: a
    heatmap drawn for the dark card (the page's `explorer.render.dark_theme()`; `explorer.imagechart.image_heatmap`)."""
    if not 0 <= index < picture_count(encoding, raw):
        raise ValueError(f"index must be in 0 … {picture_count(encoding, raw) - 1}, got {index}")
    if encoding in PANELLED:
        panel = _panels(encoding, raw)[index]
        return heatmap_chart(replace(panel, title=f"{title}: {panel.title}"), subtitle=subtitle, dark=dark)
    return _one_picture(encoding, raw, title=title, subtitle=subtitle, train_len=train_len)[0]


def _one_picture(
    encoding: str, raw: dict[str, Any], *, title: str, subtitle: Sequence[str], train_len: int
) -> list[alt.TopLevelMixin]:
    if encoding == "ssmax":
        s, n = raw["s"], raw["n"]
        rows = [
            {"head": f"layer {li} head {hi}", "keys n": int(k), "s·log n": float(v)}
            for li in range(s.shape[0])
            for hi in range(s.shape[1])
            for k, v in zip(n, raw["scale"][li, hi], strict=True)
            if k == 1 or k == n[-1] or k & (k - 1) == 0 or k % 8 == 0
        ]
        frame = pd.DataFrame(rows)
        rules = [(train_len, f"L = {train_len}")]
        return [
            lines_chart(
                frame, x="keys n", y="s·log n", series="head", rules=rules, log_x=True, title=title, subtitle=subtitle
            )
        ]
    if encoding == "drope":
        frame = pd.DataFrame(raw["rows"], columns=["seed", "steps from the drop", "training loss"])
        return [
            lines_chart(
                frame,
                x="steps from the drop",
                y="training loss",
                series="seed",
                rules=[(0, "RoPE dropped")],
                title=title,
                subtitle=subtitle,
            )
        ]
    raise ValueError(f"encoding: no picture for {encoding!r}")


def _panels(encoding: str, raw: dict[str, Any]) -> list[Panel]:
    if encoding == "cope":
        return [
            Panel(raw["gates"], "the gates σ(q·k)", "gate", domain=(0.0, 1.0)),
            Panel(raw["positions"], "the positions they count", "position", scheme="magma"),
        ]
    if encoding == "path":
        m = raw["matrix"]
        lim = float(np.nanmax(np.abs(m))) or 1.0
        return [Panel(m, "H(T−1) ⋯ H(1)", "entry", x="column", y="row", scheme="redblue", domain=(-lim, lim))]
    if encoding == "hybrid":
        return [
            Panel(w, f"layer {i}, {'RoPE' if kind == 'rope' else 'no position'}", "weight")
            for i, (w, kind) in enumerate(zip(raw["maps"], raw["plan"], strict=True))
        ]
    grid = raw.get("grid", raw["magnitude"])  # blank: a clipped frequency, a pair that does not rotate
    return [Panel(grid, "learned weights (blank: clipped)", "weight", x="frequency j", y="pair i")]
