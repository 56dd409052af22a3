"""Constant CSS and JavaScript the page frame injects (`explorer.layout.page_setup`).

Security: every string here is a module constant; no user or URL text ever goes into them. They
select Streamlit's ``data-testid`` attributes, listed in `explorer.compat` for upgrade reviews.
`preload_js` builds its script from file names in the installed Streamlit wheel, checked against a
strict pattern.
"""

import json

from explorer import compat
from explorer.vocabulary import ALPHA_STOPS, BASE_OPTIONS, NEW_GRIDS, TARGET_STOPS, TRAINED_GRIDS

#: In-chart sliders that run over a parameter's option indices (explorer.charts.live.option_position): the
#: input's name (Vega's signal) -> the options as the read-out beside the slider shows them. Module
#: constants only (the registry's options and stops), so the script below carries no user or URL text.
OPTION_LABELS = {
    "base_base": [f"{b:,}" for b in BASE_OPTIONS],
    "target_len_target_len": [f"{t:,}" for t in TARGET_STOPS],
    "train_len_train_len": [f"{t:,}" for t in TARGET_STOPS],
    "ntk_alpha_ntk_alpha": [f"{a:g}" for a in ALPHA_STOPS],
    "vis_train_vis_train": [f"{n} × {n}" for n in TRAINED_GRIDS],
    "vis_new_vis_new": [f"{n} × {n}" for n in NEW_GRIDS],
}

#: The attribute of the hidden element that carries a live chart's slider ranges
#: (explorer.liveparam.ranges_html), read by `LIVE_RANGES_JS`; `BASE_CSS` takes its row out of the layout.
LIVE_RANGES_ATTRIBUTE = "data-posenc-ranges"

