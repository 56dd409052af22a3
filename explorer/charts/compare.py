"""Builders for "Compare methods" (pure: data -> styled table / alt.Chart, no st.*).

Input is a list of :func:`posenc.attention.method_checks` results (one per method), so every curve
is a number computed with the page's current settings; the table's cells are sentences
(`explorer.text.compare.summary_table`).

- `style_summary`      the summary table with ticks in green and crosses in red
- `score_table`        wide data of score against key position, one column per method
- `score_by_distance`  those curves, one panel per method (independent y scales), rule at L, with the ALiBi
                       head, and L and T where they stand on their stops, as the chart's own sliders (issue #36)
"""

from __future__ import annotations

import json
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts import live
from explorer.charts.style import configure, on_canvas, wrapped
from explorer.text import compare as text
from explorer.text.compare import METHOD_LABELS
from explorer.vocabulary import TARGET_STOPS

METHOD_COLORS = {
    "sinusoidal": "#1D4ED8",
    "learned": "#B45309",
    "rope": "#047857",
    "alibi": "#7C3AED",
    "nope": "#475569",
}
#: The rule at L and its label.
WARN = "#DC2626"
#: Text in a panel (light on the dark theme: explorer.charts.style.dark_color).
INK = "#0F172A"
#: The chart's own sliders (issue #36): the trained length L and the test length T, both over `TARGET_STOPS`,
#: and the ALiBi head h (its curve is NoPE's minus slope_h·n, drawn by the browser for every head).
TRAIN_KEY, TARGET_KEY, HEAD_KEY, BASE_KEY = "train_len", "target_len", "alibi_head", "base"
LENGTH_PARAMS = (TRAIN_KEY, TARGET_KEY)
LIVE_PARAMS = (*LENGTH_PARAMS, HEAD_KEY, BASE_KEY)


def base_column(label: str, index: int) -> str:
    """The table's column of method `label` (one that reads the base: posenc.attention.BASE_METHODS) at the base
    slider's option `index`."""
    return f"{label} @{index}"


#: The panel width on a phone (`explorer.mode.on_a_phone`): a panel has a fixed width, and the
#: desktop's 720 px would be scaled down to unreadable text in a 390-px screen.
WIDTH, PHONE_WIDTH = 720, 250
#: The title's sizes, and the room the y axis takes beside a panel (the title may span both).
TITLE_SIZE, SUBTITLE_SIZE, AXIS_PX = 20, 15, 60

#: CSS of a ✓ / ✗ cell. Text and background are set together (dark green on pale green, dark red
#: on pale red, both ≥ 7:1), so a cell reads whatever the page behind the table; a text colour alone,
#: chosen for white, all but vanished on the dark theme's navy.
VERDICT_CSS = {
    "✓": "color: #064E3B; background-color: #DCFCE7",
    "✗": "color: #7F1D1D; background-color: #FEE2E2",
}
#: The same on the dark theme: pale text on deep green and deep red (both ≥ 7:1). The light cells glared there, the
#: brightest things on a projected slide.
VERDICT_CSS_DARK = {
    "✓": "color: #BBF7D0; background-color: #14532D",
    "✗": "color: #FEE2E2; background-color: #7F1D1D",
}


def verdict_color(cell, dark: bool = False) -> str:
    """CSS for one table cell: green for a ✓ verdict, red for a ✗ one, nothing otherwise (the
    theme's own text colour); `dark`: the dark theme's (`VERDICT_CSS_DARK`)."""
    text = str(cell)
    return next((css for mark, css in (VERDICT_CSS_DARK if dark else VERDICT_CSS).items() if text.startswith(mark)), "")


def style_summary(table: pd.DataFrame, dark: bool = False):
    """`explorer.text.compare.summary_table` indexed by method, ✓ cells green and ✗ cells red (a
    pandas Styler; `dark`: the dark theme's colours). The method names are bold in the theme's text colour (no fixed
    colour: it would be dark on dark)."""
    return table.set_index("Method").style.map(verdict_color, dark=dark).map_index(lambda _: "font-weight: bold")


def style_summary_by_method(table: pd.DataFrame, dark: bool = False) -> list:
    """`style_summary` as one small table per method, for a phone: its name as the column's title, its four verdicts one
    under another (five columns of sentences on a phone were squeezed to a word or two a line, the last ones cut)."""
    indexed = table.set_index("Method")
    return [
        indexed.loc[[method]].T.style.map(verdict_color, dark=dark).map_index(lambda _: "font-weight: bold", axis=1)
        for method in indexed.index
    ]


