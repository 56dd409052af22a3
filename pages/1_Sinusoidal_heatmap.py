"""Sinusoidal heatmap: the whole encoding table, a zoom window, curves, wavelengths, and the
similarity / distance structure that makes positions unique and offsets recognisable.

URL keys: seq_len, d_model, base, layout_sin, scheme (shared); zoom_p0, zoom_np, zoom_d0, zoom_nd, curve_dims,
sim_n, sin_view (the open tab). zoom_p0, zoom_np, zoom_d0, zoom_nd, d and b are the zoom chart's own sliders
(explorer.liveparam).
"""

import streamlit as st

from explorer.layout import formula, intro, notice_list, page_setup

page_setup("sinusoidal")  # before the imports below: see explorer.layout

import numpy as np

import posenc
from explorer import mode
from explorer.charts import sinusoidal as charts
from explorer.compute import sinusoidal as compute
from explorer.exports import page_footer
from explorer.liveparam import LiveChart
from explorer.render import Rows, shared, show_chart, themed
from explorer.text import sinusoidal as text
from explorer.widgets import PARAMS, escape_markdown, widget

with intro():
    st.markdown(text.INTRO)
    formula(  # two lines: one is too wide for presentation mode with the sidebar open
        r"\begin{gathered}PE(p, 2j) = \sin(p\,\theta_j),\quad PE(p, 2j+1) = \cos(p\,\theta_j),\\ "
        r"\theta_j = b^{-2j/d},\quad \lambda_j = \frac{2\pi}{\theta_j} = 2\pi\, b^{2j/d}\end{gathered}",
        caption=text.FORMULA_CAPTION,
    )


# Not a fragment: in Streamlit 1.67 a fragment's rerun rebuilt its charts in the browser (the zoom chart's
# sliders jumped back after a drag); a page rerun keeps every chart whose spec did not change.
def view() -> None:
    # d and b are the zoom chart's own sliders (issue #36, charts.LIVE_PARAMS): the zoom window follows
    # them in the browser, and the rest of the page and the link when a drag ends; so does the window's start and
    # size. zoom_p0 and zoom_np are read after seq_len (at most seq_len − 1 and seq_len), zoom_d0 and zoom_nd after d.
    with st.container(border=True):
        c1, c2, c3, c4 = st.columns([1.4, 1.3, 1.25, 1.15])
        seq_len = widget("seq_len", container=c1)
        size_max = (PARAMS["zoom_np"].max, PARAMS["zoom_nd"].max)  # the largest window: the chart's grid
        live = LiveChart("sin_zoom_live", charts.LIVE_PARAMS, limits=charts.zoom_limits(seq_len, size_max))
        d_model, base = live.values["d_model"], float(live.values["base"])
        c2.markdown(text.controls_line(d_model, base))  # the sliders are the zoom chart's, above the tabs
        layout = widget("layout_sin", container=c3)
        scheme = widget("scheme", container=c4)

    wl = posenc.wavelengths(d_model, base=base)  # not cached: microseconds
    overview, ov_rows, pair_block = compute.overview(seq_len, d_model, base, layout)

    # ------------------------------------------------------------------------------------ overview
    st.subheader("The whole table")
    overview_slot = st.container()  # drawn below, once the zoom window (its box) is known
    note = text.reduction_note(seq_len, d_model, ov_rows, pair_block)
    with st.expander("How the big picture is drawn (and why averaging, not sampling)", expanded=bool(note)):
        st.markdown(text.averaging_explained(d_model, base, note))

    # ------------------------------------------------------------------------------- the window
    st.subheader("Look closer")
    st.caption(text.WINDOW_CAPTION)
    zoom_p0, zoom_d0 = (live.values[key] for key in charts.WINDOW_PARAMS)
    zoom_np, zoom_nd = (live.values[key] for key in charts.SIZE_PARAMS)
    p_end, d_end = min(zoom_p0 + zoom_np, seq_len), min(zoom_d0 + zoom_nd, d_model)  # exclusive
    zoom_positions, zoom_dims = np.arange(zoom_p0, p_end), np.arange(zoom_d0, d_end)

    window = dict(zoom_p0=zoom_p0, zoom_np=zoom_np, zoom_d0=zoom_d0, zoom_nd=zoom_nd)

    def zoom_rows() -> np.ndarray:  # (n, d): the window's positions, every dimension
        return compute.window_rows(zoom_p0, p_end - zoom_p0, d_model, base, layout)

    def window_table():  # the Numbers view and the CSV
        return charts.value_table(zoom_rows()[:, zoom_d0:d_end], zoom_positions, zoom_dims)

    y_axis, x_axis = charts.overview_axes(seq_len, d_model, ov_rows, pair_block)
    show_chart(
        container=overview_slot,
        save_as="sinusoidal_table",
        chart=themed(charts.encoding_heatmap)(  # dark: a diverging map's own image on the dark card
            overview,
            positions=y_axis,
            dims=x_axis,
            layout=layout,
            scheme=scheme,
            title=f"PE(p, i) for positions 0 … {seq_len - 1} and dimensions 0 … {d_model - 1}",
            subtitle=text.overview_subtitle(seq_len, ov_rows, wl, note),
            value_title="mean of PE over the pixel" if note else "PE(p, i)",
            box=(zoom_p0, p_end - 1, zoom_d0, d_end - 1),
        ),
        width="stretch",
    )

    # Above the tabs (issue #36): its sliders, d and b among them, whatever tab is open. The table's length
    # reaches it as data (charts.ZOOM_SIZE); its sliders span the registry's range, narrowed in the browser. Its
    # height is its start's (charts.zoom_height): a drag of the size stretches the rows and keeps the chart, even
    # when a pause mid-drag reruns the page; a link or a tour step that sets the size builds it at its own height.
    starts = live.starts((layout, scheme))
    live.show(
        shared(charts.zoom_chart)(
            size=Rows(charts.zoom_size(seq_len), check=charts.check_zoom_size),  # one spec for every length
            d_model=starts["d_model"],
            base=float(starts["base"]),
            base_options=PARAMS["base"].options,
            layout=layout,
            scheme=scheme,
            p0=starts["zoom_p0"],
            d0=starts["zoom_d0"],
            n_positions=starts["zoom_np"],
            n_dims=starts["zoom_nd"],
            size_max=size_max,
            d_range=(PARAMS["d_model"].min, PARAMS["d_model"].max),
            slider_max=(PARAMS["zoom_p0"].max, PARAMS["zoom_d0"].max),
        ),
        width="stretch",
    )
    st.caption(text.ZOOM_CAPTION)

    # Only the open tab is computed and drawn (the choice is in the URL: ?sin_view=Similarity).
    tab_curves, tab_wavelengths, tab_similarity, tab_numbers = widget("sin_view")

    # A tab's own widget is drawn on every run (cheap), only its charts wait for the tab to open:
    # Streamlit drops a bound widget's URL parameter while the widget is not drawn.
    with tab_curves:
        dims_text = widget("curve_dims")
        if tab_curves.open:
            curve_dims, problems = charts.parse_dims(dims_text, d_model)
            if problems:
                st.warning(text.dims_warning([escape_markdown(p) for p in problems]))
            if curve_dims:
                curves = shared(charts.dimension_curves)(
                    zoom_positions,
                    zoom_rows()[:, curve_dims],
                    curve_dims,
                    d_model=d_model,
                    layout=layout,
                    wavelengths=wl,
                    phone=mode.on_a_phone(),
                )
                show_chart(curves, width="stretch")
            else:
                st.info(text.no_dims(d_model))

    with tab_wavelengths:
        if tab_wavelengths.open:
            chart = shared(charts.wavelength_chart)(wl, seq_len=seq_len, base=base, d_model=d_model)
            show_chart(chart, width="stretch")

    with tab_similarity:
        sim_n = widget("sim_n", max=min(PARAMS["sim_n"].max, seq_len)) if seq_len >= 2 else None
        if tab_similarity.open and sim_n is None:
            st.info(text.TOO_FEW_POSITIONS)
        elif tab_similarity.open:
            similarity(seq_len, d_model, base, scheme, sim_n)

    with tab_numbers:
        if tab_numbers.open:
            table = window_table()
            shown = table.iloc[: charts.TABLE_MAX, : charts.TABLE_MAX + 1]
            cut_to = charts.TABLE_MAX if shown.shape != table.shape else None
            st.caption(text.numbers_caption(zoom_p0, p_end - 1, zoom_d0, d_end - 1, cut_to=cut_to))
            formats = {c: st.column_config.NumberColumn(format="%.4f") for c in shown.columns[1:]}
            st.dataframe(shown, hide_index=True, column_config=formats, height=320)

    notice_list(text.notices(seq_len, d_model, layout, wl, compute.closest(seq_len, d_model, base)))

    page_footer(
        "sinusoidal",
        dict(seq_len=seq_len, d_model=d_model, base=base, layout=layout, **window),
        data=window_table,
        data_label="Download the window as CSV",
        file_name=f"sinusoidal_pe_{layout}_d{d_model}_b{base:g}_p{zoom_p0}-{p_end - 1}_i{zoom_d0}-{d_end - 1}.csv",
    )


