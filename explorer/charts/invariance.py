"""Chart builders for the relative-position-invariance page (pure: data -> alt.Chart, no st.*).

- `score_heatmap`      a score matrix s(m, n) over query × key positions, as one image
- `shift_matrix_heatmap` the sinusoidal shift matrix R_k, as one image
- `deviation_chart`    the shift test: max |s(m, n) − s(m+t, n+t)| per method on a log axis, with
                       the pass mark drawn as a rule
- `curve_chart`        one line y(x) with optional log axes and a marked x (used for the
                       ‖PE(p+k) − R_k·PE(p)‖ residual and for RoFormer's long-term decay bound)
- `decay_summary`      what the decay bound on screen does (falls, ripples, or is flat), as the
                       chart's title and the page's sentence, with its numbers
"""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts.style import configure
from explorer.imagechart import fit_heatmap_legend, image_heatmap

#: Colours of the pass / fail verdicts.
VERDICT_COLORS = {"pass": "#15803D", "fail": "#B91C1C"}


def score_heatmap(
    scores: np.ndarray,
    positions: np.ndarray,
    *,
    title: str,
    subtitle: str | None = None,
    width: int = 330,
    height: int = 420,
) -> alt.LayerChart:
    """s(m, n) with query position m down the rows and key position n along the columns; the
    legend sits below so that three of these fit side by side."""
    scores = np.asarray(scores, dtype=np.float64)
    positions = np.asarray(positions, dtype=np.float64)
    if scores.ndim != 2 or scores.shape != (positions.size, positions.size):
        raise ValueError(
            f"scores must be square with one row per position ({positions.size}), got shape {scores.shape}"
        )
    chart = image_heatmap(
        scores,
        x_values=positions,
        y_values=positions,
        x_title="key position n",
        y_title="query position m",
        value_title="score",
        scheme="redblue",
        width=width,
        height=height,
        title=title,
    )
    note = chart.usermeta["imagechart"]["note"]  # set when the image had to be reduced
    if subtitle or note:
        full = " · ".join(part for part in (subtitle, note) if part)
        chart = chart.properties(title=alt.TitleParams(title, subtitle=full, anchor="start"))
    return configure(fit_heatmap_legend(chart, 160, orient="bottom"))


def shift_matrix_heatmap(
    r: np.ndarray, *, k: float, layout: str, width: int = 400, height: int = 400
) -> alt.LayerChart:
    """The (d, d) matrix R_k with PE(p + k) = R_k·PE(p) (`posenc.shift_matrix`)."""
    r = np.asarray(r, dtype=np.float64)
    if r.ndim != 2 or r.shape[0] != r.shape[1]:
        raise ValueError(f"r must be a square matrix, got shape {r.shape}")
    return configure(
        fit_heatmap_legend(
            image_heatmap(
                r,
                x_title="input dimension of PE(p)",
                y_title="output dimension",
                value_title="value",
                scheme="redblue",
                domain=(-1.0, 1.0),
                width=width,
                height=height,
                title=f"R_k for k = {k:g} ({r.shape[0]} × {r.shape[0]}, {layout} layout)",
            ),
            height - 110,
        )
    )


