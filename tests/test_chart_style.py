"""Small builders of explorer.charts.style, checked against what Altair itself builds."""

from __future__ import annotations

import colorsys
import json
import re

import altair as alt
import numpy as np
import pandas as pd
import pytest
from _chartspec import channels_apart, contrast, diverging_on_dark, hex_colour, png_pixels, spec_value, vega_fills

from explorer.charts import style


@pytest.mark.parametrize(
    ("test", "then", "otherwise", "channel"),
    [
        ("datum.weight > datum.vmax * 0.55", "white", "#0F172A", "ColorValue"),
        ("datum.selected", 220, 12, "SizeValue"),
    ],
)
def test_when_is_altairs_condition_built_directly(test, then, otherwise, channel):
    """`style.when` gives an encoding the dict Altair's own `alt.condition` gives it (the reference)."""
    df = pd.DataFrame({"weight": [0.1], "vmax": [1.0], "selected": [True]})
    field = "color" if channel == "ColorValue" else "size"
    ours = (
        alt.Chart(df).mark_point().encode(**{field: style.when(test, then, otherwise, channel=getattr(alt, channel))})
    )
    theirs = alt.Chart(df).mark_point().encode(**{field: alt.condition(test, alt.value(then), alt.value(otherwise))})
    assert ours.to_dict()["encoding"] == theirs.to_dict()["encoding"]
    assert ours.to_dict()["encoding"][field] == {"condition": {"test": test, "value": then}, "value": otherwise}


def test_the_dark_theme_maps_a_colour_scales_range_and_keeps_its_domain():
    """A method's colour given as a colour scale's range (the Compare chart's NoPE slate, #475569, chosen for white)
    reads on the dark card: a dark range colour is lightened by dark_color, a pale one stays, each ≥ 3:1 against the
    card (WCAG's figure for graphics); the domain, data values, is left as it is."""

    colours = ["#1D4ED8", "#B45309", "#047857", "#7C3AED", "#475569", "#F1F5F9"]
    domain = ["#000000", "b"]  # a domain value that looks like a colour stays a data value
    chart = (
        alt.Chart(pd.DataFrame({"x": [0, 1], "m": ["#000000", "b"]}))
        .mark_line()
        .encode(x="x:Q", color=alt.Color("m:N").scale(domain=domain, range=colours))
    )
    dark = style.style_spec(chart.to_dict(), dark=True)
    scale = dark["encoding"]["color"]["scale"]
    assert scale["domain"] == domain
    assert scale["range"][:5] == [style.dark_color(c) for c in colours[:5]]
    assert scale["range"][4] != colours[4]  # the slate is lightened
    assert scale["range"][5] == colours[5]  # a pale category stays pale (darkened, it would vanish on the card)
    assert min(contrast(c, style.DARK_BACKGROUND) for c in scale["range"]) >= 3
    assert contrast(colours[4], style.DARK_BACKGROUND) < 3  # as it was: NoPE's line all but vanished
    assert style.style_spec(chart.to_dict())["encoding"]["color"]["scale"]["range"] == colours  # light: as chosen


def test_the_dark_theme_maps_a_conditions_colour_and_keeps_its_test():
    """A colour chosen by a condition (a selected mark near-black, the others slate) is mapped for the dark card like
    the channel's other value; the test, an expression, is left as it is; the light theme keeps both."""
    test = "datum.selected && datum.colour === '#111827'"
    chart = (
        alt.Chart(pd.DataFrame({"x": [0]})).mark_point().encode(x="x:Q", color=style.when(test, "#111827", "#64748B"))
    )
    dark = style.style_spec(chart.to_dict(), dark=True)["encoding"]["color"]
    assert dark == {
        "condition": {"test": test, "value": style.dark_color("#111827")},
        "value": style.dark_color("#64748B"),
    }
    assert contrast(dark["condition"]["value"], style.DARK_BACKGROUND) >= 3  # it was left near-black on the dark card
    assert contrast("#111827", style.DARK_BACKGROUND) < 3
    assert style.style_spec(chart.to_dict())["encoding"]["color"]["condition"]["value"] == "#111827"


