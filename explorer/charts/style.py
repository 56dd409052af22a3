"""The one place for the charts' projector-legible text sizes (every size ≥ 13 px)."""

from __future__ import annotations

import altair as alt


def configure(
    chart: alt.TopLevelMixin,
    *,
    axis_label: int = 14,
    axis_title: int = 15,
    title: int = 18,
    subtitle: int = 14,
    legend_label: int = 14,
    legend_title: int = 14,
    view_stroke: str | None = None,
) -> alt.TopLevelMixin:
    """Apply the shared axis/title/legend sizes in one ``configure`` call (each ``configure_*``
    call would copy the chart again)."""
    return chart.configure(
        axis={"labelFontSize": axis_label, "titleFontSize": axis_title, "titleFontWeight": "normal"},
        title={"fontSize": title, "subtitleFontSize": subtitle, "anchor": "start", "subtitleColor": "#334155"},
        legend={"labelFontSize": legend_label, "titleFontSize": legend_title},
        view={"stroke": view_stroke},
    )
