"""Every use of a Streamlit, Altair or CPython internal in the app, in one place.

Each one is listed with the version it was checked on, what it buys, and what breaks without it.
`tests/test_compat.py` has one test per internal that fails loudly (not silently) when an upgrade
removes or changes it; `bench/bench_compat.py` measures the speed internals against the public
alternative, side by side in one run. Checked on Streamlit 1.67.0, Altair 6.3.0, CPython 3.11.

Needed for correctness (no public equivalent in Streamlit 1.67)
-----------------------------------------------------------------
* `script_run_ctx` - ``streamlit.runtime.scriptrunner.get_script_run_ctx`` (exported, undocumented).
  `run_marker` reads ``ctx.cursors`` (a new object for every script run, fragment runs included) so
  the URL notices of one run are never shown in the next; `is_history_navigation` reads
  ``ctx.is_history_navigation`` so browser back/forward re-seeds widgets from the URL. Without
  them: notices repeat on every rerun, and back/forward shows stale values.
* `session_id` / `session_is_connected` - ``ctx.session_id`` and ``Runtime.is_active_session``
  (``streamlit.runtime.get_instance()``, undocumented; thread-safe by its docstring): whether a
  session's websocket is still connected, on any page. The lab's training queue (explorer/jobs.py)
  keeps a session's job alive while it is connected, whatever page or tab it shows. Without them:
  only heartbeats from the lab page keep a job, so a user who reads another page for the queue's
  timeout (15 s by default) loses it.
* `set_url_param` - ``QueryParams.remove_param`` / ``set_corrected_value`` (the calls Streamlit
  itself makes to correct a bound widget's URL value) and ``QueryParams._initial_query_params``
  (the snapshot Streamlit seeds widgets from). The public ``st.query_params`` raises for a key
  bound to a widget. Without it: a bad value in a link cannot be removed or corrected in the
  address bar, and a tour step cannot write its values into the URL.
* `page_url_path` / `page_order` - ``streamlit.source_util.page_icon_and_name`` and
  ``page_sort_key``: the URL path and the navigation order Streamlit gives a legacy ``pages/``
  script ("pages/1_Sinusoidal_heatmap.py" -> "Sinusoidal_heatmap", (1.0, "sinusoidal_heatmap")).
  The public ``st.Page(path).url_path`` needs a running script (the manifest and the tests read
  paths outside one). Without them: a copy of Streamlit's rule, which a change in Streamlit would
  silently break (the navigation, the share link and the tour's page switches use the path).

* `bind_altair_property_setters` - ``altair.utils.schemapi._PropertySetter.__get__``: Altair's
  method API (``alt.X(...).axis(...)``) kept the chart on one setter object shared by every thread,
  so two sessions setting a property at the same moment could set it on each other's chart. Each
  access from a chart now gets a setter bound to it (and no longer rebuilds the method's docstring,
  0.7–1.5 ms per access: home and RoPE runs 13–15 ms faster, bench/RESULTS.md section 13). Without
  it: a rare mix-up of two sessions' charts under load.

Bought for speed (each has a public alternative; `bench/bench_compat.py` measures the gain)
-------------------------------------------------------------------------------------------
* `vega_lite_spec` - ``streamlit.elements.vega_charts._convert_altair_to_vega_lite_spec``: the
  Vega-Lite dict Streamlit itself would send for an Altair chart (data as Arrow), called with
  ``validate=False``: the chart tests validate every builder's spec, so the run-time repeat of the
  JSON-schema validation is skipped. Public alternative: ``chart.to_dict()`` (validates).
* `install_altair_speedup` - patches ``altair.utils.schemapi._FromDict.__init__`` to share the
  lookup table of Altair's ~900 schema classes (Altair rebuilt it, hashing every schema, for every
  shorthand encoding), turns off Altair's DEBUG_MODE (validation at object creation;
  ``to_dict()`` still validates) and with it the schema check of every ``.properties()`` value
  (``SchemaBase.validate_property``, which ignores DEBUG_MODE), and makes ``SchemaBase.copy``
  (shallow) of a layered or concatenated chart skip the constructor, which deep-copied every layer
  to merge params the chart had merged already; a deep copy (``schemapi._deep_copy``, which every
  compound chart's constructor makes of its sub-charts) copies an object's ``_args`` and ``_kwds``
  instead of calling its class again. Without it: slower page runs, identical specs.
* `freeze_long_lived_objects` - ``gc.freeze()`` (public CPython API, process-wide effect): the
  collector's full passes skip the modules loaded so far (Altair, torch, transformers as they
  arrive). A page run that finds a new stage freezes at once: ``gc.freeze()`` costs microseconds,
  and no ``gc.collect()`` precedes it. Streamlit's own collection after every run is off
  (``runner.postScriptGC = false`` in ``.streamlit/config.toml``, a public option): with torch
  loaded it cost 80-100 ms of every run.
* `chart_code_chunks` - the file names of two of Streamlit's front-end modules in the installed
  wheel, ``streamlit/static/static/js/ArrowVegaLiteChart.<hash>.js`` (which imports vega-embed)
  and ``rehype-katex.<hash>.js`` (which draws ``st.latex``); the preload script resolves them next to
  Streamlit's own ``index.<hash>.js``, whose ``<script type=module>`` it finds in the page. The
  browser fetches each only when the first chart or formula of a session arrives; `explorer.assets.preload_js` asks for them when the
  page frame arrives, so they download while the server still computes the page (a cold start to
  the home page drawn: about 0.2 s sooner, bench/cold_start.py). The names carry a content hash
  that changes with every Streamlit release: a name not found means no preload (the page works as
  before, only later), and tests/test_compat.py fails so that an upgrade review sees it.
* `install_quick_component_scan` - ``streamlit.components.v2.manifest_scanner._is_likely_streamlit_component_package``:
  when Streamlit's runtime starts (before the server answers), it looks for custom components (v2) in every installed
  distribution, and its first filter parses each one's metadata with the e-mail parser, four times a distribution
  (157 here: torch, transformers and the rest; about 0.13 s of every ``streamlit run``, bench/cold_start.py). The
  quick filter reads each metadata text once and hands a distribution to Streamlit's own filter whenever that text
  mentions "streamlit" or has a ``Name:`` line starting ``st-``/``st_``: Streamlit's filter can say yes to no other, so
  the components found are the same (tests/test_compat.py compares the two on every installed distribution).
  serve.py installs it before ``st.App`` starts the runtime. Without it: the same components, found 0.13 s later.

Set the environment variable ``EXPLORER_PUBLIC_ONLY=1`` to run the app with the public
alternatives of the speed internals, or to a comma-separated list of their names
(``chart_conversion``, ``altair_speedup``, ``gc_freeze``, ``chunk_preload``, ``component_scan``) for just those;
bench/bench_compat.py measures the first three (`SERVER_INTERNALS`, server time) alone and together,
side by side; the preload saves browser time and the quick scan server start time, which bench/cold_start.py
measures.

Front-end markup (not Python, listed here so an upgrade review finds it)
-------------------------------------------------------------------------
The constant CSS/JS in `explorer.assets` selects Streamlit's ``data-testid`` attributes
(stElementContainer and stHtml: the frame's script-only element takes no room; stToolbarActions, stMainMenu, stAppDeployButton, stDecoration, stStatusWidget,
stMainBlockContainer, stExpandSidebarButton, stSidebar, stVegaLiteChart, stElementToolbar,
stElementToolbarButton, stFullScreenFrame, stTabs, stMarkdown, stCaptionContainer,
stLayoutWrapper) and ``.st-key-<key>`` classes; it also styles vega-embed's own markup for the
in-chart controls (``form.vega-bindings``, ``.vega-bind``, ``.vega-bind-name``: the clock page puts
them above its clocks and presentation mode enlarges them), and the live charts' scripts
(``CLOCK_BRIDGE_JS``, ``LIVE_RANGES_JS``) rely on vega-embed's markup for a bound range input: its
``name`` is the signal's, its read-out the next element, and Vega listens to its ``input`` event. The
live charts' hidden range elements (``span[data-posenc-ranges]`` in an stHtml) take no room either.
Tests only: tests/test_script_compile.py reads ``streamlit.runtime.scriptrunner.magic`` (which
statements magic would draw) to check that switching magic off hides nothing; tests/e2e_support.py's
``APP_VIEW_JS`` finds a chart's Vega view in React's tree above the chart's element (Streamlit's chart
component keeps it in a hook), to read what a canvas chart draws, and throws when it is not there. If one disappears, presentation mode shows
Streamlit's chrome again or the SVG button is missing; `tests/test_e2e.py` checks them in Chromium.
"""