def _hls(color: str) -> tuple[float, float, float]:
    import colorsys

    return colorsys.rgb_to_hls(*(int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)))


@pytest.mark.parametrize("colour", ["#DC2626", "#7C3AED", "#1D4ED8", "#B91C1C", "#0F172A", "#15803D", "#64748B"])
def test_a_text_marks_colour_reads_on_the_dark_card(colour):
    """Text drawn on the dark card reaches WCAG's 4.5:1 for normal text (the Context extension read-out's red, kept
    as it is by dark_color, was 3.6:1 on a projector's dark card); same hue; the light theme keeps the colour."""
    chart = alt.Chart(pd.DataFrame({"t": ["L = 4,096"]})).mark_text(color=colour, fontWeight="bold").encode(text="t:N")
    dark = style.style_spec(chart.to_dict(), dark=True)["mark"]["color"]
    assert contrast(dark, style.DARK_BACKGROUND) >= 4.5
    # no lighter than needed: within a step of the threshold, unless dark_color alone already passes it
    assert contrast(dark, style.DARK_BACKGROUND) < 5 or dark == style.dark_color(colour)
    if _hls(colour)[2] > 0.05:  # a grey has no hue to keep
        assert abs(_hls(dark)[0] - _hls(colour)[0]) < 0.02
    assert style.style_spec(chart.to_dict())["mark"]["color"] == colour


def test_a_halo_in_the_cards_colour_stays_the_cards_and_lines_keep_dark_color():
    """A pale text mark (the read-out's halo, stroked in the card's colour under the figures) is darkened with the card
    as before, not lightened for contrast; a line's colour is dark_color's, not the text rule's."""
    halo = "#F8FAFC"  # a pale halo of another shade
    text = alt.Chart(pd.DataFrame({"t": ["x"]})).mark_text(color=halo, stroke=halo).encode(text="t:N")
    dark = style.style_spec(text.to_dict(), dark=True)["mark"]
    assert dark["color"] == dark["stroke"] == style.dark_color(halo)
    line = alt.Chart(pd.DataFrame({"x": [0, 1]})).mark_line(color="#DC2626").encode(x="x:Q")
    assert style.style_spec(line.to_dict(), dark=True)["mark"]["color"] == style.dark_color("#DC2626") == "#DC2626"


def test_configure_adds_named_styles_to_one_chart_only():
    """`configure(styles=…)` gives a chart named mark styles (the Compare curves' width) without touching the
    config the other charts share: the next chart configured with the same sizes has no style."""
    line = alt.Chart(pd.DataFrame({"x": [0, 1], "y": [1.0, 2.0]})).mark_line(style="wide").encode(x="x:Q", y="y:Q")
    styled = style.configure(line, title=20, styles={"wide": {"strokeWidth": 3}}).to_dict()
    assert styled["config"]["style"] == {"wide": {"strokeWidth": 3}}
    plain = style.configure(line, title=20).to_dict()
    assert "style" not in plain["config"]
    assert {k: v for k, v in styled["config"].items() if k != "style"} == plain["config"]  # the sizes kept


@pytest.mark.parametrize("most", range(1, 14))
def test_the_label_step_in_the_browser_is_label_step(most):
    """`label_step_expr` (the vision grid's axes, with up to 64 patches; the sinusoidal zoom's, with up to 256 rows and
    columns at 12 labels) is `label_step` for every count it is used at."""
    expr = style.label_step_expr("n", str(most))
    for n in range(1, (256 if most >= 12 else 65) + 1):
        assert spec_value({}, expr.replace("n", str(n))) == style.label_step(n, most), (n, most)


@pytest.mark.parametrize("white", ["#FFFFFF", "#ffffff", "#fff", "white", " White "])
def test_the_light_cards_own_colour_becomes_the_dark_cards(white):
    """A halo under a label or a separator between cells is drawn in the card's colour, however spelt: on the dark
    card it is the dark card's colour (a lighter slate before: a glow around every name, grey lines between cells).
    A colour scale's range keeps white (categories drawn on the card), and the card's halo is the card's colour."""
    assert style.HALO == style.CARD_BACKGROUND
    assert style.dark_color(white) == style.DARK_BACKGROUND
    assert style.dark_color(white, lighten_only=True) == white
    rect = alt.Chart(pd.DataFrame({"x": [0]})).mark_rect(stroke=white).encode(x="x:O")
    assert style.style_spec(rect.to_dict(), dark=True)["mark"]["stroke"] == style.DARK_BACKGROUND


