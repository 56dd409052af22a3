"""On the phone and on the projector, in Chromium: every page and tab fits the screen, no chart text
is cut to "…", presentation mode shows a page's controls (and, where the page allows, its main
chart) in the first screen, the tour brings its narration back into view, and axe-core finds no
serious or critical problem in the app's own content.

Viewports: 360 × 780 and 390 × 844 phones, 1024 × 768 and 1280 × 800 laptops with the sidebar open, 1280 × 720 and
1920 × 1080 with ?present=1, light and dark.
Screenshots of the phone and projector views go to $E2E_SCREENSHOT_DIR, when it is set (none otherwise).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    StreamlitServer,
    app_view_js,
    exceptions,
    launch_chromium,
    require_browser,
    wait_charts_drawn,
    wait_idle,
)
from test_e2e_drag import COUNT_RUNS_JS

from explorer import widgets
from explorer.manifest import PAGES, TOUR

#: Every page (the lab at its defaults shows its shipped results: nothing trains).
CHECKED = list(PAGES)
PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1280, "height": 720}
WIDE = {"width": 1920, "height": 1080}

#: In presentation mode at 1280 × 720, at least this many pixels of a page's main chart are in the
#: first screen (its title and the top of its plot), on every page.
CHART_VISIBLE_PX = 100
#: The viewports every page is checked at (its other tabs at each group's first, the narrowest), in
#: two groups that share one page load per colour scheme: the
#: phones (no presentation mode; "phone-360" is the narrowest phone the layout is made for) and the
#: projectors (?present=1). Within a group the browser window is resized, as a user turning a phone
#: or moving a window between screens does, and the layout must follow.
GROUPS = {
    "phones": ([{"width": 360, "height": 780}, PHONE], False),
    "projectors": ([PROJECTOR, WIDE], True),
    # laptops, the sidebar open beside the page (no presentation mode): the page's column is about 540 px at 1024
    # and 790 px at 1280, narrower than presentation mode's at 1280 (the invariance chart's two columns of sliders ran
    # past the screen's edge there, and RoPE's at 1024 and 1100). RoPE's plane takes its sliders in two columns where its
    # card is 44 rem wide (explorer.assets): from 1272 px here, their tightest fit; at 1200 they are one column (two ran
    # past the card's border there when the window's width chose)
    "laptops": (
        [
            {"width": 1024, "height": 768},
            {"width": 1200, "height": 800},
            {"width": 1272, "height": 800},
            {"width": 1280, "height": 800},
        ],
        False,
    ),
}
#: axe-core rules whose serious findings come from Streamlit's own markup, not the app's content
#: (see docs/ARCHITECTURE.md, "Multipage and URL"): none so far.
STREAMLIT_RULES: frozenset[str] = frozenset()

OVERFLOW_JS = """() => {
  const main = document.querySelector('[data-testid=stMain]') || document.documentElement;
  const wide = [];
  const scrolls = (el) => {  // inside a box that scrolls sideways (a wide formula or table): fine
    for (let a = el.parentElement; a && a !== main; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if ((o === 'auto' || o === 'scroll') && a.getBoundingClientRect().right <= window.innerWidth + 1) return true;
    }
    return false;
  };
  for (const el of document.querySelectorAll('[data-testid=stMain] [data-testid]')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > window.innerWidth + 1 && !scrolls(el)) wide.push(el.getAttribute('data-testid') + ' to ' + Math.round(r.right));
  }
  return {page: document.documentElement.scrollWidth > window.innerWidth + 1,
          main: main.scrollWidth > main.clientWidth + 1, wide: wide.slice(0, 5)};
}"""
#: A chart's own sliders (their names, tracks and values) that end past the right border of the bordered card they stand
#: in: still on the screen, so OVERFLOW_JS does not see them (RoPE's plane's at 1,200-1,279 px with the sidebar open).
PAST_CARD_JS = """() => [...document.querySelectorAll('[data-testid=stMain] form.vega-bindings .vega-bind')].flatMap((b) => {
  for (let a = b.parentElement; a; a = a.parentElement) {
    const st = getComputedStyle(a);
    if (st.borderRightStyle !== 'none' && parseFloat(st.borderRightWidth) > 0) {
      const over = b.getBoundingClientRect().right - (a.getBoundingClientRect().right - parseFloat(st.borderRightWidth));
      return over > 0.5 ? [(b.querySelector('.vega-bind-name')?.textContent || '?').trim() + ' by ' + Math.round(over)] : [];
    }
  }
  return [];
})"""
#: The least height (px) of a chart's plot: Streamlit's default autosize ("fit") squeezes title,
#: legend and axes into a chart's height, so on a phone, where a long title wraps to several lines,
#: the plot itself could shrink to nothing (Context extension's charts did, at 390 px).
MIN_PLOT_PX = 60
#: Each SVG chart's plot height: the root view's background path (M0,0 h<width> v<height> …). A
#: concatenation's root has no plot of its own (its views are not measured), nor do canvas charts
#: draw any DOM.
PLOT_HEIGHTS_JS = """() => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')].flatMap((el, i) => {
  const bg = el.querySelector('svg.marks g.mark-group.role-frame.root > g > path.background');
  const concat = el.querySelector('svg.marks g.mark-group.role-frame.root g.role-scope[class*="concat_"]');
  const m = bg && /h(-?[0-9.]+)v(-?[0-9.]+)/.exec(bg.getAttribute('d') || '');
  return m && !concat && parseFloat(m[1]) > 0 && el.getBoundingClientRect().width > 0 ? [[i, parseFloat(m[2])]] : [];
})"""
ELLIPSIS_JS = """() => Array.from(document.querySelectorAll('[data-testid=stVegaLiteChart] svg text'))
  .map(t => t.textContent).filter(s => s.trim().endsWith('…'))"""
FIRST_SCREEN_JS = """(keys) => {
  const h = window.innerHeight;
  const controls = '[data-testid=stSlider], [data-testid=stNumberInput], [data-testid=stRadio], '
    + '[data-testid=stSelectbox], [data-testid=stTextArea], [data-testid=stTextInput], [data-testid=stSegmentedControl], '
    + '[data-testid=stVegaLiteChart] form.vega-bindings input';  // a chart's own sliders (explorer.liveparam)
  const control = document.querySelector('[data-testid=stMain] :is(' + controls + ')');
  const main = keys && keys.main ? keys.main : '[data-testid=stVegaLiteChart], [data-testid=stTable]';
  const chart = document.querySelector('[data-testid=stMain] :is(' + main + ')');
  const top = (el) => el ? el.getBoundingClientRect().top : null;
  const keyed = ((keys && keys.keys) || []).map(k => document.querySelector('[data-testid=stMain] .st-key-' + k))
    .filter(el => el).map(el => ({top: el.getBoundingClientRect().top, bottom: el.getBoundingClientRect().bottom}));
  const panel = document.querySelector('.st-key-tour_panel');
  return {control: top(control), chart: top(chart), keyed, height: h,
          panel: panel ? {top: panel.getBoundingClientRect().top, bottom: panel.getBoundingClientRect().bottom} : null};
}"""


@pytest.fixture(scope="module")
def browser():
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = launch_chromium(pw)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def server(browser):
    with StreamlitServer() as srv:
        yield srv


@pytest.fixture(scope="module")
def shots() -> Path | None:
    """Where screenshots go: $E2E_SCREENSHOT_DIR, or nowhere (a screenshot is for a person to look at)."""
    where = os.environ.get("E2E_SCREENSHOT_DIR")
    return Path(where) if where else None


@pytest.fixture(scope="module")
def tab(browser):
    """The module's one browser tab. Every test opens its page in it (a new Streamlit session each
    time): in one context Streamlit's bundle comes from the browser's cache, about a second less per
    page load than a new context on 2 cores (`leave` ends the session after each test)."""
    context = browser.new_context()
    context.set_default_timeout(60_000)
    yield context.new_page()
    context.close()


def open_page(tab, server, page, query: dict | None = None, *, viewport=PHONE, scheme="light") -> None:
    """Open `page` in `tab` at `viewport`, with the system colour scheme `scheme` set before it loads."""
    tab.set_viewport_size(viewport)
    tab.emulate_media(color_scheme=scheme)
    goto(tab, server, page, query)


def leave(tab) -> None:
    """End the page's Streamlit session (as closing the browser tab does)."""
    tab.goto("about:blank")


