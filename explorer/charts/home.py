"""Chart builders for the home page, "Why position matters" (pure: data -> alt.Chart, no st.*).

- `shuffle_diagram`      the sentence, its shuffle, and a line from each word to its new place
- `experiment_chart`     the head at every d of its own slider: the outputs of the shuffled sentence against the
                         original outputs shuffled the same way (on the diagonal exactly when the head is blind to
                         order), over the three attention heatmaps A(X), A(PX), P·A(X)·Pᵀ (≤ 24×24: rect marks)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts import live
from explorer.charts.style import FONT_SCALE_PARAM, INKS, ChartT, configure, font_scale_param, white_ink_from
from explorer.text import home as text

#: Above this many tokens the heatmap cells are too small for printed values.
MAX_TOKENS_WITH_VALUES = 8
#: Above this many tokens the heatmap axes show positions only.
MAX_TOKENS_WITH_WORDS = 12
#: Length of the heatmaps' colour gradient, in pixels (shorter than the narrowest plot).
LEGEND_LENGTH = 150
#: The printed values are hidden (in the browser, by the text's size) where a cell is narrower than this
#: many pixels times the font scale: "0.53" needs ≈ 28 px at 14 px, ≈ 38 px at presentation size (×1.35),
#: where they would print over each other. Colour and tooltip still give every value.
MIN_CELL_PX_FOR_VALUES = 28


def _configure(chart: ChartT) -> ChartT:
    """This page's sizes (a little larger: few, small charts)."""
    return configure(chart, axis_label=15, axis_title=16, title=20, subtitle=15, legend_title=15)


def token_labels(words) -> list[str]:
    """Axis labels that stay unique when a word repeats: "0 the", "1 cat", …"""
    return [f"{i} {w}" for i, w in enumerate(words)]


#: Average width of a bold character of the diagram's words, in ems (generous: wide letters fit).
WORD_CHAR_EM = 0.64
#: The words' font size (px) when they stand upright, and the largest when they are turned.
WORD_FONT = 18
#: The smallest font size (px) of a turned word: 24 words side by side on a 360-px phone.
MIN_WORD_FONT = 9


