"""Images and video: positions with a row, a column and a time — 1D RoPE in raster order, axial 2D
RoPE and M-RoPE (contiguous and interleaved) compared on a patch grid.

URL keys: vis_view (tab), vis_model, vis_head_dim, vis_base (custom model only); vis_rows, vis_cols, vis_qrow,
vis_qcol (query patch, clamped to the grid), vis_frames, vis_frame (the heatmaps' own sliders, and a click on a patch
for the query; explorer.liveparam; the grid, the video's frames and the frame also have number boxes), vis_krow, vis_kcol,
vis_drow, vis_dcol (shift test: the shift diagram's own sliders, clamped so both patches stay on the grid), vis_train, vis_new
(the resolution chart's own sliders), vis_text_before, vis_text_after (sequence: the sequence chart's own sliders).
"""

from __future__ import annotations

import streamlit as st

from explorer.layout import exact_entry, formula, intro, notice_list, page_setup, picture_first

page_setup("vision")  # before the imports below: see explorer.layout

from explorer import mode
from explorer.charts import vision as charts
from explorer.compute import vision as compute
from explorer.exports import page_footer
from explorer.liveparam import LiveChart
from explorer.render import Keyed, shared, show_chart
from explorer.text import vision as text
from explorer.widgets import PARAMS, widget
from posenc.mrope import VISION_PRESETS

with intro():
    st.markdown(text.INTRO)
    formula(text.FORMULA, caption=text.FORMULA_CAPTION)

# ------------------------------------------------------------------------------ controls
# Two rows: the model, its sizes, its notes (a popover) and the colour range; then the grid and the frames (folded
# in presentation mode, where the views come first: explorer.layout.picture_first). The grid, the query
# patch, the video's frames and the frame shown are the heatmaps' own too (explorer.liveparam): their sliders, and a
# click on a patch, move them in the browser, and the rest of the page and the link follow when the move ends.
controls, main = picture_first()  # on a projector, the views above these controls
with controls.container(border=True, key="vis_controls"):
    c1, c2, c3, c4 = st.columns([1.6, 0.9, 1.1, 1.2])
    preset = VISION_PRESETS.get(widget("vis_model", container=c1))
    if preset is None:
        m = compute.Model.of(None, int(widget("vis_head_dim", container=c2)), float(widget("vis_base", container=c3)))
    else:
        m = compute.Model.of(preset)
        c2.metric("Head dimension d", f"{m.head_dim}")
        c3.metric("Base b", f"{m.base:,.0f}")
    own_range = widget("vis_colour", container=c4) == "each panel"
    if preset is not None:
        with c4.popover("About this model", icon=":material/info:"):
            st.caption(text.about(preset))
    # boxes for exact entry and the other tabs: the heatmaps have their own sliders
    g1, g2, g3, g4 = exact_entry(names="rows, columns, frames and the frame shown").columns(4)
    for key, column in zip(charts.GRID_PARAMS, (g1, g2)):
        widget(key, container=column)
    widget(charts.FRAME_PARAM, container=g4, max=widget(charts.FRAMES_PARAM, container=g3) - 1)


def _limits(got: dict) -> dict:  # the query within the grid, the frame within the video
    on_grid = {q: {"max": got[n] - 1} for q, n in zip(charts.QUERY_PARAMS, charts.GRID_PARAMS) if n in got}
    in_video = {charts.FRAME_PARAM: {"max": got[charts.FRAMES_PARAM] - 1}} if charts.FRAMES_PARAM in got else {}
    return {**on_grid, **in_video}


live = LiveChart("vis_live", charts.LIVE_PARAMS, limits=_limits)
rows, cols, q_row, q_col, frames, frame = (int(live.values[key]) for key in charts.LIVE_PARAMS)
domain = None if own_range else (-1.0, 1.0)

# ------------------------------------------------------------------------------ views
tab_grid, tab_pairs, tab_shift, tab_res, tab_seq = widget("vis_view", container=main)

with tab_grid:
    if tab_grid.open:
        phone = mode.on_a_phone()  # one heatmap per row: a 2 × 2 grid is wider than a phone (a canvas does not shrink)
        # Not the grid, the query, the video's frames or the frame: the chart moves them itself (its spec depends on
        # none of them)
        starts = live.starts((m, own_range, phone))
        live.show(
            save_as="vision_query",
            chart=shared(charts.query_heatmaps)(
                Keyed(  # the model names the tables (render.Keyed: not hashed at every run, 1.4 MB of them)
                    ("vision_grid", m), {text.scheme_title(name, m): t for name, t in compute.grid_tables(m).items()}
                ),
                grid=(starts["vis_rows"], starts["vis_cols"]),
                query=(starts["vis_qrow"], starts["vis_qcol"]),
                frame=starts[charts.FRAME_PARAM],
                frames=starts[charts.FRAMES_PARAM],
                domain=domain,
                columns=1 if phone else 2,
                panel_width=260 if phone else 280,
                **text.heatmap_words(m),
            ),
            width="content",
        )
        st.caption(text.grid_caption(frames))
        notice_list(text.grid_notices(rows, cols, frames, frame, m, compute.neighbours(rows, cols, frames, frame, m)))