#: Always on: the frame's one script element (`page_scripts`) and the live
#: charts' hidden range elements (`LIVE_RANGES_ATTRIBUTE`) take no room
#: (each was an empty row with the column's gap); the tour panel's narration in large type; on the RoPE page, the blocks that share a
#: wrapping row with a fixed-size chart (the metric cards, the pair map) move below the chart
#: rather than shrink under the width they need (two cards; the pair map's title). On every
#: screen: a chart of fixed size wider than its column (a clock face on a phone) shrinks to the
#: column as a whole (its SVG keeps its viewBox; tooltips still work), on a phone display formulas
#: are set at 1em (KaTeX: 1.21em) and one still wider than the screen scrolls inside its own box, the tab bar wraps instead of
#: hiding its last tabs, a wide table scrolls sideways in its own box, and Streamlit's "Deploy" button (for the app's author, not its readers)
#: is hidden. The clock page's in-chart controls (position slider, number box, play, speed, d, b, the
#: clocks; b's slider, here and on the RoPE plane, runs over its options' indices: `LIVE_RANGES_JS`
#: writes the option beside it, `OPTION_LABELS`) sit
#: right above the clocks instead of under the odometer, sized in rem, so presentation mode's
#: larger rem base enlarges them with the rest of the page. Every other live chart (element key
#: <name>_live_<n>, explorer.liveparam: RoPE's plane, the invariance shift test, the vision page's
#: heatmaps, the sinusoidal zoom window) likewise gets its sliders above the chart, so that in
#: presentation mode they are in the first screen with its top (the RoPE plane's nine in two columns on a wide screen:
#: its five, then q's and k's numbers); the invariance, vision, zoom and
#: Compare methods' L and T sliders keep label and value on one line, the vision page's two side by side where they fit, the
#: zoom's wide enough to aim with; on a phone each of the RoPE plane's sliders takes one line, its value beside it. The vision page's heatmaps are drawn on a canvas, which cannot
#: shrink to its column (clicks would miss their patch): they are sized to fit (one per row on a phone),
#: and where a column is narrower still, they scroll sideways in their own box.
BASE_CSS = (
    """<style>
[data-testid="stElementContainer"]:has(> [data-testid="stHtml"] > script:only-child) { display: none; }
"""
    + f'[data-testid="stElementContainer"]:has(> [data-testid="stHtml"] > span[{LIVE_RANGES_ATTRIBUTE}]:only-child) '
    + "{ display: none; }\n"
    + """.st-key-tour_panel [data-testid="stMarkdown"] p { font-size: 1.45rem; line-height: 1.45; }
.st-key-tour_panel [data-testid="stCaptionContainer"] p { font-size: 0.95rem; }
[data-testid="stTabs"] [role="tab"] p { font-size: 1.1rem; }
[data-testid="stLayoutWrapper"]:has(> .st-key-rope_pair_metrics) { flex-basis: 24rem; }
[data-testid="stLayoutWrapper"]:has(> .st-key-rope_head_pairs) { flex-basis: 26rem; }
[data-testid="stVegaLiteChart"] { max-width: 100%; }
[data-testid="stVegaLiteChart"] > svg { max-width: 100%; height: auto; }
@media (max-width: 700px) {
  .katex-display { overflow-x: auto; overflow-y: hidden; padding: 0.2rem 0; }
  .katex-display > .katex { font-size: 1em; }
}
@media (max-width: 480px) {  /* a phone: the shorter formulas (Sinusoidal heatmap's, Clock hands', RoPE's) whole, not
  cut at the screen's edge; the longest still scroll in their box */
  .katex-display > .katex { font-size: 0.83em; }
}
@media (max-width: 380px) {  /* a small phone (360 px): the same three whole, a little smaller still */
  .katex-display > .katex { font-size: 0.76em; }
}
/* A display formula or a table wider than its box scrolls in it; the side with more to see fades out (the script
   below marks it: data-posenc-more = "right", "left" or "both"), so a phone shows that there is more. A mask, not a
   shadow painted in a colour: the same in the light and the dark theme. */
[data-posenc-more="right"] { -webkit-mask-image: linear-gradient(to right, #000 calc(100% - 2.5rem), transparent);
  mask-image: linear-gradient(to right, #000 calc(100% - 2.5rem), transparent); }
[data-posenc-more="left"] { -webkit-mask-image: linear-gradient(to left, #000 calc(100% - 2.5rem), transparent);
  mask-image: linear-gradient(to left, #000 calc(100% - 2.5rem), transparent); }
[data-posenc-more="both"] {
  -webkit-mask-image: linear-gradient(to right, transparent, #000 2.5rem, #000 calc(100% - 2.5rem), transparent);
  mask-image: linear-gradient(to right, transparent, #000 2.5rem, #000 calc(100% - 2.5rem), transparent); }
[data-posenc-more]:focus-visible { outline-offset: -2px; }
[data-testid="stTabs"] [role="tablist"] { flex-wrap: wrap; }
[data-testid="stTable"] { overflow-x: auto; }
/* On a touch screen a table's toolbar (show, download, search, full screen) is always shown, above the table: room for
   it, or it covers the line above (a heading on Clock hands and Model configs) */
@media (hover: none) {
  [data-testid="stElementContainer"]:has([data-testid="stDataFrame"] > [data-testid="stElementToolbar"]) { margin-top: 3rem; }
}
[data-testid="stAppDeployButton"] { display: none !important; }
[class*="_live_"] .vega-embed { display: flex; flex-direction: column; align-items: flex-start; }
[class*="_live_"] .vega-embed form.vega-bindings { order: -1; padding: 0 0 0.4rem 0.5rem; }
:is([class*="st-key-inv_live_"], [class*="st-key-vis_live_"], [class*="st-key-vis_res_live_"], [class*="st-key-cmp_live_"], [class*="st-key-home_live_"]) .vega-embed form.vega-bindings .vega-bind label {
  display: flex; flex-wrap: nowrap; align-items: center; gap: 0.6rem; }
:is([class*="st-key-inv_live_"], [class*="st-key-vis_live_"], [class*="st-key-vis_res_live_"], [class*="st-key-cmp_live_"], [class*="st-key-home_live_"]) .vega-embed form.vega-bindings .vega-bind-name {
  font-size: 1rem; min-width: 0; }
[class*="st-key-cmp_live_"] .vega-embed form.vega-bindings .vega-bind-name { min-width: 8.2rem; }
[class*="st-key-cmp_live_"] .vega-embed canvas { max-width: 100%; height: auto !important; }
[class*="st-key-cmp_live_"] .vega-embed form.vega-bindings input[type="range"] { width: min(24rem, 36vw); height: 1rem; }
[class*="st-key-inv_live_"] .vega-embed form.vega-bindings .vega-bind-name { min-width: 6.6rem; white-space: nowrap; }
/* By the chart's own width, not the window's: a laptop's 1280 px with the sidebar open leaves the chart about 800 */
[class*="st-key-inv_live_"] { container-type: inline-size; }
[class*="st-key-inv_live_"] .vega-embed form.vega-bindings input[type="range"] {
  width: clamp(5rem, calc(100cqi - 14rem), 24rem); height: 1rem; }
@container (min-width: 760px) {  /* a desktop or a projector: the sliders in two columns, the bars in the first screen */
  [class*="st-key-inv_live_"] .vega-embed form.vega-bindings {
    display: grid; grid-template-columns: repeat(2, max-content); column-gap: 2.4rem; }
  [class*="st-key-inv_live_"] .vega-embed form.vega-bindings input[type="range"] { width: clamp(8rem, calc(50cqi - 15rem), 18rem); }
}
/* The RoPE plane's sliders by the width of their card (its own element is as wide as its content: nothing to measure
   there), not the window's: at 1,200-1,279 px with the sidebar open the two columns ran past the card's border. Two
   columns need about 43 rem (each slider's name 7 rem, track 9.5 rem, value and gaps), at any rem (presentation's) */
.st-key-rope_controls { container-type: inline-size; }
@container (width < 44rem) {  /* a phone, or a laptop with the sidebar open: each of the RoPE plane's sliders on
  one line (label, track, value), not two; on a 390-px phone the widest value (b = 5,000,000) inside the card */
  [class*="st-key-rope_live_"] .vega-embed form.vega-bindings .vega-bind label {
    display: flex; flex-wrap: nowrap; align-items: center; gap: 0.5rem; }
  [class*="st-key-rope_live_"] .vega-embed form.vega-bindings .vega-bind-name { min-width: 5.5rem; max-width: 8rem; }
  [class*="st-key-rope_live_"] .vega-embed form.vega-bindings input[type="range"] { width: min(14rem, 34vw); }
}
@container (width >= 44rem) {  /* the RoPE plane's nine sliders: m, n, d, b, j, then q's and k's two numbers each beside them */
  [class*="st-key-rope_live_"] .vega-embed form.vega-bindings {
    display: grid; grid-template-rows: repeat(5, auto); grid-template-columns: repeat(2, max-content);
    grid-auto-flow: column; column-gap: 2.4rem; }
  [class*="st-key-rope_live_"] .vega-embed form.vega-bindings .vega-bind label { white-space: nowrap; }
  [class*="st-key-rope_live_"] .vega-embed form.vega-bindings input[type="range"] { width: 9.5rem; }
}
[class*="st-key-home_live_"] .vega-embed form.vega-bindings input[type="range"] { width: min(24rem, 52vw); height: 1rem; }
[class*="st-key-ext_live_"] .vega-embed form.vega-bindings input[type="range"] { width: min(28rem, 52vw); height: 1rem; }
[class*="st-key-ext_live_"] { container-type: inline-size; }
@container (min-width: 760px) {  /* up to seven sliders (s, L, T, d, b, a method's two knobs): two columns where the
  chart is wide enough for them (a desktop, a projector), the curves higher */
  [class*="st-key-ext_live_"] .vega-embed form.vega-bindings {
    display: grid; grid-template-columns: repeat(2, max-content); column-gap: 1.6rem; }
  [class*="st-key-ext_live_"] .vega-embed form.vega-bindings .vega-bind-name { display: inline-block; min-width: 7.8rem; }
  [class*="st-key-ext_live_"] .vega-embed form.vega-bindings input[type="range"] { width: 9rem; }
}
[class*="st-key-conv_live_"] .vega-embed form.vega-bindings input[type="range"] { width: min(28rem, 52vw); height: 1rem; }
[class*="st-key-ext_af_live_"] .vega-embed form.vega-bindings .vega-bind-name { min-width: min(15.5rem, 52vw); }
[class*="st-key-ext_af_live_"] .vega-embed form.vega-bindings input[type="range"] { width: min(24rem, 40vw); height: 1rem; }
/* The shift diagram and its table: side by side where the page's column is wide, one under the other where it is not
   (a laptop with the sidebar open left the diagram 200 px; Streamlit stacks columns by the window's width only) */
.st-key-vis_shift_pair { container-type: inline-size; }
@container (max-width: 759px) { .st-key-vis_shift_pair [data-testid="stColumn"] { min-width: 100%; } }
/* The page's controls, four to a row: two to a row there (the base's value read "1,0…" at 1024 px) */
.st-key-vis_controls { container-type: inline-size; }
@container (max-width: 899px) { .st-key-vis_controls [data-testid="stColumn"] { min-width: calc(50% - 1rem); } }
@container (max-width: 480px) { .st-key-vis_controls [data-testid="stColumn"] { min-width: 100%; } }  /* a phone: one */
:is([class*="st-key-vis_live_"], [class*="st-key-vis_res_live_"]) { overflow-x: auto; }
:is([class*="st-key-vis_live_"], [class*="st-key-vis_res_live_"]) .vega-embed form.vega-bindings { display: flex; flex-direction: row;
  flex-wrap: wrap; align-items: center; gap: 0.2rem 1.6rem; padding: 0 0 0.5rem 0.5rem; }
:is([class*="st-key-vis_live_"], [class*="st-key-vis_res_live_"]) .vega-embed form.vega-bindings .vega-bind { width: auto; }
:is([class*="st-key-vis_live_"], [class*="st-key-vis_res_live_"]) .vega-embed form.vega-bindings input[type="range"] { width: min(14rem, 45vw); height: 1rem; }
[class*="st-key-sin_zoom_live_"] .vega-embed { align-items: stretch; }
[class*="st-key-sin_zoom_live_"] .vega-embed form.vega-bindings .vega-bind label { flex-wrap: nowrap; }
[class*="st-key-sin_zoom_live_"] .vega-embed form.vega-bindings .vega-bind-name { min-width: 8.5rem; white-space: nowrap; }
[class*="st-key-sin_zoom_live_"] .vega-embed form.vega-bindings input[type="range"] { width: min(22rem, 38vw); }
@media (max-width: 420px) {  /* a phone: each name on its own line, the slider under it as wide as a thumb needs */
  [class*="st-key-sin_zoom_live_"] .vega-embed form.vega-bindings .vega-bind label {
    display: flex; flex-wrap: wrap; align-items: center; column-gap: 0.5rem; }
  [class*="st-key-sin_zoom_live_"] .vega-embed form.vega-bindings .vega-bind-name { min-width: 0; flex-basis: 100%; }
  [class*="st-key-sin_zoom_live_"] .vega-embed form.vega-bindings input[type="range"] { width: calc(100vw - 8.5rem); }
}
.st-key-clock_chart .vega-embed { display: flex; flex-direction: column; align-items: flex-start; }
.st-key-clock_chart .vega-embed form.vega-bindings { order: -1; flex-direction: row; flex-wrap: wrap;
  align-items: center; gap: 0.4rem 1.6rem; padding: 0 0 0.6rem 0.5rem; }
.st-key-clock_chart .vega-embed form.vega-bindings .vega-bind { width: auto; flex-wrap: nowrap; }
.st-key-clock_chart .vega-embed form.vega-bindings .vega-bind label { flex-wrap: nowrap; gap: 0.5rem; }
.st-key-clock_chart .vega-embed form.vega-bindings .vega-bind-name { font-size: 1rem; min-width: 0; }
/* the sliders' names one width, so their tracks start at one x (they started where each name ended); not on a phone,
   where the widest name's track and value take the whole width already */
@media (min-width: 640px) {
  .st-key-clock_chart .vega-embed form.vega-bindings .vega-bind:has(input[type="range"]) .vega-bind-name { min-width: 6.2rem; }
}
.st-key-clock_chart .vega-embed form.vega-bindings input[type="range"] { width: min(22rem, 55vw); height: 1rem; }
.st-key-clock_chart .vega-embed form.vega-bindings input[type="number"] { width: 5.5em; font-size: 1rem; }
.st-key-clock_chart .vega-embed form.vega-bindings input[type="checkbox"] { width: 1.3rem; height: 1.3rem; }
.st-key-clock_chart .vega-embed form.vega-bindings select { font-size: 1rem; }
</style>"""
)