def deviation_chart(
    results: pd.DataFrame, *, tolerance: float, title: str, subtitle: str | None = None, width: int = 620
) -> alt.LayerChart:
    """Horizontal bars of the shift-test deviation per method on a log axis, the pass mark as a rule.

    results  columns method, deviation (may be 0 or NaN: NaN rows are listed with their `note`),
             and optionally note (text shown instead of a number).
    """
    need = {"method", "deviation"}
    if not need <= set(results.columns):
        raise ValueError(f"results must have columns {sorted(need)}, got {list(results.columns)}")
    if not (math.isfinite(tolerance) and tolerance > 0):
        raise ValueError(f"tolerance must be a finite number > 0, got {tolerance}")
    df = results.copy()
    if "note" not in df:
        df["note"] = ""
    finite = df["deviation"].notna()
    values = df.loc[finite, "deviation"].astype(float)
    positive = values[values > 0]
    floor = 10.0 ** math.floor(math.log10(min([tolerance, *positive.tolist()]) / 100))
    # Right of the pass mark, at least 4 decades and 35 % of the axis: room for the labels there.
    left = math.log10(tolerance) - math.log10(floor)
    room = max(4.0, 0.55 * left)
    top = 10.0 ** math.ceil(max([math.log10(tolerance) + room, *np.log10(positive * 100).tolist()]))
    df["shown"] = df["deviation"].clip(lower=floor).where(finite, np.nan)
    df["floor"] = floor
    df["verdict"] = np.where(~finite, "n/a", np.where(df["deviation"] <= tolerance, "pass", "fail"))
    df["text"] = [
        note if not ok else (f"{dev:.2e} · {verdict}" if dev > 0 else f"0 (exact) · {verdict}")
        for ok, dev, verdict, note in zip(finite, df["deviation"], df["verdict"], df["note"])
    ]
    # Every label starts right of the pass mark, never across its rule: a failing bar's at the
    # bar's end (already right of it), a passing bar's and a note's just after the rule.
    df["text_x"] = np.maximum(df["shown"].fillna(floor), tolerance)
    order = list(df["method"])
    verdict_colour = (
        alt.Color("verdict:N")
        .scale(domain=[*VERDICT_COLORS, "n/a"], range=[*VERDICT_COLORS.values(), "#475569"])
        .legend(None)
    )
    x = (
        alt.X("floor:Q")
        .scale(type="log", domain=[floor, top], nice=False)
        .title("max |s(m, n) − s(m+t, n+t)|  (log scale)")
        .axis(format=".0e", tickCount=8)
    )
    y = alt.Y("method:N").sort(order).title(None).axis(labelFontSize=15, labelLimit=320)
    bars = (
        alt.Chart(df[finite])
        .mark_bar(height=26)
        .encode(
            x=x,
            x2="shown:Q",
            y=y,
            color=verdict_colour,
            tooltip=[alt.Tooltip("method:N"), alt.Tooltip("deviation:Q", format=".3e"), alt.Tooltip("verdict:N")],
        )
    )
    labels = (
        alt.Chart(df)
        .mark_text(align="left", dx=6, fontSize=14, fontWeight="bold")
        .encode(x=alt.X("text_x:Q").scale(type="log", domain=[floor, top]), y=y, text="text:N", color=verdict_colour)
    )
    rule_df = pd.DataFrame({"tol": [tolerance], "label": [f"pass mark {tolerance:.1e}"]})
    rule = (
        alt.Chart(rule_df)
        .mark_rule(strokeDash=[6, 4], strokeWidth=2, color="#0F172A")
        .encode(x=alt.X("tol:Q").scale(type="log", domain=[floor, top]))
    )
    rule_label = (
        alt.Chart(rule_df)
        .mark_text(align="left", dx=4, dy=-6, fontSize=13, color="#0F172A", baseline="bottom")
        .encode(x=alt.X("tol:Q").scale(type="log", domain=[floor, top]), y=alt.value(0), text="label:N")
    )
    chart = alt.LayerChart(layer=[bars, rule, labels, rule_label]).properties(
        # Streamlit fits title and axes into `height` too: leave them room beyond ~60 px per bar.
        width=width,
        height=60 * len(df) + 130,
        title=alt.TitleParams(title, subtitle=subtitle or ""),
    )
    return configure(chart)


def curve_chart(
    df: pd.DataFrame,
    *,
    x: str,
    y: str,
    x_title: str,
    y_title: str,
    title: str,
    subtitle: str | None = None,
    log_x: bool = False,
    log_y: bool = False,
    y_format: str | None = None,
    mark_x: float | None = None,
    mark_label: str | None = None,
    color: str = "#1D4ED8",
    width: int = 460,
    height: int = 340,
) -> alt.LayerChart:
    """One line y(x) (with points when there are at most 64), optionally on log axes, with an
    optional vertical rule at `mark_x` labelled `mark_label`.

    Keep `y_title` shorter than the plot is tall: a longer axis title overhangs the plot and,
    under Streamlit's "fit" autosize, pushes the chart title out of view."""
    for col in (x, y):
        if col not in df.columns:
            raise ValueError(f"df has no column {col!r}; columns: {list(df.columns)}")
    if log_x and (df[x] <= 0).any():
        raise ValueError(f"a log x axis needs {x} > 0, got min {df[x].min()}")
    x_scale = alt.Scale(type="log", nice=False) if log_x else alt.Scale(zero=False, nice=False)
    y_scale = alt.Scale(type="log") if log_y else alt.Scale()
    y_axis = alt.Axis(format=y_format) if y_format else alt.Axis()
    x_enc = alt.X(f"{x}:Q").scale(x_scale).title(x_title)
    y_enc = alt.Y(f"{y}:Q").scale(y_scale).title(y_title).axis(y_axis)
    tooltip = [alt.Tooltip(f"{x}:Q", title=x_title, format="~g"), alt.Tooltip(f"{y}:Q", title=y_title, format=".3e")]
    line = (
        alt.Chart(df)
        .mark_line(color=color, strokeWidth=2.5, point=len(df) <= 64)
        .encode(x=x_enc, y=y_enc, tooltip=tooltip)
    )
    layers = [line]
    if mark_x is not None:
        mark = pd.DataFrame({"mx": [mark_x], "label": [mark_label or ""]})
        layers += [
            alt.Chart(mark)
            .mark_rule(strokeDash=[6, 4], color="#B91C1C", strokeWidth=2)
            .encode(x=alt.X("mx:Q").scale(x_scale)),
            alt.Chart(mark)
            .mark_text(align="left", dx=5, baseline="top", fontSize=13, color="#B91C1C")
            .encode(x=alt.X("mx:Q").scale(x_scale), y=alt.value(4), text="label:N"),
        ]
    chart = alt.LayerChart(layer=list(layers)).properties(
        width=width, height=height, title=alt.TitleParams(title, subtitle=subtitle or "")
    )
    return configure(chart)


