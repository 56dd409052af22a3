"""Bench-only reference app for bench/load.py: a title, a slider and one 3-point Altair line chart.

The "one-chart Streamlit app" of issue #12, written the way a first Streamlit app is written
(public API only: ``st.slider``, ``st.altair_chart``). bench/load.py drags its slider and divides
the explorer's figures by this app's, measured in the same run. Not part of the app.
"""

import altair as alt
import pandas as pd
import streamlit as st

st.title("One chart")
point = st.slider("Middle point", 0, 100, 50, key="point")
data = pd.DataFrame({"x": [0, 1, 2], "y": [0.0, point / 100, 0.5]})
st.altair_chart(alt.Chart(data).mark_line(point=True).encode(x="x:Q", y="y:Q"), width="stretch")
