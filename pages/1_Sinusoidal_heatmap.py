"""Sinusoidal heatmap: the whole encoding table, a zoom window, curves, wavelengths, and the
similarity / distance structure that makes positions unique and offsets recognisable.

URL keys: seq_len, d_model, base, layout_sin, scheme (shared); zoom_p0, zoom_np, zoom_d0,
zoom_nd, curve_dims, sim_n, sin_view (the open tab) (this page, see explorer/params.py).
zoom_p0, zoom_d0, d_model and base are the zoom chart's own sliders (explorer.liveparam; issue #36 for
d and b), above the tabs: the window follows them in the browser, and the page and the link when a drag ends.
"""

import streamlit as st

from explorer.layout import cached, formula, intro, notice_list, page_setup

page_setup("sinusoidal")  # before the imports below: see explorer.layout

import numpy as np

import posenc
from explorer.charts import sinusoidal as charts
from explorer.exports import page_footer
from explorer.liveparam import LiveChart
from explorer.params import PARAMS, escape_markdown, widget
from explorer.render import shared, show_chart

with intro():
    st.markdown(
        "Every position p gets a vector of d numbers. Pair j of that vector is a point going round a "
        "circle at its own speed θ_j = b^(−2j/d): the first pair turns by exactly one radian per token "
        "(a full turn every 2π ≈ 6.3 tokens) whatever d and b are, and each later pair is slower by the "
        "same factor b^(2/d), down to the last pair, which needs 2π·b^((d−2)/d) tokens for one turn. Read "
        "a row of the heatmap like an odometer: the fast pairs tell neighbouring positions apart, the slow "
        "pairs say roughly where in the sequence you are."
    )
    formula(  # two lines: one is too wide for presentation mode with the sidebar open
        r"\begin{gathered}PE(p, 2j) = \sin(p\,\theta_j),\quad PE(p, 2j+1) = \cos(p\,\theta_j),\\ "
        r"\theta_j = b^{-2j/d},\quad \lambda_j = \frac{2\pi}{\theta_j} = 2\pi\, b^{2j/d}\end{gathered}",
        caption="That is the interleaved layout of the paper. The concatenated layout "
        "(tensor2tensor) puts sin(p·θ_j) in column j and cos(p·θ_j) in column d/2 + j: "
        "the same numbers, columns in another order.",
    )


# ------------------------------------------------------------------------- cached computations
@cached(max_entries=8)
def overview_values(seq_len: int, d_model: int, base: float, layout: str, rows: int, pair_block: int):
    if rows == seq_len and pair_block == 1:
        return posenc.sinusoidal_encoding(np.arange(seq_len), d_model, base=base, layout=layout)
    return posenc.block_mean_encoding(seq_len, d_model, rows=rows, base=base, layout=layout, pair_block=pair_block)


@cached(max_entries=16)
def window_rows(p0: int, n: int, d_model: int, base: float, layout: str):
    """Exact rows PE(p0 … p0+n−1), all d_model columns. (n, d)"""
    return posenc.sinusoidal_encoding(np.arange(p0, p0 + n), d_model, base=base, layout=layout)


@cached(max_entries=16)
def pair_wavelengths(d_model: int, base: float):
    return posenc.wavelengths(d_model, base=base)


@cached(max_entries=8)
def first_n_matrices(n: int, d_model: int, base: float):
    """Similarity and distance of positions 0 … n−1 (both independent of the column layout)."""
    pe = posenc.sinusoidal_encoding(np.arange(n), d_model, base=base)
    sim = posenc.similarity_matrix(pe)
    return sim, posenc.distance_matrix(pe), posenc.toeplitz_deviation(sim)


@cached(max_entries=8)
def offset_distances(seq_len: int, d_model: int, base: float):
    k = np.arange(1, seq_len)
    return k, posenc.distance_by_offset(k, d_model, base=base)