def goto(tab, server, page, query: dict | None = None) -> None:
    """Open `page` in an open browser tab and wait until it has drawn every chart."""
    tab.goto(server.url(page.script, query))
    wait_idle(tab, title=page.title)
    wait_charts_drawn(tab)
    tab.wait_for_timeout(300)


def in_first_screen(top, height: float, visible: float = 0) -> bool:
    return top is not None and 0 <= top and top + visible <= height


def tab_views(page) -> list[tuple[str, str]]:
    """(parameter, option) for every tab of the page other than its default one."""
    out = []
    for param in page.params:
        if param.kind == "tabs":
            out += [(param.key, str(option)) for option in param.options if option != param.default]
    return out


def open_tab(tab, page, key: str, option: str) -> None:
    """Click the tab `option` of the open page, as a user does (no page load: the page reruns and
    draws the tab), and wait until the link records it and its charts are drawn."""
    tab.get_by_role("tab", name=option, exact=True).click()
    tab.wait_for_url(f"**{key}=**")
    wait_idle(tab, title=page.title)
    wait_charts_drawn(tab)
    tab.wait_for_timeout(300)
    selected = tab.locator("[role=tab][aria-selected=true]").all_inner_texts()
    assert option in selected, f"{page.slug}: clicked the tab {option!r}, the open tabs are {selected}"


SETTLED_JS = """() => Array.from(document.querySelectorAll('[data-testid=stMain] [data-testid=stVegaLiteChart]'))
  .map(c => { const r = c.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)].join('x'); }).join(',')"""


#: The app's background is dark (the luminance of stApp's background colour below one half).
DARK_JS = """() => {
  const [r, g, b] = getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor.match(/\\d+/g).map(Number);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
}"""


def wait_layout_settled(tab, title: str, rounds: int = 3, pause_ms: int = 120) -> None:
    """After a resize or a theme switch: wait until the charts' boxes have stopped changing (the same
    for `rounds` looks `pause_ms` apart) and the app is idle (a resize can rerun a page)."""
    last, same = None, 0
    for _ in range(60):
        tab.wait_for_timeout(pause_ms)
        now = tab.evaluate(SETTLED_JS)
        same = same + 1 if now == last else 0
        last = now
        if same >= rounds:
            break
    wait_idle(tab, title=title)
    wait_charts_drawn(tab)


