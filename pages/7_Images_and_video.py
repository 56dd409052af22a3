"""Images and video: positions with a row, a column and a time — 1D RoPE in raster order, axial 2D
RoPE and M-RoPE (contiguous and interleaved) compared on a patch grid.

URL keys: vis_view (tab), vis_model, vis_head_dim, vis_base (custom model only), vis_rows, vis_cols,
vis_qrow, vis_qcol (query patch, clamped to the grid: the heatmaps' own sliders, and a click on a patch;
explorer.liveparam), vis_frames, vis_frame, vis_krow, vis_kcol,
vis_drow, vis_dcol (shift test, clamped so both patches stay on the grid), vis_train, vis_new
(resolution), vis_text_before, vis_text_after (sequence).
"""

from __future__ import annotations

import streamlit as st

from explorer.layout import cached, formula, intro, notice_list, page_setup

page_setup("vision")  # before the imports below: see explorer.layout

import math

import numpy as np
import pandas as pd

import posenc
from explorer import mode
from explorer.charts import vision as charts
from explorer.exports import page_footer
from explorer.liveparam import LiveChart
from explorer.params import widget
from explorer.render import shared, show_chart
from posenc.mrope import VISION_PRESETS

with intro():
    st.markdown(
        "A text token has one position. An image patch has a row and a column, and a video patch also a "
        "time. RoPE still turns each pair of query and key coordinates by the angle $p\\,\\theta_j$ (a position times the pair's frequency); what changes "
        "is **which** position turns which pair. Read the patches row by row and you get 1D RoPE over the "
        "raster order; **axial 2D RoPE** gives half of the pairs to the row and half to the column; "
        "**M-RoPE** (Qwen2-VL and later) gives each pair to time, height or width, in blocks or interleaved."
    )
    formula(  # two lines: one is too wide for a phone
        r"\begin{gathered}\phi_j = p_{a(j)}\,\theta_j,\qquad \theta_j = b^{-2j/d},\\ "
        r"s(q, k) = \tfrac{2}{d}\textstyle\sum_j \cos\big(\phi_j(q) - \phi_j(k)\big)\end{gathered}",
        caption="a(j) is the axis that turns pair j: the raster index (1D), the row or the column (axial 2D), "
        "or t, h, w (M-RoPE). The similarity s is the RoPE score for q = k = (1, …, 1), divided by d: 1 at "
        "the query itself. Only differences of positions on each axis enter it.",
    )

# ------------------------------------------------------------------------------ controls
# Two rows (the first screen of a projector holds them and the top of the chart): the model, its
# sizes, its notes (a popover) and the colour range; then the grid and the frames. The query patch is
# the heatmaps' own (explorer.liveparam): a click on a patch or their two sliders move it in the
# browser, and the rest of the page and the link follow when the move ends.
with st.container(border=True, key="vis_controls"):
    c1, c2, c3, c4 = st.columns([1.6, 0.9, 1.1, 1.2])
    model_key = widget("vis_model", container=c1)
    preset = VISION_PRESETS.get(model_key)
    if preset is None:
        head_dim = int(widget("vis_head_dim", container=c2))
        base = float(widget("vis_base", container=c3))
    else:
        head_dim, base = preset.head_dim, preset.base
        c2.metric("Head dimension d", f"{head_dim}")
        c3.metric("Base b", f"{base:,.0f}")
    own_range = widget("vis_colour", container=c4) == "each panel"
    if preset is not None:
        with c4.popover("About this model", icon=":material/info:"):
            st.caption(f"**{preset.name}**: {preset.notes} Source: {preset.source}.")
    g1, g2, g3, g4 = st.columns(4)
    rows = widget("vis_rows", container=g1)
    cols = widget("vis_cols", container=g2)
    frames = widget("vis_frames", container=g3)
    frame = widget("vis_frame", container=g4, max=frames - 1)
live = LiveChart("vis_live", charts.LIVE_PARAMS, limits={"vis_qrow": {"max": rows - 1}, "vis_qcol": {"max": cols - 1}})
q_row, q_col = (int(live.values[key]) for key in charts.LIVE_PARAMS)

