"""Presentation mode (URL ``?present=1`` or ``?present=true``; the toggle at the top of the sidebar).

Larger text (CSS rem base, `explorer.assets.PRESENT_CSS`) and larger chart text
(`explorer.charts.style.style_spec`), the sidebar starts collapsed, and Streamlit's toolbar, main
menu and deploy button are hidden. The sidebar's expand arrow stays, so every control remains one
click away. The choice follows the session from page to page.

`explorer.layout.page_setup` calls `is_presenting()` before ``st.set_page_config`` (it decides
the sidebar's initial state), then `toggle()` in the sidebar.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from explorer import compat, widgets

PRESENT = "present"
_MIRROR = "_explorer_present"  # the mode, carried from page to page (widget state is per page)
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def _parse_flag(raw: str) -> bool | None:
    low = raw.strip().lower()
    return True if low in _TRUE else False if low in _FALSE else None


def _url_flag() -> tuple[bool, bool | None]:
    """(present in the URL?, its value or None when unreadable)."""
    raw = widgets.url_values(PRESENT)
    if not raw:
        return False, None
    return True, _parse_flag(raw[-1]) if len(raw) == 1 else None


def is_presenting() -> bool:
    """Whether this run is in presentation mode. Call before `st.set_page_config`.

    Order: the toggle's value in this session (current page), else the URL (``1/true/yes/on``,
    ``0/false/no/off``), else the mode the session had on the previous page.
    """
    state = st.session_state
    if PRESENT in state:
        value = bool(state[PRESENT])
    else:
        given, flag = _url_flag()
        value = flag if given and flag is not None else bool(state.get(_MIRROR, False))
    state[_MIRROR] = value
    return value


def page_config_kwargs(presenting: bool) -> dict[str, Any]:
    """Extra `st.set_page_config` keywords for the mode."""
    return {"initial_sidebar_state": "collapsed" if presenting else "auto"}


def toggle(presenting: bool) -> bool:
    """The toggle, after turning ``?present=1`` into the canonical ``true`` it is bound to."""
    state = st.session_state
    if PRESENT not in state:
        given, flag = _url_flag()
        if given and flag is not None:
            # Canonical form for the bound toggle; an unreadable value is left to widget(),
            # which removes it and shows the usual link notice.
            compat.set_url_param(PRESENT, "true" if flag else None)
        if not given or flag is not None:
            state[PRESENT] = presenting
    value = widgets.widget(PRESENT, container=st.sidebar)
    if value and not _url_flag()[0]:  # carried over from the previous page: show it in the URL
        compat.set_url_param(PRESENT, "true")
    state[_MIRROR] = bool(value)
    return bool(value)


def is_on() -> bool:
    """Whether the current run is in presentation mode (after `is_presenting` has run)."""
    return bool(st.session_state.get(_MIRROR, False))


def on_a_phone() -> bool:
    """Whether the browser says it is a phone: "Mobi" in its User-Agent header, the test MDN
    recommends ("Browser detection using the user agent"). Only for a chart that cannot reflow to a
    narrow column by itself (a compound Vega-Lite chart has a fixed number of columns); a browser
    that does not say so gets the desktop layout, which still fits (it is scaled down)."""
    try:
        agent = st.context.headers.get("User-Agent") or ""
    except Exception:  # no browser (a bare script run)
        return False
    return "Mobi" in agent
