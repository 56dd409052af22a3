"""Lecture-hall features of the page frame: presentation mode, the tour panel, the share link,
and `show_chart` (every chart goes through it).

`explorer.layout.page_setup` calls, in this order::

    presenting = is_presenting()                 # before st.set_page_config (reads the raw URL)
    st.set_page_config(..., **page_config_kwargs(presenting))
    sidebar_top(presenting)                      # the "Presentation mode" toggle, tour start
    ...navigation...
    main_top(presenting)                         # CSS, tour panel, SVG-export script

and every page ends with `explorer.exports.page_footer`, which draws `render_share_link`.

Presentation mode (URL ``?present=1`` or ``?present=true``; the toggle at the top of the sidebar):
larger text (CSS rem base) and larger chart text (`style_spec`), the sidebar starts collapsed, and
Streamlit's toolbar, main menu and deploy button are hidden. The sidebar's expand arrow stays, so
every control remains one click away. The choice follows the session from page to page.

Security: every piece of CSS/HTML/JS passed to ``st.html`` here is a module constant; no user or
URL text ever goes into it. Chart specs are data, rendered by Vega.
"""

from __future__ import annotations

import copy
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

import streamlit as st

from explorer import params

PRESENT = "present"
_MIRROR = "_explorer_present"  # the mode, carried from page to page (widget state is per page)
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})

#: How much larger chart text gets in presentation mode.
FONT_SCALE = 1.35
#: Font-size keys anywhere in a Vega-Lite spec (config, axis/legend/title objects, marks).
FONT_KEYS = frozenset({"fontSize", "labelFontSize", "titleFontSize", "subtitleFontSize"})
#: Sizes Streamlit's chart theme would use where a chart sets none, made explicit so that
#: presentation mode scales them too.
_DEFAULT_SIZES = {
    "axis": {"labelFontSize": 12, "titleFontSize": 12},
    "legend": {"labelFontSize": 12, "titleFontSize": 12},
    "header": {"labelFontSize": 12, "titleFontSize": 12},
    "title": {"fontSize": 16, "subtitleFontSize": 13},
}

#: Every chart is drawn as a white card with dark text. The builders choose their colours for a
#: white background (dark annotation text, pale grid); on the dark theme, Streamlit's chart theme
#: would keep those and put them on the dark page, where they vanish. The user's own config wins.
CARD_BACKGROUND = "#FFFFFF"
_CARD_CONFIG = {
    "background": CARD_BACKGROUND,
    "axis": {
        "labelColor": "#334155",
        "titleColor": "#0F172A",
        "gridColor": "#E2E8F0",
        "domainColor": "#94A3B8",
        "tickColor": "#94A3B8",
    },
    "legend": {"labelColor": "#0F172A", "titleColor": "#0F172A"},
    "header": {"labelColor": "#0F172A", "titleColor": "#0F172A"},
    "title": {"color": "#0F172A", "subtitleColor": "#334155"},
    "view": {"stroke": "#E2E8F0"},
    "text": {"color": "#0F172A"},
}
#: Room between the card's edge and the chart (an object: Streamlit's frontend adjusts its sides).
CARD_PADDING = {"top": 6, "bottom": 6, "left": 8, "right": 8}