#: Pages whose main output is not a chart: (a link that gives it something to show, the CSS
#: selector of that output). Model configs is a form: its output is the reading of the pasted
#: config (the verdict and every problem, then the numbers); its only chart, the NTK converter's,
#: is a side tool further down. The first screen must show the verdict and, under it, the first
#: of the numbers read (the head size), label and value. The projectors open this link.
MAIN_OUTPUT = {"configs": ({"cfg_example": "Gemma 3 4B"}, ".st-key-cfg_reading [data-testid=stMetric]")}
#: Where axe-core runs, one run per page for each: (group, colour scheme). Both themes without
#: presentation mode (phones) and the dark projector, whose larger type and contrast rules differ.
AXE_RUNS = {("phones", "light"), ("phones", "dark"), ("projectors", "dark")}


def axe_problems(tab, where: str) -> list[str]:
    """axe-core's serious and critical findings on the open page, outside Streamlit's own markup."""
    from axe_playwright_python.sync_playwright import Axe

    out = []
    for violation in Axe().run(tab).response["violations"]:
        if violation["impact"] in ("serious", "critical") and violation["id"] not in STREAMLIT_RULES:
            targets = [node["target"] for node in violation["nodes"][:3]]
            out.append(f"{where}: {violation['id']} ({violation['impact']}): {targets}")
    return out


def first_screen_problems(tab, selector: str | None, where: str) -> list[str]:
    """Presentation mode at 1280 × 720, before any scrolling: a main control and the first
    CHART_VISIBLE_PX of the page's main output (its first chart; on Compare methods the summary
    table, which comes first; on Model configs the reading of an example config) in view."""
    seen = tab.evaluate(FIRST_SCREEN_JS, {"main": selector})
    out = []
    if not in_first_screen(seen["control"], seen["height"]):
        out.append(f"{where}: no control in the first screen {seen}")
    if not in_first_screen(seen["chart"], seen["height"], CHART_VISIBLE_PX):
        out.append(f"{where}: main chart not in the first screen {seen}")
    return out


@pytest.mark.parametrize("page", CHECKED, ids=[p.slug for p in CHECKED])
@pytest.mark.parametrize("group", list(GROUPS))
def test_every_page_and_tab_fits_and_no_chart_text_is_cut(tab, server, shots, group, page):
    """One page load per colour scheme (the system setting the browser reports when the page opens),
    checked the way a user meets it:

    * the default view at every viewport of the group (phones: 360 px in light, 390 px in dark; laptops
      1024, 1200, 1272 then 1280 px, in light only; projectors: both sizes in light, 1280 x 720 in dark), every other tab at the
      narrowest, where text is likeliest to be cut or to overflow, and on phones and laptops the last tab again after
      the window has grown: no horizontal overflow of the page, the main area or an element; no chart
      text ending in "…"; no exception. The window is resized from viewport to viewport and the other
      tabs are opened by clicking them, as a user does (each tab's link is opened by its page's
      AppTest, tests/test_page_*.py). The geometry does not depend on the theme (the same fonts,
      sizes, CSS).
    * projectors, both schemes, right after the load at 1280 × 720: presentation mode shows a
      control and the page's main output in the first screen (`first_screen_problems`).
    * axe-core over the page for the (group, scheme) pairs in AXE_RUNS.
    * no warning from Vega or Vega-Lite in the browser's console (`vega_warnings`)."""
    viewports, present = GROUPS[group]
    query, selector = MAIN_OUTPUT.get(page.slug, ({}, None)) if present else ({}, None)
    query = {**query, "present": "1"} if present else query or None
    problems = []
    warned = vega_warnings(tab)

    def check_each_viewport(tab, view: str, scheme: str, sizes: list[dict], shoot: bool = False) -> None:
        for viewport in sizes:
            if viewport != tab.viewport_size:
                tab.set_viewport_size(viewport)
                wait_layout_settled(tab, page.title)
            where = f"{page.slug} {viewport['width']}x{viewport['height']} {view} {scheme}"
            overflow = tab.evaluate(OVERFLOW_JS)
            if overflow["page"] or overflow["main"] or overflow["wide"]:
                problems.append(f"{where}: wider than the screen {overflow}")
            past = tab.evaluate(PAST_CARD_JS)
            if past:
                problems.append(f"{where}: sliders past their card's border (px): {past[:3]}")
            cut = tab.evaluate(ELLIPSIS_JS)
            if cut:
                problems.append(f"{where}: chart text cut: {cut[:3]}")
            squashed = [(i, h) for i, h in tab.evaluate(PLOT_HEIGHTS_JS) if h < MIN_PLOT_PX]
            if squashed:
                problems.append(f"{where}: plots squashed below {MIN_PLOT_PX} px (chart, px): {squashed}")
            shown = exceptions(tab)
            if shown:
                problems.append(f"{where}: exception {shown[:1]}")
            if shoot and shots:
                name = f"{page.slug}_{viewport['width']}_{scheme}{'_present' if present else ''}.png"
                tab.screenshot(path=str(shots / name))

    try:
        # laptops: the light theme only (the geometry does not depend on the theme, which the other groups check)
        for scheme in ("light",) if group == "laptops" else ("dark", "light"):
            dark = scheme == "dark"
            # Phones: dark opens at the wider phone, light at the narrowest (the default view at each width;
            # the geometry is the same in both themes). Projectors: both at 1280 x 720 (the first screen).
            opened = viewports[-1] if dark and not present else viewports[0]
            open_page(tab, server, page, query, viewport=opened, scheme=scheme)
            try:
                where = f"{page.slug} {group} {scheme}"
                if dark:
                    assert tab.evaluate(DARK_JS), f"{page.slug}: the app did not open in its dark theme"
                if present:
                    problems += first_screen_problems(tab, selector, where)
                if (group, scheme) in AXE_RUNS:
                    problems += axe_problems(tab, where)
                if dark:
                    check_each_viewport(tab, "defaults", scheme, [opened], shoot=True)
                    continue
                # light, projectors: the wider screen, then back to 1280 x 720 for the other tabs
                check_each_viewport(tab, "defaults", scheme, viewports[::-1] if present else viewports[:1], shoot=True)
                view = "defaults"
                for key, option in tab_views(page):
                    open_tab(tab, page, key, option)
                    view = f"{key}={option}"
                    check_each_viewport(tab, view, scheme, viewports[:1])
                if not present:  # light, phones: the last view, after turning the phone to the wider width
                    check_each_viewport(tab, view, scheme, viewports[1:])
            finally:
                leave(tab)
    finally:  # the module shares the tab
        tab.remove_listener("console", warned.listener)
    problems += [f"{page.slug} {group}: the console says {text!r}" for text in sorted(set(warned))]
    assert not problems, "\n".join(problems)