def score_table(checks: list[dict], bases=None) -> pd.DataFrame:
    """Wide: one row per key position n (``distance``), one column per method of `checks` (its label) holding
    posenc's score s(0, n) (`checks`' ``scores``); a method with fewer scores (the learned table stops at L − 1)
    is empty (NaN) past its last one. The chart takes it without ALiBi (`score_by_distance` draws ALiBi). With
    `bases` (the base slider's options), a check that carries a ``base`` fills `base_column` of that option."""
    longest = max(checks, key=lambda c: len(c["distances"]))
    distance = np.asarray(longest["distances"], dtype=float)
    if not np.array_equal(distance, np.arange(distance.size)):
        raise ValueError("the checks' distances must be 0, 1, …, T − 1")
    out = {"distance": distance.astype(np.int32)}
    for c in checks:
        column = np.full(distance.size, np.nan)
        column[: len(c["scores"])] = np.asarray(c["scores"], dtype=float)
        label = METHOD_LABELS[c["method"]]
        out[label if c.get("base") is None else base_column(label, list(bases).index(c["base"]))] = column
    return pd.DataFrame(out)


def base_label(column: str) -> str:
    """The method label of a `base_column`."""
    return column.rsplit(" @", 1)[0]


def drawn_rows(scores, ends) -> np.ndarray:
    """Which rows of one curve (`scores`, one a distance n = 0, 1, …) the chart draws: every row with a score, but
    not one inside a flat run (its score equal to both neighbours': the line through the run's ends covers it), unless
    it is one of `ends` (a last row the sliders can cut the curve at). NoPE's score does not change with n, so its
    curve, and ALiBi's (NoPE's minus slope·n, a straight line), are drawn from the run's ends and the cuts: two
    fifths of the rows a press filters and draws at T = 4,096 (issue #36)."""
    y = np.asarray(scores, dtype=float)
    keep = ~np.isnan(y)
    flat = np.zeros_like(keep)
    flat[1:-1] = (y[1:-1] == y[:-2]) & (y[1:-1] == y[2:])  # NaN equals nothing: a row beside a gap is kept
    cut = np.zeros_like(keep)
    cut[[n for n in ends if 0 <= n < y.size]] = True
    return keep & (~flat | cut)


def drawn_column(label: str) -> str:
    """The table's column of `drawn_rows` of the method `label` (one that does not read b)."""
    return f"drawn {label}"


def lengths_expressions(
    *, train_len: int, test_len: int, l_window: tuple[int, int] | None, t_window: tuple[int, int] | None
) -> tuple[list[Any], str, str]:
    """The chart's own sliders and the Vega expressions for L and T: (params, L, T).

    `l_window` and `t_window` (first, last) of `TARGET_STOPS` give L and T a slider over the stops between
    (starting at `train_len`, `test_len`); None keeps that length fixed. With both sliders, T is the slider's
    stop, or the first stop above L when the slider stands at or below L (the page
    moves T there too when the drag ends: `explorer.compute.compare.target_above`)."""
    l_slider, l_expr, _ = live.stop_slider(
        TRAIN_KEY, TARGET_STOPS, value=train_len, window=l_window, label="trained length L "
    )
    index = live.number(TARGET_KEY)
    if l_window is not None:
        index = f"max({index}, {live.number(TRAIN_KEY)} + 1)"
    t_slider, t_expr, _ = live.stop_slider(
        TARGET_KEY, TARGET_STOPS, value=test_len, window=t_window, label="test length T ", index=index
    )
    params = [*l_slider, *t_slider]
    return params[::-1], l_expr, t_expr  # Vega lists the last bound selection first: L above T


