"""The Compare methods chart (explorer.charts.compare.score_by_distance) read as the browser draws it, in Python
(tests/_chartspec): each method's panel, the rows its curve draws with the scores its y channel reads, its y domain,
its title and its rule's and label's values. Shared by the chart's and the page's tests."""

from __future__ import annotations

import pandas as pd
from _chartspec import _Row, js_eval, spec_names, unit_rows

from explorer.charts import compare
from explorer.text.compare import METHOD_LABELS


def panels(spec: dict) -> dict[str, dict]:
    """Each method's panel (a view named `compare.panel_name`), by method key, in the chart's order."""
    out = {}
    for panel in spec["vconcat"]:
        assert panel["name"].startswith(compare.PANEL_PREFIX)
        out[panel["name"][len(compare.PANEL_PREFIX) :]] = panel
    return out


def drawn(spec: dict, sliders: dict) -> pd.DataFrame:
    """The rows every panel's curve draws (its transforms run in Python, tests/_chartspec), each with the score its y
    channel reads: (method, distance, score)."""
    out = []
    names = spec_names(spec, **sliders)
    for method, panel in panels(spec).items():
        line = panel["layer"][0]
        x, y = (line["encoding"][c]["datum"]["expr"] for c in ("x", "y"))
        for row in unit_rows(spec, line, **sliders).to_dict("records"):
            at = {**names, "datum": _Row(row)}
            out.append({"method": METHOD_LABELS[method], "distance": js_eval(x, at), "score": js_eval(y, at)})
    return pd.DataFrame(out)


def y_domain(spec: dict, method: str, sliders: dict) -> list[float]:
    """The domain of `method`'s panel's y scale as the browser computes it (before Vega makes it nice)."""
    expr = panels(spec)[method]["layer"][0]["encoding"]["y"]["scale"]["domain"]["expr"]
    domain = js_eval(expr, spec_names(spec, **sliders))
    assert domain is not None, f"{method}: no domain for the length the sliders leave ({expr})"  # JavaScript: undefined
    return list(domain)


def panel_title(spec: dict, method: str, sliders: dict):
    """What the browser writes as the name of `method`'s panel (its title: text, or an expression)."""
    title = panels(spec)[method]["title"]["text"]
    return js_eval(title["expr"], spec_names(spec, **sliders)) if isinstance(title, dict) else title


def mark_value(spec: dict, layer: dict, prop: str, sliders: dict):
    """What the browser computes for `layer`'s mark property `prop` (an expression of the chart's signals), or for
    its x position (``x``: a datum given by an expression, drawn on the x scale)."""
    value = layer["encoding"]["x"]["datum"] if prop == "x" else layer["mark"][prop]
    return js_eval(value["expr"], spec_names(spec, **sliders))
