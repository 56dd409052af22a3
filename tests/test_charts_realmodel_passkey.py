"""The real model's passkey grid (explorer.charts.realmodel.passkey_chart): every count stays legible on both themes."""

from __future__ import annotations

import json
from pathlib import Path

import _chartspec as cs
import numpy as np

from explorer.charts import realmodel as charts
from explorer.charts.style import _walk_dark

SHIPPED = json.loads((Path(__file__).resolve().parent.parent / "data" / "realmodel" / "results.json").read_text())


def test_each_counts_colour_follows_its_cell_not_the_theme():
    """White on a dark cell (share found > 0.6), near-black on a pale one, in the light spec and in the dark theme's
    (whose recolouring lightens literal dark colours: the cells' blues stay as they are, so a lightened "0 of 20" on
    a pale cell vanished at 390 px dark)."""
    chart = charts.passkey_chart(charts.passkey_frame(SHIPPED["passkey"]["summary"]), trained=8192, title="t")
    for spec in (chart.to_dict(), _walk_dark(chart.to_dict())):
        (text,) = [layer for layer in spec["layer"] if cs.mark_type(layer) == "text"]
        assert "color" not in text.get("encoding", {})
        expr = text["mark"]["color"]["expr"]
        for rate, want in ((0.0, "#111827"), (0.6, "#111827"), (0.65, "#FFFFFF"), (1.0, "#FFFFFF")):
            got = eval(cs.py_expr(expr), {"__builtins__": {}}, {"datum": cs._Row({"rate": rate})})
            assert got == want, (rate, got)
    rates = charts.passkey_frame(SHIPPED["passkey"]["summary"])["rate"].to_numpy()
    assert np.any(rates <= 0.6) and np.any(rates > 0.6)  # the shipped grid has both kinds of cell