def shuffle_diagram(words, perm) -> alt.LayerChart:
    """Two rows of words, the sentence on top and its shuffle below (shuffled[i] = words[perm[i]]),
    with a line from each word's old place to its new one.

    The layout follows the chart's width in the browser (Vega expressions on the `width` signal),
    so no two words ever overlap, at any width and for any words: each word has a slot of
    width / n pixels; where the longest word fits its slot upright, the words stand upright at
    `WORD_FONT` px; where it fits two slots, every other word moves one line further in; otherwise
    they are turned a quarter turn (reading upwards), in a font no larger than the slot (down to
    `MIN_WORD_FONT`). The chart's height leaves room for the longest word
    turned, so the lines between the rows never cross a word. Words are never shortened."""
    words = [str(w) for w in words]
    perm = np.asarray(perm, dtype=int)
    n = len(words)
    if perm.shape != (n,) or sorted(perm.tolist()) != list(range(n)):
        raise ValueError(f"perm must be a permutation of 0 … {n - 1}, got {perm.tolist()}")
    longest = max((len(w) for w in words), default=1)
    shuffled = [words[j] for j in perm]
    text_rows = pd.DataFrame(
        {
            "x": list(range(n)) * 2,
            "word": words + shuffled,
            "row": ["original"] * n + ["shuffled"] * n,
            "place": [f"place {i} of the sentence" for i in range(n)] + [f"place {i} of the shuffle" for i in range(n)],
        }
    )
    links = pd.DataFrame(
        {"x": perm.astype(float), "x2": np.arange(n, dtype=float), "word": shuffled, "old": perm, "new": np.arange(n)}
    )
    # Browser-side layout: slot = pixels per word; upright if the longest word fits it.
    char = WORD_CHAR_EM
    # (font_scale: set by `style_spec` in presentation mode, where every font size grows)
    params = [
        font_scale_param(),
        alt.param(name="slot", expr=f"width / {n}"),
        alt.param(name="word_px", expr=f"{longest} * {char} * {WORD_FONT} * {FONT_SCALE_PARAM} + 10"),
        # 1: upright in one line; 2: upright, every other word one line further in; 0: turned
        alt.param(name="levels", expr="word_px <= slot ? 1 : word_px <= 2 * slot ? 2 : 0"),
        alt.param(
            name="word_size",
            expr=f"levels ? {WORD_FONT} * {FONT_SCALE_PARAM} : "
            f"clamp(floor(slot * 0.8), {MIN_WORD_FONT}, ({WORD_FONT} - 2) * {FONT_SCALE_PARAM})",
        ),
        # how far a row's words reach into the chart from its edge, in pixels
        alt.param(name="reach", expr=f"(levels ? levels * word_size * 1.25 : {longest} * {char} * word_size) + 8"),
    ]
    height = int(math.ceil(2 * (longest * char * (WORD_FONT - 2) + 8) + 70))
    x = alt.X("x:Q").scale(domain=[-0.5, max(n - 0.5, 0.5)], nice=False, zero=False).axis(None)
    colour = alt.Color("row:N").scale(domain=["original", "shuffled"], range=["#0F172A", "#B45309"]).legend(None)
    tip = [alt.Tooltip("word:N"), alt.Tooltip("place:N", title="where")]
    expr = alt.ExprRef
    inward = "(levels == 2 && datum.x % 2 ? word_size * 1.25 : 0)"  # the staggered words' offset

    def word_row(row: str, end: str, side: str, y: str) -> alt.Chart:
        """One row of words: upright, or turned a quarter turn reading away from the links (`end`)."""
        return (
            alt.Chart(text_rows[text_rows.row == row])
            .mark_text(
                fontWeight="bold",
                fontSize=expr(expr="word_size"),
                angle=expr(expr="levels ? 0 : 270"),
                align=expr(expr=f"levels ? 'center' : '{end}'"),
                baseline=expr(expr=f"levels ? '{side}' : 'middle'"),
            )
            .encode(x=x, y=alt.YValue(expr(expr=y)), text="word:N", color=colour, tooltip=tip)
        )

    top_words = word_row("original", "right", "top", inward)
    bottom_words = word_row("shuffled", "left", "bottom", f"height - {inward}")
    link_layer = (
        alt.Chart(links)
        .mark_rule(color="#94A3B8", strokeWidth=1.5)
        .encode(
            x=x,
            x2="x2:Q",
            y=alt.YValue(expr(expr="reach")),
            y2=alt.Y2Value(expr(expr="height - reach")),
            tooltip=[
                alt.Tooltip("word:N"),
                alt.Tooltip("old:Q", title="place in the sentence"),
                alt.Tooltip("new:Q", title="place in the shuffle"),
            ],
        )
    )
    chart = alt.LayerChart(
        layer=[link_layer, top_words, bottom_words],
        # ignore: the stub types Parameter.param as possibly Undefined; alt.param() always sets it
        params=[p.param for p in params],  # type: ignore[misc]
        height=height,
        width="container",
        description=text.shuffle_description(words, shuffled, int(np.sum(perm != np.arange(n)))),
        title=alt.Title("Your sentence (top) and its shuffle (bottom)"),
    )
    return _configure(chart)


#: The in-chart slider (explorer.liveparam): the registry's d_model. The chart carries the head's numbers at
#: every d it reaches (explorer.compute.home.every_dim), so a drag redraws it in the browser (issue #36).
LIVE_KEY = "d_model"
LIVE_PARAMS = (LIVE_KEY,)
#: The slider's label.
LIVE_LABEL = "Vector size d "
#: One heatmap's plot width (px) on a desktop or projector (three side by side) and on a phone (one under another);
#: the scatter spans the three heatmaps (on a phone, one).
HEATMAP_WIDTH, PHONE_HEATMAP_WIDTH = 250, 270
#: The Vega name of a heatmap's colour scale (Vega-Lite names a view's scale after its channel).
COLOR_SCALE = "color"
#: The heatmaps' titles (explorer.compute.home.HEATMAPS's names in order): (title, subtitle).
HEATMAP_TITLES = {
    "A(X)": ("Original sentence", "A(X)"),
    "A(PX)": ("Shuffled sentence", "A(PX): computed afresh"),
    "P·A(X)·Pᵀ": ("Original, re-ordered", "P·A(X)·Pᵀ: old rows & columns moved"),
}


def _at_d() -> str:
    """The filter that keeps the rows of the d the slider stands at."""
    return f"datum.d == {live.number(LIVE_KEY)}"


