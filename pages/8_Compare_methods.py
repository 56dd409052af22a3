"""Compare methods: sinusoidal, learned, RoPE, ALiBi and NoPE side by side.

Every table cell is a check computed now, with the settings above the table
(posenc.attention.method_checks), not a claim typed into the page.
"""

import streamlit as st

from explorer.layout import formula, intro, notice_list, page_setup

page_setup("compare")  # before the imports below: see explorer.layout

from explorer import mode
from explorer.charts import compare as charts
from explorer.compute import compare as compute
from explorer.exports import page_footer
from explorer.liveparam import LiveChart
from explorer.render import dark_theme, shared
from explorer.text import compare as text
from explorer.vocabulary import TARGET_STOPS
from explorer.widgets import widget, write

with intro():
    st.write(text.INTRO)
    formula(
        r"\begin{aligned}"
        r"\text{sinusoidal, learned:}\;& s(m,n) = \big((x_q + p_m)W_q\big)\cdot\big((x_k + p_n)W_k\big)/\sqrt d"
        r"\\ \text{RoPE:}\;& s(m,n) = \langle R_m\, x_qW_q,\; R_n\, x_kW_k\rangle/\sqrt d"
        r" = \langle x_qW_q,\; R_{n-m}\, x_kW_k\rangle/\sqrt d"
        r"\\ \text{ALiBi:}\;& s(m,n) = (x_qW_q)\cdot(x_kW_k)/\sqrt d \;-\; \text{slope}\cdot|m-n|"
        r"\\ \text{NoPE:}\;& s(m,n) = (x_qW_q)\cdot(x_kW_k)/\sqrt d"
        r"\end{aligned}",
    )
c1, c2, c3, c4, c5 = st.columns(5)
dim = int(widget("head_dim", container=c1))
lengths = {"train_len": dict(max=compute.TRAIN_MAX, default=128)}
trained_len = int(widget("train_len", container=c2, **lengths["train_len"]))
if (kept_t := st.session_state.get("target_len")) is not None and kept_t <= trained_len and kept_t in TARGET_STOPS:
    write("target_len", compute.target_above(trained_len))  # L passed T on the chart: T follows, as drawn there
lengths["target_len"] = dict(min=trained_len + 1, max=compute.TARGET_MAX, default=max(512, trained_len + 1))
test_len = int(widget("target_len", container=c3, label="Test length T (> L)", **lengths["target_len"]))
base = float(widget("base", container=c4))
seed = int(widget("seed", container=c5))

# The ALiBi head, the base b, and L and T where they stand on their stops, are the chart's own sliders (issue #36):
# the browser redraws it while they are dragged and the page follows on release; the boxes above stay for exact
# entry of L and T (a length typed off the stops is a server run).
windows = compute.slider_windows(trained_len, test_len)
live = LiveChart(
    "cmp_live",
    [*(k for k, w in zip(charts.LENGTH_PARAMS, windows) if w), charts.HEAD_KEY, charts.BASE_KEY],
    limits=lengths,
)
alibi_head = int(live.values[charts.HEAD_KEY])

settings = dict(dim=dim, trained_len=trained_len, test_len=test_len, seed=seed, base=base, alibi_head=alibi_head)
checks = compute.all_checks(**settings)
table = text.summary_table(checks, trained_len=trained_len, test_len=test_len, dim=dim)
dark = dark_theme()
for shown in (
    charts.style_summary_by_method(table, dark=dark) if mode.on_a_phone() else [charts.style_summary(table, dark=dark)]
):
    st.table(shown)
st.caption(text.shift_caption(checks[0]))  # under the table whose first column it explains
st.caption(text.settings_caption(**settings, slope=compute.alibi_slope(alibi_head), heads=compute.ALIBI_HEADS))

curves = charts.score_table(
    compute.curve_checks(dim, *compute.chart_lengths(trained_len, test_len, windows), seed), compute.BASES
)
fixed = (v for v, w in zip((trained_len, test_len), windows) if not w)
starts = live.starts((dim, seed, windows, *fixed))
chart = shared(charts.score_by_distance)(
    curves,
    train_len=starts.get("train_len", trained_len),
    test_len=starts.get("target_len", test_len),
    slopes=compute.SLOPES,
    head=starts[charts.HEAD_KEY],
    l_window=windows[0],
    t_window=windows[1],
    width=charts.PHONE_WIDTH if mode.on_a_phone() else charts.WIDTH,
    bases=compute.BASES,
    base=starts[charts.BASE_KEY],
)
live.show(save_as="compare_methods", chart=chart, width="content")

notice_list(text.notices(checks))

page_footer(
    "compare",
    settings,
    data=table,
    file_name=f"compare_methods_d{dim}_L{trained_len}_T{test_len}_seed{seed}.csv",
    data_label="Download the table as CSV",
)