class _Warnings(list):
    listener: Any


def vega_warnings(tab) -> _Warnings:
    """The warnings Vega and Vega-Lite log in `tab`'s console from now on (their logger writes "WARN …"): a spec that
    asks for something they cannot do (a layer whose data are empty on a scale's domain: "Infinite extent"; a
    concatenation asked to fit its container: "Autosize fit"; an encoding a mark drops). Stop with
    ``tab.remove_listener("console", found.listener)``."""
    found = _Warnings()

    def listener(message) -> None:
        if message.text.startswith("WARN"):
            found.append(message.text)

    found.listener = listener
    tab.on("console", listener)
    return found


def test_every_tour_step_opens_with_its_narration_and_its_point_in_view(tab, server):
    """1280 × 720, ?present=1, from step 1 through the last by PageDown (what a presenter's clicker
    sends), each step: the narration panel (saying "step N of M") whole in the first screen, and the
    step's key chart or control there too: the page's main chart, or a control the step sets."""
    problems = []
    open_page(tab, server, TOUR[0].page, {"step": "1", "present": "1"}, viewport=PROJECTOR)
    try:
        for n, step in enumerate(TOUR, start=1):
            if n > 1:  # the presenter's clicker: PageDown is Next, on the same page or on to the next
                tab.keyboard.press("PageDown")
                tab.wait_for_url(re.compile(rf".*[?&]step={step.id}(&|$).*"), timeout=60_000)
                wait_idle(tab, title=step.page.title)
                wait_charts_drawn(tab)
                tab.wait_for_timeout(300)
            where = tab.evaluate(FIRST_SCREEN_JS, {"keys": [str(k) for k in step.params]})
            panel = where["panel"]
            if panel is None or not (0 <= panel["top"] and panel["bottom"] <= where["height"]):
                problems.append(f"step {n}: the narration is not whole in the first screen {panel}")
            elif f"step {n} of {len(TOUR)}" not in tab.locator(".st-key-tour_panel").inner_text():
                problems.append(f"step {n}: the panel does not say 'step {n} of {len(TOUR)}'")
            chart = in_first_screen(where["chart"], where["height"], CHART_VISIBLE_PX)
            control = any(in_first_screen(k["top"], where["height"]) for k in where["keyed"])
            if not (chart or control):
                problems.append(f"step {n} ({step.page.slug}): neither its chart nor its controls in view {where}")
    finally:
        leave(tab)
    assert not problems, "\n".join(problems)


def same_page_step() -> int:
    """A step (1-based) whose next step is on the same page."""
    return next(n for n in range(1, len(TOUR)) if TOUR[n - 1].page.slug == TOUR[n].page.slug)


def other_page_step() -> int:
    """A step (1-based) whose next step is on another page."""
    return next(n for n in range(1, len(TOUR)) if TOUR[n - 1].page.slug != TOUR[n].page.slug)


