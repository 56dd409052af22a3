"""A position that lives in the chart (issue #23): declared once, used by every chart builder that
has one. Pure (Altair only); the page side, which reports the value to the server and the URL when a
drag ends, is `explorer.liveparam`.

`position(key, …)` is a Vega-Lite **point selection** named after the registry parameter `key`, with
one field of the same name, bound to an in-chart range slider (``bind=alt.binding_range``): the
browser moves it and everything computed from it (calculate and filter transforms over data sent
once) with no server run. It is a *selection*, not a plain variable parameter, because Streamlit's
``on_select`` reports selections only: Streamlit 1.67's chart element sends a selection's value
150 ms after it last changed (a trailing debounce; immediately for a click or key press on the chart
itself), so a drag costs one server run when it ends, plus one per pause longer than 150 ms.
``on="none"`` and ``clear=False``: only the slider sets it (a click on a mark must not select a
datum, which has no such field; a double click must not empty it).

`value(key)` is the Vega expression for its current value (``m.m``: the selection's resolved
object, one field, one value), for calculate/filter transforms and text. In the browser that value
can be the range input's text ("40"): ``*`` and ``-`` treat it as a number, ``+`` joins it as text
("40" + 1 is "401"). `number(key)` (``toNumber(m.m)``) is the same value as a number, for sums.
"""

from __future__ import annotations

from typing import Any

import altair as alt

__all__ = ["input_signal", "number", "position", "value"]


def position(key: str, *, start: int | float, lo: int | float, hi: int | float, step: int | float = 1, label: str):
    """The in-chart slider `key` (a point selection bound to a range input), starting at `start`."""
    if not lo <= start <= hi:
        raise ValueError(f"{key}: start {start} is outside {lo} … {hi}")
    bind: Any = alt.binding_range(min=lo, max=hi, step=step, name=label)
    return alt.selection_point(name=key, fields=[key], value=start, bind=bind, on="none", clear=False)


def value(key: str) -> str:
    """The Vega expression for the in-chart value of `position(key, …)`."""
    return f"{key}.{key}"


def number(key: str) -> str:
    """`value(key)` as a number: the expression to add to (see the module docstring)."""
    return f"toNumber({value(key)})"


def input_signal(key: str) -> str:
    """The Vega signal Vega-Lite compiles for the slider of `position(key, …)` (``m_m``): the raw
    value of the range input, which is also the input element's ``name``. Other signals may listen
    to it (an event stream ``{"signal": …}``); only the input itself can set it (a script sets it
    the same way, by the input's own ``input`` event)."""
    return f"{key}_{key}"
