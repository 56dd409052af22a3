"""End-to-end: the served app in a real browser (Playwright python + Debian's /usr/bin/chromium).

For every page in `explorer.layout.PAGES`:

* cold deep link (a FRESHLY started server; each page's first request is its deep link with
  non-default URL parameters, the other pages' all at once, home's after them): no exception; the
  page's own title; the sidebar lists the same page names as on a warm server; every control named in the URL shows the URL's value; the URL keeps every parameter
  (nothing rejected, no "could not be used" notice); every Altair chart is drawn (canvas with
  painted pixels or SVG with marks, non-zero size); every image has a non-zero natural size.
  Then one slider is moved with the keyboard (focus the thumb, ArrowRight): the URL changes to the
  new value and the chart redraws differently (element screenshots before/after differ).
* on a warm, shared server (app.py has run in an earlier session), in one tab: the page at its
  defaults (no exception, charts drawn; with $E2E_SCREENSHOT_DIR set, a full-page screenshot saved
  there: the README's come from docs/screenshots), then the same deep link with the same checks.

Chromium missing: skipped with a message, or a failure when REQUIRE_BROWSER=1 (CI).
Runtime: 1¼ minutes alone on 2 cores, more beside other tests (two servers: the cold one and the warm
one; a browser context for each, so Streamlit's bundle loads from its cache).
"""

from __future__ import annotations

import importlib
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    CHART,
    ROOT,
    VIEWPORT,
    StreamlitServer,
    chart_fingerprints,
    chart_info,
    exceptions,
    full_page_screenshot,
    image_sizes,
    launch_chromium,
    nav_names,
    query_of,
    read_widget,
    require_browser,
    shown_matches,
    wait_charts_changed,
    wait_charts_drawn,
    wait_idle,
)

from explorer import compat, widgets
from explorer.manifest import PAGES
from explorer.pagespec import DeepLink

#: The README's screenshots (docs/screenshots/<slug>.png) are written when this is set:
#: `E2E_SCREENSHOT_DIR=docs/screenshots python -m pytest tests/test_e2e.py -k warm`.
SCREENSHOT_DIR = os.environ.get("E2E_SCREENSHOT_DIR")


#: Each page's deep link is declared with the page (explorer/site/<page>.py, `Page.deep_link`):
#: every value differs from the registry default (and from the page's own override) and is valid there.
DEEP_LINKS: dict[str, DeepLink] = {p.script: p.deep_link for p in PAGES}

PAGE_IDS = [p.url_path or "home" for p in PAGES]
NOTICE_TEXT = "could not be used"


# ------------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def browser():
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = launch_chromium(pw)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def context(browser):
    """One browser context for the module: Streamlit's bundle comes from its cache after the first
    load (about a second less per page load on 2 cores than a new context)."""
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(60_000)
    yield context
    context.close()


@pytest.fixture
def new_page(context):
    """A new tab (its own Streamlit session), closed after the test."""
    tabs = []

    def make():
        tabs.append(context.new_page())
        return tabs[-1]

    yield make
    for tab in tabs:
        tab.close()


@pytest.fixture(scope="module")
def warm_server(browser):
    """One shared server, warmed up: app.py has run in a session before any test uses it."""
    with StreamlitServer() as server:
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        page.goto(server.url("app.py"))
        wait_idle(page, title=PAGES[0].title)
        server.warm_nav_names = nav_names(page)
        context.close()
        yield server