@pytest.mark.parametrize("which", ["same page", "next page"])
def test_stepping_the_tour_from_a_scrolled_page_brings_the_narration_into_view(tab, server, which):
    n = same_page_step() if which == "same page" else other_page_step()
    open_page(tab, server, TOUR[n - 1].page, {"step": str(n), "present": "1"}, viewport=PROJECTOR)
    try:
        tab.mouse.move(PROJECTOR["width"] // 2, PROJECTOR["height"] // 2)
        tab.mouse.wheel(0, 3000)  # the user scrolls down (a scroll the page made itself is undone)
        tab.wait_for_timeout(600)
        panel = tab.locator(".st-key-tour_panel")
        assert panel.bounding_box()["y"] < 0  # scrolled out of view
        tab.keyboard.press("PageDown")
        tab.wait_for_url(f"**step={TOUR[n].id}**", timeout=60_000)
        wait_idle(tab)
        tab.wait_for_function(
            f"() => (document.querySelector('.st-key-tour_panel') || {{innerText: ''}}).innerText.includes('step {n + 1} of')"
        )
        tab.wait_for_timeout(800)
        box = tab.locator(".st-key-tour_panel").bounding_box()
        assert box is not None and 0 <= box["y"] < PROJECTOR["height"], box
    finally:
        leave(tab)


def test_the_tab_parameters_exist():
    """tab_views reads the pages' declarations: every tabs parameter is registered."""
    for page in CHECKED:
        for key, _ in tab_views(page):
            assert widgets.get(key).kind == "tabs"


#: Ten long words: the sentence the audit typed (its words overlapped at every width).
LONG_SENTENCE = (
    "transformers understand positional information through carefully engineered sinusoidal rotations everywhere today"
)
WORD_BOXES_JS = """() => {
  const svg = document.querySelector('[data-testid=stVegaLiteChart] svg');
  return Array.from(svg.querySelectorAll('.mark-text.role-mark text')).map(t => {
    const r = t.getBoundingClientRect();
    return {text: t.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom};
  }).filter(b => b.text);
}"""


def overlaps(boxes: list[dict], slack: float = 1.0) -> list[tuple[str, str]]:
    """Pairs of words whose drawn boxes intersect (by more than `slack` px each way)."""
    out = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if (
                min(a["right"], b["right"]) - max(a["left"], b["left"]) > slack
                and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > slack
            ):
                out.append((a["text"], b["text"]))
    return out


@pytest.mark.parametrize(
    "viewport, present, sentence",
    [
        (PHONE, False, LONG_SENTENCE),
        (WIDE, True, LONG_SENTENCE),
        (PHONE, False, " ".join(f"longword{i:02d}x" for i in range(24))),
        (PROJECTOR, True, "the cat sat on the mat"),
    ],
    ids=["phone-long", "1920-present-long", "phone-24-longest", "1280-present-default"],
)
def test_the_shuffle_diagrams_words_never_overlap(tab, server, shots, viewport, present, sentence):
    home = next(p for p in CHECKED if p.slug == "home")
    query = {"sentence": sentence, **({"present": "1"} if present else {})}
    open_page(tab, server, home, query, viewport=viewport)
    try:
        boxes = tab.evaluate(WORD_BOXES_JS)
        words = sentence.split()
        assert sorted(b["text"] for b in boxes) == sorted(words * 2)  # every word twice, never shortened
        assert not overlaps(boxes), overlaps(boxes)[:5]
        chart = tab.locator("[data-testid=stVegaLiteChart]").first.bounding_box()
        assert all(chart["x"] - 1 <= b["left"] and b["right"] <= chart["x"] + chart["width"] + 1 for b in boxes)
        if shots:
            tab.locator("[data-testid=stVegaLiteChart]").first.screenshot(
                path=str(shots / f"shuffle_{viewport['width']}_{len(words)}.png")
            )
    finally:
        leave(tab)


def test_the_clock_controls_sit_above_the_clocks_and_step_p_by_one_in_the_browser(tab, server):
    """Clock hands at 1280 × 720, ?present=1: the in-chart controls (play, position slider, the exact-p
    box, speed) are right above the clocks and in the first screen, larger than Streamlit's default
    (presentation mode's rem); the box's up arrow moves p by exactly one, the slider with it, and the
    link follows in one server run (the slider is the URL's p)."""
    clocks = next(p for p in CHECKED if p.slug == "clocks")
    open_page(tab, server, clocks, {"present": "1", "m": "5"}, viewport=PROJECTOR)
    try:
        where = tab.evaluate(
            """() => {
          const c = document.querySelector('.st-key-clock_chart');
          const form = c.querySelector('form.vega-bindings').getBoundingClientRect();
          const svg = c.querySelector('.vega-embed > svg').getBoundingClientRect();
          const name = c.querySelector('.vega-bind-name');
          const tracks = [...c.querySelectorAll('form.vega-bindings input[type=range]')].map((i) => i.getBoundingClientRect().left);
          return {form_top: form.top, form_bottom: form.bottom, svg_top: svg.top, font: parseFloat(getComputedStyle(name).fontSize), tracks};
        }"""
        )
        assert where["form_bottom"] <= where["svg_top"] + 1 and 0 <= where["form_top"] < PROJECTOR["height"], where
        assert where["font"] >= 19, where  # 1rem at presentation mode's 20-px rem (Streamlit's own: 0.875rem)
        # p, d, b and the number of clocks: their tracks start at one x, one under another
        assert len(where["tracks"]) == 4 and max(where["tracks"]) - min(where["tracks"]) < 1, where["tracks"]
        # window.__runs: script runs from here on, a short run's start and end in one batch counted too (reading the
        # state when the batch arrived missed such a run under load: this test timed out waiting for it in CI)
        tab.evaluate(COUNT_RUNS_JS)
        box = tab.locator(".st-key-clock_chart input[type=number]")
        box.focus()
        tab.keyboard.press("ArrowUp")
        tab.wait_for_timeout(500)
        readout = tab.evaluate(
            """() => Array.from(document.querySelectorAll('.st-key-clock_chart svg text'))
              .map(t => t.textContent).find(s => s.startsWith('position p ='))"""
        )
        assert readout == "position p = 6.00"
        assert tab.locator('.st-key-clock_chart input[name="m_m"]').input_value() == "6"
        tab.wait_for_function("() => window.location.search.includes('m=6')", timeout=15_000)  # slower under load
        # the release's run: the link can change before it starts (on a busy CI machine, more than a second before)
        tab.wait_for_function("() => window.__runs >= 1", timeout=15_000)
        tab.wait_for_timeout(1000)
        assert tab.evaluate("() => window.__runs") == 1  # one run, not one per step
    finally:
        leave(tab)


#: An iPhone's Safari: what `explorer.mode.on_a_phone` recognises ("Mobi").
PHONE_AGENT = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/17.5 Mobile/15E148 Safari/604.1"
)
#: The vision heatmaps' canvas as drawn, its own size, and its box (which scrolls sideways where the canvas is wider).
VISION_SCALE_JS = """(key) => {
  const canvas = document.querySelector(`[class*="st-key-${key}"] .vega-embed > canvas`);
  const box = document.querySelector(`[class*="st-key-${key}"]`);
  return {drawn: canvas.getBoundingClientRect().width, natural: parseFloat(canvas.style.width),
          box: box.clientWidth, scrolled: box.scrollWidth};
}"""