# ------------------------------------------------------------------------------ constant CSS / JS
#: Always on: the tour panel's narration in large type; on the RoPE page, the blocks that share a
#: wrapping row with a fixed-size chart (the metric cards, the pair map) move below the chart
#: rather than shrink under the width they need (two cards; the pair map's title).
BASE_CSS = """<style>
.st-key-tour_panel [data-testid="stMarkdown"] p { font-size: 1.45rem; line-height: 1.45; }
.st-key-tour_panel [data-testid="stCaptionContainer"] p { font-size: 0.95rem; }
[data-testid="stTabs"] [role="tab"] p { font-size: 1.1rem; }
[data-testid="stLayoutWrapper"]:has(> .st-key-rope_pair_metrics) { flex-basis: 24rem; }
[data-testid="stLayoutWrapper"]:has(> .st-key-rope_head_pairs) { flex-basis: 26rem; }
</style>"""

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
[data-testid="stMainBlockContainer"] { padding: 4.5rem 2.5rem 10rem; max-width: 100%; }
[data-testid="stExpandSidebarButton"] { transform: scale(1.4); }
[data-testid="stSidebar"] { width: 24rem !important; }
[data-testid="stVegaLiteChart"] { max-width: 100%; }
[data-testid="stVegaLiteChart"] > svg { max-width: 100%; height: auto; }
@media (max-width: 1500px) {
  [data-testid="stAppViewContainer"]:has([data-testid="stSidebar"][data-collapsed="false"])
    .katex-display > .katex { font-size: 1.05em; }
}
</style>"""

#: "Download as SVG" next to Streamlit's "Download as PNG" in every chart's toolbar. Vega draws
#: the charts as SVG in the page, so the file is that SVG, serialised as it is shown (image
#: heatmaps keep their PNG as an embedded data: URL). Installed once per browser tab.
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
    if (!frame || !frame.querySelector('[data-testid="stVegaLiteChart"]')) { return; }
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
  }
  new MutationObserver(scan).observe(document.body, {childList: true, subtree: true});
  scan();
})();
</script>"""


# ------------------------------------------------------------------------------ the mode
def _parse_flag(raw: str) -> bool | None:
    low = raw.strip().lower()
    return True if low in _TRUE else False if low in _FALSE else None


def _url_flag() -> tuple[bool, bool | None]:
    """(present in the URL?, its value or None when unreadable)."""
    try:
        raw = st.query_params.get_all(PRESENT)
    except Exception:
        return False, None
    if not raw:
        return False, None
    return True, _parse_flag(raw[-1]) if len(raw) == 1 else None


def is_presenting() -> bool:
    """Whether this run is in presentation mode. Call before `st.set_page_config`.

    Order: the toggle's value in this session (current page), else the URL (``1/true/yes/on``,
    ``0/false/no/off``), else the mode the session had on the previous page.
    """
    state = st.session_state
    if PRESENT in state:
        value = bool(state[PRESENT])
    else:
        given, flag = _url_flag()
        value = flag if given and flag is not None else bool(state.get(_MIRROR, False))
    state[_MIRROR] = value
    return value


def page_config_kwargs(presenting: bool) -> dict[str, Any]:
    """Extra `st.set_page_config` keywords for the mode."""
    return {"initial_sidebar_state": "collapsed" if presenting else "auto"}


def _toggle(presenting: bool) -> bool:
    """The toggle, after turning ``?present=1`` into the canonical ``true`` it is bound to."""
    state = st.session_state
    if PRESENT not in state:
        given, flag = _url_flag()
        if given and flag is not None:
            # Canonical form for the bound toggle; an unreadable value is left to widget(),
            # which removes it and shows the usual link notice.
            params._set_url_param(PRESENT, "true" if flag else None)
        if not given or flag is not None:
            state[PRESENT] = presenting
    value = params.widget(PRESENT, container=st.sidebar)
    if value and not _url_flag()[0]:  # carried over from the previous page: show it in the URL
        params._set_url_param(PRESENT, "true")
    state[_MIRROR] = bool(value)
    return bool(value)


def sidebar_top(presenting: bool) -> None:
    """Top of the sidebar: the presentation toggle and the tour's start/resume button."""
    from explorer import tour

    _toggle(presenting)
    tour.sidebar_buttons()


def main_top(presenting: bool) -> None:
    """Top of the main area: constant CSS (and the presentation CSS), the SVG-export script, the
    tour panel when a step is active."""
    from explorer import tour

    tour.flush_pending_url()
    st.html(BASE_CSS)
    if presenting:
        st.html(PRESENT_CSS)
    with st.sidebar:
        st.html(SVG_EXPORT_JS, unsafe_allow_javascript=True)
    tour.panel()


# ------------------------------------------------------------------------------ charts
def _walk_scale(node: Any, factor: float) -> Any:
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key in ("datasets", "data"):
                out[key] = value
            elif key in FONT_KEYS and isinstance(value, (int, float)) and not isinstance(value, bool):
                out[key] = round(value * factor, 1)
            else:
                out[key] = _walk_scale(value, factor)
        return out
    if isinstance(node, list):
        return [_walk_scale(v, factor) for v in node]
    return node