#: Presentation mode: a larger rem base (Streamlit sizes text, widgets and spacing in rem), the
#: Streamlit chrome a student does not need hidden (toolbar actions, main menu, deploy button,
#: status decoration, footer), and a little less top padding. The header itself stays: it holds
#: the sidebar's expand arrow. The side padding is halved (5rem is 100 px at this rem base), and
#: with the sidebar open on a screen up to 1500 px wide, display formulas are set at 1.05em instead
#: of KaTeX's 1.21em, so that the pages' one-line formulas fit the ~820 px left. A chart of fixed
#: size (width="content") still wider than its column, as the larger presentation charts can be
#: with the sidebar open, is shrunk to the column as a whole (its SVG keeps its viewBox) instead
#: of spilling over its neighbours; Vega's SVG renderer finds hovered marks through the DOM, so
#: tooltips still work. (Pages avoid the shrinking where it matters: a wrapping row puts the
#: neighbours below the chart, see pages/3_RoPE_rotation.py.)
PRESENT_CSS = """<style>
html { font-size: 20px !important; }
[data-testid="stToolbarActions"], [data-testid="stMainMenu"], [data-testid="stAppDeployButton"],
[data-testid="stDecoration"], [data-testid="stStatusWidget"], footer { display: none !important; }
[data-testid="stMainBlockContainer"] { padding: 3rem 2.5rem 10rem; max-width: 100%; }
[data-testid="stMainBlockContainer"] h1 { font-size: 2.3rem; padding-bottom: 0.25rem; }
[data-testid="stExpandSidebarButton"] { transform: scale(1.4); }
[data-testid="stSidebar"] { width: 24rem !important; }
.vega-bindings { font-size: 1rem; }
[data-testid="stVegaLiteChart"] { max-width: 100%; }
[data-testid="stVegaLiteChart"] > svg { max-width: 100%; height: auto; }
@media (max-width: 1500px) {
  [data-testid="stAppViewContainer"]:has([data-testid="stSidebar"][data-collapsed="false"])
    .katex-display > .katex { font-size: 1.05em; }
}
</style>"""