from __future__ import annotations

import functools
import gc
import os
import re
import sys
import threading
from pathlib import Path
from typing import Any

#: The speed internals that save server time (bench/bench_compat.py measures each).
SERVER_INTERNALS = ("chart_conversion", "altair_speedup", "gc_freeze")
#: The speed internals, by the names EXPLORER_PUBLIC_ONLY takes (the preload saves browser time).
SPEED_INTERNALS = (*SERVER_INTERNALS, "chunk_preload", "component_scan")


def _public_only(raw: str) -> frozenset[str]:
    """Which speed internals run their public alternative: "" or "0" none, "1" all, else a
    comma-separated list of names from SPEED_INTERNALS (an unknown name is an error)."""
    raw = raw.strip()
    if raw in ("", "0"):
        return frozenset()
    if raw == "1":
        return frozenset(SPEED_INTERNALS)
    names = frozenset(n.strip() for n in raw.split(",") if n.strip())
    unknown = sorted(names - set(SPEED_INTERNALS))
    if unknown:
        raise ValueError(f"EXPLORER_PUBLIC_ONLY must be 1 or names from {SPEED_INTERNALS}, got {unknown}")
    return names


#: Run these speed internals' public alternatives instead (see the module docstring).
PUBLIC = _public_only(os.environ.get("EXPLORER_PUBLIC_ONLY", ""))