def similarity(seq_len: int, d_model: int, base: float, scheme: str, sim_n: int) -> None:
    """The Similarity tab: three numbers, the two N × N matrices and the distance by offset."""
    sim, dist, toeplitz_dev = compute.first_n_matrices(sim_n, d_model, base)
    k, k_dist = compute.offset_distances(seq_len, d_model, base)  # k = 1 … seq_len − 1
    k_min, d_min = compute.closest(seq_len, d_model, base)
    m1, m2, m3 = st.columns(3)
    closest_help, offset_help, spread_help = text.metric_helps(seq_len)
    m1.metric("Closest distinct pair", f"{d_min:.4g}", help=closest_help)
    m2.metric("…they are k apart", f"k = {k_min}", help=offset_help)
    m3.metric("Largest spread along a diagonal", f"{toeplitz_dev:.1e}", help=spread_help)
    # A wrapping row, not st.columns: each square matrix keeps its size, side by side where both fit and
    # one under the other where they do not (presentation mode's larger charts with the sidebar open),
    # instead of spilling over the neighbouring column.
    row = st.container(horizontal=True, gap="small", key="sin_matrix_row")
    closest_first_n = float(k_dist[: sim_n - 1].min())  # offsets 1 … N − 1: the pairs among 0 … N − 1
    subtitles = text.matrix_subtitles(sim_n, d_model, closest_first_n, float(dist.max()))
    for matrix, kind, subtitle in zip((sim, dist), ("similarity", "distance"), subtitles, strict=True):
        chart = themed(charts.matrix_heatmap)(matrix, kind=kind, scheme=scheme, d_model=d_model, subtitle=subtitle)
        show_chart(container=row, chart=chart, width="content")
    show_chart(shared(charts.offset_distance_chart)(k, k_dist, seq_len=seq_len), width="stretch")


view()
