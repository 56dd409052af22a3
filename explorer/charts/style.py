"""The one chart style module: projector-legible text sizes for the builders (`chart_config`,
`configure`), and how every chart is drawn on the page (`style_spec`: a white card, and in
presentation mode every font size and fixed view height scaled). Pure: no Streamlit."""

from __future__ import annotations

import colorsys
import copy
import functools
import json
import math
import re
import textwrap
from collections.abc import Sequence
from typing import Any, Literal, TypeVar

import altair as alt
import numpy as np
import pandas as pd

#: Any top-level chart: `configure` returns the same kind of chart it was given.
ChartT = TypeVar("ChartT", bound=alt.TopLevelMixin)

#: The text sizes every chart starts from (every size ≥ 13 px, legible on a projector).
BASE_CONFIG: dict[str, dict[str, Any]] = {
    "axis": {"labelFontSize": 14, "titleFontSize": 15, "titleFontWeight": "normal"},
    "title": {"fontSize": 18, "subtitleFontSize": 14, "anchor": "start", "subtitleColor": "#334155"},
    "legend": {"labelFontSize": 14, "titleFontSize": 14},
}


def chart_config(**sections: dict[str, Any]) -> alt.Config:
    """`BASE_CONFIG` with a chart module's own additions, section by section, e.g.
    ``chart_config(title={"fontSize": 19}, view={"stroke": None})``. Set it in one
    ``.properties(config=…)`` or constructor argument: each ``configure_*`` call copies the chart."""
    merged: dict[str, Any] = {key: dict(value) for key, value in BASE_CONFIG.items()}
    for section, values in sections.items():
        merged[section] = {**merged.get(section, {}), **values}
    return alt.Config.from_dict(merged)


def configure(
    chart: ChartT,
    *,
    axis_label: int = 14,
    axis_title: int = 15,
    title: int = 18,
    subtitle: int = 14,
    legend_title: int = 14,
    view_stroke: str | None = None,
    styles: dict[str, dict[str, Any]] | None = None,
) -> ChartT:
    """The chart with `chart_config` and these text sizes (one copy of the chart); `styles` adds named mark styles
    (a mark's ``style=``), which Vega draws without evaluating them for every mark."""
    config = _sized_config(axis_label, axis_title, title, subtitle, legend_title, view_stroke)
    if styles:
        config = config.copy(deep=False)  # a copy of the cached Config's fields (it has no style of its own)
        config.style = dict(styles)
    return chart.properties(config=config)


@functools.lru_cache(maxsize=32)
def _sized_config(
    axis_label: int,
    axis_title: int,
    title: int,
    subtitle: int,
    legend_title: int,
    view_stroke: str | None,
) -> alt.Config:
    """`configure`'s config, built once per set of sizes (`alt.Config.from_dict` was a tenth of a
    chart's build time). Shared by the charts that use it: Altair copies a config before changing it
    (``configure_*``), and `style_spec` works on the finished dict, so nothing modifies it."""
    return chart_config(
        axis={"labelFontSize": axis_label, "titleFontSize": axis_title},
        title={"fontSize": title, "subtitleFontSize": subtitle},
        legend={"titleFontSize": legend_title},  # labels: BASE_CONFIG's
        view={"stroke": view_stroke},
    )


# ------------------------------------------------------------------------------ the card
#: How much larger chart text gets in presentation mode.
FONT_SCALE = 1.35
#: A top-level parameter of this name (value 1) is set to the scale in presentation mode: for a
#: builder whose font sizes are Vega expressions (computed in the browser), which `_walk_scale`
#: cannot multiply.
FONT_SCALE_PARAM = "font_scale"


def when(test: str, then: Any, otherwise: Any, channel: type[alt.SchemaBase] = alt.ColorValue) -> alt.SchemaBase:
    """A value channel that is `then` where the Vega expression `test` holds, else `otherwise`:
    the spec of ``alt.condition(test, alt.value(then), alt.value(otherwise))``, built as the channel
    (`alt.ColorValue`, `alt.SizeValue`, …) directly. The dict `alt.condition` returns is matched by
    `encode()` against each alternative of the channel's schema with jsonschema, 2–5 ms per channel
    on this machine; the channel built here costs 0.03 ms and gives the same dict."""
    return channel(otherwise, condition={"test": test, "value": then})


def on_canvas() -> dict[str, Any]:
    """A chart's ``usermeta`` asking vega-embed for its canvas renderer (Streamlit passes the renderer
    on; it draws SVG otherwise). For charts with many marks redrawn at every control: each SVG mark is
    a DOM node. A canvas does not scale down as SVG does: a chart of fixed width needs CSS that scales it
    (explorer.assets, the Compare chart), and then Vega picks the wrong mark under the pointer, so such a
    chart carries no tooltip. A new dict each call (Altair keeps the object it is given)."""
    return {"embedOptions": {"renderer": "canvas"}}


