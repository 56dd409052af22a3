"""Bench-only reference page: one 3-point Altair line chart, nothing else.

bench/run_all.py serves it with a second Streamlit server (same machine, same browser, same
.streamlit/config.toml) and divides each app page's navigation time by this page's, measured
alternately (A B A B …) so machine noise hits both alike. Not part of the app.
"""

import altair as alt
import pandas as pd
import streamlit as st

st.title("Small chart")
data = pd.DataFrame({"x": [0, 1, 2], "y": [0.0, 1.0, 0.5]})
st.altair_chart(alt.Chart(data).mark_line(point=True).encode(x="x:Q", y="y:Q"), width="stretch")