n_pairs = head_dim // 2
own_c = preset is not None and preset.mrope_section is not None and not preset.interleaved
own_i = preset is not None and preset.mrope_section is not None and preset.interleaved
section_c = preset.mrope_section if own_c and preset else posenc.default_mrope_section(n_pairs)
section_i = preset.mrope_section if own_i and preset else posenc.default_mrope_section(n_pairs, interleaved=True)
axial_first = preset.axial_first if preset is not None and preset.axial_first else "row"
SCHEMES = ("raster 1D", "axial 2D", "M-RoPE contiguous", "M-RoPE interleaved")
AXIS_NAMES = {"t": "time (t)", "h": "row (h)", "w": "column (w)"}


def section_origin(own: bool, interleaved: bool) -> str:
    if own:
        return "this model's"
    return "Qwen3-VL's proportions" if interleaved else "Qwen2-VL's proportions"


# ------------------------------------------------------------------------------ numbers
@cached(max_entries=16)
def scheme_angles(
    rows: int, cols: int, frames: int, head_dim: int, base: float, section_c, section_i, axial_first: str
) -> dict[str, np.ndarray]:
    """Angles (frames·rows·cols, d/2) of every patch under each scheme (frame by frame, row by row)."""
    n = rows * cols
    inv = posenc.inverse_frequencies(head_dim, base=base)
    inv_axial = posenc.axial_inverse_frequencies(head_dim, base=base)
    vision = posenc.qwen2vl_position_ids([("video", frames, rows, cols)])
    return {
        "raster 1D": posenc.rope_angles(np.arange(frames * n), inv),
        "axial 2D": np.tile(posenc.axial_rope_angles(rows, cols, inv_axial, first=axial_first), (frames, 1)),
        "M-RoPE contiguous": posenc.mrope_angles(vision, inv, list(section_c)),
        "M-RoPE interleaved": posenc.mrope_angles(vision, inv, list(section_i), interleaved=True),
    }


def angles_now() -> dict[str, np.ndarray]:
    return scheme_angles(rows, cols, frames, head_dim, base, tuple(section_c), tuple(section_i), axial_first)


@cached(max_entries=16)
def offset_tables(
    rows, cols, frames, frame, head_dim, base, section_c, section_i, axial_first
) -> dict[str, np.ndarray]:
    """Per scheme, the score of a query (frame 0) with the key (Δr, Δc) away in `frame`, for every offset
    on the grid (posenc.offset_scores: shape (2·rows − 1, 2·cols − 1)); every query's heatmap is a window of it."""
    angles = scheme_angles(rows, cols, frames, head_dim, base, section_c, section_i, axial_first)
    return {name: posenc.offset_scores(a, rows, cols, frame=frame) for name, a in angles.items()}


def offsets_now() -> dict[str, np.ndarray]:
    return offset_tables(rows, cols, frames, frame, head_dim, base, tuple(section_c), tuple(section_i), axial_first)


def at_offset(table: np.ndarray, dr: int, dc: int) -> float:
    """The score of a query with the key dr rows below and dc columns right of it (an offset table's entry)."""
    return float(table[dr + rows - 1, dc + cols - 1])


@cached(max_entries=16)
def grid_scores(
    rows, cols, q_row, q_col, frames, frame, head_dim, base, section_c, section_i, axial_first
) -> dict[str, np.ndarray]:
    """Similarity of the query patch (frame 0) with every patch of `frame`, per scheme; (rows, cols) each."""
    angles = scheme_angles(rows, cols, frames, head_dim, base, section_c, section_i, axial_first)
    n = rows * cols
    query, keys = q_row * cols + q_col, slice(frame * n, (frame + 1) * n)
    return {name: posenc.angle_scores(a[[query]], a[keys])[0].reshape(rows, cols) for name, a in angles.items()}


def scores_now() -> dict[str, np.ndarray]:
    return grid_scores(
        rows, cols, q_row, q_col, frames, frame, head_dim, base, tuple(section_c), tuple(section_i), axial_first
    )