CHECKED_VERSIONS = {"streamlit": "1.67.0", "altair": "6.3.0"}


# ------------------------------------------------------------------------- script-run context
def script_run_ctx() -> Any:
    """The running script's context, or None outside a Streamlit run (a bare ``python page.py``)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    return get_script_run_ctx()


def run_marker() -> Any:
    """An object that is new for every script run (``ctx.cursors``; None outside a run)."""
    ctx = script_run_ctx()
    return None if ctx is None else ctx.cursors


def is_history_navigation() -> bool:
    """Whether this run was triggered by the browser's back/forward buttons."""
    ctx = script_run_ctx()
    return bool(ctx is not None and ctx.is_history_navigation)


def session_id() -> str | None:
    """The running session's id (``ctx.session_id``), or None outside a Streamlit run."""
    ctx = script_run_ctx()
    return None if ctx is None else str(ctx.session_id)


def session_is_connected(session_id: str) -> bool | None:
    """True while the session's browser is connected (any page), False once it is not, None when
    no server runtime exists (AppTest, a bare script): then the caller must decide by other means."""
    from streamlit import runtime

    if not runtime.exists():
        return None
    return bool(runtime.get_instance().is_active_session(session_id))


# ------------------------------------------------------------------------------ page paths
def page_url_path(script: str) -> str:
    """The URL path Streamlit serves a page script at, relative to the entry script: "" for the
    entry script ("app.py"), else the file name's title part ("pages/1_Sinusoidal_heatmap.py" ->
    "Sinusoidal_heatmap"; a leading emoji is Streamlit's icon, not part of the path)."""
    from streamlit.source_util import page_icon_and_name

    path = Path(script)
    return "" if len(path.parts) == 1 else page_icon_and_name(path)[1]


