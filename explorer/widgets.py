"""The parameter registry and `widget()`: every widget in the app is bound to its URL parameter.

`PARAMS` holds every declared `explorer.paramspec.Param`: the shared vocabulary (`explorer.vocabulary`)
is registered here; each page's own parameters are registered by `explorer.manifest` from the
page's declaration. `widget(key)` draws the registered parameter's widget, bound to the URL
parameter of the same name (``bind="query-params"``), so the same parameter looks and behaves
the same on every page and every view can be shared as a link.

URL semantics (Streamlit 1.67, measured; see `docs/ARCHITECTURE.md`, "Multipage and URL")
---------------------------------------------------------------------
* A bound widget writes its value to the URL when the user changes it and **removes** the parameter
  when the value equals the widget's default. A link without ``?seq_len=`` therefore means
  "the default" - changing a registry default later changes what old links show.
* On a page load, Streamlit seeds the widget from the URL. Streamlit on its own silently drops
  values it cannot use (garbage, out of range) and *accepts* some values we do not want (an odd
  ``d_model``, a value that is only valid under a page's dynamic maximum). So `widget()` validates
  the raw URL value first, against the registry definition:

  - unparseable / NaN / infinite / out of the registry range / off the step grid / not an option
    -> the parameter is removed from the URL (and from session state); the widget shows the
    default; a notice is recorded (`explorer.notices`);
  - valid for the registry but outside a page's *dynamic* range (e.g. ``j=60`` while
    ``head_dim=8`` allows j <= 3) -> **clamped** to the nearest allowed value (URL rewritten);
    a notice is recorded;
  - valid but not in canonical form (``300.0``, ``1e3``, ``TRUE``) -> URL rewritten to the
    canonical form, no notice.

  The URL is only consulted when the widget has no value in the session yet (page load, page
  navigation) or on browser back/forward, exactly when Streamlit seeds from it; during
  interaction the URL may lag a rerun behind and is ignored. Widget changes rewrite the URL with
  `history.replaceState`: they add no browser-history entries.
* During a session, a page may change a widget's range (``max=`` override). Streamlit then treats
  it as a *new* widget and resets it to its default (documented: changing min/max/step resets a
  keyed slider). `widget()` carries the previous value over, clamped into the new range, so
  changing ``head_dim`` does not throw the pair index back to 0.
* A slider whose range collapses to a single value (min == max) would make Streamlit raise; `widget()`
  then shows the value as text and returns it.

Rewriting a *bound* query parameter is not possible through the public `st.query_params` API;
`explorer.compat.set_url_param` does it (see there).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from explorer import compat, current, vocabulary
from explorer.notices import ensure_notice_slot, escape_markdown, record_notice, show_url_notices
from explorer.paramspec import NUMERIC_KINDS, OPTION_KINDS, OVERRIDABLE_FIELDS, Param, ParamError, fmt_number

__all__ = [
    "PARAMS",
    "Param",
    "ParamError",
    "ensure_notice_slot",
    "escape_markdown",
    "get",
    "page_defaults",
    "register",
    "show_url_notices",
    "url_choice",
    "url_value",
    "url_values",
    "value",
    "widget",
    "write",
]

_SIGNATURES_STATE_KEY = "_explorer_widget_signatures"

# ---------------------------------------------------------------------------------- registry
PARAMS: dict[str, Param] = {}


def register(param: Param) -> Param:
    """Add a parameter to the registry (idempotent for an identical definition).

    Raises ValueError if the key is already registered with a different definition.
    """
    existing = PARAMS.get(param.key)
    if existing is not None and existing != param:
        raise ValueError(
            f"parameter {param.key!r} is already registered with a different definition:\n"
            f"  existing: {existing}\n  new:      {param}"
        )
    PARAMS[param.key] = param
    return param


def get(key: str) -> Param:
    """The registered parameter `key` (KeyError with a helpful message otherwise)."""
    try:
        return PARAMS[key]
    except KeyError:
        raise KeyError(
            f"unknown parameter {key!r}; declare it in explorer.vocabulary or in its page's declaration (explorer/site/). "
            f"Known: {', '.join(sorted(PARAMS))}"
        ) from None


# ------------------------------------------------------------------------------ URL values
def url_values(key: str) -> list[str]:
    """The raw URL values of `key` (``st.query_params.get_all``; empty when absent or outside a Streamlit run)."""
    try:
        return list(st.query_params.get_all(key))
    except Exception:
        return []


def url_value(key: str) -> Any:
    """The registry-parsed URL value of `key`, or None when absent or invalid (no parameter's
    value is None)."""
    raw = url_values(key)
    if not raw:
        return None
    try:
        return get(key).parse(raw)
    except ParamError:
        return None


def page_defaults() -> dict[str, Any]:
    """{key: the default the running page uses} for every registry parameter this page has drawn
    in this session (a page may override a registry default)."""
    page = current.page()  # widget keys are per page; so are our signatures
    signatures = st.session_state.get(_SIGNATURES_STATE_KEY, {})
    return {key: signature[-1] for (pid, key), signature in signatures.items() if pid == page}


_NO_URL_VALUE = object()


def _reconcile(registered: Param, param: Param, *, fallback: str | None = None) -> Any:
    """Make the URL value / carried-over session value valid for `param` before the widget is
    created. `registered` is the registry definition (what a link may contain); `param` the
    effective definition for this call (a page's dynamic range). `fallback`: what the page uses
    instead of a URL value it cannot use, for the notice (default: "used the default, …").

    Returns the value the URL decided (valid, clamped), or `_NO_URL_VALUE` when the URL had no say
    (the session's value stands) or its value could not be used (the default, or `fallback`, then)."""
    key = param.key
    signatures = st.session_state.setdefault(_SIGNATURES_STATE_KEY, {})
    slot = (current.page(), key)
    previous_signature = signatures.get(slot)
    # what makes Streamlit reset a widget, the default last (`page_defaults` reads it)
    signatures[slot] = (param.kind, param.min, param.max, param.step, param.options, param.default)

    raw = url_values(key)
    in_state = key in st.session_state
    state_value = st.session_state[key] if in_state else None

    url_matches_state = False
    if raw and in_state and len(raw) == 1:
        try:
            url_matches_state = raw[0] == param.to_url(state_value)
        except (TypeError, ValueError):
            url_matches_state = False

    # Like Streamlit, let the URL decide only when the widget has no value in this session yet
    # (page load, link navigation) or on browser back/forward. During interaction the URL can lag
    # one rerun behind the session value, so it must not override it (nor raise a notice).
    if raw and not url_matches_state and (not in_state or compat.is_history_navigation()):
        try:
            value = registered.parse(raw)
        except ParamError as err:
            compat.set_url_param(key, None)
            if in_state:
                del st.session_state[key]
            record_notice(key, raw, err.reason, fallback or f"used the default, {param.to_url(param.default)}")
            return _NO_URL_VALUE
        clamped = param.clamp(value)
        if clamped != value:
            record_notice(
                key,
                raw,
                f"is not available with the other settings here (allowed: {_range_phrase(param)})",
                f"used {param.to_url(clamped)} instead",
            )
        canonical = param.to_url(clamped)
        if clamped == param.default:
            if clamped != value or raw != [canonical]:
                compat.set_url_param(key, None)
        elif raw != [canonical]:
            compat.set_url_param(key, canonical)
        return clamped

    if not in_state:
        return _NO_URL_VALUE
    # The value comes from this session (the user's last choice). Keep it valid, and carry it
    # over when the widget identity changes (a changed min/max/step/options resets a widget).
    clamped = param.clamp(state_value)
    signature_changed = previous_signature is not None and previous_signature != signatures[slot]
    if clamped != state_value or signature_changed:
        st.session_state[key] = clamped
    if clamped != state_value:
        compat.set_url_param(key, None if clamped == param.default else param.to_url(clamped))
    return _NO_URL_VALUE


def _range_phrase(param: Param) -> str:
    if param.kind in NUMERIC_KINDS and param.min is not None and param.max is not None:
        return f"{fmt_number(param.min)}–{fmt_number(param.max)}"
    if param.kind in OPTION_KINDS:
        return param.options_phrase()
    return "see the widget"


# ------------------------------------------------------------------- a value without a widget
def url_choice(key: str, *, fallback: str, **overrides: Any) -> Any:
    """What the link decides for `key` before a page puts its own value into the session (a model's
    values: `explorer.presets_ui`): the valid, clamped URL value, or None when the link has none,
    or its value cannot be used (then it leaves the URL with a notice ending in `fallback`, so
    Streamlit does not seed the widget from it). The same rules as `widget`; no-op (None) once the
    session holds a value for `key`."""
    registered = get(key)
    if key in st.session_state:
        return None
    chosen = _reconcile(registered, registered.with_overrides(**overrides), fallback=fallback)
    return None if chosen is _NO_URL_VALUE else chosen


def value(key: str, **overrides: Any) -> Any:
    """The value of registered parameter `key` where no Streamlit widget shows it (a control that
    lives in a chart: `explorer.liveparam`). The URL and the session decide exactly as for `widget`
    (same validation, notices, clamping, back/forward); the value is kept in ``st.session_state[key]``,
    and `write(key, value)` puts a new one there and in the URL. `overrides`: Param fields, as in
    `widget`."""
    registered = get(key)
    param = registered.with_overrides(**overrides)
    from_url = _reconcile(registered, param)
    if from_url is not _NO_URL_VALUE:
        st.session_state[key] = from_url
    elif key not in st.session_state:
        st.session_state[key] = param.default
    kept = st.session_state[key]
    # No widget writes it: the link follows the session here (e.g. on arriving from another page).
    wanted = [] if kept == param.default else [param.to_url(kept)]
    if url_values(key) != wanted:
        compat.set_url_param(key, wanted[0] if wanted else None)
    return kept


def write(key: str, new: Any, **overrides: Any) -> Any:
    """Set a parameter that no widget shows (see `value`): clamped into its range, into the session
    and the URL (removed from the URL at its default, as a widget does). Returns the value kept."""
    param = get(key).with_overrides(**overrides)
    kept = param.clamp(new)
    st.session_state[key] = kept
    compat.set_url_param(key, None if kept == param.default else param.to_url(kept))
    return kept


# ------------------------------------------------------------------------------- widget
def widget(key: str, *, container: Any = st, label: str | None = None, **overrides: Any) -> Any:
    """Create the registered widget `key`, bound to the URL parameter of the same name.

    container  where to draw it: `st` (default), `st.sidebar`, a column, an expander …
    label      replaces the registry label for this call.
    overrides  Param fields for this call only (`default`, `min`, `max`, `step`, `options`,
               `help`, `fmt`, `log`) - e.g. ``widget("j", max=head_dim // 2 - 1)`` - and any
               other keyword is passed to the Streamlit widget (`disabled`, `horizontal`,
               `label_visibility`, `on_change`, `width`, …).

    Returns the widget's value, always valid for the effective definition (a URL value outside a
    dynamic range is clamped; garbage falls back to the default with a notice).

    Kind "tabs" returns the tab containers instead (`st.tabs`, one per option, the open one
    bound to the URL). They run lazily: draw a tab's content only ``if tab.open``, so a page
    computes and sends only what is on screen. A widget used by one tab only belongs inside it,
    drawn on every run (outside the ``if tab.open``: Streamlit drops a bound widget's URL
    parameter while it is not drawn); a widget that several tabs use belongs above the tabs.
    """
    if "format_func" in overrides:  # the URL holds what format_func shows: declare it as the Param's labels
        raise ValueError(f"widget {key!r}: give the option texts as the Param's labels, not a format_func")
    registered = get(key)
    field_changes = {k: overrides.pop(k) for k in list(overrides) if k in OVERRIDABLE_FIELDS}
    param = registered.with_overrides(**field_changes)
    label = param.label if label is None else label

    _reconcile(registered, param)

    kind = param.kind
    common: dict[str, Any] = {"key": key, "bind": "query-params", "help": param.help or None}
    if param.labels:
        common["format_func"] = param.display
    common.update(overrides)

    if kind in NUMERIC_KINDS:
        if kind != "number" and param.min == param.max:  # Streamlit raises for an empty slider range
            container.markdown(f"{label}: **{param.to_url(param.min)}** (the only possible value)")
            return param.min
        kwargs = dict(min_value=param.min, max_value=param.max, value=param.default, step=param.step)
        if not param.is_int:
            kwargs = {k: float(v) for k, v in kwargs.items()}
        if param.fmt:
            kwargs["format"] = param.fmt
        return (container.number_input if kind == "number" else container.slider)(label, **kwargs, **common)
    options: tuple = param.options or ()
    if kind == "select_slider":
        return container.select_slider(label, options=list(options), value=param.default, **common)
    if kind == "select":
        return container.selectbox(label, list(options), index=options.index(param.default), **common)
    if kind == "radio":
        common.setdefault("horizontal", True)
        return container.radio(label, list(options), index=options.index(param.default), **common)
    if kind == "segmented":
        return container.segmented_control(label, list(options), default=param.default, required=True, **common)
    if kind == "tabs":
        common.pop("help", None)
        common.setdefault("on_change", "rerun")  # what makes the tabs lazy (see above)
        return container.tabs([str(o) for o in options], default=str(param.default), **common)
    if kind == "toggle":
        return container.toggle(label, value=bool(param.default), **common)
    if kind == "text":
        return container.text_input(label, value=param.default, max_chars=param.text_max_len, **common)
    raise AssertionError(f"unhandled kind {kind!r}")  # pragma: no cover


for _shared in vocabulary.SHARED:
    register(_shared)
del _shared
