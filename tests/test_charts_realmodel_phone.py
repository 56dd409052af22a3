"""The real model's charts beside one another and on a phone (explorer.charts.realmodel): one rope keeps one colour in
every chart of the page, every legend stays inside the plot's width (a 390-px phone's, a projector's in presentation
mode), and the Frequencies tab's tick legend reads on the dark card.

The legend measure, `_chartspec.legend_overflow`, is also the lab's check (tests/test_charts_lab.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import _chartspec as cs
import numpy as np
import pandas as pd
import pytest

from explorer.charts import realmodel as charts
from explorer.charts.style import DARK_BACKGROUND, _walk_dark
from explorer.site.realmodel import LIVE_LABELS
from explorer.text import realmodel as text
from posenc import realmodel
from posenc.realmodel import MODEL

SHIPPED = json.loads((Path(__file__).resolve().parent.parent / "data" / "realmodel" / "results.json").read_text())

# ------------------------------------------------------------------------------ the Long context tab's charts
ENTRY = realmodel.long_by_text(SHIPPED)["argparse.py"]
TRAINED = MODEL.trained_length


def long_context_charts() -> dict[str, tuple[dict, dict[str, str]]]:
    """The Long context tab's charts as the page builds them, each with the method behind each legend name."""
    length = ENTRY["length"]
    shipped = {text.short_label(m, length=length, trained=TRAINED): m for m in ENTRY["results"]}
    curves = text.shipped_curves(ENTRY["results"], length=length, trained=TRAINED)
    out = {"shipped": (charts.long_figure(curves, ENTRY, "argparse.py", TRAINED).to_dict(), shipped)}
    control = realmodel.control_estimates(SHIPPED["texts"])
    out["control"] = (
        charts.control_figure(text.legend_keys(control)).to_dict(),
        {text.short_label(m): m for m in control},
    )
    rng = np.random.default_rng(0)
    for live in LIVE_LABELS:  # a live run: its own rope and the chosen one
        result = {m: rng.normal(2, 0.1, 1024) for m in dict.fromkeys(("default", live))}
        lcurves = {text.short_label(m): realmodel.chunk_means(v, 128) for m, v in result.items()}
        spec = charts.live_figure(lcurves, 128, text.method_label(live), 1024, TRAINED).to_dict()
        out[f"live {live}"] = (spec, {text.short_label(m): m for m in result})
    own, new = rng.normal(2, 0.1, 512), rng.normal(2, 0.1, 512)  # Change the rope: its own rope against YaRN ×2
    yarn = text.short_label("yarn:factor=2")
    spec = charts.change_figure(own, new, text.method_label("yarn:factor=2"), yarn).to_dict()
    out["change"] = (spec, {name: "yarn:factor=2" if name == yarn else "default" for name in colours(spec)})
    return out


def colours(spec: dict) -> dict[str, str]:
    """{legend name: colour} read from the colour scales' domain and range of every layer (one colour per name)."""
    out: dict[str, str] = {}
    for layer in cs.layers(spec):
        scale = layer.get("encoding", {}).get("color", {}).get("scale", {})
        for name, colour in zip(scale.get("domain", []), scale.get("range", []), strict=True):
            assert out.setdefault(name, colour) == colour, f"{name} in two colours in one chart"
    return out


def test_one_rope_has_one_colour_in_every_chart_of_the_page():
    """The shipped curves, the content control, a live run and the changed rope: a method's colour is the same in all
    of them (they were given by order, and the control's and the shipped chart's orders differ: YaRN was blue in one
    and purple in the other), and in one chart two methods never share one."""
    by_method: dict[str, dict[str, str]] = {}
    for chart, (spec, methods) in long_context_charts().items():
        shown = colours(spec)
        assert set(shown) == set(methods), chart
        assert len(set(shown.values())) == len(shown), f"{chart}: two ropes share a colour {shown}"
        for name, method in methods.items():
            by_method.setdefault(method.partition(":")[0], {})[chart] = shown[name]
    assert {"shipped", "control"} <= set(by_method["yarn"])  # the two charts whose orders differ
    for method, seen in by_method.items():
        assert len(set(seen.values())) == 1, f"{method} in several colours: {seen}"


@pytest.mark.parametrize(
    ("plot", "presenting"), [(cs.PHONE_PLOT, False), (cs.PROJECTOR_PLOT, True)], ids=["phone", "present"]
)
def test_the_long_context_legends_fit_the_plot(plot, presenting):
    """Six ropes, "dynamic NTK ×2 in one pass = NTK ×3" the longest: in two fixed columns they ran past a phone's
    right edge."""
    for chart, (spec, _) in long_context_charts().items():
        assert not cs.legend_overflow(spec, plot, presenting=presenting), chart


def frequency_spec() -> dict:
    rng = np.random.default_rng(1)
    return charts.model_pairs_figure(rng.random(32), rng.random(32), MODEL.wavelengths(), TRAINED, 256).to_dict()


@pytest.mark.parametrize(
    ("plot", "presenting"), [(cs.PHONE_PLOT, False), (cs.PROJECTOR_PLOT, True)], ids=["phone", "present"]
)
def test_the_frequency_charts_two_legends_fit_the_plot(plot, presenting):
    """The bars' legend (turns in training or not) and the ticks' (the variance across keys): beside each other the
    ticks' ran past a phone's right edge."""
    spec = frequency_spec()
    assert len(cs.legend_channels(spec)) == 2
    assert not cs.legend_overflow(spec, plot, presenting=presenting)


def test_the_tick_legends_marker_reads_on_the_dark_card():
    """The ticks' legend marker on the dark theme: a stroke symbol is drawn only in a fixed colour (the scale colours
    the symbol's fill), and that colour, #111827, stayed near-black on the dark card, which the recolouring does not
    reach; the marker is drawn in its scale's colour, which it lightens, as it does the ticks."""
    dark = _walk_dark(frequency_spec())
    (tick,) = [layer for layer in cs.layers(dark) if cs.mark_type(layer) == "tick"]
    color: dict[str, Any] = tick["encoding"]["color"]
    legend = color.get("legend", {})
    marker = legend.get("symbolStrokeColor") if legend.get("symbolType") == "stroke" else color["scale"]["range"][0]
    assert marker is not None, "a stroke symbol without a stroke colour is not drawn"
    assert cs.contrast(marker, DARK_BACKGROUND) >= 3, f"the marker {marker} on the dark card"
    (measure,) = pd.unique(cs.frame(dark, tick)["measure"])
    assert measure == charts.SPREAD
