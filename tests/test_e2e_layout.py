"""On the phone and on the projector, in Chromium: every page and tab fits the screen, no chart text
is cut to "…", presentation mode shows a page's controls (and, where the page allows, its main
chart) in the first screen, the tour brings its narration back into view, and axe-core finds no
serious or critical problem in the app's own content.

Viewports: a 390 × 844 phone (light and dark), 1280 × 720 and 1920 × 1080 with ?present=1.
Screenshots of the phone and projector views go to $E2E_SCREENSHOT_DIR (default: pytest's tmp_path).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from e2e_support import StreamlitServer, launch_chromium, require_browser, wait_charts_drawn, wait_idle

from explorer import params
from explorer.manifest import PAGES, TOUR

#: Every page (the lab at its defaults shows its shipped results: nothing trains).
CHECKED = list(PAGES)
PHONE = {"width": 390, "height": 844}
PROJECTOR = {"width": 1280, "height": 720}
WIDE = {"width": 1920, "height": 1080}

#: Pages whose main chart starts inside the first 1280 × 720 screen in presentation mode. The others
#: show their controls there and the chart just below (their results or formulas come first).
CHART_IN_FIRST_SCREEN = {"home", "sinusoidal", "clocks", "rope"}

#: axe-core rules whose serious findings come from Streamlit's own markup, not the app's content
#: (see docs/ARCHITECTURE.md, "Accessibility"): none so far.
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
ELLIPSIS_JS = """() => Array.from(document.querySelectorAll('[data-testid=stVegaLiteChart] svg text'))
  .map(t => t.textContent).filter(s => s.trim().endsWith('…'))"""
FIRST_SCREEN_JS = """() => {
  const h = window.innerHeight;
  const controls = '[data-testid=stSlider], [data-testid=stNumberInput], [data-testid=stRadio], '
    + '[data-testid=stSelectbox], [data-testid=stTextArea], [data-testid=stTextInput], [data-testid=stSegmentedControl]';
  const control = document.querySelector('[data-testid=stMain] :is(' + controls + ')');
  const chart = document.querySelector('[data-testid=stMain] [data-testid=stVegaLiteChart]');
  const top = (el) => el ? el.getBoundingClientRect().top : null;
  return {control: top(control), chart: top(chart), height: h};
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
def shots(tmp_path_factory) -> Path:
    return Path(os.environ.get("E2E_SCREENSHOT_DIR") or tmp_path_factory.mktemp("layout"))


def open_page(browser, server, page, query: dict | None = None, *, viewport=PHONE, scheme="light"):
    context = browser.new_context(viewport=viewport, color_scheme=scheme)
    context.set_default_timeout(60_000)
    tab = context.new_page()
    tab.goto(server.url(page.script, query))
    wait_idle(tab, title=page.title)
    wait_charts_drawn(tab)
    tab.wait_for_timeout(400)
    return context, tab


def tab_views(page) -> list[tuple[str, str]]:
    """(parameter, option) for every tab of the page other than its default one."""
    out = []
    for param in page.params:
        if param.kind == "tabs":
            out += [(param.key, str(option)) for option in param.options if option != param.default]
    return out


@pytest.mark.parametrize(
    "viewport, scheme, present",
    [(PHONE, "light", False), (PHONE, "dark", False), (PROJECTOR, "light", True), (WIDE, "dark", True)],
    ids=["phone-light", "phone-dark", "projector-1280", "projector-1920-dark"],
)
def test_every_page_fits_and_no_chart_text_is_cut(browser, server, shots, viewport, scheme, present):
    problems = []
    for page in CHECKED:
        views = [{}] + ([{key: option} for key, option in tab_views(page)] if viewport is PHONE else [])
        for view in views:
            query = {**view, **({"present": "1"} if present else {})}
            context, tab = open_page(browser, server, page, query, viewport=viewport, scheme=scheme)
            try:
                overflow = tab.evaluate(OVERFLOW_JS)
                if overflow["page"] or overflow["main"] or overflow["wide"]:
                    problems.append(f"{page.slug} {view}: wider than the screen {overflow}")
                cut = tab.evaluate(ELLIPSIS_JS)
                if cut:
                    problems.append(f"{page.slug} {view}: chart text cut: {cut[:3]}")
                if not view:
                    name = f"{page.slug}_{viewport['width']}_{scheme}{'_present' if present else ''}.png"
                    tab.screenshot(path=str(shots / name))
            finally:
                context.close()
    assert not problems, "\n".join(problems)


def test_presentation_mode_shows_the_controls_and_main_chart_first(browser, server):
    problems = []
    for page in CHECKED:
        context, tab = open_page(browser, server, page, {"present": "1"}, viewport=PROJECTOR)
        try:
            where = tab.evaluate(FIRST_SCREEN_JS)
            if where["control"] is None or not 0 <= where["control"] < where["height"]:
                problems.append(f"{page.slug}: no control in the first screen {where}")
            if page.slug in CHART_IN_FIRST_SCREEN and not (
                where["chart"] is not None and where["chart"] < where["height"]
            ):
                problems.append(f"{page.slug}: its main chart is not in the first screen {where}")
        finally:
            context.close()
    assert not problems, "\n".join(problems)


def test_stepping_the_tour_from_a_scrolled_page_brings_the_narration_into_view(browser, server):
    step_page = TOUR[2].page  # ?step=3 opens step 3's page
    context, tab = open_page(browser, server, step_page, {"step": "3", "present": "1"}, viewport=PROJECTOR)
    try:
        tab.evaluate("() => document.querySelector('[data-testid=stMain]').scrollTo({top: 100000})")
        tab.wait_for_timeout(400)
        panel = tab.locator(".st-key-tour_panel")
        assert panel.bounding_box()["y"] < 0  # scrolled out of view
        tab.keyboard.press("PageDown")
        tab.wait_for_url("**step=4**", timeout=60_000)
        wait_idle(tab)
        tab.wait_for_timeout(800)
        box = tab.locator(".st-key-tour_panel").bounding_box()
        assert box is not None and 0 <= box["y"] < PROJECTOR["height"], box
        assert "step 4 of" in tab.locator(".st-key-tour_panel").inner_text()
    finally:
        context.close()


def test_axe_finds_no_serious_problem_in_the_apps_content(browser, server):
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    problems = []
    for page in CHECKED:
        context, tab = open_page(browser, server, page, viewport={"width": 1280, "height": 900})
        try:
            result = axe.run(tab)
            for violation in result.response["violations"]:
                if violation["impact"] in ("serious", "critical") and violation["id"] not in STREAMLIT_RULES:
                    targets = [node["target"] for node in violation["nodes"][:3]]
                    problems.append(f"{page.slug}: {violation['id']} ({violation['impact']}): {targets}")
        finally:
            context.close()
    assert not problems, "\n".join(problems)


def test_the_tab_parameters_exist():
    """tab_views reads the pages' declarations: every tabs parameter is registered."""
    for page in CHECKED:
        for key, _ in tab_views(page):
            assert params.get(key).kind == "tabs"


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
def test_the_shuffle_diagrams_words_never_overlap(browser, server, shots, viewport, present, sentence):
    home = next(p for p in CHECKED if p.slug == "home")
    query = {"sentence": sentence, **({"present": "1"} if present else {})}
    context, tab = open_page(browser, server, home, query, viewport=viewport)
    try:
        boxes = tab.evaluate(WORD_BOXES_JS)
        words = sentence.split()
        assert sorted(b["text"] for b in boxes) == sorted(words * 2)  # every word twice, never shortened
        assert not overlaps(boxes), overlaps(boxes)[:5]
        chart = tab.locator("[data-testid=stVegaLiteChart]").first.bounding_box()
        assert all(chart["x"] - 1 <= b["left"] and b["right"] <= chart["x"] + chart["width"] + 1 for b in boxes)
        tab.locator("[data-testid=stVegaLiteChart]").first.screenshot(
            path=str(shots / f"shuffle_{viewport['width']}_{len(words)}.png")
        )
    finally:
        context.close()