_VIEW_LISTS = ("layer", "vconcat", "hconcat", "concat")


def _scale_heights(view: dict, factor: float) -> dict:
    """Fixed view heights times `factor` (top level, layers, concatenations, facet/repeat specs),
    so that larger text does not squeeze the plot. A view with a fixed width too (a clock face, a
    plane) is scaled in both directions, keeping its aspect ratio. Mark sizes are left alone."""
    out = dict(view)

    def number(value: Any) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    if number(out.get("height")):
        if number(out.get("width")):
            out["width"] = round(out["width"] * factor)
        out["height"] = round(out["height"] * factor)
    for key in _VIEW_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [_scale_heights(v, factor) if isinstance(v, dict) else v for v in out[key]]
    if isinstance(out.get("spec"), dict):
        out["spec"] = _scale_heights(out["spec"], factor)
    return out


def style_spec(spec: dict, *, presenting: bool = False, font_scale: float = FONT_SCALE) -> dict:
    """A Vega-Lite spec drawn as a white card (see `_CARD_CONFIG`); when presenting, every font
    size and every fixed view height times `font_scale`. Pure; the input is not modified; the
    chart's own config wins over the card defaults."""
    out = dict(spec)
    config = copy.deepcopy(spec.get("config") or {})
    for section, defaults in _CARD_CONFIG.items():
        if isinstance(defaults, dict):
            merged = dict(defaults)
            merged.update(config.get(section) or {})
            config[section] = merged
        else:
            config.setdefault(section, defaults)
    out.setdefault("padding", dict(CARD_PADDING))
    if presenting:
        for section, sizes in _DEFAULT_SIZES.items():
            merged = dict(sizes)
            merged.update(config.get(section) or {})
            config[section] = merged
    out["config"] = config
    if presenting and font_scale != 1:
        out = _scale_heights(_walk_scale(out, font_scale), font_scale)
    return out


def _to_spec(chart: Any) -> dict | None:
    """The Vega-Lite dict Streamlit itself would send for an Altair chart (data as Arrow)."""
    try:
        from streamlit.elements.vega_charts import _convert_altair_to_vega_lite_spec
    except ImportError:  # pragma: no cover - a Streamlit upgrade renamed it
        return None
    return _convert_altair_to_vega_lite_spec(_Unvalidated(chart))


class _Unvalidated:
    """Streamlit converts a chart with ``chart.to_dict()``, which re-validates the whole spec
    against the Vega-Lite JSON schema on every script run — about half the cost of drawing a chart.
    The builders' specs are validated by the test suite (tests/test_charts_*.py call
    ``to_dict()`` with validation), so at run time we skip the repeat."""

    def __init__(self, chart: Any):
        self._chart = chart

    def to_dict(self, *args: Any, **kwargs: Any) -> dict:
        kwargs.setdefault("validate", False)
        return self._chart.to_dict(*args, **kwargs)


def show_chart(chart: Any, *, container: Any = None, **kwargs: Any) -> Any:
    """Draw an Altair chart (or a Vega-Lite dict) like ``st.altair_chart``, styled by
    `style_spec` (white card; large text in presentation mode).

    ``container``: where to draw (a column, the sidebar …; default the main area). Other keywords
    go to Streamlit (``width``, ``height``, ``key``, ``on_select`` …).
    """
    target = st if container is None else container
    presenting = bool(st.session_state.get(_MIRROR, False))
    spec = chart if isinstance(chart, dict) else _to_spec(chart)
    if spec is None:  # pragma: no cover - see _to_spec
        return target.altair_chart(chart, **kwargs)
    return target.vega_lite_chart(spec=style_spec(spec, presenting=presenting), **kwargs)


