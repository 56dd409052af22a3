"""Bench-only page: the Sinusoidal heatmap page's whole-table chart ALONE, at maximum size.

The same computation and chart builder as pages/1_Sinusoidal_heatmap.py (seq_len=8192,
d_model=2048, base 10000, interleaved, redblue), cached the same way, and nothing else on the page.
bench/run_all.py uses it to separate what the heatmap at max costs in the browser from what the
rest of the page (six more charts, a table, formulas) costs. Not part of the app.
"""

import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.charts import sinusoidal as charts
from explorer.compute import sinusoidal as compute
from explorer.render import show_chart
from explorer.text import sinusoidal as text

SEQ_LEN, D_MODEL, BASE, LAYOUT, SCHEME = 8192, 2048, 10000.0, "interleaved", "redblue"


st.title("Heatmap only")
values, rows, pair_block = compute.overview(SEQ_LEN, D_MODEL, BASE, LAYOUT)
y_axis, x_axis = charts.overview_axes(SEQ_LEN, D_MODEL, rows, pair_block)
note = text.reduction_note(SEQ_LEN, D_MODEL, rows, pair_block)
show_chart(
    charts.encoding_heatmap(
        values,
        positions=y_axis,
        dims=x_axis,
        layout=LAYOUT,
        scheme=SCHEME,
        title=f"PE(p, i) for positions 0 … {SEQ_LEN - 1} and dimensions 0 … {D_MODEL - 1}",
        subtitle=note,
        value_title="mean of PE over the pixel" if note else "PE(p, i)",
    ),
    width="stretch",
)