@pytest.mark.parametrize("pale", ["#E2E8F0", "#FEF3C7", "#BFDBFE", "#FFFFFF"])
def test_a_band_on_the_dark_card_is_a_tint_one_step_off_it(pale):
    """`band_color`: the pale colour's hue, saturation at most BAND_SATURATION, and the darkest lightness at least
    BAND_STEP off the dark card (WCAG contrast, `_chartspec.contrast`): seen, not glaring, the same step for every hue."""
    band = style.band_color(pale)
    step = contrast(band, style.DARK_BACKGROUND)
    assert style.BAND_STEP <= step < style.BAND_STEP + 0.05, (pale, band, step)
    hue, _, sat = colorsys.rgb_to_hls(*(int(band[i : i + 2], 16) / 255 for i in (1, 3, 5)))
    assert sat <= style.BAND_SATURATION + 0.01
    if _hls(pale)[2] > 0.05 and sat > 0.05:  # a grey has no hue to keep
        assert abs(hue - _hls(pale)[0]) < 0.02


def _vega_fills(spec: dict) -> list[str]:
    """The rect fills Vega itself draws for `spec` (vl-convert's SVG), as '#rrggbb', in drawing order."""
    import vl_convert

    svg = vl_convert.vegalite_to_svg(json.dumps(spec))
    return [
        "#" + "".join(f"{int(c):02x}" for c in rgb.split(","))
        for rgb in re.findall(r'<path[^>]*fill="rgb\(([^)]*)\)"', svg)
    ]


def _lerp_rgb(stops: list[str], share: float) -> str:  # re-typed: evenly spaced stops, linear in 0-255 RGB, d3's
    # interpolateRgb: Math.round (half up)
    x = share * (len(stops) - 1)
    i = min(int(x), len(stops) - 2)
    a = [int(stops[i][k : k + 2], 16) for k in (1, 3, 5)]
    b = [int(stops[i + 1][k : k + 2], 16) for k in (1, 3, 5)]
    return "#" + "".join(f"{int(u + (x - i) * (v - u) + 0.5):02x}" for u, v in zip(a, b, strict=True))


def test_a_grid_of_shares_takes_dark_blues_and_its_own_ink_on_the_dark_card():
    """style.GRID_VIEW: blues' pale end glared on the dark card; there a grid's cells run from one step off the card to
    a mid blue, as Vega draws them, and each number takes the ink that contrasts more with its cell."""

    shares = [i / 10 for i in range(11)]
    inks = style.grid_inks(shares)
    light_ink, dark_ink = inks[style.INK], inks[style.INK_DARK]
    rows = [
        {"s": s, "i": f"{i:02d}", style.INK: a, style.INK_DARK: b}
        for i, (s, a, b) in enumerate(zip(shares, light_ink, dark_ink))
    ]
    cells = {"mark": "rect", "encoding": {
        "x": {"field": "i", "type": "ordinal"},
        "color": {"field": "s", "type": "quantitative", "scale": {"domain": [0, 1], "scheme": "blues"}, "legend": None},
    }}  # fmt: skip
    words = {"mark": "text", "encoding": {
        "x": {"field": "i", "type": "ordinal"}, "text": {"field": "i"}, "color": {"field": style.INK, "type": "nominal", "scale": None},
    }}  # fmt: skip
    spec = {
        "name": style.GRID_VIEW + "t",
        "data": {"values": rows},
        "layer": [cells, words],
        "resolve": {
            "scale": {"color": "independent"}
        },  # the cells' blues, the words' inks as given (as the lab's grid)
    }
    assert _vega_fills(spec)[: len(shares)] == [c.lower() for c in style.BLUES]  # the constant is Vega's blues
    dark = style.style_spec(spec, dark=True)
    assert dark["layer"][1]["encoding"]["color"]["field"] == style.INK_DARK
    drawn = [f for f in _vega_fills(dark) if f != style.DARK_BACKGROUND.lower()][: len(shares)]
    assert drawn == [_lerp_rgb(["#1e3a5f", "#3b82f6"], s) for s in shares]
    from _chartspec import luminance

    assert luminance(drawn[-1]) < 0.3  # the top of the range is a mid blue, not a near-white
    for cell, ink in [*zip(drawn, dark_ink, strict=True), *zip(style.BLUES, light_ink, strict=True)]:
        assert contrast(ink, cell) >= 4.0, (cell, ink)
        other = "#0f172a" if ink == "#ffffff" else "#ffffff"
        assert contrast(ink, cell) >= contrast(other, cell)
    # a view not named as a grid keeps its blues on the dark card
    plain = style.style_spec({**spec, "name": "other"}, dark=True)
    assert plain["layer"][0]["encoding"]["color"]["scale"]["scheme"] == "blues"


