"""Relative-position invariance: RoPE scores depend only on n − m; additive encodings' do not.

URL keys: qk_source, seed, q_text, k_text; seq_len (N ≤ 256), head_dim (d, seeded vectors), base, shift_t and
table_len: the shift test chart's own sliders (explorer.liveparam); score_dtype, layout_sin; inv_view (the open tab;
only it is computed and drawn). Numbers: explorer.compute.invariance; sentences: explorer.text.invariance.
"""

from __future__ import annotations

import streamlit as st

from explorer.layout import formula, intro, notice_list, page_setup

page_setup("invariance")  # before the imports below: see explorer.layout

from functools import partial

from explorer import presets_ui
from explorer.charts import invariance as charts
from explorer.compute import invariance as compute
from explorer.exports import long_matrices, page_footer
from explorer.liveparam import LiveChart
from explorer.render import Rows, shared, show_chart, themed
from explorer.text import invariance as text
from explorer.widgets import escape_markdown, widget

with intro():
    st.markdown(text.INTRO)
    formula(
        r"s(m,n) = \langle R_m q,\ R_n k\rangle = q^\top R_m^\top R_n\, k = \langle q,\ R_{n-m}\,k\rangle"
        r"\quad\Rightarrow\quad s(m+t,\,n+t) = s(m,n)",
        caption=text.FORMULA_CAPTION,
    )

# ------------------------------------------------------------------------------ controls
# N, d (seeded vectors), b, t and the learned table's rows are the shift test chart's own sliders (explorer.liveparam):
# the bars move in the browser while one is dragged, the rest of the page and the link follow when the drag ends. The
# vectors' source, the precision and the sinusoid's layout stay in the sidebar.
with st.sidebar:
    presets_ui.model_picker("invariance")
    st.markdown("**q and k**")
    source = widget("qk_source", container=st.sidebar)
    seed = widget("seed", container=st.sidebar)
    d_slider = source == "random"  # seeded vectors: d is the chart's slider; typed ones fix it
    q_text = None if d_slider else widget("q_text", container=st.sidebar)
    k_text = None if d_slider else widget("k_text", container=st.sidebar)
    st.markdown("**The test**")
    dtype = widget("score_dtype", container=st.sidebar)
    st.markdown("**The added sinusoid**")
    layout_sin = widget("layout_sin", container=st.sidebar)

q, k, typed_error = (None, None, None) if d_slider else compute.query_and_key(source, q_text, k_text, None, seed)
limits = partial(compute.live_limits, typed_d=None if d_slider else q.size)
live = LiveChart("inv_live" if d_slider else "inv_live_typed", charts.live_params(d_slider), limits=limits)
n_pos, shift_t, base, table_len = (
    live.values[key] for key in (charts.N_KEY, charts.LIVE_KEY, charts.B_KEY, charts.L_KEY)
)
if d_slider:
    q, k, _ = compute.query_and_key(source, None, None, int(live.values[charts.D_KEY]), seed)
d = q.size
if typed_error:  # the message quotes the offending text: escaped so it shows literally (never as markup)
    st.error(text.typed_fallback(escape_markdown(typed_error), d), icon=":material/error:")
elif source == "typed":
    st.sidebar.caption(text.typed_dim(d))

# The chart carries the test at every t this N and d reach (charts.shift_reach; a t beyond is clamped, with a
# notice), and at this t for every N, d and b in windows around them (charts.arm_window): bounded work each.
reach = compute.spans(n_pos, d, base, d_slider)
for key, (lo, hi) in reach.items():
    live.narrow(key, lo, hi)  # in the browser
settings = (dtype, base, layout_sin, table_len, seed)
nums = compute.shift_test(q, k, n_pos, shift_t, *settings)

