"""Builders for "Compare methods" (pure: data -> styled table / alt.Chart, no st.*).

Input is a list of :func:`posenc.attention.method_checks` results (one per method), so every curve
is a number computed with the page's current settings; the table's cells are sentences
(`explorer.text.compare.summary_table`).

- `style_summary`      the summary table with ticks in green and crosses in red
- `score_curves`       long-form data of score against key position, one curve per method
- `score_by_distance`  those curves, one panel per method (independent y scales), rule at L
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts.style import configure
from explorer.text.compare import METHOD_LABELS

METHOD_COLORS = {
    "sinusoidal": "#1D4ED8",
    "learned": "#B45309",
    "rope": "#047857",
    "alibi": "#7C3AED",
    "nope": "#475569",
}

#: CSS of a ✓ / ✗ cell. Text and background are set together (dark green on pale green, dark red
#: on pale red, both ≥ 7:1), so a cell reads the same on the light and the dark theme; a text
#: colour alone, chosen for white, all but vanished on the dark theme's navy.
VERDICT_CSS = {
    "✓": "color: #064E3B; background-color: #DCFCE7",
    "✗": "color: #7F1D1D; background-color: #FEE2E2",
}


def verdict_color(cell) -> str:
    """CSS for one table cell: green for a ✓ verdict, red for a ✗ one, nothing otherwise (the
    theme's own text colour)."""
    text = str(cell)
    return next((css for mark, css in VERDICT_CSS.items() if text.startswith(mark)), "")


def style_summary(table: pd.DataFrame):
    """`explorer.text.compare.summary_table` indexed by method, ✓ cells green and ✗ cells red (a
    pandas Styler). The method names are bold in the theme's text colour (no fixed colour: it would
    be dark on dark)."""
    return table.set_index("Method").style.map(verdict_color).map_index(lambda _: "font-weight: bold")


def score_curves(checks: list[dict]) -> pd.DataFrame:
    """Long form: method (label), key position n, score s(0, n)."""
    frames = [
        pd.DataFrame(
            {
                "method": METHOD_LABELS[c["method"]],
                "distance": np.asarray(c["distances"], dtype=float),
                "score": np.asarray(c["scores"], dtype=float),
            }
        )
        for c in checks
    ]
    return pd.concat(frames, ignore_index=True)


def score_by_distance(
    curves: pd.DataFrame, *, trained_len: int, test_len: int, width: int = 720, panel_height: int = 105
) -> alt.FacetChart:
    """Score of a fixed query at position 0 against a fixed key at position n = 0 … T−1, one panel
    per method with its own y scale; a dashed rule marks the trained length L.

    A faceted chart cannot fill its container (Vega-Lite), so ``width`` is fixed: 720 px per panel
    fits the main column of a 1280-px-wide screen with the sidebar open."""
    present = set(curves["method"].unique())
    order = [lbl for lbl in METHOD_LABELS.values() if lbl in present]
    colors = [METHOD_COLORS[k] for k, lbl in METHOD_LABELS.items() if lbl in order]
    x = (
        alt.X("distance:Q")
        .scale(domain=[0, test_len - 1], nice=False)
        .axis(format="d", tickMinStep=1)
        .title("relative distance n − m (query at m = 0, key at n)")
    )
    line = (
        alt.Chart()
        .mark_line(strokeWidth=2)
        .encode(
            x=x,
            y=alt.Y("score:Q").title("score s").axis(tickCount=3),
            color=alt.Color("method:N").scale(domain=order, range=colors).legend(None),
            tooltip=[
                alt.Tooltip("method:N"),
                alt.Tooltip("distance:Q", title="n − m"),
                alt.Tooltip("score:Q", format=".4f"),
            ],
        )
    )
    first = alt.datum.distance == 0
    rule = (
        alt.Chart()
        .mark_rule(color="#DC2626", strokeDash=[6, 4], strokeWidth=2)
        .encode(x=alt.datum(trained_len))
        .transform_filter(first)
    )
    left_half = trained_len < 0.6 * (test_len - 1)  # label right of the rule, else left of it
    note = (
        alt.Chart()
        .mark_text(
            align="left" if left_half else "right",
            dx=5 if left_half else -5,
            dy=-4,
            baseline="top",
            fontSize=14,
            color="#DC2626",
        )
        .encode(x=alt.datum(trained_len), y=alt.value(2), text=alt.value(f"trained length L = {trained_len}"))
        .transform_filter(first)
    )
    chart = (
        alt.layer(line, rule, note, data=curves)
        .properties(width=width, height=panel_height)
        .facet(
            row=alt.Row("method:N")
            .sort(order)
            .title(None)
            .header(
                labelFontSize=16,
                labelFontWeight="bold",
                labelColor="#0F172A",
                labelAngle=0,
                labelAlign="left",
                labelOrient="top",
                labelAnchor="start",
            )
        )
        .resolve_scale(y="independent")
        .properties(
            title=alt.Title(
                "How the score of one fixed query–key pair changes with their distance",
                subtitle="Learned stops at L (no table rows beyond it); ALiBi falls in a straight line; "
                "NoPE is flat; RoPE and sinusoidal wiggle.",
            )
        )
    )
    return configure(chart, title=20, subtitle=15, view_stroke="#CBD5E1")