@cached(max_entries=8)
def resolution_scores(train: int, new: int, head_dim: int, base: float, axial_first: str) -> dict:
    inv_axial = posenc.axial_inverse_frequencies(head_dim, base=base)
    out = {}
    for label, n, s in (("trained", train, 1.0), ("as is", new, 1.0), ("interpolated", new, train / new)):
        a = posenc.axial_rope_angles(n, n, inv_axial, first=axial_first, row_scale=s, col_scale=s)
        q = (n // 2) * n + n // 2
        out[label] = posenc.angle_scores(a[[q]], a)[0].reshape(n, n)
    return out


def pair_score(angles: np.ndarray, i: int, k: int) -> float:
    return float(posenc.angle_scores(angles[[i]], angles[[k]])[0, 0])


def scheme_title(name: str) -> str:
    if name == "M-RoPE contiguous":
        return f"M-RoPE, contiguous {list(section_c)}"
    if name == "M-RoPE interleaved":
        return f"M-RoPE, interleaved {list(section_i)}"
    if name == "axial 2D":
        return f"Axial 2D RoPE ({axial_first}s first)"
    return "1D RoPE over the raster order"


# ------------------------------------------------------------------------------ views
tab_grid, tab_pairs, tab_shift, tab_res, tab_seq = widget("vis_view")

with tab_grid:
    if tab_grid.open:
        tables = offsets_now()
        notes = {
            "raster 1D": ["position = row · columns + column", "frames one after another"],
            "axial 2D": ["half the pairs turn with the row,", "half with the column; no time axis"],
            "M-RoPE contiguous": ["pairs in blocks t, h, w", f"section: {section_origin(own_c, False)}"],
            "M-RoPE interleaved": ["pairs T, H, W, T, H, W, …", f"section: {section_origin(own_i, True)}"],
        }
        where = "the same frame" if frame == 0 else f"frame {frame}"
        phone = mode.on_a_phone()  # one heatmap per row: a 2 × 2 grid would be scaled to unreadable text
        # Not the grid's size: the chart keeps its spec when it changes (query_heatmaps' facts row),
        # except where the heatmaps move to or from a canvas
        starts = live.starts(
            (
                charts.on_canvas_at(rows, cols),
                frames,
                frame,
                head_dim,
                base,
                tuple(section_c),
                tuple(section_i),
                axial_first,
                own_range,
                phone,
            )
        )
        live.show(
            save_as="vision_query",
            chart=shared(charts.query_heatmaps)(
                {scheme_title(name): tables[name] for name in SCHEMES},
                notes={scheme_title(name): notes[name] for name in SCHEMES},
                query=(starts["vis_qrow"], starts["vis_qcol"]),
                frame=frame,
                domain=None if own_range else (-1.0, 1.0),
                columns=1 if phone else 2,
                panel_width=260 if phone else 300,
                slider_max=live.widest_max,
                description="Four heatmaps over the patch grid, one per scheme ("
                + ", ".join(scheme_title(name) for name in SCHEMES)
                + f"): the similarity of the query patch (in frame 0) with every patch of {where}. The query "
                "row and column sliders above the heatmaps move the query, and so does a click on a patch.",
            ),
            width="content",
        )
        st.caption(
            "Click a patch, or drag **query row** and **query column** above the heatmaps (or focus one and "
            "press ← →): all four heatmaps follow in your browser at once; when you let go, the link, the "
            "**Shift test** and the download follow."
        )
        angles = angles_now()
        items = []
        if rows > 1 and cols > 1:
            sv = {name: at_offset(tables[name], 1, 0) for name in SCHEMES}
            sh = {name: at_offset(tables[name], 0, 1) for name in SCHEMES}
            items.append(
                f"Raster order puts the patch below a query {cols} positions after it and the patch to its right "
                "1 after it"
                + (f", plus {frame} whole frames of {rows * cols} (the keys are in frame {frame})" if frame else "")
                + f": similarity {sv['raster 1D']:.4f} against {sh['raster 1D']:.4f}, for every query that has them. "
                f"Axial 2D: {sv['axial 2D']:.4f} and {sh['axial 2D']:.4f}; M-RoPE contiguous: "
                f"{sv['M-RoPE contiguous']:.4f} and {sh['M-RoPE contiguous']:.4f}; interleaved: "
                f"{sv['M-RoPE interleaved']:.4f} and {sh['M-RoPE interleaved']:.4f}."
            )
            end, nxt = cols - 1, cols  # the last patch of row 0 and the first of row 1; every row end alike
            items.append(
                f"Across a row end: the last patch of a row (column {cols - 1}) and the first of the next (column 0) "
                f"are neighbours in raster order (1 apart), similarity {pair_score(angles['raster 1D'], end, nxt):.4f}; "
                f"for axial 2D they are {cols - 1} columns and 1 row apart, similarity "
                f"{pair_score(angles['axial 2D'], end, nxt):.4f}."
            )
        if frames > 1:
            items.append(
                "Axial 2D has no time axis: every frame scores exactly like frame 0. M-RoPE turns its "
                f"{section_c[0]} (contiguous) or {section_i[0]} (interleaved) time pairs by the frame offset; "
                f"raster order counts {rows * cols} positions per frame."
            )
        items.append(
            "Move the query: under every scheme the pattern moves with it (scores depend on position differences "
            "only); the **Shift test** tab measures it, and what raster order does with those differences."
        )
        notice_list(items)

with tab_pairs:
    if tab_pairs.open:
        inv = posenc.inverse_frequencies(head_dim, base=base)
        inv_axial = posenc.axial_inverse_frequencies(head_dim, base=base)
        axial_axes = posenc.axial_axis_of_pairs(n_pairs, first=axial_first)
        m_c = posenc.mrope_axis_of_pairs(n_pairs, list(section_c))
        m_i = posenc.mrope_axis_of_pairs(n_pairs, list(section_i), interleaved=True)
        names_thw = np.array([AXIS_NAMES[a] for a in posenc.mrope.AXES])
        rows_of = {  # short names: the strips' labels must fit a phone and presentation mode
            "raster 1D": (inv, np.full(n_pairs, "sequence")),
            "axial 2D": (inv_axial, np.array(["row (h)", "column (w)"])[axial_axes]),
            "M-RoPE contiguous": (inv, names_thw[m_c]),
            "M-RoPE interleaved": (inv, names_thw[m_i]),
        }
        pairs = pd.concat(
            [
                pd.DataFrame({"scheme": name, "pair": np.arange(n_pairs), "axis": axes, "wavelength": 2 * np.pi / fr})
                for name, (fr, axes) in rows_of.items()
            ],
            ignore_index=True,
        )
        show_chart(
            shared(charts.pair_axis_strip)(
                pairs,
                x="pair",
                title=f"Which axis turns each of the {n_pairs} pairs",
                subtitle=[
                    f"d = {head_dim}, b = {base:g} · pair 0 turns fastest · axial: {axial_first}s first",
                    f"M-RoPE sections: contiguous {list(section_c)}, interleaved {list(section_i)}",
                ],
                description=f"Strips of {n_pairs} cells, one per pair of a head of dimension {head_dim}, one strip "
                "per scheme, coloured by the axis (sequence, time, row or column) whose position turns the pair.",
            ),
            width="stretch",
        )
        show_chart(
            shared(charts.pair_axis_strip)(
                pairs,
                x="wavelength",
                title="The same pairs by wavelength: how far each axis can see",
                subtitle="a pair's angle repeats every 2π/θ_j positions of its axis",
                description="For each scheme and axis, ticks at the wavelengths 2π/θ_j (log scale) of the pairs "
                "that axis turns.",
            ),
            width="stretch",
        )
        summary = (
            pairs.groupby(["scheme", "axis"], sort=False)
            .agg(
                pairs=("pair", "count"),
                first=("pair", "min"),
                last=("pair", "max"),
                shortest=("wavelength", "min"),
                longest=("wavelength", "max"),
            )
            .reset_index()
        )
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
        wl = 2 * np.pi / inv

        def span(mask: np.ndarray) -> str:
            idx = np.flatnonzero(mask)
            return f"pairs {idx[0]}–{idx[-1]}, wavelengths {wl[idx[0]]:.3g}–{wl[idx[-1]]:.3g}"

        items = []
        if section_c[0] and section_c[2]:
            items.append(
                f"Contiguous M-RoPE {list(section_c)}: time has {span(m_c == 0)}, width has {span(m_c == 2)}. "
                "Time gets the fastest pairs and width the slowest: a column offset is measured only with "
                f"wavelengths of at least {wl[np.flatnonzero(m_c == 2)[0]]:.3g} positions."
            )
        ranges = []
        for a, label in enumerate(("time", "height", "width")):
            idx = np.flatnonzero(m_i == a)
            if idx.size:
                ranges.append(f"{label} {wl[idx[0]]:.3g}–{wl[idx[-1]]:.3g}")
        items.append(
            f"Interleaved M-RoPE {list(section_i)}: the wavelengths of each axis run {', '.join(ranges)} positions: "
            "every axis has fast and slow pairs."
        )
        items.append(
            f"Axial 2D uses d/4 = {n_pairs // 2} frequencies b^(−4i/d) for each axis, from "
            f"{2 * np.pi / inv_axial[0]:.3g} to {2 * np.pi / inv_axial[n_pairs // 2 - 1]:.3g} positions: each axis "
            "gets the whole range, with half as many pairs."
        )
        notice_list(items)

with tab_shift:
    s1, s2, s3, s4 = st.columns(4)
    k_row = widget("vis_krow", container=s1, max=rows - 1)
    k_col = widget("vis_kcol", container=s2, max=cols - 1)
    dr_lo, dr_hi = -min(q_row, k_row), rows - 1 - max(q_row, k_row)
    dc_lo, dc_hi = -min(q_col, k_col), cols - 1 - max(q_col, k_col)
    d_row = widget("vis_drow", container=s3, min=dr_lo, max=dr_hi)
    d_col = widget("vis_dcol", container=s4, min=dc_lo, max=dc_hi)
    if tab_shift.open:
        angles = angles_now()
        qi, ki = q_row * cols + q_col, k_row * cols + k_col
        qs, ks = (q_row + d_row) * cols + q_col + d_col, (k_row + d_row) * cols + k_col + d_col
        wider = scheme_angles(rows, cols + 1, 1, head_dim, base, tuple(section_c), tuple(section_i), axial_first)
        qw, kw = q_row * (cols + 1) + q_col, k_row * (cols + 1) + k_col
        table = pd.DataFrame(
            {
                "scheme": list(SCHEMES),
                "q, k": [pair_score(angles[s], qi, ki) for s in SCHEMES],
                "shifted by Δ": [pair_score(angles[s], qs, ks) for s in SCHEMES],
                f"grid {cols + 1} wide": [pair_score(wider[s], qw, kw) for s in SCHEMES],
            }
        )
        by_shift = table["shifted by Δ"] - table["q, k"]
        by_width = table[f"grid {cols + 1} wide"] - table["q, k"]
        left, right = st.columns([1, 1.5])
        with left:
            points = pd.DataFrame(
                {
                    "label": ["q", "k", "q + Δ", "k + Δ"],
                    "state": ["before", "before", "after", "after"],
                    "row": [q_row, k_row, q_row + d_row, k_row + d_row],
                    "col": [q_col, k_col, q_col + d_col, k_col + d_col],
                }
            )
            show_chart(
                shared(charts.shift_diagram)(
                    points,
                    rows=rows,
                    cols=cols,
                    title=f"Shift both by Δ = ({d_row}, {d_col})",
                    subtitle=f"offset k − q = ({k_row - q_row}, {k_col - q_col}) before and after",
                    description=f"The {rows} by {cols} grid with the query at ({q_row}, {q_col}), the key at "
                    f"({k_row}, {k_col}), and both moved by {d_row} rows and {d_col} columns.",
                ),
                width="stretch",
            )
        with right:
            st.dataframe(
                table,
                hide_index=True,
                width="stretch",
                column_config={c: st.column_config.NumberColumn(format="%.5f") for c in table.columns[1:]},
            )
        raster_offset = (k_row - q_row) * cols + (k_col - q_col)
        biggest_shift = float(by_shift.abs().max())
        raster_width = float(by_width.iloc[0])
        other_width = float(by_width.iloc[1:].abs().max())
        notice_list(
            [
                f"Moving both patches by the same (Δrow, Δcolumn) = ({d_row}, {d_col}) changes no score by more "
                f"than {biggest_shift:.1e} (float64 round-off): every scheme here is relative.",
                f"But relative to what: raster order sees one number, Δrow·columns + Δcolumn = "
                f"{k_row - q_row}·{cols} + {k_col - q_col} = {raster_offset}. The same patches on a grid one "
                f"column wider are {raster_offset + (k_row - q_row)} apart, and the raster score changes by "
                f"{raster_width:+.4f}; axial 2D and M-RoPE see (Δrow, Δcolumn) itself and change by at most "
                f"{other_width:.1e}.",
                "So 1D RoPE over patches ties the score to the image's width: a row's last patch and the next row's "
                "first are neighbours, and the patch below is a whole row away (the **Patch grid** tab).",
            ]
        )

with tab_res:
    r1, r2 = st.columns(2)
    train = int(widget("vis_train", container=r1))
    new = int(widget("vis_new", container=r2))
    if tab_res.open:
        inv_axial = posenc.axial_inverse_frequencies(head_dim, base=base)
        scale = train / new
        trained_pos = np.arange(train, dtype=float)
        new_pos = np.arange(new, dtype=float)
        positions = pd.DataFrame(
            {
                "grid": [f"trained: {train} × {train}"] * train
                + [f"new: {new} × {new}, as is"] * new
                + [f"new, interpolated (× {train}/{new})"] * new,
                "position": np.concatenate([trained_pos, new_pos, new_pos * scale]),
            }
        )
        positions["beyond"] = positions["position"] > train - 1
        show_chart(
            shared(charts.resolution_chart)(
                positions,
                trained_max=train - 1,
                title="Row (and column) positions: what training covered, and now",
                subtitle=f"training saw positions 0 … {train - 1} on each axis (dashed line)",
                description=f"Ticks at the row positions of a {train} by {train} training grid, of a {new} by {new} "
                f"grid as is, and of the {new} by {new} grid with positions multiplied by {train}/{new}.",
            ),
            width="stretch",
        )
        centre_t, centre_n = (train // 2, train // 2), (new // 2, new // 2)

        res = resolution_scores(train, new, head_dim, base, axial_first)
        cols3 = st.columns(3)
        panels = (
            ("trained", f"Trained grid {train} × {train}", centre_t),
            ("as is", f"{new} × {new}, positions as is", centre_n),
            ("interpolated", f"{new} × {new}, interpolated", centre_n),
        )
        for col, (label, title, centre) in zip(cols3, panels):
            with col:
                show_chart(
                    shared(charts.grid_heatmap)(
                        res[label],
                        query=centre,
                        title=title,
                        subtitle=[
                            f"axial 2D, query at the centre {centre}",
                            f"positions × {train}/{new}" if label == "interpolated" else "positions 0, 1, 2 and on",
                        ],
                        domain=None if own_range else (-1.0, 1.0),
                        description=f"Axial 2D RoPE similarity of the centre patch with every patch: {title}.",
                        width=360,
                    ),
                    width="stretch",
                )
        beyond = new * new - min(new, train) ** 2
        n_t, n_n = centre_t, centre_n
        step_t = float(res["trained"][n_t[0], n_t[1] + 1]) if train > 1 else 1.0
        step_i = float(res["interpolated"][n_n[0], n_n[1] + 1]) if new > 1 else 1.0
        items = []
        if new > train:
            items.append(
                f"As is, the {new} × {new} grid has positions up to {new - 1} on each axis; {beyond:,} of its "
                f"{new * new:,} patches ({beyond / (new * new):.0%}) have a row or a column the model never saw "
                f"(beyond {train - 1})."
            )
        else:
            items.append(
                f"The new grid is not larger: positions 0 … {new - 1} were all seen in training (0 … {train - 1})."
            )
        if new == train:
            items.append("Same grid size: 2D position interpolation would multiply by 1 and change nothing.")
        else:
            items.append(
                f"2D position interpolation multiplies rows and columns by {train}/{new} = {scale:.4g}: the largest "
                f"position is {(new - 1) * scale:.4g}"
                + (
                    f", {(new - 1) * scale - (train - 1):.4g} past the last trained one ({train - 1}), less than a step"
                    if new > train
                    else ""
                )
                + f"; but neighbours are {scale:.4g} apart instead of 1. "
                f"The centre patch's right-hand neighbour scores {step_i:.4f} (in training: {step_t:.4f})."
            )
        items.append(
            "Qwen2-VL's M-RoPE interpolates nothing: get_rope_index numbers a larger image's rows and columns "
            "0, 1, 2, … as it comes, so positions grow with the image."
        )
        notice_list(items)

with tab_seq:
    t1, t2 = st.columns(2)
    text_before = widget("vis_text_before", container=t1)
    text_after = widget("vis_text_after", container=t2)
    if tab_seq.open:
        pos = posenc.qwen2vl_position_ids([("text", text_before), ("video", frames, rows, cols), ("text", text_after)])
        n_vis = frames * rows * cols
        total = pos.shape[1]
        vis_idx = np.arange(text_before, text_before + n_vis)
        stride = max(1, math.ceil(n_vis / 1500))
        shown = np.concatenate([np.arange(text_before), vis_idx[::stride], np.arange(text_before + n_vis, total)])
        tokens = pd.concat(
            [
                pd.DataFrame(
                    {
                        "index": shown,
                        "segment": np.where(
                            (shown >= text_before) & (shown < text_before + n_vis), "image or video", "text"
                        ),
                        "axis": AXIS_NAMES[a],
                        "position": pos[i, shown],
                    }
                )
                for i, a in enumerate(posenc.mrope.AXES)
            ],
            ignore_index=True,
        )
        what = "image" if frames == 1 else "video"
        show_chart(
            shared(charts.sequence_chart)(
                tokens,
                title=f"M-RoPE positions: {text_before} text, a {frames} × {rows} × {cols} {what}, {text_after} text",
                subtitle="every token has a t, an h and a w position; text tokens have t = h = w"
                + (f" · every {stride}th {what} token drawn" if stride > 1 else ""),
                description=f"Line chart of the t, h and w positions of each of {total} tokens: {text_before} text "
                f"tokens, {n_vis} {what} patches, {text_after} text tokens, as Qwen2-VL's get_rope_index numbers them.",
            ),
            width="stretch",
        )
        start = text_before
        next_pos = start + max(frames, rows, cols)
        m1, m2, m3 = st.columns(3)
        m1.metric(f"{what.capitalize()} tokens", f"{n_vis:,}", help=f"{frames} × {rows} × {cols}")
        m2.metric(
            f"{what.capitalize()} starts at",
            f"{start}",
            help="t, h and w of its first patch: the next free position after the text before it.",
        )
        m3.metric("Next text token's position", f"{next_pos}", help="start + max(frames, rows, columns)")
        notice_list(
            [
                f"The {what} starts at position {start} on all three axes and spans t {start}–{start + frames - 1}, "
                f"h {start}–{start + rows - 1}, w {start}–{start + cols - 1}.",
                f"{'The text after it continues' if text_after else 'A text token after it would continue'} at "
                f"{next_pos} = {start} + max({frames}, {rows}, {cols}), although it is "
                f"token number {start + n_vis} of the sequence: the whole {what} costs max(frames, rows, columns) "
                f"= {next_pos - start} positions, not {n_vis:,}.",
                "Time advances by 1 per frame here (Qwen2-VL). Qwen2.5-VL scales it to absolute time "
                "(second_per_grid_t × tokens_per_second); Qwen3-VL writes timestamps as text instead.",
            ]
        )


def grid_csv() -> pd.DataFrame:
    scores = scores_now()
    r, c = posenc.grid_positions(rows, cols)
    return pd.DataFrame({"row": r, "column": c, **{name.replace(" ", "_"): scores[name].ravel() for name in SCHEMES}})


page_footer(
    "vision",
    dict(
        rows=rows,
        cols=cols,
        q_row=q_row,
        q_col=q_col,
        frames=frames,
        frame=frame,
        head_dim=head_dim,
        base=base,
        section_c=section_c,
        section_i=section_i,
        axial_first=axial_first,
        text_before=text_before,
        text_after=text_after,
    ),
    data=grid_csv,
    file_name=f"vision_scores_{rows}x{cols}_q{q_row}-{q_col}_frame{frame}.csv",
    data_label="Download the four similarity grids as CSV",
)
