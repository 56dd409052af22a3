"""Small builders of explorer.charts.style, checked against what Altair itself builds."""

from __future__ import annotations

import altair as alt
import pandas as pd
import pytest
from _chartspec import contrast

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
