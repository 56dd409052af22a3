"""Model configs page: the wavelengths before and after an NTK-alpha / new-base / linear change.

Pure: data -> alt.Chart (no Streamlit).
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts.style import chart_config

#: Line colours: as trained (slate), NTK-aware (blue), linear (orange), all distinct in print too.
COLORS = {"as trained": "#475569", "NTK-aware (new base)": "#1D4ED8", "linear (positions ÷ s)": "#C2410C"}

_CONFIG = chart_config(legend={"orient": "top", "labelLimit": 400})


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
    frame: pd.DataFrame, *, alpha: float, new_base: float, base: float, width: int = 640, height: int = 460
) -> alt.Chart:
    """λ_j per pair, log axis, one line per scheme.

    Streamlit fits the whole chart into `height` (title, legend and axes take ≈ 170 px of it), so
    460 leaves the plot ≈ 290 px: the three lines, some decades apart, stay distinguishable."""
    color = alt.Color("scheme:N").title(None).scale(domain=list(COLORS), range=list(COLORS.values()))
    last = int(frame["j"].max()) if len(frame) else 1
    chart = (
        alt.Chart(frame)
        .mark_line(point=alt.OverlayMarkDef(size=30), strokeWidth=2.5)
        .encode(
            alt.X("j:Q")
            .title("pair j (0 = fastest)")
            .axis(tickMinStep=1)
            .scale(domain=[0, max(last, 1)], nice=False),  # ends at the last pair
            alt.Y("wavelength:Q").title("wavelength λ_j (tokens, log scale)").scale(type="log"),
            color,
            tooltip=[
                alt.Tooltip("j:Q", title="pair j"),
                alt.Tooltip("scheme:N"),
                alt.Tooltip("wavelength:Q", title="λ_j (tokens)", format=",.2f"),
            ],
        )
        .properties(
            width=width,
            height=height,
            title=alt.Title(
                f"NTK α = {alpha:g} keeps the fastest pair and stretches the slowest by α",
                subtitle=f"base {base:,.0f} → {new_base:,.0f}; linear s = {alpha:g} stretches every pair by s",
            ),
        )
    )
    chart.config = _CONFIG
    return chart
