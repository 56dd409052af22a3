"""Chart builders for the home page, "Why position matters" (pure: data -> alt.Chart, no st.*).

- `shuffle_diagram`      the sentence, its shuffle, and a line from each word to its new place
- `attention_heatmap`    one head's attention weights, tokens on both axes (≤ 24×24: rect marks)
- `equivariance_scatter` outputs of the shuffled sentence against the original outputs shuffled
                         the same way: on the diagonal exactly when the head is blind to order
"""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts.style import configure

#: A gap below this is rounding error: the two orders give the same numbers.
EQUIVARIANT_TOL = 1e-9
#: Above this many tokens the heatmap cells are too small for printed values.
MAX_TOKENS_WITH_VALUES = 8
#: Above this many tokens the heatmap axes show positions only.
MAX_TOKENS_WITH_WORDS = 12
#: Length of the heatmaps' colour gradient, in pixels (shorter than the narrowest plot).
LEGEND_LENGTH = 150
#: The printed values are hidden (in the browser, from the plot's width) where a cell is narrower
#: than this many pixels: "0.53" needs ≈ 31 px at 14 px, ≈ 38 px at presentation size (×1.35).
#: Three heatmaps side by side with the sidebar open in presentation mode leave ≈ 25 px per cell;
#: there the numbers would print over each other. Colour and tooltip still give every value.
MIN_CELL_PX_FOR_VALUES = 38

PE_LABELS = {
    "none": "no position signal",
    "sinusoidal": "sinusoidal PE (added)",
    "learned": "learned PE (added)",
    "rope": "RoPE (q, k rotated)",
}


def _configure(chart: alt.LayerChart) -> alt.LayerChart:
    """This page's sizes (a little larger: few, small charts)."""
    return configure(chart, axis_label=15, axis_title=16, title=20, subtitle=15, legend_title=15)


def token_labels(words) -> list[str]:
    """Axis labels that stay unique when a word repeats: "0 the", "1 cat", …"""
    return [f"{i} {w}" for i, w in enumerate(words)]


def shuffle_diagram(words, perm) -> alt.LayerChart:
    """Two rows of words, the original on top and the shuffle below (shuffled[i] = words[perm[i]]),
    with a line from each word's old place to its new one."""
    words = list(words)
    perm = np.asarray(perm, dtype=int)
    n = len(words)
    if perm.shape != (n,) or sorted(perm.tolist()) != list(range(n)):
        raise ValueError(f"perm must be a permutation of 0 … {n - 1}, got {perm.tolist()}")
    top, bottom = 1.0, 0.0
    crowded = n > MAX_TOKENS_WITH_WORDS
    shown = [w if not crowded or len(w) <= 7 else w[:6] + "…" for w in words]
    # crowded: alternate words are raised/lowered a little so neighbours do not overlap
    stagger = [(0.1 if i % 2 else -0.1) if crowded else 0.0 for i in range(n)]
    text_rows = pd.DataFrame(
        {
            "x": list(range(n)) * 2,
            "y": [top + s for s in stagger] + [bottom - s for s in stagger],
            "word": shown + [shown[j] for j in perm],
            "row": ["original"] * n + ["shuffled"] * n,
        }
    )
    gap = 0.32 if crowded else 0.22
    links = pd.DataFrame(
        {
            "x": perm.astype(float),
            "y": top - gap,
            "x2": np.arange(n, dtype=float),
            "y2": bottom + gap,
            "word": [words[j] for j in perm],
        }
    )
    row_names = pd.DataFrame({"x": [-0.7, -0.7], "y": [top, bottom], "row": ["original", "shuffled"]})
    x = alt.X("x:Q").scale(domain=[-2.6, max(n - 0.5, 0.5)]).axis(None)
    y = alt.Y("y:Q").scale(domain=[-0.4, 1.4]).axis(None)
    word_size = 22 if n <= 8 else (18 if not crowded else 14)
    words_layer = (
        alt.Chart(text_rows)
        .mark_text(fontSize=word_size, fontWeight="bold")
        .encode(
            x=x,
            y=y,
            text="word:N",
            color=alt.Color("row:N").scale(domain=["original", "shuffled"], range=["#0F172A", "#B45309"]).legend(None),
        )
    )
    link_layer = (
        alt.Chart(links)
        .mark_rule(color="#94A3B8", strokeWidth=1.5)
        .encode(x=x, y=y, x2="x2:Q", y2="y2:Q", tooltip=["word:N"])
    )
    names_layer = (
        alt.Chart(row_names).mark_text(fontSize=16, align="right", color="#475569").encode(x=x, y=y, text="row:N")
    )
    chart = alt.LayerChart(layer=[link_layer, words_layer, names_layer]).properties(
        height=170 if crowded else 150, width="container"
    )
    return _configure(chart)


