"""RoPE rotation: one pair of a query and a key, rotated by position, and the d×d matrix behind it.

URL keys: vec_input, qx, qy, kx, ky, q_angle, q_len, k_angle, k_len (the two 2-D vectors), m, n
(positions), j (pair; max head_dim/2 − 1, clamped), base, head_dim, layout_rope, traj_m. m, n, head_dim, base, j and
the vectors' numbers (those of the way vec_input gives them) are the live plane's own sliders (explorer.liveparam);
traj_m is the rotation plane's (the "One pair" tab).
"""

from __future__ import annotations

import streamlit as st

from explorer.layout import formula, intro, notice_list, page_setup

page_setup("rope")  # before the imports below: see explorer.layout

import numpy as np

import posenc
from explorer import presets_ui
from explorer.charts import rope as charts
from explorer.compute import rope as compute
from explorer.exports import matrix_frame, page_footer
from explorer.liveparam import LiveChart
from explorer.mode import on_a_phone
from explorer.render import shared, show_chart, themed
from explorer.text import rope as text
from explorer.widgets import PARAMS, widget

with intro():
    st.markdown(text.INTRO)
    formula(  # two lines: one is too wide for presentation mode with the sidebar open
        r"\begin{gathered}\begin{pmatrix}x'_a\\ x'_b\end{pmatrix} = \begin{pmatrix}\cos m\theta_j & -\sin m\theta_j\\ "
        r"\sin m\theta_j & \cos m\theta_j\end{pmatrix}\begin{pmatrix}x_a\\ x_b\end{pmatrix},\qquad "
        r"\theta_j = b^{-2j/d},\\ \langle R_m q,\ R_n k\rangle = \langle q,\ R_{n-m}\,k\rangle\end{gathered}",
        caption=text.FORMULA_CAPTION,
    )
    st.caption(text.SLIP)

# ------------------------------------------------------------------------------ controls
# The positions and the pair are the page's main controls: in the main area (the sidebar starts
# collapsed on phones and in presentation mode); the rest stays in the sidebar. m and n are the live
# plane's own sliders (explorer.liveparam): the plane turns in the browser while they are dragged, and
# the rest of the page and the link follow when the drag ends. So are q's and k's numbers (issue #36), in the way the
# sidebar's choice gives them (x and y, or angle and length): a discrete choice, a server run.
# The real-model select first: it fills the widgets below before they are drawn.
presets_ui.model_picker("rope", container=st.sidebar)
with st.sidebar:
    st.markdown("**How q and k are given**")
    mode = widget("vec_input", container=st.sidebar)
vector_keys = charts.VECTOR_PARAMS[mode]  # q's two numbers, then k's
live = LiveChart("rope_live", charts.live_params(mode), limits=charts.live_limits)
m, n, head_dim, base, j = (live.values[key] for key in charts.LIVE_PARAMS)
q_in, k_in = (tuple(live.values[key] for key in keys) for keys in (vector_keys[:2], vector_keys[2:]))
live_slot = st.container(border=True, key="rope_controls")

with st.sidebar:
    st.markdown("**The whole head**")
    layout = widget("layout_rope", container=st.sidebar)
# the trajectory's length M: the rotation plane's own slider (issue #36); it draws q at every position up to the
# slider's reach and shows 0 … M in the browser
traj_live = LiveChart("rope_traj_live", charts.TRAJ_PARAMS)


# ------------------------------------------------------------------------------ numbers
vectors = {"q": compute.pair_vector(mode, *q_in), "k": compute.pair_vector(mode, *k_in)}  # polar: (degrees, length)
for name, vector in vectors.items():
    if not np.any(vector):  # no direction to turn: the default pair instead
        vectors[name] = compute.default_vector(name)
        st.warning(text.zero_vector_warning(name, vectors[name]))
q, k = vectors["q"], vectors["k"]

thetas = posenc.inverse_frequencies(head_dim, base=base)
theta = float(thetas[j])
nums = compute.plane_numbers(q, k, m, n, theta, PARAMS["traj_m"].max)

starts = live.starts(mode)  # q and k reach the spec as the sliders' starts; the plane's reach is rows
live.show(
    save_as="rope_plane",
    chart=shared(charts.live_pair_chart)(
        q,
        k,
        vector_input=mode,
        vectors={key: starts[key] for key in vector_keys},
        vector_ranges={
            key: (PARAMS[key].min, PARAMS[key].max, PARAMS[key].step, PARAMS[key].label) for key in vector_keys
        },
        base_options=PARAMS["base"].options,
        p_max=PARAMS["m"].max,
        d_range=(PARAMS["head_dim"].min, PARAMS["head_dim"].max),
        **{key: starts[key] for key in charts.LIVE_PARAMS},
        phone=on_a_phone(),
    ),
    container=live_slot,
    width="content",
)
live_slot.caption(text.LIVE_CAPTION)

# -------------------------------------------------------------- one pair | the whole head
# Only the open tab is computed and drawn (the choice is in the URL: ?rope_view=Whole+head).
tab_pair, tab_head = widget("rope_view")
with tab_pair:
    if tab_pair.open:
        # A wrapping row, not st.columns: the plane keeps its size (equal units on both axes) and
        # the metric cards sit beside it where there is room, below it where there is not (a
        # narrow window, or presentation mode's larger chart with the sidebar open).
        row = st.container(horizontal=True, gap="medium", key="rope_pair_row")
        title, subtitle = text.plane_title(j, theta)
        traj_start = traj_live.starts((tuple(q), tuple(k), m, n, theta))[charts.TRAJ_PARAMS[0]]
        traj_live.show(
            shared(charts.plane_chart)(
                **charts.plane_frames(q, k, nums, m, n), traj_m=traj_start, title=title, subtitle=subtitle
            ),
            container=row,
            width="content",
        )
        with row.container(width="stretch", key="rope_pair_metrics"):
            for heading, cards in text.metric_groups(
                q, nums["q_rot"], m, n, theta, nums["angles"], nums["score"], nums["score_rel"]
            ):
                st.markdown(heading)
                columns = st.columns(2)
                for i, (label, value, help_text) in enumerate(cards):
                    columns[i % 2].metric(label, value, help=help_text)
        st.latex(charts.rotation_latex(m, theta, nums["rotation"], q, nums["q_rot"]))

with tab_head:
    if tab_head.open:
        st.subheader(text.head_heading(head_dim))
        r_full, pairs = compute.full_matrix(m, head_dim, base, layout)
        # Wrapping row as on the first tab: the matrix at its own size, the pair map beside it where
        # there is room for its title, else below it at full width.
        row = st.container(horizontal=True, gap="medium", key="rope_head_row")
        show_chart(
            themed(charts.rope_matrix_heatmap)(  # its own image on the dark card (a near-white one glared there)
                r_full, position=m, pair=tuple(int(c) for c in pairs[j]), layout=layout
            ),
            container=row,
            width="content",
        )
        with row.container(width="stretch", key="rope_head_pairs"):
            show_chart(shared(charts.pair_map_chart)(pairs, highlight=j, layout=layout), width="stretch")
            st.caption(text.PAIR_MAP_CAPTION)

notice_list(text.notices(j, thetas, base, head_dim))

page_footer(
    "rope",
    dict(q=q, k=k, m=m, n=n, j=j, head_dim=head_dim, base=base, layout=layout),
    data=lambda: matrix_frame(compute.full_matrix(m, head_dim, base, layout)[0]),
    file_name=f"rope_matrix_m{m}_d{head_dim}_b{base:g}_{layout}.csv",
    data_label="Download the rotation matrix R_m as CSV",
)