@pytest.fixture(scope="module")
def cold(browser):
    """A freshly started server whose first requests are every page's deep link, each in its own tab.

    The pages other than home are requested first, all at once, and drawn before the home page's
    link is opened (in its test): no page has run in the server before its own request, and none of
    them follows a session that ran app.py (which is what changes a fresh server's multipage mode:
    docs/ARCHITECTURE.md, "Multipage and URL"). What this gives up against one fresh server per
    page: the ten first runs overlap in one process, so a page that worked only because another had
    imported or cached something first could pass here; and home's link is not the server's very
    first request. Yields (server, {script: its drawn tab, or the error that stopped it; home: None})."""
    with StreamlitServer() as server:
        context = browser.new_context(viewport=VIEWPORT)
        context.set_default_timeout(120_000)
        try:
            tabs: dict[str, Any] = {}
            linked = [info for info in PAGES[1:] if DEEP_LINKS[info.script] is not None]  # (require_page says)
            for info in linked:
                tabs[info.script] = context.new_page()
                tabs[info.script].goto(server.url(info.script, DEEP_LINKS[info.script].query), wait_until="commit")
            for info in linked:
                tab = tabs[info.script]
                try:
                    tab.bring_to_front()  # a background tab's drawing is throttled
                    wait_idle(tab, title=info.title, timeout=120)
                    wait_charts_drawn(tab, timeout=120)
                except Exception as err:  # this page's test fails with it; the others go on
                    tabs[info.script] = err
            tabs[PAGES[0].script] = None
            yield server, tabs
        finally:
            context.close()


# ----------------------------------------------------------------------------- checks
def require_page(info) -> DeepLink | None:
    """The page's deep link; a clear failure when PAGES names a file that does not exist."""
    assert (ROOT / info.script).is_file(), f"PAGES lists {info.script}, but there is no such file"
    return DEEP_LINKS.get(info.script)


def check_page(page, info, link: DeepLink | None, warm_names: list[str]) -> None:
    """Everything a deep link (or the defaults, link=None) must satisfy once the page is drawn."""
    errors = exceptions(page)
    assert not errors, f"{info.script}: exception on the page:\n" + "\n---\n".join(errors)
    names = nav_names(page)
    assert names == warm_names, f"{info.script}: sidebar {names} differs from a warm server's {warm_names}"
    assert names == [p.title for p in PAGES], f"{info.script}: sidebar {names} is not PAGES"

    if link is not None:
        # the canonical URL form (a select with labels shows, and puts into the URL, the label)
        expected = {k: widgets.get(k).to_url(v) for k, v in link.query.items()}
        shown = {k: read_widget(page, k) for k in expected}
        wrong = {k: (shown[k], v) for k, v in expected.items() if not shown_matches(shown[k], v)}
        assert not wrong, f"{info.script}: controls do not show the URL values (shown, URL): {wrong}"
        assert query_of(page.url) == expected, f"{info.script}: the URL lost or rewrote parameters: {page.url}"
    notices = [
        a.inner_text() for a in page.query_selector_all("[data-testid=stAlert]") if NOTICE_TEXT in a.inner_text()
    ]
    assert not notices, f'{info.script}: "could not be used" notice for a valid link: {notices}'

    # page_setup's frame: the declared title is the page's one heading, and the browser was asked for
    # the chart and formula modules (compat.chart_code_chunks) and fetched them.
    headings = [h.inner_text().strip() for h in page.query_selector_all("[data-testid=stMain] h1")]
    assert headings == [info.title], f"{info.script}: headings {headings}, declared title {info.title!r}"
    chunks = list(compat.chart_code_chunks())
    assert chunks and page.evaluate("window.__posencPreload") == chunks, f"{info.script}: no preload of {chunks}"
    fetched = page.evaluate("() => performance.getEntriesByType('resource').map((r) => r.name.split('/').pop())")
    assert set(chunks) <= set(fetched), f"{info.script}: {chunks} not fetched"

    charts = chart_info(page)
    assert charts, f"{info.script}: no Altair chart on the page"
    for i, chart in enumerate(charts):
        assert chart["renderer"] in ("canvas", "svg"), f"{info.script}: chart {i} not rendered: {chart}"
        assert chart["width"] > 0 and chart["height"] > 0, f"{info.script}: chart {i} has zero size: {chart}"
    for image in image_sizes(page):
        assert image["width"] > 0 and image["height"] > 0, f"{info.script}: image not loaded: {image}"


def open_and_check(page, server, info, link: DeepLink | None, warm_names: list[str]) -> None:
    page.goto(server.url(info.script, link.query if link else None))
    wait_idle(page, title=info.title)
    wait_charts_drawn(page)
    check_page(page, info, link, warm_names)


