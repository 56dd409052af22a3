"""Chart builders for the extrapolation lab: data -> alt.Chart, no Streamlit calls.

`curve_chart` draws every "metric against x, one line per method" view (against evaluation length
on a log axis, or against position along one long sequence), with the training length L marked
and the task's reference lines; `attention_chart` is one head's attention weights.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts.style import (
    DEFAULT_TITLE_SIZE,
    HALO,
    LEGENDS_STACKED_BELOW,
    chart_config,
    facts_titled,
    font_scale_param,
    legend_columns,
    marked_rules,
    titled_layers,
)
from explorer.imagechart import coarse_hover_cells, image_heatmap
from explorer.imagechart import meta as imagechart_meta

#: One colour per encoding (colour-blind-safe Tableau 10), scaled RoPE variants in shades of blue.
COLORS = {
    "nope": "#7f7f7f",
    "learned": "#9467bd",
    "sinusoidal": "#e377c2",
    "rope": "#1f77b4",
    "alibi": "#2ca02c",
}
REF_COLOR = "#64748b"
#: The plot's own height (FIT_X: the title, axes and legend come on top of it, so a phone's wrapped title and
#: legend of one entry a line do not squash it)
HEIGHT = 300
#: The two kinds of row (`curve_chart`): solid, and dashed and faint.
ROWS = ("learned the task", "did not learn the task")
#: The most legend entries a row (on a wide plot)
LEGEND_COLUMNS = 4
#: Legends under the plot, each in as many columns as the plot's width holds at its longest label (`legend_columns`:
#: "rope+yarn:beta_fast=32" in the second of two fixed columns ran past a phone's right edge; the methods' legend sets
#: its own, the rows' takes the config's), the methods' and the rows' one under the other.
CONFIG = chart_config(
    title={"offset": 10},
    axis={"grid": True, "gridColor": "#e2e8f0"},
    legend={
        "orient": "bottom",
        "labelLimit": 400,
        "columns": legend_columns(ROWS, len(ROWS)).to_dict(),
        "layout": LEGENDS_STACKED_BELOW,
    },
)


def metric_title(metric: str) -> str:
    if metric == "excess":
        return "loss above the optimum (nats, lower is better)"
    return "loss (nats per token, lower is better)" if metric == "loss" else "accuracy (higher is better)"


#: The scaled or fine-tuned RoPE variants, in the order they appear.
#: (The seventh was an amber beside the first's orange: "rope+linear" and "rope+linear@ft256" looked the same.)
VARIANT_COLORS = ("#ff7f0e", "#d62728", "#8c564b", "#17becf", "#bcbd22", "#1e3a8a", "#be185d", "#000000")


#: The 95 % band's opacity; the name of the selection a tap on a legend entry or a line makes (`curve_chart`), and
#: the share of its opacity every other method's line and band keeps while one is picked.
BAND_OPACITY = 0.15
PICK = "method_pick"
PICK_FADED = 0.12
#: The subtitle's last line: how to pick.
PICK_HINT = "tap or click a name in the legend to pick it; again to put it back"


def colors_for(methods: Sequence[str]) -> list[str]:
    """One colour per method: the encodings' own, then VARIANT_COLORS in turn."""
    variants = iter(VARIANT_COLORS * (1 + len(methods) // len(VARIANT_COLORS)))
    return [COLORS[m] if m in COLORS else next(variants) for m in methods]


def curve_chart(
    data: pd.DataFrame,
    *,
    x: str,
    x_title: str | Sequence[str],
    metric: str,
    train_len: int,
    references: Mapping[str, float],
    title: str,
    subtitle: str | Sequence[str] = "",
    log_x: bool = False,
    band: bool = False,
    description: str = "",
) -> alt.TopLevelMixin:
    """Lines (method, x, value[, lo, hi][, learned]); a 95 % band from lo to hi when ``band``; rows with
    learned = False drawn dashed and faint (they did not learn the task, so their curve is no claim);
    a dashed rule at L; one labelled dotted rule per reference. ``x_title`` as a list: one line each (a title longer
    than a phone's plot)."""
    data = data.assign(
        **{c: pd.to_numeric(data[c], errors="coerce") for c in ("value", "lo", "hi") if c in data}
    )  # None -> NaN
    if "learned" not in data:
        data = data.assign(learned=True)
    data = data.assign(row=np.where(data["learned"].astype(bool), *ROWS))
    methods = list(dict.fromkeys(data["method"]))
    color_scale = alt.Scale(domain=methods, range=colors_for(methods))
    # one legend for the band and the line layers: drawn opaque (the band's 0.15 would make it faint)
    legend = alt.Legend(
        symbolOpacity=1, symbolType="stroke", symbolStrokeWidth=3, columns=legend_columns(methods, LEGEND_COLUMNS)
    )
    color = alt.Color("method:N", title=None, sort=methods, scale=color_scale, legend=legend)
    scale = alt.Scale(type="log", base=2) if log_x else alt.Scale(zero=False)
    xenc = alt.X(
        f"{x}:Q", title=x_title, scale=scale, axis=alt.Axis(values=sorted(set(data[x]))) if log_x else alt.Axis()
    )
    yenc = alt.Y("value:Q", title=metric_title(metric), scale=alt.Scale(zero=False))
    tooltip = [alt.Tooltip("method:N"), alt.Tooltip(f"{x}:Q"), alt.Tooltip("value:Q", format=".4f")]
    if "lo" in data:
        tooltip += [
            alt.Tooltip("lo:Q", format=".4f", title="95 % low"),
            alt.Tooltip("hi:Q", format=".4f", title="95 % high"),
        ]
    tooltip.append(alt.Tooltip("row:N", title="inside L"))
    rows = list(ROWS)
    dash = alt.StrokeDash("row:N", title=None, sort=rows, scale=alt.Scale(domain=rows, range=[[1, 0], [3, 3]]))
    # ordinal, in the rows' order (an unsorted nominal field set the opacity with a console warning)
    opacity = alt.Opacity("row:O", sort=rows, legend=None, scale=alt.Scale(domain=rows, range=[1.0, 0.45]))
    # a tap on a legend entry (or a line) picks that method, and another tap on it puts it back: the others fade, so
    # one or two of a dozen lines can be followed on a phone; with none picked, all are drawn (PICK_HINT says so)
    pick = alt.selection_point(name=PICK, fields=["method"], bind="legend", toggle="true")
    base = alt.Chart(data.dropna(subset=["value"]))
    layers: list[alt.Chart] = [
        base.mark_line(point=log_x, strokeWidth=2.5)
        .encode(
            x=xenc,
            y=yenc,
            color=color,
            strokeDash=dash,
            opacity=alt.condition(pick, opacity, alt.value(PICK_FADED)),
            tooltip=tooltip,
        )
        .add_params(pick)
    ]
    if band and "lo" in data and data["lo"].notna().any():
        banded = data.dropna(subset=["value", "lo", "hi"])
        band_layer = alt.Chart(banded).mark_area()
        layers.insert(
            0,
            band_layer.encode(
                x=xenc,
                y=alt.Y("lo:Q", title=metric_title(metric)),
                y2="hi:Q",
                color=color,
                opacity=alt.condition(pick, alt.value(BAND_OPACITY), alt.value(PICK_FADED * BAND_OPACITY)),
            ),
        )
    refs = alt.Chart(pd.DataFrame({"reference": list(references), "value": list(references.values())}))
    layers += [
        refs.mark_rule(strokeDash=[2, 3], color=REF_COLOR).encode(
            y="value:Q", tooltip=["reference:N", alt.Tooltip("value:Q", format=".4f")]
        ),
        # each reference's name over the lines, on a halo in the card's colour (a line passing behind it crossed it out)
        *(
            refs.mark_text(align="left", dx=4, dy=-6, fontSize=13, **look).encode(
                y="value:Q", text="reference:N", x=alt.value(0)
            )
            for look in (
                {"color": HALO, "stroke": HALO, "strokeWidth": 5, "strokeJoin": "round"},
                {"color": REF_COLOR},
            )
        ),
        *marked_rules(x, [(train_len, f"L = {train_len}")], scale),
    ]
    # the presentation font scale, which the legends' columns read
    lines = [subtitle] if isinstance(subtitle, str) else list(subtitle)
    chart = titled_layers(layers, title, [*(line for line in lines if line), PICK_HINT], HEIGHT, CONFIG, description)
    lifted: Any = getattr(chart, "params", alt.Undefined)  # the pick, which alt.layer moved up here
    lifted = [] if lifted is alt.Undefined else list(lifted)
    return chart.properties(params=[*lifted, font_scale_param().param])


#: The attention chart's plot, width × height in pixels (it stretches to its column).
ATTENTION_SIZE = (480, 420)


def attention_chart(weights: np.ndarray, *, title: str, subtitle: str = "") -> alt.TopLevelMixin:
    """One head's (n, n) attention weights, row = query position, column = key position.

    The title (which layer, head and length) travels in the chart's facts row
    (`style.facts_titled`), so another head or length changes only the rows and the browser redraws
    the chart in place; the description is the subtitle, which names none of them."""
    chart = image_heatmap(
        weights,
        x_title="key position",
        y_title="query position",
        value_title="attention weight",
        scheme="viridis",
        domain=(0.0, float(np.nanmax(weights)) if weights.size else 1.0),
        width=ATTENTION_SIZE[0],
        height=ATTENTION_SIZE[1],
        max_pixels=(512, 512),
        reduce="mean",
        hover_cells=coarse_hover_cells(*ATTENTION_SIZE),  # about 20 px a hover cell: redrawn at every head
    )
    note = imagechart_meta(chart)["note"]  # set when the image had to be reduced
    return facts_titled(
        chart.layer,
        title=title,
        font_size=DEFAULT_TITLE_SIZE,
        subtitle=note,
        anchor="start",
        width=chart.width,
        height=chart.height,
        description="Chart: " + (subtitle or "one head's attention weights, query positions by key positions"),
    )


# ------------------------------------------------------------------------------ the frames the charts draw


def rows_frame(rows: Sequence[Mapping[str, Any]], x: str = "length") -> pd.DataFrame:
    """explorer.text.lab's summary or position rows -> a frame (method, x, value, lo, hi, …) in the given order."""
    cols = ["method", x, "value", "lo", "hi", "learned"]
    frame = pd.DataFrame(list(rows))
    return frame if not frame.empty else pd.DataFrame(columns=cols)


def curves_frame(
    curves: Mapping[str, Mapping[Any, float | None]], learned: Mapping[str, bool] | None = None
) -> pd.DataFrame:
    """{method: {length: value}} -> rows (method, length, value[, learned]), lengths as integers, in the
    given order; ``learned`` (a run's flags) marks the rows that did not learn the task."""
    return pd.DataFrame(
        [
            {
                "method": m,
                "length": int(n),
                "value": v,
                **({} if learned is None else {"learned": learned.get(m, True)}),
            }
            for m, per in curves.items()
            for n, v in per.items()
        ]
    )