# ------------------------------------------------------------------------------ the link
def current_page_path() -> str:
    """The running page as in `explorer.layout.PAGES` ("app.py", "pages/3_RoPE_rotation.py")."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    if ctx is None:
        return "app.py"
    try:
        pages = ctx.pages_manager.get_pages()
        script = pages.get(ctx.page_script_hash, {}).get("script_path") or ctx.main_script_path
    except Exception:
        script = ctx.main_script_path
    path = PurePosixPath(str(script).replace("\\", "/"))
    return f"pages/{path.name}" if path.parent.name == "pages" else "app.py"


def page_defaults() -> dict[str, Any]:
    """{key: the default the page uses} for every registry parameter this page has drawn in this
    session (from `explorer.params`' per-page records; a page may override a default)."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    page_id = ctx.page_script_hash if ctx is not None else ""
    signatures = st.session_state.get(params._SIGNATURES_STATE_KEY, {})
    return {key: signature[-1] for (pid, key), signature in signatures.items() if pid == page_id}


def view_values(extra: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(values, defaults) behind the current view: every parameter this page drew (session value),
    or the URL's value for one not drawn yet; `extra` wins. ``present`` and ``step`` are left out.
    `defaults` are the page's own defaults (which a link may leave out)."""
    state = st.session_state
    defaults = page_defaults()
    values: dict[str, Any] = {}
    try:
        url_keys = [k for k in st.query_params.keys() if k in params.PARAMS]
    except Exception:
        url_keys = []
    for key in sorted(set(defaults) | set(url_keys)):
        if key in (PRESENT, "step"):
            continue
        param = params.get(key)
        if key in state:
            value = state[key]
        else:
            try:
                value = param.parse(st.query_params.get_all(key))
            except Exception:
                continue
        if param.problem(value) is None:
            values[key] = value
    values.update(extra or {})
    return values, defaults


def view_query(
    values: dict[str, Any],
    *,
    step: int | None = None,
    explicit: frozenset[str] = frozenset(),
    defaults: dict[str, Any] | None = None,
) -> dict[str, str]:
    """Query parameters for `values`: defaults left out (the registry's, or the page's own from
    `defaults`), except keys in `explicit` (a tour step's keys, so that a shared step link
    reproduces exactly what was on screen)."""
    query: dict[str, str] = {}
    for key, value in values.items():
        param = params.get(key)
        if param.problem(value) is not None:
            continue
        default = (defaults or {}).get(key, param.default)
        if key not in explicit and value == default:
            continue
        query[key] = param.to_url(value)
    if step:
        query["step"] = str(step)
    return query


def view_url(page_path: str, query: dict[str, str], base_url: str | None) -> str:
    """Absolute link when the browser's URL is known (`st.context.url`), else relative."""
    page = params.page_url_path(page_path)
    qs = f"?{urlencode(query)}" if query else ""
    if not base_url:
        return f"{page or './'}{qs}"
    parts = urlsplit(base_url)
    path = parts.path
    current = params.page_url_path(current_page_path())
    if current and path.rstrip("/").endswith("/" + current):
        path = path.rstrip("/")[: -len(current)]
    if not path.endswith("/"):
        path += "/"
    return urlunsplit((parts.scheme, parts.netloc, path + page, qs.lstrip("?"), ""))


#: Characters left as they are in the share link; everything else is percent-encoded, so neither
#: the path (the browser's address bar, which does not encode ( ) [ ] ! * in a path) nor a value
#: can close the markdown link or inline code, or start markup.
_LINK_SAFE = ":/?&=%#~+,;@._-"


def share_markdown(url: str) -> str:
    """ "Link to this view" as markdown: a link whose text is the URL as inline code. Not a code
    block (st.code): that makes the browser load and start Streamlit's syntax highlighter, about
    150 ms on every page load (measured)."""
    safe = quote(url, safe=_LINK_SAFE)
    return f"**Link to this view**: [`{safe}`]({safe})"


def render_share_link(extra: dict[str, Any] | None = None) -> str:
    """Draw "Link to this view" from the page's current values; returns the URL shown."""
    from explorer import tour

    step = tour.active_step(quiet=True)
    explicit = frozenset(tour.get_step(step).params) if step else frozenset()
    values, defaults = view_values(extra)
    query = view_query(values, step=step, explicit=explicit, defaults=defaults)
    url = view_url(current_page_path(), query, _base_url())
    st.markdown(share_markdown(url))
    st.caption(
        "Select it to copy it, or copy the address bar (it holds the same parameters). "
        "Add present=1 for presentation mode."
    )
    return url


def _base_url() -> str | None:
    try:
        return st.context.url
    except Exception:
        return None