def move_slider_and_check(page, info, link: DeepLink) -> None:
    key = link.slider
    thumb = page.locator(f".st-key-{key} input[type=range]")
    if thumb.count() == 0:  # a chart's own slider (explorer.liveparam): its range input, named after Vega's signal
        thumb = page.locator(f'input[type=range][name="{key}_{key}"]')
    step = float(thumb.get_attribute("step"))
    old = float(thumb.get_attribute("value") or thumb.input_value())  # Vega sets the value property only
    new = old + step
    assert new <= float(thumb.get_attribute("max")), f"{key} is at its maximum; pick another value"
    chart = page.locator(CHART).nth(link.chart)
    chart.scroll_into_view_if_needed()
    before_png = chart.screenshot()
    before = chart_fingerprints(page)

    thumb.focus()
    page.keyboard.press("ArrowRight")

    expected = widgets.get(key).to_url(int(new) if float(new).is_integer() else new)
    page.wait_for_function(
        "([key, value]) => new URLSearchParams(location.search).get(key) === value",
        arg=[key, expected],
        timeout=10_000,
    )
    assert query_of(page.url).get(key) == expected, f"{key}: page.url did not change: {page.url}"
    # The rerun: the chart's content changes, then the run ends and every chart is drawn.
    wait_charts_changed(page, before)
    wait_idle(page, title=info.title)
    wait_charts_drawn(page)
    assert not exceptions(page), f"{info.script}: exception after moving {key}"
    assert read_widget(page, key) is not None and shown_matches(read_widget(page, key), expected)
    chart.scroll_into_view_if_needed()
    after_png = chart.screenshot()
    assert after_png != before_png, f"{info.script}: chart {link.chart} looks the same after {key} → {expected}"


# ------------------------------------------------------------------------------- tests
def test_deep_link_table_matches_pages():
    """The table covers every page; each value is valid, non-default, and a control of that page."""
    assert set(DEEP_LINKS) == {p.script for p in PAGES}
    for path, link in DEEP_LINKS.items():
        source = (ROOT / path).read_text()
        keys = set(re.findall(r"""widget\(\s*["']([a-z0-9_]+)["']""", source))
        live: set[str] = set()
        if "LiveChart(" in source:  # a chart's own sliders (explorer.liveparam): the chart module's LIVE_PARAMS
            (module,) = re.findall(r"from explorer\.charts import (\w+) as charts", source)
            charts = importlib.import_module(f"explorer.charts.{module}")
            # and the vectors' numbers of the RoPE plane, by the way the page gives them
            live = set(charts.LIVE_PARAMS) | {k for keys in getattr(charts, "VECTOR_PARAMS", {}).values() for k in keys}
            # and the sliders of the page's other live charts, named by their constants (RoPE's TRAJ_PARAMS, …)
            for name in re.findall(r"""LiveChart\(\s*["']\w+["'],\s*charts\.([A-Z_]+)""", source):
                live |= set(getattr(charts, name))
            keys |= live
        if "ropeblock.METHOD_PARAMS" in source:  # Context extension: the method's own params
            from explorer import ropeblock

            keys |= {k for names in ropeblock.METHOD_PARAMS.values() for k in names}
        assert link.slider in link.query, f"{path}: move a slider the link sets"
        # a Streamlit slider, or a chart's own (its registry kind may be a number box beside it)
        assert widgets.get(link.slider).kind == "int_slider" or link.slider in live, f"{path}: {link.slider}: no slider"
        for key, value in link.query.items():
            assert key in keys, f"{path}: {key} is not a widget of this page"
            parsed = widgets.get(key).parse(str(value))
            assert parsed != widgets.get(key).default, f"{path}: {key}={value} is the default"