#: "Download as SVG" next to Streamlit's "Download as PNG" in the toolbar of every chart Vega draws
#: as SVG (all but the few on a canvas, `charts.style.on_canvas`), so the file is that SVG, serialised
#: as it is shown (image heatmaps keep their PNG as an embedded data: URL). Installed once per tab.
#: The code must not contain "<" followed by a letter, "/" or "!": Streamlit's HTML sanitiser
#: (DOMPurify, SAFE_FOR_XML) drops a script whose text looks like markup.
SVG_EXPORT_JS = """<script>
(function () {
  if (window.__posencSvgExport) { return; }
  window.__posencSvgExport = true;
  var NS = 'http://www.w3.org/2000/svg';
  function icon() {  /* DOM calls, no markup in strings: see SVG_EXPORT_JS's comment */
    var svg = document.createElementNS(NS, 'svg');
    svg.setAttribute('viewBox', '0 0 24 24'); svg.setAttribute('width', '20'); svg.setAttribute('height', '20');
    svg.setAttribute('aria-hidden', 'true');
    var t = document.createElementNS(NS, 'text');
    t.setAttribute('x', '12'); t.setAttribute('y', '15.5'); t.setAttribute('text-anchor', 'middle');
    t.setAttribute('font-size', '8.5'); t.setAttribute('font-weight', '700');
    t.setAttribute('font-family', 'sans-serif'); t.setAttribute('fill', 'currentColor');
    t.textContent = 'SVG';
    svg.appendChild(t);
    return svg;
  }
  function fileName(svg) {
    var t = svg.querySelector('.role-title-text text, .role-title text');
    var name = (t && t.textContent) ? t.textContent : 'chart';
    name = name.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 60);
    return (name || 'chart') + '.svg';
  }
  function save(frame) {
    var svg = frame.querySelector('[data-testid="stVegaLiteChart"] svg');
    if (!svg) { return; }
    var clone = svg.cloneNode(true);
    clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
    clone.setAttribute('xmlns:xlink', 'http://www.w3.org/1999/xlink');
    var text = '<?xml version="1.0" encoding="UTF-8"?>\\n' + new XMLSerializer().serializeToString(clone);
    /* Vega points gradients at the page's own address (url(http://host/page#gradient_1)); a file
       needs the local reference url(#gradient_1). */
    text = text.replace(/url\\((["']?)[^)#"']*#/g, 'url($1#');
    var url = URL.createObjectURL(new Blob([text], {type: 'image/svg+xml'}));
    var a = document.createElement('a');
    a.href = url; a.download = fileName(svg); a.style.display = 'none';
    document.body.appendChild(a); a.click(); a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 2000);
  }
  function addButton(toolbar) {
    if (toolbar.querySelector('[data-posenc-svg]')) { return; }
    var frame = toolbar.closest('[data-testid="stFullScreenFrame"]');
    /* only a chart drawn as SVG: one drawn on a canvas (many marks) has no SVG to save, so it keeps
       Streamlit's PNG only */
    if (!frame || !frame.querySelector('[data-testid="stVegaLiteChart"] > svg')) { return; }
    var png = toolbar.querySelector('button[aria-label="Download as PNG"]');
    if (!png) { return; }
    var holder = png.closest('[data-testid="stElementToolbarButton"]') || png;
    var wrap = document.createElement('div');
    wrap.setAttribute('data-testid', 'stElementToolbarButton');
    var btn = document.createElement('button');
    btn.type = 'button';
    btn.className = png.className;
    btn.setAttribute('kind', 'elementToolbar');
    btn.setAttribute('aria-label', 'Download as SVG');
    btn.setAttribute('title', 'Download as SVG');
    btn.setAttribute('data-posenc-svg', '1');
    btn.appendChild(icon());
    btn.addEventListener('click', function (event) { event.stopPropagation(); save(frame); });
    wrap.appendChild(btn);
    holder.parentNode.insertBefore(wrap, holder.nextSibling);
  }
  function scan() {
    document.querySelectorAll('[data-testid="stElementToolbar"]').forEach(addButton);
    /* A display formula or a table wider than its column scrolls: make it reachable by keyboard too.
       A table scrolls in its first child, not in stTable itself (Streamlit 1.67; axe's
       scrollable-region-focusable rule finds it at phone width: tests/test_e2e_layout.py). */
    document.querySelectorAll('.katex-display, [data-testid="stTable"] > div').forEach(function (el) {
      if (!el.hasAttribute('tabindex')) { el.setAttribute('tabindex', '0'); }
      if (!el.posencMore) {  /* which side has more to see: read on a scroll and a change of size, not at every mutation */
        el.posencMore = true;
        el.addEventListener('scroll', function () { more(el); }, {passive: true});
        sized.observe(el);
        if (el.firstElementChild) { sized.observe(el.firstElementChild); }
        more(el);
      }
    });
  }
  function more(el) {
    var hidden = el.scrollWidth - el.clientWidth;  /* a few pixels past the box are padding, not more to see */
    var left = hidden > 4 && el.scrollLeft > 1, right = hidden > 4 && el.scrollLeft < hidden - 1;
    var side = left && right ? 'both' : left ? 'left' : right ? 'right' : null;
    if (el.getAttribute('data-posenc-more') !== side) {
      if (side) { el.setAttribute('data-posenc-more', side); } else { el.removeAttribute('data-posenc-more'); }
    }
  }
  var sized = new ResizeObserver(function (entries) {
    entries.forEach(function (entry) {
      var el = entry.target.posencMore ? entry.target : entry.target.parentElement;
      if (el && el.posencMore) { more(el); }
    });
  });
  new MutationObserver(scan).observe(document.body, {childList: true, subtree: true});
  scan();
  /* The guided tour: when the panel shows another step, go to the top of the page, so the
     narration (and the step's chart under it) is in view whatever was scrolled before. Until the
     user scrolls, clicks, touches or types, a scroll the page makes by itself is undone while the
     step's run lasts and for four seconds after it (at least six seconds in all): a step that opens
     another tab has Streamlit scroll that tab into view after the panel has changed, later on a busy
     server (tests/test_e2e_layout.py steps through the tour by PageDown; with a second and a half,
     one clean-clone CI run on two cores found step 10 scrolled by a thousand pixels). */
  var lastStep = null, holdTop = 0, idleSince = Date.now();
  function running() {
    var app = document.querySelector('[data-testid="stApp"]');
    return !!app && app.getAttribute('data-test-script-state') === 'running';
  }
  function holding() {
    if (!holdTop) { return false; }
    if (running() || Date.now() < holdTop || Date.now() - idleSince < 4000) { return true; }
    holdTop = 0;
    return false;
  }
  new MutationObserver(function () { if (!running()) { idleSince = Date.now(); } })
    .observe(document.body, {attributes: true, subtree: true, attributeFilter: ['data-test-script-state']});
  function toTop() {
    var main = document.querySelector('[data-testid="stMain"]');
    if (main && main.scrollTop > 0) { main.scrollTo({top: 0}); }
    if (window.scrollY > 0) { window.scrollTo({top: 0}); }
  }
  ['wheel', 'touchstart', 'mousedown', 'pointerdown', 'keydown'].forEach(function (name) {
    window.addEventListener(name, function () { holdTop = 0; }, {capture: true, passive: true});
  });
  document.addEventListener('scroll', function () {
    if (holding()) { toTop(); }
  }, {capture: true, passive: true});
  function tourStep() {
    var panel = document.querySelector('.st-key-tour_panel [data-testid="stCaptionContainer"]');
    var text = panel ? panel.textContent : null;
    if (text && text !== lastStep) {
      lastStep = text;
      holdTop = Date.now() + 6000;
      toTop();
    } else if (!text) {
      lastStep = null;
    }
  }
  new MutationObserver(tourStep).observe(document.body, {childList: true, subtree: true, characterData: true});
  tourStep();
})();
</script>"""

