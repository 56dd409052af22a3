"""Notices about values in a link that could not be used ("?seq_len=abc"): recorded while the
widgets are created, shown as one `st.warning` in a slot at the top of the page.

Every notice is plain text, markdown-escaped (`escape_markdown`): a raw URL value is never markup.
`explorer.layout.page_setup` reserves the slot (`reset_url_notices`); a fragment reserves its own
(`ensure_notice_slot`). The list is fresh for every script run (`explorer.compat.run_marker`).
"""

from __future__ import annotations

import re
from typing import Any

import streamlit as st

from explorer import compat
from explorer.paramspec import short

__all__ = ["ensure_notice_slot", "escape_markdown", "record_notice", "reset_url_notices", "show_url_notices"]

_NOTICES_STATE_KEY = "_explorer_url_notices"  # {"run": marker, "notices": [...], "slot": DG}


def _printable(text: str) -> str:
    return "".join(ch if ch.isprintable() else "\N{REPLACEMENT CHARACTER}" for ch in text)


def escape_markdown(text: str) -> str:
    """Escape text so Streamlit's markdown shows it literally: every markdown/HTML/LaTeX/directive
    character is backslash-escaped (so no emphasis, links, HTML, `$…$`, `:red[…]`,
    `:material/…:`), control characters are replaced, and GFM's automatic links ("http://…",
    "www.…", e-mail addresses), which backslashes do not stop, are broken with an invisible
    zero-width space. Safe for untrusted text such as a raw URL value."""
    text = _printable(text)
    text = re.sub(r":(?=//)", ":\u200b", text)  # scheme://
    text = re.sub(r"(?i)(www)\.", "\\1\u200b.", text)  # www.
    text = text.replace("@", "@\u200b")  # e-mail addresses
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|<>~$:=&\"'%@^,;/?])", r"\\\1", text)


def _notice_state() -> dict[str, Any]:
    marker = compat.run_marker()
    state = st.session_state.get(_NOTICES_STATE_KEY)
    if state is None or state["run"] is not marker:
        state = {"run": marker, "notices": [], "slot": None}
        st.session_state[_NOTICES_STATE_KEY] = state
    return state


def reset_url_notices(slot: Any = None) -> None:
    """Give this script run's notices their slot (called by `page_setup`).

    The list itself is fresh for every run (`_notice_state`); notices recorded earlier in this
    run (the sidebar's presentation toggle is drawn before the slot exists) are kept and shown.
    `slot` (an `st.empty()`) is where `show_url_notices()` renders the warning; it is updated
    automatically whenever `widget()` records a notice during this run.
    """
    state = _notice_state()
    state["slot"] = slot
    if slot is not None and state["notices"]:
        show_url_notices()


def ensure_notice_slot() -> None:
    """Call first in a fragment (`@st.fragment`): a fragment rerun does not run `page_setup`, so
    it gets a slot of its own, at its top, for a notice recorded while it runs (e.g. a widget
    drawn for the first time, inside a tab just opened, finds a bad value in the link)."""
    if _notice_state()["slot"] is None:
        reset_url_notices(st.empty())


def show_url_notices(container: Any = None) -> str | None:
    """Render the recorded URL notices as ONE `st.warning` (text only, never HTML).

    Renders into the slot reserved by `page_setup` if there is one, else into `container`
    (default: the main area). Returns the markdown shown, or None if there was nothing to show.
    """
    notices = _notice_state()["notices"]
    if not notices:
        return None
    lines = (
        f'- **{escape_markdown(n["key"])}** = "{escape_markdown(n["value"])}" '
        f"{escape_markdown(n['reason'])} — {escape_markdown(n['outcome'])}"
        for n in notices
    )
    body = "\n".join(["Some values in the link could not be used:", *lines])
    slot = _notice_state()["slot"] if container is None else None
    target = slot if slot is not None else (container if container is not None else st)
    target.warning(body, icon=":material/link_off:")
    return body


def record_notice(key: str, raw: str | list[str], reason: str, outcome: str) -> None:
    if isinstance(raw, (list, tuple)):
        raw = "&".join(raw)
    _notice_state()["notices"].append({"key": key, "value": short(str(raw), 40), "reason": reason, "outcome": outcome})
    if _notice_state()["slot"] is not None:
        show_url_notices()