def page_order(script: str) -> tuple[float, str]:
    """Where Streamlit puts a page script in the navigation: the entry script first, then by the
    file name's number (a page without one last), then by its title part."""
    from streamlit.source_util import page_sort_key

    path = Path(script)
    return (-1.0, "") if len(path.parts) == 1 else page_sort_key(path)


# ----------------------------------------------------------------------------- query params
def set_url_param(key: str, raw: str | None) -> None:
    """Set (`raw` is a str) or remove (`raw` is None) a query parameter, bound to a widget or not,
    both in the browser's URL and in the snapshot Streamlit seeds widgets from."""
    from streamlit.runtime.state.session_state_proxy import get_session_state

    with get_session_state().query_params() as qp:
        if raw is None:
            qp._initial_query_params.pop(key, None)
            qp.remove_param(key)
        else:
            qp._initial_query_params[key] = [raw]
            qp.set_corrected_value(key, raw, "string_value")


# ---------------------------------------------------------------------------------- charts
class _Unvalidated:
    """Streamlit converts a chart with ``chart.to_dict()``; this makes it skip validation."""

    def __init__(self, chart: Any):
        self._chart = chart

    def to_dict(self, *args: Any, **kwargs: Any) -> dict:
        kwargs.setdefault("validate", False)
        return self._chart.to_dict(*args, **kwargs)


def vega_lite_spec(chart: Any) -> dict:
    """The Vega-Lite dict for an Altair chart, as Streamlit itself would send it (data as Arrow),
    without re-validating it. Public alternative: Altair's validating ``to_dict()``."""
    if "chart_conversion" in PUBLIC:
        import altair as alt

        with alt.data_transformers.enable("default", max_rows=None):
            return chart.to_dict()
    from streamlit.elements.vega_charts import _convert_altair_to_vega_lite_spec

    # ignore: typed for Altair charts, but Streamlit only calls .to_dict() on it (a duck-typed wrapper)
    return _convert_altair_to_vega_lite_spec(_Unvalidated(chart))  # type: ignore[arg-type]


_ALTAIR_TABLES: dict[tuple[type, ...], Any] = {}
_ALTAIR_LOCK = threading.Lock()
_ALTAIR_INSTALLED = False


