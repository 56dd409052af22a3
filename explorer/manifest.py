"""The app's pages, in order, collected from their declarations (`explorer/site/<slug>.py`).

Everything that lists pages derives from `PAGES`: the sidebar navigation (explorer.layout), the
guided tour (`TOUR`: each page's steps, in page order), the snippets and CSV footers
(explorer.exports), the end-to-end tests' deep links (tests/test_e2e.py) and the benchmarks
(bench/run_all.py). Importing this module also registers every page's own parameters in
`explorer.widgets.PARAMS`, so after it the registry is complete.

A page's module is found by name: every module in the `explorer.site` package that defines
``PAGE``; its script's number ("pages/3_…") sets its place.
"""

from __future__ import annotations

import importlib
import itertools
import pkgutil
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from explorer import site, widgets
from explorer.pagespec import Page

__all__ = ["PAGES", "TOUR", "TourStep", "page", "page_for_script", "problems", "step_ids"]


def _discover() -> tuple[Page, ...]:
    found = []
    for info in pkgutil.iter_modules(site.__path__):
        module = importlib.import_module(f"{site.__name__}.{info.name}")
        declared = getattr(module, "PAGE", None)
        if isinstance(declared, Page):
            found.append(declared)
    return tuple(sorted(found, key=lambda p: p.order))


#: THE ordered list of pages.
PAGES: tuple[Page, ...] = _discover()

for _page in PAGES:
    for _param in _page.params:
        widgets.register(_param)
del _page, _param


class TourStep(NamedTuple):
    """A step of the guided tour with the page it is on and its stable id (``?step=<id>``)."""

    page: Page
    params: dict
    narration: str
    id: str


def step_ids(page: Page) -> tuple[str, ...]:
    """The ids of `page`'s tour steps: a step's own ``id``, else ``<slug>-<k>`` for the k-th step
    without one ("compare-1"). Ids never move: new steps go at the end or bring their own id."""
    unnamed = itertools.count(1)
    return tuple(step.id or f"{page.slug}-{next(unnamed)}" for step in page.tour)


#: The guided tour: every page's steps, in page order. ``?step=<id>`` opens a step by its id (what
#: the tour writes into links); ``?step=n`` (1-based, this order) is accepted too.
TOUR: tuple[TourStep, ...] = tuple(
    TourStep(p, dict(s.params), s.narration, step_id) for p in PAGES for s, step_id in zip(p.tour, step_ids(p))
)


#: A step id: lowercase letters, digits and dashes, starting with a letter (so it is never a step number).
_STEP_ID = re.compile(r"[a-z][a-z0-9-]{0,39}")


def page(slug: str) -> Page:
    """The page declared with `slug` ("clocks"); KeyError naming the known slugs otherwise."""
    for p in PAGES:
        if p.slug == slug:
            return p
    raise KeyError(f"no page {slug!r}; known: {', '.join(p.slug for p in PAGES)}")


def page_for_script(script: str) -> Page:
    """The page whose script is `script` ("pages/3_RoPE_rotation.py")."""
    for p in PAGES:
        if p.script == script:
            return p
    raise KeyError(f"no page with script {script!r}; known: {', '.join(p.script for p in PAGES)}")


def problems() -> list[str]:
    """What is wrong with the declarations (empty when fine): duplicate slugs, scripts or URL paths,
    tour values that are not allowed, a deep link or bench setting naming an unknown parameter."""
    out: list[str] = []
    for attr in ("slug", "script", "url_path", "title"):
        values = [getattr(p, attr) for p in PAGES]
        out += [f"two pages have the {attr} {v!r}" for v in set(values) if values.count(v) > 1]
    step_max = widgets.get("step").max  # an int_slider: always has a max
    if step_max is not None and len(TOUR) > step_max:
        out.append(f"{len(TOUR)} tour steps, but the step parameter allows {step_max}")
    ids = [step.id for step in TOUR]
    out += [f"two tour steps have the id {i!r}" for i in sorted(set(ids)) if ids.count(i) > 1]
    out += [f"tour step id {i!r} is not a short lowercase name with a letter" for i in ids if not _STEP_ID.fullmatch(i)]
    for number, step in enumerate(TOUR, start=1):
        if not step.narration.strip():
            out.append(f"step {number}: no narration")
        out += [f"step {number}: {msg}" for msg in _value_problems(step.params)]
    for p in PAGES:
        out += [f"{p.slug} deep link: {msg}" for msg in _value_problems(p.deep_link.query)]
        out += [f"{p.slug} bench: {msg}" for msg in _value_problems(p.bench.max_query, raw=True)]
    return out


def _value_problems(values: Mapping[str, Any], *, raw: bool = False) -> list[str]:
    """What is wrong with typed values (`raw`: URL texts, as a link gives them)."""
    out = []
    for key, value in values.items():
        if key not in widgets.PARAMS:
            out.append(f"unknown parameter {key!r}")
        elif raw:
            try:
                widgets.get(key).parse(value)
            except widgets.ParamError as err:
                out.append(str(err))
        elif problem := widgets.get(key).problem(value):
            out.append(f"{key}={value!r} {problem}")
    return out
