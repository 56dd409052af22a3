"""`show_chart`: every chart in the app is drawn through it (never ``st.altair_chart``).

It sends the Vega-Lite spec Streamlit itself would send (`explorer.compat.vega_lite_spec`),
styled by the pure `explorer.charts.style.style_spec`: a card in the browser's theme (white, or
dark with the builders' colours mapped to read on it), with a text description for screen
readers, and in presentation mode every font size and fixed view height scaled.

`shared(builder)(...)` defers a chart builder's call so that `show_chart` can take its Vega-Lite
dict from a cache shared by every session (`st.cache_resource`, bounded): a hall of students
opening one link builds each chart once, not once per student. Only the styling, which depends on
the session (theme, presentation mode), runs per session; it never modifies the shared dict.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

from explorer import chartfile, compat, current, links, manifest, mode
from explorer.charts.style import style_spec

# Before any chart is built: every chart is built for show_chart (explorer.charts builders import
# Altair, but only pages, which import this module, call them).
compat.install_altair_speedup()
compat.bind_altair_property_setters()  # always: a correctness fix (see compat)


def show_chart(
    chart: Any,
    *,
    container: Any = None,
    save_as: str | None = None,
    slider_ranges: Mapping[str, Mapping[str, float]] | None = None,
    **kwargs: Any,
) -> Any:
    """Draw an Altair chart (or a Vega-Lite dict) like ``st.altair_chart``, styled by
    `style_spec` (a card in the theme's colours; large text in presentation mode).

    ``container``: where to draw (a column, the sidebar …; default the main area). ``save_as``: a
    page's main chart names its files (`chart_files`: interactive HTML, SVG, PNG). ``slider_ranges``: the page's
    ranges of the chart's own sliders where they are narrower than the spec's (explorer.liveparam.slider_ranges;
    the page narrows them in the browser): the files' sliders get them. Other keywords go to Streamlit (``width``,
    ``height``, ``key``, ``on_select`` …).
    """
    target = st if container is None else container
    if isinstance(chart, SharedChart):
        spec = chart.spec()
    else:
        spec = chart if isinstance(chart, dict) else stable_dataset_names(compat.vega_lite_spec(chart))
    shown = target.vega_lite_chart(spec=style_spec(spec, presenting=mode.is_on(), dark=dark_theme()), **kwargs)
    if save_as is not None:
        # the files are drawn on the light card: a chart that paints its own colours for the dark one (`themed`) is
        # built again for the light card, only once the popover is open
        dark_built = isinstance(chart, SharedChart) and chart._kwargs.get("dark")
        saved = (lambda: chart.on_light_card().spec()) if dark_built else spec
        chart_files(saved, save_as, container=container, slider_ranges=slider_ranges)
    return shown


def chart_files(
    spec: dict | Callable[[], dict],
    name: str,
    *,
    container: Any = None,
    slider_ranges: Mapping[str, Mapping[str, float]] | None = None,
) -> None:
    """ "Save this chart": a popover (drawn only while open) offering the chart as one
    self-contained interactive HTML file, an SVG and a projector-size PNG (`explorer.chartfile`).
    Each file is made only when its button is clicked; a click does not rerun the page. `spec` may be a function
    that makes it (called only while the popover is open)."""
    target = st if container is None else container
    saving = target.popover("Save this chart", icon=":material/download:", key=f"save_{name}", on_change="rerun")
    if not saving.open:
        return
    spec = spec() if callable(spec) else spec
    spec = chartfile.narrow_sliders(spec, slider_ranges or {})  # the page's ranges of the chart's own sliders
    try:
        title = f"{manifest.page_for_script(current.page()).title} · Positional-encoding explorer"
    except KeyError:  # a script that is no declared page (tests' toy pages)
        title = "Positional-encoding explorer"
    footer = f"Made with the Positional-encoding explorer. This view in the app: {links.current_url()}"
    saving.caption("The HTML file draws the chart with its own controls, from disk, with no network.")
    files = (
        ("Interactive HTML", "html", "text/html", lambda: chartfile.html_file(spec, title=title, footer=footer)),
        ("SVG", "svg", "image/svg+xml", lambda: chartfile.svg_file(spec)),
        ("PNG for a projector", "png", "image/png", lambda: chartfile.png_file(spec)),
    )
    for label, suffix, mime, make in files:
        saving.download_button(
            label,
            data=make,
            file_name=chartfile.file_name(name, suffix),
            mime=mime,
            key=f"save_{name}_{suffix}",
            on_click="ignore",
            icon=":material/download:",
        )


def dark_theme() -> bool:
    """Whether the browser shows the dark theme (``st.context.theme``, reported by the browser;
    unknown before the first page load and in AppTest: then the light card)."""
    try:
        return st.context.theme.type == "dark"
    except Exception:
        return False


#: How many finished chart specs the server keeps across sessions (each a few kB to a few hundred kB).
SHARED_SPEC_ENTRIES = 128


class Keyed:
    """A large argument of a shared chart (``shared(builder)(Keyed(key, tables))``) with the small key it was made
    from, which the shared cache hashes instead of the value: hashing the home chart's 10,000 rows on every run was
    two fifths of its server time. `key` must determine `value` (the arguments of the cached function that made it)."""

    __slots__ = ("key", "value")

    def __init__(self, key: Hashable, value: Any):
        self.key, self.value = key, value


class Rows:
    """A table argument of a shared chart (``shared(builder)(Rows(frame, check=…))``) that reaches the spec only as a
    dataset of its own: the builder's spec depends on the table's columns and their types, never on its values (every
    number drawn comes from the rows through the chart's transforms). The shared cache then holds one spec for every
    table of those columns (the other arguments equal), built from the first, and `SharedChart.spec` puts each call's
    own rows in its place: the Arrow bytes Streamlit sends for a table. A page whose rows change at every release (the
    invariance page's shift test) builds its chart once: its build and conversion took 70–95 ms of a profiled run.
    ``check``: the builder's own check of the table (ValueError), run on every call's table, since the builder runs
    on the first only. Tests: tests/test_shared_specs.py (the mechanism), tests/test_charts_invariance.py (the shift
    test's spec with other rows put in equals a build from them)."""

    __slots__ = ("check", "value")

    def __init__(self, value: Any, *, check: Callable[[Any], None] | None = None):
        self.value, self.check = value, check

    def columns(self) -> tuple:
        """What the spec may depend on: the columns' names and types."""
        return tuple(zip(map(str, self.value.columns), map(str, self.value.dtypes), strict=True))


def _rows_of(args: tuple, kwargs: dict[str, Any]) -> list[Rows]:
    """The `Rows` arguments of a call, in one order (the template's dataset names follow it)."""
    return [a for a in (*args, *kwargs.values()) if isinstance(a, Rows)]


def arrow_bytes(frame: Any) -> bytes:
    """A table as Streamlit sends a chart's dataset (its Altair data transformer's serialisation)."""
    from streamlit import dataframe_util

    return dataframe_util.convert_anything_to_arrow_bytes(frame)


def _unkeyed(args: tuple, kwargs: dict[str, Any]) -> tuple[tuple, dict[str, Any]]:
    """The arguments with each `Keyed` (and `Rows`) replaced by its value (what the builder is called with)."""

    def plain(a: Any) -> Any:
        return a.value if isinstance(a, (Keyed, Rows)) else a

    return tuple(plain(a) for a in args), {k: plain(v) for k, v in kwargs.items()}


class SharedChart:
    """A chart builder's call, made only when needed. `show_chart` takes its Vega-Lite dict from the
    shared cache; anything else (``.to_dict()``, ``.layer`` …) builds the Altair chart itself."""

    __slots__ = ("_args", "_builder", "_chart", "_kwargs", "_name")

    def __init__(self, name: str, builder: Callable[..., Any], args: tuple, kwargs: dict[str, Any]):
        self._name, self._builder, self._args, self._kwargs = name, builder, args, kwargs
        self._chart: Any = None

    def build(self) -> Any:
        if self._chart is None:
            args, kwargs = _unkeyed(self._args, self._kwargs)
            self._chart = self._builder(*args, **kwargs)
        return self._chart

    def __getattr__(self, name: str) -> Any:
        return getattr(self.build(), name)

    def on_light_card(self) -> SharedChart:
        """The same call built for the light card (``dark=False``): what a saved file draws (`show_chart`)."""
        return SharedChart(self._name, self._builder, self._args, {**self._kwargs, "dark": False})

    def spec(self) -> dict:
        """The Vega-Lite dict, shared by every session that asks with equal arguments (`Rows` by their columns, each
        call's own rows put in their datasets). Do not modify it."""
        rows = _rows_of(self._args, self._kwargs)
        try:
            if not rows:
                return _shared_spec(self._name, self._builder, self._args, self._kwargs)
            template, names = _shared_template(self._name, self._builder, self._args, self._kwargs)
        except StreamlitAPIException:  # an argument Streamlit cannot hash: build it for this run only
            return stable_dataset_names(compat.vega_lite_spec(self.build()))
        if names is None:  # the builder did not send each table as a dataset of its own: no template
            return stable_dataset_names(compat.vega_lite_spec(self.build()))
        datasets = dict(template["datasets"])
        for table, name in zip(rows, names, strict=True):
            if table.check is not None:
                table.check(table.value)
            datasets[name] = arrow_bytes(table.value)
        return {**template, "datasets": datasets}


def shared(builder: Callable[..., Any]) -> Callable[..., SharedChart]:
    """``show_chart(shared(charts.clock_chart)(...))``: the builder's result, cached across sessions."""
    name = f"{builder.__module__}.{builder.__qualname__}"
    return lambda *args, **kwargs: SharedChart(name, builder, args, kwargs)


def themed(builder: Callable[..., Any]) -> Callable[..., SharedChart]:
    """``show_chart(themed(charts.score_heatmap)(...))``: `shared`, the builder called with ``dark=dark_theme()``: a
    chart that draws its own colours (an image heatmap on a diverging map) built for the theme the browser shows, the
    theme part of the shared cache's key (a light session and a dark one never get each other's chart)."""
    return lambda *args, **kwargs: shared(builder)(*args, **kwargs, dark=dark_theme())


@st.cache_resource(max_entries=SHARED_SPEC_ENTRIES, show_spinner=False, hash_funcs={Keyed: lambda k: k.key})
def _shared_spec(name: str, _builder: Callable[..., Any], args: tuple, kwargs: dict[str, Any]) -> dict:
    """`name` (the builder's module and name) and its arguments are the key (a `Keyed` one by its key); ``_builder``
    is not hashed."""
    args, kwargs = _unkeyed(args, kwargs)
    return stable_dataset_names(compat.vega_lite_spec(_builder(*args, **kwargs)))


@st.cache_resource(
    max_entries=SHARED_SPEC_ENTRIES, show_spinner=False, hash_funcs={Keyed: lambda k: k.key, Rows: Rows.columns}
)
def _shared_template(
    name: str, _builder: Callable[..., Any], args: tuple, kwargs: dict[str, Any]
) -> tuple[dict, tuple[str, ...] | None]:
    """`_shared_spec` for a call with `Rows` (hashed by their columns): the spec built from the first call's tables, and
    the dataset each `Rows` argument became (in the order of the arguments), or None where one is not a dataset of its
    own (the builder changed it, or two were equal): then `SharedChart.spec` builds every call's spec."""
    plain_args, plain_kwargs = _unkeyed(args, kwargs)
    spec = stable_dataset_names(compat.vega_lite_spec(_builder(*plain_args, **plain_kwargs)))
    found = {value: key for key, value in spec.get("datasets", {}).items() if isinstance(value, bytes)}
    names = tuple(found.get(arrow_bytes(t.value), "") for t in _rows_of(args, kwargs))
    return spec, names if all(names) and len(set(names)) == len(names) else None


def stable_dataset_names(spec: dict) -> dict:
    """The spec with its named datasets renamed "data-0", "data-1", … in the order they are listed.

    Altair names a chart's datasets by a hash of their content, so new numbers gave the chart a
    new spec, and the browser built the chart anew (Vega-Lite compiled, the view created) on every
    slider change. With names that do not depend on the numbers, a chart whose numbers change but
    whose spec does not keeps its view: Streamlit's front end only replaces the datasets' rows
    (the same path as ``add_rows``). Returns a new dict; `spec` is not modified."""
    datasets = spec.get("datasets")
    if not isinstance(datasets, dict) or not datasets:
        return spec
    names = {old: f"data-{i}" for i, old in enumerate(datasets)}

    def rename(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: rename(v) for k, v in node.items()}
        if isinstance(node, list):
            return [rename(v) for v in node]
        if isinstance(node, str):
            return names.get(node, node)
        return node

    out = {k: rename(v) for k, v in spec.items() if k != "datasets"}
    out["datasets"] = {names[k]: v for k, v in datasets.items()}
    return out