@pytest.mark.parametrize("info", PAGES, ids=PAGE_IDS)
def test_cold_deep_link(info, cold, warm_server, new_page):
    """The page's first request to a freshly started server is its deep link (the `cold` fixture);
    then a slider moves."""
    link = require_page(info)
    assert link is not None, f"no deep link for {info.script}: declare one in its page's declaration (explorer/site/)"
    server, tabs = cold
    page = tabs[info.script]
    if isinstance(page, Exception):
        pytest.fail(f"{info.script}: its cold deep link was not drawn: {page}")
    if page is None:  # home: opened after every other page's link has been drawn
        page = new_page()
        open_and_check(page, server, info, link, warm_server.warm_nav_names)
        move_slider_and_check(page, info, link)
        return
    try:
        page.bring_to_front()  # the tab a user looks at (a background tab's drawing is throttled)
        check_page(page, info, link, warm_server.warm_nav_names)
        move_slider_and_check(page, info, link)
    finally:
        page.close()  # its session and renderer go


@pytest.mark.parametrize("info", PAGES, ids=PAGE_IDS)
def test_defaults_then_the_warm_deep_link(info, warm_server, new_page):
    """On the warm server (app.py has run in another session): the page at its defaults (no
    exception, no notice, no parameter written, every chart drawn; with $E2E_SCREENSHOT_DIR set, the
    full-page screenshot saved there),
    then, in the same tab, the page's deep link with every check of the cold one."""
    link = require_page(info)
    assert link is not None, f"no deep link for {info.script}: declare one in its page's declaration (explorer/site/)"
    page = new_page()
    open_and_check(page, warm_server, info, None, warm_server.warm_nav_names)
    assert query_of(page.url) == {}, f"{info.script}: the defaults wrote parameters: {page.url}"
    if SCREENSHOT_DIR:
        path = full_page_screenshot(page, Path(SCREENSHOT_DIR) / f"{info.slug}.png")
        assert path.stat().st_size > 10_000
    open_and_check(page, warm_server, info, link, warm_server.warm_nav_names)


def test_tour_back_on_the_same_page_forgets_the_preset(warm_server, new_page):
    """Steps 11 → 8 stay on the extension page. Step 11 loads a model preset; after going back,
    the browser's widgets must show step 8's values, so the next interaction keeps them (a widget
    whose state was only deleted on the server used to send the preset's "model" back, which
    reloaded Llama 3.1's settings)."""
    from explorer import tour

    page = new_page()
    title = "Context extension"
    page.goto(warm_server.url("pages/5_Context_extension.py", {"step": 11}))
    wait_idle(page, title=title)
    assert read_widget(page, "model") == "Llama 3.1 8B"  # the select shows model names
    for n in (10, 9, 8):
        page.locator(".st-key-tour_prev button").click()
        page.wait_for_url(re.compile(rf".*step={tour.get_step(n).id}(&|$).*"), timeout=30_000)
        wait_idle(page, title=title)
    assert read_widget(page, "model") == "Custom (your own values)"
    method = widgets.get("rope_type")  # the radio shows (and the URL holds) each option's label
    assert method.parse(read_widget(page, "rope_type")) == tour.get_step(8).params["rope_type"]
    thumb = page.locator(".st-key-head_dim input[type=range]")
    thumb.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => new URLSearchParams(location.search).get('head_dim') === '130'", timeout=30_000)
    wait_idle(page, title=title)
    query = query_of(page.url)
    assert "model" not in query and method.parse(query.get("rope_type", "")) == "default", page.url
    assert read_widget(page, "base") == "10000" and read_widget(page, "model") == "Custom (your own values)"