@pytest.mark.parametrize(
    "where",
    [
        pytest.param({"viewport": PHONE, "user_agent": PHONE_AGENT, "is_mobile": True, "has_touch": True}, id="phone"),
        pytest.param({"viewport": {"width": 1280, "height": 800}}, id="laptop-with-sidebar"),
        pytest.param({"viewport": {"width": 1280, "height": 720}, "query": {"present": "1"}}, id="present-1280"),
    ],
)
@pytest.mark.parametrize("chart", ["vis_live_", "vis_res_live_"], ids=["query", "resolution"])
def test_the_vision_heatmaps_fit_their_column_unscaled(browser, server, shots, where, chart, request):
    """The vision page's four heatmaps are one chart (one query, moved in the browser) drawn on a canvas,
    which cannot reflow or shrink (Vega would pick the wrong patch under a click on a scaled canvas). So
    they fit their column at their own size: a phone (its User-Agent says "Mobi") gets them one per row;
    on a 1280-px laptop with the sidebar open, and in presentation mode at 1280 × 720, the 2 × 2 grid
    fits, its legends under the panels. So do the Resolution tab's positions and three heatmaps (one chart, its two
    sides moved in the browser): one heatmap a row on a phone, three side by side elsewhere."""
    vision = next(p for p in CHECKED if p.slug == "vision")
    options = {k: v for k, v in where.items() if k != "query"}
    context = browser.new_context(**options)
    context.set_default_timeout(60_000)
    tab = context.new_page()
    try:
        query = {**where.get("query", {}), **({"vis_view": "Resolution"} if chart == "vis_res_live_" else {})}
        tab.goto(server.url(vision.script, query or None))
        wait_idle(tab, title=vision.title)
        wait_charts_drawn(tab)
        size = tab.evaluate(VISION_SCALE_JS, chart)
        assert size["drawn"] == pytest.approx(size["natural"], abs=0.5), size  # not scaled
        assert size["scrolled"] <= size["box"] + 1, size  # no sideways scroll: the whole chart is in view
        overflow = tab.evaluate(OVERFLOW_JS)
        assert not (overflow["page"] or overflow["main"] or overflow["wide"]), overflow
        if shots:
            tab.locator(f'[class*="st-key-{chart}"]').first.screenshot(
                path=str(shots / f"vision_{request.node.callspec.id}.png")
            )
    finally:
        context.close()


def test_the_converter_plot_on_a_phone_is_about_as_tall_as_on_a_desktop(browser, server):
    """Model configs' wavelength chart: Streamlit fits title, legend and axes into the chart's height, and a phone
    wraps the title and stacks the legend, so at a desktop's height the plot was left ≈ 90 px for six decades of
    wavelength. A phone (its User-Agent says "Mobi") gets a taller chart; its plot is at least 90 % of a desktop's."""
    configs = next(p for p in CHECKED if p.slug == "configs")
    heights = {}
    for name, options in (
        ("phone", {"viewport": PHONE, "user_agent": PHONE_AGENT, "is_mobile": True, "has_touch": True}),
        ("desktop", {"viewport": {"width": 1600, "height": 900}}),
    ):
        context = browser.new_context(**options)
        context.set_default_timeout(60_000)
        tab = context.new_page()
        try:
            tab.goto(server.url(configs.script))
            wait_idle(tab, title=configs.title)
            wait_charts_drawn(tab)
            chart = tab.locator('[class*="st-key-conv_live"] .vega-embed').first
            heights[name] = chart.evaluate(app_view_js("(view) => view.height()"))
        finally:
            context.close()
    assert heights["phone"] >= 0.9 * heights["desktop"] > 0, heights


def read_on_a_phone(browser, server, slug: str, query: dict, js: str, width: int = PHONE["width"]):
    """Open page `slug` at `query` as a phone `width` px wide (its User-Agent says "Mobi"), wait until its charts are
    drawn, and return what `js` reads there."""
    page = next(p for p in CHECKED if p.slug == slug)
    viewport = {**PHONE, "width": width}
    context = browser.new_context(viewport=viewport, user_agent=PHONE_AGENT, is_mobile=True, has_touch=True)
    context.set_default_timeout(60_000)
    tab = context.new_page()
    try:
        tab.goto(server.url(page.script, query))
        wait_idle(tab, title=page.title)
        wait_charts_drawn(tab)
        return tab.evaluate(js)
    finally:
        context.close()