def _heatmap(weights: pd.DataFrame, labels: pd.DataFrame, tops: pd.DataFrame, name: str, width: int) -> alt.LayerChart:
    """One heatmap of `experiment_chart`: the rows of `weights` named `name` at the slider's d, one rect a cell,
    its query and key words looked up by place in `labels` (that heatmap's), the colour scale from 0 to the d's
    vmax (looked up in `tops`: shared by the three, the largest weight of both orders). Up to
    `MAX_TOKENS_WITH_VALUES` words the values are printed where a cell is at least `MIN_CELL_PX_FOR_VALUES`
    wide; beyond `MAX_TOKENS_WITH_WORDS` the axes show positions only (the words are in the tooltip)."""
    words = labels[labels["heatmap"] == name].drop(columns="heatmap")
    n = len(words)
    words_fit = n <= MAX_TOKENS_WITH_WORDS
    # beyond MAX_TOKENS_WITH_WORDS, "12 dog" -> "12": positions only, thinned so they never overlap
    axis: dict[str, Any] = (
        {"labelOverlap": False} if words_fit else {"labelOverlap": "parity", "labelExpr": "split(datum.label, ' ')[0]"}
    )
    rows = weights[weights["heatmap"] == name].drop(columns="heatmap")
    at_d = (
        alt.Chart()  # the rows are the layer chart's own (one data object: Altair compares its layers' data by value)
        .transform_filter(_at_d())  # first: the lookups below run on one d's rows only
        .transform_lookup(lookup="d", from_=alt.LookupData(tops, key="d", fields=["vmax"]))
    )
    base = (
        at_d.transform_lookup(lookup="row", from_=alt.LookupData(words, key="place", fields=["label"]), as_=["query"])
        .transform_lookup(lookup="col", from_=alt.LookupData(words, key="place", fields=["label"]), as_=["key"])
        .encode(
            x=alt.X("key:N", sort=alt.EncodingSortField("col", op="min"))
            .title("key word (column)")
            .axis(labelAngle=-45 if words_fit else 0, **axis),
            y=alt.Y("query:N", sort=alt.EncodingSortField("row", op="min")).title("query word (row)").axis(**axis),
        )
    )
    top = f"domain('{COLOR_SCALE}')[1]"

    def colour(field: str) -> alt.Color:  # the same channel in every layer: one scale, one legend
        # Legend: labels at 0, vmax/2 and vmax only; Vega aligns the two end labels flush with the gradient's ends
        return (
            alt.Color(f"{field}:Q")
            .scale(scheme="blues", domainMin=0, zero=True, nice=False)
            .title("attention weight")
            .legend(
                orient="bottom",
                direction="horizontal",
                gradientLength=LEGEND_LENGTH,
                values=alt.ExprRef(f"[0, {top} / 2, {top}]"),
                format=".2f",
                labelOverlap=False,
            )
        )

    cells = base.mark_rect().encode(
        color=colour("weight"),
        tooltip=[
            alt.Tooltip("query:N", title="query"),
            alt.Tooltip("key:N", title="key"),
            alt.Tooltip("weight:Q", format=".4f"),
        ],
    )
    # One invisible rect coloured by vmax, under the cells: the scale's domain is the union of what its
    # marks show, so it reaches vmax even in a heatmap whose own weights stay below it.
    reach = at_d.transform_aggregate(vmax="max(vmax)").mark_rect(opacity=0).encode(color=colour("vmax"))
    layers: list[alt.Chart] = [reach, cells]
    if n <= MAX_TOKENS_WITH_VALUES:
        layers.append(
            base.mark_text(
                fontSize=14 if n <= 6 else 13,
                opacity=alt.expr(f"{width / n} >= {MIN_CELL_PX_FOR_VALUES} * {FONT_SCALE_PARAM} ? 1 : 0"),
                # white on a dark cell, near-black on a pale one, on either theme: the cells' blues are the same on
                # both, so the dark theme's recolouring (style.dark_color, which leaves expressions alone) must not
                # lighten the dark figures on the pale cells
                color=alt.ExprRef(
                    f"datum.weight >= datum.vmax * {white_ink_from()} ? '{INKS[0]}' : '{INKS[1]}'"
                ),  # style.ink_on's choice on blues (white from 0.55 of the top was 3.1:1 there)
            ).encode(text=alt.Text("weight:Q", format=".2f"))
        )
    title, subtitle = HEATMAP_TITLES[name]
    return alt.LayerChart(data=rows, layer=layers).properties(
        title=alt.Title(title, subtitle=subtitle), width=width, height=max(width, 17 * n)
    )


