"""`show_chart`: every chart in the app is drawn through it (never ``st.altair_chart``).

It sends the Vega-Lite spec Streamlit itself would send (`explorer.compat.vega_lite_spec`),
styled by the pure `explorer.charts.style.style_spec`: a card in the browser's theme (white, or
dark with the builders' colours mapped to read on it), with a text description for screen
readers, and in presentation mode every font size and fixed view height scaled.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from explorer import compat, mode
from explorer.charts.style import style_spec


def show_chart(chart: Any, *, container: Any = None, **kwargs: Any) -> Any:
    """Draw an Altair chart (or a Vega-Lite dict) like ``st.altair_chart``, styled by
    `style_spec` (white card; large text in presentation mode).

    ``container``: where to draw (a column, the sidebar …; default the main area). Other keywords
    go to Streamlit (``width``, ``height``, ``key``, ``on_select`` …).
    """
    target = st if container is None else container
    spec = chart if isinstance(chart, dict) else compat.vega_lite_spec(chart)
    return target.vega_lite_chart(spec=style_spec(spec, presenting=mode.is_on(), dark=_dark_theme()), **kwargs)


def _dark_theme() -> bool:
    """Whether the browser shows the dark theme (``st.context.theme``, reported by the browser;
    unknown before the first page load and in AppTest: then the light card)."""
    try:
        return st.context.theme.type == "dark"
    except Exception:
        return False
