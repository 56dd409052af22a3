"""`show_chart`: every chart in the app is drawn through it (never ``st.altair_chart``).

It sends the Vega-Lite spec Streamlit itself would send (`explorer.compat.vega_lite_spec`),
styled by the pure `explorer.charts.style.style_spec`: a white card with dark text, so the
builders' colours also read on the dark theme, and in presentation mode every font size and
fixed view height scaled (the chart's own config wins).
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
    return target.vega_lite_chart(spec=style_spec(spec, presenting=mode.is_on()), **kwargs)
