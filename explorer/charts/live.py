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
datum, which has no such field; a double click must not empty it). A chart whose marks are the
values themselves (the vision page's patches, each carrying its row and column) passes an event
stream as ``on``: a click on such a mark sets the selection, and the slider follows.

`value(key)` is the Vega expression for its current value (``m.m``: the selection's resolved
object, one field, one value), for calculate/filter transforms and text. In the browser that value
can be the range input's text ("40"): ``*`` and ``-`` treat it as a number, ``+`` joins it as text
("40" + 1 is "401"). `number(key)` (``toNumber(m.m)``) is the same value as a number, for sums.
"""

from __future__ import annotations

from typing import Any

import altair as alt

__all__ = [
    "at_most_last",
    "input_signal",
    "number",
    "option",
    "option_position",
    "pair_theta",
    "position",
    "sci",
    "stop_slider",
    "value",
]


def position(
    key: str,
    *,
    start: int | float,
    lo: int | float,
    hi: int | float,
    step: int | float = 1,
    label: str,
    on: str | dict[str, Any] = "none",
):
    """The in-chart slider `key` (a point selection bound to a range input), starting at `start`.

    `on`: a Vega event stream that sets it too, to the field `key` of the datum under the event (a
    click on a mark whose data carry that field; filter the stream to such marks: elsewhere Vega-Lite
    would set it to null). Shift does not toggle it (a point selection's default), and nothing
    clears it: it always holds one value."""
    if not lo <= start <= hi:
        raise ValueError(f"{key}: start {start} is outside {lo} … {hi}")
    bind: Any = alt.binding_range(min=lo, max=hi, step=step, name=label)
    if on == "none":
        return alt.selection_point(name=key, fields=[key], value=start, bind=bind, on="none", clear=False)
    events: Any = on  # a Vega event stream as a dict (Altair's stubs list its typed forms only)
    return alt.selection_point(name=key, fields=[key], value=start, bind=bind, on=events, clear=False, toggle=False)


def option_position(key: str, options, *, start: float, label: str, lo: float | None = None, hi: float | None = None):
    """The in-chart slider `key` over the indices 0 … len(options) − 1 of a parameter whose values are not
    evenly spaced (the base b's options, the target length's stops: `Param.slider_values`), starting at
    `start`'s index (ValueError if `start` is not one of them); `lo` and `hi`, two of them, narrow the
    slider to the indices between. The page hears the index (explorer.liveparam.from_selection maps it
    back) and writes the value beside the slider (explorer.assets.OPTION_LABELS); the chart reads the
    value with `option`."""
    values = [float(v) for v in options]
    for name, v in (("start", start), ("lo", lo), ("hi", hi)):
        if v is not None and float(v) not in values:
            raise ValueError(f"{key}: {name} {v} is not one of its values {tuple(options)}")
    first = 0 if lo is None else values.index(float(lo))
    last = len(values) - 1 if hi is None else values.index(float(hi))
    return position(key, start=values.index(float(start)), lo=first, hi=last, label=label)


def stop_slider(
    key: str, stops, *, value: float, window: tuple[float, float] | None, label: str, index: str | None = None
) -> tuple[list[Any], str, list[float]]:
    """A length that is the chart's own slider over `stops` where `window` (first, last) of them is given, else
    fixed at `value`: ([the slider] or [], the Vega expression for its value, [the least and the most it
    reaches]). `index`: a Vega expression for the stop's index computed from this slider's and others (as
    `option`'s)."""
    if window is None:
        return [], repr(float(value)), [float(value)]
    param = option_position(key, stops, start=value, lo=window[0], hi=window[1], label=label)
    return [param], option(key, stops, index), [float(window[0]), float(window[1])]


def option(key: str, options, index: str | None = None) -> str:
    """The Vega expression for the option the slider of `option_position(key, options, …)` stands at, or
    for the option at `index` (a Vega expression for an index computed from that slider's and others)."""
    return "[" + ", ".join(repr(float(v)) for v in options) + f"][{number(key) if index is None else index}]"


def value(key: str) -> str:
    """The Vega expression for the in-chart value of `position(key, …)`."""
    return f"{key}.{key}"


def number(key: str) -> str:
    """`value(key)` as a number: the expression to add to (see the module docstring)."""
    return f"toNumber({value(key)})"


def at_most_last(key: str, name: str, size: str) -> Any:
    """The variable parameter `name`: `number(key)`, but at most `size` − 1 (`size`: a Vega expression,
    the table's or grid's size). For a chart whose slider spans a wider range than its table, so that
    its spec does not depend on the table (the page narrows the slider in the browser,
    `explorer.liveparam.ranges_html`): a value past the table's edge reads as the edge."""
    return alt.param(name=name, expr=f"min({number(key)}, {size} - 1)")


def input_signal(key: str) -> str:
    """The Vega signal Vega-Lite compiles for the slider of `position(key, …)` (``m_m``): the raw
    value of the range input, which is also the input element's ``name``. Other signals may listen
    to it (an event stream ``{"signal": …}``); only the input itself can set it (a script sets it
    the same way, by the input's own ``input`` event)."""
    return f"{key}_{key}"


def sci(expr: str, digits: int) -> str:
    """The Vega expression that writes the number `expr` (≥ 0) as Python's ``f"{x:.{digits}e}"``
    does, so that chart text computed in the browser reads like the page's: Vega's format (d3's,
    JavaScript's toExponential) writes 1.23e-5 where Python writes 1.23e-05, so a one-digit exponent
    gets its leading zero. (The two round alike except at an exact decimal tie, e.g. 1.125 to two
    decimals: JavaScript rounds it up, Python to even.)"""
    if not (isinstance(digits, int) and 0 <= digits <= 20):
        raise ValueError(f"digits must be an integer in 0 … 20, got {digits!r}")
    return f"replace(format({expr}, '.{digits}e'), regexp('[+-](?=[0-9]$)'), '$&0')"


def pair_theta(*, dim: str, base: str, at_page: str, pair: str = "pair", proportional: bool = False) -> list[Any]:
    """The calculate transforms that give each datum (field `pair` = j) θ_j = b^(−2j/d) as ``theta``, for a chart whose
    d and b are its own sliders (`dim` and `base`: Vega expressions): posenc's own number (the datum's
    ``theta_page``, posenc.inverse_frequencies at the page's d and b) where the Vega expression `at_page` holds (the
    sliders stand there), else ``pow(b, -2.0 * j / d)``, numpy's float64 steps (JavaScript's pow may round the last
    bit apart). With `proportional`, proportional RoPE's whole-head ``theta_p`` = 1/b^(2j/d) too (from
    ``theta_p_page``; posenc.methods._proportional's steps). The page's numbers are kept in their own fields: Vega's
    formula writes into the datum, and a later pass must not read what an earlier one wrote."""
    j = f"datum.{pair}"
    out = [
        alt.CalculateTransform(
            calculate=f"{at_page} ? datum.theta_page : pow({base}, -2.0 * {j} / {dim})", **{"as": "theta"}
        )
    ]
    if proportional:
        expr = f"{at_page} ? datum.theta_p_page : 1 / pow({base}, 2 * {j} / {dim})"
        out.append(alt.CalculateTransform(calculate=expr, **{"as": "theta_p"}))
    return out