with tab_pairs:
    if tab_pairs.open:
        pairs = compute.pairs_frame(m)
        for x in ("pair", "wavelength"):
            show_chart(shared(charts.pair_axis_strip)(pairs, x=x, **text.strip_words(m, x)), width="stretch")
        summary = compute.pairs_summary(pairs)
        st.dataframe(
            summary,
            hide_index=True,
            width="stretch",
            column_config={
                "shortest": st.column_config.NumberColumn("shortest wavelength", format="%.4g"),
                "longest": st.column_config.NumberColumn("longest wavelength", format="%.4g"),
                "first": st.column_config.NumberColumn("first pair"),
                "last": st.column_config.NumberColumn("last pair"),
            },
        )
        notice_list(text.pair_notices(m, {(r.scheme, r.axis): r for r in summary.itertuples()}))

with tab_shift:
    # the key patch and the shift: the diagram's own sliders (issue #36), read on every run (the link keeps them whichever
    # tab is open), clamped so both patches stay on the grid; the diagram moves in the browser, the scores follow on
    # release
    shift_live = LiveChart(
        "vis_shift_live", charts.SHIFT_PARAMS, limits=lambda got: charts.shift_limits(got, rows, cols, (q_row, q_col))
    )
    k_row, k_col, d_row, d_col = (int(shift_live.values[key]) for key in charts.SHIFT_PARAMS)
    if tab_shift.open:
        q, k, d = (q_row, q_col), (k_row, k_col), (d_row, d_col)
        table = compute.shift_table(rows, cols, q, k, d, m)
        words = text.shift_words(rows, cols, q, k, d, compute.shift_changes(table))
        left, right = st.container(key="vis_shift_pair").columns([1, 1.5])  # one under the other where narrow (CSS)
        shift_starts = shift_live.starts((rows, cols, q_row, q_col))
        shift_live.show(
            shared(charts.live_shift_chart)(
                rows=rows,
                cols=cols,
                query=q,
                key=(shift_starts["vis_krow"], shift_starts["vis_kcol"]),
                shift=(shift_starts["vis_drow"], shift_starts["vis_dcol"]),
                **words["chart"],
            ),
            container=left,
            width="stretch",
        )
        right.dataframe(
            table,
            hide_index=True,
            width="stretch",
            column_config={c: st.column_config.NumberColumn(format="%.5f") for c in table.columns[1:]},
        )
        notice_list(words["notices"])

with tab_res:
    # the trained and the new grid's sides: the resolution chart's own sliders (issue #36), read whichever tab is open
    res_live = LiveChart("vis_res_live", charts.RES_PARAMS)
    train, new = (int(res_live.values[key]) for key in charts.RES_PARAMS)
    if tab_res.open:
        phone, res_axis = mode.on_a_phone(), Keyed(("vis_res_axis", m), compute.resolution_axis(m))
        res_starts = res_live.starts((m, own_range, phone))
        chart = shared(charts.live_resolution_chart)(
            res_axis, train=res_starts["vis_train"], new_side=res_starts["vis_new"], domain=domain, phone=phone,
            description=text.RESOLUTION_DESCRIPTION,
        )  # fmt: skip
        res_live.show(chart, save_as="vision_resolution", width="content")
        st.caption(text.RESOLUTION_CAPTION)
        steps = compute.centre_steps(compute.resolution_scores(train, new, m))
        notice_list(text.resolution_words(train, new, *steps)["notices"])

with tab_seq:
    # the text before and after the video: the sequence chart's own sliders (issue #36), read on every run (the link
    # keeps them whichever tab is open); the chart moves its dots in the browser, the numbers below follow on release
    seq_live = LiveChart("vis_seq_live", charts.TEXT_PARAMS)
    text_before, text_after = (int(seq_live.values[key]) for key in charts.TEXT_PARAMS)
    if tab_seq.open:
        video, n_vis, span, stride = compute.sequence_video(frames, rows, cols)
        words = text.sequence_words(text_before, text_after, frames, rows, cols, stride)
        seq_starts = seq_live.starts((frames, rows, cols))
        seq_live.show(
            shared(charts.live_sequence_chart)(
                Keyed(("vis_seq_video", frames, rows, cols), video),
                n_vis=n_vis,
                span=span,
                text_before=seq_starts["vis_text_before"],
                text_after=seq_starts["vis_text_after"],
                most_text=PARAMS["vis_text_before"].max,
                **words["chart"],
            ),
            width="stretch",
        )
        for col, (label, value, help_) in zip(st.columns(3), words["metrics"]):
            col.metric(label, value, help=help_)
        notice_list(words["notices"])


values = dict(rows=rows, cols=cols, q_row=q_row, q_col=q_col, frames=frames, frame=frame, **vars(m))
page_footer(
    "vision",
    {**values, "text_before": text_before, "text_after": text_after, "train": train, "new": new},
    data=lambda: compute.grid_csv(rows, cols, frames, frame, (q_row, q_col), m),
    file_name=f"vision_scores_{rows}x{cols}_q{q_row}-{q_col}_frame{frame}.csv",
    data_label="Download the four similarity grids as CSV",
)