@pytest.mark.parametrize("scheme", ["redblue", "blueorange"])
def test_a_diverging_scale_vega_draws_on_the_dark_card_takes_the_images_dark_colours(scheme):
    """Vega's redblue and blueorange are near-white at zero: a chart Vega draws with one (the sinusoid's zoom window, the
    vision page's heatmaps) was a glare of white on the dark card wherever its values were small. On the dark card the
    scale takes `style.DARK_DIVERGING`'s colours: Vega draws every value the colour the dark card's image of it has
    (`image_heatmap(..., dark=True)`), a zero just off the card, −1 and 1 clearly off it and about as bright as each
    other, each end on the side of the light map's (red or blue, blue or orange); on the light card the scale is Vega's
    scheme, as it was."""
    from explorer.imagechart import DIVERGING, image_heatmap

    assert set(style.DARK_DIVERGING) == DIVERGING  # every diverging scheme has its dark colours
    values = np.linspace(-1.0, 1.0, 21)
    chart = (
        alt.Chart(pd.DataFrame({"x": range(values.size), "v": values}))
        .mark_rect()
        .encode(x="x:O", color=alt.Color("v:Q").scale(scheme=scheme, domain=[-1, 1], clamp=True))
    )
    spec = chart.to_dict()
    drawn, image = {}, {}
    for card in ("light", "dark"):
        styled = style.style_spec(spec, dark=card == "dark")
        drawn[card] = vega_fills(styled)[: values.size]
        pixels = png_pixels(
            image_heatmap(values[None, :], scheme=scheme, domain=(-1, 1), dark=card == "dark").to_dict()
        )
        image[card] = [hex_colour(p) for p in pixels[0, :, :3]]
        for at, (vega, png) in enumerate(zip(drawn[card], image[card], strict=True)):
            assert channels_apart(vega, png) <= 2, (card, values[at], vega, png)  # the 256-entry table's rounding
    assert (
        style.style_spec(spec)["encoding"]["color"]["scale"] == spec["encoding"]["color"]["scale"]
    )  # light: as it was
    assert contrast(drawn["light"][10], style.CARD_BACKGROUND) < 1.2  # (Vega's near-white zero)
    low, zero, high = drawn["dark"][0], drawn["dark"][10], drawn["dark"][-1]
    diverging_on_dark([zero], [low, high], style.DARK_BACKGROUND)
    assert contrast(drawn["light"][10], style.DARK_BACKGROUND) > 10  # what it was on the dark card: a glare
    assert contrast(low, high) < 1.15  # neither end outshines the other

    def red_minus_blue(c: str) -> int:
        return int(c[1:3], 16) - int(c[5:7], 16)

    for dark, light in ((low, drawn["light"][0]), (high, drawn["light"][-1])):
        assert (red_minus_blue(dark) > 0) == (red_minus_blue(light) > 0), (dark, light)  # the same side of the map
    # a sequential scheme is left to Vega on either card
    viridis = alt.Chart(pd.DataFrame({"v": [0.0]})).mark_rect().encode(color=alt.Color("v:Q").scale(scheme="viridis"))
    assert style.style_spec(viridis.to_dict(), dark=True)["encoding"]["color"]["scale"] == {"scheme": "viridis"}
