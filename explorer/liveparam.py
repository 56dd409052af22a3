"""Positions that live in a chart (issue #23): the page side of `explorer.charts.live`.

A parameter such as RoPE's m is drawn as an in-chart slider (`explorer.charts.live.position`): the
browser moves the chart while it is dragged, with no server run, and when the drag ends Streamlit
reports the selection (``on_select``, 150 ms after the last change). `LiveChart`'s callback then
writes the value into the session and the URL (`explorer.widgets.write`), so the rest of the page,
the link and a reload follow. Between drags the parameter is read like any other
(`explorer.widgets.value`: the URL on a page load or back/forward, validated, with notices; the
session otherwise), so tour steps and deep links set it through the URL or the session as before.

What the chart starts at (its spec's initial value) is chosen so that the chart in the browser is
never rebuilt by its own drag (`plan`, pure):

* a value that came from the chart's own drag keeps the spec as it was (Streamlit keeps a chart
  whose spec did not change, with its state: the slider stays where the hand left it, even while a
  drag goes on after a pause);
* if something else in the spec changes (another control, the theme), the chart is rebuilt anyway
  and starts at the current values (Streamlit restores the selection it last reported: the same);
* a value set by anything else (a link, back/forward, a tour step) gives the chart a new element key
  (`View.gen`): a fresh chart at the new values, with no restored selection and no remembered event.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import streamlit as st

from explorer import assets, mode, widgets
from explorer.charts.live import input_signal
from explorer.paramspec import ParamError
from explorer.render import dark_theme, show_chart

_STATE_KEY = "_explorer_live_views"


@dataclass(frozen=True)
class View:
    """What one live chart element shows in the browser."""

    gen: int  # part of the element's key: a new number is a new chart
    starts: tuple[tuple[str, Any], ...]  # the spec's initial values
    shown: tuple[tuple[str, Any], ...]  # the values the browser holds now
    context: Hashable  # everything else the spec depends on


def plan(previous: View | None, values: Mapping[str, Any], context: Hashable) -> View:
    """The view for this run, from the last one (pure; see the module docstring)."""
    now = tuple(sorted(values.items()))
    if previous is None:
        return View(0, now, now, context)
    if now != previous.shown:  # set by something other than this chart
        return View(previous.gen + 1, now, now, context)
    if context != previous.context:  # the spec changes anyway: start where the browser is
        return View(previous.gen, now, now, context)
    return previous


def from_selection(selection: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """{key: value} from Streamlit's selection state (``{"m": [{"m": 40}], "n": {}}``): the keys the
    browser reported, each validated by its registered Param (anything else is ignored: the
    browser's report is untrusted input; a chart whose selection lives in several views, a faceted one, reports one
    equal tuple per view). A parameter with options (the base b) or stops (the target
    length T) is reported as the index of its value: its in-chart slider runs over those indices
    (`explorer.charts.live.option_position`)."""
    found: dict[str, Any] = {}
    for key in keys:
        entry = selection.get(key)
        # one tuple; a chart whose selection lives in several views (a faceted one) stores it once per view
        if not isinstance(entry, list) or not entry or any(e != entry[0] for e in entry):
            continue
        if not isinstance(entry[0], Mapping):
            continue
        raw = entry[0].get(key)
        if isinstance(raw, bool) or not isinstance(raw, (int, float)):
            continue
        param = widgets.get(key)
        if (values := param.slider_values) is not None:
            if not (math.isfinite(raw) and raw == int(raw) and 0 <= raw < len(values)):
                continue
            raw = values[int(raw)]
        try:
            found[key] = param.parse(repr(raw))
        except ParamError:
            continue
    return found


class LiveChart:
    """One chart whose in-chart sliders are the registry parameters `keys` (see the module docstring).

    ``live = LiveChart("rope_live", ("m", "n"))``; ``live.values`` are the parameters' values this
    run; ``starts = live.starts(context)`` the values the chart's sliders start at; then
    ``live.show(chart)`` draws it, keyed and listening.

    ``limits``: a parameter's range on this page where it is narrower than the registry's, as
    `explorer.widgets.value` overrides (``{"shift_t": {"max": 50}}``), or a function of the values of
    the keys before it (``lambda v: {"j": {"max": v["head_dim"] // 2 - 1}} if "head_dim" in v else {}``,
    keys read in order): a value outside is clamped, from
    the URL with a notice, as a widget's ``max=`` does. The chart's slider spans that range or a wider
    one; `show` narrows it to the page's range in the browser (`ranges_html`). A chart whose slider
    spans the registry's range keeps its spec when the page's range changes (another table size): the
    browser keeps the chart and only narrows the slider (issue #23)."""

    def __init__(
        self,
        name: str,
        keys: Sequence[str],
        *,
        limits: Mapping[str, Mapping[str, Any]]
        | Callable[[Mapping[str, Any]], Mapping[str, Mapping[str, Any]]]
        | None = None,
    ):
        self.name, self.keys = name, tuple(keys)
        self.limits: dict[str, dict[str, Any]] = {}
        self.windows: dict[str, dict[str, Any]] = {}  # `narrow`: shown in the browser, not a limit
        self.values: dict[str, Any] = {}
        for key in self.keys:  # in order: a callable `limits` sees the values read before this key
            found = limits(dict(self.values)) if callable(limits) else limits
            if found and key in found:
                self.limits[key] = dict(found[key])
            self.values[key] = widgets.value(key, **self.limits.get(key, {}))
        self._view: View | None = None

    def starts(self, context: Hashable) -> dict[str, Any]:
        views = st.session_state.setdefault(_STATE_KEY, {})
        previous = views.get(self.name)
        if previous is not None and _element_key(self.name, previous.gen) not in st.session_state:
            # The chart left the page in a finished run (its tab closed, another page): Streamlit
            # dropped its element and its state, and the browser will build it from its spec's
            # starts, so they must be the values now (an interrupted run drops nothing).
            previous = replace(previous, shown=())
        self._view = views[self.name] = plan(previous, self.values, (context, mode.is_on(), dark_theme()))
        return dict(self._view.starts)

    def narrow(self, key: str, lo: Any, hi: Any) -> None:
        """Show the chart's slider `key` over `lo` … `hi` only, a window known once the values are read (around them:
        what the chart's data holds this run): `show` narrows the slider in the browser to it (`ranges_html`) and in a
        saved file. It is no limit: a value the chart reports is clamped into the page's limits only, since the browser
        holds a window back while the hand drags (explorer.assets.LIVE_RANGES_JS) and the hand may let go outside the
        window of a run made during the drag; the next run's window is around the value it let go at."""
        if key not in self.keys:
            raise ValueError(f"key must be one of the chart's parameters {self.keys}, got {key!r}")
        self.windows[key] = {**self.limits.get(key, {}), **self.windows.get(key, {}), "min": lo, "max": hi}

    @property
    def element_key(self) -> str:
        if self._view is None:
            raise RuntimeError("call starts() before show()")
        return _element_key(self.name, self._view.gen)

    def show(self, chart: Any, **kwargs: Any) -> Any:
        """`show_chart` with the element key and the callback that reports a drag's end; before it,
        the page's ranges of its sliders (`ranges_html`: its limits, or the windows `narrow` set), if it has any."""
        key = self.element_key
        shown = {**self.limits, **self.windows}
        if shown:
            (kwargs.get("container") or st).html(ranges_html(key, shown))
        limits = self.limits

        def reported() -> None:  # Streamlit calls it before the rerun, once the browser reported a change
            state = st.session_state.get(key)
            report(self.name, self.keys, state.get("selection", {}) if isinstance(state, Mapping) else {}, limits)

        ranges = slider_ranges(shown) if shown else None
        return show_chart(chart, key=key, on_select=reported, slider_ranges=ranges, **kwargs)


def slider_ranges(limits: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, int | float]]:
    """The page's ranges of a live chart's sliders (`LiveChart`'s limits) in the sliders' own units: {key: {"min":
    …, "max": …}} (an end only where the limits give one); a slider over a parameter's options or stops runs over
    their indices, so its ends are the indices of the first and last of them inside. Only registry keys and validated
    numbers: ValueError (naming the key and the end) for anything else."""
    out: dict[str, dict[str, int | float]] = {}
    for key, bounds in limits.items():
        try:
            param = widgets.get(key)  # registry keys are lower-case identifiers (explorer.paramspec)
        except KeyError:
            raise ValueError(f"limits: {key!r} is not a registered parameter") from None
        for end in ("min", "max"):
            if end not in bounds:
                continue
            value = bounds[end]
            number = float(value) if isinstance(value, (int, float, np.integer, np.floating)) else math.nan
            if isinstance(value, bool) or not math.isfinite(number) or (param.is_int and number != int(number)):
                kind = "a whole number" if param.is_int else "a finite number"
                raise ValueError(f"limits: {key}'s {end} must be {kind}, got {value!r}")
            if (values := param.slider_values) is not None:  # its slider runs over their indices
                inside = [i for i, v in enumerate(values) if (v >= number if end == "min" else v <= number)]
                if not inside:
                    raise ValueError(f"limits: no value of {key}'s slider is within its {end} {value!r}")
                out.setdefault(key, {})[end] = inside[0] if end == "min" else inside[-1]
                continue
            out.setdefault(key, {})[end] = int(number) if param.is_int else number
    return out


def ranges_html(element_key: str, limits: Mapping[str, Mapping[str, Any]]) -> str:
    """A hidden element saying where the live chart `element_key`'s sliders end on this page:
    ``data-min-<input>`` and ``data-max-<input>`` per parameter, where <input> is the slider's range
    input (`explorer.charts.live.input_signal`). In the browser `explorer.assets.LIVE_RANGES_JS` sets
    those inputs' min and max to them, so a chart whose sliders span a wider range shows the page's
    (a value outside is moved inside, and reported as a drag would be); a slider over a parameter's
    options or stops gets the indices of the first and last of them inside (`slider_ranges`). Only registry keys,
    element keys and validated numbers go into it, never text from a user."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", element_key):
        raise ValueError(f"element_key must be lower-case letters, digits and _, got {element_key!r}")
    attrs = [f'{assets.LIVE_RANGES_ATTRIBUTE}="{element_key}"']
    for key, ends in slider_ranges(limits).items():
        param = widgets.get(key)
        for end, value in ends.items():
            shown = value if param.slider_values is not None else param.to_url(value)
            attrs.append(f'data-{end}-{input_signal(key)}="{shown}"')
    return f"<span hidden {' '.join(attrs)}></span>"


def _element_key(name: str, gen: int) -> str:
    """The Streamlit key of live chart `name`'s element in its generation `gen` (`View.gen`)."""
    return f"{name}_{gen}"


def report(
    name: str,
    keys: Sequence[str],
    selection: Mapping[str, Any],
    limits: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """What the live chart `name` reported (Streamlit's selection state): its valid values go into the
    session and the URL (clamped into `limits`, the page's ranges: see `LiveChart`), and are recorded
    as what the browser shows (so the next run keeps the chart as it is). Returns them."""
    got = from_selection(selection, keys)
    for key, value in got.items():
        got[key] = widgets.write(key, value, **(limits or {}).get(key, {}))
    views = st.session_state.setdefault(_STATE_KEY, {})
    view = views.get(name)
    if got and view is not None:
        views[name] = replace(view, shown=tuple(sorted({**dict(view.shown), **got}.items())))
    return got