def _scatter(points: pd.DataFrame, gaps, *, pe: str, width: int, slider: Any) -> alt.LayerChart:
    """The scatter of `experiment_chart`, carrying its `slider` (the d selection): each dot is one output number at the slider's d,
    x = the original sentence's output re-ordered like the words (P·Y(X)), y = the shuffled sentence's (Y(PX)).
    The dashed diagonal y = x spans both axes' one range: every dot of that d, padded by 5 %."""
    lo_hi = points.groupby("d")[["expected", "actual"]].agg(["min", "max"])
    low = lo_hi.xs("min", axis=1, level=1).min(axis=1)
    high = lo_hi.xs("max", axis=1, level=1).max(axis=1)
    pad = 0.05 * (high - low).clip(lower=1e-9)
    corners = pd.DataFrame({"d": np.repeat(low.index.to_numpy(), 2), "end": np.tile([0, 1], len(low))})
    ends = np.column_stack([low - pad, high + pad]).ravel()
    diag = corners.assign(expected=ends, actual=ends)
    titles = {text.scatter_titles(pe, float(g)) for g in gaps}
    title, subtitle = titles.pop() if len(titles) == 1 else text.scatter_titles_any_d(pe)
    scale = alt.Scale(zero=False, nice=False)
    x = alt.X("expected:Q").scale(scale).title("original outputs, re-ordered like the words")
    y = alt.Y("actual:Q").scale(scale).title("outputs for the shuffled sentence")
    line = (
        alt.Chart(diag)
        .transform_filter(_at_d())
        .mark_line(color="#64748B", strokeDash=[6, 4], strokeWidth=2)
        .encode(x=x, y=y, order="end:Q")
    )
    dots = (
        alt.Chart(points)
        .transform_filter(_at_d())
        .transform_calculate(difference="datum.actual - datum.expected")  # the tooltip's, for one d's dots
        .mark_circle(size=60, opacity=0.75, color="#1D4ED8")
        .encode(
            x=x,
            y=y,
            tooltip=[
                alt.Tooltip("expected:Q", format=".4f"),
                alt.Tooltip("actual:Q", format=".4f"),
                alt.Tooltip("difference:Q", format=".2e"),
            ],
        )
        .add_params(slider)
        .properties(name="dots")  # a fixed name: Altair numbers unnamed views, and the spec must not change
    )
    return alt.LayerChart(layer=[line, dots]).properties(
        title=alt.Title(title, subtitle=subtitle), width=width, height=min(width, 420)
    )


def experiment_chart(
    tables: Mapping[str, pd.DataFrame],
    *,
    pe: str,
    start: int,
    dims: tuple[int, int, int],
    phone: bool = False,
) -> alt.VConcatChart:
    """The head's outputs and attention weights at the d of the chart's own slider (`LIVE_KEY`, over
    ``dims`` = (least, most, step)), one chart: the equivariance scatter on top, the three attention heatmaps
    (A(X), A(PX), P·A(X)·Pᵀ) below it, side by side (one under another on a phone), sharing one colour scale.
    `tables` hold every d (explorer.compute.home.every_dim's: points, weights, labels, gaps), so a drag only
    filters them in the browser."""
    width = PHONE_HEATMAP_WIDTH if phone else HEATMAP_WIDTH
    tops = tables["gaps"][["d", "vmax"]]
    heatmaps = [_heatmap(tables["weights"], tables["labels"], tops, name, width) for name in HEATMAP_TITLES]
    row = alt.vconcat(*heatmaps) if phone else alt.hconcat(*heatmaps)
    # the scatter as wide as the heatmaps' plots and the axes between them
    lo, hi, step = dims
    slider = live.position(LIVE_KEY, start=start, lo=lo, hi=hi, step=step, label=LIVE_LABEL)
    scatter = _scatter(
        tables["points"],
        tables["gaps"]["output_gap"],
        pe=pe,
        width=width if phone else 3 * width + 2 * 120,
        slider=slider,
    )
    chart = alt.vconcat(scatter, row.resolve_scale(x="independent", y="independent")).resolve_scale(
        x="independent", y="independent", color="shared"
    )
    # the font scale as a top-level variable (Altair's add_params would push it into the views, where only
    # selections may stand)
    chart = chart.properties(
        params=[*chart.params, font_scale_param().param],
        description=text.experiment_description(int(tables["labels"]["place"].max()) + 1, pe),
    )
    return _configure(chart)