def font_scale_param() -> alt.Parameter:
    """The top-level `FONT_SCALE_PARAM` (value 1; style_spec sets it when presenting), for a chart's
    ``params=[…]`` or ``.add_params(…)``."""
    return alt.param(name=FONT_SCALE_PARAM, value=1)


#: A heatmap's cells drawn in row-major order (left to right, top to bottom) overlap the cells drawn after them, right
#: and down, and the plot clips them: each seam between two cells is then covered by the later one. Cells that only
#: meet left the background showing through their anti-aliased edges wherever a cell's edge fell inside a pixel, a
#: faint white grid over the whole heatmap (seen at 32 × 32 and 64 × 64 patches). The later cell covers the overlap
#: and is the one a pointer there picks, so each cell still shows and answers over its own square; the last column
#: and row reach no further than their own edge (the vision query heatmaps) or are clipped at the plot's (cells that
#: fill their plot). Cells placed by their edges in data units reach this share of a cell further (the vision query
#: heatmaps' right and lower edges, but the grid's last) …
CELL_OVERLAP = 0.5
#: … and cells on band scales this many pixels (`seamless_cells`).
CELL_OVERLAP_PX = 1


def seamless_cells(band_width: str, band_height: str) -> dict[str, Any]:
    """The rect mark's properties for cells on band scales with no padding, given each band's size in pixels as Vega
    expressions: each cell as wide and tall as its band plus CELL_OVERLAP_PX, starting where its band starts (Vega-Lite
    centres a rect of a given size on its band: the offsets move it back). ``mark_rect(**seamless_cells(w, h))``."""
    grow = CELL_OVERLAP_PX
    return {
        "width": alt.ExprRef(f"({band_width}) + {grow}"),
        "height": alt.ExprRef(f"({band_height}) + {grow}"),
        "xOffset": grow / 2,
        "yOffset": grow / 2,
        "clip": True,
    }


#: Width to the container, height the plot's own: Streamlit's default autosize ("fit") squeezes
#: title, legend and axes into the chart's height, so on a phone, where the titles wrap to several
#: lines, nothing is left of the plot (tests/test_e2e_layout.py measures it).
FIT_X = alt.AutoSizeParams(type="fit-x", contains="padding")


def marked_rules(field: str, marks: Sequence[tuple[float, str]], scale: Any = alt.Undefined) -> list[alt.Chart]:
    """A dashed vertical rule at each mark's ``field`` value (L, the trained length, a drop), its label at the top."""
    frame = pd.DataFrame({field: [m[0] for m in marks], "label": [m[1] for m in marks]})
    base = alt.Chart(frame).encode(x=alt.X(f"{field}:Q", scale=scale))
    return [
        base.mark_rule(strokeDash=[6, 4], color="#111827"),
        base.mark_text(align="left", dx=4, y=8, fontSize=13, color="#111827").encode(text="label:N"),
    ]


def titled_layers(
    layers: Sequence[Any], title: str, subtitle: Any, height: int, config: alt.Config, description: str = ""
) -> alt.TopLevelMixin:
    """The layers as one chart with its title and subtitle, height, config, description (the title if none) and
    FIT_X; shared by the lab's, the newer encodings' and the real model's charts."""
    return alt.layer(*layers).properties(
        title=alt.Title(title, subtitle=subtitle),
        height=height,
        config=config,
        description=description or title,
        autosize=FIT_X,
    )