#: The page's range of a live chart's sliders (explorer.liveparam.ranges_html: a hidden span before the
#: chart, ``data-posenc-ranges="<element key>"``, ``data-max-<input name>="…"``, ``data-min-…``). A
#: chart whose sliders span the registry's widest range keeps its spec when the table's size changes
#: (issue #23: the browser keeps the chart instead of building it anew); this sets each slider's min and
#: max to the page's range whenever the span or the chart's inputs are added (a rerun that changes the
#: range redraws the span; a chart built anew adds its inputs), and the read-out beside it to the
#: input's value (the browser moves a value outside the new range inside). It sends no event: a value
#: the page's range moves is clamped by the server in the same rerun, which then builds the chart anew
#: at it (explorer.liveparam.plan), and the chart's own expressions read a value past the table's edge
#: as the edge. Installed once per browser tab. It relies on vega-embed's markup for a bound range
#: input (explorer.compat lists it): the input's name is the signal's (explorer.charts.live.input_signal),
#: its read-out the next element.
LIVE_RANGES_JS = (
    """<script>
(function () {
  if (window.__posencLiveRanges) { return; }
  window.__posencLiveRanges = true;
  var MARK = '"""
    + LIVE_RANGES_ATTRIBUTE
    + """', WATCH = 'form.vega-bindings, [' + MARK + ']';
  var LABELS = """
    + json.dumps(OPTION_LABELS)
    + """;
  function narrow(span) {
    var form = document.querySelector('.st-key-' + CSS.escape(span.getAttribute(MARK)) + ' form.vega-bindings');
    if (!form) { return; }
    var ranges = {};  // input name -> {min, max}: this span's, whole
    for (var i = 0; i < span.attributes.length; i++) {
      var a = span.attributes[i], m = /^data-(min|max)-(.+)$/.exec(a.name);
      if (m) { (ranges[m[2]] = ranges[m[2]] || {})[m[1]] = a.value; }
    }
    for (var name in ranges) {
      var input = form.querySelector('input[type=range][name="' + CSS.escape(name) + '"]');
      if (!input) { continue; }
      if (input === held) {  // under the hand: a new range would move the value under it; wait for the release
        input.__posencPending = ranges[name];  // the latest span's, replacing an earlier one's
        continue;
      }
      for (var end in ranges[name]) {
        if (input.getAttribute(end) !== ranges[name][end]) { set(input, end, ranges[name][end]); }
      }
    }
  }
  function set(input, end, value) {
    input.setAttribute(end, value);
    var shown = input.nextElementSibling;
    if (shown) { shown.textContent = input.value; }
    label(input);
  }
  // The slider the hand holds: a page run during a drag (a pause) may narrow it to a new window, which
  // would shift the value under the pointer; the range waits until the release, and applies then only if
  // the value is inside it (else the release's own run brings the range for that value).
  var held = null;
  document.addEventListener('pointerdown', function (e) {
    var t = e.target;
    if (t && t.matches && t.matches('form.vega-bindings input[type=range]')) { held = t; }
  }, true);
  function release() {
    var input = held, pending = input && input.__posencPending;
    held = null;
    if (!pending) { return; }
    input.__posencPending = null;
    var v = +input.value, lo = pending.min !== undefined ? +pending.min : -Infinity;
    var hi = pending.max !== undefined ? +pending.max : Infinity;
    if (v < lo || v > hi) { return; }
    for (var end in pending) {
      if (input.getAttribute(end) !== pending[end]) { set(input, end, pending[end]); }
    }
  }
  document.addEventListener('pointerup', release, true);
  document.addEventListener('pointercancel', release, true);
  // a slider over option indices shows the option: whenever Vega writes the index into the read-out
  // beside it (on input, or later when the view updates the binding), it is replaced by the option
  function label(input) {
    var names = LABELS[input.name], shown = input.nextElementSibling;
    if (!names || !shown) { return; }
    var want = names[+input.value];
    if (want !== undefined && shown.textContent !== want) { shown.textContent = want; }
    if (!shown.__posencLabelled) {
      shown.__posencLabelled = true;
      new MutationObserver(function () { label(input); }).observe(shown, {childList: true, characterData: true, subtree: true});
    }
  }
  new MutationObserver(function (records) {
    for (var i = 0; i < records.length; i++) {
      var added = records[i].addedNodes;
      for (var j = 0; j < added.length; j++) {
        var n = added[j];
        if (n.nodeType === 1 && (n.matches(WATCH) || n.querySelector(WATCH))) {
          document.querySelectorAll('[' + MARK + ']').forEach(narrow);
          document.querySelectorAll('form.vega-bindings input[type=range]').forEach(label);
          return;
        }
      }
    }
  }).observe(document.body, {childList: true, subtree: true});
})();
</script>"""
)


