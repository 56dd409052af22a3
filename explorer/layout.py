"""The app frame: page config, the sidebar navigation, and small rendering helpers.

Every page script starts with::

    from explorer.layout import page_setup
    page_setup("Sinusoidal heatmap", ":material/grid_on:")

Why our own navigation: the app uses legacy `pages/` discovery (a cold deep link then runs the page
script itself, see docs/ARCHITECTURE.md), Streamlit's generated sidebar list is hidden
(`client.showSidebarNavigation = false`) and `page_setup` draws the same list with human titles
from `PAGES` on every page, so a cold deep link looks exactly like a warm one.
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from explorer import params, presentation
from explorer.presentation import show_chart  # noqa: F401 - pages draw every chart with it

APP_TITLE = "Positional-encoding explorer"
#: Browser-tab icon used when a page's icon is a Material symbol: Streamlit loads a Material
#: favicon from fonts.gstatic.com (fails offline, e.g. on a classroom projector), while an emoji
#: favicon is an inline SVG. Sidebar/page-link Material icons use the bundled font (offline-safe).
FAVICON = "📍"


class PageInfo(NamedTuple):
    path: str  # relative to the entry script; also what st.page_link takes
    title: str
    icon: str


#: THE ordered list of pages. Navigation, the tour and links are built from it.
PAGES: tuple[PageInfo, ...] = (
    PageInfo("app.py", "Why position matters", ":material/home:"),
    PageInfo("pages/1_Sinusoidal_heatmap.py", "Sinusoidal heatmap", ":material/grid_on:"),
    PageInfo("pages/2_Clock_hands.py", "Frequency clock hands", ":material/schedule:"),
    PageInfo("pages/3_RoPE_rotation.py", "RoPE rotation", ":material/rotate_right:"),
    PageInfo("pages/4_Relative_invariance.py", "Relative-position invariance", ":material/compare_arrows:"),
    PageInfo("pages/5_Context_extension.py", "Context extension", ":material/open_in_full:"),
    PageInfo("pages/6_Compare_methods.py", "Compare methods", ":material/table_chart:"),
    PageInfo("pages/7_Model_configs.py", "Model configs", ":material/settings_suggest:"),
)


def page_setup(title: str, icon: str) -> None:
    """Call first on every page: page config (wide), sidebar navigation, URL-notice slot.

    `title` is shown in the browser tab ("<title> · Positional-encoding explorer"); `icon` is an
    emoji (used as the favicon) or ":material/name:" (then the favicon is `FAVICON`).
    The page draws its own heading.
    """
    freeze_long_lived_objects()
    favicon = FAVICON if icon.startswith(":material/") else icon
    # Presentation mode decides the sidebar's initial state, so it is read (from the session or
    # the raw URL) before set_page_config. See explorer/presentation.py.
    presenting = presentation.is_presenting()
    st.set_page_config(
        page_title=f"{title} · {APP_TITLE}",
        page_icon=favicon,
        layout="wide",
        **presentation.page_config_kwargs(presenting),
    )
    with st.sidebar:
        presentation.sidebar_top(presenting)
        st.markdown(f"**{APP_TITLE}**")
        for page in PAGES:
            _nav_link(page)
        st.divider()
    presentation.main_top(presenting)
    # One slot at the top of the main area for the "link parameter could not be used" warning;
    # `explorer.params.widget()` fills it as soon as it records a notice.
    params.reset_url_notices(st.empty())


_FROZEN: set[str] = set()
_FREEZE_LOCK = threading.Lock()


def freeze_long_lived_objects() -> bool:
    """Exclude the process's long-lived objects (imported modules: Streamlit, Altair, pandas, and
    torch once a page has loaded it) from Python's full garbage-collection passes.

    Every rerun allocates enough to trigger collections, and a full pass walks every tracked
    object; with torch loaded that walk made a slider change ~80 ms slower (bench, side by side:
    RoPE m 293 → 174 ms, Sinusoidal seq_len 324 → 231 ms). `gc.freeze()` moves what exists now
    into a permanent generation the collector skips. It runs at most twice per process (before
    and after torch), after a `gc.collect()`.

    The price, bounded: an object alive at one of those two moments that later becomes garbage
    *inside a reference cycle* is never collected (objects freed by reference counting, most of
    them, are freed as usual). At the first moment that is the first page run's objects; at the
    second, the objects of the sessions connected when torch is first loaded (typically the
    first visitors of the home page). The memory bench (200 reruns) shows no growth.
    Returns True if it froze now.
    """
    stage = "torch" if "torch" in sys.modules else "base"
    if stage in _FROZEN:
        return False
    with _FREEZE_LOCK:
        if stage in _FROZEN:
            return False
        gc.collect()
        gc.freeze()
        _FROZEN.add(stage)
    return True


def _nav_link(page: PageInfo) -> None:
    try:
        st.page_link(page.path, label=page.title, icon=page.icon)
    except StreamlitPageNotFoundError:
        # Only when the running main script is not app.py, e.g. `AppTest.from_file(
        # "pages/3_RoPE_rotation.py")`: Streamlit then knows no other pages. A plain relative
        # link keeps such tests (and the page) working. In the served app this never happens;
        # tests/test_params.py checks that every PAGES path exists.
        st.markdown(f"[{page.title}]({params.page_url_path(page.path) or './'})")


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