def averaging_effect(seq_len: int, rows: int, wl: np.ndarray) -> str:
    """What the overview's averaging does to the pairs, computed: averaging k consecutive positions
    multiplies pair j by D_k(θ_j) = sin(kθ_j/2) / (k·sin(θ_j/2)) (posenc.block_mean_encoding)."""
    exact = "The zoom window below shows exact values."
    if rows >= seq_len:  # only neighbouring pairs are averaged, no positions
        return "Positions are not averaged, only neighbouring pairs. " + exact
    theta = 2 * np.pi / wl
    lo, hi = seq_len // rows, -(-seq_len // rows)  # positions per block

    def gain(k: int) -> np.ndarray:
        return np.abs(np.sin(k * theta / 2) / (k * np.sin(theta / 2)))

    fading = wl <= lo  # a full turn (or more) within every block
    if fading.any():
        most = float(np.max(np.maximum(gain(lo), gain(hi))[fading]))
        return (
            f"{int(fading.sum())} of {wl.size} pairs turn at least once within a block: averaging shrinks each "
            f"of them to at most {most:.0%} of its amplitude, so they fade towards grey. " + exact
        )
    return (
        f"Averaging blocks of up to {hi} positions shrinks the fastest pair to {float(gain(hi)[0]):.0%} of its "
        "amplitude and the slower pairs less. " + exact
    )


def sinusoidal_notices(seq_len: int, d_model: int, base: float, layout: str, wl: np.ndarray) -> list[str]:
    """ "What to notice", computed from the settings on screen."""
    n_pairs = d_model // 2
    if n_pairs == 1:
        items = [
            "With d = 2 there is a single pair (columns 0 and 1), turning one radian per token: a full turn "
            "every 2π ≈ 6.3 tokens."
        ]
    else:
        if layout == "interleaved":
            where = (
                "Columns 0 and 1 (pair 0) change fastest from row to row; pair j sits in columns 2j and 2j + 1, "
                f"so the speed falls from left to right, down to columns {2 * n_pairs - 2} and {2 * n_pairs - 1}."
            )
        else:
            where = (
                f"Pair j sits in columns j (sine) and {n_pairs} + j (cosine), so each half of the table runs "
                f"from fast to slow: columns 0 and {n_pairs} change fastest, columns {n_pairs - 1} and "
                f"{2 * n_pairs - 1} slowest."
            )
        never = int(np.sum(wl > seq_len))
        items = [
            where + " The speeds form a geometric series (each pair slower than the last by b^(2/d)).",
            f"The wavelengths run from 2π ≈ 6.28 to {charts.tokens(wl.max())} tokens: a straight line on the log "
            "axis. "
            f"{never} of {n_pairs} pairs have a wavelength longer than the {seq_len:,} positions shown, so they "
            "never complete a turn inside them.",
        ]
    items.append(
        "The similarity matrix has constant diagonals: how alike two encodings are depends only on how far "
        "apart the positions are, never on where they are."
    )
    if seq_len >= 2:
        k, dist = offset_distances(seq_len, d_model, base)
        i = int(np.argmin(dist))
        items.append(
            f"No two of these {seq_len:,} positions share an encoding: the closest two are k = {int(k[i])} apart "
            f"and differ by {dist[i]:.3g} (every encoding has length √(d/2) = {np.sqrt(n_pairs):.3g})."
        )
    items.append("Switch the layout: the numbers are the same, only the column order changes.")
    return items


