"""The guided tour: an ordered list of views, each making one point, with a sentence to say.

The steps are declared by the pages (`Page.tour`, explorer/site/) and collected in page order by
`explorer.manifest.TOUR`. The URL parameter ``step`` names the step shown (absent or 0 = no tour).

Links name a step by its **id** (``?step=compare-1``; `explorer.manifest.step_ids`), which the
tour writes into the address bar and the share link: an id does not move when steps are added.
A **number** (``?step=7``, 1-based, the current order) is accepted too and opens the same step
as before as long as no step is inserted before it. Numbers moved once: the tour had 12 steps until
the lab and the images-and-video pages (issues #10, #15) inserted steps 12-16, so 1-11 open what
they always did, while an old ``?step=12`` (then Compare methods, now ``compare-1``, step 17) opens
the lab's first step, as the links made since then expect. This module resolves both forms in one
place (`step_number`).

Driving it: "Next" / "Previous" buttons with the keyboard shortcuts PageDown / PageUp, which is
what a presenter's clicker sends (Streamlit 1.67 buttons take ``shortcut=``). A step is entered
by writing its values into ``st.session_state`` and calling
``st.switch_page(page, query_params={"step": <id>})``: bound parameters cannot be passed through
``switch_page``'s query_params (Streamlit raises for them), but widget values set in the session
before the switch are the new page's values, and the bound widgets then write them to the URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from explorer import compat, current, widgets
from explorer.manifest import TOUR, TourStep

__all__ = [
    "TOUR",
    "active_step",
    "enter",
    "flush_pending_url",
    "get_step",
    "open_view",
    "panel",
    "sidebar_buttons",
    "step_number",
]

_BY_ID = {step.id: number for number, step in enumerate(TOUR, start=1)}


def get_step(number: int) -> TourStep:
    """Step `number` (1-based); ValueError outside 1 … len(TOUR)."""
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(TOUR):
        raise ValueError(f"step must be a whole number from 1 to {len(TOUR)}, got {number!r}")
    return TOUR[number - 1]


def step_number(raw: str | list[str] | tuple[str, ...]) -> int | None:
    """The step a URL's ``step`` value names: a step id ("compare-1", any case) or a number
    (0 = no tour); None when it names no step. Pure."""
    if isinstance(raw, (list, tuple)):
        if len(raw) != 1:
            return None
        raw = raw[0]
    if not isinstance(raw, str):
        return None
    by_id = _BY_ID.get(raw.strip().lower())
    if by_id is not None:
        return by_id
    try:
        number = widgets.get("step").parse(raw)
    except widgets.ParamError:
        return None
    return number if number == 0 or number <= len(TOUR) else None


# ------------------------------------------------------------------------------- Streamlit side
_APPLIED = "_explorer_tour_applied"  # the step whose values this session has applied
_LAST = "_explorer_tour_last"  # the last step shown (for "Resume")
_PENDING_URL = "_explorer_pending_url"  # values open_view applied, to write into the URL
#: Keys `enter` never clears (they belong to the frame, not to a page's view).
_FRAME_KEYS = frozenset({"present", "step"})


def active_step(*, quiet: bool = False) -> int | None:
    """The number of the step in the URL (``?step=<id>`` or ``?step=n``), or None (absent, 0, or
    not a step: then a warning, unless `quiet`)."""
    raw = widgets.url_values("step")
    if not raw:
        return None
    number = step_number(raw)
    if number == 0:
        return None
    if number is None:
        if not quiet:
            st.warning(
                f"The link asks for a tour step that does not exist; the tour has steps 1 to {len(TOUR)}.",
                icon=":material/link_off:",
            )
        return None
    return number


def _url_values() -> dict[str, Any]:
    """Valid registry values in the URL (a shared step link may carry its own)."""
    values = {}
    for key in st.query_params.keys():  # noqa: SIM118 - QueryParams is not a dict
        if key not in _FRAME_KEYS and key in widgets.PARAMS and (value := widgets.url_value(key)) is not None:
            values[key] = value
    return values


def enter(number: int, *, keep_url: bool = False) -> None:
    """Show step `number`: its values (other parameters back to their defaults) in the session,
    then switch to its page with ``?step=number``. `keep_url`: values in the URL win (a shared
    link to a step)."""
    step = get_step(number)
    given = _url_values() if keep_url else {}
    st.session_state[_APPLIED] = number
    st.session_state[_LAST] = number
    open_view(step.page.script, {**step.params, **given}, query={"step": step.id})


def open_view(page: str, values: Mapping[str, Any], *, query: Mapping[str, str] | None = None) -> None:
    """Switch to the page whose script is `page`, showing `values` (registry keys; every other
    parameter at its default).

    The values go into ``st.session_state`` and the bound widgets of `page` pick them up (and
    write them to the URL); `query` holds unbound URL parameters only (``step``). Does not return.
    """
    state = st.session_state
    same_page = page == current.page()
    # On the same page the browser keeps its widgets, and a widget whose key is merely deleted
    # here would send its old value back with the next interaction (a preset's "model" then
    # reloads the preset). So on the same page a parameter goes back to the page's default.
    defaults = widgets.page_defaults() if same_page else {}
    for key in list(widgets.PARAMS):
        if key not in _FRAME_KEYS and key in state:
            if key in defaults:
                state[key] = defaults[key]
            else:
                del state[key]
    for key, value in values.items():
        widgets.get(key)  # KeyError for a key that is not a registry parameter
        state[key] = value
    # Streamlit writes a bound widget's session-set value to the URL only once the key has a
    # history in the session; `flush_pending_url` (page_setup, on the new page) writes them now,
    # so the address bar shows the view at once.
    state[_PENDING_URL] = {"page": page, "values": dict(values)}
    if same_page:
        # Same page: no page switch; the URL must forget the old view's values, which would
        # otherwise seed the widgets again.
        for key in list(st.query_params.keys()):
            if key in widgets.PARAMS and key not in _FRAME_KEYS:
                compat.set_url_param(key, None)
        for key, value in (query or {}).items():
            st.query_params[key] = value
        st.rerun()
    try:
        st.switch_page(page, query_params=dict(query or {}))
    except StreamlitPageNotFoundError:  # only when a page script runs as the main script (tests)
        st.warning("This view is on another page, which cannot be opened from here.")


def flush_pending_url() -> None:
    """Write the values `open_view` applied into the URL, on the page they were meant for."""
    pending = st.session_state.get(_PENDING_URL)
    if not pending or pending.get("page") != current.page():
        return
    st.session_state[_PENDING_URL] = None
    for key, value in pending["values"].items():
        param = widgets.get(key)
        if key in st.session_state and param.problem(value) is None and value != param.default:
            compat.set_url_param(key, param.to_url(value))


def sidebar_buttons() -> None:
    """ "Start the guided tour" (or "Resume at step n") in the sidebar while no step is shown."""
    if active_step(quiet=True) is not None:
        return
    last = st.session_state.get(_LAST)
    if isinstance(last, int) and 1 <= last <= len(TOUR):
        label, key, number = f"Resume tour at step {last}", "tour_resume", last
    else:
        label, key, number = f"Guided tour ({len(TOUR)} steps)", "tour_start", 1
    if st.sidebar.button(label, key=key, icon=":material/slideshow:", width="stretch"):
        enter(number)


def panel() -> None:
    """The tour panel above the page while a step is shown: narration, previous/next (PageUp /
    PageDown, what a presenter's clicker sends) and "End tour"."""
    number = active_step()
    if number is None:
        return
    if st.session_state.get(_APPLIED) != number:
        enter(number, keep_url=True)  # a link to a step, or browser back/forward
    step = get_step(number)
    with st.container(border=True, key="tour_panel"):
        st.caption(f"Guided tour · step {number} of {len(TOUR)} · {step.page.title}")
        st.markdown(step.narration)  # our own text (the pages' declarations), never user input
        with st.container(horizontal=True):
            go_prev = st.button(
                "Back", key="tour_prev", icon=":material/arrow_back:", shortcut="PageUp", disabled=number == 1
            )
            go_next = st.button(
                "Next",
                key="tour_next",
                icon=":material/arrow_forward:",
                shortcut="PageDown",
                disabled=number == len(TOUR),
                type="primary",
            )
            end = st.button("End tour", key="tour_end", icon=":material/close:", type="tertiary")
    if go_prev and number > 1:
        enter(number - 1)
    if go_next and number < len(TOUR):
        enter(number + 1)
    if end:
        st.session_state[_APPLIED] = None
        del st.query_params["step"]
        st.rerun()
