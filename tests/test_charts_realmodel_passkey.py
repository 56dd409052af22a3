"""The real model's passkey grid (explorer.charts.realmodel.passkey_chart): every count stays legible on both themes."""

from __future__ import annotations

import json
from pathlib import Path

import _chartspec as cs
import numpy as np

from explorer.charts import realmodel as charts
from explorer.charts import style
from explorer.charts.style import _walk_dark

SHIPPED = json.loads((Path(__file__).resolve().parent.parent / "data" / "realmodel" / "results.json").read_text())


def test_each_counts_colour_reads_on_its_cell_on_either_theme():
    """Each count takes the ink that contrasts more with its cell: on the light card's blues, and on the dark card's
    (style.GRID_VIEW: a mid-blue range there, blues' near-white for a rope that found nothing glared on a dark slide).
    Cells re-typed: blues' stops (checked against Vega in tests/test_chart_style.py) and the dark range, in RGB."""
    frame = charts.passkey_frame(SHIPPED["passkey"]["summary"])
    spec = charts.passkey_chart(frame, trained=8192, title="t").to_dict()
    dark = _walk_dark(spec)
    rows = next(iter(spec["datasets"].values()))
    for theme, field, stops in ((spec, "ink", list(style.BLUES)), (dark, "ink_dark", ["#1e3a5f", "#3b82f6"])):
        (text,) = [layer for layer in theme["layer"] if cs.mark_type(layer) == "text"]
        assert text["encoding"]["color"]["field"] == field
        for row in rows:
            x = row["rate"] * (len(stops) - 1)
            i = min(int(x), len(stops) - 2)
            a, b = ([int(h[k : k + 2], 16) for k in (1, 3, 5)] for h in stops[i : i + 2])
            cell = "#" + "".join(f"{int(u + (x - i) * (v - u) + 0.5):02x}" for u, v in zip(a, b, strict=True))
            other = "#0f172a" if row[field] == "#ffffff" else "#ffffff"
            assert cs.contrast(row[field], cell) >= max(4.0, cs.contrast(other, cell)), (theme is dark, row, cell)
    (cells,) = [layer for layer in dark["layer"] if cs.mark_type(layer) == "rect"]
    assert cells["encoding"]["color"]["scale"]["range"] == list(style.DARK_BLUES)
    rates = frame["rate"].to_numpy()
    assert np.any(rates <= 0.6) and np.any(rates > 0.6)  # the shipped grid has both kinds of cell
