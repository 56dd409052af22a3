"""The shape of a page's declaration: `Page`, and the `Step`, `DeepLink` and `BenchSettings` it holds.

Pure data (a page's URL path and order are Streamlit's rule, read through explorer.compat). Each page declares one `Page` in its module under `explorer/site/`;
`explorer.manifest` collects them, and navigation, the tour, the snippets, the end-to-end tests
and the benchmarks are derived from those declarations (see docs/ARCHITECTURE.md, "Recipes":
add a page).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from explorer import compat
from explorer.paramspec import Param

__all__ = ["BenchSettings", "DeepLink", "Page", "Step"]


@dataclass(frozen=True)
class Step:
    """One step of the guided tour: the values that make the point (registry keys; every other
    parameter of the page at its default) and the narration said while it is on screen.

    ``id`` names the step in links (``?step=<id>``) and must never change once published. Left
    empty, it is ``<page slug>-<k>`` for the k-th step of the page that has no id of its own
    (explorer.manifest.step_ids), so a new step keeps the others' ids when it goes at the end of
    its page's list or is given an id of its own.
    """

    params: Mapping[str, Any]
    narration: str
    id: str = ""


@dataclass(frozen=True)
class DeepLink:
    """A link the end-to-end tests open on a cold and a warm server."""

    query: Mapping[str, Any]  # non-default URL parameters, each a control on the page
    slider: str  # the slider moved with ArrowRight afterwards
    chart: int  # index (page order) of a chart that must change when the slider moves


@dataclass(frozen=True)
class BenchSettings:
    """What bench/run_all.py measures on the page."""

    max_query: Mapping[str, str]  # every control at its maximum (the heaviest tab open)
    slider: str | None = None  # the slider of the interaction bench (ArrowRight -> redraw)
    slider_chart: int = 0  # the chart that changes with it


@dataclass(frozen=True)
class Page:
    """Everything the app knows about one page, declared once.

    script    the page script, relative to the entry script ("app.py", "pages/2_Clock_hands.py");
              its number sets the order in the navigation and the tour.
    slug      short stable name (snippet, CSV and widget keys; test ids): "clocks".
    title     the human title (navigation, browser tab, tour panel).
    icon      ":material/name:" (the favicon is then explorer.layout.FAVICON) or an emoji.
    params    the parameters only this page uses (shared ones live in explorer.vocabulary).
    snippet   values -> a complete Python script reproducing the page's numbers with posenc.
    tour      this page's steps of the guided tour, in order.
    deep_link the end-to-end tests' deep link; bench: the benchmarks' settings.
    """

    script: str
    slug: str
    title: str
    icon: str
    snippet: Callable[[Mapping[str, Any]], str]
    deep_link: DeepLink
    bench: BenchSettings
    params: tuple[Param, ...] = ()
    tour: tuple[Step, ...] = ()
    presets: bool = False  # has the "Real model" select (explorer.presets_ui)

    @property
    def url_path(self) -> str:
        """The page's URL path ("" for the home page), as Streamlit serves it."""
        return compat.page_url_path(self.script)

    @property
    def order(self) -> tuple[float, str]:
        """Position in the navigation, as Streamlit orders legacy pages: entry script first, then N."""
        return compat.page_order(self.script)
