"""The share link: "Link to this view" from the page's current values (every page's footer).

The link holds every parameter the page drew whose value differs from the page's default (a tour
step's own keys always), and is percent-encoded before it is written as markdown, so no address
can inject markup.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

import streamlit as st

from explorer import compat, current, tour, widgets
from explorer.mode import PRESENT


def view_values(extra: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(values, defaults) behind the current view: every parameter this page drew (session value),
    or the URL's value for one not drawn yet; `extra` wins. ``present`` and ``step`` are left out.
    `defaults` are the page's own defaults (which a link may leave out)."""
    state = st.session_state
    defaults = widgets.page_defaults()
    values: dict[str, Any] = {}
    try:
        url_keys = [k for k in st.query_params if k in widgets.PARAMS]
    except Exception:
        url_keys = []
    for key in sorted(set(defaults) | set(url_keys)):
        if key in (PRESENT, "step"):
            continue
        value = state[key] if key in state else widgets.url_value(key)
        if widgets.get(key).problem(value) is None:  # None (absent or invalid in the URL) is never valid
            values[key] = value
    values.update(extra or {})
    return values, defaults


def view_query(
    values: dict[str, Any],
    *,
    step: int | str | None = None,
    explicit: frozenset[str] = frozenset(),
    defaults: dict[str, Any] | None = None,
) -> dict[str, str]:
    """Query parameters for `values`: defaults left out (the registry's, or the page's own from
    `defaults`), except keys in `explicit` (a tour step's keys, so that a shared step link
    reproduces exactly what was on screen)."""
    query: dict[str, str] = {}
    for key, value in values.items():
        param = widgets.get(key)
        if param.problem(value) is not None:
            continue
        default = (defaults or {}).get(key, param.default)
        if key not in explicit and value == default:
            continue
        query[key] = param.to_url(value)
    if step:
        query["step"] = str(step)
    return query


def view_url(page_path: str, query: dict[str, str], base_url: str | None) -> str:
    """Absolute link when the browser's URL is known (`st.context.url`), else relative."""
    page = compat.page_url_path(page_path)
    qs = f"?{urlencode(query)}" if query else ""
    if not base_url:
        return f"{page or './'}{qs}"
    parts = urlsplit(base_url)
    path = parts.path
    here = compat.page_url_path(current.page())
    if here and path.rstrip("/").endswith("/" + here):
        path = path.rstrip("/")[: -len(here)]
    if not path.endswith("/"):
        path += "/"
    return urlunsplit((parts.scheme, parts.netloc, path + page, qs.lstrip("?"), ""))


#: Characters left as they are in the share link; everything else is percent-encoded, so neither
#: the path (the browser's address bar, which does not encode ( ) [ ] ! * in a path) nor a value
#: can close the markdown link or inline code, or start markup.
_LINK_SAFE = ":/?&=%#~+,;@._-"


def share_markdown(url: str) -> str:
    """ "Link to this view" as markdown: a link whose text is the URL as inline code. Not a code
    block (st.code): that makes the browser load and start Streamlit's syntax highlighter, about
    150 ms on every page load (measured)."""
    safe = quote(url, safe=_LINK_SAFE)
    return f"**Link to this view**: [`{safe}`]({safe})"


def current_url(extra: dict[str, Any] | None = None) -> str:
    """The link to this view: the page's current values (and the tour step, if one is open)."""
    step = tour.active_step(quiet=True)
    explicit = frozenset(tour.get_step(step).params) if step else frozenset()
    values, defaults = view_values(extra)
    query = view_query(values, step=tour.get_step(step).id if step else None, explicit=explicit, defaults=defaults)
    return view_url(current.page(), query, _base_url())


def render_share_link(extra: dict[str, Any] | None = None) -> str:
    """Draw "Link to this view" from the page's current values; returns the URL shown."""
    url = current_url(extra)
    st.markdown(share_markdown(url))
    st.caption(
        "Select it to copy it, or copy the address bar (it holds the same parameters). "
        "Add present=1 for presentation mode."
    )
    return url


def _base_url() -> str | None:
    try:
        return st.context.url
    except Exception:
        return None