#: The clock page's play and number box move the hands (the chart's ``pos``) without the slider,
#: which is the URL's p (explorer.charts.clocks: a Vega timer cannot set a selection, only the
#: slider's input can). While ▶ play is ticked this keeps the slider's thumb and read-out on the
#: hands' whole position (display only); when play is stopped, or a number typed in the box is
#: committed (its change event), it moves the slider there with the slider's own input event, so
#: the selection, and 150 ms later the page and the link, follow. Installed once per browser tab;
#: input names are Vega's signal names (tests/test_charts_clocks.py checks them against the chart).
CLOCK_BRIDGE_JS = """<script>
(function () {
  if (window.__posencClockBridge) { return; }
  window.__posencClockBridge = true;
  function parts(el) {
    var form = el && el.closest ? el.closest('.st-key-clock_chart form.vega-bindings') : null;
    if (!form) { return null; }
    return {
      slider: form.querySelector('input[name="m_m"]'),
      exact: form.querySelector('input[name="exact"]'),
      play: form.querySelector('input[name="playing"]')
    };
  }
  function show(p) {
    if (!p.slider || !p.exact || p.exact.value === '') { return false; }
    var changed = p.slider.value !== p.exact.value;
    p.slider.value = p.exact.value;
    var span = p.slider.nextElementSibling;
    if (span) { span.textContent = p.slider.value; }
    return changed;
  }
  function commit(p) {
    show(p);
    p.slider.dispatchEvent(new Event('input', {bubbles: true}));
  }
  function follow(p) {
    if (!p.play || !p.play.checked || !p.play.isConnected) { return; }
    show(p);
    window.requestAnimationFrame(function () { follow(p); });
  }
  document.addEventListener('change', function (e) {
    var p = parts(e.target);
    if (!p || !p.slider) { return; }
    if (e.target === p.play) {
      if (p.play.checked) { follow(p); } else { window.setTimeout(function () { commit(p); }, 60); }
    } else if (e.target === p.exact) {
      window.setTimeout(function () { commit(p); }, 0);
    }
  }, true);
})();
</script>"""