def test_home_heatmaps_share_one_scale_computed_in_the_browser(warm_server, new_page):
    """The heatmaps' colour scale reaches vmax (the larger of the two sentences' largest weights)
    through the data alone (explorer.charts.home.experiment_chart): Vega's legend labels, read off
    the page, are 0, vmax/2 and vmax, vmax from posenc's own run of the head; after a press on the
    chart's d, for the new numbers."""
    from posenc import attention as att

    link = DEEP_LINKS["app.py"]
    query = dict(link.query)
    page = new_page()

    def legends() -> list[list[str]]:
        return page.evaluate(
            "() => [...document.querySelectorAll('[class*=st-key-home_live_] [data-testid=stVegaLiteChart]')].map((c) =>"
            " [...c.querySelectorAll('.role-legend-label text')].map((t) => t.textContent))"
        )

    def expected() -> list[str]:
        words, _ = att.tokenize(query["sentence"], max_tokens=24)
        run = att.shuffle_experiment(
            words, int(query["d_model"]), seed=query["seed"], shuffle_seed=query["shuffle_seed"], pe=query["home_pe"]
        )
        vmax = max(float(run["weights_original"].max()), float(run["weights_shuffled"].max()))
        return [f"{v:.2f}" for v in (0.0, vmax / 2, vmax)]

    def settled(want: list[list[str]]) -> list[list[str]]:
        """The legends once they show `want` (or after 30 s, whatever they show): mid-update the page
        can briefly show fewer charts or a legend without labels."""
        deadline = time.monotonic() + 30
        while legends() != want and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        return legends()

    page.goto(warm_server.url("app.py", query))
    wait_idle(page, title=PAGES[0].title)
    wait_charts_drawn(page)
    before = settled([expected()])
    assert before == [expected()]  # one legend: the three heatmaps share their scale
    thumb = page.locator('input[type=range][name="d_model_d_model"]')
    thumb.focus()
    page.keyboard.press("ArrowRight")
    query["d_model"] += int(float(thumb.get_attribute("step")))  # d moves in steps of 2 (pairs)
    page.wait_for_function(
        "(v) => new URLSearchParams(location.search).get('d_model') === v", arg=str(query["d_model"]), timeout=30_000
    )
    wait_idle(page, title=PAGES[0].title)
    wait_charts_drawn(page)
    want = [expected()]  # the chart filters the rows of the new d
    assert settled(want) == want != before


def test_extension_titles_and_pair_axis_come_from_the_data_in_the_browser(warm_server, new_page):
    """The wavelength chart's title and its pair axis's end are read from its facts row in the
    browser (explorer.charts.style.fact: Vega's data() in Streamlit's expression interpreter): the
    title counts head_dim / 2 wavelengths and the axis reaches the last pair, before and after a
    step of the head dimension, which swaps the rows and keeps the spec."""
    title = "Context extension"
    page = new_page()

    def chart_text() -> tuple[str, list[int], list[str]]:
        """The drawn title, the pair axis's labels, and what the title says to a screen reader."""
        return page.evaluate(
            "() => { const c = document.querySelectorAll('[data-testid=stVegaLiteChart]')[1];"
            " const t = [...c.querySelectorAll('.role-title-text text')].map((e) => e.textContent).join(' ');"
            " const x = [...c.querySelectorAll('.role-axis')].find((a) => /pair j/.test(a.textContent));"
            " const aria = [...c.querySelectorAll('[aria-label^=\"Title text\"]')].map((e) => e.getAttribute('aria-label'));"
            " return [t, [...x.querySelectorAll('.role-axis-label text')].map((e) => +e.textContent), aria]; }"
        )

    def settled(pairs: int) -> tuple[str, list[int], list[str]]:
        deadline = time.monotonic() + 30
        while f"of {pairs} wavelengths" not in chart_text()[0] and time.monotonic() < deadline:
            page.wait_for_timeout(100)
        return chart_text()

    # 8 pairs, then 9: a plot this wide has a tick at every half pair, so the last tick is the last pair
    page.goto(warm_server.url("pages/5_Context_extension.py", {"head_dim": 16}))
    wait_idle(page, title=title)
    wait_charts_drawn(page)
    for head_dim in (16, 18):
        if head_dim == 18:
            thumb = page.locator(".st-key-head_dim input[type=range]")
            thumb.focus()
            page.keyboard.press("ArrowRight")
            page.wait_for_function(
                "() => new URLSearchParams(location.search).get('head_dim') === '18'", timeout=30_000
            )
            wait_idle(page, title=title)
            wait_charts_drawn(page)
        text, ticks, aria = settled(head_dim // 2)
        assert "Scaling stretches" in text and f"of {head_dim // 2} wavelengths" in text, text
        assert len(aria) == 1 and f"of {head_dim // 2} wavelengths" in aria[0], aria  # read out as drawn
        assert ticks and max(ticks) == head_dim // 2 - 1, ticks  # the axis ends at the last pair
