"""Model configs page: the wavelengths before and after an NTK-alpha / new-base / linear change.

Pure: data -> alt.Chart (no Streamlit).
"""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts import live
from explorer.charts.style import chart_config
from explorer.text.configs import layers_title
from explorer.vocabulary import ALPHA_STOPS, BASE_OPTIONS, HEAD_DIM

#: Line colours: as trained (slate), NTK-aware (blue), linear (orange), all distinct in print too.
COLORS = {"as trained": "#475569", "NTK-aware (new base)": "#1D4ED8", "linear (positions ÷ s)": "#C2410C"}

#: The legend: one row where it fits, else one entry per line (a phone), instead of cutting the row off.
_CONFIG = chart_config(legend={"orient": "top", "labelLimit": 400, "columns": {"expr": "width < 520 ? 1 : 0"}})


def _wavelength_channels() -> dict[str, Any]:
    """Both wavelength charts' y (log, no two labels touch), colour (one per scheme) and tooltip."""
    return {
        "y": alt.Y("wavelength:Q")
        .title("wavelength λ_j (tokens, log scale)")
        .scale(type="log")
        .axis(labelOverlap="greedy", labelSeparation=6),
        "color": alt.Color("scheme:N").title(None).scale(domain=list(COLORS), range=list(COLORS.values())),
        "tooltip": [
            alt.Tooltip("j:Q", title="pair j"),
            alt.Tooltip("scheme:N"),
            alt.Tooltip("wavelength:Q", title="λ_j (tokens)", format=",.2f"),
        ],
    }


#: The wavelength chart's height. Streamlit fits title, legend and axes into it too: on a desktop they take
#: ≈ 170 px of 460. A phone wraps the title and stacks the legend one entry a row, so it gets more height,
#: keeping the plot about as tall as a desktop's (at 460 it was left ≈ 90 px for several decades).
HEIGHT = 460
PHONE_HEIGHT = 620


def wavelength_frame(theta: np.ndarray, theta_ntk: np.ndarray, factor: float) -> pd.DataFrame:
    """Long form: pair j, scheme, wavelength λ_j = 2π/θ_j (tokens) for the three schemes."""
    theta = np.asarray(theta, dtype=np.float64)
    theta_ntk = np.asarray(theta_ntk, dtype=np.float64)
    if theta.shape != theta_ntk.shape or theta.ndim != 1:
        raise ValueError(f"theta and theta_ntk must be 1-D of the same length, got {theta.shape} and {theta_ntk.shape}")
    j = np.arange(theta.size)
    parts = [
        pd.DataFrame({"j": j, "scheme": name, "wavelength": 2 * np.pi / th})
        for name, th in zip(COLORS, (theta, theta_ntk, theta / float(factor)))
    ]
    return pd.concat(parts, ignore_index=True)


def wavelength_compare_chart(
    frame: pd.DataFrame, *, title: str, subtitle: str, width: int = 640, height: int = HEIGHT
) -> alt.Chart:
    """λ_j per pair, log axis, one line per scheme (the words: explorer.text.configs.wavelength_words).

    Streamlit fits the whole chart into `height` (:data:`HEIGHT`: the plot ≈ 250 px on a desktop), so the
    three lines, some decades apart, stay distinguishable."""
    last = int(frame["j"].max()) if len(frame) else 1
    chart = (
        alt.Chart(frame)
        .mark_line(point=alt.OverlayMarkDef(size=30), strokeWidth=2.5)
        .encode(
            alt.X("j:Q")
            .title("pair j (0 = fastest)")
            .axis(tickMinStep=1)
            # ends at the last pair: the domain comes from the rows (0 … last), so another d changes
            # only the rows and the browser redraws the chart in place; one pair alone gets 0 … 1
            .scale(alt.Scale(nice=False, zero=True) if last >= 1 else alt.Scale(domain=[0, 1], nice=False)),
            **_wavelength_channels(),
        )
        .properties(
            width=width,
            height=height,
            title=alt.Title(title, subtitle=subtitle),
        )
    )
    chart.config = _CONFIG
    return chart