#: The chart's signals for L, T, b's option and ALiBi's slope: each a variable parameter computed once a press from
#: the sliders, which a row's expression then reads (an expression that computes them itself, with the stops as an
#: array literal, ran for every row: a third of a press's time).
L_SIGNAL, T_SIGNAL, B_SIGNAL, SLOPE_SIGNAL = "cmp_l", "cmp_t", "cmp_b", "cmp_slope"
#: The column suffix of b's option (" @3"), once a press: a curve that reads b draws ``datum[label + AT_B]``.
AT_B_SIGNAL = "cmp_at_b"
#: The rule at L and its label draw from one row of their own in every panel: a layer that filtered the chart's rows
#: for n = 0 ran its filter over every row at every press (two fifths of the expressions a press evaluated).
ONE_ROW = alt.InlineData(values=[{"at": "L"}])
#: The curves' stroke width as a style of the chart's config: a mark property is an encoding Vega evaluates for every
#: point at every press (Streamlit evaluates Vega's expressions through an interpreter), a style is drawn as it is.
CURVE_STYLE = "cmp_curve"
#: Each method's panel is a view of this name (`panel_name`), whose y scale is ``<name>_y`` (Vega-Lite's naming).
PANEL_PREFIX = "cmp_"


def panel_name(method: str) -> str:
    """The name of the view that draws `method` (a key of METHOD_LABELS): its Vega group and scales carry it."""
    return PANEL_PREFIX + method


def domains_signal(method: str) -> str:
    """The signal holding `method`'s y domains: [option][index of a length among those the sliders reach] → [least,
    most] (`y_domain`)."""
    return f"cmp_dom_{method}"


#: The ALiBi head slider's index into the heads' slopes and labels (head h is index h − 1).
HEAD_INDEX = f"{live.number(HEAD_KEY)} - 1"


def alibi_expression(slopes) -> tuple[Any, str]:
    """ALiBi's score s(0, n) at the head slider's slope: (the slope's parameter, the row's expression). NoPE's score
    (the same content term, the row's NoPE column) minus slope·n, the same float64 steps as
    posenc.attention.pair_scores' ``content − slope·|m − n|``."""
    table = "[" + ", ".join(repr(float(s)) for s in slopes) + "]"
    slope = alt.param(name=SLOPE_SIGNAL, expr=f"{table}[{HEAD_INDEX}]")
    return slope, f"datum[{METHOD_LABELS['nope']!r}] - {SLOPE_SIGNAL} * datum.distance"


#: How far a panel's y domain reaches past its curve's least and most score (where they are not 0), as a share of the
#: domain: NoPE's flat line was its domain's end, drawn on the x axis's line.
Y_MARGIN = 0.08


def y_domain(values: np.ndarray, reach) -> list[list[float]]:
    """The y domain a panel whose curve is `values` (one a distance n = 0, 1, …) has at each length of `reach` (the
    curve drawn for n < length): from 0 or its least score to 0 or its most (Vega-Lite's ``zero``), a score reaching
    `Y_MARGIN` of that span further, for Vega to make nice. Computed once here, for every length: a press then reads
    it, where a domain from the data made Vega collect a score for every point."""
    out = []
    for n in reach:
        shown = np.asarray(values[: int(n)], dtype=float)
        if shown.size == 0 or np.isnan(shown).any():
            raise ValueError(f"reach: the curve has no score at every n < {n}")
        least, most = float(shown.min()), float(shown.max())
        margin = Y_MARGIN * (max(most, 0.0) - min(least, 0.0))
        out.append([least - margin if least < 0 else 0.0, most + margin if most > 0 else 0.0])
    return out


