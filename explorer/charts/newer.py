"""Chart builders for the Newer encodings page: data -> alt.Chart, no Streamlit calls.

`grid_chart` is the arena: encodings by evaluation length on one task, each cell the mean over seeds (its colour
and its first line) with the 95 % interval under it; a row that did not learn its task is grey. The pictures of
each encoding's own mechanism are `heatmap_chart` (CoPE's positions, PaTH's transform, the hybrid's attention,
FoPE's coefficients) and `lines_chart` (DroPE's loss around the drop, SSMax's temperature against n).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts.style import FIT_X, chart_config

#: A cell of a row that did not learn its task, and its text
UNLEARNED_FILL, UNLEARNED_TEXT = "#e2e8f0", "#475569"
#: Each cell's height in pixels (two lines of text)
CELL_HEIGHT = 44
CONFIG = chart_config(
    title={"fontSize": 18, "subtitleFontSize": 13, "offset": 10, "anchor": "start"},
    axis={"labelFontSize": 14, "titleFontSize": 14, "grid": False, "domain": False, "ticks": False},
    legend={"orient": "bottom", "titleFontSize": 13, "labelFontSize": 12},
)


def grid_chart(
    frame: pd.DataFrame, *, title: str, subtitle: Sequence[str], floor: float, description: str
) -> alt.TopLevelMixin:
    """Encodings (rows, in the frame's order) by length (columns): the mean's colour on a scale from the task's
    uniform guess (``floor``) to 1, the mean and the interval as text; rows with learned = False grey."""
    frame = frame.assign(mean=pd.to_numeric(frame["mean"], errors="coerce"), length=frame["length"].astype(str))
    # the text's colour follows its cell, not the theme (a field with no scale: dark mode leaves it alone)
    share = (frame["mean"] - floor) / max(1e-9, 1.0 - floor)
    learned = frame["learned"].astype(bool)
    frame = frame.assign(
        ink=np.where(~learned, UNLEARNED_TEXT, np.where(share > 0.55, "#ffffff", "#0f172a")),
        grey=[None if ok else UNLEARNED_FILL for ok in learned],
    )
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
    cells = (
        base.transform_filter("datum.learned")
        .mark_rect(stroke="#ffffff", strokeWidth=2)
        .encode(color=fill, tooltip=tooltip)
    )
    grey = (
        base.transform_filter("!datum.learned")
        .mark_rect(stroke="#ffffff", strokeWidth=2)
        .encode(fill=alt.Fill("grey:N", scale=None), tooltip=tooltip)
    )
    ink = alt.Color("ink:N", scale=None)
    mean_text = base.mark_text(dy=-8, fontSize=16, fontWeight="bold").encode(text="value_text:N", color=ink)
    interval_text = base.mark_text(dy=10, fontSize=11).encode(text="interval_text:N", color=ink)
    # each layer its own colour scale: the cells' blues, and the grey and the text's colours as given
    layers = alt.layer(cells, grey, mean_text, interval_text).resolve_scale(color="independent", fill="independent")
    return layers.properties(
        title=alt.Title(title, subtitle=list(subtitle)),
        height=CELL_HEIGHT * len(rows),
        config=CONFIG,
        description=description,
        autosize=FIT_X,
    )


@dataclass(frozen=True)
class Panel:
    """One heatmap of a picture: long rows (``x``, ``y``, ``value``), its title and colour scale."""

    frame: pd.DataFrame
    value: str
    title: str
    x: str = "key position"
    y: str = "query position"
    scheme: str = "viridis"
    domain: tuple[float, float] | None = None


def heatmap_chart(
    panels: Sequence[Panel],
    *,
    title: str,
    subtitle: Sequence[str] = (),
    stacked: bool = False,
    size: int = 260,
    description: str = "",
) -> alt.TopLevelMixin:
    """Heatmaps side by side (``stacked``: one above the other, for a phone), each with its own colour scale;
    y grows downwards, as a matrix reads."""
    charts = []
    for p in panels:
        scale_args: dict[str, Any] = {"scheme": p.scheme} | ({} if p.domain is None else {"domain": list(p.domain)})
        scale = alt.Scale(**scale_args)
        ticks = alt.Axis(labelOverlap=True, labelAngle=0, values=_ticks(p.frame[p.x]))
        charts.append(
            alt.Chart(p.frame)
            .mark_rect()
            .encode(
                x=alt.X(f"{p.x}:O", title=p.x, axis=ticks),
                y=alt.Y(f"{p.y}:O", title=p.y, axis=alt.Axis(labelOverlap=True, values=_ticks(p.frame[p.y]))),
                color=alt.Color(
                    f"{p.value}:Q", title=p.value, scale=scale, legend=alt.Legend(orient="bottom", gradientLength=140)
                ),
                tooltip=[alt.Tooltip(f"{p.x}:O"), alt.Tooltip(f"{p.y}:O"), alt.Tooltip(f"{p.value}:Q", format=".4f")],
            )
            .properties(width=size, height=size, title=alt.Title(p.title, fontSize=15))
        )
    joined = alt.vconcat(*charts) if stacked else alt.hconcat(*charts)
    return joined.resolve_scale(color="independent").properties(
        title=alt.Title(title, subtitle=list(subtitle)), description=description or title, config=CONFIG
    )


def _ticks(values: pd.Series, most: int = 9) -> list[Any]:
    """At most ``most`` evenly spaced labels of an ordinal axis."""
    levels = list(dict.fromkeys(values))
    step = max(1, -(-len(levels) // most))
    return levels[::step]


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
    description: str = "",
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
    layers: list[Any] = [lines]
    if rules:
        marks = pd.DataFrame({x: [r[0] for r in rules], "label": [r[1] for r in rules]})
        rule = alt.Chart(marks).encode(x=alt.X(f"{x}:Q", scale=scale))
        layers += [
            rule.mark_rule(strokeDash=[6, 4], color="#111827"),
            rule.mark_text(align="left", dx=4, y=8, fontSize=13, color="#111827").encode(text="label:N"),
        ]
    return alt.layer(*layers).properties(
        title=alt.Title(title, subtitle=list(subtitle)),
        height=300,
        config=CONFIG,
        description=description or title,
        autosize=FIT_X,
    )


def matrix_frame(matrix: np.ndarray, *, x: str, y: str, value: str, **extra: Any) -> pd.DataFrame:
    """A (rows, columns) matrix as long rows (y = row index, x = column index, value) with constant columns."""
    m = np.asarray(matrix, dtype=float)
    rows, cols = np.indices(m.shape)
    return pd.DataFrame({y: rows.ravel(), x: cols.ravel(), value: m.ravel(), **extra})


def grid_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """explorer.text.newer's grid rows -> a frame in their order."""
    cols = ["task", "encoding", "length", "mean", "lo", "hi", "seeds", "learned", "value_text", "interval_text"]
    frame = pd.DataFrame(list(rows))
    return frame if not frame.empty else pd.DataFrame(columns=cols)


def picture_chart(
    encoding: str, raw: dict[str, Any], *, title: str, subtitle: Sequence[str], stacked: bool, train_len: int
) -> alt.TopLevelMixin:
    """``encoding``'s own picture from explorer.compute.newer.picture's data."""
    if encoding == "cope":
        panels = [
            Panel(
                matrix_frame(raw["gates"], x="key position", y="query position", value="gate"),
                "gate",
                "gates σ(q·k)",
                scheme="blues",
                domain=(0.0, 1.0),
            ),
            Panel(
                matrix_frame(raw["positions"], x="key position", y="query position", value="position"),
                "position",
                "positions they count",
            ),
        ]
        return heatmap_chart(panels, stacked=stacked, title=title, subtitle=subtitle)
    if encoding == "path":
        m = raw["matrix"]
        lim = float(np.nanmax(np.abs(m))) or 1.0
        frame = matrix_frame(m, x="column", y="row", value="entry")
        panel = Panel(frame, "entry", "H(T−1) ⋯ H(1)", x="column", y="row", scheme="redblue", domain=(-lim, lim))
        return heatmap_chart([panel], stacked=stacked, title=title, subtitle=subtitle)
    if encoding == "hybrid":
        panels = [
            Panel(
                matrix_frame(w, x="key position", y="query position", value="weight"),
                "weight",
                f"layer {i}: {'RoPE' if kind == 'rope' else 'no position'}",
            )
            for i, (w, kind) in enumerate(zip(raw["maps"], raw["plan"], strict=True))
        ]
        return heatmap_chart(panels, stacked=stacked, title=title, subtitle=subtitle)
    if encoding == "fope":
        frame = matrix_frame(raw["magnitude"], x="frequency j", y="pair i", value="weight")
        return heatmap_chart(
            [Panel(frame, "weight", "learned weights", x="frequency j", y="pair i")],
            stacked=stacked,
            title=title,
            subtitle=subtitle,
        )
    if encoding == "ssmax":
        s, n = raw["s"], raw["n"]
        rows = [
            {"head": f"layer {li} head {hi}", "keys n": int(k), "s·log n": float(v)}
            for li in range(s.shape[0])
            for hi in range(s.shape[1])
            for k, v in zip(n, raw["scale"][li, hi], strict=True)
            if k == 1 or k == n[-1] or k & (k - 1) == 0 or k % 8 == 0
        ]
        return lines_chart(
            pd.DataFrame(rows),
            x="keys n",
            y="s·log n",
            series="head",
            rules=[(train_len, f"L = {train_len}")],
            log_x=True,
            title=title,
            subtitle=subtitle,
        )
    if encoding == "drope":
        frame = pd.DataFrame(raw["rows"], columns=["seed", "steps from the drop", "training loss"])
        return lines_chart(
            frame,
            x="steps from the drop",
            y="training loss",
            series="seed",
            rules=[(0, "RoPE dropped")],
            title=title,
            subtitle=subtitle,
        )
    raise ValueError(f"encoding: no picture for {encoding!r}")