#: The converter chart's own sliders (issue #36): the registry parameters ntk_alpha (over its stops), the head
#: dimension d (from 4: NTK's exponent d/(d − 2)) and the trained base b (over its options).
ALPHA_KEY, HEAD_DIM_KEY, BASE_KEY = "ntk_alpha", "head_dim", "base"
LIVE_PARAMS = (ALPHA_KEY, HEAD_DIM_KEY, BASE_KEY)
#: The page's range of d here (the converter needs d > 2), and what d's slider spans
LIVE_LIMITS = {HEAD_DIM_KEY: {"min": 4}}


def wavelength_live_chart(
    theta,
    *,
    head_dim: int,
    base: float,
    starts: dict[str, Any],
    title: str,
    subtitle: str,
    width: int = 640,
    height: int = HEIGHT,
) -> alt.LayerChart:
    """`wavelength_compare_chart` with α, d and b as the chart's own sliders, starting at `starts` (α over every stop
    of `ALPHA_STOPS`, which the page narrows in the browser to those that make a base at its d and b,
    explorer.compute.configs.alpha_window; d over 4 … 256, b over its options). Nothing in the spec depends on the
    page's α, d or b: a release sends new rows only. The rows are θ_j at the page's d and b (posenc's), one per pair
    the d slider reaches, and the browser computes the three schemes as posenc and the frame
    do: θ_j (posenc's at the page's d and b, else b^(−2j/d): `explorer.charts.live.pair_theta`), λ_j = 2π/θ_j; NTK
    b′ = b·α^(d/(d−2)), θ′_j = b′^(−2j/d), λ′_j = 2π/θ′_j (JavaScript's pow, within a few ulps of C's; no line where b′
    is no base, b′ ≤ 1: a d or b dragged below the page's, an α below the page's window in a saved file); linear
    2π/(θ_j/α). `title` and `subtitle` must hold for every α, d and b."""
    theta = np.asarray(theta, dtype=np.float64)
    if theta.ndim != 1 or theta.size != head_dim // 2 or head_dim <= 2:
        raise ValueError(
            f"theta must hold the {head_dim // 2} pairs of head_dim {head_dim} > 2, got shape {theta.shape}"
        )
    d_lo, d_hi, d_step = int(LIVE_LIMITS[HEAD_DIM_KEY]["min"]), int(HEAD_DIM.max or 256), int(HEAD_DIM.step or 2)
    alpha, d, b = live.option(ALPHA_KEY, ALPHA_STOPS), live.number(HEAD_DIM_KEY), live.option(BASE_KEY, BASE_OPTIONS)
    sliders = [  # listed in the reverse order under the chart: α, d, b
        live.option_position(BASE_KEY, BASE_OPTIONS, start=float(starts[BASE_KEY]), label="base b "),
        live.position(
            HEAD_DIM_KEY, start=int(starts[HEAD_DIM_KEY]), lo=d_lo, hi=d_hi, step=d_step, label="head dimension d "
        ),
        live.option_position(ALPHA_KEY, ALPHA_STOPS, start=float(starts[ALPHA_KEY]), label="α (or s) "),
    ]
    trained, ntk, linear = COLORS
    new_base = f"({b} * pow({alpha}, {d} / ({d} - 2)))"  # posenc.ntk_alpha_to_base
    n_rows = d_hi // 2
    rows = pd.DataFrame(
        {
            "j": np.arange(n_rows),
            "theta_page": np.pad(theta, (0, n_rows - theta.size), constant_values=np.nan),
            "page_d": float(head_dim),  # the page's d and b travel in the rows: another d or b keeps the spec
            "page_b": float(base),
        }
    )
    at_page = f"{d} === datum.page_d && {b} === datum.page_b"
    chart = (
        alt.Chart(
            rows,
            transform=[
                alt.FilterTransform(filter=f"datum.j < {d} / 2"),
                *live.pair_theta(dim=d, base=b, at_page=at_page, pair="j"),
            ],
        )
        .transform_calculate(
            **{
                trained: "2 * PI / datum.theta",
                ntk: f"{new_base} > 1 ? 2 * PI / pow({new_base}, -2.0 * datum.j / {d}) : null",
                linear: f"2 * PI / (datum.theta / {alpha})",
            }
        )
        .transform_fold(list(COLORS), as_=["scheme", "wavelength"])
        .transform_filter("isValid(datum.wavelength)")
        .mark_line(point=alt.OverlayMarkDef(size=30), strokeWidth=2.5)
        .encode(
            alt.X("j:Q")
            .title("pair j (0 = fastest)")
            .axis(tickMinStep=1)
            .scale(domainMin=0, domainMax=alt.ExprRef(f"max({d} / 2 - 1, 1)"), nice=False),
            **_wavelength_channels(),
        )
        .add_params(*sliders)
        .properties(width=width, height=height, title=alt.Title(title, subtitle=subtitle), name="conv_live_lines")
    )
    chart.config = _CONFIG
    return chart