def attention_heatmap(weights, words, *, title: str, subtitle: str = "", vmax: float | None = None) -> alt.LayerChart:
    """Attention weights A[i, j] of a sentence (row i = the query word, column j = the key word it
    attends to), one rect per cell, the colour scale fixed to [0, vmax] so several heatmaps can be
    compared. The chart fills its container's width. Up to `MAX_TOKENS_WITH_VALUES` words the
    values are printed in the cells (where a cell is at least `MIN_CELL_PX_FOR_VALUES` wide);
    beyond `MAX_TOKENS_WITH_WORDS` the axes show positions only (the words are in the tooltip)."""
    a = np.asarray(weights, dtype=float)
    labels = token_labels(words)
    n = len(labels)
    if a.shape != (n, n):
        raise ValueError(f"weights must have shape ({n}, {n}), got {a.shape}")
    vmax = float(a.max()) if vmax is None else float(vmax)
    vmax = vmax if vmax > 0 else 1.0
    qi, ki = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    names = np.array(labels, dtype=object)
    df = pd.DataFrame({"query": names[qi.ravel()], "key": names[ki.ravel()], "weight": a.ravel()})
    axis: dict[str, Any]
    if n <= MAX_TOKENS_WITH_WORDS:
        axis = dict(labelOverlap=False)
    else:  # "12 dog" -> "12": positions only, thinned so they never overlap
        axis = dict(labelOverlap="parity", labelExpr="split(datum.label, ' ')[0]")
    base = alt.Chart(df).encode(
        x=alt.X("key:N")
        .sort(labels)
        .title("key word (column)")
        .axis(labelAngle=-45 if n <= MAX_TOKENS_WITH_WORDS else 0, **axis),
        y=alt.Y("query:N").sort(labels).title("query word (row)").axis(**axis),
    )
    # Legend: labels at 0, vmax/2 and vmax only. Vega aligns the two end labels flush with the
    # gradient's ends, so no label hangs past it, and 150 px fits under the plot of a third of a
    # 1280-px screen (a longer gradient ran off the chart and cut "0.5" to "0.").
    cells = base.mark_rect().encode(
        color=alt.Color("weight:Q")
        .scale(scheme="blues", domain=[0, vmax])
        .title("attention weight")
        .legend(
            orient="bottom",
            direction="horizontal",
            gradientLength=LEGEND_LENGTH,
            values=[0.0, vmax / 2, vmax],
            format=".2f",
            labelOverlap=False,
        ),
        tooltip=[
            alt.Tooltip("query:N", title="query"),
            alt.Tooltip("key:N", title="key"),
            alt.Tooltip("weight:Q", format=".4f"),
        ],
    )
    layers = [cells]
    if n <= MAX_TOKENS_WITH_VALUES:
        layers.append(
            base.mark_text(
                fontSize=14 if n <= 6 else 13, opacity=alt.expr(f"width / {n} >= {MIN_CELL_PX_FOR_VALUES} ? 1 : 0")
            ).encode(
                text=alt.Text("weight:Q", format=".2f"),
                color=alt.condition(f"datum.weight > {vmax * 0.55}", alt.value("white"), alt.value("#0F172A")),
            )
        )
    # Streamlit fits the whole chart (titles, labels, legend) into `height`: ~230 px of furniture
    # plus at least 17 px per row so that 13-px labels never collide.
    height = 230 + max(240, 17 * n)
    chart = alt.LayerChart(layer=list(layers)).properties(
        title=alt.Title(title, subtitle=subtitle) if subtitle else title, height=height, width="container"
    )
    return _configure(chart)


def equivariance_scatter(expected, actual, *, pe: str, gap: float) -> alt.LayerChart:
    """Each dot is one output number: x = the original sentence's output, re-ordered like the words
    (P·Y(X)); y = the shuffled sentence's output (Y(PX)). The dashed diagonal is y = x."""
    e = np.asarray(expected, dtype=float).ravel()
    a = np.asarray(actual, dtype=float).ravel()
    if e.shape != a.shape:
        raise ValueError(f"expected and actual must have the same size, got {e.size} and {a.size}")
    label = PE_LABELS.get(pe, pe)
    if gap < EQUIVARIANT_TOL:
        title = f"With {label}: every dot is on the diagonal"
        subtitle = f"Shuffling the words only shuffles the outputs (largest difference {gap:.1e}, i.e. rounding error)"
    else:
        title = f"With {label}: the dots leave the diagonal"
        subtitle = f"The shuffled sentence gets new outputs, not the old ones re-ordered (largest difference {gap:.3g})"
    lo = float(min(e.min(), a.min())) if e.size else -1.0
    hi = float(max(e.max(), a.max())) if e.size else 1.0
    pad = 0.05 * max(hi - lo, 1e-9)
    domain = [lo - pad, hi + pad]
    df = pd.DataFrame({"expected": e, "actual": a, "difference": a - e})
    diag = pd.DataFrame({"expected": domain, "actual": domain})
    x = alt.X("expected:Q").scale(domain=domain).title("original outputs, re-ordered like the words")
    y = alt.Y("actual:Q").scale(domain=domain).title("outputs for the shuffled sentence")
    line = alt.Chart(diag).mark_line(color="#64748B", strokeDash=[6, 4], strokeWidth=2).encode(x=x, y=y)
    dots = (
        alt.Chart(df)
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
    )
    chart = alt.LayerChart(layer=[line, dots]).properties(
        title=alt.Title(title, subtitle=subtitle), height=420, width="container"
    )
    return _configure(chart)
