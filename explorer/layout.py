"""The app frame: page config, the sidebar navigation, and small rendering helpers.

Every page script starts with its declared slug (explorer/site/<slug>.py), before it imports
anything else (its chart modules bring pandas and Altair: on a cold server, a third of a second)::

    from explorer.layout import page_setup
    page_setup("clocks")  # the frame and the page's heading go out now

    from explorer.charts import clocks as charts  # noqa: E402 (ruff: pages/ may import after it)
    from explorer.render import shared, show_chart

Why our own navigation: the app uses legacy `pages/` discovery (a cold deep link then runs the page
script itself, see docs/ARCHITECTURE.md), Streamlit's generated sidebar list is hidden
(`client.showSidebarNavigation = false`) and `page_setup` draws the same list with human titles
from `explorer.manifest.PAGES` on every page, so a cold deep link looks exactly like a warm one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from explorer import assets, compat, current, manifest, mode, notices, tour
from explorer.pagespec import Page

__all__ = ["APP_TITLE", "FAVICON", "cached", "formula", "intro", "notice_list", "page_setup"]

APP_TITLE = "Positional-encoding explorer"
#: Browser-tab icon used when a page's icon is a Material symbol: Streamlit loads a Material
#: favicon from fonts.gstatic.com (fails offline, e.g. on a classroom projector), while an emoji
#: favicon is an inline SVG. Sidebar/page-link Material icons use the bundled font (offline-safe).
FAVICON = "📍"


def page_setup(slug: str) -> Page:
    """Call first on every page: page config (wide), sidebar navigation, presentation mode, the
    tour panel, the URL-notice slot and the page's heading (its declared title). `slug` names the
    page's declaration; returns it.

    The browser tab shows "<title> · Positional-encoding explorer". Nothing here imports pandas or
    Altair, so on a cold server the frame reaches the browser while the page still imports them;
    the frame's first element (`assets.page_scripts`) asks the browser for the code of charts and
    formulas (`assets.preload_js`), which then downloads meanwhile.
    """
    page = manifest.page(slug)
    current.set_page(page.script)
    compat.freeze_long_lived_objects()  # a new stage (Altair, torch, transformers loaded): microseconds, no collect
    favicon = FAVICON if page.icon.startswith(":material/") else page.icon
    # Presentation mode decides the sidebar's initial state, so it is read (from the session or
    # the raw URL) before set_page_config.
    presenting = mode.is_presenting()
    st.set_page_config(
        page_title=f"{page.title} · {APP_TITLE}",
        page_icon=favicon,
        layout="wide",
        **mode.page_config_kwargs(presenting),
    )
    with st.sidebar:
        st.html(assets.page_scripts(compat.chart_code_chunks()), unsafe_allow_javascript=True)
        mode.toggle(presenting)
        tour.sidebar_buttons()
        st.markdown(f"**{APP_TITLE}**")
        for other in manifest.PAGES:
            _nav_link(other)
        st.divider()
    tour.flush_pending_url()
    st.html(assets.BASE_CSS + assets.PRESENT_CSS if presenting else assets.BASE_CSS)
    tour.panel()
    # One slot at the top of the main area for the "link parameter could not be used" warning;
    # `explorer.widgets.widget()` fills it as soon as it records a notice.
    notices.reset_url_notices(st.empty())
    st.title(page.title)
    return page


def _nav_link(page: Page) -> None:
    try:
        st.page_link(page.script, label=page.title, icon=page.icon)
    except StreamlitPageNotFoundError:
        # Only when the running main script is not app.py, e.g. `AppTest.from_file(
        # "pages/3_RoPE_rotation.py")`: Streamlit then knows no other pages. A plain relative
        # link keeps such tests (and the page) working. In the served app this never happens;
        # tests/test_manifest.py checks that every declared script exists.
        st.markdown(f"[{page.title}]({page.url_path or './'})")


def intro(*, formulas: bool = True) -> Any:
    """The container for a page's introduction (its opening text and formulas): the page itself,
    or, in presentation mode and while a guided-tour step is shown, a closed "About this page"
    expander, so the page's controls and main chart (and a step's narration) fit the first screen
    of a projector.

        with intro():
            st.markdown("…")
            formula(r"…")

    `formulas`: whether the introduction holds any (the expander's title says so only then;
    tests/test_presentation.py checks it on every page against the expander's latex).
    """
    if mode.is_on() or tour.active_step(quiet=True) is not None:
        title = "About this page: the idea and the formulas" if formulas else "About this page: the idea"
        return st.expander(title, icon=":material/info:")
    return st.container()


def exact_entry(container: Any = st, *, names: str) -> Any:
    """Where a page's number boxes for exact entry go when its main chart usually has sliders of its own for the same
    values (issue #36): `container` itself, or, in presentation mode, a closed expander in it ("Type exact values:
    `names`"), so that on a projector the first screen reaches the chart and its sliders rather than a second row of
    controls. The boxes are there at every setting, folded or not: where the chart has no slider for a value (an
    off-grid factor, a typed length, another tab), the expander is where it is set."""
    if mode.is_on():
        return container.expander(f"Type exact values: {names}", icon=":material/keyboard:")
    return container


def picture_first() -> tuple[Any, Any]:
    """(controls, main chart): two containers for a page's controls card and the main chart it drives, in that order on
    the page, or in presentation mode the other way round, so that a projector's first screen (1280 × 720) holds the
    picture with its own sliders rather than the controls above it (issue #36). The script fills the controls first
    either way: the chart needs their values. What a page writes after both goes under them."""
    first, second = st.container(), st.container()
    return (second, first) if mode.is_on() else (first, second)


def cached(func: Callable | None = None, *, max_entries: int = 32, **kwargs: Any) -> Any:
    """`st.cache_data` with a bounded size (it is unbounded by default) and no spinner.

    Use as ``@cached`` or ``@cached(max_entries=8)``. Extra keywords go to `st.cache_data`
    (e.g. ``ttl=``). Remember that cache_data pickles the return value on every hit: return
    numpy arrays/dataframes, not huge Python structures.
    """
    kwargs.setdefault("show_spinner", False)
    decorator = st.cache_data(max_entries=max_entries, **kwargs)
    return decorator(func) if func is not None else decorator


def notice_list(items: Iterable[str], *, title: str = "What to notice", container: Any = st) -> None:
    """Render a short "What to notice" list. Items are trusted, author-written markdown."""
    items = [str(item).strip() for item in items if str(item).strip()]
    if not items:
        return
    body = "\n".join(f"- {item}" for item in items)
    container.markdown(f"**{title}**\n\n{body}")


def formula(latex: str, *, caption: str | None = None, container: Any = st) -> None:
    """Display one formula (st.latex), optionally with a plain caption under it."""
    container.latex(latex)
    if caption:
        container.caption(caption)