# --------------------------------------------------------------------------------------------------
# per-layer strip (issue #14): what each decoder layer does with positions
# --------------------------------------------------------------------------------------------------
NOPE = "NoPE (no rotation)"


def _rope_label(block: dict | None) -> str:
    if block is None:
        return NOPE
    rope_type = block.get("rope_type", "default")
    theta = block.get("rope_theta")
    if isinstance(theta, (int, float)):
        base = f"base {theta:,.0f}" if float(theta).is_integer() and theta < 1e15 else f"base {theta:.6g}"
    else:
        base = "base ?"
    factor = block.get("factor")
    scaled = f" ×{factor:g}" if isinstance(factor, (int, float)) and rope_type != "default" else ""
    return f"RoPE {rope_type}{scaled}, {base}" if rope_type != "default" else f"RoPE, {base}"


def layer_frame(parsed) -> pd.DataFrame:
    """One row per decoder layer of a parsed config (posenc.config.ParsedConfig): its RoPE (or NoPE)
    label and its attention span."""
    rows = []
    for i, plan in enumerate(parsed.layer_plans):
        block = parsed.layer_block(i)
        span = "full attention" if plan.attention == "full" else f"{plan.attention} ({plan.window:,} tokens)"
        rows.append(
            {
                "layer": plan.index,
                "rope": _rope_label(block),
                "attention": span,
                "temperature": "q × attention temperature" if plan.temperature else "",
            }
        )
    return pd.DataFrame(rows, columns=["layer", "rope", "attention", "temperature"])


def layer_strip_chart(frame: pd.DataFrame) -> alt.Chart:
    """Layer index → two cells: the layer's rope (NoPE in grey) and how far back it attends."""
    n = int(frame["layer"].max()) + 1 if len(frame) else 1
    ropes = list(dict.fromkeys(frame["rope"]))
    spans = list(dict.fromkeys(frame["attention"]))
    palette = ["#1D4ED8", "#C2410C", "#047857", "#7C3AED", "#B45309", "#0E7490"]
    rope_colors = [("#9CA3AF" if r == NOPE else palette[i % len(palette)]) for i, r in enumerate(ropes)]
    span_shades = ["#E5E7EB", "#FDE68A", "#BFDBFE", "#FBCFE8"]
    span_colors = [span_shades[i % len(span_shades)] for i in range(len(spans))]
    long = pd.concat(
        [
            frame.assign(strip="RoPE", value=frame["rope"]),
            frame.assign(strip="attention", value=frame["attention"]),
        ],
        ignore_index=True,
    )
    domain = ropes + [s for s in spans if s not in ropes]
    colors = rope_colors + [c for s, c in zip(spans, span_colors) if s not in ropes]
    long["start"], long["end"] = long["layer"] - 0.5, long["layer"] + 0.5
    return (
        alt.Chart(long)
        .mark_rect(stroke="white", strokeWidth=1)
        .encode(
            alt.X("start:Q", title="decoder layer", scale=alt.Scale(domain=[-0.5, n - 0.5], nice=False)),
            alt.X2("end:Q"),
            alt.Y("strip:N", title=None, sort=["RoPE", "attention"]),
            alt.Color("value:N", title=None, scale=alt.Scale(domain=domain, range=colors)),
            tooltip=[
                alt.Tooltip("layer:O", title="layer"),
                alt.Tooltip("rope:N", title="RoPE"),
                alt.Tooltip("attention:N", title="attention"),
                alt.Tooltip("temperature:N", title="Llama 4"),
            ],
        )
        .properties(
            width=640,
            height=280,  # Streamlit fits title, legend and axes into the height too (≈ 190 px of it here)
            title=alt.Title(
                layers_title(n),
                subtitle="Top row: the layer's rope (grey: NoPE); bottom row: how far back it attends.",
            ),
            config=_CONFIG,
        )
    )
