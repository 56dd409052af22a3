"""The Model configs page's text box (pages/9_Model_configs.py): a pasted config.json that travels in
the link, compressed (``cfg``: explorer.site.configs.encode_text), or as the example it is
(``cfg_example``), and survives a visit to another page (a session mirror of the box).

    start()        on every run, before the box: a link's text (or example) fills the box once a session
    load_example   the example select's on_change
    box(container, height=...) -> str   the box itself, and the warning when its text is too long for a link
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from explorer import compat, widgets
from explorer.site import configs as site
from explorer.text import configs as text

KEY, MIRROR = "cfg_text", "_explorer_cfg_text"  # session-only; the mirror survives page changes
_TOO_LONG, _LINK_READ, _LINK_PROBLEM = "_cfg_too_long", "_cfg_link_read", "_cfg_link_problem"


def _example(choice: str | None = None) -> str | None:
    return site.EXAMPLE_TEXTS.get((choice or st.session_state.get("cfg_example")) or "none")


def _fill(value: str) -> None:
    st.session_state[KEY] = st.session_state[MIRROR] = value


def _to_link(value: str) -> None:
    """The text into the link (``cfg``), unless it is an example unchanged (``cfg_example`` says it) or too long."""
    encoded = site.encode_text(value)
    if not value.strip() or value == _example():
        compat.set_url_param("cfg", None)
    elif len(encoded) > site.MAX_LINK_CHARS:
        st.session_state[_TOO_LONG] = len(encoded)
        compat.set_url_param("cfg", None)
    else:
        st.session_state.pop(_TOO_LONG, None)
        compat.set_url_param("cfg", encoded)


def load_example() -> None:
    if (value := _example()) is not None:
        _fill(value)
        _to_link(value)


def _keep() -> None:
    st.session_state[MIRROR] = st.session_state.get(KEY, "")
    _to_link(st.session_state[MIRROR])


def start() -> None:
    """A link's ``cfg`` (else its ``cfg_example``) fills the box on the first run of a session; a ``cfg``
    that cannot be read leaves it empty, with a warning that says why."""
    if not st.session_state.get(_LINK_READ):
        st.session_state[_LINK_READ] = True
        raw = st.query_params.get_all("cfg")
        try:
            value = (
                site.decode_text(widgets.get("cfg").parse(raw))
                if raw
                else _example(st.session_state.get("cfg_example") or widgets.url_value("cfg_example"))
            )
        except (widgets.ParamError, site.LinkTextError) as exc:
            st.session_state[_LINK_PROBLEM] = exc.reason if isinstance(exc, widgets.ParamError) else str(exc)
            compat.set_url_param("cfg", None)
        else:
            if value is not None:
                _fill(value)
    if KEY not in st.session_state:
        st.session_state[KEY] = st.session_state.get(MIRROR, "")
    if st.session_state.get(_LINK_PROBLEM):
        st.warning(text.link_problem(st.session_state.pop(_LINK_PROBLEM)), icon=":material/link_off:")


def box(container: Any, *, height: int) -> str:
    value = container.text_area(
        "config.json",
        key=KEY,
        height=height,
        on_change=_keep,
        placeholder='{"head_dim": 128, "rope_theta": 500000.0, "rope_scaling": {...}}',
        help="Put in the link (compressed) so the view can be shared; nothing is stored on the server.",
    )
    st.session_state[MIRROR] = value
    if st.session_state.get(_TOO_LONG):
        st.warning(text.too_long(st.session_state[_TOO_LONG], site.MAX_LINK_CHARS), icon=":material/link_off:")
    return value
