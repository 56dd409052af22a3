"""Frequency clock hands: every (sin, cos) pair of the sinusoidal encoding as the hand of a clock,
animated in the browser, with the odometer of total turns and the numbers behind it.

URL keys: d_model, base, m (the position p; shared with the RoPE pages), n_clocks.
All four are the chart's own sliders (explorer.liveparam; issue #36 for d, b and the clocks): the chart
moves in the browser and the page and the link follow when a drag ends or play stops. The play
checkbox and speed menu live in the browser only.
"""

import streamlit as st

from explorer.layout import formula, intro, notice_list, page_setup

page_setup("clocks")  # before the imports below: see explorer.layout

import posenc
from explorer import mode
from explorer.charts import clocks as charts
from explorer.exports import page_footer
from explorer.liveparam import LiveChart
from explorer.render import shared
from explorer.text import clocks as text
from explorer.widgets import PARAMS

with intro():
    st.markdown(text.INTRO)
    formula(
        r"\begin{gathered}\varphi_j(p) = p\,\theta_j,\qquad \theta_j = b^{-2j/d},\qquad"
        r" \lambda_j = \frac{2\pi}{\theta_j}\\ (x_j, y_j) = \big(\sin p\theta_j,\ \cos p\theta_j\big)"
        r" = \big(PE(p, 2j),\ PE(p, 2j+1)\big)\end{gathered}",
        caption=text.FORMULA_CAPTION,
    )

P_MAX = PARAMS[charts.LIVE_KEY].max  # the in-chart slider is the URL's p
#: The slowest hand the sliders can reach (the largest d and base): the odometer's axis spans it.
SLOWEST_THETA = float(posenc.inverse_frequencies(PARAMS["d_model"].max, base=float(max(PARAMS["base"].options)))[-1])

# The position p, the head size d, the base b and the number of clocks are the chart's own sliders
# (issue #36): the chart follows them in the browser, and the table, the sentences and the link when a
# drag ends. n_clocks is read after d_model: at most d/2 clocks (charts.live_limits).
live = LiveChart("clocks_live", charts.LIVE_PARAMS, limits=charts.live_limits)
position, d_model, base, n_clocks = (live.values[key] for key in charts.LIVE_PARAMS)
base = float(base)

# Not cached: a few microseconds, less than a cache lookup.
theta, wl = posenc.inverse_frequencies(d_model, base=base), posenc.wavelengths(d_model, base=base)
angle = posenc.rope_angles([position], theta)[0]  # p·θ_j
row = posenc.sinusoidal_encoding([position], d_model, base=base)[0]  # interleaved: pair j in columns 2j, 2j + 1
sin, cos = row[0::2], row[1::2]
pairs = posenc.spread_pairs(d_model // 2, n_clocks)  # as the chart and the snippet
starts = live.starts(None)  # the spec depends on nothing but the sliders' starts
live.show(
    save_as="clock_hands",
    chart=shared(charts.clock_chart)(
        position=starts[charts.LIVE_KEY],
        d_model=starts["d_model"],
        base=float(starts["base"]),
        n_clocks=starts["n_clocks"],
        p_max=P_MAX,
        d_range=(PARAMS["d_model"].min, PARAMS["d_model"].max),
        n_max=PARAMS["n_clocks"].max,
        base_options=PARAMS["base"].options,
        slowest_theta=SLOWEST_THETA,
        phone=mode.on_a_phone(),  # a narrow panel, shown near its own size
    ),
    width="content",
    container=st.container(key="clock_chart"),  # explorer/assets.py puts its controls above the clocks
)
st.caption(text.LIVE_CAPTION)
with st.expander("How the animation works, and why this way"):
    st.markdown(text.animation_explained(charts.FRAME_MS, charts.FPS))

heading, caption = text.table_texts(position, len(pairs), d_model // 2, phone=mode.on_a_phone())
st.subheader(heading)
table = charts.pair_table(pairs, theta[pairs], wl[pairs], angle[pairs], sin[pairs], cos[pairs])
st.dataframe(
    table,
    hide_index=True,
    column_config={
        "pair j": st.column_config.NumberColumn(pinned=True),  # in view while the rest scrolls (a phone's screen)
        "θ_j (rad/token)": st.column_config.NumberColumn(format="%.6g"),
        "λ_j (tokens)": st.column_config.NumberColumn(format="%.6g"),
        "angle p·θ_j (rad)": st.column_config.NumberColumn(format="%.6g"),
        "turns": st.column_config.NumberColumn(format="%.6g"),
        "hand angle (° clockwise from 12)": st.column_config.NumberColumn(format="%.2f"),
        "sin = x": st.column_config.NumberColumn(format="%.5f"),
        "cos = y": st.column_config.NumberColumn(format="%.5f"),
    },
)
st.caption(caption)

notice_list(text.notices(theta, wl, base=base, p_max=P_MAX, largest_base=float(PARAMS["base"].options[-1])))

page_footer(
    "clocks",
    dict(d_model=d_model, base=base, p=position, n_clocks=n_clocks),
    data=table,
    file_name=f"clock_hands_d{d_model}_b{base:g}_p{position}.csv",
    data_label="Download the table as CSV",
)