#: Font-size keys anywhere in a Vega-Lite spec (config, axis/legend/title objects, marks).
FONT_KEYS = frozenset({"fontSize", "labelFontSize", "titleFontSize", "subtitleFontSize"})
#: The title size of a chart that sets none (`_DEFAULT_SIZES`): what a facts title (`title_facts`)
#: of such a chart is measured in.
DEFAULT_TITLE_SIZE = 16
#: Sizes Streamlit's chart theme would use where a chart sets none, made explicit so that
#: presentation mode scales them too.
_DEFAULT_SIZES = {
    "axis": {"labelFontSize": 12, "titleFontSize": 12},
    "legend": {"labelFontSize": 12, "titleFontSize": 12},
    "header": {"labelFontSize": 12, "titleFontSize": 12},
    "title": {"fontSize": DEFAULT_TITLE_SIZE, "subtitleFontSize": 13},
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


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _walk_scale(node: Any, factor: float) -> Any:
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key in ("datasets", "data"):
                out[key] = value
            elif key in FONT_KEYS and _number(value):
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
    if _number(out.get("height")):
        if _number(out.get("width")):
            out["width"] = round(out["width"] * factor)
        out["height"] = round(out["height"] * factor)
    for key in _VIEW_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [_scale_heights(v, factor) if isinstance(v, dict) else v for v in out[key]]
    if isinstance(out.get("spec"), dict):
        out["spec"] = _scale_heights(out["spec"], factor)
    return out


#: Text stroked wide in the light card's colour under a label (a halo): where a line or a rule passes behind the label,
#: the words stay legible; the dark theme turns it into the dark card's colour (`dark_color`).
HALO = CARD_BACKGROUND


#: The dark theme's card: the page's own dark colours (.streamlit/config.toml), light text, dim grid.
DARK_BACKGROUND = "#111A2E"
#: One step off the dark card: its grid and frame, and the zero of its diverging maps (`DARK_DIVERGING`).
DARK_SLATE = "#1E293B"
#: The dark card's mid blue: the top of its blues (`DARK_BLUES`) and an end of its diverging maps.
DARK_MID_BLUE = "#3B82F6"
_DARK_CONFIG = {
    "background": DARK_BACKGROUND,
    "axis": {
        "labelColor": "#CBD5E1",
        "titleColor": "#F1F5F9",
        "gridColor": DARK_SLATE,
        "domainColor": "#64748B",
        "tickColor": "#64748B",
    },
    "legend": {"labelColor": "#E2E8F0", "titleColor": "#F1F5F9"},
    "header": {"labelColor": "#E2E8F0", "titleColor": "#F1F5F9"},
    "title": {"color": "#F1F5F9", "subtitleColor": "#CBD5E1"},
    "view": {"stroke": DARK_SLATE},
    "text": {"color": "#F1F5F9"},
}
#: Spec keys whose string value is a colour (marks, encodings' `value` and scale `range`, axis/legend/title configs).
COLOR_KEYS = frozenset(
    {
        "color",
        "fill",
        "stroke",
        "labelColor",
        "titleColor",
        "subtitleColor",
        "gridColor",
        "domainColor",
        "tickColor",
        "background",
    }
)
_HEX = re.compile(r"#(?:[0-9a-fA-F]{3}){1,2}")


def _rgb(color: str) -> tuple[float, ...]:
    """A '#RRGGBB' or '#RGB' colour's red, green and blue, each 0 … 1."""
    digits = color[1:] if len(color) == 7 else "".join(c * 2 for c in color[1:])
    return tuple(int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4))


def _hls_hex(hue: float, light: float, sat: float) -> str:
    """The '#RRGGBB' colour of hue, lightness and saturation (colorsys' HLS)."""
    return "#{:02X}{:02X}{:02X}".format(*(round(c * 255) for c in colorsys.hls_to_rgb(hue, light, sat)))


def dark_color(color: str, *, lighten_only: bool = False) -> str:
    """A builder's colour, chosen for white, made to read on the dark card with the same hue: dark
    text and lines become light, pale fills and grids become dark, mid-tones stay as they are; the light card's own
    colour (white, however spelt: a `HALO` under a label, a separator between cells) becomes the dark card's. With
    `lighten_only` (a colour scale's range: categories drawn on the card) a pale colour stays pale: it
    reads on the dark card as it is, and a darkened one would all but vanish there."""
    card = color.strip().lower() == "white" or (_HEX.fullmatch(color) and _rgb(color) == _rgb(CARD_BACKGROUND))
    if card and not lighten_only:  # a halo, a separator: the dark card's colour
        return DARK_BACKGROUND
    if not _HEX.fullmatch(color):
        return color
    hue, light, sat = colorsys.rgb_to_hls(*_rgb(color))
    if light < 0.5:
        light = min(max(1.0 - light, 0.62), 0.93)
    elif light > 0.85 and not lighten_only:
        light = max(1.0 - light, 0.1) + 0.08
    else:
        return color
    return _hls_hex(hue, light, sat)


#: A text mark's colour on the dark card reaches at least WCAG's contrast for normal text (AA); a mid-tone that
#: `dark_color` keeps (a red read-out: 3.6:1) is lightened, same hue, until it does.
TEXT_CONTRAST = 4.5


