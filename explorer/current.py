"""Which page is running: `explorer.layout.page_setup` records it at the top of every full run.

Public API only (session state): a fragment rerun does not call `page_setup`, and keeps the value
its page's last full run recorded. Outside a run, or before any page ran, it is the home page.
"""

from __future__ import annotations

import streamlit as st

HOME = "app.py"
_STATE_KEY = "_explorer_current_page"


def set_page(script: str) -> None:
    """Record the running page's script ("app.py", "pages/3_RoPE_rotation.py")."""
    st.session_state[_STATE_KEY] = script


def page() -> str:
    """The running page's script, as its declaration (`explorer.site`) names it."""
    try:
        return str(st.session_state.get(_STATE_KEY, HOME))
    except Exception:
        return HOME