def score_by_distance(
    table: pd.DataFrame,
    *,
    train_len: int,
    test_len: int,
    slopes,
    head: int,
    l_window: tuple[int, int] | None = None,
    t_window: tuple[int, int] | None = None,
    width: int = WIDTH,
    panel_height: int = 105,
    bases=None,
    base: float | None = None,
) -> alt.VConcatChart:
    """Score of a fixed query at position 0 against a fixed key at position n = 0 … T−1, one panel
    per method (a view of its own, `panel_name`) with its own y scale; a dashed rule marks the trained length L.

    `table` is `score_table`'s without ALiBi, up to the largest T and L the sliders reach (`lengths_expressions`):
    the browser draws ALiBi's curve at the head slider's slope (`slopes`, one per head, starting at head
    `head`; `alibi_expression`), keeps n < T (the learned table's n < L), moves the rule to L and writes the head's
    slope under ALiBi's panel name, with no server run while a slider is dragged (issue #36). With `bases` (the base
    b's options) the table holds the methods that read b at every option (`base_column`) and b is a slider too,
    starting at `base`: their panels read the column of b's option. A curve's flat runs are drawn from their ends
    (`drawn_rows`: NoPE's line, and ALiBi's straight one).

    Why a view per method, each point's score read in its y channel, and each y domain computed here (`y_domain`):
    Streamlit evaluates every Vega expression through an interpreter, at a cost per evaluation. A press on b now
    redraws the two panels that read b, one on h ALiBi's, one on L the learned table's; a point costs three
    evaluations (x, y, colour), where a score computed into the row and a domain from the data cost five, in every
    panel, at every press.

    A panel cannot fill its container, so ``width`` is fixed: 720 px per panel fits the main column of a 1280-px-wide
    screen with the sidebar open (a phone's page passes `PHONE_WIDTH`)."""
    params, l_expr, t_expr = lengths_expressions(
        train_len=train_len, test_len=test_len, l_window=l_window, t_window=t_window
    )
    alibi, nope = METHOD_LABELS["alibi"], METHOD_LABELS["nope"]
    if alibi in table.columns or nope not in table.columns:
        raise ValueError(f"the table must hold {nope!r} and not {alibi!r} (the browser computes it), got {list(table)}")
    slopes = [float(x) for x in slopes]
    head_param = live.position(HEAD_KEY, start=head, lo=1, hi=len(slopes), step=1, label="ALiBi head h ")
    params = [head_param, *params]  # Vega lists the last bound selection first: h under L and T
    at_base = [c for c in table.columns if " @" in c]  # the columns of the methods that read b, one per option
    if bases is not None:
        if base is None:
            raise ValueError("base: the base slider needs its start, got None")
        params.insert(0, live.option_position(BASE_KEY, bases, start=base, label="base b "))  # listed last
    per_base = list(dict.fromkeys(base_label(c) for c in at_base))
    # the lengths a curve can be cut at: every stop up to the table's end (more than the sliders' windows reach), and
    # the lengths given. The y domains are looked up by them, and each one's last row (n = length − 1) is drawn
    reach = sorted({n for n in (*TARGET_STOPS, train_len, test_len) if n <= len(table)})
    ends = {0, len(table) - 1, *(n - 1 for n in reach)}
    table = table.assign(
        **{
            drawn_column(lbl): drawn_rows(table[lbl], ends)
            for lbl in table.columns
            if lbl != "distance" and " @" not in lbl
        },
        **{drawn_column(alibi): drawn_rows(table[nope], ends)},  # NoPE's minus slope·n: straight where NoPE is flat
    )
    methods = [k for k, lbl in METHOD_LABELS.items() if lbl in table.columns or lbl in per_base or lbl == alibi]
    distance = table["distance"].to_numpy(dtype=float)
    n_options = len(bases) if bases is not None else 1
    slope, alibi_score = alibi_expression(slopes)
    slope_labels = f"{json.dumps(text.head_slope_labels(slopes))}[{HEAD_INDEX}]"
    at_b = live.number(BASE_KEY) if bases is not None else "0"  # a base column's option: the slider's
    signals = [
        alt.param(name=L_SIGNAL, expr=l_expr),
        alt.param(name=T_SIGNAL, expr=t_expr),
        alt.param(name=B_SIGNAL, expr=at_b),
        alt.param(name=AT_B_SIGNAL, expr=f"' @' + {B_SIGNAL}"),
        slope,
    ]
    x_at_l = alt.XDatum(alt.ExprRef(expr=L_SIGNAL), type="quantitative")
    left_half = f"{L_SIGNAL} < 0.6 * ({T_SIGNAL} - 1)"  # the label right of the rule, else left of it
    # the rule and its label stand at L through expressions (the signals'), not a calculated field: the same two
    # layers in every panel, each drawn on its panel's x scale
    rule = alt.Chart(ONE_ROW).mark_rule(color=WARN, strokeDash=[6, 4], strokeWidth=2).encode(x=x_at_l)
    note = (
        alt.Chart(ONE_ROW)
        .mark_text(
            align=alt.ExprRef(expr=f"{left_half} ? 'left' : 'right'"),
            dx=alt.ExprRef(expr=f"{left_half} ? 5 : -5"),
            dy=-4,
            baseline="top",
            fontSize=14,
            color=WARN,
            text=alt.ExprRef(expr=text.trained_label_expr(L_SIGNAL)),
        )
        .encode(x=x_at_l, y=alt.value(2))
    )
    ys = {}  # method: (its y expression, its domain's expression, the length it is drawn to)
    for method in methods:
        label = METHOD_LABELS[method]
        shown = L_SIGNAL if method == "learned" else T_SIGNAL  # the learned table stops at L
        if label in per_base:  # the column of b's option
            y_expr, option = f"datum[{label!r} + {AT_B_SIGNAL}]", B_SIGNAL
            curves = [table[base_column(label, o)].to_numpy(dtype=float) for o in range(n_options)]
        elif method == "alibi":  # NoPE's minus the head's slope·n, the browser's float64 steps (alibi_expression)
            y_expr, option = alibi_score, HEAD_INDEX
            curves = [table[nope].to_numpy(dtype=float) - s * distance for s in slopes]
        else:
            y_expr, option = f"datum[{label!r}]", "0"
            curves = [table[label].to_numpy(dtype=float)]
        kept = [n for n in reach if n <= np.count_nonzero(~np.isnan(curves[0]))]  # the learned table's L
        domains = [y_domain(c, kept) for c in curves]
        signals.append(alt.param(name=domains_signal(method), expr=json.dumps(domains)))
        ys[method] = y_expr, f"{domains_signal(method)}[{option}][indexof({json.dumps(kept)}, {shown})]", shown
    panels = []
    for i, method in enumerate(methods):
        label = METHOD_LABELS[method]
        y_expr, domain, shown = ys[method]
        last = i == len(methods) - 1
        x = (
            alt.XDatum(alt.ExprRef(expr="datum.distance"), type="quantitative")
            .scale(domain=alt.ExprRef(expr=f"[0, {T_SIGNAL} - 1]"), nice=False)
            .axis(
                format="d",
                tickMinStep=1,
                # the distances under the last panel only, as the panels share them; a grid in every panel (a datum
                # channel's axis has none by default)
                grid=True,
                labels=last,
                ticks=last,
                title="relative distance n − m (query at m = 0, key at n)" if last else None,
            )
        )
        y = (
            alt.YDatum(alt.ExprRef(expr=y_expr), type="quantitative")
            .scale(
                domain=alt.ExprRef(expr=domain),
                nice=True,
            )
            .axis(tickCount=3, grid=True, title="score s")
        )
        line = alt.Chart()
        if label not in per_base:  # a flat run's inside is not drawn (`drawn_rows`): once, before the sliders' filter
            line = line.transform_filter(f"datum[{drawn_column(label)!r}]")
        line = (
            line
            # no description or tooltip for each of up to 4,096 points: the canvas is scaled down to a column
            # narrower than the chart (explorer.assets), where Vega would pick the wrong point under the pointer
            .mark_line(style=CURVE_STYLE, aria=False, color=METHOD_COLORS[method])
            .encode(x=x, y=y)
            .transform_filter(f"datum.distance < {shown}")
        )
        if i == 0:
            line = line.add_params(*params, *signals)  # the sliders in one view; the signals beside them
        # ALiBi's head and slope on a second line of its panel's name (a Vega expression: an array is lines)
        name: Any = alt.ExprRef(expr=f"[{alibi!r}, {slope_labels}]") if method == "alibi" else label
        panels.append(
            alt.layer(line, rule, note, name=panel_name(method)).properties(
                width=width,
                height=panel_height,
                title=alt.Title(name, fontSize=16, fontWeight="bold", color=INK, anchor="start", frame="group"),
            )
        )
    chart = alt.vconcat(*panels, data=table, spacing=14).properties(
        # wrapped to the chart's width (a title cannot wrap itself: explorer.charts.style)
        title=alt.Title(
            wrapped([text.CHART_TITLE], width + AXIS_PX, TITLE_SIZE),
            subtitle=wrapped([text.CHART_SUBTITLE], width + AXIS_PX, SUBTITLE_SIZE),
        )
    )
    # on a canvas: as SVG, each press that shortens T rebuilt every panel's path string many times over (5-6 s
    # from T = 4,096 down to 3,072 in Chromium); a canvas draws the same press in under 100 ms
    chart = chart.properties(usermeta=on_canvas())
    return configure(
        chart, title=TITLE_SIZE, subtitle=SUBTITLE_SIZE, view_stroke="#CBD5E1", styles={CURVE_STYLE: {"strokeWidth": 2}}
    )