def _relative_luminance(color: str) -> float:
    linear = [(c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4) for c in _rgb(color)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def dark_text_color(color: str) -> str:
    """`dark_color` for a text mark: lightened further (same hue and saturation) until its contrast with
    DARK_BACKGROUND is at least TEXT_CONTRAST. A pale colour (which `dark_color` turns dark: a halo in the card's
    colour) stays as `dark_color` makes it."""
    if not _HEX.fullmatch(color) or dark_color(color) != dark_color(color, lighten_only=True):
        return dark_color(color)
    color = dark_color(color)
    card = _relative_luminance(DARK_BACKGROUND) + 0.05
    hue, light, sat = colorsys.rgb_to_hls(*_rgb(color))
    while (_relative_luminance(color) + 0.05) / card < TEXT_CONTRAST and light < 1:
        light = min(light + 0.02, 1.0)
        color = _hls_hex(hue, light, sat)
    return color


def _text_mark(node: dict) -> bool:
    mark = node.get("mark")
    return mark == "text" or (isinstance(mark, dict) and mark.get("type") == "text")


#: A unit view whose ``name`` starts with this lays pale regions under the data (a sequence's segments): on the dark
#: card its colours, its scale's range too, become `band_color`s, not kept pale as a range of categories drawn on the
#: card is (a pale yellow band behind the dots glared on the dark card, and the orange and blue dots lost their
#: contrast on it: under 2:1).
BAND_VIEW = "band_"


#: A band on the dark card (HLS): its greatest saturation, and its contrast with the card, one step off it, the same for
#: every hue (a pale band darkened by `dark_color` kept its saturation: a brown slab).
BAND_SATURATION, BAND_STEP = 0.45, 1.2


def band_color(color: str) -> str:
    """A `BAND_VIEW`'s pale colour on the dark card: its hue, saturation at most `BAND_SATURATION`, the darkest
    lightness whose contrast with DARK_BACKGROUND is at least `BAND_STEP`."""
    if not _HEX.fullmatch(color):
        return color
    hue, _, sat = colorsys.rgb_to_hls(*_rgb(color))
    card = _relative_luminance(DARK_BACKGROUND) + 0.05
    light = 0.0
    while (_relative_luminance(_hls_hex(hue, light, min(sat, BAND_SATURATION))) + 0.05) / card < BAND_STEP:
        light += 0.005
    return _hls_hex(hue, light, min(sat, BAND_SATURATION))


def _view_named(node: dict, prefix: str) -> bool:
    """Whether `node` is a view whose ``name`` starts with `prefix` (`BAND_VIEW`, `MASK_VIEW`)."""
    return isinstance(node.get("name"), str) and node["name"].startswith(prefix)


#: A unit view whose ``name`` starts with this fills, in the card's colour, the part of a plot that holds no value (an
#: image heatmap's masked cells: a causal mask's upper triangle, a clipped frequency). On the light card it is the card;
#: on the dark card it is `MASK_DARK`, a mid slate: the dark ends of viridis and magma (a gate or a count of 0) merged
#: with the navy card there (1.1–1.4:1), so the mask's edge faded; on this slate they stand 2:1 or more off it.
MASK_VIEW, MASK_DARK = "mask_", "#475569"


#: A view whose ``name`` starts with this is a grid of shaded cells with numbers on them (the lab's grids of shares):
#: on the dark card its scale's "blues" scheme becomes `DARK_BLUES` (blues' pale end, a share near its floor, glared
#: there: the brightest thing on a dark slide was the cell that did worst), and its text's colour field `INK` becomes
#: `INK_DARK`, the ink `ink_on` picks for that cell on that range (the builder computes both: `grid_inks`).
GRID_VIEW, INK, INK_DARK = "grid_", "ink", "ink_dark"
#: The dark card's blues: one step off the card (a share at its floor) to a mid blue (a share of 1), in RGB.
DARK_BLUES = ("#1E3A5F", DARK_MID_BLUE)
#: Vega's "blues" (vega-scale's palettes.js, the scheme Vega interpolates), sampled at 0, 0.1, …, 1 with vl-convert.
BLUES = (
    "#cfe1f2", "#bed8ec", "#a8cee5", "#8fc1de", "#74b2d7", "#5ba3cf", "#4592c6", "#3181bd", "#206fb2", "#125ca4", "#0a4a90",
)  # fmt: skip
#: The two inks a cell's numbers may take: the one that contrasts more with the cell (`ink_on`).
INKS = ("#ffffff", "#0f172a")
#: The dark card's diverging maps, low to high in RGB: an end, a slate one step off the card (zero), the other end; the
#: ends mid-tones as bright as each other (4.6–4.9:1 on the card). Vega's redblue and blueorange are near-white at
#: zero: R_m, almost all zeros, was a white square on the dark card, and so was the sinusoid's table past its first
#: dimensions. An image (`explorer.imagechart.image_heatmap` with ``dark=True``) is painted with them, and a scale Vega
#: draws with the scheme takes them as its range on the dark card (`_dark_scheme`): the same colour for the same value.
DARK_REDBLUE = ("#EF4444", DARK_SLATE, DARK_MID_BLUE)
DARK_BLUEORANGE = (DARK_MID_BLUE, DARK_SLATE, "#EA580C")
#: Each diverging scheme's colours on the dark card.
DARK_DIVERGING = {"redblue": DARK_REDBLUE, "blueorange": DARK_BLUEORANGE}
#: A view whose ``name`` starts with this is an image heatmap's legend (`explorer.imagechart.image_heatmap`): its
#: colours are those its image was painted with in Python, for the card it was built for, so the dark theme leaves them
#: as they are (lightened, or a diverging scheme swapped by `_dark_scheme`, it would no longer match the image).
IMAGE_LEGEND_VIEW = "image_legend_"


def _lerp(stops: Sequence[str], share: float) -> str:
    """The colour at `share` (0 … 1, clipped) of evenly spaced `stops`, interpolated in RGB as Vega does."""
    x = min(max(float(share), 0.0), 1.0) * (len(stops) - 1)
    i = min(int(x), len(stops) - 2)
    a, b = _rgb(stops[i]), _rgb(stops[i + 1])
    # d3's interpolateRgb rounds half up (Math.round), as Vega draws it
    return "#" + "".join(f"{math.floor((u + (x - i) * (v - u)) * 255 + 0.5):02X}" for u, v in zip(a, b, strict=True))


def ink_on(cell: str) -> str:
    """Of `INKS`, the one whose contrast with `cell` is higher (WCAG's ratio)."""
    lum = _relative_luminance(cell) + 0.05
    return max(
        INKS, key=lambda ink: max(lum, _relative_luminance(ink) + 0.05) / min(lum, _relative_luminance(ink) + 0.05)
    )


@functools.cache
def white_ink_from(stops: tuple[str, ...] = BLUES) -> float:
    """The least share (to 1/1000) of a scale on `stops`, pale to dark, from which `ink_on` picks white: for a chart
    that picks its numbers' ink in the browser (a share known only there)."""
    return next((i / 1000 for i in range(1001) if ink_on(_lerp(stops, i / 1000)) == INKS[0]), 1.0)


def grid_inks(shares: Sequence[float]) -> dict[str, list[str]]:
    """Each share's ink on the light card's blues and on the dark card's `DARK_BLUES`, as the fields `INK` and
    `INK_DARK` a `GRID_VIEW`'s data carries (``frame.assign(**grid_inks(shares))``)."""
    return {INK: [ink_on(_lerp(BLUES, s)) for s in shares], INK_DARK: [ink_on(_lerp(DARK_BLUES, s)) for s in shares]}


def _dark_grid(node: dict) -> tuple[dict, tuple[str, ...]]:
    """A `GRID_VIEW` node on the dark card: blues -> `DARK_BLUES`, the field `INK` -> `INK_DARK`; and the keys whose
    colours are the dark card's already (not to be walked again)."""
    if node.get("scheme") == "blues":
        return {k: v for k, v in node.items() if k != "scheme"} | {"range": list(DARK_BLUES), "interpolate": "rgb"}, (
            "range",
        )
    if node.get("field") == INK and "scale" in node and node["scale"] is None:  # a text's colour given as data
        return {**node, "field": INK_DARK}, ()
    return node, ()


def _dark_scheme(node: dict) -> tuple[dict, tuple[str, ...]]:
    """A scale on the dark card: a diverging scheme (`DARK_DIVERGING`) -> its dark colours as the range, interpolated
    in RGB as Vega interpolates a scheme (and as an image's lookup table is); and the keys whose colours are the dark
    card's already (not to be walked again)."""
    if not isinstance(node.get("scheme"), str) or node["scheme"] not in DARK_DIVERGING:
        return node, ()
    stops = DARK_DIVERGING[node["scheme"]]
    return {k: v for k, v in node.items() if k != "scheme"} | {"range": list(stops), "interpolate": "rgb"}, ("range",)


def _walk_dark(
    node: Any,
    colour: bool = False,
    scale_range: bool = False,
    text: bool = False,
    band: bool = False,
    mask: bool = False,
    grid: bool = False,
) -> Any:
    """Every literal colour in a spec through `dark_color` (data and expressions untouched): a colour channel's or a
    mark's colour, its ``value`` and its ``condition``'s, and its scale's ``range`` (a method's line colour, chosen for
    white: lightened only, `dark_color`'s `lighten_only`; in a `BAND_VIEW`, `band_color`; in a `MASK_VIEW`, the card's
    colour becomes `MASK_DARK`; an `IMAGE_LEGEND_VIEW` is left as it is). A scale with a diverging scheme takes the dark
    card's colours for it (`_dark_scheme`). In a text mark's view, its mark's and its encoding's fixed colours through
    `dark_text_color` instead."""
    if isinstance(node, dict):
        if _view_named(node, IMAGE_LEGEND_VIEW):  # its colours are its image's, for the card it was built for
            return node
        band, mask = band or _view_named(node, BAND_VIEW), mask or _view_named(node, MASK_VIEW)
        grid = grid or _view_named(node, GRID_VIEW)
        node, kept = _dark_grid(node) if grid else (node, ())
        if not kept:
            node, kept = _dark_scheme(node)
        out = {}
        for key, value in node.items():
            if key in ("datasets", "data", "expr") or key in kept:
                out[key] = value
            else:
                # a scale's domain stays (data values), and a condition's test (an expression)
                inside = colour and key in ("value", "range", "scale", "condition")
                in_text = text or (key in ("mark", "encoding") and _text_mark(node))
                out[key] = _walk_dark(
                    value, key in COLOR_KEYS or inside, scale_range or (inside and key == "range"), in_text, band, mask,
                    grid,
                )  # fmt: skip
        return out
    if isinstance(node, list):
        return [_walk_dark(v, colour, scale_range, text, band, mask, grid) for v in node]
    if colour and isinstance(node, str):
        if mask and dark_color(node) == DARK_BACKGROUND:  # the card's own colour, however spelt
            return MASK_DARK
        if text and not scale_range:
            return dark_text_color(node)
        return band_color(node) if band else dark_color(node, lighten_only=scale_range)
    return node


def _title_text(spec: dict) -> str:
    """The chart's title and subtitle lines as one plain sentence (for `description`)."""
    title = spec.get("title")
    parts: list[str] = []
    if isinstance(title, str):
        parts.append(title)
    elif isinstance(title, list):
        parts += [str(line) for line in title]
    elif isinstance(title, dict):
        for key in ("text", "subtitle"):
            value = title.get(key)  # an expression (a title computed in the browser) is left out
            parts += [str(v) for v in value] if isinstance(value, list) else [value] if isinstance(value, str) else []
    return " ".join(p.strip() for p in parts if p and str(p).strip())


def style_spec(spec: dict, *, presenting: bool = False, dark: bool = False, font_scale: float = FONT_SCALE) -> dict:
    """A Vega-Lite spec drawn as a card: white with dark text (see `_CARD_CONFIG`), or on the dark
    theme the page's dark colours with light text, every colour the builder chose for white mapped
    by `dark_color`. When presenting, every font size and every fixed view height times
    `font_scale`. A chart without a `description` (what screen readers announce) gets its title
    and subtitle as one. Pure; the input is not modified; the chart's own config wins over the
    card defaults."""
    out = dict(spec)
    if dark:
        out = _walk_dark(out)
    config = copy.deepcopy(out.get("config") or {})
    for section, defaults in (_DARK_CONFIG if dark else _CARD_CONFIG).items():
        if isinstance(defaults, dict):
            config[section] = {**defaults, **(config.get(section) or {})}
        else:
            config.setdefault(section, defaults)
    if dark:
        config["background"] = DARK_BACKGROUND
    # Screen readers get the chart's description (below), not one entry per mark.
    config["mark"] = {"aria": False, **(config.get("mark") or {})}
    out.setdefault("padding", dict(CARD_PADDING))
    if not out.get("description"):
        title = _title_text(out)
        if title:
            out["description"] = f"Chart: {title}"
    if presenting:
        for section, sizes in _DEFAULT_SIZES.items():
            config[section] = {**sizes, **(config.get(section) or {})}
    out["config"] = config
    if presenting and font_scale != 1:
        out = _scale_heights(_walk_scale(out, font_scale), font_scale)
        if isinstance(out.get("params"), list):
            out["params"] = [
                {**p, "value": font_scale} if isinstance(p, dict) and p.get("name") == FONT_SCALE_PARAM else p
                for p in out["params"]
            ]
    return _responsive_title(out)


#: Average width of a character of the chart font, in ems (for when a title line needs wrapping).
CHAR_EM = 0.56
#: Views whose `width` signal is not the whole chart's: their titles are left as they are.
_COMPOSITE = ("vconcat", "hconcat", "concat", "facet", "repeat")


#: Plot widths (px) for which a long title line gets its own wrapping: the widest that the chart's
#: width allows is shown, so a title wraps only as much as its chart needs.
WRAP_WIDTHS = (300, 440, 620, 860, 1180)


def wrapped(lines: list[str], room: int, font_size: float) -> list[str]:
    """`lines` wrapped to fit a plot `room` px wide at `font_size` (an axis or two always take some
    room, hence the margin)."""
    per_line = max(int((room - 20) / (font_size * CHAR_EM)), 16)
    return [part for line in lines for part in textwrap.wrap(line, per_line)] or lines


def _needed_px(lines: list[str], font_size: float) -> float:
    """The width (px) the longest of `lines` takes at `font_size`, on average."""
    return max(len(line) for line in lines) * font_size * CHAR_EM


#: A symbol legend entry's room (px at font scale 1) besides its label: the symbol, its gap, the column padding.
LEGEND_ENTRY_PX = 40
#: A chart config's ``legend.layout`` that stacks its legends under the plot, one under the other, each at the left
#: (side by side, the second ran past a phone's right edge); with `legend_columns` per legend.
LEGENDS_STACKED_BELOW = {"expr": "{bottom: {direction: 'vertical', anchor: 'start', offset: 18, margin: 10}}"}


def legend_columns(labels: Sequence[str], most: int, font_size: float = 14) -> alt.ExprRef:
    """A symbol legend's ``columns``: as many entries a row as the plot's width holds at the longest of `labels`
    (`font_size`, the legend's labels', times the presentation font scale `FONT_SCALE_PARAM`, which the chart must
    declare), at least one and at most `most`: one row on a desktop, fewer columns down to one entry a line on a phone,
    instead of a row cut off at the chart's right edge."""
    entry = round(_needed_px([str(label) for label in labels] or [""], font_size) + LEGEND_ENTRY_PX)
    return alt.ExprRef(f"clamp(floor(width / ({entry} * {FONT_SCALE_PARAM})), 1, {most})")


def _wrap_expr(lines: list[str], font_size: float) -> Any:
    """A title text that wraps when the chart is narrower than the longest line needs: a Vega
    expression on the chart's `width` signal choosing between the lines as given and the same
    words wrapped to the widest of `WRAP_WIDTHS` that the chart holds."""
    needed = _needed_px(lines, font_size)
    if needed < 320:  # fits a phone's chart as it is
        return lines if len(lines) > 1 else lines[0]

    def as_json(room: int) -> str:
        return json.dumps(wrapped(lines, room, font_size), ensure_ascii=False)

    rooms = [room for room in WRAP_WIDTHS if room < needed]
    expr = as_json(rooms[0])
    for room in rooms[1:]:
        expr = f"width >= {room} ? {as_json(room)} : ({expr})"
    return {"expr": f"width >= {needed:.0f} ? {json.dumps(lines, ensure_ascii=False)} : ({expr})"}


# ------------------------------------------------------------------------ facts from the data
# A chart whose title counts something (“21 of 32 pairs …”) or whose axis ends where the data end
# used to carry those numbers in its spec, so every change of them gave the chart a new spec and the
# browser compiled it and built a new view. Here they travel as one row of data instead: the spec
# stays the same and Streamlit's front end only swaps the rows (issue #23).

#: The name `explorer.render.stable_dataset_names` gives a chart's first dataset, where
#: `facts_layer`, listed as the chart's first layer, puts its row.
FACTS_DATA = "data-0"
#: The fields of the facts row that hold a data title (`title_facts`, `title_expr`).
TITLE_FIELD = "title"


def fact(name: str) -> str:
    """The Vega expression for field `name` of the chart's facts row (`facts_layer`)."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"name: a fact's name must be an identifier, got {name!r}")
    return f"data('{FACTS_DATA}')[0].{name}"


def fact_params(signals: dict[str, str]) -> list[Any]:
    """One variable parameter per entry of `signals` (a field of the facts row -> the signal's
    name), holding that fact, for expressions that read it often (`facts_layer`)."""
    return [alt.param(name=signal, expr=fact(field)) for field, signal in signals.items()]


def label_step(count: int, most: int = 12) -> int:
    """The step between labelled indices on an axis of `count` cells: 1, 2, 5, 10, 20, 50, … the
    smallest that labels at most `most` of them."""
    step, factors = 1, (2, 5 / 2, 2)  # 1 → 2 → 5 → 10 → 20 → 50 …
    k = 0
    while -(-count // step) > most:
        step = round(step * factors[k % 3])
        k += 1
    return step


#: The steps an axis labelled in the browser can take (`label_step`'s first ones: far enough for 64 patches or 256 rows
#: at one label).
LABEL_STEPS = (1, 2, 5, 10, 20, 50, 100)


def label_step_expr(count: str, most: str) -> str:
    """The Vega expression for `label_step(count, most)` (`count`, `most`: Vega expressions; `count` ≤ 100 · `most`):
    the first of `LABEL_STEPS` that labels at most `most` of `count` cells."""
    out = str(LABEL_STEPS[-1])
    for step in reversed(LABEL_STEPS[:-1]):
        out = f"ceil({count} / {step}) <= {most} ? {step} : {out}"
    return out


def facts_layer(facts: dict[str, Any] | pd.DataFrame) -> alt.Chart:
    """An invisible layer holding one row: the numbers and sentences that a chart's title or scale
    ends read with `fact(name)`. It must be the first layer of the top-level chart (of its first
    view, in a concatenation), and that chart must have no top-level data: its dataset is then the
    first, which `stable_dataset_names` names `FACTS_DATA`; one chart, one facts row. It has no
    encoding, so no scale or legend sees it. Keys are identifiers; values finite numbers or text. A one-row table is
    sent as it is (its Arrow bytes: a shared spec can put another row in its place, `explorer.render.Rows`)."""
    if isinstance(facts, pd.DataFrame) and len(facts) != 1:
        raise ValueError(f"facts: one row, got {len(facts)}")
    row = facts.iloc[0].to_dict() if isinstance(facts, pd.DataFrame) else facts
    for key, value in row.items():
        if isinstance(value, np.generic):
            value = value.item()
        fact(key)  # an identifier, or ValueError
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise ValueError(f"facts: {key!r} must be a string or a number, got {value!r}")
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"facts: {key!r} must be finite, got {value!r}")
    return alt.Chart(facts if isinstance(facts, pd.DataFrame) else pd.DataFrame([facts])).mark_text(opacity=0)


def title_facts(text: str | list[str], font_size: float) -> dict[str, Any]:
    """The facts row's fields for a title computed in Python (`title_expr` shows them): its lines
    as given, the width (px at font scale 1) they need, and the same words wrapped for each width of
    `WRAP_WIDTHS`; lines joined by a newline."""
    lines = [text] if isinstance(text, str) else list(text)
    if not lines or not all(isinstance(line, str) and line for line in lines):
        raise ValueError(f"text: a title needs one or more non-empty lines, got {text!r}")
    row: dict[str, Any] = {
        TITLE_FIELD: "\n".join(lines),
        f"{TITLE_FIELD}_px": float(_needed_px(lines, font_size)),
    }
    for room in WRAP_WIDTHS:
        row[f"{TITLE_FIELD}_{room}"] = "\n".join(wrapped(lines, room, font_size))
    return row


def title_expr() -> str:
    """The Vega expression of a title whose text is in the facts row (`title_facts`): the lines as
    given where the plot is wide enough, else the widest wrapping that fits (every width times the
    presentation font scale, `FONT_SCALE_PARAM`, a parameter the chart must declare). The same
    choice `_wrap_expr` makes for a title written into the spec."""

    def lines(field: str) -> str:
        return f"split({fact(field)}, '\\n')"

    expr = lines(f"{TITLE_FIELD}_{WRAP_WIDTHS[0]}")
    for room in WRAP_WIDTHS[1:]:
        expr = f"width >= {room} * {FONT_SCALE_PARAM} ? {lines(f'{TITLE_FIELD}_{room}')} : ({expr})"
    return f"width >= {fact(TITLE_FIELD + '_px')} * {FONT_SCALE_PARAM} ? {lines(TITLE_FIELD)} : ({expr})"


def facts_titled(
    layers: Any,
    *,
    title: str | list[str],
    font_size: float,
    subtitle: str | list[str] = "",
    anchor: Literal["start", "middle", "end"] | None = None,
    facts: dict[str, Any] | None = None,
    **props: Any,
) -> alt.LayerChart:
    """`layers` as one layer chart whose title travels in its facts row: the facts layer first
    (`facts_layer`), the title's expression (`title_expr`, measured in `font_size`) and the font-scale
    parameter that expression reads, in one construction. `facts` adds fields the layers read with
    `fact(name)`; `props` go to the chart (width, height, description, config, autosize …)."""
    row = title_facts(title, font_size)
    clash = set(row) & set(facts or {})
    if clash:
        raise ValueError(f"facts: {sorted(clash)} are the title's own fields")
    row.update(facts or {})
    return alt.LayerChart(
        layer=[facts_layer(row), *layers],
        title=alt.TitleParams(
            alt.ExprRef(title_expr()), subtitle=subtitle, anchor=alt.Undefined if anchor is None else anchor
        ),
        params=[font_scale_param().param],  # type: ignore[list-item]  # (.param is always set)
        **props,
    )


def _responsive_title(spec: dict) -> dict:
    """Long titles and subtitles wrap instead of ending in "…" on a narrow screen (single and
    layered views; a concatenation's `width` is not its own)."""
    title = spec.get("title")
    if not title or any(key in spec for key in _COMPOSITE):
        return spec
    config = spec.get("config") or {}
    sizes = config.get("title") or {}
    title_size = float(sizes.get("fontSize", _DEFAULT_SIZES["title"]["fontSize"]))
    subtitle_size = float(sizes.get("subtitleFontSize", _DEFAULT_SIZES["title"]["subtitleFontSize"]))
    params = dict(title) if isinstance(title, dict) else {"text": title}

    def lines(value: Any) -> list[str] | None:
        if isinstance(value, str):
            return [value]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return list(value)
        return None  # an expression already, or absent

    text = lines(params.get("text"))
    if text:
        params["text"] = _wrap_expr(text, title_size)
    subtitle = lines(params.get("subtitle"))
    if subtitle:
        params["subtitle"] = _wrap_expr(subtitle, subtitle_size)
    return {**spec, "title": params}