# ---------------------------------------------------------------------------------- the view
# Not a fragment (it was one): in Streamlit 1.67 a fragment's rerun rebuilt its charts in the browser,
# every time for a chart without a key and often for the zoom chart, keyed, inside its tab; then the
# zoom chart's sliders jumped back to where the chart started after a drag. A whole-page rerun keeps
# every chart whose spec did not change (tests/test_e2e_drag.py checks the zoom chart).
def view() -> None:
    # ------------------------------------------------------------------------------------ controls
    # d and b are the zoom chart's own sliders (issue #36, charts.LIVE_PARAMS): the zoom window follows
    # them in the browser, and the rest of the page and the link when a drag ends. zoom_p0 is read after
    # seq_len (at most seq_len − 1), zoom_d0 after d (at most d − 1).
    with st.container(border=True):
        c1, c2, c3, c4 = st.columns([1.4, 1.3, 1.25, 1.15])
        seq_len = widget("seq_len", container=c1)
        live = LiveChart("sin_zoom_live", charts.LIVE_PARAMS, limits=charts.zoom_limits(seq_len))
        d_model, base = live.values["d_model"], float(live.values["base"])
        c2.markdown(  # the sliders are the zoom chart's, above the tabs (issue #36)
            f"Model dimension **d = {d_model}**, base **b = {base:,.0f}**: set them on the zoom chart's own sliders "
            "(Look closer, below)."
        )
        layout = widget("layout_sin", container=c3)
        scheme = widget("scheme", container=c4)

    try:
        wl = pair_wavelengths(d_model, base)
        ov_rows, pair_block = charts.overview_blocks(seq_len, d_model)
        overview = overview_values(seq_len, d_model, base, layout, ov_rows, pair_block)
    except ValueError as err:  # the params' ranges make this unreachable; never crash on it
        st.error(f"Could not compute with these settings ({escape_markdown(str(err))}); showing the defaults.")
        seq_len, d_model, base, layout = (PARAMS[k].default for k in ("seq_len", "d_model", "base", "layout_sin"))
        base = float(base)
        wl = pair_wavelengths(d_model, base)
        ov_rows, pair_block = charts.overview_blocks(seq_len, d_model)
        overview = overview_values(seq_len, d_model, base, layout, ov_rows, pair_block)

    # ------------------------------------------------------------------------------------ overview
    st.subheader("The whole table")
    overview_slot = st.container()  # drawn below, once the zoom window (its box) is known
    note = charts.reduction_note(seq_len, d_model, ov_rows, pair_block)
    with st.expander("How the big picture is drawn (and why averaging, not sampling)", expanded=bool(note)):
        st.markdown(
            f"At the largest settings the table holds 8192 × 2048 ≈ 16.8 million numbers, far more "
            f"than the chart has pixels (at most {charts.OVERVIEW_MAX_COLS} × "
            f"{charts.OVERVIEW_MAX_ROWS} are sent). So the server sends one value per pixel: the "
            "**mean** of the block of positions it covers.\n\n"
            "- **Averaging** (used here) is what your eye does from far away. A pair that turns "
            "several times within one block averages out to about 0 and shows as grey: an honest "
            "*too fast to draw at this scale*. The mean is exact and cheap: averaging k positions "
            "multiplies pair j by D_k(θ_j) = sin(kθ_j/2) / (k·sin(θ_j/2)), about 1 for a pair that turns "
            "little within the k positions and near 0 for one that turns several times. Not exactly 0: the faint arcs left in the grey area are "
            "what remains of the fast waves after averaging.\n"
            "- **Keeping every k-th position** (stride sampling) would show exact values, but a fast "
            "sinusoid sampled every k tokens turns into a slow false wave (aliasing, moiré) that is "
            "not in the data at all. That picture looks sharp and is wrong.\n\n"
            "Columns are averaged only when there are more than "
            f"{charts.OVERVIEW_MAX_COLS} of them, and then sines only with sines and cosines only "
            f"with cosines, over neighbouring pairs (whose frequencies differ by the factor b^(2/d) = "
            f"{base ** (2 / d_model):.4g} here). The zoom window below always shows exact values."
            + (f"\n\nNow: {note}" if note else "\n\nNow: nothing is averaged.")
        )

    # ------------------------------------------------------------------------------- the window
    st.subheader("Look closer")
    st.caption(
        "A window of the table, shown exactly (nothing averaged); Curves and Numbers below show the same "
        "window. Its size is set here; its start, and the model dimension d and the base b of the whole page, "
        "on the chart's own sliders."
    )
    z1, z2 = st.columns(2)
    zoom_np = widget("zoom_np", container=z1, max=min(PARAMS["zoom_np"].max, seq_len))
    zoom_nd = widget("zoom_nd", container=z2, max=min(PARAMS["zoom_nd"].max, d_model))
    zoom_p0, zoom_d0 = (live.values[key] for key in charts.WINDOW_PARAMS)
    p_end = min(zoom_p0 + zoom_np, seq_len)  # exclusive
    d_end = min(zoom_d0 + zoom_nd, d_model)
    zoom_positions = np.arange(zoom_p0, p_end)
    zoom_dims = np.arange(zoom_d0, d_end)

    def zoom_values() -> np.ndarray:  # (n, d_end − d0): the Numbers view and the CSV
        return window_rows(zoom_p0, p_end - zoom_p0, d_model, base, layout)[:, zoom_d0:d_end]

    y_axis, x_axis = charts.overview_axes(seq_len, d_model, ov_rows, pair_block)
    show_chart(
        container=overview_slot,
        save_as="sinusoidal_table",
        chart=shared(charts.encoding_heatmap)(
            overview,
            positions=y_axis,
            dims=x_axis,
            layout=layout,
            scheme=scheme,
            title=f"PE(p, i) for positions 0 … {seq_len - 1} and dimensions 0 … {d_model - 1}",
            subtitle=[
                *(
                    [note, averaging_effect(seq_len, ov_rows, wl)]
                    if note
                    else ["Every value is drawn (nothing averaged). Hover for exact values."]
                ),
                "The box marks the zoom window below; it catches up when you let go of the zoom's sliders.",
            ],
            value_title="mean of PE over the pixel" if note else "PE(p, i)",
            box=(zoom_p0, p_end - 1, zoom_d0, d_end - 1),
        ),
        width="stretch",
    )

    # The zoom chart sits above the tabs (issue #36): its sliders (d and b among them) are there whatever
    # tab is open. The table's length is not in the context: it reaches the chart as data
    # (charts.ZOOM_SIZE), and the window's sliders span the registry's range, narrowed in the browser
    # (LiveChart.show); d and b are the chart's own sliders, over the registry's range.
    starts = live.starts((layout, scheme, zoom_np, zoom_nd))
    live.show(
        shared(charts.zoom_chart)(
            seq_len=seq_len,
            d_model=starts["d_model"],
            base=float(starts["base"]),
            base_options=PARAMS["base"].options,
            layout=layout,
            scheme=scheme,
            p0=starts["zoom_p0"],
            d0=starts["zoom_d0"],
            n_positions=zoom_np,
            n_dims=zoom_nd,
            d_range=(PARAMS["d_model"].min, PARAMS["d_model"].max),
            slider_max=(PARAMS["zoom_p0"].max, PARAMS["zoom_d0"].max),
        ),
        width="stretch",
    )
    st.caption(
        "Drag **first position p₀**, **first dimension i₀**, the **model dimension d** or the **base b** "
        "above the chart (or focus one and press ← →): the window follows in your browser at once; when "
        "you let go, the whole table, the views below, the sentences and the link follow."
    )

    # Only the open tab is computed and drawn (the choice is in the URL: ?sin_view=Similarity).
    tab_curves, tab_wavelengths, tab_similarity, tab_numbers = widget("sin_view")

    # A tab's own widget is drawn on every run (cheap), only its charts wait for the tab to open:
    # Streamlit drops a bound widget's URL parameter while the widget is not drawn.
    with tab_curves:
        dims_text = widget("curve_dims")
        if tab_curves.open:
            curve_dims, problems = charts.parse_dims(dims_text, d_model)
            if problems:
                st.warning("Dimensions: " + escape_markdown("; ".join(problems)))
            if curve_dims:
                show_chart(
                    shared(charts.dimension_curves)(
                        zoom_positions,
                        window_rows(zoom_p0, p_end - zoom_p0, d_model, base, layout)[:, curve_dims],
                        curve_dims,
                        d_model=d_model,
                        layout=layout,
                        wavelengths=wl,
                    ),
                    width="stretch",
                )
            else:
                st.info(f"Type one or more dimension indices between 0 and {d_model - 1}, e.g. 0, 1, 20.")

    with tab_wavelengths:
        if tab_wavelengths.open:
            show_chart(
                shared(charts.wavelength_chart)(wl, seq_len=seq_len, base=base, d_model=d_model), width="stretch"
            )

    with tab_similarity:
        sim_n = widget("sim_n", max=min(PARAMS["sim_n"].max, seq_len)) if seq_len >= 2 else None
        if tab_similarity.open and sim_n is None:
            st.info("Similarity and distance need at least two positions: raise the sequence length.")
        elif tab_similarity.open:
            sim, dist, toeplitz_dev = first_n_matrices(sim_n, d_model, base)
            k, k_dist = offset_distances(seq_len, d_model, base)  # k = 1 … seq_len − 1
            i_min = int(np.argmin(k_dist))
            min_first_n = float(k_dist[: sim_n - 1].min())  # offsets 1 … N − 1: the pairs among 0 … N − 1
            m1, m2, m3 = st.columns(3)
            m1.metric(
                "Closest distinct pair",
                f"{k_dist[i_min]:.4g}",
                help=f"The smallest ‖PE(p) − PE(q)‖ over all p ≠ q among the {seq_len} positions. It "
                "depends only on k = q − p, so it is the minimum over k = 1 … seq_len − 1. Above 0: no "
                "two positions share an encoding.",
            )
            m2.metric(
                "…they are k apart",
                f"k = {int(k[i_min])}",
                help="The offset at which two positions come closest.",
            )
            m3.metric(
                "Largest spread along a diagonal",
                f"{toeplitz_dev:.1e}",
                help="max over k of (largest − smallest) PE(p)·PE(p+k) in the N × N matrix: 0 up to "
                "rounding, because the dot product depends only on the offset.",
            )
            # A wrapping row, not st.columns: each square matrix keeps its size, side by side
            # where both fit and one under the other where they do not (presentation mode's larger
            # charts with the sidebar open), instead of spilling over the neighbouring column.
            pair_row = st.container(horizontal=True, gap="small", key="sin_matrix_row")
            show_chart(
                container=pair_row,
                chart=shared(charts.matrix_heatmap)(
                    sim,
                    kind="similarity",
                    scheme=scheme,
                    d_model=d_model,
                    subtitle=[
                        f"First {sim_n} positions. PE(p)·PE(q) = Σ_j cos((q − p)θ_j)",
                        f"depends only on q − p; the main diagonal is d/2 = {d_model // 2}.",
                    ],
                ),
                width="content",
            )
            show_chart(
                container=pair_row,
                chart=shared(charts.matrix_heatmap)(
                    dist,
                    kind="distance",
                    scheme=scheme,
                    d_model=d_model,
                    subtitle=[
                        f"First {sim_n} positions; the closest two distinct ones",
                        f"are {min_first_n:.4g} apart, the farthest two {float(dist.max()):.4g}.",
                    ],
                ),
                width="content",
            )
            show_chart(shared(charts.offset_distance_chart)(k, k_dist, seq_len=seq_len), width="stretch")

    with tab_numbers:
        if tab_numbers.open:
            table = charts.value_table(zoom_values(), zoom_positions, zoom_dims)
            shown = table.iloc[: charts.TABLE_MAX, : charts.TABLE_MAX + 1]
            st.caption(
                f"The window, positions {zoom_p0} … {p_end - 1} × dimensions {zoom_d0} … {d_end - 1}"
                + (
                    f" (the first {charts.TABLE_MAX} rows and columns are shown; the CSV has all of it)."
                    if shown.shape != table.shape
                    else "."
                )
            )
            st.dataframe(
                shown,
                hide_index=True,
                column_config={c: st.column_config.NumberColumn(format="%.4f") for c in shown.columns[1:]},
                height=320,
            )

    notice_list(sinusoidal_notices(seq_len, d_model, base, layout, wl))

    page_footer(
        "sinusoidal",
        dict(
            seq_len=seq_len,
            d_model=d_model,
            base=base,
            layout=layout,
            zoom_p0=zoom_p0,
            zoom_np=zoom_np,
            zoom_d0=zoom_d0,
            zoom_nd=zoom_nd,
        ),
        data=lambda: charts.value_table(zoom_values(), zoom_positions, zoom_dims),
        data_label="Download the window as CSV",
        file_name=f"sinusoidal_pe_{layout}_d{d_model}_b{base:g}_p{zoom_p0}-{p_end - 1}_i{zoom_d0}-{d_end - 1}.csv",
    )


view()
