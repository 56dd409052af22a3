"""Presentation mode, the share link and chart styling (explorer/mode.py, explorer/assets.py,
explorer/links.py, explorer/charts/style.py), plus the end-to-end browser check of all of it
(Playwright, skipped without Chromium unless REQUIRE_BROWSER=1). The tour: tests/test_tour.py.

Browser screenshots go to $SCREENSHOT_DIR (default: pytest's tmp_path): presentation mode, the dark theme.
"""

from __future__ import annotations

import contextlib
import copy
import os
import re
import urllib.parse
from pathlib import Path

import pytest
from _apptest import run_page
from e2e_support import (
    StreamlitServer,
    launch_chromium,
    press_slider,
    require_browser,
    wait_charts_drawn,
    wait_idle,
    wait_rerun_done,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from streamlit.testing.v1 import AppTest

from explorer import assets, compat, links
from explorer.charts import style
from explorer.manifest import PAGES

ROOT = Path(__file__).resolve().parent.parent
TITLES = {p.script: p.title for p in PAGES}
#: Each page's title by its address's path (the home page: the server's root).
TITLE_AT = {p.url_path: p.title for p in PAGES}


# ------------------------------------------------------------------------------ pure: charts
SPEC = {
    "config": {"axis": {"labelFontSize": 14, "labelColor": "#111111"}, "title": {"fontSize": 18}},
    "height": 200,
    "vconcat": [
        {"height": 100, "mark": {"type": "text", "fontSize": 15, "height": 40}},
        {"width": 80, "height": 80, "mark": "arc"},
        {"layer": [{"height": 50, "mark": "line"}]},
    ],
    "encoding": {"y": {"axis": {"titleFontSize": 16}}},
    "datasets": {"d": [{"fontSize": 3}]},
}


def test_style_spec_draws_a_white_card_and_keeps_the_charts_own_config():
    original = copy.deepcopy(SPEC)
    out = style.style_spec(SPEC)
    assert SPEC == original  # pure
    cfg = out["config"]
    assert cfg["background"] == "#FFFFFF"
    assert cfg["axis"]["labelColor"] == "#111111"  # the chart's own value wins
    assert cfg["axis"]["titleColor"] == style._CARD_CONFIG["axis"]["titleColor"]
    assert cfg["axis"]["labelFontSize"] == 14 and out["height"] == 200  # nothing scaled
    assert out["padding"] == style.CARD_PADDING


def test_style_spec_presenting_scales_every_font_and_view_height_but_not_marks_or_data():
    out = style.style_spec(SPEC, presenting=True, font_scale=1.5)
    assert out["config"]["axis"]["labelFontSize"] == 21
    assert out["config"]["title"]["fontSize"] == 27
    assert out["config"]["legend"]["labelFontSize"] == 18  # Streamlit's default, made explicit
    assert out["vconcat"][0]["mark"]["fontSize"] == 22.5
    assert out["encoding"]["y"]["axis"]["titleFontSize"] == 24
    assert (out["height"], out["vconcat"][0]["height"], out["vconcat"][2]["layer"][0]["height"]) == (300, 150, 75)
    assert (out["vconcat"][1]["width"], out["vconcat"][1]["height"]) == (120, 120)  # aspect kept
    assert out["vconcat"][0]["mark"]["height"] == 40  # a mark's size is not a view height
    assert out["datasets"] == SPEC["datasets"]


def test_view_query_leaves_defaults_out_except_a_steps_keys():
    values = {"seq_len": 128, "d_model": 64, "base": 10000}
    assert links.view_query(values) == {"d_model": "64"}
    assert links.view_query(values, step=3, explicit=frozenset({"seq_len"})) == {
        "seq_len": "128",
        "d_model": "64",
        "step": "3",
    }
    # a page's own default (d_model 16 on the home page) is left out too
    assert links.view_query({"d_model": 16}, defaults={"d_model": 16}) == {}
    assert links.view_query({"seq_len": -5}) == {}  # never an invalid value


def test_view_url():
    query = {"head_dim": "128", "step": "2"}
    assert links.view_url("pages/3_RoPE_rotation.py", query, None) == "RoPE_rotation?head_dim=128&step=2"
    assert links.view_url("app.py", {}, None) == "./"
    assert links.view_url("pages/3_RoPE_rotation.py", {}, "https://host/app/") == "https://host/app/RoPE_rotation"


def test_injected_code_is_constant_and_survives_streamlits_sanitiser():
    for block in (assets.BASE_CSS, assets.PRESENT_CSS):
        assert block.startswith("<style>") and block.endswith("</style>") and "{}" not in block
    merged = assets.page_scripts(("ArrowVegaLiteChart.C1.js",))
    for script in (assets.SVG_EXPORT_JS, assets.LIVE_RANGES_JS, assets.CLOCK_BRIDGE_JS, merged):
        body = script[len("<script>") : -len("</script>")]
        assert script.startswith("<script>") and script.endswith("</script>")
        # DOMPurify (SAFE_FOR_XML) removes a script whose text contains "<" + letter, "/" or "!".
        assert re.search(r"<[/\w!]", body) is None


def test_a_page_sends_its_scripts_as_one_element_the_preload_first():
    """Four scripts, one element (one message a run): each one's code whole, each a function called at once
    (nothing of one runs into the next) in its own try (one that fails leaves the others running), the
    downloads asked first. And a page sends exactly that one script element."""
    merged = assets.page_scripts(("ArrowVegaLiteChart.C1.js",))
    assert merged.count("<script>") == 1 and merged.count("</script>") == 1
    parts = [assets.preload_js(("ArrowVegaLiteChart.C1.js",)), assets.SVG_EXPORT_JS, assets.CLOCK_BRIDGE_JS]
    bodies = [p.removeprefix("<script>").removesuffix("</script>").strip() for p in [*parts, assets.LIVE_RANGES_JS]]
    assert all(b.startswith("(function () {") and b.endswith("})();") for b in bodies)
    places = [merged.index(f"try {{\n{b}\n}} catch (e) {{}}") for b in bodies]
    assert places == sorted(places)
    assert "__posencPreload" not in assets.page_scripts(())  # nothing to preload: the other three only
    assert "__posencLiveRanges" in assets.page_scripts(())
    at = run("app.py", {})
    assert [h.proto.body for h in at.get("html") if h.proto.body.startswith("<script>")] == [
        assets.page_scripts(compat.chart_code_chunks())
    ]


def test_present_css_keeps_fixed_size_charts_inside_their_column():
    # A fixed-size chart wider than its column shrinks to it as a whole (the SVG keeps its viewBox).
    css = re.sub(r"\s+", " ", assets.PRESENT_CSS)
    assert '[data-testid="stVegaLiteChart"] { max-width: 100%; }' in css
    assert '[data-testid="stVegaLiteChart"] > svg { max-width: 100%; height: auto; }' in css
    # The RoPE page's wrapping rows: the blocks beside a fixed-size chart keep the width they need.
    assert "st-key-rope_pair_metrics" in assets.BASE_CSS and "st-key-rope_head_pairs" in assets.BASE_CSS


# ----------------------------------------------------------------------------- AppTest
def run(path: str = "app.py", query: dict | None = None) -> AppTest:
    return run_page(str(ROOT / path), timeout=180, **(query or {}))


def presenting(at: AppTest) -> bool:
    return any(assets.PRESENT_CSS in h.proto.body for h in at.get("html"))


@pytest.mark.parametrize("page", [p.script for p in PAGES])
def test_present_runs_on_every_page(page):
    at = run(page, {"present": "1"})
    assert presenting(at)
    assert at.toggle(key="present").value is True
    assert at.query_params["present"] == "true"  # canonical form for the bound toggle
    assert at.title[0].value == TITLES[page]
    # the introduction folds into an expander whose title promises formulas exactly where it holds some
    (about,) = [e for e in at.expander if e.label.startswith("About this page")]
    assert ("formulas" in about.label) == bool(about.get("latex")), (about.label, page)
    at.run()  # and stays on
    assert not at.exception and presenting(at)


@pytest.mark.parametrize(
    "page, query, title, keys",
    [
        ("pages/5_Context_extension.py", {"rope_type": "yarn"}, "L, T and s", ("train_len", "target_len", "factor")),
        ("pages/5_Context_extension.py", {"rope_type": "default"}, "L and T", ("train_len", "target_len")),
        (
            "pages/7_Images_and_video.py",
            {},
            "rows, columns, frames and the frame shown",
            ("vis_rows", "vis_cols", "vis_frames", "vis_frame"),
        ),
    ],
)
def test_presenting_folds_the_boxes_the_main_chart_has_sliders_for(page, query, title, keys):
    """In presentation mode the number boxes for exact entry sit in a closed expander that names what they set
    (layout.exact_entry): the first screen reaches the main chart's own sliders; elsewhere they are in the open."""
    folded = [e for e in run(page, {**query, "present": "1"}).expander if e.label.startswith("Type exact values")]
    assert [e.label for e in folded] == [f"Type exact values: {title}"]
    assert {n.key for n in folded[0].number_input} == set(keys)
    shown = run(page, query)
    assert not shown.exception and not [e for e in shown.expander if e.label.startswith("Type exact values")]
    assert set(keys) <= {n.key for n in shown.number_input}


def in_page_order(at: AppTest) -> list[tuple[str, str | None]]:
    """(type, key) of every element and block of the main area, in the order the page shows them."""
    found: list[tuple[str, str | None]] = []

    def walk(node) -> None:
        for child in getattr(node, "children", {}).values():
            found.append((child.type, getattr(child, "key", None)))
            walk(child)

    walk(at.main)
    return found


@pytest.mark.parametrize(
    "page, picture, control",
    [
        ("pages/5_Context_extension.py", ("vega_lite_chart", "ext_live_0"), ("radio", "rope_type")),
        ("pages/7_Images_and_video.py", ("tab_container", "vis_view"), ("selectbox", "vis_model")),
    ],
)
def test_presenting_puts_the_main_chart_above_its_controls(page, picture, control):
    """On these two pages the controls card is two rows tall: in presentation mode the main chart (context extension's)
    or the views (images and video's, their heatmaps' sliders with them) come above it (layout.picture_first), so a
    1280 × 720 projector's first screen shows the picture; elsewhere the controls come first, as they always did."""
    for present, picture_first in (("1", True), ("0", False)):
        at = run(page, {"present": present})
        assert not at.exception and presenting(at) is picture_first
        order = in_page_order(at)
        assert (order.index(picture) < order.index(control)) is picture_first, (present, order[:12])


@pytest.mark.parametrize("raw, on", [("true", True), ("yes", True), ("0", False), ("false", False)])
def test_present_values(raw, on):
    at = run("pages/2_Clock_hands.py", {"present": raw})
    assert presenting(at) is on and at.toggle(key="present").value is on


def test_present_garbage_is_off():
    at = run("pages/8_Compare_methods.py", {"present": "<b>x</b>"})
    assert not presenting(at) and at.toggle(key="present").value is False
    assert "present" not in at.query_params
    # …and the page says so, like for any other unusable link value (escaped, not markup).
    (warning,) = [w.value for w in at.warning if "could not be used" in w.value]
    assert "**present**" in warning and "<b>" not in warning


def test_toggling_presentation_mode_and_carrying_it_to_the_next_page():
    at = run()
    assert not presenting(at)
    at.toggle(key="present").set_value(True).run()
    assert presenting(at)
    at.switch_page("pages/4_Relative_invariance.py").run()
    assert not at.exception and presenting(at) and at.toggle(key="present").value is True
    at.toggle(key="present").set_value(False).run()
    assert not presenting(at)
    at.switch_page("pages/1_Sinusoidal_heatmap.py").run()
    assert not presenting(at)


def test_every_chart_goes_through_show_chart():
    """Every page draws its charts as white cards (style_spec), i.e. through show_chart."""
    for page in [p.script for p in PAGES]:
        at = run(page)
        charts = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
        for element in charts:
            spec = __import__("json").loads(element.proto.spec)
            assert spec["config"]["background"] == style.CARD_BACKGROUND, page


@pytest.mark.parametrize(
    "base",
    [
        "http://host/RoPE_rotation)**URGENT**[login](https:evil.example)",
        "http://host/x)![img](https:evil.example%2Fpixel.png)",
        "http://host/a`b<script>c</script> d",
    ],
)
def test_a_crafted_address_cannot_inject_markup_into_the_share_link(base):
    url = links.view_url("pages/3_RoPE_rotation.py", {"m": "40", "q_text": "1, (2)"}, base)
    md = links.share_markdown(url)
    target = md[md.index("](") + 2 : -1]
    text = md[md.index("[`") + 2 : md.index("`]")]
    assert text == target  # the visible text is the link itself (copyable, no hidden characters)
    for bad in "()[]<>`*! ":
        assert bad not in target, (bad, md)
    assert target.endswith("RoPE_rotation?m=40&q_text=1%2C+%282%29")


def test_every_page_states_its_link():
    for page in [p.script for p in PAGES]:
        at = run(page)
        assert any(m.value.startswith("**Link to this view**: [") for m in at.markdown), page
    at = run("pages/3_RoPE_rotation.py", {"m": "40", "present": "1"})
    links = [m.value for m in at.markdown if m.value.startswith("**Link to this view**")]
    assert links == ["**Link to this view**: [`RoPE_rotation?m=40`](RoPE_rotation?m=40)"]
    assert "present" not in links[0]  # a student's link


# ----------------------------------------------------------------------------- browser
@pytest.fixture(scope="module")
def server():
    require_browser()
    with StreamlitServer() as s:
        yield s.base_url


@pytest.fixture
def shots(tmp_path) -> Path:
    path = Path(os.environ.get("SCREENSHOT_DIR") or tmp_path)
    path.mkdir(parents=True, exist_ok=True)
    return path


#: Charts (their SVG) that reach past their column, or into a neighbour in the same row:
#: [(chart title, what it hits)]. A row is st.columns or a horizontal container.
SPILLS_JS = """() => {
  const out = [];
  const inside = (a, b) => a.left >= b.left - 1 && a.right <= b.right + 1;
  const meets = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  document.querySelectorAll('[data-testid=stVegaLiteChart] > svg').forEach(svg => {
    const r = svg.getBoundingClientRect();
    if (!r.width) { return; }
    const t = svg.querySelector('.role-title-text text');
    const name = t ? t.textContent.slice(0, 40) : 'chart';
    const col = svg.closest('[data-testid=stColumn]')
      || svg.closest('[data-testid=stMainBlockContainer]').querySelector('[data-testid=stVerticalBlock]');
    if (!inside(r, col.getBoundingClientRect())) { out.push([name, 'its column']); }
    const row = svg.closest('[data-testid=stHorizontalBlock]');
    if (row) {
      Array.from(row.children).forEach(child => {
        if (!child.contains(svg) && meets(r, child.getBoundingClientRect())) { out.push([name, 'a neighbour']); }
      });
    }
  });
  return out;
}"""


def _title(page) -> str:
    return TITLE_AT[urllib.parse.urlsplit(page.url).path.rstrip("/").rsplit("/", 1)[-1]]


def _settle(page) -> None:
    """After a page load: its run is over, with the page's title shown, and its charts are drawn."""
    wait_idle(page, title=_title(page))
    wait_charts_drawn(page)


def _press(page, key: str) -> None:
    """Press ArrowRight on the slider `key` and wait for the whole rerun it causes (a URL-bound
    widget writes the address bar itself before that run has started)."""
    press_slider(page, key)
    wait_rerun_done(page, _title(page))
    wait_charts_drawn(page)


def _no_spills(page, where: str) -> None:
    """No chart reaches past its column or into a neighbour, once the layout has settled (the sidebar
    slides in over 0.3 s; on a busy machine the columns can take longer to reach their width)."""
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(f"() => ({SPILLS_JS})().length === 0", timeout=5_000, polling=100)
    assert page.evaluate(SPILLS_JS) == [], where


#: A control in the sidebar, once it is open: RoPE's holds only the pairing layout (a radio); the others, sliders.
SIDEBAR_CONTROL = "[data-testid=stSidebar] input[type=range], [data-testid=stSidebar] [data-testid=stRadio]"


def test_in_the_browser(server, shots):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
            context.set_default_timeout(60_000)
            page = context.new_page()

            # Presentation mode: large text, chrome hidden, sidebar collapsed but reachable.
            page.goto(f"{server}/RoPE_rotation?present=1")
            _settle(page)
            assert "present=true" in page.url
            assert page.evaluate("() => getComputedStyle(document.documentElement).fontSize") == "20px"
            assert not page.locator("[data-testid=stMainMenu]").is_visible()
            assert not page.locator("[data-testid=stAppDeployButton]").is_visible()
            expand = page.locator("[data-testid=stExpandSidebarButton]")
            assert expand.is_visible()
            page.screenshot(path=str(shots / "presentation_rope.png"))
            expand.click()
            page.locator(SIDEBAR_CONTROL).first.wait_for(state="visible")
            # pair index j: the live plane's own slider (main area); the link follows its report
            j_in = page.locator("[data-testid=stVegaLiteChart] input[name='j_j']").first
            j_in.focus()
            page.keyboard.press("ArrowRight")
            page.wait_for_url(re.compile(r".*[?&]j=1(&|$).*"), timeout=30_000)
            _settle(page)
            assert page.locator(SIDEBAR_CONTROL).first.is_visible()  # stays open
            # Larger presentation charts next to the open sidebar: nothing spills over a neighbour
            # (the plane moves above its metric cards), on both tabs and on the other pages with
            # fixed-size charts.
            _no_spills(page, "RoPE_rotation?present=1")
            # the One pair tab's plane, full size, not shrunk (the live plane in the controls box above may
            # shrink to its column while the sidebar is open: it is a control, drawn whole at a smaller scale)
            plane = page.locator("[data-testid=stTabs] [data-testid=stVegaLiteChart] > svg").first
            assert plane.evaluate("s => Math.abs(s.getBoundingClientRect().width - s.viewBox.baseVal.width)") < 1
            for url in (
                "RoPE_rotation?present=1&rope_view=Whole+head",
                "Sinusoidal_heatmap?present=1&sin_view=Similarity",
                "Clock_hands?present=1",
            ):
                page.goto(f"{server}/{url}")
                _settle(page)
                if page.locator("[data-testid=stExpandSidebarButton]").is_visible():
                    page.locator("[data-testid=stExpandSidebarButton]").click()
                    page.locator(SIDEBAR_CONTROL).first.wait_for(state="visible")
                    _settle(page)
                page.wait_for_selector("[data-testid=stVegaLiteChart] > svg", timeout=60_000)
                _no_spills(page, url)

            # Every chart: PNG from Streamlit's toolbar, SVG from ours (image heatmaps included).
            page.goto(f"{server}/RoPE_rotation?rope_view=Whole+head")
            _settle(page)
            chart = page.locator("[data-testid=stTabs] [data-testid=stVegaLiteChart]").nth(0)  # the R_m image heatmap
            chart.evaluate("e => e.scrollIntoView({block: 'center'})")  # toolbar clear of the header
            page.wait_for_timeout(300)
            frame = chart.locator("xpath=ancestor::*[@data-testid='stFullScreenFrame'][1]")
            button = frame.locator("button[aria-label='Download as SVG']")
            for _ in range(30):  # the toolbar appears on hover; our button joins it right after
                chart.hover()
                if button.count():
                    break
                page.wait_for_timeout(500)
            button.wait_for(timeout=10_000)
            with page.expect_download(timeout=20_000) as download:
                # (dispatch: under load the fading toolbar can sit under the neighbouring chart)
                button.dispatch_event("click")
            svg = Path(download.value.path()).read_text()
            assert svg.startswith("<?xml") and "<svg" in svg and "data:image/png;base64," in svg
            assert "url(#gradient" in svg and "url(http" not in svg
            # A chart on a canvas (the sinusoidal zoom) has no SVG to save: its toolbar offers PNG only.
            page.goto(f"{server}/Sinusoidal_heatmap")
            _settle(page)
            zoom = page.locator("[data-testid=stVegaLiteChart]:has(> canvas)").first
            zoom.evaluate("e => e.scrollIntoView({block: 'center'})")
            page.wait_for_timeout(300)
            frame = zoom.locator("xpath=ancestor::*[@data-testid='stFullScreenFrame'][1]")
            png = frame.locator("button[aria-label='Download as PNG']")
            for _ in range(30):
                zoom.hover()
                if png.count():
                    break
                page.wait_for_timeout(500)
            png.wait_for(timeout=10_000)
            page.wait_for_timeout(500)  # our button would have joined it by now
            assert frame.locator("button[aria-label='Download as SVG']").count() == 0
            page.goto(f"{server}/RoPE_rotation?rope_view=Whole+head")  # back to the page the next steps use
            _settle(page)

            # A preset fills the page and the address bar; touching a value returns to custom.
            select = page.locator("[data-testid=stSidebar] [data-testid=stSelectbox]").filter(has_text="Real model")
            select.click()
            option = page.get_by_role("option", name="DeepSeek-V3", exact=True)  # the select lists model names
            option.click()
            # the preset's values are written into the address bar by the run the choice causes
            page.wait_for_url(re.compile(r"[?&]layout_rope=interleaved(&|$)"), timeout=60_000)
            _settle(page)
            assert "model=DeepSeek-V3" in page.url, page.url
            # the head size: the live plane's own slider (main area); its report reaches the page
            d_in = page.locator("[data-testid=stVegaLiteChart] input[name='head_dim_head_dim']").first
            d_in.focus()
            page.keyboard.press("ArrowRight")
            # The run the press causes drops the preset from the address bar: wait for what it writes
            # (its running state can be batched away in the browser under load; CI, 2026-11-26).
            page.wait_for_url(
                lambda url: "model=" not in url and re.search(r"[?&]head_dim=66(&|$)", url) is not None,
                timeout=60_000,
            )
            _settle(page)
            context.close()

            # The dark theme (browser preference): the page and its charts are dark, with light text.
            dark = browser.new_context(viewport={"width": 1400, "height": 1400}, color_scheme="dark")
            page = dark.new_page()
            page.goto(f"{server}/Context_extension?present=1")
            _settle(page)
            background = page.evaluate(
                "() => getComputedStyle(document.querySelector('[data-testid=stApp]')).backgroundColor"
            )
            assert background == "rgb(11, 18, 32)"
            card = page.evaluate(
                "() => getComputedStyle(document.querySelector('[data-testid=stVegaLiteChart] svg')).backgroundColor"
            )
            assert card == "rgb(17, 26, 46)"  # style.DARK_BACKGROUND, #111A2E: the chart is dark too
            page.screenshot(path=str(shots / "dark_context_extension.png"))
            dark.close()
        finally:
            browser.close()