#: Each table's column headers and whether it is wider than its box.
TABLES_JS = """() => [...document.querySelectorAll('[data-testid=stTable]')].map((t) => ({
  heads: [...t.querySelectorAll('thead th')].map((h) => h.innerText.trim()).filter(Boolean),
  rows: t.querySelectorAll('tbody tr').length, wide: t.scrollWidth > t.clientWidth + 1}))"""


def test_compare_on_a_phone_gives_each_method_a_table_that_fits(browser, server):
    """Compare methods' summary is five columns of sentences: on a phone (its User-Agent says "Mobi") they were
    squeezed to a word or two a line and the last one cut off at the screen's edge. There each method gets its own
    table, headed by its name, its verdicts one under another, each table as wide as the screen."""
    from explorer.text.compare import METHOD_LABELS

    tables = read_on_a_phone(browser, server, "compare", {}, TABLES_JS)
    assert [t["heads"] for t in tables] == [[name] for name in METHOD_LABELS.values()], tables
    assert all(t["rows"] >= 4 and not t["wide"] for t in tables), tables


#: For each table (st.dataframe) whose toolbar shows: the toolbar's top and the bottom of what stands above the table.
TOOLBAR_JS = """() => [...document.querySelectorAll('[data-testid=stDataFrame]')].flatMap((d) => {
  const bar = d.querySelector('[data-testid=stElementToolbar]');
  const box = d.closest('[data-testid=stElementContainer]');
  const above = box && box.previousElementSibling;
  if (!bar || !above || getComputedStyle(bar).opacity === '0') return [];
  return [{bar: bar.getBoundingClientRect().top, above: above.getBoundingClientRect().bottom}];
})"""


def test_on_a_touch_screen_a_tables_toolbar_covers_nothing_above_it(browser, server):
    """A touch screen shows a table's toolbar all the time, above the table: on Clock hands it covered the end of the
    heading "The numbers at p = 5". There the table stands lower, and the toolbar in the room left above it."""
    bars = read_on_a_phone(browser, server, "clocks", {}, TOOLBAR_JS)
    assert bars, "no table with its toolbar shown"
    assert all(b["bar"] >= b["above"] - 1 for b in bars), bars


#: Each label of the curves' legend (the one chart with a symbol legend), and how far right the chart's box reaches.
CURVES_LEGEND_JS = """() => {
  const embed = [...document.querySelectorAll('.vega-embed')].find((e) => e.querySelector('.role-legend-symbol'));
  const right = embed.getBoundingClientRect().right;
  const labels = [...embed.querySelectorAll('.role-legend-label text')].map((t) => t.getBoundingClientRect());
  return {right: right, labels: labels.map((r) => [r.left, r.right])};
}"""


def test_the_curves_legend_on_a_phone_lists_every_name_whole(browser, server):
    """The sinusoidal Curves tab names each curve ("i = 21: cos, pair 10, λ = 26.5") in a legend under the plot. On a
    phone (its User-Agent says "Mobi") two columns of these names are wider than the screen, and the second column was
    cut off at the chart's edge; there the legend lists one name a row, every name inside the chart."""
    legend = read_on_a_phone(browser, server, "sinusoidal", {"sin_view": "Curves"}, CURVES_LEGEND_JS)
    assert len(legend["labels"]) >= 3, legend  # the default curves: five dimensions
    assert all(right <= legend["right"] + 1 for _, right in legend["labels"]), legend


#: For each chart with a colour bar (a gradient legend): how far down its labels reach, and where the chart's box ends.
GRADIENT_LEGENDS_JS = """() => [...document.querySelectorAll('.vega-embed')]
  .filter((e) => e.querySelector('.role-legend-gradient'))
  .map((e) => ({bottom: e.getBoundingClientRect().bottom,
    labels: Math.max(...[...e.querySelectorAll('.role-legend-label text')].map((t) => t.getBoundingClientRect().bottom))}))"""


def test_newer_encodings_colour_bars_on_a_phone_end_inside_their_chart(browser, server):
    """Newer encodings' CoPE pictures (the gates, the positions they count) carry a colour bar beside the image. It was
    as long as the whole chart, so on a phone, where the title wraps to four lines and the plot shrinks, the bar
    overhung the plot and its last label was cut off at the chart's bottom. Every label now ends inside its chart."""
    bars = read_on_a_phone(browser, server, "newer", {"newer_enc": "cope"}, GRADIENT_LEGENDS_JS)
    assert len(bars) >= 2, bars  # the gates and the positions they count
    assert all(bar["labels"] <= bar["bottom"] + 1 for bar in bars), bars


#: Each display formula's reach (px from its box's left: the furthest right of its parts) and its box's width: one that
#: reaches past its box scrolls sideways in it (the .katex element itself is as wide as the box).
FORMULAS_JS = """() => [...document.querySelectorAll('[data-testid=stMain] .katex-display')].map((d) => [
  Math.max(...[...d.querySelectorAll('.katex-html .base')].map((e) => e.getBoundingClientRect().right))
    - d.getBoundingClientRect().left, d.getBoundingClientRect().width])"""