def install_altair_speedup() -> bool:
    """Share Altair's shorthand lookup table and turn off its creation-time validation
    (idempotent). Returns True if active (False when its public alternative is chosen)."""
    global _ALTAIR_INSTALLED
    if _ALTAIR_INSTALLED:
        return True
    if "altair_speedup" in PUBLIC:
        return False
    from altair.utils import schemapi

    from_dict_class = schemapi._FromDict
    original_init = from_dict_class.__init__

    def __init__(self: Any, wrapper_classes: Any, /) -> None:
        classes = tuple(wrapper_classes)
        table = _ALTAIR_TABLES.get(classes)
        if table is None:
            original_init(self, classes)
            with _ALTAIR_LOCK:
                table = _ALTAIR_TABLES.setdefault(classes, self.class_dict)
        # A defaultdict(list): a lookup of an unknown hash adds an empty list, which any fresh
        # table would have answered the same way.
        self.class_dict = table

    __init__.__wrapped__ = original_init  # type: ignore[attr-defined]
    schemapi.disable_debug_mode()
    from_dict_class.__init__ = __init__  # type: ignore[method-assign]

    # `.properties()` validates each value against the schema even with DEBUG_MODE off (the one
    # creation-time check DEBUG_MODE does not switch off): the same check, skipped the same way.
    original_validate = schemapi.SchemaBase.validate_property.__func__  # type: ignore[attr-defined]

    def validate_property(cls: Any, name: str, value: Any, schema: Any = None) -> None:
        if schemapi.DEBUG_MODE:
            original_validate(cls, name, value, schema)

    validate_property.__wrapped__ = original_validate  # type: ignore[attr-defined]
    schemapi.SchemaBase.validate_property = classmethod(validate_property)  # type: ignore[method-assign,assignment]

    # A shallow copy of a compound chart (`.properties()`, every ``configure_*``) called the chart's
    # constructor again, and LayerChart's constructor deep-copies every layer (to merge their
    # params): a quarter of a page run on the pages with layered heatmaps. The layers of an existing
    # compound chart are merged already, so the copy takes them as they are.
    import altair as alt

    compound = (alt.LayerChart, alt.ConcatChart, alt.HConcatChart, alt.VConcatChart)
    original_copy = schemapi.SchemaBase.copy

    def copy(self: Any, deep: Any = True, ignore: Any = None) -> Any:
        if deep is True or not isinstance(self, compound) or schemapi.DEBUG_MODE:
            return original_copy(self, deep, ignore)
        out = object.__new__(type(self))
        object.__setattr__(out, "_args", tuple(self._args))
        object.__setattr__(out, "_kwds", dict(self._kwds))
        if deep is not False:  # an iterable of attribute names: those one level deeper
            for attr in deep:
                out[attr] = schemapi._shallow_copy(out._get(attr))
        return out

    copy.__wrapped__ = original_copy  # type: ignore[attr-defined]
    schemapi.SchemaBase.copy = copy  # type: ignore[method-assign]

    # A deep copy (`.copy()`; every LayerChart / ConcatChart constructor deep-copies all its
    # sub-charts to lift their params) rebuilt each object by calling its class again: a compound
    # sub-chart re-ran its own constructor, which deep-copied its layers once more. An object's
    # whole state is its `_args` and `_kwds` (SchemaBase keeps every attribute there), so the copy
    # takes them, copied, without the constructor: the same objects, a fifth of a RoPE run sooner.
    original_deep_copy = schemapi._deep_copy

    def _deep_copy(obj: Any, by_ref: set[str]) -> Any:
        if isinstance(obj, schemapi.SchemaBase):
            if getattr(obj, "__deepcopy__", None) is not None or schemapi.DEBUG_MODE:
                return original_deep_copy(obj, by_ref)
            out = object.__new__(type(obj))
            object.__setattr__(out, "_args", tuple(_deep_copy(a, by_ref) for a in obj._args))
            object.__setattr__(
                out, "_kwds", {k: (v if k in by_ref else _deep_copy(v, by_ref)) for k, v in obj._kwds.items()}
            )
            return out
        if isinstance(obj, list):
            return [_deep_copy(v, by_ref) for v in obj]
        if isinstance(obj, dict):
            return {k: (v if k in by_ref else _deep_copy(v, by_ref)) for k, v in obj.items()}
        return obj

    _deep_copy.__wrapped__ = original_deep_copy  # type: ignore[attr-defined]
    schemapi._deep_copy = _deep_copy

    # A layer or concat chart lifts its layers' params to the top (`_combine_subchart_params`): each param is copied
    # as a top-level one (`_prepare_to_lift`) and compared as a dict (`_viewless_dict`), both through
    # `param.to_dict()`, which validates the param against the whole Vega-Lite schema (jsonschema) every time. A live
    # chart's sliders made that 64 ms of a profiled run of the extension page after a new d (237 ms in all; bench/
    # RESULTS.md section 36). The same objects and dicts without the check: the finished chart's `to_dict()`
    # validates everything once, as before, unless the page converts it unvalidated (`vega_lite_spec`).
    from altair.vegalite.v6 import api, core

    original_viewless, original_prepare = api._viewless_dict, api._prepare_to_lift

    def _viewless_dict(param: Any) -> dict[str, Any]:
        if schemapi.DEBUG_MODE:
            return original_viewless(param)
        d = param.to_dict(validate=False)
        d.pop("views", None)
        return d

    def _prepare_to_lift(param: Any) -> Any:
        if schemapi.DEBUG_MODE or not isinstance(param, core.SelectionParameter):
            return original_prepare(param)
        return core.TopLevelSelectionParameter(**param.copy().to_dict(validate=False), views=[])

    _viewless_dict.__wrapped__ = original_viewless  # type: ignore[attr-defined]
    _prepare_to_lift.__wrapped__ = original_prepare  # type: ignore[attr-defined]
    api._viewless_dict, api._prepare_to_lift = _viewless_dict, _prepare_to_lift

    _ALTAIR_INSTALLED = True
    return True