def preload_js(chunks: tuple[str, ...]) -> str:
    """A script that asks the browser for Streamlit's front-end modules `chunks` (file names from
    `explorer.compat.chart_code_chunks`, which match ``name.hash.js``) at once, resolved next to
    Streamlit's own index module, so that they are ready when the page's first chart and formula
    arrive. Once per browser tab; a name that fails to load is ignored (the chart then loads it as
    usual). Empty when there is nothing to preload."""
    if not chunks:
        return ""
    for name in chunks:
        if not compat.CHUNK_NAME.fullmatch(name):
            raise ValueError(f"chunks must be file names like 'Name.hash.js', got {name!r}")
    names = ", ".join(f"'{name}'" for name in chunks)
    return (
        "<script>\n(function () {\n"
        "  if (window.__posencPreload) { return; }\n"
        "  var main = document.querySelector('script[type=module][src*=\"/static/js/index.\"]');\n"
        "  if (!main) { return; }\n"
        f"  window.__posencPreload = [{names}];\n"
        "  window.__posencPreload.forEach(function (name) {\n"
        "    import(new URL(name, main.src).href).catch(function () {});\n"
        "  });\n"
        "})();\n</script>"
    )


def page_scripts(chunks: tuple[str, ...]) -> str:
    """Every script a page injects, as one ``<script>`` element: `preload_js` first (so the downloads
    start at once), then `SVG_EXPORT_JS`, `CLOCK_BRIDGE_JS` and `LIVE_RANGES_JS`, each guarded to run
    once per browser tab, and each in its own ``try``: one that fails does not stop the others. One
    element instead of four: every element is a message the server hashes and hands to its event
    loop on every run of every page (bench/RESULTS.md §28)."""
    parts = [preload_js(chunks), SVG_EXPORT_JS, CLOCK_BRIDGE_JS, LIVE_RANGES_JS]
    bodies = [p.removeprefix("<script>").removesuffix("</script>").strip("\n") for p in parts if p]
    return "<script>\n" + "\n".join(f"try {{\n{body}\n}} catch (e) {{}}" for body in bodies) + "\n</script>"