#: The decay bound "shrinks" when its largest value over the last decade of distances is at most
#: this fraction of its value at the first distance; otherwise it only ripples.
DECAY_FALL = 0.9


def decay_summary(distance, bound) -> tuple[str, str]:
    """(chart title, sentence) saying what the decay bound over `distance` does, with its numbers:
    flat (the same value everywhere: one pair), shrinking (the last decade of distances stays at
    or below DECAY_FALL of the first value) or rippling without a clear fall."""
    r = np.asarray(distance, dtype=float)
    y = np.asarray(bound, dtype=float)
    if r.ndim != 1 or r.shape != y.shape or r.size < 2:
        raise ValueError(f"distance and bound must be 1-D of one length ≥ 2, got shapes {r.shape} and {y.shape}")
    first, r0 = float(y[0]), float(r[0])
    tail = r >= r.max() / 10
    far, far_r = float(y[tail].max()), float(r[tail][0])
    if float(y.max() - y.min()) <= 1e-9 * max(abs(first), 1.0):
        return (
            f"RoPE's score bound is flat: {first:.3g} at every distance",
            f"it is {first:.3g} at every distance and does not fall (a single pair: |e^(i·r·θ_0)| = 1)",
        )
    if far <= DECAY_FALL * first:
        return (
            f"RoPE's score bound shrinks with distance: {first:.3g} at r = {r0:g}, "
            f"at most {far:.3g} beyond r = {far_r:,.0f}",
            f"it falls from {first:.3g} at distance {r0:g} to at most {far:.3g} beyond distance {far_r:,.0f}, "
            "so far-apart tokens get a smaller possible score",
        )
    return (
        f"RoPE's score bound ripples without a clear fall: still {far:.3g} beyond r = {far_r:,.0f} "
        f"({first:.3g} at r = {r0:g})",
        f"it ripples without a clear fall: beyond distance {far_r:,.0f} it still reaches {far:.3g} "
        f"({first:.3g} at distance {r0:g})",
    )


# ------------------------------------------------------------------------- the page's sentences
def join_names(names: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def verdict_badge(dev: float | None, tol: float) -> str:
    """Markdown badge for a shift deviation against the pass mark (author-written text only)."""
    if dev is None:
        return ":gray-badge[cannot run: no row]"
    return ":green-badge[PASS]" if dev <= tol else ":red-badge[FAIL]"


def survivors_title(nums: dict, tol: float) -> str:
    """The deviation chart's headline, from the verdicts on screen (`nums`: rope_dev, sinusoidal_dev,
    learned_dev; None for a method that could not run)."""
    names = {"rope_dev": "RoPE's", "sinusoidal_dev": "the added sinusoid's", "learned_dev": "the learned table's"}
    passed = [name for key, name in names.items() if nums[key] is not None and nums[key] <= tol]
    if not passed:
        return "No method's scores survive the shift"
    if passed == ["RoPE's"]:
        return "Only RoPE's scores survive the shift"
    words = join_names(passed)
    return f"{words[0].upper()}{words[1:]} scores survive the shift"


def diagonal_words(spread: float | None, tol: float, n_pos: int) -> str:
    """A heatmap's subtitle, from the largest change along its diagonals."""
    if n_pos == 1:
        return "one cell: no diagonal to compare"
    if spread is None:
        return ""
    return "constant diagonals" if spread <= tol else f"diagonals drift (by up to {spread:.2g})"


def diagonal_sentence(spreads: dict, tol: float, n_pos: int) -> str:
    """The first notice: which heatmaps have one colour per diagonal, from the spreads on screen
    (`spreads`: heatmap name -> largest change along a diagonal, None when it could not be drawn)."""
    if n_pos == 1:
        return "With N = 1 the heatmaps (tab **Scores**) have one cell each: there is no diagonal to compare."
    shown = {name: spread for name, spread in spreads.items() if spread is not None}
    const = [name for name, spread in shown.items() if spread <= tol]
    drift = [name for name, spread in shown.items() if spread > tol]
    parts = []
    if const:
        parts.append(f"{join_names(const)}: every diagonal (fixed n − m) has one colour, to within the pass mark")
    if drift:
        worst = max(shown[name] for name in drift)
        parts.append(f"{join_names(drift)}: the colour drifts along the diagonals (by up to {worst:.2g})")
    return "In the heatmaps (tab **Scores**), " + "; ".join(parts) + "."