_SETTERS_BOUND = False


def bind_altair_property_setters() -> None:
    """Give each chart its own property setters (idempotent; always on, whatever `PUBLIC` says).

    Altair's method API (`alt.X("p:Q").axis(...)`, `.scale(...)`, `.title(...)`) goes through one
    `altair.utils.schemapi._PropertySetter` per property, shared by every chart of every thread: its
    `__get__` stored the chart on that shared object (and rebuilt the method's docstring, with
    `textwrap.dedent` and `inspect.signature`, at every access: 0.7–1.5 ms each here). Between the
    access and the call, another session's script could store its own chart there, and the call then
    set the property on that chart. An access from an instance now returns a setter bound to that
    instance, which `_PropertySetter.__call__` runs as before; an access from the class (help(),
    tab completion) keeps Altair's documented setter."""
    global _SETTERS_BOUND
    if _SETTERS_BOUND:
        return
    from altair.utils import schemapi

    setter = schemapi._PropertySetter
    original_get = setter.__get__

    def __get__(self: Any, obj: Any, cls: Any) -> Any:
        if obj is None:
            return original_get(self, obj, cls)
        return _BoundSetter(obj, self.prop)

    __get__.__wrapped__ = original_get  # type: ignore[attr-defined]
    setter.__get__ = __get__  # type: ignore[method-assign]
    _SETTERS_BOUND = True


class _BoundSetter:
    """Altair's property setter for one chart object (see `bind_altair_property_setters`)."""

    __slots__ = ("obj", "prop")

    def __init__(self, obj: Any, prop: str) -> None:
        self.obj = obj
        self.prop = prop

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from altair.utils import schemapi

        return schemapi._PropertySetter.__call__(self, *args, **kwargs)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ the process
_FROZEN: set[str] = set()
_FREEZE_LOCK = threading.Lock()

#: The libraries whose arrival starts a new stage of the process (`_stage`): each brings
#: hundreds of thousands of long-lived objects a full collection would otherwise walk.
STAGE_MODULES = ("altair", "torch", "transformers")


def freeze_long_lived_objects() -> bool:
    """Exclude the process's long-lived objects (imported modules: Streamlit, Altair, pandas, and
    torch once a page has loaded it) from Python's full garbage-collection passes.

    Every rerun allocates enough to trigger collections, and a full pass walks every tracked
    object; with torch loaded that walk made a slider change ~80 ms slower (bench, side by side:
    RoPE m 293 → 174 ms, Sinusoidal seq_len 324 → 231 ms). `gc.freeze()` moves what exists now
    into a permanent generation the collector skips; it is a constant-time list splice
    (microseconds, measured with torch and Altair loaded), so it runs in the page run that finds a
    new stage, with no ``gc.collect()`` first and no timer: what a run does never depends on how
    long the server has been up (issue #36: a freeze taken on a timer five seconds after a run left
    a freshly started server's first seconds on the slow path). At most one freeze per stage, four
    stages (`_stage`).

    The price, bounded: an object alive at one of those moments that later becomes garbage *inside
    a reference cycle* is never collected (objects freed by reference counting, most of them, are
    freed as usual), and cyclic garbage present at the freeze stays; four times per process at
    most. Returns True if it froze now; never when its public alternative (no freeze) is chosen.
    """
    if "gc_freeze" in PUBLIC:
        return False
    stage = _stage()
    if stage in _FROZEN:
        return False
    with _FREEZE_LOCK:
        if stage in _FROZEN:
            return False
        gc.freeze()
        _FROZEN.add(stage)
    return True


