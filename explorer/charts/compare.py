"""Builders for "Compare methods" (pure: data -> table / alt.Chart, no st.*).

Input everywhere is a list of :func:`posenc.attention.method_checks` results (one per method), so
every table cell and every curve is a number computed with the page's current settings.

- `summary_table`      the side-by-side table; each cell = verdict + the number behind it
- `style_summary`      that table with ticks in green and crosses in red
- `score_curves`       long-form data of score against key position, one curve per method
- `score_by_distance`  those curves, one panel per method (independent y scales), rule at L
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts.style import configure

#: A deviation below RELATIVE_TOL·max(1, |score|) is rounding error.
RELATIVE_TOL = 1e-9

METHOD_LABELS = {
    "sinusoidal": "Sinusoidal",
    "learned": "Learned absolute",
    "rope": "RoPE",
    "alibi": "ALiBi",
    "nope": "NoPE (none)",
}
METHOD_COLORS = {
    "sinusoidal": "#1D4ED8",
    "learned": "#B45309",
    "rope": "#047857",
    "alibi": "#7C3AED",
    "nope": "#475569",
}

COLUMNS = (
    "Method",
    "Relative? (score depends only on m − n)",
    "Sees word order? (shuffle gap)",
    "Runs beyond the trained length L?",
    "Parameters",
    "Injects position where?",
)


def fmt(x: float) -> str:
    """Short number: exact 0 as "0", tiny values in e-notation, others with 3 significant digits."""
    x = float(x)
    if x == 0:
        return "0"
    if abs(x) < 1e-3:
        return f"{x:.0e}"
    return f"{x:.3g}"


def _tol(check: dict, tol: float) -> float:
    return tol * max(1.0, check["score_scale"])


def relative_cell(check: dict, *, tol: float = RELATIVE_TOL) -> str:
    """✓/✗ from the shift test s(m, n) vs s(m+t, n+t), with its max deviation."""
    t = check["shift_offset"]
    if check["method"] == "nope":
        return (
            f"— no position signal: the score is the same at every (m, n) "
            f"(spread {fmt(check['score_spread'])}), so trivially relative"
        )
    dev = check["shift_deviation"]
    mark = "✓" if dev < _tol(check, tol) else "✗"
    cell = f"{mark} max dev {fmt(dev)} (shift by {t})"
    if check.get("bias_toeplitz_deviation") is not None:
        cell += f"; bias −slope·|m−n| constant along diagonals (dev {fmt(check['bias_toeplitz_deviation'])})"
    return cell


def order_cell(check: dict, *, tol: float = RELATIVE_TOL) -> str:
    gap = check["permutation_gap"]
    if gap < tol:
        return f"✗ gap {fmt(gap)}: blind to word order"
    return f"✓ gap {fmt(gap)}"


def extrapolation_cell(check: dict, *, test_len: int, trained_len: int) -> str:
    """✓ when scoring keys at 0 … T−1 worked; ✗ with the reason in plain words when it raised
    (the raw ValueError text is in `check["extrapolation_error"]` and the Python snippet)."""
    if check["extrapolation_error"] is not None:
        if check["method"] == "learned":
            return (
                f"✗ a learned table has no row for positions ≥ L = {trained_len}, "
                f"so position {test_len - 1} cannot be scored"
            )
        return f"✗ could not score positions up to {test_len - 1}"
    peak = float(np.max(np.abs(check["scores"])))
    return f"✓ scores finite up to position {test_len - 1} (max |s| {fmt(peak)})"


def parameters_cell(check: dict, *, trained_len: int, dim: int) -> str:
    p = check["parameters"]
    if p == 0:
        return "0 (fixed slopes)" if check["method"] == "alibi" else "0 (fixed formula)"
    return f"{p:,} = L·d = {trained_len}·{dim}"


def injects_cell(check: dict, *, tol: float = RELATIVE_TOL) -> str:
    """Where position enters, read off which quantities change when a token moves by t."""
    f = check["footprint"]
    t = check["shift_offset"]
    if f["input"] > tol:
        return f"added to the input vector (moving {t} places: Δx {fmt(f['input'])}, so q, k, v all change)"
    if f["query"] > tol or f["key"] > tol:
        return f"rotates q and k (moving {t} places: Δq {fmt(f['query'])}, Δk {fmt(f['key'])}, Δv {fmt(f['value'])})"
    if f["bias"] > tol:
        return f"bias on the attention logits (moving {t} places: bias Δ {fmt(f['bias'])}; Δq = Δk = Δv = 0)"
    return "nowhere (moving a token changes nothing)"


def summary_table(
    checks: list[dict], *, trained_len: int, test_len: int, dim: int, tol: float = RELATIVE_TOL
) -> pd.DataFrame:
    """One row per method, columns `COLUMNS`; every cell states its verdict and its number."""
    rows = []
    for c in checks:
        rows.append(
            [
                METHOD_LABELS[c["method"]],
                relative_cell(c, tol=tol),
                order_cell(c, tol=tol),
                extrapolation_cell(c, test_len=test_len, trained_len=trained_len),
                parameters_cell(c, trained_len=trained_len, dim=dim),
                injects_cell(c, tol=tol),
            ]
        )
    return pd.DataFrame(rows, columns=list(COLUMNS))


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
    """`summary_table` indexed by method, ✓ cells green and ✗ cells red (a pandas Styler). The
    method names are bold in the theme's text colour (no fixed colour: it would be dark on dark)."""
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