@pytest.mark.parametrize("width", [390, 360])
@pytest.mark.parametrize("slug", ["sinusoidal", "clocks", "rope"])
def test_the_shorter_formulas_fit_a_phone_whole(browser, server, slug, width):
    """On a 390-px and a 360-px phone the display formulas of these pages fit their box whole (they ran past the
    screen's edge, cut at the box's, and scrolled); the longest formulas of other pages still scroll inside their box."""
    formulas = read_on_a_phone(browser, server, slug, {}, FORMULAS_JS, width=width)
    assert formulas and all(width <= box + 0.5 for width, box in formulas), formulas


#: Each display formula's mark of the side with more to see, and whether its style fades it, at the start, a quarter of
#: the way and at the end of its scroll (a scroll event is heard at the next frame: two frames after each).
FORMULA_SIDES_JS = """async () => {
  const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const formulas = [...document.querySelectorAll('[data-testid=stMain] .katex-display')];
  const read = () => formulas.map((d) => [d.getAttribute('data-posenc-more'), getComputedStyle(d).maskImage !== 'none']);
  const out = [read()];
  for (const at of [0.25, 1]) {
    formulas.forEach((d) => { d.scrollLeft = at * (d.scrollWidth - d.clientWidth); });
    await frames();
    out.push(read());
  }
  return out; }"""


@pytest.mark.parametrize("slug, wide", [("extension", True), ("sinusoidal", False)])
def test_a_formula_wider_than_a_phone_fades_on_the_side_with_more(browser, server, slug, wide):
    """On a 360-px phone the longest formulas scroll in their box, and nothing showed that they went on. The side with
    more to see now fades out: the right at first, both in the middle, the left at the end; a formula that fits whole
    (the sinusoid's) does not fade."""
    start, middle, end = read_on_a_phone(browser, server, slug, {}, FORMULA_SIDES_JS, width=360)
    assert start, start
    if wide:
        assert start[0] == ["right", True] and middle[0] == ["both", True] and end[0] == ["left", True], (
            start,
            middle,
            end,
        )
    else:
        assert all(f == [None, False] for f in start + middle + end), (start, middle, end)


#: The RoPE live plane's SVG: its width as drawn and its own (Vega's width attribute); how far its sliders' rows (name,
#: track, value) reach past the chart's box.
ROPE_PLANE_JS = """() => { const c = document.querySelector('[class*="st-key-rope_live"] [data-testid=stVegaLiteChart]');
  const s = c.querySelector('svg.marks');
  const right = Math.max(...[...c.querySelectorAll('.vega-bind label > *')].map((e) => e.getBoundingClientRect().right));
  return {drawn: s.getBoundingClientRect().width, own: parseFloat(s.getAttribute('width')),
          sliders_past: right - c.getBoundingClientRect().right}; }"""


@pytest.mark.parametrize(
    "width, query", [(390, {}), (390, {"head_dim": "256", "j": "127", "base": "5000000"}), (360, {"j": "31"})]
)
def test_the_rope_plane_fits_a_phone_at_its_own_size(browser, server, width, query):
    """On a phone the RoPE plane was 478 px wide, shrunk by the browser to two thirds (its words about 7 px tall): there
    its plane is smaller and its title and θ_j's read-out take more lines, so it is drawn at its own size on a 390-px
    phone (θ_j's longest figures too: j = 127 of d = 256 at b = 5,000,000), and at 90 % of it or more on a 360-px one."""
    size = read_on_a_phone(browser, server, "rope", query, ROPE_PLANE_JS, width=width)
    assert size["sliders_past"] <= 0.5, size  # every value beside its track in view (b = 5,000,000 ran 4 px past)
    if width >= 390:
        assert size["drawn"] == pytest.approx(size["own"], abs=0.5), size
    else:
        assert 0.9 * size["own"] <= size["drawn"] <= size["own"] + 0.5, size


#: The context-extension angle chart's "one full turn" label and the points it meets: [label box, boxes of the
#: points (symbols) that overlap it by more than a pixel: a text box's top is above its letters' ink].
TURN_LABEL_JS = """() => { const svg = document.querySelector('[class*="st-key-ext_live_"] svg.marks');
  const label = [...svg.querySelectorAll('text')].find((t) => t.textContent.startsWith('one full turn'));
  const box = label.getBoundingClientRect();
  const meets = [...svg.querySelectorAll('g.mark-symbol path')].map((p) => p.getBoundingClientRect())
    .filter((r) => r.width > 0 && r.right > box.left + 1 && r.left < box.right - 1 && r.bottom > box.top + 1
      && r.top < box.bottom - 1);
  return [[box.left, box.top, box.right, box.bottom], meets.map((r) => [r.left, r.top, r.right, r.bottom])]; }"""


@pytest.mark.parametrize("query", [{}, {"rope_type": "default", "train_len": "8192", "target_len": "65536"}])
def test_the_full_turn_label_sits_clear_of_the_angle_charts_points_on_a_phone(browser, server, query):
    """On a phone's narrow plot the label "one full turn, 2π" sat on its line's left end, over the fast pairs' points
    of both curves (they fall from left to right and cross the line from above): it hangs under the line there. (Where
    the curves cross the line under the label itself, a short L such as 512, a point still meets its end.)"""
    label, meets = read_on_a_phone(browser, server, "extension", query, TURN_LABEL_JS)
    assert label[2] > label[0] and meets == [], (label, meets)