# ------------------------------------------------------------------------------ the test
st.subheader("The shift test: move both tokens by t")
# the chart first (a projector's first screen); its spec holds no number of these rows, so new rows redraw it in place
rows, home = compute.chart_rows(q, k, n_pos, shift_t, reach, dtype, base, layout_sin, seed)
starts = live.starts((dtype, None if d_slider else d))
live.show(
    save_as="shift_test",
    chart=shared(charts.deviation_chart)(
        Rows(rows, check=charts.check_rows),  # the spec is built once for all rows: they reach it only as data
        Rows(home, check=charts.check_home),
        starts=starts,
        dtype=dtype,
        n_max=compute.MAX_POSITIONS,
        d_range=compute.D_SPAN if d_slider else None,
        t_cap=compute.T_CAP,
        b_options=compute.B_OPTIONS,
        table_span=compute.TABLE_SPAN,
        typed_d=None if d_slider else d,
    ),
    width="stretch",
)
st.caption(text.slider_caption(reach, compute.FULL_SPANS) + " " + text.SIDEBAR)
st.markdown(text.shift_test_intro(n_pos, dtype))
st.markdown(text.at_t(shift_t))
for col, (label, value, help_text, badge) in zip(st.columns(4), text.metrics(nums, dtype)):
    col.metric(label, value, help=help_text)
    if badge:
        col.markdown(badge)
if nums["learned_dev_error"]:
    st.info(text.learned_error(nums["learned_dev_error"], shift_t), icon=":material/block:")

# ------------------------------------------------------------------------------ look closer
st.subheader("Look closer")
st.caption(text.LOOK_CLOSER)

# Only the open tab is computed and drawn (the choice is in the URL: ?inv_view=Decay).
tab_scores, tab_shift, tab_decay = widget("inv_view")

with tab_scores:
    if tab_scores.open:
        st.markdown("**Scores over all (m, n)**")
        for col, (key, title, _) in zip(st.columns(3), text.HEATMAPS):
            with col:
                if nums[key] is None:
                    st.info(text.learned_error(nums["learned_error"]), icon=":material/block:")
                    continue
                sub = text.diagonal_words(nums["spreads"][key], nums["tolerance"], n_pos)
                show_chart(
                    themed(charts.score_heatmap)(nums[key], nums["positions"], title=title, subtitle=sub),
                    width="stretch",
                )
        st.markdown(text.WHY_ADDITIVE_FAILS)
        st.latex(text.ADDITIVE_LATEX)
        st.markdown(text.additive_explanation(table_len))

with tab_shift:
    if tab_shift.open:
        st.markdown("**The sinusoid's own shift is exact — but linear, not invariant**")
        sh = compute.shift_numbers(d, shift_t, n_pos, base, layout_sin, dtype)
        left, right = st.columns(2)
        with left:
            show_chart(themed(charts.shift_matrix_heatmap)(sh["r_k"], k=shift_t, layout=layout_sin), width="stretch")
        with right:
            title, subtitle = text.residual_titles(shift_t, dtype, sh["residual"]["residual"].max())
            show_chart(
                shared(charts.curve_chart)(
                    sh["residual"],
                    x="p",
                    y="residual",
                    x_title="position p",
                    y_title="‖PE(p+k) − R_k·PE(p)‖",
                    title=title,
                    subtitle=subtitle,
                    y_format=".0e",
                ),
                width="stretch",
            )
        st.caption(text.shift_caption(shift_t))

decay = compute.decay_numbers(d, base)
decay_title, decay_words = text.decay_summary(decay["distance"], decay["bound"])
with tab_decay:
    if tab_decay.open:
        st.markdown("**Long-term decay**")
        show_chart(
            shared(charts.curve_chart)(
                decay,
                x="distance",
                y="bound",
                x_title="relative distance |n − m| (log scale)",
                y_title="score bound",
                title=decay_title,
                subtitle=text.decay_subtitle(d, base),
                log_x=True,
                mark_x=max(n_pos - 1, 1),
                mark_label=f"largest offset in the test ({max(n_pos - 1, 1)})",
                width=700,
            ),
            width="stretch",
        )

t_reach = reach[charts.LIVE_KEY][1]
words = dict(n_pos=n_pos, t=shift_t, t_reach=t_reach, table_len=table_len, dtype=dtype, d=d, base=base)
notice_list(text.notices(nums, decay=decay_words, **words))

page_footer(
    "invariance",
    dict(
        q=q,
        k=k,
        seed=seed,
        n_pos=n_pos,
        shift_t=shift_t,
        dtype=dtype,
        base=base,
        layout_sin=layout_sin,
        table_len=table_len,
    ),
    data=lambda: long_matrices(
        {"RoPE": nums["rope"], "sinusoidal added": nums["sinusoidal"], "learned added": nums["learned"]},
        row="m",
        column="n",
    ),
    file_name=f"scores_d{d}_N{n_pos}_seed{seed}.csv",
    data_label="Download the score matrices as CSV",
)