def _stage() -> str:
    """The process's stage: the last of `STAGE_MODULES` loaded so far ("base" before Altair: a
    cold server's first page run calls `page_setup` before its chart modules import Altair)."""
    loaded = [name for name in STAGE_MODULES if name in sys.modules]
    return loaded[-1] if loaded else "base"


# ------------------------------------------------------------------------------ front-end files
#: The front-end modules `chart_code_chunks` looks for: (file name prefix, what it draws).
CHUNK_PREFIXES = ("ArrowVegaLiteChart", "rehype-katex")
#: What a chunk's file name may be (checked before it goes into the preload script).
CHUNK_NAME = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.js")


def chart_code_chunks() -> tuple[str, ...]:
    """The installed Streamlit's file names for `CHUNK_PREFIXES` ("ArrowVegaLiteChart.C1pLU68S.js",
    …), each found exactly once in its static/js folder; a prefix found zero or several times is
    left out. Empty when the public alternative is chosen."""
    if "chunk_preload" in PUBLIC:
        return ()
    return _chunks_in(_static_js_dir())


def _static_js_dir() -> Path:
    import streamlit

    return Path(streamlit.__file__).parent / "static" / "static" / "js"


@functools.cache
def _chunks_in(folder: Path) -> tuple[str, ...]:
    try:
        names = sorted(p.name for p in folder.iterdir())
    except OSError:
        return ()
    found = []
    for prefix in CHUNK_PREFIXES:
        matches = [n for n in names if n.startswith(prefix + ".") and CHUNK_NAME.fullmatch(n)]
        if len(matches) == 1:
            found.append(matches[0])
    return tuple(found)


# ------------------------------------------------------------------------------ server start
#: A metadata line that Streamlit's filter accepts by name alone (its fourth test: "st-…", "st_…").
_ST_NAME_LINE = re.compile(r"^name:[ \t]*st[-_]", re.MULTILINE)
_SCAN_INSTALLED: list[Any] = []


def quick_component_filter(dist: Any, stock: Any) -> bool:
    """Streamlit's answer `stock(dist)` to "might this distribution hold a Streamlit component?", asked only where
    it can be yes: where the distribution's metadata text (as ``Distribution.metadata`` reads it: METADATA, else
    PKG-INFO) mentions "streamlit" in any case, or has a ``Name:`` line starting ``st-``/``st_``, or cannot be
    read. Elsewhere False, which is Streamlit's answer there (its tests read the name, the summary and the
    requirements, all of them in that text)."""
    try:
        text = dist.read_text("METADATA") or dist.read_text("PKG-INFO")
    except Exception:
        text = None
    if text is None:
        return bool(stock(dist))
    low = text.lower()
    if "streamlit" in low or _ST_NAME_LINE.search(low):
        return bool(stock(dist))
    return False


def install_quick_component_scan() -> bool:
    """Put `quick_component_filter` in front of Streamlit's component filter (idempotent; before the runtime
    starts). Returns True if active (False when its public alternative is chosen)."""
    if "component_scan" in PUBLIC:
        return False
    if _SCAN_INSTALLED:
        return True
    from streamlit.components.v2 import manifest_scanner

    stock = manifest_scanner._is_likely_streamlit_component_package

    def quick(dist: Any) -> bool:
        return quick_component_filter(dist, stock)

    manifest_scanner._is_likely_streamlit_component_package = quick
    _SCAN_INSTALLED.append(stock)
    return True
